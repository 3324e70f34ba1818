"""What a track's ``track.py`` calls: registers the pack's runners (each through
:func:`~ingestlab.runners.utils.failures.reporting_failures`), their parameter sources and the corpus processor."""

from ingestlab.runners import compat
from ingestlab.runners.operations import (
    corpus_load,
    fresh_index_load,
    index_lifecycle,
    reindex_api,
    sliced_scroll_reindex,
    time_to_searchable,
)
from ingestlab.runners.param_sources.corpus_load import CorpusLoadParamSource
from ingestlab.runners.param_sources.eventdata import NAME as EVENTDATA
from ingestlab.runners.param_sources.eventdata import EventdataParamSource
from ingestlab.runners.param_sources.fresh_index_load import FreshIndexLoadParamSource
from ingestlab.runners.param_sources.index_lifecycle import IndexLifecycleParamSource
from ingestlab.runners.param_sources.reindex import ReindexParamSource
from ingestlab.runners.param_sources.time_to_searchable import TimeToSearchableParamSource
from ingestlab.runners.track_processors.corpora import CorpusProcessor
from ingestlab.runners.utils import transport_log, worker_name
from ingestlab.runners.utils.failures import reporting_failures


def _register(registry, param_source, *runners) -> None:
    """Each (name, runner) of ``runners`` with ``param_source``."""
    for name, runner in runners:
        registry.register_param_source(name, param_source)
        registry.register_runner(name, reporting_failures(runner), async_runner=True)


def register_fresh_index_load(registry) -> None:
    _register(registry, FreshIndexLoadParamSource, (fresh_index_load.NAME, fresh_index_load.FreshIndexLoad()))


def register_time_to_searchable(registry) -> None:
    _register(registry, TimeToSearchableParamSource, (time_to_searchable.NAME, time_to_searchable.TimeToSearchable()))


def register_corpus_load(registry) -> None:
    """``corpus-load`` and the index set-up/check operations that go around it."""
    _register(registry, CorpusLoadParamSource, (corpus_load.NAME, corpus_load.CorpusLoad()))
    _register_index_lifecycle(registry)


def register_reindex(registry) -> None:
    """``reindex-api`` and ``sliced-scroll-reindex``, plus ``corpus-load`` and the index operations to fill the source."""
    reindex = (reindex_api.NAME, reindex_api.ReindexApi())
    _register(registry, ReindexParamSource, reindex, (sliced_scroll_reindex.NAME, sliced_scroll_reindex.SlicedScrollReindex()))
    register_corpus_load(registry)


def _register_index_lifecycle(registry) -> None:
    recreate = (index_lifecycle.RECREATE, index_lifecycle.RecreateIndex())
    _register(registry, IndexLifecycleParamSource, recreate, (index_lifecycle.CHECK, index_lifecycle.CheckDocCount()))


def register_rally_corpora(registry) -> None:
    """The eventdata generator (for Rally's own bulk runner) and the count check after each indexing task."""
    registry.register_param_source(EVENTDATA, EventdataParamSource)
    _register_index_lifecycle(registry)
    register_corpora(registry)  # also the test-mode cut of what eventdata makes on the fly


def register_corpora(registry) -> None:
    """The track makes its generated corpus on first use and checks a supplied one
    (:mod:`~ingestlab.runners.track_processors.corpora`), then Rally prepares every corpus as it always does."""
    transport_log.restore()  # every track registers its corpora: the one place each worker passes
    worker_name.mark()  # a race's footprint can then give the workers' own peak RSS
    compat.register_processor(registry, CorpusProcessor())
