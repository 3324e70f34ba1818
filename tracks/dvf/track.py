from ingestlab.runners.registration import register_corpus_load, register_corpora


def register(registry):
    register_corpus_load(registry)
    register_corpora(registry)
