import bz2
import threading

import pytest

from ingestlab.corpus import read_ahead
from ingestlab.corpus.read_ahead import ReadAhead


def Bz2Ahead(path):
    """A ``.bz2`` file, decompressed ahead of the reader."""
    return ReadAhead(lambda: bz2.open(path, "rb"), path.name)


@pytest.fixture
def small_chunks(monkeypatch):
    monkeypatch.setattr(read_ahead, "CHUNK", 1000)
    monkeypatch.setattr(read_ahead, "AHEAD", 2)


def test_gives_the_same_bytes_as_bz2_in_any_read_sizes(tmp_path, small_chunks):
    data = b"".join(b"<page>%d \xe6\x97\xa5\xe6\x9c\xac</page>\n" % i for i in range(5000))
    path = tmp_path / "d.xml.bz2"
    path.write_bytes(bz2.compress(data))
    with Bz2Ahead(path) as f:
        parts = []
        for size in (1, 7, 999, 1000, 1001, 32768) * 50:
            parts.append(f.read(size))
        parts.append(f.read())
    assert b"".join(parts) == data and f.read(10) == b""


def test_a_truncated_stream_raises_where_the_reader_meets_it(tmp_path, small_chunks):
    data = bytes(range(256)) * 4000
    path = tmp_path / "t.xml.bz2"
    path.write_bytes(bz2.compress(data)[:-200])
    with Bz2Ahead(path) as f, pytest.raises(EOFError):
        got = 0
        while chunk := f.read(4096):
            got += len(chunk)
    assert 0 < got < len(data)


def test_closing_early_stops_the_thread(tmp_path, small_chunks):
    path = tmp_path / "big.xml.bz2"
    path.write_bytes(bz2.compress(b"x" * 5_000_000))
    before = threading.active_count()
    f = Bz2Ahead(path)
    assert f.read(10) == b"x" * 10
    f.close()  # the reader stopped after 10 bytes: the thread must not wait forever on a full queue
    assert threading.active_count() == before
