from ingestlab import loadbench


def test_reports_rates_of_generator_and_body_preparation():
    result = loadbench.posts(docs=3000, bulk_size=500, repeats=1)
    assert result["docs"] == 3000
    for key in ("generator_docs_per_s", "generator_mb_per_s", "docs_per_s", "mb_per_s"):
        assert result[key] > 0
