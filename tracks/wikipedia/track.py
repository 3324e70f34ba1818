from ingestlab.runners.registration import register_reindex


def register(registry):
    register_reindex(registry)
