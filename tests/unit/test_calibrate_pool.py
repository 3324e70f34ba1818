"""calibrate --pool: an earlier calibration's kept races join the pool, its warm-up series one per node process, and a
race of another setup is refused in one line naming it (race.json files in a Rally home, as Rally writes them)."""

import json

import pytest

from ingestlab import calibrate
from ingestlab.errors import IngestlabError
from ingestlab.rally import home as rally_paths
from ingestlab.verdicts import calibration
from tests.unit.test_compare import race as posts_race

SETUP = {"track": "posts", "challenge": "bulk", "task": "bulk-1000", "params": {"bulk_size": 1000}}


def _store(home, n, kind, stamp, minute, params=None, scale=1.0):
    r = posts_race(scale)
    r.update(
        {
            "race-id": f"{stamp}-{n}",
            "race-timestamp": f"20261127T04{minute:02d}00Z",
            "track": "posts",
            "challenge": "bulk",
            "track-params": params if params is not None else {"bulk_size": "1000"},
        }
    )
    r["user-tags"].update({"calibration": stamp, "kind": kind})
    f = rally_paths.race_json(r["race-id"], home)
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_text(json.dumps(r))


def test_kept_races_join_and_each_node_process_keeps_its_warm_up(tmp_path):
    kinds = ["warm-up", "warm-up", "kept", "kept", "kept", "warm-up", "kept", "warm-up", "warm-up"]  # two node processes, as calibrate
    # races them, and a third that never settled (no race kept after its warm-up)
    for n, kind in enumerate(kinds):
        _store(tmp_path, n, kind, "S1", n, scale=1 + n / 10)
    _store(tmp_path, 0, "kept", "S2", 30)  # another calibration: not asked for
    kept, warmups = calibrate.pooled(["S1"], SETUP, tmp_path)
    assert [r["race-id"] for r in kept] == ["S1-2", "S1-3", "S1-4", "S1-6"]
    assert [len(w) for w in warmups] == [2, 1]


def test_a_race_of_another_setup_or_no_race_at_all_is_refused_in_one_line(tmp_path):
    _store(tmp_path, 0, "kept", "S1", 0, params={"bulk_size": 50})
    with pytest.raises(IngestlabError, match=r"--pool S1: race S1-0 ran posts / bulk with \{'bulk_size': 50\}"):
        calibrate.pooled(["S1"], SETUP, tmp_path)
    with pytest.raises(IngestlabError, match="--pool S9: no kept race of that calibration"):
        calibrate.pooled(["S9"], SETUP, tmp_path)


def test_races_0_judges_the_pooled_races_again_and_starts_no_node(tmp_path, monkeypatch):
    kinds = ["warm-up"] + ["kept"] * 12
    for n, kind in enumerate(kinds):
        _store(tmp_path, n, kind, "S1", n, scale=1 + (n % 3) / 20)
    monkeypatch.setenv("INGESTLAB_RESULTS", str(tmp_path / "results"))
    stored = calibrate.pooled
    monkeypatch.setattr(calibrate, "pooled", lambda stamps, setup: stored(stamps, setup, tmp_path))
    monkeypatch.setattr(calibrate, "_node", lambda *a, **k: pytest.fail("--races 0 started a node"))
    data = calibrate.run(races=0, setup=SETUP, pool_from=["S1"], log=lambda *_: None)
    assert len(data["medians"]) == 12 and data["rates"]["1"]["false_alarms"][1] == 6
    assert "no race run" in data["conditions"] and "12 of the races kept by calibration(s) S1" in data["conditions"]
    assert data["command"].startswith("ingestlab calibrate --races 0 --track posts ") and "--pool S1" in data["command"]
    assert "--agree" not in data["command"] and "--node-processes" not in data["command"]


def test_a_node_process_that_does_not_settle_names_how_to_judge_the_races_kept_before_it(tmp_path, monkeypatch):
    from contextlib import contextmanager

    @contextmanager
    def node(*_):
        yield object(), "placement"

    figures = iter([100.0, 100.0, 100.0] + [100.0, 100.0] + [100.0, 150.0, 100.0, 150.0])  # warm, 2 kept, then no settling
    monkeypatch.setattr(calibrate, "_node", node)
    monkeypatch.setattr(calibrate, "_race", lambda target, setup, stamp, kind: {"race-id": kind, "race-timestamp": "t"})
    monkeypatch.setattr(calibrate, "_figure", lambda race, task: next(figures))
    monkeypatch.setattr(calibrate, "pooled", lambda stamps, setup: ([], []))
    with pytest.raises(
        IngestlabError,
        match=r"did not settle.*The 2 races kept before it are stored: `ingestlab calibrate --races 0 "
        r"--track posts --challenge bulk --task bulk-1000 --pool \S+` judges them",
    ):
        calibrate.run(races=4, agree=3, tolerance=0.05, most_warmup=4, setup=SETUP, processes=2, log=lambda *_: None)


