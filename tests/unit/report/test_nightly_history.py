"""The nightly history: previous nights aggregated, margins from their spread, regressions flagged."""

import pytest

from ingestlab import nightly
from ingestlab.nightly import history


def seed(db, night, values):
    db.executemany(
        "INSERT INTO figures (night, study, task, value, race_id, es_version) VALUES (?, ?, ?, ?, ?, ?)",
        [(night, "posts", t, v, "r", "7.17.29") for t, v in values.items()],
    )


def test_a_regression_is_a_drop_below_the_nights_prediction_bound(tmp_path):
    db = nightly.open_history(tmp_path / "h.sqlite")
    for night, v in (("2026-01-01", 100.0), ("2026-01-02", 104.0), ("2026-01-03", 96.0)):
        seed(db, night, {"bulk-1000": v, "index-api": v / 10})
    rows = {r["task"]: r for r in nightly.regressions(db, "posts", "2026-01-04", {"bulk-1000": 75.0, "index-api": 9.5}, None)}
    assert rows["bulk-1000"]["history"].n == 3 and rows["bulk-1000"]["margin"] == nightly.MIN_DROP
    assert rows["bulk-1000"]["regression"] and rows["bulk-1000"]["p"] < 0.025  # Holm over the two tasks
    assert not rows["index-api"]["regression"] and rows["index-api"]["p"] > 0.05


def test_a_drop_within_the_nights_own_spread_is_not_a_regression_however_large(tmp_path):
    """Nights that scatter by ±30 % (test mode, one race a night) predict a wide band: −25 % tonight is inside it. The
    earlier rule (2× the history's CV, at least 10 %) judged by a margin without the nights' count."""
    db = nightly.open_history(tmp_path / "h.sqlite")
    for night, v in (("2026-01-01", 130.0), ("2026-01-02", 70.0), ("2026-01-03", 100.0), ("2026-01-04", 120.0)):
        seed(db, night, {"bulk-1000": v})
    (row,) = nightly.regressions(db, "posts", "2026-01-05", {"bulk-1000": 80.0}, None)
    assert row["change"] < -0.15 and row["p"] > 0.05 and not row["regression"]


def test_a_sure_drop_smaller_than_the_margin_is_not_a_regression(tmp_path):
    db = nightly.open_history(tmp_path / "h.sqlite")
    for night, v in (("2026-01-01", 100.0), ("2026-01-02", 100.2), ("2026-01-03", 99.8), ("2026-01-04", 100.1)):
        seed(db, night, {"bulk-1000": v})
    (row,) = nightly.regressions(db, "posts", "2026-01-05", {"bulk-1000": 97.0}, None)
    assert row["p"] < 0.01 and not row["regression"]
    (row,) = nightly.regressions(db, "posts", "2026-01-05", {"bulk-1000": 97.0}, 0.02)
    assert row["regression"]


def test_fewer_than_three_previous_nights_are_shown_not_judged(tmp_path):
    db = nightly.open_history(tmp_path / "h.sqlite")
    seed(db, "2026-01-01", {"bulk-1000": 100.0})
    seed(db, "2026-01-05", {"bulk-1000": 1.0})  # a later night is not "previous"
    (row,) = nightly.regressions(db, "posts", "2026-01-03", {"bulk-1000": 20.0}, None)
    assert row["history"].median == 100.0 and row["change"] == -0.8
    assert not row["regression"] and row["p"] is None and row["why"] == "1 previous night: 3 needed"


def test_a_task_earlier_nights_had_and_tonight_lacks_is_flagged(tmp_path):
    db = nightly.open_history(tmp_path / "h.sqlite")
    seed(db, "2026-01-01", {"bulk-1000": 100.0, "bulk-10": 10.0, "headline:bulk1000-over-single": 40.0})
    rows = {r["task"]: r for r in nightly.regressions(db, "posts", "2026-01-02", {"bulk-1000": 99.0}, None)}
    assert rows["bulk-10"]["missing"] and not rows["bulk-10"]["regression"] and not rows["bulk-1000"]["missing"]
    assert "headline:bulk1000-over-single" not in rows  # ratios are drawn as trends, not judged


