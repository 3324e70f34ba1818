"""A task's costs per document, over the window :mod:`ingestlab.rally.limits` judges (node CPU, the engine's indexing
time, bytes written, the window's time and the load driver's CPU), and where a document's time went when nothing was at
its limit."""

from __future__ import annotations

# the seconds a window needs before a document's time is split between the sides (:func:`where_the_time_went`)
TIME_WINDOW = 10.0


def costs(nodes: dict[str, tuple[float, dict, dict]], workers: list[dict] | None = None) -> dict:
    """Per document indexed over the window (every node's, each copy counted): node CPU ms, the nodes' indexing threads'
    ms and bytes the nodes' data devices wrote, each over the nodes that reported it and their documents; the window's
    wall-clock ms and the load driver's CPU ms (``workers``: the load side's, cores over the window); and the nodes' store
    at the window's end. A cost the nodes did not report is left out, never 0."""
    docs = [d["docs"] for _, d, _ in nodes.values() if "docs" in d]
    out: dict = {"documents": int(sum(docs)) if docs else None}
    keys = (
        ("cpu_ms", "node_cpu_ms_per_doc", 1),
        ("index_ms", "node_indexing_ms_per_doc", 1),
        ("written_kb", "bytes_written_per_doc", 1024),
    )
    for key, name, scale in keys:
        both = [(d[key], d["docs"]) for _, d, _ in nodes.values() if key in d and "docs" in d]
        if both and sum(n for _, n in both):
            out[name] = round(sum(v for v, _ in both) * scale / sum(n for _, n in both), 4)
    if out["documents"]:
        seconds = max(s for s, _, _ in nodes.values())
        out["window_ms_per_doc"] = round(seconds * 1000 / out["documents"], 4)
        # the workers' processes, or where none was measured, the load driver's cgroup (it holds them and the rest of Rally);
        # their mean CPU over the window, as the nodes' is taken; none where one of them has no mean
        chosen = [w for w in workers or [] if "pid" in w] or [w for w in workers or [] if "group" in w]
        means = [w.get("mean_cores") for w in chosen]
        if chosen and None not in means:
            out["driver_cpu_ms_per_doc"] = round(sum(means) * seconds * 1000 / out["documents"], 4)
    stored = [last["store_bytes"] for _, _, last in nodes.values() if "store_bytes" in last]
    if stored:
        out["store_bytes_at_end"] = sum(stored)
    return out


def where_the_time_went(c: dict) -> str | None:
    """Where a document's share of the window went when nothing was at its limit (one client waiting on each reply, as a
    rule): the nodes' CPU, the load driver's CPU and what neither side's CPU took (waits, the pauses between a task's
    runs), each in ms a document (each copy counted), and beside them the wall-clock time the nodes' shards spent
    indexing it (parsing to translog: not a part of the CPU figure); None without the window's time a document or either
    side's CPU, or for a window shorter than :data:`TIME_WINDOW` (the sampler's second at each end weighs too much)."""
    if "window_ms_per_doc" not in c or not c.get("documents") or c["window_ms_per_doc"] * c["documents"] / 1000 < TIME_WINDOW:
        return None
    said = []
    if "node_cpu_ms_per_doc" in c:
        said.append(f"the node's CPU {ms(c['node_cpu_ms_per_doc'])} ms")
    if "driver_cpu_ms_per_doc" in c:
        said.append(f"the load driver's CPU {ms(c['driver_cpu_ms_per_doc'])} ms")
    if not said:
        return None
    rest = c["window_ms_per_doc"] - c.get("node_cpu_ms_per_doc", 0) - c.get("driver_cpu_ms_per_doc", 0)
    if len(said) == 2 and rest > 0:
        said.append(f"{ms(rest)} ms in neither side's CPU (waits on the network and the disk, pauses between runs, other processes)")
    indexing = (
        f"; its shards spent {ms(c['node_indexing_ms_per_doc'])} ms of wall-clock indexing it" if "node_indexing_ms_per_doc" in c else ""
    )
    return (
        f"over the window (pauses between runs included), a document every {ms(c['window_ms_per_doc'])} ms: " + ", ".join(said) + indexing
    )


def ms(v: float) -> str:
    """Milliseconds: whole ones from 100, else three figures (a trailing zero kept from 0.01: 0.9995 → 1.00)."""
    return f"{v:,.0f}" if v >= 99.95 else f"{v:#.3g}" if v >= 0.01 else f"{v:.3g}"