def _floor_file(results, stamp, medians, task="bulk-1000", **more):
    from ingestlab import machine

    f = results / "calibration" / stamp / "results.json"
    f.parent.mkdir(parents=True)
    f.write_text(
        json.dumps(
            {
                "format": 2,
                "stamp": stamp,
                "track": "posts",
                "challenge": "bulk",
                "task": task,
                "tasks": {task: {"sigma": calibration.sigma(medians) or 0.01, "races": len(medians)}},
                "machine": machine.describe(),
                "versions": {"engine": "elasticsearch", "version": "7.17.29"},
                "medians": medians,
                "params": SETUP["params"],  # the work it measured (a floor of other work is refused)
                **more,
            }
        )
    )


def test_two_floors_judge_against_the_floor_spanning_their_sessions(tmp_path, monkeypatch):
    from ingestlab.verdicts import stats

    for n, kind in enumerate(["warm-up"] + ["kept"] * 12):
        _store(tmp_path, n, kind, "S1", n, scale=1 + (n % 3) / 20)
    monkeypatch.setenv("INGESTLAB_RESULTS", str(tmp_path / "results"))
    stored = calibrate.pooled
    monkeypatch.setattr(calibrate, "pooled", lambda stamps, setup: stored(stamps, setup, tmp_path))
    quiet, noisy = [1000 * (1 + (i % 5) / 100) for i in range(40)], [1000 * (1 + (i % 5) / 25) for i in range(40)]
    _floor_file(tmp_path / "results", "F1", quiet)
    _floor_file(tmp_path / "results", "F2", noisy)
    data = calibrate.run(races=0, setup=SETUP, pool_from=["S1"], floor_of=["F1", "F2"], log=lambda *_: None)
    assert data["floor_of"] == ["F1", "F2"] and data["command"].endswith("--floor-of F1 --floor-of F2")
    assert data["floor_sigma"] == stats.session_bound([calibration.sigma(noisy), calibration.sigma(quiet)])
    assert "calibrations F2, F1 (this machine: 2 sessions, 80 races" in data["conditions"]
    assert data["rates"]["1"]["false_alarms"][0] == 0  # a floor that wide calls none of S1's pairs 10 % apart at most


def test_a_calibration_that_raced_nothing_of_its_own_is_no_floor(tmp_path, monkeypatch):
    monkeypatch.setenv("INGESTLAB_RESULTS", str(tmp_path / "results"))
    _floor_file(tmp_path / "results", "J", [1000.0, 1010.0, 990.0, 1005.0], pooled={"stamps": ["F"], "races": 4})
    with pytest.raises(
        IngestlabError,
        match=r"--floor-of J: it raced 0 races of bulk-1000 of its own \(it judged earlier "
        r"calibrations' races again: give theirs\)",
    ):
        calibrate.run(races=0, setup=SETUP, pool_from=["S1"], floor_of=["J"], log=lambda *_: None)


def test_floor_of_judges_the_small_comparisons_against_an_earlier_calibrations_races(tmp_path, monkeypatch):
    for n, kind in enumerate(["warm-up"] + ["kept"] * 12):
        _store(tmp_path, n, kind, "S1", n, scale=1 + (n % 3) / 20)  # spread 10 %: its own races call no pair
    monkeypatch.setenv("INGESTLAB_RESULTS", str(tmp_path / "results"))
    stored = calibrate.pooled
    monkeypatch.setattr(calibrate, "pooled", lambda stamps, setup: stored(stamps, setup, tmp_path))
    _floor_file(tmp_path / "results", "F", [1000 * (1 + i / 10000) for i in range(40)])  # an earlier session 0.4 % apart at most
    own = calibrate.run(races=0, setup=SETUP, pool_from=["S1"], log=lambda *_: None)
    assert own["rates"]["1"]["false_alarms"][0] == 0
    data = calibrate.run(races=0, setup=SETUP, pool_from=["S1"], floor_of=["F"], log=lambda *_: None)
    m = data["medians"]
    differ = sum(m[a[0]] != m[b[0]] for a, b in calibration.splits(12, 1))
    assert differ and data["rates"]["1"]["false_alarms"] == [differ, 6]  # judged against F: every pair that differs is called
    assert data["rates"]["3"] == own["rates"]["3"]  # 3 a side: Welch, no floor
    assert data["floor_of"] == ["F"] and "against the noise floor of calibration F (this machine: 40 races" in data["conditions"]
    assert data["command"].endswith("--pool S1 --floor-of F")


def test_floor_of_another_setup_or_of_the_pool_itself_is_refused_in_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("INGESTLAB_RESULTS", str(tmp_path / "results"))
    _floor_file(tmp_path / "results", "F", [1000.0, 1010.0, 990.0], task="bulk-50")
    with pytest.raises(IngestlabError, match="--floor-of F: not the same setup here: it calibrated task bulk-50, this one bulk-1000"):
        calibrate.run(races=0, setup=SETUP, pool_from=["S1"], floor_of=["F"], log=lambda *_: None)
    with pytest.raises(IngestlabError, match="--floor-of G: no calibration file"):
        calibrate.run(races=0, setup=SETUP, pool_from=["S1"], floor_of=["G"], log=lambda *_: None)
    with pytest.raises(IngestlabError, match="--floor-of S1 and --pool S1: a floor judges races it did not race"):
        calibrate.run(races=0, setup=SETUP, pool_from=["S1"], floor_of=["F", "S1"], log=lambda *_: None)
