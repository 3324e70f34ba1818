"""The Rally-corpora study: indexing throughput per corpus and cluster shape, beside the published table,
as ratios (3 nodes ÷ 1 node, 1 replica ÷ 0 replicas) since absolute docs/s depend on the hardware."""
from __future__ import annotations

from ingestlab.rally.results import task_results
from ingestlab.report.common import fmt, invalid_lines, is_test_mode, this_machine

ONE_NODE = "1 node, 1 disk, 0 replicas"
THREE_NODES = "3 nodes, RAID0, 0 replicas"
THREE_NODES_REPLICA = "3 nodes, RAID0, 1 replica"


def indexing(race: dict) -> dict[str, dict]:
    """index-append tasks of a race: {task: {median, min, max, p90, p99, error_rate}}."""
    out = {}
    for task, r in task_results(race).items():
        if task.startswith("index-append"):
            out[task] = {"median": r.throughput_median, "min": r.throughput_min, "max": r.throughput_max,
                         "p90": r.service_time("p90"), "p99": r.service_time("p99"), "error_rate": r.error_rate}
    return out


def race_markdown(race: dict, published: dict, machine_line: str, load_side: dict | None = None) -> str:
    """One race of one corpus track."""
    track = race.get("track")
    rows = indexing(race)
    pub = published["figures"].get(track, {})
    nodes = len(race.get("cluster", {}).get("nodes", []) or []) or "?"
    lines = [f"## {track}: indexing throughput ({race.get('challenge')}, {nodes} node(s))" + (" — test mode" if is_test_mode(race) else ""), "",
             "| task | median docs/s | min | max | p90 ms | p99 ms |", "|---|---:|---:|---:|---:|---:|"]
    for task, r in rows.items():
        lines.append(f"| {task} | {fmt(r['median'], ',.0f')} | {fmt(r['min'], ',.0f')} | {fmt(r['max'], ',.0f')} "
                     f"| {fmt(r['p90'], ',.1f')} | {fmt(r['p99'], ',.1f')} |")
    if "index-append-replicas-0" in rows and "index-append-replicas-1" in rows:
        here = rows["index-append-replicas-1"]["median"] / rows["index-append-replicas-0"]["median"]
        there = (pub.get(THREE_NODES_REPLICA) or 0) / pub[THREE_NODES] if pub.get(THREE_NODES) and pub.get(THREE_NODES_REPLICA) else None
        lines += ["", f"- 1 replica ÷ 0 replicas: {here:,.2f}× here; published {fmt(there, ',.2f', '×')} (3 nodes)."]
    lines += ["", "Published (Elasticsearch 5.2, median docs/s): " + "; ".join(f"{k}: {v:,}" for k, v in pub.items()),
              "", f"- {this_machine(race, machine_line)}."]
    lines += invalid_lines(race)
    if load_side:
        lines.append(f"- Load side alone: the eventdata generator makes {load_side['docs_per_s']:,.0f} docs/s on one core "
                     f"({load_side['bytes_per_doc']:,.0f} B/doc).")
    return "\n".join(lines) + "\n"


def scaling_markdown(results: dict[str, dict[str, float]], published: dict, machine_line: str) -> str:
    """``results``: {track: {"1 node": docs/s, "3 nodes": docs/s, "3 nodes, 1 replica": docs/s}}."""
    lines = ["## Rally corpora: 1 vs. 3 nodes, 0 vs. 1 replica (median docs/s of index-append)", "",
             "| corpus | 1 node | 3 nodes | 3 nodes, 1 replica | 3 nodes ÷ 1 node: here / published | 1 replica ÷ 0: here / published |",
             "|---|---:|---:|---:|---:|---:|"]
    for track, r in results.items():
        pub = published["figures"].get(track, {})
        one, three, rep = r.get("1 node"), r.get("3 nodes"), r.get("3 nodes, 1 replica")
        p_one, p_three, p_rep = pub.get(ONE_NODE), pub.get(THREE_NODES), pub.get(THREE_NODES_REPLICA)
        ratio = lambda a, b: a / b if a and b else None  # noqa: E731
        lines.append(f"| {track} | {fmt(one, ',.0f')} | {fmt(three, ',.0f')} | {fmt(rep, ',.0f')} "
                     f"| {fmt(ratio(three, one), ',.2f', '×')} / {fmt(ratio(p_three, p_one), ',.2f', '×')} "
                     f"| {fmt(ratio(rep, three), ',.2f', '×')} / {fmt(ratio(p_rep, p_three), ',.2f', '×')} |")
    lines += ["", f"- This machine: {machine_line}. All nodes of the 3-node cluster share this machine's cores and disk, "
              "so a third node cannot add hardware here as it did in the study.",
              f"- Published: Elasticsearch {published['elasticsearch']}, {published['hardware']}; conclusions: {'; '.join(published['conclusions'])}."]
    return "\n".join(lines) + "\n"


def charts(results: dict[str, dict[str, float]], published: dict, machine_line: str) -> list[tuple[str, bytes]]:
    from ingestlab.report import plot

    fig, ax = plot.new_figure()
    labels, here, there = [], [], []
    for track, r in results.items():
        pub = published["figures"].get(track, {})
        for name, a, b, pa, pb in ((f"{track}\n3 nodes ÷ 1", r.get("3 nodes"), r.get("1 node"), pub.get(THREE_NODES), pub.get(ONE_NODE)),
                                   (f"{track}\n1 replica ÷ 0", r.get("3 nodes, 1 replica"), r.get("3 nodes"), pub.get(THREE_NODES_REPLICA), pub.get(THREE_NODES))):
            labels.append(name)
            here.append(a / b if a and b else 0)
            there.append(pa / pb if pa and pb else 0)
    x = range(len(labels))
    ax.bar([i - 0.2 for i in x], here, 0.4, label="this machine", color=plot.HERE)
    ax.bar([i + 0.2 for i in x], there, 0.4, label="published", color=plot.PUBLISHED)
    ax.axhline(1.0, color="#888888", linewidth=0.8)
    ax.set_xticks(list(x), labels, fontsize=8)
    ax.set_ylabel("ratio of median docs/s")
    ax.set_title("Rally corpora: nodes and replicas")
    ax.legend()
    plot.caption(fig, machine_line, f"Elasticsearch {published['elasticsearch']}, {published['hardware']}")
    return [("Nodes and replicas", plot.png(fig))]