def test_annotations_and_files_from_before_setups(tmp_path):
    import sqlite3

    old = sqlite3.connect(tmp_path / "old.sqlite")
    old.execute("CREATE TABLE figures (night TEXT, study TEXT, task TEXT, value REAL, race_id TEXT, es_version TEXT)")
    old.execute("INSERT INTO figures VALUES ('2026-01-01', 'posts', 'bulk-1000', 100.0, 'r', '7.17.29')")
    old.commit()
    db = nightly.open_history(tmp_path / "old.sqlite")
    assert nightly.previous(db, "posts", "2026-01-02")["bulk-1000"].median == 100.0  # read as the setup "default"
    nightly.annotate(db, "2026-01-01", "upgraded the JDK")
    from ingestlab.nightly import history

    assert history.annotations(db, "default") == [("2026-01-01", "upgraded the JDK")]


def test_a_change_point_that_moves_a_night_or_two_as_history_grows_is_not_new_twice(tmp_path):
    """Keyed by its exact night, a change point that the split puts a night later once more nights came was 'new'
    again (3d84df4); within two nights, in the same direction, it is the one already known."""
    db = history.open_history(tmp_path / "h.sqlite")
    nights = [f"2026-11-{d:02d}T023000" for d in range(1, 26)]
    first = history.record_change_points(db, "default", "posts", "bulk-1000", [(nights[12], -0.12, 0.001)], nights[19], nights[:20])
    assert first == [(nights[12], -0.12, 0.001)]
    moved = history.record_change_points(db, "default", "posts", "bulk-1000", [(nights[13], -0.11, 0.001)], nights[20], nights[:21])
    assert moved == []  # a night later: the same change point
    other_way = history.record_change_points(db, "default", "posts", "bulk-1000", [(nights[14], 0.15, 0.001)], nights[21], nights[:22])
    far = history.record_change_points(db, "default", "posts", "bulk-1000", [(nights[20], -0.1, 0.001)], nights[24], nights)
    assert other_way == [(nights[14], 0.15, 0.001)] and far == [(nights[20], -0.1, 0.001)]


def test_a_night_of_several_races_keeps_each_tasks_median_and_the_median_headline():
    import copy

    import pytest

    from ingestlab import compare, studies
    from ingestlab.nightly.run import night_figures
    from tests.unit.studies.races import race, result

    study = studies.get("posts")
    docs = []
    for scale in (1.0, 3.0, 2.0):  # three races: the night's figure is the middle one, not the mean or the last
        doc = copy.deepcopy(race("posts"))
        for op in doc["results"]["op_metrics"]:
            for k in ("min", "median", "max", "mean"):
                op["throughput"][k] *= scale
        docs.append(doc)
    doc = docs[2]
    doc["results"]["op_metrics"] = [op for op in doc["results"]["op_metrics"] if op["task"] != "bulk-1000"]  # one race lacks a task
    results = [result("posts", d) for d in docs]
    figures, headlines = night_figures(study, results, study.published_figures())
    one = compare.task_figures(docs[0])
    assert figures["bulk-1000"] == pytest.approx(one["bulk-1000"] * 2.0)  # median of 1× and 3×: the lacking race left out
    other = next(t for t in one if t != "bulk-1000")
    assert figures[other] == pytest.approx(one[other] * 2.0)
    # every task scaled alike keeps the ratio: the headline is each race's own, the race without bulk-1000 has none
    first = {h.key: h.here for h in study.headlines(results[0], study.published_figures()) if h.is_ratio and h.here is not None}
    assert first and all(figures["headline:" + k] == pytest.approx(v) for k, v in first.items()) and set(first) <= set(headlines)


@pytest.mark.slow
def test_the_change_point_simulation_takes_a_nights_median_of_its_races():
    """`bench changepoints --repeat N`: a night is the median of N races, as `nightly --repeat` makes it, so its noise
    is narrower than one race's; the data and the ledger conditions say how many races a night."""
    import math
    import statistics

    from ingestlab.nightly import simulate

    one = simulate.simulate(0.10, series=10, nights=8, step=0.10, after=3, log=lambda *_: None)
    nine = simulate.simulate(0.10, series=10, nights=8, step=0.10, after=3, log=lambda *_: None, repeat=9)
    assert one["repeat"] == 1 and nine["repeat"] == 9 and "median of 9 race(s)" in simulate.markdown(nine)
    import random

    rng = random.Random(3)
    spread = statistics.stdev(math.log(statistics.median(math.exp(rng.gauss(0, 0.10)) for _ in range(9))) for _ in range(2000))
    assert spread < 0.06  # about 0.10 × 1.25 / 3


