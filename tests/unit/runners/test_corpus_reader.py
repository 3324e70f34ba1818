import pytest

from ingestlab.runners.corpus_reader import CorpusError, read_documents


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
