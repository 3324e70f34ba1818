from ingestlab.runners.registration import register_fresh_index_load


def register(registry):
    register_fresh_index_load(registry)
