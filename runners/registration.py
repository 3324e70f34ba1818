"""What a track's ``track.py`` calls: registers the pack's runners and parameter sources with Rally."""
from ingestlab.runners import fresh_index_load
from ingestlab.runners.fresh_index_load_source import FreshIndexLoadParamSource


def register_fresh_index_load(registry) -> None:
    registry.register_param_source(fresh_index_load.NAME, FreshIndexLoadParamSource)
    registry.register_runner(fresh_index_load.NAME, fresh_index_load.FreshIndexLoad(), async_runner=True)
