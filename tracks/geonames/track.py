from ingestlab.runners.registration import register_rally_corpora


def register(registry):
    register_rally_corpora(registry)
