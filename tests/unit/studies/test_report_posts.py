from ingestlab import published
from ingestlab.studies import posts
from ingestlab.studies.base import corpus_documents
from tests.unit.studies.races import race, result


def test_published_figures_are_data_with_their_context():
    data = published.load("posts")
    assert [f["elapsed_ms"] for f in data["figures"]] == [6460, 1080, 492, 383, 266, 254]
    assert data["elasticsearch"] == "6.0.0-rc2" and data["documents"] == 10000


def test_rows_from_a_real_race():
    rows = {r["task"]: r for r in posts.rows(result("posts"), published.load("posts"))}
    assert corpus_documents(result("posts")) == 1000  # a test-mode race
    single = rows["index-api"]
    assert single["speedup"] == 1.0
    assert abs(single["measured_ms"] - 1000 / single["measured_docs_s"] * 1000) < 1e-6
    assert rows["bulk-1000"]["speedup"] > 1
    assert round(rows["bulk-1000"]["published_speedup"], 1) == 24.3


def test_markdown_names_machine_versions_and_flags_errors():
    doc = race("posts")
    text = posts.STUDY.markdown(result("posts", doc, machine="TEST MACHINE"), published.load("posts"))
    assert "TEST MACHINE" in text and "Elasticsearch 7.17.29" in text and "6.0.0-rc2" in text
    assert "INVALID" not in text
    doc["results"]["op_metrics"][1]["error_rate"] = 0.5
    assert "INVALID" in posts.STUDY.markdown(result("posts", doc, machine="M"), published.load("posts"))


def test_load_side_is_reported_against_the_fastest_ingest_rate():
    load_side = {"docs_per_s": 1_000_000, "mb_per_s": 250.0, "generator_docs_per_s": 200_000, "generator_mb_per_s": 45.0}
    text = posts.STUDY.markdown(result("posts", machine="M"), published.load("posts"), load_side)
    best = max(r.get("measured_docs_s") or 0 for r in posts.rows(result("posts"), published.load("posts")))
    assert f"= {1_000_000 / best:.0f}× the fastest ingest rate" in text


def test_a_missing_baseline_prints_a_dash_not_a_ratio():
    doc = race("posts")
    doc["results"]["op_metrics"] = [op for op in doc["results"]["op_metrics"] if op["task"] != "index-api"]
    text = posts.STUDY.markdown(result("posts", doc, machine="M"), published.load("posts"))
    assert "—×" not in text and "| — |" in text


def test_documents_per_run_come_from_what_ran():
    stats = [{"task": "bulk-1000", "method": "fresh-index-load", "docs": 1000, "elapsed_s": 0.1}]
    assert posts.documents_per_run(result("posts", stats=stats)) == 1000
    text = posts.STUDY.markdown(result("posts", stats=stats), published.load("posts"))
    assert "(1,000 docs, fastest of 1 runs)" in text
