"""``python -m devtools.ledger record KIND ID`` (:mod:`devtools.ledger.runs`): a command's run as a ledger entry, made
from what the command stored (a race in Rally's store, a results file), with the kind, run id, figures, conditions,
versions and source the command itself recorded before the ledger left the pack; refused in one line where it did not
record one."""

import json

import pytest

from devtools import ledger
from devtools.ledger import __main__ as command
from devtools.ledger import runs
from ingestlab import paths
from ingestlab.errors import IngestlabError
from ingestlab.rally import home as rally_paths
from ingestlab.studies import corpora_hardware, wikipedia_hosts
from ingestlab.verdicts.noise import calibration_dir
from tests.unit.studies.races import race as fixture_race

CALIBRATION = {
    "stamp": "2026-11-27T054349",
    "task": "bulk-1000",
    "command": "ingestlab calibrate --races 12 --track posts",
    "conditions": "12 identical races kept on a warm node",
    "tasks": {"bulk-1000": {"sigma": 0.0312345, "races": 12}},
    "rates": {"1": {"false_alarms": [1, 6], "detect_10": [6, 6], "pairs": {"false_alarms": [0, 3]}}, "3": {"false_alarms": [0, 0]}},
    "races_a_side": {"10": {"with_floor": 2, "welch": None}},
    "machine": {"cpu": "test", "cores": 2},
    "versions": {"engine": "elasticsearch", "version": "7.17.29", "rally": "2.13.0"},
    "medians": [1.0] * 12,
}
SEARCH = {
    "stamp": "20261128T014039",
    "command": "ingestlab redline posts --latency 'p99<=200ms'",
    "track": "posts",
    "challenge": "redline",
    "task": "redline-bulk",
    "bulk_size": 1000,
    "latency_target": {"percentile": "99", "ms": 200.0},
    "resolution": 0.05,
    "probes_per_step": 3,
    "engine": "opensearch",
    "es_version": "2.19.0",
    "rally_version": None,
    "full_speed": {"rate": 67911.61, "clients": 8, "races": ["a", "b"], "emulation": [None, None]},
    "rate": 44035.23,
    "failed_above": 45984.91,
    "stopped": "44,035 docs/s offered met the target",
    "probes": [
        {"rate": 44035.23, "latency_ms": {"p99": 195.81}, "throughput": 44008.9},
        {"rate": 44035.23, "latency_ms": {"p99": 190.0}, "throughput": 44000.0},
        {"rate": 45984.91, "latency_ms": {"p99": 300.0}, "throughput": 45000.0},
    ],
    "seconds": 975.5,
}


