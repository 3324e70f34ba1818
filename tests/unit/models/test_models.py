"""The cost models: a linear fit recovers known costs with intervals that hold them, says when cells cannot separate
the costs; the USL recovers known σ and κ and its peak, and refuses too few points; a sweep's recommendations."""

import math

import pytest

from ingestlab import published
from ingestlab.models import linear, recommend, usl


def test_the_linear_fit_recovers_known_costs_within_its_intervals():
    r, c = 650e-6, 25e-6  # the article's machine, per request and per document
    cells = [
        linear.Cell(f"b{b}", 10_000 / b, 10_000, (10_000 / b * r + 10_000 * c) * (1 + e))
        for b, e in ((1, 0.01), (10, -0.02), (50, 0.015), (100, -0.01), (1000, 0.02), (10000, -0.015))
    ]
    fit = linear.fit(cells)
    assert fit.per("request").low < r < fit.per("request").high and fit.per("document").low < c < fit.per("document").high
    assert fit.r_squared > 0.95 and len(fit.predicted) == 6


def test_cells_that_cannot_separate_the_costs_are_refused():
    with pytest.raises(linear.CannotFit, match="do not separate"):
        linear.fit([linear.Cell("a", 10, 100, 1.0), linear.Cell("b", 20, 200, 2.1)])
    with pytest.raises(linear.CannotFit, match="too few"):
        linear.fit([linear.Cell("a", 10, 100, 1.0)])


def test_the_sentence_says_per_document_within_and_per_request_slower():
    article = linear.fit([linear.Cell(str(b), 1e4 / b, 1e4, 1e4 / b * 650e-6 + 1e4 * 25.4e-6) for b in (1, 10, 100, 1000)])
    here = linear.fit([linear.Cell(str(b), 1e4 / b, 1e4, 1e4 / b * 1030e-6 + 1e4 * 23.6e-6) for b in (1, 10, 100, 1000)])
    sentence = linear.compare_sentence(here, article, "the speed-ups")
    assert sentence.startswith("Against the article's machine: per document within 7%; per request 1.6× slower here")
    assert "come out larger here" in sentence


def test_the_usl_recovers_sigma_kappa_and_the_peak():
    points = [(n, float(usl.throughput(n, 1000, 0.1, 0.01))) for n in (1, 2, 4, 8, 16, 32)]
    fit = usl.fit(points)
    assert fit.sigma.value == pytest.approx(0.1, abs=1e-3) and fit.kappa.value == pytest.approx(0.01, abs=1e-4)
    assert fit.peak == pytest.approx(math.sqrt(0.9 / 0.01), rel=1e-2)


def test_a_kappa_at_its_bound_gives_no_peak_not_a_number_of_the_optimizers_rounding():
    """Before: N* = 1,184,861,948.5 clients from a κ the fit left at ~1e-19 (the redline over clients of posts here)."""
    points = [(n, float(usl.throughput(n, 1000, 0.3, 0.0))) for n in (1, 2, 3, 4, 6, 8)]
    fit = usl.fit(points)
    assert fit.kappa.low is None and "bound" in fit.kappa.why
    assert fit.peak is None and fit.peak_interval() is None and "no peak" in fit.describe()


def test_the_usl_needs_three_distinct_points_and_a_fit_that_explains_them():
    assert usl.try_fit([(1, 40_951.4), (3, 70_045.9)])[1].startswith("2 point(s) at 2 distinct N")
    assert "explains too little" in usl.try_fit([(1, 100), (2, 300), (3, 90), (4, 310), (5, 95)])[1]


def test_the_published_dvf_grid_gives_a_peak_near_its_largest_client_count():
    grid = {(f["bulk"], f["clients"]): f["docs_per_s"] for f in published.load("dvf")["figures"]}
    rec = recommend.clients([(c, grid[(1000, c)]) for c in (1, 4, 8, 16)])
    assert rec.value is not None and 8 < rec.value < 40 and rec.text.startswith("the clients' peak N* is")


