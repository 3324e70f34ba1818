"""Aggregating repeated races, noise margins and verdicts, on real race.json fixtures."""

import copy
import json
import math
from pathlib import Path

import numpy as np
import pytest

from ingestlab import compare
from ingestlab.rally.results import SAMPLES_KEY
from ingestlab.report import comparison
from ingestlab.verdicts.noise import Floor

FIXTURE = Path(__file__).parents[1] / "fixtures" / "posts-test-mode-race.json"


def race(scale=1.0, spread=0.0, test_mode=False, errors=0.0):
    """The posts fixture (a test-mode race: one sample per task) scaled; ``spread`` widens Rally's min–max to
    ±spread around the median, as a race with several samples per task has."""
    r = json.loads(FIXTURE.read_text())
    r["user-tags"]["test-mode"] = test_mode
    for op in r["results"]["op_metrics"]:
        for k in ("min", "median", "max", "mean"):
            op["throughput"][k] *= scale
        op["throughput"]["min"] = op["throughput"]["median"] * (1 - spread)
        op["throughput"]["max"] = op["throughput"]["median"] * (1 + spread)
        op["error_rate"] = errors
    return r


def test_aggregate_of_repeated_races():
    agg = compare.aggregate([race(1.0), race(1.1), race(0.9)])["bulk-1000"]
    base = compare.task_figures(race())["bulk-1000"]
    assert agg.n == 3 and agg.median == pytest.approx(base) and agg.minimum == pytest.approx(0.9 * base)
    assert agg.cv == pytest.approx(0.1, rel=1e-6)


def test_margin_comes_from_the_spread_and_flags_only_beyond_it():
    baseline = compare.aggregate([race(1.0), race(1.02), race(0.98)])  # CV 2 % → margin 4 %
    slower = compare.aggregate([race(0.90), race(0.91), race(0.89)])
    same = compare.aggregate([race(0.99), race(1.0), race(1.01)])
    d = {x.task: x for x in compare.compare(baseline, slower, method="margin")}["bulk-1000"]
    assert d.margin == pytest.approx(0.04, rel=1e-3) and d.verdict == "slower" and d.change == pytest.approx(-0.10)
    assert {x.task: x for x in compare.compare(baseline, same, method="margin")}["bulk-1000"].verdict == "within noise"


def test_one_race_a_side_is_never_judged_on_rallys_samples():
    """Rally's throughput samples of one race are running averages of the task so far: no rule takes them as
    replicates. One race a side is called only against a fixed margin or a measured noise floor."""
    one, faster = race(spread=0.2), race(1.5, spread=0.1)
    one[SAMPLES_KEY] = {"bulk-1000": [100.0, 102.0, 98.0, 101.0]}
    faster[SAMPLES_KEY] = {"bulk-1000": [150.0, 148.0, 153.0, 151.0]}
    a, b = compare.aggregate([one]), compare.aggregate([faster])
    for method in ("t", "margin"):
        d = {x.task: x for x in compare.compare(a, b, method=method)}["bulk-1000"]
        assert d.verdict == "not enough races", (method, d)
    assert compare.compare(a, b, margin=0.6)[0].verdict == "within noise"
    floor = Floor(0.05, 23, "calibration s (this machine: 24 races of posts/bulk-1000)")
    d = compare.difference("bulk-1000", a["bulk-1000"], b["bulk-1000"], floor=floor)
    assert d.verdict == "faster" and "against the noise floor σ 5.0% of calibration s" in d.basis
    assert d.low < 0.5 < d.high and d.smallest is not None


def measured(median):
    """A one-race side as Rally stored it (docs/s)."""
    r = race()
    op = next(o for o in r["results"]["op_metrics"] if o["task"] == "bulk-1000")
    op["throughput"].update(min=median, median=median, max=median)
    return compare.aggregate([r])["bulk-1000"]


def test_against_a_noise_floor_an_a_a_pair_measured_here_is_within_noise_and_a_real_change_is_not():
    """Two posts races of the same code on this machine (+21.6 %), and eventdata at bulk 10 against bulk 1000, judged
    against a floor of σ 12 % (the spread between identical races here)."""
    floor = Floor(0.12, 23, "a calibration")
    a, b = measured(30970.5), measured(37665.5)
    assert compare.difference("bulk-1000", a, b, floor=floor).verdict == "within noise"
    assert compare.difference("bulk-1000", b, a, floor=floor).verdict == "within noise"
    small, large = measured(2085.9), measured(27190.8)
    assert compare.difference("bulk-1000", small, large, floor=floor).verdict == "faster"
    assert compare.difference("bulk-1000", large, small, floor=floor).verdict == "slower"


