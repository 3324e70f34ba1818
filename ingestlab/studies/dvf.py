"""Study 3, DVF (tracks/dvf): docs/s per bulk size and client count, beside the published grid, with each
side's speed-up over its own single-document, single-client baseline.

The grid is the track's own: every ``corpus-load`` task is one cell, its bulk size and clients as rendered."""

from __future__ import annotations

from ingestlab.rally.results import RaceResult
from ingestlab.report.common import fmt, held_by, invalid_lines, ratio, this_machine
from ingestlab.studies.base import Headline, Study, whole_task_rate


def cell_tasks(result: RaceResult) -> dict[tuple[int, int], str]:
    """(bulk size, clients) → the write task of that cell."""
    return {(int(t.param("bulk-size")), t.clients): t.name for t in result.schedule if t.operation_type == "corpus-load"}


def grid_axes(result: RaceResult) -> tuple[list[int], list[int]]:
    cells = cell_tasks(result)
    return sorted({b for b, _ in cells}), sorted({c for _, c in cells})


def measured_grid(result: RaceResult) -> dict[tuple[int, int], dict]:
    """(bulk, clients) → docs/s of the write task of that cell: its documents ÷ first request to last (Rally's median
    of one-second buckets where the pack's records are missing), Rally's median beside it, and its error rate."""
    out = {}
    for cell, task in cell_tasks(result).items():
        r = result.tasks.get(task)
        if r:
            whole = whole_task_rate(result, task)
            out[cell] = {
                "docs_per_s": whole or r.throughput_median,
                "whole_task": whole is not None,
                "rally_median": r.throughput_median,
                "error_rate": r.error_rate,
            }
    return out


def published_grid(published: dict) -> dict[tuple[int, int], float]:
    return {(f["bulk"], f["clients"]): f["docs_per_s"] for f in published["figures"]}


def rates(result: RaceResult, published: dict) -> tuple:
    """(bulk sizes, client counts, this machine's docs/s per cell, the published docs/s per cell)."""
    return *grid_axes(result), {k: v["docs_per_s"] for k, v in measured_grid(result).items()}, published_grid(published)


def _sides(here, there) -> tuple:
    return ("this machine", here), ("published", there)


def _grid_table(title: str, bulks, clients, cell) -> list[str]:
    lines = [
        title,
        "",
        "| bulk size | " + " | ".join(f"{c} client{'s' if c != 1 else ''}" for c in clients) + " |",
        "|---:|" + "---:|" * len(clients),
    ]
    for b in bulks:
        lines.append(f"| {'1 (index API)' if b == 1 else b} | " + " | ".join(cell(b, c) for c in clients) + " |")
    return [*lines, ""]


def models(result: RaceResult, published: dict) -> dict:
    """The two models of the grid on both sides: the cost per request and per document from the bulk sizes at one
    client (a document takes 1/rate = r/b + c), and the Universal Scalability Law over the clients at the largest bulk
    size both sides have."""
    from ingestlab.models import usl  # the cost models (scipy loads where one is fitted)
    from ingestlab.models.linear import Cell  # the cost models (scipy loads where one is fitted)
    from ingestlab.report import cost  # the cost models (scipy loads where one is fitted)

    bulks, clients, here, there = rates(result, published)

    def per_doc(rates: dict) -> list:
        return [Cell(f"bulk {b}", 1.0 / b, 1.0, 1.0 / rates[(b, 1)]) for b in bulks if rates.get((b, 1))]

    out = dict(zip(("here", "why_here"), cost.try_linear(per_doc(here))))
    out.update(zip(("there", "why_there"), cost.try_linear(per_doc(there))))
    bulk = max((b for b in bulks if sum(1 for c in clients if (b, c) in there) >= 2), default=max(bulks, default=None))
    out["usl_bulk"] = bulk
    for side, rate in (("here", here), ("there", there)):
        out[f"usl_{side}"], out[f"usl_why_{side}"] = usl.try_fit([(c, rate[(bulk, c)]) for c in clients if (bulk, c) in rate])
    return out


