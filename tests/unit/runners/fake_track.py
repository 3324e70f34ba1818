"""A stand-in for Rally's track object (unit tests of parameter sources): one index, one corpus file."""
from types import SimpleNamespace


def make_track(tmp_path, docs=30, available=None, index="posts", file_name="posts.json"):
    f = tmp_path / file_name
    f.write_bytes(b"".join(b'{"n":%d}\n' % i for i in range(docs)))
    document_set = SimpleNamespace(is_bulk=True, number_of_documents=available or docs, document_file=str(f))
    return SimpleNamespace(
        indices=[SimpleNamespace(name=index, body={"settings": {}})],
        corpora=[SimpleNamespace(name="posts", documents=[document_set])],
    )