def test_a_a_pairs_come_out_within_noise_and_a_real_change_does_not():
    five = [race(x) for x in (0.9, 1.0, 1.1, 0.95, 1.05)]
    other = [race(x) for x in (0.85, 1.02, 1.08, 0.97, 1.1)]
    assert {d.verdict for d in compare.compare(compare.aggregate(five), compare.aggregate(other))} == {"within noise"}
    assert {d.verdict for d in compare.compare(compare.aggregate(five), compare.aggregate(other), method="margin")} == {"within noise"}
    double = [race(2 * x) for x in (0.85, 1.02, 1.08, 0.97, 1.1)]
    assert {d.verdict for d in compare.compare(compare.aggregate(five), compare.aggregate(double))} == {"faster"}


def test_the_t_rule_states_its_interval_and_without_a_floor_how_many_races_a_change_needs():
    base = compare.aggregate([race(x) for x in (1.0, 1.02, 0.98)])
    slower = compare.aggregate([race(x) for x in (0.90, 0.91, 0.89)])
    d = {x.task: x for x in compare.compare(base, slower)}["bulk-1000"]
    assert d.method == "t" and d.verdict == "slower" and d.low < -0.10 < d.high < 0
    assert d.basis.startswith("3 vs 3 races, Welch on log medians, Holm over") and d.smallest > 0
    two = compare.aggregate([race(1.0), race(1.01)])
    d = {x.task: x for x in compare.compare(two, compare.aggregate([race(0.95), race(0.96)]))}["bulk-1000"]
    assert d.verdict == "not enough races" and "the change seen would need about" in d.basis and d.needs >= 3
    d = compare.compare(compare.aggregate([race()]), compare.aggregate([race(1.3)]))[0]
    assert d.verdict == "not enough races" and "race 3 or more a side, or run `ingestlab calibrate`" in d.basis


@pytest.mark.slow
def test_holm_keeps_a_comparison_of_many_identical_tasks_from_calling_one_by_chance():
    """An A/A comparison of a study tests ~20 tasks: at 5 % each, one false verdict or more is likely; with Holm's
    correction, the chance of any is 5 %."""
    import random

    rng = random.Random(7)
    called = 0
    for _ in range(60):
        sides = [
            {f"task-{t}": compare.Aggregate.of([100 * math.exp(rng.gauss(0, 0.05)) for _ in range(3)]) for t in range(20)} for _ in range(2)
        ]
        called += any(d.verdict in ("faster", "slower") for d in compare.compare(*sides))
    assert called <= 6  # of 60  # about 5 %, against 1 − 0.95^20 = 64 % uncorrected


def test_a_warming_node_is_reported_as_drift_not_as_a_change():
    """9 identical eventdata races on a fresh 7.17.29 node (medians from the issue), tagged g1..g3 in threes: g1 against
    g2 rose +95 % and compare called it within noise with no word of the trend; the sides ran one after the other."""
    medians = [7886, 16935, 23826, 31085, 32971, 38123, 39674, 36369, 38246]
    times = [f"20261127T00{i:02d}00Z" for i in range(9)]
    groups = [compare.Aggregate.of(medians[i : i + 3], times=times[i : i + 3]) for i in (0, 3, 6)]
    d = compare.difference("index-append", groups[0], groups[1])
    assert d.verdict not in ("faster", "slower") and "rose" in d.trend and "interleave the sides" in d.trend
    whole = compare.Aggregate.of(medians, times=times)
    later = compare.Aggregate.of([v * 1.0 for v in medians], times=[f"20261127T01{i:02d}00Z" for i in range(9)])
    d = compare.difference("index-append", whole, later)
    assert "the baseline rose 4.85× over its 9 races" in d.trend and "warming up" in d.trend


