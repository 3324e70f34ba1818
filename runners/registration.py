"""What a track's ``track.py`` calls: registers the pack's runners (:mod:`~ingestlab.runners.operations`), their
parameter sources (:mod:`~ingestlab.runners.param_sources`, one module of the same name each) and the corpus
processor (:mod:`~ingestlab.runners.track_processors`) with Rally. Every runner is registered through
:func:`~ingestlab.runners.utils.failures.reporting_failures`."""

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


def register_fresh_index_load(registry) -> None:
    registry.register_param_source(fresh_index_load.NAME, FreshIndexLoadParamSource)
    registry.register_runner(fresh_index_load.NAME, reporting_failures(fresh_index_load.FreshIndexLoad()), async_runner=True)


def register_time_to_searchable(registry) -> None:
    registry.register_param_source(time_to_searchable.NAME, TimeToSearchableParamSource)
    registry.register_runner(time_to_searchable.NAME, reporting_failures(time_to_searchable.TimeToSearchable()), async_runner=True)


def register_corpus_load(registry) -> None:
    """``corpus-load`` and the index set-up/check operations that go around it."""
    registry.register_param_source(corpus_load.NAME, CorpusLoadParamSource)
    registry.register_runner(corpus_load.NAME, reporting_failures(corpus_load.CorpusLoad()), async_runner=True)
    _register_index_lifecycle(registry)


def register_reindex(registry) -> None:
    """``reindex-api`` and ``sliced-scroll-reindex`` (one parameter source for both), plus ``corpus-load``
    and the index set-up/check operations to fill the source index."""
    for name, runner in (
        (reindex_api.NAME, reindex_api.ReindexApi()),
        (sliced_scroll_reindex.NAME, sliced_scroll_reindex.SlicedScrollReindex()),
    ):
        registry.register_param_source(name, ReindexParamSource)
        registry.register_runner(name, reporting_failures(runner), async_runner=True)
    register_corpus_load(registry)


def _register_index_lifecycle(registry) -> None:
    for name, runner in (
        (index_lifecycle.RECREATE, index_lifecycle.RecreateIndex()),
        (index_lifecycle.CHECK, index_lifecycle.CheckDocCount()),
    ):
        registry.register_param_source(name, IndexLifecycleParamSource)
        registry.register_runner(name, reporting_failures(runner), async_runner=True)


def register_rally_corpora(registry) -> None:
    """The eventdata generator (for Rally's own bulk runner) and the count check after each indexing task."""
    registry.register_param_source(EVENTDATA, EventdataParamSource)
    _register_index_lifecycle(registry)
    register_corpora(registry)  # also the test-mode cut of what eventdata makes on the fly


def register_corpora(registry) -> None:
    """The track makes its generated corpus on first use and checks a supplied one
    (:mod:`~ingestlab.runners.track_processors.corpora`), then Rally prepares every corpus as it always does.
    (Registering a processor replaces Rally's own preparation, so it is registered again after ours.)"""
    transport_log.restore()  # every track registers its corpora: the one place each worker passes
    worker_name.mark()  # a race's footprint can then give the workers' own peak RSS
    compat.register_processor(registry, CorpusProcessor())
