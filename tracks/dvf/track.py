from ingestlab.runners.registration import register_corpus_load


def register(registry):
    register_corpus_load(registry)