@pytest.mark.slow
def test_the_change_point_simulation_draws_a_calibrations_own_races_when_given_them():
    """A calibration's races, drawn again, keep their skew (a slow race now and then); the data, the report and the
    ledger conditions say the nights were drawn from real races."""
    import math

    from ingestlab.nightly import simulate

    races = tuple(math.log(v) for v in [100.0] * 18 + [70.0, 72.0])
    data = simulate.simulate(0.1, series=10, nights=8, step=0.10, after=3, log=lambda *_: None, races=races)
    assert data["drawn_from"] == 20 and "each drawn from 20 real races" in simulate.markdown(data)
    assert simulate.simulate(0.1, series=10, nights=8, log=lambda *_: None)["drawn_from"] == 0


@pytest.mark.slow
def test_a_simulated_night_of_sessions_keeps_its_sessions_shift_however_many_races_it_takes():
    """`bench changepoints --sessions`: each night is one calibration session, its races drawn from that session alone,
    so the median of many races a night still carries the session's shift; the data and the report name the sessions and both σ."""
    import math
    import random

    from ingestlab.nightly import simulate

    sessions = (tuple([math.log(100.0)] * 40), tuple([math.log(80.0)] * 40))
    night = simulate.night_of(random.Random(1), 0.1, 36, sessions=sessions)
    centre = math.exp((math.log(100.0) + math.log(80.0)) / 2)
    seen = {round(night(1000.0), 6) for _ in range(50)}
    assert seen == {round(1000 * 100 / centre, 6), round(1000 * 80 / centre, 6)}
    data = simulate.simulate(0.1, series=10, nights=8, log=lambda *_: None, sessions=sessions)
    assert data["sessions"] == 2 and data["drawn_from"] == 80
    assert abs(data["between"] - abs(math.log(100 / 80)) / math.sqrt(2)) < 1e-12 and data["within"] == 0
    assert "each night one of 2 sessions (calibration sessions) drawn at random" in simulate.markdown(data)


@pytest.mark.slow
def test_a_simulated_night_beside_a_reference_cancels_the_shift_both_sides_share():
    """`bench changepoints --ab`: each night one ab session, its pairs drawn from it alone, the night's figure the
    contender's median over the baseline's; a shift the two sides share (here 25 %) is gone from the night's figure,
    and the data names both σ (of the ratio, and of one side's level)."""
    import math
    import random

    from ingestlab.nightly import simulate

    pairs = (tuple((math.log(100.0), math.log(101.0)) for _ in range(20)), tuple((math.log(80.0), math.log(80.8)) for _ in range(20)))
    night = simulate.paired_night_of(random.Random(1), 5, pairs)
    assert {round(night(1000.0), 6) for _ in range(50)} == {1000.0}
    data = simulate.simulate(0.1, series=10, nights=8, log=lambda *_: None, pairs=pairs)
    assert data["paired"] and data["sessions"] == 2 and data["drawn_from"] == 40
    assert data["between"] < 1e-12 and abs(data["between_one"] - math.log(100 / 80) / math.sqrt(2)) < 1e-12
    assert "a setup and a reference raced in pairs" in simulate.markdown(data)


def test_a_night_beside_a_reference_is_judged_on_the_ratio_of_tasks_both_have():
    from ingestlab.nightly.races import Setup
    from ingestlab.nightly.run import beside_figures

    assert beside_figures(
        {"bulk-1000": 60_000.0, "index": 900.0, "headline:bulk-vs-index": 66.0, "only-here": 5.0},
        {"bulk-1000": 50_000.0, "index": 1_000.0, "headline:bulk-vs-index": 50.0},
    ) == {"bulk-1000": 1.2, "index": 0.9}
    assert Setup.parse("hosts=127.0.0.1:9200,127.0.0.1:9201;name=ref") == Setup(name="ref", hosts="127.0.0.1:9200,127.0.0.1:9201")


def test_a_reference_setup_names_a_running_cluster_or_one_to_provision_never_both():
    import pytest

    from ingestlab.errors import IngestlabError
    from ingestlab.nightly.races import Setup

    with pytest.raises(IngestlabError, match="hosts names a running cluster"):
        Setup.parse("hosts=127.0.0.1:9200;version=9.2.0")


def test_the_drop_rule_simulated_keeps_its_level_on_flat_nights_and_finds_a_step_far_above_the_noise():
    import random

    from ingestlab.nightly import simulate

    rng = random.Random(3)
    flat = [[1000 * rng.lognormvariate(0, 0.05) for _ in range(30)] for _ in range(100)]
    stepped = [[1000 * rng.lognormvariate(0, 0.01) for _ in range(30)] + [800.0] for _ in range(50)]
    false, found = simulate.drop_rates(flat, stepped, 30)
    assert false[1] == 100 * (30 - nightly.NIGHTS_NEEDED) and false[0] / false[1] <= nightly.DROP_LEVEL
    assert found == [50, 50]