def test_every_format_carries_service_times_and_error_rates():
    import csv
    import io
    import json as jsonlib

    base = compare.aggregate([race(x) for x in (1.0, 1.02, 0.98)])
    other = compare.aggregate([race(x, errors=0.01) for x in (0.90, 0.91, 0.89)])
    text = comparison.render("markdown", "a", base, [("b", other)])
    assert "service p50 / p90 / p99 ms" in text and "0.0% → 1.0%" in text
    rows = list(csv.DictReader(io.StringIO(comparison.render("csv", "a", base, [("b", other)]))))
    assert rows and {"baseline_service_p90_ms", "contender_error_rate", "interval_low", "verdict"} <= set(rows[0])
    data = jsonlib.loads(comparison.render("json", "a", base, [("b", other)]))
    assert data["method"] == "t" and data["rows"][0]["verdict"] in ("slower", "within noise", "faster")
    assert "<table>" in comparison.render("html", "a", base, [("b", other)])


def test_failed_and_test_mode_races_are_left_out_and_named():
    kept, notes = compare.select([race(), race(test_mode=True), race(errors=0.1)])
    assert len(kept) == 1 and len(notes) == 2
    assert "a test-mode race" in notes[0] and "requests failed in index-api" in notes[1]
    kept, _ = compare.select([race(), race(test_mode=True)], test_mode=True)
    assert len(kept) == 1


def test_setup_tasks_are_left_out():
    r = copy.deepcopy(race())
    r["results"]["op_metrics"].append({**r["results"]["op_metrics"][0], "task": "recreate-b1-t1"})
    assert "recreate-b1-t1" not in compare.task_figures(r)


def test_markdown_table_and_its_footnote_quote_the_calibration_row_of_the_comparisons_races_a_side():
    text = comparison.markdown(
        "run:a (2 races)",
        compare.aggregate([race(spread=0.1), race(1.1, spread=0.1)]),
        [("run:b (1 race)", compare.aggregate([race(0.5, spread=0.1)]))],
    )
    assert "### run:b (1 race) against the baseline" in text and "not enough races" in text and "CV " in text
    assert "No calibration of this track on this machine" in text
    calibration = {
        "stamp": "2026-11-27T0400",
        "track": "posts",
        "task": "bulk-1000",
        "versions": {"version": "7.17.29"},
        "command": "ingestlab calibrate --races 120",
        "rates": {"1": {"false_alarms": [2, 60], "detect_10": [40, 60]}, "3": {"false_alarms": [1, 20], "detect_10": [18, 20]}},
    }
    one = comparison.markdown(
        "a (1 race)", compare.aggregate([race()]), [("b (1 race)", compare.aggregate([race(0.9)]))], calibration=calibration
    )
    assert (
        "with 1 race(s) a side on shuffled splits of its identical races: the default rule called "
        "2/60 (3%, 95 % interval 0%–12%) A/A comparisons different" in one
    )
    three = comparison.markdown(
        "a",
        compare.aggregate([race(x) for x in (1, 1.01, 0.99)]),
        [("b", compare.aggregate([race(x) for x in (0.9, 0.91, 0.89)]))],
        calibration=calibration,
    )
    assert "with 3 race(s) a side on shuffled splits of its identical races: the default rule called 1/20" in three and "2/60" not in three
    assert "each judged against the same session's other races (not as compare judges races of a later session)" in one
    assert "judged against" not in three  # 3 a side: Welch on the comparison's own races
    spanning = comparison.markdown(
        "a (1 race)",
        compare.aggregate([race()]),
        [("b (1 race)", compare.aggregate([race(0.9)]))],
        calibration={**calibration, "floor_of": ["2026-11-26T0400", "2026-11-25T0400"]},
    )
    assert (
        "each judged against the races of calibrations 2026-11-26T0400, 2026-11-25T0400 (the floor spanning their sessions), "
        "as compare judges races raced after them"
    ) in spanning
    two = comparison.markdown(
        "a", compare.aggregate([race(1), race(1.01)]), [("b", compare.aggregate([race(0.9), race(0.91)]))], calibration=calibration
    )
    assert "measured no comparison of 2 race(s) a side (it has 1, 3)" in two
    text = comparison.markdown(
        "run:a (2 races)",
        compare.aggregate([race(spread=0.1), race(1.1, spread=0.1)]),
        [("run:b (2 races)", compare.aggregate([race(0.5, spread=0.1), race(0.52)]))],
        method="margin",
    )
    assert "| slower |" in text