class Dvf(Study):
    name = "dvf"
    title = "DVF French property sales: bulk size x client threads"
    published = "dvf"
    small_params = {"bulk_sizes": [1, 100, 1000], "client_counts": [1, 4], "dvf_rows": 20000}
    # the article's file (827,106 rows) and grid; bulk size 1 on a subset, as the article measured it (10,000 documents)
    full_size = {"dvf_rows": 827_106, "bulk_sizes": [1, 10, 100, 1000], "client_counts": [1, 4, 8, 16], "index_api_docs": 10_000}

    def markdown(self, result: RaceResult, published: dict, load_side: dict | None = None) -> str:
        from ingestlab.models.linear import compare_sentence  # the cost models (scipy loads where one is fitted)
        from ingestlab.report import cost  # the cost models (scipy loads where one is fitted)

        bulks, clients = grid_axes(result)
        here, there = measured_grid(result), published_grid(published)
        mine = {k: v["docs_per_s"] for k, v in here.items()}
        base_here, base_there = mine.get((1, 1)), there.get((1, 1))
        study_docs = published["documents"]
        whole = all(m["whole_task"] for m in here.values()) if here else False
        figure = "documents ÷ first request's start to last request's end" if whole else "Rally's median throughput"
        fitted = models(result, published)
        sentence = (
            compare_sentence(fitted["here"], fitted["there"], "the speed-ups over bulk size 1")
            if fitted["here"] and fitted["there"]
            else ""
        )
        cells = {task: f"bulk {b}, {c} client{'s' if c != 1 else ''}" for (b, c), task in sorted(cell_tasks(result).items())}
        sentence = " ".join(filter(None, [sentence, held_by(result, cells)]))
        lines = [
            f"## dvf: bulk size x clients, docs/s per cell ({figure})" + (" — test mode" if result.test_mode else ""),
            "",
            *([sentence, ""] if sentence else []),
        ]
        estimated = {(e["bulk"], e["clients"]) for e in published.get("estimated_durations", [])}

        def speedup(b, c):
            return f"{fmt(ratio(mine.get((b, c)), base_here), ',.1f', '×')} / {fmt(ratio(there.get((b, c)), base_there), ',.1f', '×')}"

        def duration(b, c):
            ours, pub = mine.get((b, c)), there.get((b, c))
            return f"{fmt(study_docs / ours / 60 if ours else None, ',.1f')} / {fmt(study_docs / pub / 60 if pub else None, ',.1f')}" + (
                " (estimated)" if (b, c) in estimated and pub else ""
            )

        for title, cell in (
            ("### This machine", lambda b, c: fmt(mine.get((b, c)), ",.0f")),
            (
                f"### Published (Elasticsearch {published['elasticsearch']}, {published['hardware']})",
                lambda b, c: fmt(there.get((b, c)), ",.1f"),
            ),
            ("### Speed-up over 1 doc per request, 1 client: this machine / published", speedup),
            (f"### Minutes to index the study's {study_docs:,} documents at these rates: this machine / published", duration),
        ):
            lines += _grid_table(title, bulks, clients, cell)
        lines += ["### Cost models", "", "Per document at one client: 1/rate = r/b + c (bulk size b):", ""]
        lines += cost.linear_table(fitted["here"], fitted["there"], fitted["why_here"], fitted["why_there"])
        clients_fit = [fitted[k] for k in ("usl_here", "usl_there", "usl_why_here", "usl_why_there")]
        lines += ["", *cost.usl_lines(f"Clients at bulk size {fitted['usl_bulk']}", *clients_fit)]
        lines += [
            "",
            f"- {this_machine(result)}. Rally's clients and the node share the machine.",
            (
                f"- Published: Elasticsearch {published['elasticsearch']}, {published['hardware']}, "
                f"{published['client']}; {published['data']}. "
            )
            + " ".join(n[0].upper() + n[1:] + "." for n in published.get("notes", [])),
            "- Each cell writes the corpus into a freshly created index, then checks the index holds every document.",
        ]
        if whole:
            medians = {k: v["rally_median"] for k, v in here.items()}
            lines.append(
                "- Rally's own median of one-second buckets per cell (it leans on few buckets in a short cell, ramp-up "
                "included): " + ", ".join(f"b{b}-t{c} {fmt(v, ',.0f')}" for (b, c), v in sorted(medians.items())) + "."
            )
        lines += invalid_lines(result)
        if load_side:
            best = max((m["docs_per_s"] or 0) for m in here.values()) if here else 0
            rate = load_side["etalab"]["rows_per_s"]
            lines.append(
                f"- Load side alone (one core, no cluster): the converter turns Etalab CSV into documents at {rate:,.0f} rows/s "
                f"(official format: {load_side['official']['rows_per_s']:,.0f} rows/s)"
                + (f" = {rate / best:,.0f}× the fastest cell above" if best else "")
                + "."
            )
        return "\n".join(lines) + "\n"

    def charts(self, result: RaceResult, published: dict) -> list:
        """Heat maps of the speed-up over 1 doc per request with 1 client: this machine beside the study."""
        from ingestlab.report import plot  # heavy: matplotlib, only when drawing charts

        bulks, clients, here, there = rates(result, published)
        panels = [
            (side, [[ratio(rate.get((b, c)), rate.get((1, 1))) for c in clients] for b in bulks]) for side, rate in _sides(here, there)
        ]
        image = plot.heat_maps(
            panels,
            [str(c) for c in clients],
            [str(b) for b in bulks],
            xlabel="clients",
            ylabel="bulk size",
            title="dvf: speed-up over bulk size 1 (index API) with 1 client",
            cell_format="{:,.0f}×",
            caption_here=plot.here_line(result),
            caption_published=plot.published_line(published),
        )
        return [("Bulk size x clients heat map", image), *self.model_chart(result, published)]

    def model_chart(self, result: RaceResult, published: dict) -> list:
        """Per-document time against bulk size at one client, and docs/s against clients, measured and fitted, both sides."""
        from ingestlab.report import cost, plot  # heavy: scipy and matplotlib, only when drawing charts

        fitted = models(result, published)
        bulks, clients, here, there = rates(result, published)
        bulk = fitted["usl_bulk"]

        def per_doc(fit):
            return (lambda b: fit.predict(1.0 / b, 1.0) * 1e6) if fit else None

        panels = [
            {
                "title": "one client",
                "xlabel": "bulk size",
                "ylabel": "µs per document",
                "logx": True,
                "logy": True,
                "xs": [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000],
                "points": {
                    side: [(b, 1e6 / rate[(b, 1)] if rate.get((b, 1)) else None) for b in bulks] for side, rate in _sides(here, there)
                },
                "curves": dict(_sides(per_doc(fitted["here"]), per_doc(fitted["there"]))),
            },
            {
                "title": f"bulk size {bulk}",
                "xlabel": "clients",
                "ylabel": "docs/s",
                "xs": [1 + i * 0.25 for i in range(int((max(clients, default=1) - 1) / 0.25) + 1)],
                "points": {side: [(c, rate.get((bulk, c))) for c in clients] for side, rate in _sides(here, there)},
                "curves": {side: fit.at if fit else None for side, fit in _sides(fitted["usl_here"], fitted["usl_there"])},
            },
        ]
        image = cost.curve_chart(
            panels,
            title="dvf: cost per request and document; the clients' scalability (USL)",
            caption_here=plot.here_line(result),
            caption_published=plot.published_line(published),
        )
        return [("Cost models: measured points and fitted curves", image)]

    def headlines(self, result: RaceResult, published: dict) -> list[Headline]:
        here, there = measured_grid(result), published_grid(published)
        best = max(here, key=lambda k: here[k]["docs_per_s"] or 0, default=None)
        if best is None:
            return []
        return [
            Headline(
                "best-cell-over-b1-t1",
                f"best bulk × clients cell (b{best[0]}-t{best[1]}) ÷ bulk 1, 1 client",
                ratio(here[best]["docs_per_s"], here.get((1, 1), {}).get("docs_per_s")),
                ratio(max(there.values(), default=None), there.get((1, 1))),
            )
        ]


STUDY = Dvf()