def test_a_bulk_size_recommendation_or_why_not():
    points = [(b, 1 / (25e-6 + 650e-6 / b)) for b in (10, 100, 1000, 10000)]
    rec = recommend.bulk_size(points)
    assert rec.value == pytest.approx(19 * 650e-6 / 25e-6, rel=0.01) and "of the sizes tried, 1000" in rec.text
    assert recommend.bulk_size(points[:2]).text == "cannot fit: 2 bulk size(s); the model needs at least 3"


def sweep_state(bulks, clients, rate):
    runs = [
        {
            "cell_id": f"bulk_size={b};bulk_indexing_clients={c}",
            "cell": {},
            "repetition": 1,
            "status": "done",
            "figures": {
                "index-append": {
                    "median": rate(b, c),
                    "min": rate(b, c) * 0.97,
                    "max": rate(b, c) * 1.03,
                    "unit": "docs/s",
                    "error_rate": 0,
                }
            },
        }
        for b in bulks
        for c in clients
    ]
    return {
        "id": "s",
        "track": "/t",
        "challenge": "c",
        "grid": {"bulk_size": bulks, "bulk_indexing_clients": clients},
        "cluster_grid": {},
        "fixed": {},
        "repeat": 1,
        "test_mode": False,
        "runs": runs,
    }


def test_a_sweep_report_recommends_from_its_grid_or_says_it_cannot():
    from ingestlab.sweep import report

    def rate(b, c):
        return float(usl.throughput(c, 1 / (25e-6 + 650e-6 / b), 0.1, 0.01))

    text = report.markdown(sweep_state([100, 1000, 10000], [1, 2, 4, 8], rate))
    assert "Recommendation from `bulk_size` at bulk_indexing_clients=1 (3 point(s), medians): the smallest bulk size within 5% of" in text
    assert "Recommendation from `bulk_indexing_clients` at bulk_size=1000 (4 point(s), medians): the clients' peak N* is 9.5" in text
    small = report.markdown(sweep_state([500, 5000], [1, 2], rate))  # the README's 2 x 2 example
    assert "(2 point(s), medians): cannot fit: 2 bulk size(s); the model needs at least 3." in small
    assert "cannot fit: 2 point(s) at 2 distinct N" in small


def test_an_exact_fit_is_labelled_exact_and_the_law_gives_no_interval_below_two_degrees_of_freedom():
    from ingestlab.models import linear, usl

    exact = linear.fit([linear.Cell("a", 100, 100, 1.0), linear.Cell("b", 1, 100, 0.2)])
    assert exact.per("request").low is None and exact.per("request").interval().endswith("(exact: 2 cells for 2 costs, no interval)")
    four = usl.fit([(1, 1000), (2, 1800), (4, 2900), (8, 3500)])
    assert all(p.low is None and "1 degree of freedom" in p.why for p in (four.lam, four.sigma, four.kappa))
    assert four.peak_interval() is None
    five = usl.fit([(1, 1000), (2, 1830), (4, 2950), (8, 3500), (16, 3300)])
    assert five.kappa.low is not None and five.peak_interval() is not None


def test_the_bulk_size_interval_keeps_r_and_c_together_and_covers_the_true_value():
    """b* = 19·r/c: drawing r and c apart (3d84df4) ignored that their estimates are negatively correlated; the delta
    method on log r − log c keeps their covariance. Over simulated sweeps its 95 % interval covers the true b*."""
    import math
    import random

    from ingestlab.models import recommend

    rng, r, c = random.Random(11), 1e-3, 30e-6
    true = r / (c * (1 / 0.95 - 1))
    covered = tried = 0
    for _ in range(200):
        points = [(b, 1 / ((c + r / b) * math.exp(rng.gauss(0, 0.05)))) for b in (1, 10, 50, 100, 500, 1000, 5000)]
        rec = recommend.bulk_size(points)
        if rec.low is None:
            continue
        tried += 1
        covered += rec.low <= true <= rec.high
    assert tried >= 190 and 0.88 <= covered / tried <= 0.995


def test_a_law_that_only_falls_has_no_peak_and_says_so():
    from ingestlab.models import usl

    falling = usl.fit([(1, 565.0), (2, 514.0), (4, 491.0)])
    assert falling.sigma.value == pytest.approx(1.0) and falling.peak is None
    assert "no gain past N = 1 (σ = 1: the curve only falls)" in falling.describe()
