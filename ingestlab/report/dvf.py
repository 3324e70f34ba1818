"""The DVF grid: docs/s per bulk size and client count, beside the published grid, with each side's
speed-up over its own single-document, single-client baseline."""
from __future__ import annotations

from ingestlab.rally.results import task_results
from ingestlab.report.common import fmt, invalid_lines, is_test_mode, this_machine

DEFAULT_BULK_SIZES = [1, 10, 100, 1000]
DEFAULT_CLIENTS = [1, 4, 8, 16]


def grid_axes(race: dict) -> tuple[list[int], list[int]]:
    params = race.get("track-params", {})
    if race.get("challenge") == "one-cell":
        return [int(params.get("bulk_size", 1000))], [int(params.get("clients", 16))]
    return [int(b) for b in params.get("bulk_sizes", DEFAULT_BULK_SIZES)], [int(c) for c in params.get("client_counts", DEFAULT_CLIENTS)]


def measured_grid(race: dict) -> dict[tuple[int, int], dict]:
    """(bulk, clients) → median docs/s and error rate of the write task of that cell."""
    results = task_results(race)
    out = {}
    for bulk in grid_axes(race)[0]:
        for clients in grid_axes(race)[1]:
            r = results.get(f"b{bulk}-t{clients}")
            if r:
                out[(bulk, clients)] = {"docs_per_s": r.throughput_median, "error_rate": r.error_rate}
    return out


def published_grid(published: dict) -> dict[tuple[int, int], float]:
    return {(f["bulk"], f["clients"]): f["docs_per_s"] for f in published["figures"]}


def _label(bulk: int) -> str:
    return "1 (index API)" if bulk == 1 else str(bulk)


def _grid_table(title: str, bulks, clients, cell) -> list[str]:
    lines = [title, "", "| bulk size | " + " | ".join(f"{c} client{'s' if c != 1 else ''}" for c in clients) + " |",
             "|---:|" + "---:|" * len(clients)]
    for b in bulks:
        lines.append(f"| {_label(b)} | " + " | ".join(cell(b, c) for c in clients) + " |")
    return lines


def markdown(race: dict, published: dict, machine_line: str, load_side: dict | None = None) -> str:
    bulks, clients = grid_axes(race)
    here, there = measured_grid(race), published_grid(published)
    base_here = here.get((1, 1), {}).get("docs_per_s")
    base_there = there.get((1, 1))
    study_docs = published["documents"]
    lines = ["## dvf: bulk size x clients, docs/s (Rally's median throughput per cell)" + (" — test mode" if is_test_mode(race) else ""), ""]
    lines += _grid_table("### This machine", bulks, clients, lambda b, c: fmt(here.get((b, c), {}).get("docs_per_s"), ",.0f"))
    lines += [""]
    lines += _grid_table(f"### Published (Elasticsearch {published['elasticsearch']}, {published['hardware']})", bulks, clients,
                         lambda b, c: fmt(there.get((b, c)), ",.1f"))
    lines += [""]

    def speedup(b, c):
        mine = here.get((b, c), {}).get("docs_per_s")
        pub = there.get((b, c))
        return f"{fmt(mine / base_here if mine and base_here else None, ',.1f', '×')} / {fmt(pub / base_there if pub and base_there else None, ',.1f', '×')}"

    lines += _grid_table("### Speed-up over 1 doc per request, 1 client: this machine / published", bulks, clients, speedup)
    lines += [""]

    def duration(b, c):
        mine = here.get((b, c), {}).get("docs_per_s")
        pub = there.get((b, c))
        return f"{fmt(study_docs / mine / 60 if mine else None, ',.1f')} / {fmt(study_docs / pub / 60 if pub else None, ',.1f')}"

    lines += _grid_table(f"### Minutes to index the study's {study_docs:,} documents at these rates: this machine / published",
                         bulks, clients, duration)
    lines += [
        "",
        f"- {this_machine(race, machine_line)}. Rally's clients and the node share the machine.",
        f"- Published: Elasticsearch {published['elasticsearch']}, {published['hardware']}, {published['client']}; {published['data']}.",
        "- Each cell writes the corpus into a freshly created index, then checks the index holds every document.",
    ]
    lines += invalid_lines(race)
    if load_side:
        best = max((m["docs_per_s"] or 0) for m in here.values()) if here else 0
        rate = load_side["etalab"]["rows_per_s"]
        lines.append(
            f"- Load side alone (one core, no cluster): the converter turns Etalab CSV into documents at {rate:,.0f} rows/s "
            f"(official format: {load_side['official']['rows_per_s']:,.0f} rows/s)"
            + (f" = {rate / best:,.0f}× the fastest cell above" if best else "") + "."
        )
    return "\n".join(lines) + "\n"


def charts(race: dict, published: dict, machine_line: str, stats=None) -> list[tuple[str, bytes]]:
    """Heat maps of the speed-up over 1 doc per request with 1 client: this machine beside the study."""
    from ingestlab.report import plot

    bulks, clients = grid_axes(race)
    here, there = measured_grid(race), published_grid(published)
    base_here = here.get((1, 1), {}).get("docs_per_s")
    base_there = there.get((1, 1))
    fig, axes = plot.new_figure(10, 4.6)
    axes.axis("off")
    panels = fig.subplots(1, 2)
    for ax, title, value in (
        (panels[0], "this machine", lambda b, c: (here.get((b, c), {}).get("docs_per_s") or 0) / base_here if base_here else 0),
        (panels[1], "published", lambda b, c: (there.get((b, c)) or 0) / base_there if base_there else 0),
    ):
        grid = [[value(b, c) for c in clients] for b in bulks]
        image = ax.imshow(grid, cmap="viridis", aspect="auto")
        ax.set_xticks(range(len(clients)), [str(c) for c in clients])
        ax.set_yticks(range(len(bulks)), [str(b) for b in bulks])
        ax.set_xlabel("clients")
        ax.set_ylabel("bulk size")
        ax.set_title(title)
        for i, row in enumerate(grid):
            for j, v in enumerate(row):
                ax.text(j, i, f"{v:,.0f}×" if v else "—", ha="center", va="center", color="white", fontsize=8)
        fig.colorbar(image, ax=ax, shrink=0.8)
    fig.suptitle("dvf: speed-up over bulk size 1 (index API) with 1 client")
    plot.caption(fig, plot.here_line(race, machine_line), plot.published_line(published))
    return [("Bulk size x clients heat map", plot.png(fig))]
