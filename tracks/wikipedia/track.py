from ingestlab.runners.registration import register_reindex, register_corpora


def register(registry):
    register_reindex(registry)
    register_corpora(registry)
