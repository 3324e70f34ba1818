import json
from pathlib import Path

from ingestlab import published
from ingestlab.report import posts

FIXTURE = Path(__file__).parent.parent / "fixtures" / "posts-test-mode-race.json"


def race():
    return json.loads(FIXTURE.read_text())


def test_published_figures_are_data_with_their_context():
    data = published.load("posts")
    assert [f["elapsed_ms"] for f in data["figures"]] == [6460, 1080, 492, 383, 266, 254]
    assert data["elasticsearch"] == "6.0.0-rc2" and data["documents"] == 10000


def test_rows_from_a_real_race():
    rows = {r["task"]: r for r in posts.rows(race(), published.load("posts"))}
    assert posts.corpus_size(race()) == 1000  # a test-mode race
    single = rows["index-api"]
    assert single["speedup"] == 1.0
    assert abs(single["measured_ms"] - 1000 / single["measured_docs_s"] * 1000) < 1e-6
    assert rows["bulk-1000"]["speedup"] > 1
    assert round(rows["bulk-1000"]["published_speedup"], 1) == 24.3


def test_markdown_names_machine_versions_and_flags_errors():
    doc = race()
    text = posts.markdown(doc, published.load("posts"), "TEST MACHINE")
    assert "TEST MACHINE" in text and "Elasticsearch 7.17.29" in text and "6.0.0-rc2" in text
    assert "INVALID" not in text
    doc["results"]["op_metrics"][1]["error_rate"] = 0.5
    assert "INVALID" in posts.markdown(doc, published.load("posts"), "M")


def test_load_side_is_reported_against_the_fastest_ingest_rate():
    load_side = {"docs_per_s": 1_000_000, "mb_per_s": 250.0, "generator_docs_per_s": 200_000, "generator_mb_per_s": 45.0}
    text = posts.markdown(race(), published.load("posts"), "M", load_side)
    best = max(r.get("measured_docs_s") or 0 for r in posts.rows(race(), published.load("posts")))
    assert f"= {1_000_000 / best:.0f}× the fastest ingest rate" in text


def test_a_missing_baseline_prints_a_dash_not_a_ratio():
    doc = race()
    doc["results"]["op_metrics"] = [op for op in doc["results"]["op_metrics"] if op["task"] != "index-api"]
    text = posts.markdown(doc, published.load("posts"), "M")
    assert "—×" not in text and "| — |" in text
