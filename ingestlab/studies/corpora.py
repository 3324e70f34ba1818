"""Study 5, Rally corpora (tracks/eventdata, geonames, pmc): each track's race, its indexing throughput per cluster
shape beside the published table. Across races (1 node, then 3 nodes with 0 and 1 replica):
:mod:`ingestlab.studies.corpora_scaling`."""

from __future__ import annotations

from ingestlab.rally.results import RaceResult
from ingestlab.report.common import (
    fmt,
    invalid_lines,
    ratio,
    task_limits,
    this_machine,
)
from ingestlab.studies.base import Study

ONE_NODE = "1 node, 1 disk, 0 replicas"
ONE_NODE_RAID = "1 node, RAID0 x4, 0 replicas"  # the study's 3-node rows ran on RAID0: their 1-node peer
THREE_NODES = "3 nodes, RAID0, 0 replicas"
THREE_NODES_REPLICA = "3 nodes, RAID0, 1 replica"


def indexing(result: RaceResult) -> dict[str, dict]:
    """The bulk-indexing tasks of a race: {task: {median, min, max, p90, p99, error_rate}}."""
    out = {}
    for t in result.schedule:
        r = result.tasks.get(t.name)
        if t.operation_type == "bulk" and r:
            out[t.name] = {"median": r.throughput_median, "min": r.throughput_min, "max": r.throughput_max}
            out[t.name].update(p90=r.service_time("p90"), p99=r.service_time("p99"), error_rate=r.error_rate)
    return out


def bulk_task_per_replicas(result: RaceResult) -> dict[int, str]:
    """{replica count: the bulk task that indexed with it}, read from the schedule: each bulk task indexes into the
    index the create-index task before it made (with its ``index.number_of_replicas``, else the track's parameter)."""
    default = int(result.params.get("number_of_replicas", 0) or 0)
    replicas, out = default, {}
    for t in result.schedule:
        if t.operation_type == "create-index":
            replicas = int((t.operation.get("settings") or {}).get("index.number_of_replicas", default))
        elif t.operation_type == "bulk":
            out.setdefault(replicas, t.name)
    return out


def held_rows(result: RaceResult, row: str, columns: dict[int, str]) -> dict[str, dict]:
    """{"ROW on COLUMN": what held that rate, as sampled during the race} of one race's measured bulk tasks
    (``columns``: replica count → the table's column of the bulk task that indexed with it)."""
    tasks = {n: t for n, t in bulk_task_per_replicas(result).items() if n in columns and t in result.tasks}
    found = task_limits(result, [t for t in tasks.values() if result.tasks[t].throughput_median is not None])
    return {f"{row} on {columns[n]}": found[t] for n, t in tasks.items() if found.get(t, {}).get("resource")}


class Corpus(Study):
    published = "rally-corpora"
    default_version = "9.2.0"  # the study ran 5.2, which the pack cannot provision: the newest line instead

    def __init__(
        self, name: str, title: str, small_params: dict, full_size: dict, stored_bytes_per_doc: dict | None = None, file_bytes_per_doc=0
    ):
        self.name, self.title, self.small_params = name, title, small_params
        self.docs_param = next(iter(full_size))  # the track parameter that sets its documents
        self.full_size = {**full_size, "warmup_time_period": 120}  # Rally's own corpus size and default warm-up
        # disk per document (see corpora_room): an index copy per node count (1, 3); the corpus file (0: generated on the fly)
        self.stored_bytes_per_doc, self.file_bytes_per_doc = stored_bytes_per_doc or {}, file_bytes_per_doc

    def markdown(self, result: RaceResult, published: dict, load_side: dict | None = None) -> str:
        rows = indexing(result)
        pub = published["figures"].get(self.name, {})
        nodes = len(result.cluster.get("nodes", []) or []) or "?"
        lines = [
            f"## {self.name}: indexing throughput ({result.challenge}, {nodes} node(s))" + (" — test mode" if result.test_mode else ""),
            "",
            "| task | median docs/s | min | max | p90 ms | p99 ms |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        for task, r in rows.items():
            lines.append(
                f"| {task} | {fmt(r['median'], ',.0f')} | {fmt(r['min'], ',.0f')} | {fmt(r['max'], ',.0f')} "
                f"| {fmt(r['p90'], ',.1f')} | {fmt(r['p99'], ',.1f')} |"
            )
        per_replicas = bulk_task_per_replicas(result)
        if 0 in per_replicas and 1 in per_replicas and per_replicas[0] in rows and per_replicas[1] in rows:
            here = ratio(rows[per_replicas[1]]["median"], rows[per_replicas[0]]["median"])
            lines += [
                "",
                f"- 1 replica ÷ 0 replicas: {fmt(here, ',.2f', '×')} here; published "
                f"{fmt(ratio(pub.get(THREE_NODES_REPLICA), pub.get(THREE_NODES)), ',.2f', '×')} (3 nodes).",
            ]
        lines += [
            "",
            "Published (Elasticsearch 5.2, median docs/s): " + "; ".join(f"{k}: {v:,}" for k, v in pub.items()),
            "",
            f"- {this_machine(result)}.",
        ]
        lines += invalid_lines(result)
        if load_side:
            lines.append(
                f"- Load side alone: the eventdata generator makes {load_side['docs_per_s']:,.0f} docs/s on one core "
                f"({load_side['bytes_per_doc']:,.0f} B/doc)."
            )
        return "\n".join(lines) + "\n"


# bytes per document and copy per node count, and of the corpus file, from the pack's full-size races (Elasticsearch 9.2.0)
EVENTDATA = Corpus(
    "eventdata",
    "Rally corpora: eventdata (nginx logs generated on the fly)",
    {"eventdata_docs": 100_000},
    {"eventdata_docs": 20_000_000},
    stored_bytes_per_doc={1: 296, 3: 303},
)
GEONAMES = Corpus(
    "geonames",
    "Rally corpora: geonames (real GeoNames places)",
    {"geonames_docs": 100_000},
    {"geonames_docs": 11_396_503},
    stored_bytes_per_doc={1: 783, 3: 841},
    file_bytes_per_doc=312,
)
PMC = Corpus(
    "pmc",
    "Rally corpora: pmc (real PMC full-text articles)",
    {"pmc_docs": 1_000},
    {"pmc_docs": 574_199},
    stored_bytes_per_doc={1: 45_650, 3: 32_725},
    file_bytes_per_doc=30_031,
)
TRACKS = (EVENTDATA, GEONAMES, PMC)
