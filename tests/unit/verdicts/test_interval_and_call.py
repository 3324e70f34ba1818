"""A comparison of several tasks is corrected across them (Holm); each row's interval is at the level Holm judged its
task at, so that it excludes no change exactly where the row calls one (issue 62, item 5). Made-up races, log-normal."""

import math
import random
import statistics

from ingestlab.verdicts import judge, stats
from ingestlab.verdicts.noise import Floor


def side(rng: random.Random, n: int, sigma: float, shift: float = 0.0, start: int = 0, gap: int = 1) -> judge.Side:
    values = tuple(10_000 * math.exp(shift + rng.gauss(0, sigma)) for _ in range(n))
    return judge.Side(values, tuple(f"20261202T10{start + gap * i:02d}00Z" for i in range(n)))


def excludes_no_change(v: judge.Verdict) -> bool:
    return v.low is not None and (v.low > 0 or v.high < 0)


def test_holm_levels_are_each_tests_step_and_the_stopping_step_after_it():
    assert stats.holm_levels([0.001, 0.02, 0.04, None]) == [0.05 / 3, 0.05 / 2, 0.05, None]
    assert stats.holm_levels([0.001, 0.03, 0.04]) == [0.05 / 3, 0.05 / 2, 0.05 / 2]  # 0.03 > 0.025: stops there
    assert stats.holm_levels([0.03, 0.04]) == [0.05 / 2, 0.05 / 2]  # the first step fails: every test at it
    assert stats.holm_levels([0.2]) == [0.05]
    assert stats.holm_levels([]) == []


def test_interleaved_tasks_interval_agrees_with_the_call_in_every_row():
    rng, rows, between = random.Random(7), 0, 0
    for _ in range(400):
        tasks = {}
        for t in range(4):
            shift = rng.choice((0.0, 0.02, 0.04, 0.08))
            base, cont = side(rng, 5, 0.03, start=0, gap=2), side(rng, 5, 0.03, shift, start=1, gap=2)
            tasks[f"task-{t}"] = (base, cont)
        for v in judge.judge(tasks):
            rows += 1
            assert excludes_no_change(v) == (v.call in ("faster", "slower")), v
            assert "Holm over 4 tasks" in v.basis and "Holm judged this task at" in v.basis
            # a row whose unadjusted 95 % interval excludes no change but whose call is "within noise": the kind this
            # fixes; there must be some among these comparisons for the test to mean anything
            w = stats.welch(tasks[v.task][0].values, tasks[v.task][1].values)
            between += v.call == "within noise" and (w.low > 0 or w.high < 0)
    assert rows == 1600 and between > 20


def test_one_task_keeps_the_plain_95_percent_interval():
    rng = random.Random(3)
    base, cont = side(rng, 5, 0.03, start=0, gap=2), side(rng, 5, 0.03, 0.05, start=1, gap=2)
    v = judge.judge({"bulk": (base, cont)})[0]
    w = stats.welch(base.values, cont.values)
    assert (v.low, v.high) == (w.low, w.high) and "one task" in v.basis


def test_against_a_floor_the_interval_agrees_with_the_call_too():
    rng = random.Random(11)
    floor = Floor(sigma=0.03, df=40, source="calibration X")
    for _ in range(200):
        tasks = {
            f"t{t}": (side(rng, 1, 0.03, start=0, gap=2), side(rng, 1, 0.03, rng.choice((0.0, 0.05, 0.1)), start=1, gap=2))
            for t in range(3)
        }
        for v in judge.judge(tasks, {t: floor for t in tasks}):
            assert excludes_no_change(v) == (v.call in ("faster", "slower")), v


def test_a_step_between_blocks_among_several_tasks_shows_its_interval_at_its_level():
    rng, seen = random.Random(5), 0
    for _ in range(200):
        tasks = {}
        for t in range(3):
            drift = [math.log1p(0.3) * i / 9 for i in range(10)]  # a steep drift across both blocks
            step = rng.choice((0.0, 0.3))
            values = [10_000 * math.exp(d + rng.gauss(0, 0.01) + (math.log1p(step) if i >= 5 else 0)) for i, d in enumerate(drift)]
            times = [f"20261202T10{i:02d}00Z" for i in range(10)]
            tasks[f"t{t}"] = (judge.Side(tuple(values[:5]), tuple(times[:5])), judge.Side(tuple(values[5:]), tuple(times[5:])))
        for v in judge.judge(tasks):
            if "the step beyond a linear drift" not in v.basis:
                continue
            seen += 1
            low, high = (float(x.rstrip("%")) for x in v.basis.split("interval ")[1].split(")")[0].split(" to "))
            assert (low > 0 or high < 0) == (v.call in ("faster", "slower")), v
    assert seen > 50


def test_against_a_skewed_pool_of_differences_the_interval_inverts_the_same_test():
    """Sides of one or two races judged against a calibration's own races (a slow race now and then): the interval is the
    same test inverted, so it agrees with p at every level, also where Holm corrects across tasks."""
    rng = random.Random(13)
    pool = tuple(math.log(10_000) + (rng.gauss(0, 0.03) if rng.random() > 0.15 else -0.3 + rng.gauss(0, 0.05)) for _ in range(24))
    for n_a, n_b in ((1, 1), (1, 2), (2, 2)):
        for _ in range(300):
            base = [math.exp(rng.choice(pool)) for _ in range(n_a)]
            cont = [math.exp(rng.choice(pool)) * rng.choice((1.0, 1.1, 0.8, 0.7)) for _ in range(n_b)]
            for level in (0.05, 0.025, 0.0125):
                pred = stats.against_pool(base, cont, pool, confidence=1 - level)
                assert (pred.p <= level) == (pred.low > 0 or pred.high < 0), (n_a, n_b, level, pred)
    floor = Floor(sigma=statistics.stdev(pool), df=23, source="calibration X", logs=pool)
    for _ in range(100):
        tasks = {f"t{t}": (judge.Side((math.exp(rng.choice(pool)),)), judge.Side((math.exp(rng.choice(pool)) * 0.75,))) for t in range(3)}
        for v in judge.judge(tasks, {t: floor for t in tasks}):
            assert excludes_no_change(v) == (v.call in ("faster", "slower")), v
