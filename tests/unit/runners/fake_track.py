"""Stand-ins for Rally's track object (unit tests of parameter sources), and draining a parameter source."""

from types import SimpleNamespace


def make_track(tmp_path, docs=30, available=None, index="posts", file_name="posts.json"):
    """One index, one corpus file."""
    f = tmp_path / file_name
    f.write_bytes(b"".join(b'{"n":%d}\n' % i for i in range(docs)))
    document_set = SimpleNamespace(is_bulk=True, number_of_documents=available or docs, document_file=str(f))
    return SimpleNamespace(
        indices=[SimpleNamespace(name=index, body={"settings": {}})],
        corpora=[SimpleNamespace(name="posts", documents=[document_set])],
    )


def two_index_track(tmp_path):
    """The reindex study's shape: a source and a destination index, a corpus of action-and-metadata lines."""
    f = tmp_path / "wiki.json"
    f.write_bytes(b"".join(b'{"index":{"_id":"%d"}}\n{"n":%d}\n' % (i, i) for i in range(7)))
    docs = SimpleNamespace(is_bulk=True, number_of_documents=7, document_file=str(f), includes_action_and_meta_data=True)
    body = {"settings": {"index.number_of_shards": 4}, "mappings": {}}
    return SimpleNamespace(
        indices=[SimpleNamespace(name="src", body=body), SimpleNamespace(name="dst", body=body)],
        corpora=[SimpleNamespace(name="wikipedia", documents=[docs])],
    )


def drain(source) -> list:
    """Every params() a (finite) parameter source yields until it raises StopIteration."""
    out = []
    while True:
        try:
            out.append(source.params())
        except StopIteration:
            return out
