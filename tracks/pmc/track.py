from ingestlab.runners.registration import register_rally_corpora, register_corpora


def register(registry):
    register_rally_corpora(registry)
    register_corpora(registry)