def test_calibration_also_measures_the_races_a_side_ab_would_choose():
    from ingestlab.verdicts import calibration

    need = calibration.races_a_side(0.05, 360)
    chosen = need["10"]["welch"]
    assert chosen > 3 and calibration.sizes(need, 360) == (1, 3, chosen)
    assert calibration.sizes(need, 2 * chosen - 1) == (1, 3)  # not one such comparison in the pool
    assert calibration.sizes(calibration.races_a_side(0.01, 360), 360) == (1, 3)  # ab races 3 a side at least
    assert calibration.sizes({}, 360) == (1, 3)


def test_calibration_measures_rates_over_disjoint_comparisons_with_an_exact_effect():
    import random

    from ingestlab.verdicts import calibration

    rng = random.Random(5)
    pool = [30000 * math.exp(rng.gauss(0, 0.03)) for _ in range(120)]
    rates = calibration.rates(pool)
    assert rates["1"]["false_alarms"][1] == 60 and rates["3"]["false_alarms"][1] == 20  # disjoint: 120 races
    assert rates["1"]["false_alarms"][0] <= 8 and rates["3"]["detect_10"][0] >= 10 and rates["1"]["detect_10"][0] >= 30
    used = [i for a, b in calibration.splits(120, 3) for i in a + b]
    assert len(used) == len(set(used)) == 120
    need = calibration.races_a_side(0.03, 120)
    assert need["10"]["with_floor"] <= need["5"]["with_floor"] and need["10"]["welch"] >= 3
    warming = [7886, 16935, 23826, 31085, 32971, 38123, 39674, 36369, 38246]
    assert calibration.warm(warming, 3, 0.10) == 8 and calibration.warm(warming, 3, 0.05) is None


def test_ab_sides_are_checked_against_the_track_and_each_pair_races_in_a_random_order():
    from ingestlab import ab
    from ingestlab.errors import IngestlabError
    from ingestlab.paths import TRACKS_DIR
    from ingestlab.rally import trackinfo

    track = trackinfo.load(TRACKS_DIR / "eventdata")
    s = ab.side("baseline", "bulk_size=500;version=9.2.0", track, None)
    assert s.params == {"bulk_size": 500} and s.cluster == {"version": "9.2.0"}
    with pytest.raises(IngestlabError, match="never reads a parameter 'bulk_sise'"):
        ab.side("contender", "bulk_sise=500", track, None)
    with pytest.raises(IngestlabError, match="emulated hardware"):
        ab.side("contender", "cpus=0.5", track, None)
    races = ab.order(40, seed=3)
    assert len(races) == 80 and all({races[i], races[i + 1]} == {"baseline", "contender"} for i in range(0, 80, 2))
    assert 10 < sum(races[i] == "baseline" for i in range(0, 80, 2)) < 30  # which side goes first is random
    with pytest.raises(IngestlabError, match="give --races N, or run `ingestlab calibrate`"):
        ab.pairs_for(None, "index-append", None)
    with pytest.raises(IngestlabError, match=r"no calibration .* \(calibration X left out: why\): give --races N"):
        ab.pairs_for(None, "index-append", None, ["calibration X left out: why"])
    from ingestlab.verdicts import stats

    # the paired test's pairs at the primary task's σ (n − 1 degrees of freedom), not Welch's races a side
    pairs, why = ab.pairs_for({"stamp": "s", "tasks": {"index-append": {"sigma": 0.05}}}, "index-append", None)
    assert pairs == stats.races_needed(0.10, 0.05, power=0.9, paired=True) >= stats.races_needed(0.10, 0.05, power=0.9)
    assert "paired test at 5 %" in why and "σ 5.0% of index-append" in why


