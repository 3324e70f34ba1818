from ingestlab.runners.registration import register_fresh_index_load, register_time_to_searchable


def register(registry):
    register_fresh_index_load(registry)
    register_time_to_searchable(registry)
