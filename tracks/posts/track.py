from ingestlab.runners.registration import register_fresh_index_load, register_corpora


def register(registry):
    register_fresh_index_load(registry)
    register_corpora(registry)