@pytest.mark.slow
def test_one_race_a_side_against_a_calibrations_own_races_keeps_its_false_alarms_where_a_normal_curve_does_not():
    """Races here are skewed: now and then one runs ~30 % slow (posts on 7.17.29: skew −1.3, 6.7 % of A/A pairs called
    at a 5 % level against σ). A floor that kept its races judges by their differences and holds its 5 %."""
    import random
    import statistics

    from ingestlab.verdicts import judge, stats

    rng = random.Random(3)

    def one_race():
        return 40_000 * math.exp(rng.gauss(0, 0.04) - (0.3 if rng.random() < 0.08 else 0))

    logs = stats.logs([one_race() for _ in range(300)])
    by_sigma = Floor(statistics.stdev(logs), 299, "a calibration")
    by_races = Floor(statistics.stdev(logs), 299, "a calibration", logs=tuple(logs))
    called = {"sigma": 0, "races": 0}
    for _ in range(1000):
        pair = {"bulk": (judge.Side((one_race(),)), judge.Side((one_race(),)))}
        called["sigma"] += judge.judge(pair, {"bulk": by_sigma})[0].call in ("faster", "slower")
        called["races"] += judge.judge(pair, {"bulk": by_races})[0].call in ("faster", "slower")
    assert called["races"] <= 65 and called["sigma"] >= 80, called  # of 1000: about 5 %, and about 10 % by the normal curve
    slower = judge.judge({"bulk": (judge.Side((40_000.0,)), judge.Side((20_000.0,)))}, {"bulk": by_races})[0]
    assert slower.call == "slower" and "read from the differences of its 300 races (no normal curve)" in slower.basis
    assert slower.low < -0.5 < slower.high


def test_a_calibration_file_gives_its_races_to_the_floor_of_its_own_task_only():
    from ingestlab.verdicts import noise

    data = {
        "stamp": "s",
        "track": "posts",
        "task": "bulk-1000",
        "versions": {"version": "7.17.29"},
        "medians": [100.0, 110.0, 90.0],
        "tasks": {"bulk-1000": {"sigma": 0.1, "races": 3}, "bulk-100": {"sigma": 0.2, "races": 3}},
    }
    assert noise.floor_of(data, "bulk-1000", "here").logs == tuple(math.log(v) for v in (100.0, 110.0, 90.0))
    assert noise.floor_of(data, "bulk-100", "here").logs == ()


def test_a_new_sessions_sigma_bound_widens_with_the_spread_between_sessions_and_narrows_with_more_of_them():
    from scipy import stats as sps

    from ingestlab.verdicts import stats

    assert stats.session_bound([0.08]) is None  # one session cannot say how the next differs from it
    assert stats.session_bound([0.08, 0.08, 0.08]) == pytest.approx(0.08)
    three = stats.session_bound([0.089, 0.068, 0.081])
    logs = [math.log(s) for s in (0.089, 0.068, 0.081)]
    mean, sd = sum(logs) / 3, math.sqrt(sum((x - sum(logs) / 3) ** 2 for x in logs) / 2)
    assert three == pytest.approx(math.exp(mean + sps.t.ppf(0.95, 2) * sd * math.sqrt(4 / 3)))
    assert stats.session_bound([0.089, 0.068]) > three > stats.session_bound([0.089, 0.068, 0.081] * 3) > 0.089


def _session(stamp, medians, task="bulk-1000", **more):
    return {
        "stamp": stamp,
        "track": "posts",
        "task": task,
        "versions": {"engine": "elasticsearch", "version": "7.17.29"},
        "medians": medians,
        "tasks": {task: {"sigma": float(np.std(np.log(medians), ddof=1)), "races": len(medians)}},
        **more,
    }


def test_a_floor_spanning_sessions_centres_each_on_its_own_mean_and_scales_it_to_the_bound():
    from ingestlab.verdicts import noise, stats

    rng = np.random.default_rng(3)
    quiet, noisy = list(1000 * np.exp(rng.normal(0, 0.05, 60))), list(3000 * np.exp(rng.normal(0, 0.09, 60)))
    rejudged = _session("J", noisy, pooled={"stamps": ["B"], "races": 60})  # the same races judged again: not a session
    floor = noise.floor_across([_session("B", noisy), rejudged, _session("A", quiet)], "bulk-1000", "here")
    bound = stats.session_bound([np.std(np.log(noisy), ddof=1), np.std(np.log(quiet), ddof=1)])
    assert floor.sigma == pytest.approx(bound) and floor.df == 118 and floor.stamp == "B"
    assert len(floor.logs) == 120 and abs(np.mean(floor.logs)) < 1e-9  # 3000 and 1000 docs/s: the means' gap is not noise
    assert np.std(floor.logs[:60], ddof=1) == pytest.approx(bound) and np.std(floor.logs[60:], ddof=1) == pytest.approx(bound)
    assert "calibrations B, A (here: 2 sessions, 120 races of posts/bulk-1000" in floor.source
    one = noise.floor_across([_session("A", quiet)], "bulk-1000", "here")
    assert one == noise.floor_of(_session("A", quiet), "bulk-1000", "here")  # one session: its own floor


