"""Set-up operations (index re-creation, count checks, settings) stay out of Rally's summary, the measured
tasks stay in it; and in test mode a source that makes documents on the fly is cut like a -1k corpus."""
from types import SimpleNamespace

import pytest

from ingestlab import paths
from ingestlab.rally import trackinfo
from ingestlab.runners.track_processors.corpora import cut_made_on_the_fly

SETUP_TYPES = {"recreate-index", "check-doc-count", "raw-request"}
SMALL = {"dvf": {"dvf_rows": 5000}, "wikipedia": {"wiki_pages": 3000}, "eventdata": {}, "geonames": {"geonames_docs": 5000},
         "pmc": {"pmc_docs": 100}, "refresh": {}, "posts": {}}


@pytest.mark.parametrize("track", sorted(SMALL))
def test_setup_operations_are_not_reported(track):
    info = trackinfo.load(paths.TRACKS_DIR / track, SMALL[track])
    operations = info.rendered["operations"]
    for op in operations:
        setup = op["operation-type"] in SETUP_TYPES or op["name"] in ("load-source", "refresh")
        assert op.get("include-in-reporting", True) is not setup, op["name"]
    measured = [op for op in operations if op["operation-type"] in ("fresh-index-load", "corpus-load", "bulk", "reindex-api",
                                                                   "sliced-scroll-reindex", "time-to-searchable") and op["name"] != "load-source"]
    assert measured and all(op.get("include-in-reporting", True) for op in measured)


def test_the_dvf_summary_holds_only_the_grid():
    info = trackinfo.load(paths.TRACKS_DIR / "dvf", {"dvf_rows": 5000})
    ops = {o["name"]: o for o in info.rendered["operations"]}
    reported = [t for t in info.challenge().schedule if ops[t.operation["name"]].get("include-in-reporting", True)]
    assert len(reported) == 16 and all(t.operation_type == "corpus-load" for t in reported)


class Task:
    def __init__(self, param_source, **params):
        self.operation = SimpleNamespace(param_source=param_source, params=dict(params))

    def __iter__(self):
        return iter([self])


def test_test_mode_cuts_what_eventdata_makes_and_what_its_check_expects():
    write, check = Task("eventdata", docs=200_000), Task("check-doc-count", **{"doc-count": 200_000})
    small = Task("eventdata", docs=500)
    track = SimpleNamespace(corpora=[], challenges=[SimpleNamespace(schedule=[write, check, small])])
    cut_made_on_the_fly(track)
    assert write.operation.params["docs"] == 1000 and check.operation.params["doc-count"] == 1000
    assert small.operation.params["docs"] == 500
    with_corpus = Task("check-doc-count", **{"doc-count": 5000})  # a corpus's -1k file cuts it; the check follows the corpus
    cut_made_on_the_fly(SimpleNamespace(corpora=["geonames"], challenges=[SimpleNamespace(schedule=[with_corpus])]))
    assert with_corpus.operation.params["doc-count"] == 5000
