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


def test_a_night_beside_a_reference_is_judged_on_the_ratio_of_tasks_both_have():
    from ingestlab.nightly.races import Setup
    from ingestlab.nightly.run import beside_figures

    assert beside_figures(
        {"bulk-1000": 60_000.0, "index": 900.0, "headline:bulk-vs-index": 66.0, "only-here": 5.0},
        {"bulk-1000": 50_000.0, "index": 1_000.0, "headline:bulk-vs-index": 50.0},
    ) == {"bulk-1000": 1.2, "index": 0.9}
    assert Setup.parse("hosts=127.0.0.1:9200,127.0.0.1:9201;name=ref") == Setup(name="ref", hosts="127.0.0.1:9200,127.0.0.1:9201")


def test_a_reference_setup_names_a_running_cluster_or_one_to_provision_never_both():

    from ingestlab.errors import IngestlabError
    from ingestlab.nightly.races import Setup

    with pytest.raises(IngestlabError, match="hosts names a running cluster"):
        Setup.parse("hosts=127.0.0.1:9200;version=9.2.0")


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


def test_a_reference_of_another_version_is_another_series_and_a_running_ones_new_version_is_said_not_counted(tmp_path, monkeypatch):
    import importlib
    from dataclasses import replace

    from ingestlab import studies
    from ingestlab.nightly import changepoints, trends
    from ingestlab.nightly.races import Setup
    from tests.unit.studies.races import race, result

    nightly_run = importlib.import_module("ingestlab.nightly.run")
    monkeypatch.setenv("INGESTLAB_RESULTS", str(tmp_path / "results"))
    monkeypatch.setattr(changepoints, "detect", lambda values, **k: {})
    monkeypatch.setattr(trends, "chart", lambda *a, **k: b"")

    def raced(version: str):
        doc = race("posts")
        return replace(result("posts", {**doc, "cluster": {**(doc.get("cluster") or {}), "distribution-version": version}}))

    def night(stamp: str, reference: str, version: str, value: float = 1.0) -> str:
        monkeypatch.setattr(nightly_run.time, "strftime", lambda *a: stamp)
        monkeypatch.setattr(nightly_run, "race_setup", lambda *a, **k: ({"posts": [raced("7.17.29")]}, {}, {"posts": [raced(version)]}))
        said = []
        nightly_run.run([studies.get("posts")], history_file=tmp_path / "h.sqlite", log=said.append, reference=Setup.parse(reference))
        return said[-2]

    # a reference declared by its version: another version files the ratio under another series
    night("2026-01-01T000000", "version=8.19.7;name=ref", "8.19.7")
    assert "## posts on default ÷ ref 7.17.29: against previous nights" in night("2026-01-02T000000", "version=7.17.29;name=ref", "7.17.29")
    # a running cluster's version is known only once raced: a new one is said, marked on the ratio's chart, not counted
    running = "hosts=127.0.0.1:9200;name=live"
    night("2026-01-03T000000", running, "8.19.7")
    text = night("2026-01-04T000000", running, "9.2.0")
    assert "The reference live is 9.2.0 tonight; the last night before it was 8.19.7" in text, text
    db = history.open_history(tmp_path / "h.sqlite")
    assert history.annotations(db, "default ÷ live") == [("2026-01-04T000000", "reference live: 8.19.7 → 9.2.0")]
    assert history.annotations(db, "default") == []  # the setup's own figures do not depend on the reference
    assert "The reference live is" not in night("2026-01-05T000000", running, "9.2.0")


def test_nights_judged_against_nights_with_other_extra_jvm_options_say_so_and_the_change_is_marked_once(tmp_path):
    from ingestlab.nightly.run import _Night

    db = history.open_history(tmp_path / "h.sqlite")
    c1 = "-XX-TieredStopAtLevel=1"
    said = {}
    nights = [f"2026-01-{d:02d}" for d in range(1, 13)]
    for night in nights:
        options = "none" if night < "2026-01-03" else c1
        tonight = _Night(night, db, None, print)
        said[night] = []
        for study in ("posts", "refresh"):  # as the night judges them: its figures kept first
            history.store(db, night, "default", study, {"bulk-1000": 1000.0}, "r", "7.17.29")
            said[night].append(tonight.options_moved("default", study, options))
    assert said["2026-01-01"] == said["2026-01-02"] == ["", ""]
    first, second = said["2026-01-03"]
    assert (
        first
        == second
        == (
            "The nodes' extra JVM options (INGESTLAB_NODE_JAVA_OPTS, as tagged) tonight: -XX-TieredStopAtLevel=1. 2 of the 2 "
            "nights tonight is judged against ran with none: a change against them may be the options'.\n\n"
        )
    )
    assert "2 of the 7 nights tonight is judged against ran with none" in said["2026-01-08"][0]
    assert "1 of the 7 nights" in said["2026-01-09"][0]
    assert said["2026-01-10"] == ["", ""]  # the seven nights it is judged against all ran with tonight's options
    assert history.annotations(db, "default") == [("2026-01-03", "extra JVM options of the nodes: none → -XX-TieredStopAtLevel=1")]
    assert _Night("2026-01-13", db, None, print).options_moved("default", "posts", None) == ""  # not known: nothing kept
    history.store(db, "2026-01-13", "default", "dvf", {"bulk-1000": 1.0}, "r", "7.17.29")  # a study new tonight
    assert _Night("2026-01-14", db, None, print).options_moved("default", "dvf", "none") == ""  # no night judged with others