def test_compare_judges_one_race_a_side_against_every_session_here_unless_given_a_file(tmp_path, monkeypatch):
    from ingestlab import machine
    from ingestlab.cli import verdict_cmd
    from ingestlab.verdicts import noise

    monkeypatch.setenv("INGESTLAB_RESULTS", str(tmp_path))
    rng = np.random.default_rng(4)
    files = {}
    for stamp, spread in (("2026-01-01T000000", 0.05), ("2026-01-02T000000", 0.09)):
        data = {
            **_session(stamp, list(1000 * np.exp(rng.normal(0, spread, 40)))),
            "format": 2,
            "challenge": "bulk",
            "machine": machine.describe(),
        }
        files[stamp] = tmp_path / "calibration" / stamp / "results.json"
        files[stamp].parent.mkdir(parents=True)
        files[stamp].write_text(json.dumps(data))
    every, _ = noise.sessions("posts", "bulk", "7.17.29")
    assert [d["stamp"] for d in every] == ["2026-01-02T000000", "2026-01-01T000000"]
    both = verdict_cmd._floors(every, ["bulk-1000"])["bulk-1000"]
    newest, _ = noise.find("posts", "bulk", "7.17.29", files["2026-01-02T000000"])
    given = verdict_cmd._floors([newest], ["bulk-1000"])["bulk-1000"]
    assert "2 sessions" in both.source and given.source.startswith("calibration 2026-01-02T000000")
    assert both.sigma > given.sigma


def test_a_floor_of_other_work_is_refused_in_one_line_naming_the_difference(tmp_path, monkeypatch):
    """A floor is keyed by what changes the work: track parameters (documents, bulk size, clients), version and host."""
    from ingestlab import machine
    from ingestlab.errors import IngestlabError
    from ingestlab.verdicts import noise

    monkeypatch.setenv("INGESTLAB_RESULTS", str(tmp_path))
    params = {"eventdata_docs": 20000, "bulk_size": 1000, "bulk_indexing_clients": 2}
    kept = {**_session("2026-01-01T000000", [1000.0, 1010.0, 990.0]), "format": 2, "challenge": "bulk", "machine": machine.describe()}
    for stamp, data in (("2026-01-01T000000", {**kept, "params": params}), ("2025-12-01T000000", kept)):  # the older: no params kept
        path = tmp_path / "calibration" / stamp / "results.json"
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps({**data, "stamp": stamp}))
    same = {k: str(v) for k, v in params.items()}  # as given on a command line
    found, notes = noise.sessions("posts", "bulk", "7.17.29", params=same)
    assert [d["stamp"] for d in found] == ["2026-01-01T000000"]
    assert notes == [
        "calibration 2025-12-01T000000 of posts left out: it did not record its track parameters: `ingestlab calibrate --races 0 "
        "--pool 2025-12-01T000000 --track … --track-param …` judges its races again and records them"
    ]
    # a file written before the parameters were kept: its command gives them; an index name changes no work
    older = {
        **kept,
        "command": "ingestlab calibrate --races 120 --track posts --track-param eventdata_docs=20000 --track-param "
        "bulk_size=1000 --track-param bulk_indexing_clients=2 --track-param index_name=calibration",
    }
    assert noise.params_of(older) == {**same, "index_name": "calibration"}
    assert noise._same_work(older, {**params, "index_name": "mine"}) is None
    found, notes = noise.sessions("posts", "bulk", "7.17.29", params={**params, "bulk_size": 10, "bulk_indexing_clients": 8})
    assert found == [] and notes[0] == (
        "calibration 2026-01-01T000000 of posts left out: it was measured with bulk_indexing_clients=2, bulk_size=1000, "
        "these races with bulk_indexing_clients=8, bulk_size=10"
    )
    found, notes = noise.sessions("posts", "bulk", "7.17.29", params={"bulk_size": 1000, "bulk_indexing_clients": 2})
    assert found == [] and "eventdata_docs=20000, these races with eventdata_docs not given (the track's default)" in notes[0]
    with pytest.raises(
        IngestlabError, match=r"does not hold for these races: it was measured with bulk_size=1000, these races with bulk_size=50"
    ):
        noise.find(
            "posts", "bulk", "7.17.29", tmp_path / "calibration" / "2026-01-01T000000" / "results.json", params={**params, "bulk_size": 50}
        )
    assert noise.sessions("posts", "bulk", "8.19.7", params=same)[0] == []  # another version: refused as before
    elsewhere = {**machine.describe(), "cores": 64}
    assert noise.sessions("posts", "bulk", "7.17.29", here=elsewhere, params=same)[0] == []  # another host


