import pytest

from ingestlab.runners.writing.corpus_reader import CorpusError, read_documents


def test_reads_lines_without_newlines(tmp_path):
    f = tmp_path / "c.json"
    f.write_bytes(b'{"a":1}\n{"a":2}\n{"a":3}\n')
    assert read_documents(str(f)) == [b'{"a":1}', b'{"a":2}', b'{"a":3}']
    assert read_documents(str(f), limit=2) == [b'{"a":1}', b'{"a":2}']


@pytest.mark.parametrize(
    "content,message",
    [
        (b'{"a":1}\n{"a":\n', "c.json:2: not valid JSON"),
        (b'{"a":1}\n\n', "c.json:2: empty line"),
        (b'{"a":1}\n[1,2]\n', "c.json:2: expected a JSON object"),
        (b'{"a":1}\n{"a":1},{"b":2}\n', "c.json:2: not valid JSON"),
        (b'{"a":1}\n{"a":"\xff"}\n', "c.json:2: not valid JSON"),
        (b'{"a":1}\n{"a":"\\ud800"}\n', "c.json:2: not valid JSON"),
        (b'{"a":1}\n{"a":NaN}\n', "c.json:2: not valid JSON"),
        (b'{"a":1}\n  \n', "c.json:2: not valid JSON"),
    ],
)
def test_bad_line_names_file_and_line(tmp_path, content, message):
    f = tmp_path / "c.json"
    f.write_bytes(content)
    with pytest.raises(CorpusError, match=message):
        read_documents(str(f))


def test_asking_for_more_than_the_file_holds_is_an_error(tmp_path):
    f = tmp_path / "c.json"
    f.write_bytes(b'{"a":1}\n')
    with pytest.raises(CorpusError, match="holds only 1"):
        read_documents(str(f), limit=5)


def test_lines_are_checked_in_chunks_and_a_bad_line_is_named_in_any_chunk(tmp_path, monkeypatch):
    from ingestlab.runners.writing import corpus_reader

    monkeypatch.setattr(corpus_reader, "CHUNK_LINES", 3)
    f = tmp_path / "c.json"
    good = [b'{"n":%d,"s":"\xc3\xa9\\"x"}' % i for i in range(10)]
    f.write_bytes(b"\r\n".join(good) + b"\r\n")
    assert read_documents(str(f)) == good and read_documents(str(f), limit=7) == good[:7]
    f.write_bytes(b"\n".join(good[:7] + [b'{"n":7'] + good[8:]) + b"\n")
    with pytest.raises(CorpusError, match="c.json:8: not valid JSON"):
        read_documents(str(f))
    assert read_documents(str(f), limit=7) == good[:7]  # lines after the limit are not read
    f.write_bytes(b"\n".join(good[:4] + [b""] + good[5:]) + b"\n")
    with pytest.raises(CorpusError, match="c.json:5: empty line"):
        read_documents(str(f))
