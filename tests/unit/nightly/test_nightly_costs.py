"""The nightly's cost series: each task's node CPU per document, kept beside its rate as a series of its own, listed
and drawn in the night's report, and never judged (no regression, no change point, no exit code)."""

import copy
import importlib
import json
import re
import sqlite3
from dataclasses import replace

import pytest

from ingestlab import compare, studies
from ingestlab.nightly import changepoints, history, trends
from tests.unit.studies.races import race, result

nightly_run = importlib.import_module("ingestlab.nightly.run")  # the package's ``run`` is the function

PAST = ("2000-01-01T000000", "2000-01-02T000000", "2000-01-03T000000")


def limit(**costs) -> dict:
    return {"resource": "node CPU", "evidence": "node-0 1.96 of the 2.00 cores it could use", "costs": {"documents": 10_000, **costs}}


def raced(footprint: dict, race_doc: dict | None = None):
    return replace(result("posts", race_doc), footprint=footprint)


def night(tmp_path, monkeypatch, results: list) -> tuple[int, str, dict, dict, list]:
    """One night of posts on made-up races: its exit code, report text, results.json, the series each chart drew, and
    the series handed to change-point detection."""
    monkeypatch.setenv("INGESTLAB_RESULTS", str(tmp_path / "results"))
    monkeypatch.setattr(nightly_run, "race_setup", lambda *a, **k: ({"posts": results}, {}, {}))
    detected, drawn = [], {}
    monkeypatch.setattr(changepoints, "detect", lambda values, **k: detected.extend(values) or {})
    monkeypatch.setattr(trends, "chart", lambda study, setup, series, *a: drawn.update(series) or b"")
    said = []
    code = nightly_run.run([studies.get("posts")], history_file=tmp_path / "h.sqlite", log=said.append)
    text = said[-2]
    found = re.search(r"nightly report: (\S+)/report\.html", said[-1]).group(1)
    return code, text, json.loads((tmp_path / found / "results.json").read_text()), drawn, detected


def test_a_night_whose_races_carry_costs_keeps_and_reports_each_tasks_node_cpu_per_document(tmp_path, monkeypatch):
    tasks = {"bulk-1000": {"limit": limit(node_cpu_ms_per_doc=0.05, bytes_written_per_doc=900.0)}, "index-api": {"limit": limit()}}
    code, text, _, drawn, _ = night(tmp_path, monkeypatch, [raced({"load_side": {"tasks": tasks}})])
    assert code == 0
    with sqlite3.connect(tmp_path / "h.sqlite") as db:
        kept = list(db.execute(f"SELECT setup, study, task, value FROM {history.COSTS}"))
        figures = {t for (t,) in db.execute("SELECT task FROM figures")}
    # index-api's costs lack its node CPU: no series for it, never a 0
    assert kept == [("default", "posts", "bulk-1000 node CPU µs/doc", pytest.approx(50.0))]
    assert not any(history.COST in t for t in figures)  # the figures the night judges hold rates alone
    assert "Costs per document on posts on default, each a series of its own, shown and not judged:" in text
    assert "| bulk-1000 node CPU µs/doc | 50.0 | — |  |" in text
    assert (
        drawn["bulk-1000 node CPU µs/doc"] == [(re.search(r"# ingestlab nightly (\S+)", text)[1], pytest.approx(50.0))]
        and "bulk-1000" in drawn
    )


def test_a_night_without_costs_keeps_no_cost_series_and_no_zeros(tmp_path, monkeypatch):
    code, text, _, drawn, _ = night(tmp_path, monkeypatch, [raced({"load_side": {"tasks": {"bulk-1000": {"limit": limit()}}}}), raced({})])
    assert code == 0
    with sqlite3.connect(tmp_path / "h.sqlite") as db:
        assert list(db.execute(f"SELECT * FROM {history.COSTS}")) == []
    assert "Costs per document" not in text and not any(history.COST in t for t in drawn)


def test_cost_series_never_reach_the_regressions_the_change_points_or_the_exit_code(tmp_path, monkeypatch):
    """Three steady past nights with costs; tonight bulk-1000's cost falls tenfold (a drop the rate's rule would call)
    and bulk-10's is not measured (a series the rate's rule would call missing): neither is judged."""
    doc = race("posts")
    db = history.open_history(tmp_path / "h.sqlite")
    for past, factor in zip(PAST, (0.99, 1.0, 1.01)):
        figures = {t: v * factor for t, v in compare.task_figures(doc).items()}
        history.store(db, past, "default", "posts", figures, "r", "7.17.29")
        costs = {"bulk-1000" + history.COST: 50.0 * factor, "bulk-10" + history.COST: 80.0 * factor}
        history.store(db, past, "default", "posts", costs, "r", "7.17.29", history.COSTS)
    db.commit()
    tasks = {"bulk-1000": {"limit": limit(node_cpu_ms_per_doc=0.005)}}
    code, text, kept, drawn, detected = night(tmp_path, monkeypatch, [raced({"load_side": {"tasks": tasks}}, copy.deepcopy(doc))])
    assert code == 0 and kept["regressions"] == [] and kept["missing"] == [] and kept["change_points_new"] == []
    assert detected and not any(history.COST in t for t in detected)
    assert "| bulk-1000 node CPU µs/doc | 5.000 | 50.0 (3) | -90.0% |" in text and "| bulk-10 node CPU µs/doc | — | 80.0 (3) |  |" in text
    assert "| bulk-1000 | " in text and "missing tonight" not in text  # the rates were judged, the costs only shown
    assert len(drawn["bulk-10 node CPU µs/doc"]) == 3
    later = history.regressions(db, "posts", "2100-01-01", {}, None)
    assert later and not any(history.COST in r["task"] for r in later)
    assert {t for t in history.previous(db, "posts", "2100-01-01") if not t.startswith(history.HEADLINE)} == set(compare.task_figures(doc))


