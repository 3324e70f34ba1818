from datetime import datetime

import orjson

from ingestlab.corpus.posts import PostsGenerator


def test_same_seed_same_bytes():
    assert list(PostsGenerator(seed=7).lines(200)) == list(PostsGenerator(seed=7).lines(200))


def test_other_seed_other_documents():
    assert list(PostsGenerator(seed=7).lines(50)) != list(PostsGenerator(seed=8).lines(50))


def test_documents_have_the_study_fields_and_increasing_dates():
    docs = [orjson.loads(line) for line in PostsGenerator().lines(500)]
    assert all(set(d) == {"user", "postDate", "message"} for d in docs)
    dates = [datetime.strptime(d["postDate"], "%Y-%m-%dT%H:%M:%S.%fZ") for d in docs]
    assert dates == sorted(dates)
    assert all(d["user"] and d["message"] for d in docs)


def test_lines_are_newline_terminated_json():
    for line in PostsGenerator().lines(10):
        assert line.endswith(b"\n") and b"\n" not in line[:-1]


def test_streams_any_count_lazily():
    lines = PostsGenerator().lines(10**9)
    assert next(lines) and next(lines)
