"""What a track's ``track.py`` calls: registers the pack's runners and parameter sources with Rally."""
from ingestlab.runners import fresh_index_load, time_to_searchable
from ingestlab.runners.fresh_index_load_source import FreshIndexLoadParamSource
from ingestlab.runners.time_to_searchable_source import TimeToSearchableParamSource


def register_fresh_index_load(registry) -> None:
    registry.register_param_source(fresh_index_load.NAME, FreshIndexLoadParamSource)
    registry.register_runner(fresh_index_load.NAME, fresh_index_load.FreshIndexLoad(), async_runner=True)


def register_time_to_searchable(registry) -> None:
    registry.register_param_source(time_to_searchable.NAME, TimeToSearchableParamSource)
    registry.register_runner(time_to_searchable.NAME, time_to_searchable.TimeToSearchable(), async_runner=True)