def test_how_two_works_differ_is_said_key_by_key():
    from ingestlab.verdicts import noise

    cal = {"params": {"bulk_size": 1000, "index_name": "calibration", "eventdata_docs": 20000}}
    assert noise.other_work(cal, {"bulk_size": "1000", "eventdata_docs": "20000"}) is None
    assert noise.other_work(cal, {"bulk_size": 10}) == (
        "bulk_size=1000, eventdata_docs=20000",
        "bulk_size=10, eventdata_docs not given (the track's default)",
    )


def test_sides_on_nodes_with_different_extra_jvm_options_are_named_in_one_note():
    from ingestlab.cli.verdict_cmd import _java_options_notes

    def raced(options: str | None, read: bool = True) -> dict:  # read: the pack read the nodes (tagged with their count)
        return {"user-tags": {**({"nodes": "1"} if read else {}), **({"node-java-options": options} if options else {})}}

    c1 = "-XX-TieredStopAtLevel=1"
    assert _java_options_notes([("run:a", [raced(None), raced(None)]), ("run:b", [raced(None)])]) == []
    assert _java_options_notes([("run:a", [raced(c1)]), ("run:b", [raced(c1)])]) == []
    assert _java_options_notes([("run:a", [raced(None)]), ("run:b", [raced(None, read=False)])]) == []  # plain esrally beside
    (note,) = _java_options_notes([("run:a", [raced(None), raced(None)]), ("run:b", [raced(c1)])])
    assert note == (
        "the nodes' extra JVM options (INGESTLAB_NODE_JAVA_OPTS, as the tag node-java-options keeps them) differ between "
        "the races; they are judged all the same, so a difference may be the options': run:a: none (2 races); "
        f"run:b: {c1} (1 race)"
    )
    (unknown,) = _java_options_notes([("run:a", [raced(None, read=False)]), ("run:b", [raced(c1)])])
    assert "differ between the races, or are not known;" in unknown and unknown.endswith(f"run:a: not known (1 race); run:b: {c1} (1 race)")
    (within,) = _java_options_notes([("run:a", [raced(None), raced("-Xss1m")]), ("run:a", [raced(None)])])  # one side, twice
    assert within.endswith("run:a: -Xss1m (1 race), none (1 race); run:a: none (1 race)")


def test_compare_prints_the_jvm_options_note_under_its_table(tmp_path, capsys, monkeypatch):
    """`ingestlab compare --baseline run:a --contender run:b` on stored races: the note reaches the comparison a user reads."""
    from ingestlab.cli import parser
    from ingestlab.rally.home import race_json

    monkeypatch.setenv("INGESTLAB_RESULTS", str(tmp_path / "results"))
    stored = json.loads((Path(__file__).parents[1] / "fixtures" / "posts-test-mode-race.json").read_text())
    for i, (run, options) in enumerate((("a", None), ("a", None), ("b", "-XX-TieredStopAtLevel=1"), ("b", "-XX-TieredStopAtLevel=1"))):
        tags = {**stored["user-tags"], "run": run, "nodes": "1", **({"node-java-options": options} if options else {})}
        doc = {**stored, "race-id": f"race-{i}", "race-timestamp": f"20261122T05{i:02d}00Z", "user-tags": tags}
        race_json(doc["race-id"], tmp_path).parent.mkdir(parents=True)
        race_json(doc["race-id"], tmp_path).write_text(json.dumps(doc))
    args = parser().parse_args(["compare", "--baseline", "run:a", "--contender", "run:b", "--test-mode", "--rally-home", str(tmp_path)])
    assert args.func(args) == 0
    assert "run:a: none (2 races); run:b: -XX-TieredStopAtLevel=1 (2 races)" in capsys.readouterr().out