@pytest.fixture
def home(tmp_path, monkeypatch):
    """Results, Rally's store and the ledger in a temporary directory."""
    monkeypatch.setenv("INGESTLAB_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("INGESTLAB_RESULTS", str(tmp_path / "results"))
    monkeypatch.setenv("INGESTLAB_LEDGER", str(tmp_path / "ledger"))
    monkeypatch.setenv("RALLY_HOME", str(tmp_path / "user"))
    return tmp_path


def _write(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def _entry(path) -> ledger.Entry:
    return ledger.Entry.from_json(json.loads(path.read_text()))


def test_a_calibration_is_recorded_from_its_calibration_file(home, capsys):
    _write(calibration_dir() / CALIBRATION["stamp"] / "results.json", CALIBRATION)
    assert command.main(["record", "calibrate", CALIBRATION["stamp"]]) == 0
    [f] = (home / "ledger").iterdir()
    assert f.name == "2026-11-27-calibrate-2026-11-27T054349.json" and str(f) in capsys.readouterr().out
    entry = _entry(f)
    assert (entry.run, entry.kind, entry.command, entry.date) == (
        CALIBRATION["stamp"],
        "calibrate",
        CALIBRATION["command"],
        "2026-11-27T05:43:49Z",
    )
    assert entry.machine == CALIBRATION["machine"] and entry.versions == CALIBRATION["versions"]
    assert entry.source == "results/calibration/2026-11-27T054349/results.json" and entry.conditions == CALIBRATION["conditions"]
    assert entry.figure("sigma") == ledger.Figure(3.12, "%", "σ of log race medians, bulk-1000")
    assert entry.figure("1-false_alarms") == ledger.Figure(16.7, "%", "1 race(s) a side: false alarms 1/6")
    assert entry.figure("1-false_alarms-of") == ledger.Figure(6, "comparisons", "1 race(s) a side: false alarms: disjoint comparisons")
    assert entry.figure("1-pairs-false_alarms-count").label == "1 race(s) a side, in pairs of consecutive races (ab): false alarms: called"
    assert entry.figure("3-false_alarms").value is None and entry.figure("3-false_alarms-low").value is None
    assert entry.figure("races-for-10-welch").value is None and entry.figure("races") == ledger.Figure(12, "races", "races kept")


def test_a_redline_search_over_the_rate_is_recorded_from_its_redline_json(home):
    _write(paths.results_dir() / "redline" / SEARCH["stamp"] / "redline.json", SEARCH)
    entry = _entry(runs.record("redline", SEARCH["stamp"]))
    assert (entry.run, entry.kind, entry.command) == ("20261128T014039-redline", "redline", SEARCH["command"])
    assert entry.versions == {"engine": "opensearch", "version": "2.19.0", "rally": None}
    assert entry.conditions == (
        "track posts, challenge redline, task redline-bulk, bulk size 1000, 8 client(s) at full speed, resolution 5%, "
        "3 probes a step; stopped: 44,035 docs/s offered met the target"
    )
    assert entry.source == "results/redline/20261128T014039/redline.json" and entry.date == "2026-11-28T01:40:39Z"
    assert list(entry.figures) == [
        "sustainable",
        "failed-above",
        "full-speed",
        "probes",
        "duration",
        "target-ms",
        "latency-at-sustainable",
        "achieved-at-sustainable",
    ]
    assert entry.figure("sustainable") == ledger.Figure(44035.2, "docs/s", "highest offered rate whose 2 probes all met p99 <= 200 ms")
    assert entry.figure("latency-at-sustainable").value == 195.8 and entry.figure("achieved-at-sustainable").value == 44004.4


def test_a_search_over_clients_is_a_redline_over_with_the_usl_peak(home):
    over = {**SEARCH, "stamp": "20261129T000000", "over": "clients", "rate": 6, "failed_above": 8, "rally_version": "2.13.0"}
    over["probes"] = [{"rate": 6, "latency_ms": {}, "throughput": 5000.0}, {"rate": 8, "latency_ms": {}, "throughput": 5200.0}]
    over["usl"] = {"fitted": True, "peak": 7.345}
    _write(paths.results_dir() / "redline" / over["stamp"] / "redline.json", over)
    entry = _entry(runs.record("redline", over["stamp"]))
    assert (entry.run, entry.kind) == ("20261129T000000-redline-clients", "redline-over")
    assert entry.versions["rally"] == "2.13.0" and ", over clients at full speed, resolution 5%" in entry.conditions
    assert entry.figure("highest") == ledger.Figure(6, "clients", "highest clients whose 1 probes all met p99 <= 200 ms at full speed")
    assert entry.figure("usl-peak").value == 7.3 and entry.figure("throughput-at-highest").value == 5000.0


def test_on_emulated_hosts_a_search_records_how_often_the_emulation_held():
    result = {"probes": [{"emulation": True}, {"emulation": False}], "full_speed": {"emulation": [True, True]}}
    assert runs.emulation_figures(result)["emulation-held"] == ledger.Figure(
        3, "races", "probes and full-speed races the emulation held in, of 4"
    )
    assert runs.emulation_figures({"probes": [{"emulation": None}], "full_speed": {"emulation": [None]}}) == {}


def test_a_run_stored_before_it_kept_its_command_needs_one_given(home):
    _write(paths.results_dir() / "redline" / SEARCH["stamp"] / "redline.json", {**SEARCH, "command": ""})
    with pytest.raises(IngestlabError, match="redline.json keeps no command line .*: give it with --command"):
        runs.record("redline", SEARCH["stamp"])
    assert _entry(runs.record("redline", SEARCH["stamp"], "ingestlab redline posts")).command == "ingestlab redline posts"


def _store_race(home, test_mode: bool):
    doc = fixture_race("posts")
    doc["user-tags"] = {"study": "posts", **({"test-mode": True} if test_mode else {})}
    _write(rally_paths.race_json(doc["race-id"]), doc)
    _write(paths.results_dir() / "posts" / doc["race-id"] / "results.json", {"command": "ingestlab race posts", "machine": {"cpu": "x"}})
    return doc


def test_a_study_race_is_recorded_with_its_studys_headlines(home):
    doc = _store_race(home, test_mode=False)
    entry = _entry(runs.record("study", doc["race-id"]))
    assert (entry.run, entry.kind, entry.command, entry.machine) == (doc["race-id"], "posts study", "ingestlab race posts", {"cpu": "x"})
    assert entry.versions == {"engine": "elasticsearch", "version": "7.17.29", "rally": "2.13.0"}
    assert entry.conditions == "challenge bulk-size-sweep; posts_docs=10000, repetitions=10"
    assert entry.source == f"report results/posts/{doc['race-id']}/results.json" and entry.date == "2026-11-22T05:20:52Z"
    assert set(entry.figures) == {"bulk1000-over-single", "fitted-request", "fitted-document"}
    assert entry.figure("bulk1000-over-single").unit == "×" and entry.figure("bulk1000-over-single").published == pytest.approx(24.29, 0.01)


def test_a_test_mode_race_is_refused_in_one_line(home, capsys):
    doc = _store_race(home, test_mode=True)
    assert command.main(["record", "study", doc["race-id"]]) == 2
    err = capsys.readouterr().err
    assert (
        err == f"devtools.ledger: error: race {doc['race-id']} ran in test mode: its figures measure nothing, and the ledger keeps none\n"
    )
    assert not (home / "ledger").exists()


def test_an_emulated_study_is_refused_unless_the_emulation_held_in_every_race(home, monkeypatch):
    run = wikipedia_hosts.Run(verdicts={1: (True, []), 2: (False, ["a starved driver"]), 4: (None, [])})
    monkeypatch.setattr(wikipedia_hosts, "stored", lambda stamp: run)
    with pytest.raises(IngestlabError, match=r"scale-out run S: the emulation held in 1 of 3 races, not in every one"):
        runs.record("wikipedia-hosts", "S")
    five = corpora_hardware.Run({}, [], verdicts=[("pmc", "1 node", True, [], "r")], test_mode=True)
    monkeypatch.setattr(corpora_hardware, "stored", lambda stamp: five)
    with pytest.raises(IngestlabError, match="corpora --emulated run S ran in test mode"):
        runs.record("corpora-hardware", "S")


def test_a_run_in_the_ledger_already_is_refused_unless_replaced_and_a_dose_calibration_is_its_benchs(home, capsys):
    _write(calibration_dir() / CALIBRATION["stamp"] / "results.json", CALIBRATION)
    assert command.main(["record", "calibrate", CALIBRATION["stamp"]]) == 0
    assert command.main(["record", "calibrate", CALIBRATION["stamp"]]) == 2
    assert "is in the ledger already" in capsys.readouterr().err
    assert command.main(["record", "calibrate", CALIBRATION["stamp"], "--replace"]) == 0 and len(list((home / "ledger").iterdir())) == 1
    _write(calibration_dir() / "2026-11-28T010252" / "results.json", {**CALIBRATION, "stamp": "2026-11-28T010252", "dose": {}})
    with pytest.raises(IngestlabError, match="dose bench's"):
        runs.record("calibrate", "2026-11-28T010252")


def test_a_report_written_again_keeps_the_command_and_no_command_keeps_client_options(tmp_path, monkeypatch):
    from ingestlab.report import writer

    writer.write(tmp_path, "t", "x", [], {"command": "ingestlab race posts"})
    writer.write(tmp_path, "t", "y", [], {"command": None, "figure": 1})
    assert json.loads((tmp_path / "results.json").read_text()) == {"command": "ingestlab race posts", "figure": 1}
    monkeypatch.setattr("sys.argv", ["ingestlab", "race", "posts", "--client-options", "basic_auth_password:'s3cret'"])
    assert writer.command_line() == "ingestlab race posts"


def test_nothing_installed_imports_the_developers_tools():
    """The installed packages (ingestlab/, runners/) never import devtools: it is not installed with them."""
    import ast

    for f in [*paths.REPO_ROOT.joinpath("ingestlab").rglob("*.py"), *paths.REPO_ROOT.joinpath("runners").rglob("*.py")]:
        for node in ast.walk(ast.parse(f.read_text())):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            assert not [n for n in names if n.split(".")[0] == "devtools"], f
