"""``ingestlab ab`` races its sides in pairs, each pair in a random order; compare analyses them as raced (issue 62,
item 6): each pair's log ratio (a paired t test), and the primary task the races were planned for at the plain level,
the other tasks corrected among themselves. Made-up races, and the real posts race fixture tagged as ab tags its races."""

import json
import math
import random
from pathlib import Path

from ingestlab import compare
from ingestlab.report import comparison
from ingestlab.verdicts import judge, stats

FIXTURE = Path(__file__).parents[2] / "fixtures" / "posts-test-mode-race.json"


def paired_sides(rng: random.Random, pairs: int, change: float, sigma: float, drift: float) -> tuple[judge.Side, judge.Side]:
    """``pairs`` pairs whose level wanders from pair to pair (σ ``drift``: the session's drift, shared by the two races of
    a pair), each race with its own noise σ ``sigma``."""
    base, cont = [], []
    for _ in range(pairs):
        level = rng.gauss(0, drift)
        base.append(10_000 * math.exp(level + rng.gauss(0, sigma)))
        cont.append(10_000 * math.exp(level + math.log1p(change) + rng.gauss(0, sigma)))
    labels = tuple(str(i) for i in range(1, pairs + 1))
    return judge.Side(tuple(base), pairs=labels), judge.Side(tuple(cont), pairs=labels)


def test_pairs_that_share_the_sessions_drift_find_what_unpaired_sides_cannot():
    rng, paired_calls, unpaired_calls = random.Random(1), 0, 0
    for _ in range(300):
        base, cont = paired_sides(rng, 5, 0.10, sigma=0.03, drift=0.15)
        v = judge.judge({"bulk": (base, cont)})[0]
        assert "5 pairs" in v.basis and "paired t test" in v.basis
        paired_calls += v.call == "faster"
        unpaired = judge.judge({"bulk": (judge.Side(base.values), judge.Side(cont.values))})[0]
        unpaired_calls += unpaired.call == "faster"
    assert paired_calls >= 0.8 * 300 and unpaired_calls < 0.5 * 300


def test_identical_pairs_are_rarely_called_different():
    rng = random.Random(2)
    calls = sum(
        judge.judge({"bulk": paired_sides(rng, 5, 0.0, sigma=0.03, drift=0.15)})[0].call in ("faster", "slower") for _ in range(1000)
    )
    assert stats.clopper_pearson(calls, 1000, 0.98)[0] <= 0.05  # the false-call rate is not above 5 %


def test_a_pair_that_lost_a_race_is_named_and_left_out():
    base = judge.Side((100.0, 101.0, 99.0, 100.5), pairs=("1", "2", "3", "4"))
    cont = judge.Side((110.0, 111.0, 108.0), pairs=("1", "2", "4"))
    v = judge.judge({"bulk": (base, cont)})[0]
    assert "3 pairs" in v.basis and "pair 3 lost a race (left out): not in the paired test" in v.trend


def test_the_primary_task_is_judged_at_the_plain_level_and_the_others_among_themselves():
    base = judge.Side((100.0, 102.0, 98.0, 101.0, 99.0), pairs=("1", "2", "3", "4", "5"))
    found = judge.Side((103.0, 103.0, 100.0, 104.0, 99.0), pairs=base.pairs)  # paired p ≈ 0.03
    p = stats.paired(base.values, found.values).p
    tasks = {"primary": (base, found), **{f"other-{i}": (base, found) for i in range(30)}}
    by_task = {v.task: v for v in judge.judge(tasks, primary="primary")}
    assert 0.05 / 31 < p < 0.05  # Holm over every task would not call it; alone it is called
    assert by_task["primary"].call == "faster" and "the primary task (named before the races), alone" in by_task["primary"].basis
    assert by_task["other-0"].call == "within noise" and "Holm over 30 other tasks" in by_task["other-0"].basis
    assert judge.judge(tasks)[0].call == "within noise"  # no primary named: Holm over all 31


def test_compare_reads_the_pairs_and_the_primary_task_from_abs_tags():
    def race(pair: str, scale: float, minute: int) -> dict:
        r = json.loads(FIXTURE.read_text())
        r["user-tags"].update({"ab-pair": pair, "ab-task": "bulk-1000", "test-mode": False})
        r["race-timestamp"] = f"20261202T10{minute:02d}00Z"
        for op in r["results"]["op_metrics"]:
            for k in ("min", "median", "max", "mean"):
                op["throughput"][k] *= scale
        return r

    drift = [1.0, 0.7, 1.3, 0.9]  # the machine's level, pair by pair
    base = compare.aggregate([race(str(i + 1), d, 2 * i) for i, d in enumerate(drift)])
    cont = compare.aggregate([race(str(i + 1), d * (1.05 + 0.002 * i), 2 * i + 1) for i, d in enumerate(drift)])
    assert base["bulk-1000"].pairs == ("1", "2", "3", "4") and base["bulk-1000"].primary
    assert not base["bulk-10"].primary
    rows = {d.task: d for d in compare.compare(base, cont)}
    assert rows["bulk-1000"].verdict == "faster" and "4 pairs" in rows["bulk-1000"].basis
    assert "primary task" in rows["bulk-1000"].basis and "other tasks" in rows["bulk-10"].basis
    for said in (
        comparison.render("markdown", "a", base, [("b", cont)]),
        json.loads(comparison.render("json", "a", base, [("b", cont)]))["footnote"],
    ):
        assert "is judged at 5 % alone and the other tasks Holm among themselves" in said  # the family split, in both formats


def test_pairs_not_yet_told_apart_say_how_many_pairs_the_paired_test_would_need():
    base = judge.Side((100.0, 102.0, 98.0, 101.0), pairs=("1", "2", "3", "4"))
    cont = judge.Side((101.0, 102.5, 98.4, 100.6), pairs=base.pairs)
    v = judge.judge({"bulk": (base, cont)})[0]
    w = stats.paired(base.values, cont.values)
    sigma = w.se * math.sqrt(4 / 2)
    assert v.call == "within noise" and v.needs == stats.races_needed(v.change, sigma, paired=True)