def test_a_nights_cost_is_the_median_of_its_races_that_measured_it_and_a_whole_race_limit_counts_for_its_one_task():
    posts = {"load_side": {"tasks": {"bulk-1000": {"limit": limit(node_cpu_ms_per_doc=0.03)}}}}
    one = {"load_side": {"tasks": {"bulk-1000": {"limit": limit(node_cpu_ms_per_doc=0.01)}}}}
    figures = compare.task_figures(race("posts"))
    got = nightly_run.night_costs([raced(posts), raced(one), raced({}), raced(posts)], figures)
    assert got == {"bulk-1000 node CPU µs/doc": pytest.approx(30.0)}  # the race without costs left out: median of 30, 10, 30
    single = race("posts")
    single["results"]["op_metrics"] = [op for op in single["results"]["op_metrics"] if op["task"] == "bulk-1000"]
    whole = raced({"load_side": {"limit": limit(node_cpu_ms_per_doc=0.02)}}, single)  # its task spans not seen
    assert nightly_run.night_costs([whole], {"bulk-1000": 1.0}) == {"bulk-1000 node CPU µs/doc": pytest.approx(20.0)}


def test_a_night_on_nodes_with_other_extra_jvm_options_than_the_night_before_says_so_in_its_report(tmp_path, monkeypatch):
    db = history.open_history(tmp_path / "h.sqlite")
    history.store(db, PAST[0], "default", "posts", compare.task_figures(race("posts")), "r", "7.17.29")
    assert history.node_options(db, "default", "posts", PAST[0], "none") is None  # the night before: the JVM's defaults
    doc = race("posts")
    doc["user-tags"] = {**doc["user-tags"], "nodes": "1", "node-java-options": "-XX-TieredStopAtLevel=1"}
    code, text, _, _, _ = night(tmp_path, monkeypatch, [raced({}, doc)])
    assert code == 0
    assert (
        "The nodes' extra JVM options (INGESTLAB_NODE_JAVA_OPTS, as tagged) tonight: -XX-TieredStopAtLevel=1. 1 of the 1 nights "
        "tonight is judged against ran with none"
    ) in text
    assert [t for _, t in history.annotations(db, "default")] == ["extra JVM options of the nodes: none → -XX-TieredStopAtLevel=1"]


def test_beside_a_reference_the_judged_ratio_names_both_sides_extra_jvm_options(tmp_path, monkeypatch):
    from ingestlab.nightly.races import Setup

    ratio = f"default{nightly_run.BESIDE}ref"
    db = history.open_history(tmp_path / "h.sqlite")
    history.store(db, PAST[0], ratio, "posts", {"bulk-1000": 1.0}, "r", "7.17.29")
    history.node_options(db, ratio, "posts", PAST[0], "the setup's none, the reference's none")

    def tagged(options: str):
        doc = race("posts")
        doc["user-tags"] = {**doc["user-tags"], "nodes": "1", "node-java-options": options}
        return raced({}, doc)

    monkeypatch.setenv("INGESTLAB_RESULTS", str(tmp_path / "results"))
    beside = {"posts": [tagged("-Xss1m")]}
    monkeypatch.setattr(nightly_run, "race_setup", lambda *a, **k: ({"posts": [tagged("-XX-TieredStopAtLevel=1")]}, {}, beside))
    monkeypatch.setattr(changepoints, "detect", lambda values, **k: {})
    monkeypatch.setattr(trends, "chart", lambda *a: b"")
    said = []
    nightly_run.run([studies.get("posts")], history_file=tmp_path / "h.sqlite", log=said.append, reference=Setup(name="ref"))
    judged = said[-2].split(f"## posts on {ratio}: against previous nights")[1]
    assert (
        "extra JVM options (INGESTLAB_NODE_JAVA_OPTS, as tagged) tonight: the setup's -XX-TieredStopAtLevel=1, the reference's "
        "-Xss1m. 1 of the 1 nights tonight is judged against ran with the setup's none, the reference's none"
    ) in judged
