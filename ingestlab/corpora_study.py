"""Study 5 in one command: the eventdata, geonames and pmc tracks on 1 node, then on 3 nodes with 0 and
1 replica, reported as the ratios the study drew (3 nodes ÷ 1 node, 1 replica ÷ 0 replicas) beside its
published table. Sizes are parameters so that a 2-core machine finishes in minutes."""
from __future__ import annotations

import json
import time

from ingestlab import machine, paths, published, studies
from ingestlab.report import rally_corpora

TRACKS = ("eventdata", "geonames", "pmc")
SIZES = {"eventdata": {"eventdata_docs": 100_000}, "geonames": {"geonames_docs": 100_000}, "pmc": {"pmc_docs": 1_000}}
ONE_NODE = {"name": "ingestlab-corpora-1", "http_port": 39240, "transport_port": 39340, "nodes": 1, "heap": "1g"}
THREE_NODES = {"name": "ingestlab-corpora-3", "http_port": 39241, "transport_port": 39341, "nodes": 3, "heap": "512m"}


def _median(race: dict, task: str) -> float | None:
    return rally_corpora.indexing(race).get(task, {}).get("median")


def run(tracks=TRACKS, test_mode: bool = False, extra_params: dict | None = None, clients: int | None = None, log=print) -> str:
    from ingestlab.racing import race_study
    from ingestlab.cluster import nodes
    from ingestlab.report import html

    stamp = time.strftime("%Y-%m-%dT%H%M%S")
    results: dict[str, dict[str, float]] = {t: {} for t in tracks}
    for shape, challenge in ((ONE_NODE, "append-no-conflicts-index-only"), (THREE_NODES, "append-replica-sweep")):
        cluster = nodes.up(nodes=shape["nodes"], heap=shape["heap"], name=shape["name"], http_port=shape["http_port"],
                           transport_port=shape["transport_port"])
        try:
            for track in tracks:
                studies.get(track)
                params = {**SIZES.get(track, {}), **(extra_params or {}).get(track, {})}
                if clients:
                    params["bulk_indexing_clients"] = clients
                if shape["nodes"] == 1:
                    params["number_of_replicas"] = 0
                log(f"[ingestlab] rally corpora: {track} on {shape['nodes']} node(s), {challenge}")
                race = race_study(track, cluster.hosts, challenge=challenge, track_params=params,
                                  tags={"corpora": stamp, "nodes": str(shape["nodes"])}, test_mode=test_mode)
                if shape["nodes"] == 1:
                    results[track]["1 node"] = _median(race, "index-append")
                else:
                    results[track]["3 nodes"] = _median(race, "index-append-replicas-0")
                    results[track]["3 nodes, 1 replica"] = _median(race, "index-append-replicas-1")
        finally:
            nodes.stop(cluster, log=log)
    line = machine.one_line(machine.describe())
    text = rally_corpora.scaling_markdown(results, published.load("rally-corpora"), line)
    if test_mode:
        text = text.replace("## Rally corpora:", "## Rally corpora (test mode: 1,000 docs per corpus, noisy):", 1)
    out = paths.results_dir() / "rally-corpora" / stamp
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.md").write_text(text)
    (out / "results.json").write_text(json.dumps({"results": results, "test_mode": test_mode}, indent=2))
    charts = rally_corpora.charts(results, published.load("rally-corpora"), line)
    (out / "report.html").write_text(html.page("ingestlab: Rally corpora", text, charts))
    log(text)
    log(f"[ingestlab] report written to {out}/report.md and report.html")
    return text
