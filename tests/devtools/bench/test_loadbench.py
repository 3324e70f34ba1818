from devtools.bench import loadbench
from ingestlab.runners.writing.bulk_bodies import INDEX_ACTION


def test_body_preparation_carries_every_document_and_its_rates_are_consistent():
    docs = 3000
    result = loadbench.posts(docs=docs, bulk_size=500, repeats=1)
    assert result["docs"] == docs and result["prepared_docs"] == docs
    # every document once, each after its action line: nothing dropped or doubled on the way into the bodies
    assert result["body_bytes"] == result["corpus_bytes"] + docs * len(INDEX_ACTION)
    # rates are docs and bytes over the same CPU time
    assert abs(result["docs_per_s"] / result["mb_per_s"] - docs / (result["body_bytes"] / 1e6)) < 1e-6 * result["docs_per_s"]
    assert (
        abs(result["generator_docs_per_s"] / result["generator_mb_per_s"] - docs / (result["corpus_bytes"] / 1e6))
        < 1e-6 * result["generator_docs_per_s"]
    )