def test_the_sigma_of_one_race_around_sessions_keeps_every_sessions_shift():
    import math

    from ingestlab.nightly import sources

    assert abs(sources.sigma_around(((0.0, 0.0), (0.2, 0.2))) - 0.1) < 1e-12
    assert math.isclose(sources.sigma_around(((0.0, 0.2), (0.0, 0.2))), 0.1)


def test_a_nights_pairs_are_its_setups_races_beside_the_references_in_turn_and_a_night_of_two_setups_is_refused(monkeypatch):
    import copy
    import math

    import pytest

    from ingestlab import compare
    from ingestlab.errors import IngestlabError
    from ingestlab.nightly import sources
    from ingestlab.rally import results
    from tests.unit.studies.races import race

    def scaled(night, side, n, scale, setup="7.17.29"):
        doc = copy.deepcopy(race("posts"))
        doc.update(
            {
                "race-id": f"{night}-{side}-{n}",
                "race-timestamp": f"{night}{n:02d}",
                "user-tags": {"nightly": night, "nightly-side": side, "nightly-setup": setup},
            }
        )
        for op in doc["results"]["op_metrics"]:
            op["throughput"]["median"] *= scale
        return doc

    stored = [
        scaled("n1", side, n, s * (1.1 if side == "setup" else 1.0))
        for n, s in enumerate((1.0, 2.0, 1.5), 1)
        for side in ("setup", "reference")
    ]
    stored += [scaled("n2", side, n, 0.5) for n in range(1, 4) for side in ("reference", "setup")]
    monkeypatch.setattr(
        results,
        "races_with_tags",
        lambda tags: sorted(
            (r for r in stored if all(r["user-tags"].get(k) == v for k, v in tags.items())), key=lambda r: r["race-timestamp"]
        ),
    )
    sigma, source, sessions = sources.nightly_sessions(["n1", "n2"], "posts", "bulk-1000")
    base = math.log(compare.task_figures(race("posts"))["bulk-1000"])
    assert source == "nights n1, n2" and [len(s) for s in sessions] == [3, 3]
    assert sessions[0][1] == pytest.approx((base + math.log(2.0), base + math.log(2.2)))  # (reference, setup) of its second pair
    assert sigma == pytest.approx(math.log(1.1) / 2)  # the log ratio: log 1.1 on one night, 0 on the other, around their mean

    stored.append(scaled("n2", "setup", 9, 1.0, setup="9.2.0"))
    with pytest.raises(IngestlabError, match="n2: races of setups 7.17.29, 9.2.0"):
        sources.nightly_sessions(["n1", "n2"], "posts", "bulk-1000")
    with pytest.raises(IngestlabError, match="name two nights or more"):
        sources.nightly_sessions(["n1", "n1"], "posts", "bulk-1000")
    stored[:] = [r for r in stored if r["race-id"] != "n1-setup-3"]
    with pytest.raises(IngestlabError, match="n1: 2 reference and 3 setup|n1: 3 reference and 2 setup"):
        sources.nightly_sessions(["n1", "n2"], "posts", "bulk-1000")


def test_a_full_size_night_races_each_study_at_its_articles_size_out_of_test_mode_in_a_series_of_its_own():
    from ingestlab import studies
    from ingestlab.nightly.races import FULL_SIZE, Setup, Sizing

    posts, wikipedia = studies.get("posts"), studies.get("wikipedia")
    small = Sizing(repeat=3).options(posts, {"nightly": "n"})
    assert small.test_mode and small.params == posts.small_params and small.challenge == posts.small_challenge
    full = Sizing(repeat=3, full_size=True, include_tasks="bulk-1000").options(wikipedia, {"nightly": "n"})
    assert not full.test_mode and full.params == wikipedia.full_size and full.challenge == wikipedia.headline_challenge
    assert full.include_tasks == "bulk-1000" and full.tags == {"nightly": "n", "size": "full"}
    named = Sizing(full_size=True).named(Setup(name="7.17.29", version="7.17.29"))
    assert named.name == "7.17.29" + FULL_SIZE and Sizing(full_size=True).named(named) == named  # never twice
    assert Sizing().named(Setup(name="7.17.29")).name == "7.17.29"  # small nights keep their series
    assert Setup.parse("version=7.17.29").heap is None and Setup.parse("version=7.17.29;heap=2g").heap == "2g"
