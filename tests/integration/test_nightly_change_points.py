"""Change points in the nightly history, found by Apache Otava in its own environment: a synthetic history with known
steps shows each step where it is, in its direction, new only the night it first appears; noise alone shows none."""

import random
import sqlite3

import pytest

from ingestlab.nightly import changepoints, history
from ingestlab.nightly.run import change_points

pytestmark = pytest.mark.integration


def nights(n):
    return [f"2026-10-{d:02d}T023000" if d <= 31 else f"2026-11-{d - 31:02d}T023000" for d in range(1, n + 1)]


def noisy(level, n, rng, cv=0.04):
    return [level * (1 + rng.gauss(0, cv)) for _ in range(n)]


def test_known_steps_are_found_where_they_are_and_noise_shows_none():
    rng = random.Random(7)
    series = {
        "drop": noisy(50_000, 20, rng) + noisy(40_000, 15, rng),  # a 20 % regression at night 20
        "rise": noisy(800, 18, rng) + noisy(1_000, 12, rng),  # a 25 % improvement at night 18
        "two": noisy(100, 15, rng) + noisy(80, 15, rng) + noisy(100, 15, rng),
        "noise": noisy(30_000, 45, rng, cv=0.06),
    }
    found = changepoints.detect(series)
    assert [(p.index, p.regression) for p in found["drop"]] == [(20, True)] and abs(found["drop"][0].change + 0.2) < 0.05
    assert [(p.index, p.regression) for p in found["rise"]] == [(18, False)]
    assert [p.index for p in found["two"]] == [15, 30]
    assert found["noise"] == []


def test_a_change_point_is_new_only_the_night_it_first_appears(tmp_path):
    db = history.open_history(tmp_path / "history.sqlite")
    rng = random.Random(3)
    values = noisy(50_000, 20, rng) + noisy(40_000, 10, rng)
    dates = nights(len(values))
    series = {"index-append": list(zip(dates, values))}
    points, new = change_points(db, "default", "eventdata", series, dates[-1], print)
    assert [(s["task"], s["night"]) for s in new] == [("index-append", dates[20])] and new[0]["change"] < 0
    assert points["index-append"][0][0] == dates[20]
    again = {"index-append": list(zip(dates + ["2026-11-05T023000"], values + [40_500.0]))}
    _, new_again = change_points(db, "default", "eventdata", again, "2026-11-05T023000", print)
    assert new_again == []  # seen before: not new tonight
    assert isinstance(db, sqlite3.Connection)
