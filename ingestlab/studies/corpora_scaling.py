"""Study 5 across races: :func:`scaling` races eventdata, geonames and pmc on 1 node, then on 3 nodes with 0 and 1
replica, as the study did, and :func:`report` puts their ratios (3 nodes ÷ 1, 1 replica ÷ 0) beside the published
table, with a chart; each race's own report is :class:`ingestlab.studies.corpora.Corpus`'."""

from __future__ import annotations

import time

from ingestlab import machine, paths, racing
from ingestlab import published as published_data
from ingestlab.cluster import lifecycle
from ingestlab.errors import IngestlabError
from ingestlab.rally import results
from ingestlab.rally.home import data_cache
from ingestlab.rally.results import RaceResult
from ingestlab.report import writer
from ingestlab.report.common import engine_name, fmt, footprint_line, held_sentence, load_generator, ratio
from ingestlab.studies import corpora_room
from ingestlab.studies.corpora import (
    ONE_NODE,
    ONE_NODE_RAID,
    THREE_NODES,
    THREE_NODES_REPLICA,
    TRACKS,
    bulk_task_per_replicas,
    held_rows,
    indexing,
)


def counted_documents(result: RaceResult) -> int | None:
    """The documents the count checks found after indexing (one value when every check agrees), else None."""
    found = {s["documents"] for s in result.runner_stats if s.get("method") == "check-doc-count" and "documents" in s}
    return found.pop() if len(found) == 1 else None


def node_scaling_lines(per_nodes: dict[str, dict[int, float | None]], published: dict) -> list[str]:
    """The Universal Scalability Law over the node counts of each track, here and published (1-node RAID0 and 3-node
    RAID0): two node counts cannot carry its three parameters, which the line says rather than fit them."""
    from ingestlab.models import usl  # the cost models (scipy loads where one is fitted)
    from ingestlab.report import cost  # the cost models (scipy loads where one is fitted)

    lines = []
    for track, by_nodes in per_nodes.items():
        pub = published["figures"].get(track, {})
        here = usl.try_fit([(n, x) for n, x in by_nodes.items() if x])
        there = usl.try_fit([(1, pub.get(ONE_NODE_RAID)), (3, pub.get(THREE_NODES))])
        lines += cost.usl_lines(f"{track}: nodes", here[0], there[0], here[1], there[1])
    return lines


