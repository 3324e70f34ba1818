from ingestlab.corpus.files import one_k_path, write_corpus


def test_writes_full_and_1k_files(tmp_path):
    lines = [b'{"n":%d}\n' % i for i in range(2500)]
    result = write_corpus(tmp_path / "posts-2500.json", iter(lines))
    assert result.documents == 2500
    assert result.uncompressed_bytes == sum(map(len, lines))
    assert (tmp_path / "posts-2500.json").read_bytes() == b"".join(lines)
    assert one_k_path(tmp_path / "posts-2500.json").name == "posts-2500-1k.json"
    assert (tmp_path / "posts-2500-1k.json").read_bytes() == b"".join(lines[:1000])


def test_rewriting_drops_stale_rally_offsets(tmp_path):
    target = tmp_path / "c.json"
    (tmp_path / "c.json.offset").write_text("stale")
    write_corpus(target, iter([b"{}\n"]))
    assert not (tmp_path / "c.json.offset").exists()
