"""The ledger (:mod:`devtools.ledger`) and its command: ``list`` shows a line a run, ``add`` records a figure measured
outside the pack, and two runs that end the same second keep an entry each."""

import json

import pytest

from devtools import ledger
from devtools.ledger import __main__ as command

INFO = {"cpu": "test", "cores": 2}


@pytest.fixture
def where(tmp_path, monkeypatch):
    monkeypatch.setenv("INGESTLAB_LEDGER", str(tmp_path / "ledger"))
    return tmp_path / "ledger"


def test_two_runs_that_end_the_same_second_keep_an_entry_each(tmp_path):
    figures = {"found": ledger.Figure(value=1.0, unit="%", label="found")}
    first = ledger.record(
        "2026-11-28T233722-changepoints", "bench changepoints", "a", figures, where=tmp_path, date="2026-11-28T23:37:22Z", info=INFO
    )
    second = ledger.record(
        "2026-11-28T233722-changepoints", "bench changepoints", "b", figures, where=tmp_path, date="2026-11-28T23:37:22Z", info=INFO
    )
    again = ledger.record(
        "2026-11-28T233722-changepoints", "bench changepoints", "a", figures, where=tmp_path, date="2026-11-28T23:37:22Z", info=INFO
    )
    assert first != second and again == first and len(list(tmp_path.iterdir())) == 2
    assert '"run": "2026-11-28T233722-changepoints-2"' in second.read_text() and '"command": "b"' in second.read_text()


def test_add_records_a_figure_measured_outside_the_pack_and_list_shows_it(where, monkeypatch, capsys):
    argv = ["add", "--run", "2026-11-27T0412-make-test", "--kind", "make test", "--command", "make test"]
    argv += ["--figure", "minutes=28.5:min:make test on a clean clone", "--figure", "tests=812", "--conditions", "a clean clone"]
    assert command.main(argv) == 0
    assert "[ingestlab] ledger entry " in capsys.readouterr().out
    [f] = where.iterdir()
    entry = ledger.Entry.from_json(json.loads(f.read_text()))
    assert (entry.run, entry.kind, entry.command, entry.conditions) == (
        "2026-11-27T0412-make-test",
        "make test",
        "make test",
        "a clean clone",
    )
    assert entry.figure("minutes") == ledger.Figure(28.5, "min", "make test on a clean clone") and entry.figure("tests").value == 812
    assert entry.source == "measured outside the pack; added with `python -m devtools.ledger add`"
    monkeypatch.setattr(ledger, "directory", lambda: where)
    assert command.main(["list"]) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith("2026-11-27T0412-make-test  ") and line.endswith("make test: minutes 28.5min, tests 812")


def test_a_malformed_figure_is_one_error_line(where, capsys):
    argv = ["add", "--run", "r", "--kind", "k", "--command", "c", "--figure", "minutes:28"]
    assert command.main(argv) == 2
    assert capsys.readouterr().err.startswith("devtools.ledger: error: --figure 'minutes:28': expected NAME=VALUE[:UNIT[:LABEL]]")
    assert not where.exists()