def scaling_markdown(
    results: dict[str, dict[str, float]],
    published: dict,
    machine_line: str,
    docs: dict | None = None,
    versions: str | None = None,
    held: dict | None = None,
) -> str:
    """``results``: {track: {"1 node": docs/s, "3 nodes": docs/s, "3 nodes, 1 replica": docs/s}}; ``docs``: {track:
    documents indexed, as the count checks found them}; ``held``: :func:`held_rows`' of every race."""
    against = [(t, ratio(r.get("1 node"), published["figures"].get(t, {}).get(ONE_NODE))) for t, r in results.items()]
    against = [(t, x) for t, x in against if x]
    counts = sorted({n for r in results.values() for n, key in ((1, "1 node"), (3, "3 nodes")) if r.get(key)})
    refused = (
        f"No Universal Scalability Law is fitted to the nodes: {len(counts)} node count(s) ({', '.join(map(str, counts)) or 'none'}) "
        "cannot carry its three parameters, on either side, so the node ratios stand as measured."
    )
    opening = (
        "Against the article's one-disk node of 12 cores: one node here indexes "
        + ", ".join(f"{t} at {x:,.2f}×" for t, x in against)
        + " its rate, on this machine's cores; "
        "the node and replica ratios below are made each side against itself. "
        if against
        else ""
    ) + refused
    opening = " ".join(filter(None, [opening, held_sentence(held or {}, "its race")]))
    lines = [
        "## Rally corpora: 1 vs. 3 nodes, 0 vs. 1 replica (median docs/s of index-append)",
        "",
        *([opening, ""] if opening else []),
        "| corpus | 1 node | 3 nodes | 3 nodes, 1 replica | 3 nodes ÷ 1 node: here / published (RAID0 ÷ RAID0) "
        "| 1 replica ÷ 0: here / published |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for track, r in results.items():
        pub = published["figures"].get(track, {})
        one, three, rep = r.get("1 node"), r.get("3 nodes"), r.get("3 nodes, 1 replica")
        lines.append(
            f"| {track} | {fmt(one, ',.0f')} | {fmt(three, ',.0f')} | {fmt(rep, ',.0f')} "
            f"| {fmt(ratio(three, one), ',.2f', '×')} / {fmt(ratio(pub.get(THREE_NODES), pub.get(ONE_NODE_RAID)), ',.2f', '×')} "
            f"| {fmt(ratio(rep, three), ',.2f', '×')} / {fmt(ratio(pub.get(THREE_NODES_REPLICA), pub.get(THREE_NODES)), ',.2f', '×')} |"
        )
    if docs:
        lines += [
            "",
            "- Documents per race, as the count checks found them: " + ", ".join(f"{t} {fmt(n, ',')}" for t, n in docs.items()) + ".",
        ]
    lines += node_scaling_lines({t: {1: r.get("1 node"), 3: r.get("3 nodes")} for t, r in results.items()}, published)
    raid = [
        f"{t} {ratio(p.get(ONE_NODE_RAID), p.get(ONE_NODE)):,.2f}×"
        for t, p in published["figures"].items()
        if t in results and p.get(ONE_NODE_RAID) and p.get(ONE_NODE)
    ]
    lines += [
        "",
        "- Published RAID0 of 4 disks ÷ a single disk, 1 node: "
        + (", ".join(raid) or "—")
        + "; not measured here (one disk: the car mixins and `data_paths` race it on real disks).",
        f"- This machine: {machine_line}"
        + (f"; {versions}" if versions else "")
        + ". All nodes of the 3-node cluster share this machine's cores and disk, "
        "so a third node cannot add hardware here as it did in the study.",
        (
            f"- Published: Elasticsearch {published['elasticsearch']}, {published['hardware']}; "
            f"conclusions: {'; '.join(published['conclusions'])}. "
        )
        + " ".join(n[0].upper() + n[1:] + "." for n in published.get("notes", [])),
    ]
    return "\n".join(lines) + "\n"


def scaling_chart(results: dict[str, dict[str, float]], published: dict, machine_line: str) -> tuple[str, bytes]:
    from ingestlab.report import plot  # heavy: matplotlib, only when drawing charts

    labels, here, there = [], [], []
    for track, r in results.items():
        pub = published["figures"].get(track, {})
        for name, a, b, pa, pb in (
            (f"{track}\n3 nodes ÷ 1", r.get("3 nodes"), r.get("1 node"), pub.get(THREE_NODES), pub.get(ONE_NODE_RAID)),
            (f"{track}\n1 replica ÷ 0", r.get("3 nodes, 1 replica"), r.get("3 nodes"), pub.get(THREE_NODES_REPLICA), pub.get(THREE_NODES)),
        ):
            labels.append(name)
            here.append(ratio(a, b))
            there.append(ratio(pa, pb))
    image = plot.grouped_bars(
        labels,
        {"this machine": here, "published": there},
        ylabel="ratio of median docs/s",
        title="Rally corpora: nodes and replicas",
        caption_here=machine_line,
        caption_published=f"Elasticsearch {published['elasticsearch']}, {published['hardware']}",
        colors=[plot.HERE, plot.PUBLISHED],
    )
    return ("Nodes and replicas", image)


SHAPES = (  # (cluster, challenge): the study's shapes of race, on this one machine
    (
        {"name": "ingestlab-corpora-1", "http_port": 29240, "transport_port": 29340, "nodes": 1, "heap": "1g"},
        "append-no-conflicts-index-only",
    ),
    ({"name": "ingestlab-corpora-3", "http_port": 29241, "transport_port": 29341, "nodes": 3, "heap": "512m"}, "append-replica-sweep"),
)


FULL_SIZE_HEAP = "2g"  # per node, for Rally's own corpus sizes (--full-size)


class Table:
    """The study's table as races come in: each race's bulk figures per replica count, its documents and its cost."""

    def __init__(self, tracks):
        self.results: dict[str, dict[str, float]] = {t.name: {} for t in tracks}
        self.docs: dict[str, int | None] = {}
        self.ran: set[str] = set()
        self.costs: list[str] = []
        self.held: dict[str, dict] = {}

    def add(self, study_name: str, nodes: int, result: RaceResult) -> None:
        figures = {task: r["median"] for task, r in indexing(result).items()}
        tasks, columns = bulk_task_per_replicas(result), {0: "1 node"} if nodes == 1 else {0: "3 nodes", 1: "3 nodes, 1 replica"}
        self.results[study_name].update({column: figures.get(tasks.get(n)) for n, column in columns.items()})
        self.held.update(held_rows(result, study_name, columns))
        self.docs[study_name] = counted_documents(result)
        self.ran.add(
            f"{engine_name(result.race)} {result.es_version} ({result.cluster.get('distribution-flavor')}), {load_generator(result.race)}"
        )
        cost = footprint_line(result.footprint)
        self.costs.append(f"{study_name} on {nodes} node(s), race {result.race_id}" + (f": {cost[0].lower()}{cost[1:]}" if cost else ""))

    def write(self, stamp: str, test_mode: bool, log=print) -> str:
        line = machine.one_line(machine.describe())
        published = published_data.load("rally-corpora")
        text = scaling_markdown(self.results, published, line, self.docs, ", ".join(sorted(self.ran)), self.held)
        if self.costs:
            text += "\nWhat each race cost:\n\n" + "".join(f"- {c}.\n" for c in self.costs)
        if test_mode:
            text = text.replace("## Rally corpora:", "## Rally corpora (test mode, noisy):", 1)
        out = writer.write(
            paths.results_dir() / "rally-corpora" / stamp,
            "ingestlab: Rally corpora",
            text,
            [scaling_chart(self.results, published, line)],
            {"results": self.results, "documents": self.docs, "test_mode": test_mode, "costs": self.costs},
        )
        log(text)
        log(f"[ingestlab] report written to {out}/report.md and report.html")
        return text


def scaling(
    tracks=TRACKS,
    test_mode: bool = False,
    extra_params: dict | None = None,
    clients: int | None = None,
    version: str | None = None,
    full_size: bool = False,
    shapes: tuple[int, ...] = (1, 3),
    skip_disk_check: bool = False,
    log=print,
):
    """Race each track on 1 node, then on 3 nodes with 0 and 1 replica; write the report beside the study's.
    ``full_size``: Rally's own corpus sizes (each track's ``full_size``), nodes with a larger heap. Unless
    ``skip_disk_check``, first make sure the indices and corpus files fit on the disk (:mod:`.corpora_room`)."""

    def params_of(study) -> dict:
        return {**(study.full_size if full_size else study.small_params), **(extra_params or {}).get(study.name, {})}

    if not (test_mode or skip_disk_check):  # before any node starts: a full-size setup may outgrow the disk an hour in
        corpora_room.check(
            [n for nodes in shapes for n in corpora_room.needs(tracks, {t.name: params_of(t) for t in tracks}, nodes)],
            paths.clusters_dir(),
            data_cache(),
        )
    stamp = time.strftime("%Y-%m-%dT%H%M%S")
    table = Table(tracks)
    for shape, challenge in (s for s in SHAPES if s[0]["nodes"] in shapes):
        sized = {**shape, "heap": FULL_SIZE_HEAP} if full_size else shape
        # each setup's indices removed at its end: the next setup's room (the disk check counts one setup at a time)
        with lifecycle.running(lifecycle.Shape(**sized, version=version or tracks[0].default_version), drop_data=True, log=log) as cluster:
            for study in tracks:
                params = params_of(study)
                if clients:
                    params["bulk_indexing_clients"] = clients
                if shape["nodes"] == 1:
                    params["number_of_replicas"] = 0
                log(f"[ingestlab] rally corpora: {study.name} on {shape['nodes']} node(s), {challenge}")
                tags = {"study": study.name, "corpora": stamp, "nodes": str(shape["nodes"]), **(racing.FULL_SIZE_TAGS if full_size else {})}
                options = racing.Options(challenge=challenge, params=params, tags=tags, test_mode=test_mode)
                result = racing.race(study.track, racing.Target(hosts=cluster.hosts), options, log=log)
                table.add(study.name, shape["nodes"], result)
    return table.write(stamp, test_mode, log)


def report(stamps: list[str], tracks=TRACKS, log=print) -> str:
    """One table from the stored races of earlier runs (e.g. a 1-node and a 3-node run at full size, made apart)."""
    table, test_mode = Table(tracks), False
    by_name = {t.name: t for t in tracks}
    for stamp in stamps:
        races = results.races_with_tags({"corpora": stamp})
        if not races:
            raise IngestlabError(f"no stored race tagged corpora:{stamp}")
        for race in races:
            study = by_name.get(race.get("user-tags", {}).get("study"))
            if study is None:
                continue
            result = results.load(race["race-id"], track_path=study.track)
            test_mode = test_mode or result.test_mode
            table.add(study.name, int(race["user-tags"].get("nodes", 1)), result)
    return table.write("+".join(stamps), test_mode, log)
