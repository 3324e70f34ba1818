"""Track parameters are checked against the kind of their declared defaults before anything runs."""

import pytest

from ingestlab.errors import IngestlabError
from ingestlab.paths import TRACKS_DIR
from ingestlab.rally import trackinfo


def test_defaults_are_read_from_the_templates():
    defaults = trackinfo.load(TRACKS_DIR / "posts").defaults
    assert defaults["bulk_sizes"] == [10, 50, 100, 1000, 10000]
    assert defaults["index_name"] == "posts" and defaults["repetitions"] == 10


def test_expressions_are_not_treated_as_defaults(tmp_path):
    (tmp_path / "track.json").write_text('{"a": {{ bulk_size | default(p_docs) }}, "b": {{ n | default(3) | int }}}')
    assert trackinfo.load(tmp_path).literal_defaults == {"n": 3}


@pytest.mark.parametrize(
    "name, value",
    [
        ("bulk_sizes", [1, 2]),
        ("bulk_size", 5),
        ("index_name", "x"),
        ("index_name", 7),
        ("not_declared", object()),
    ],
)
def test_values_of_the_declared_kind_pass(name, value):
    trackinfo.load(TRACKS_DIR / "posts").check({name: value})


@pytest.mark.parametrize(
    "name, value, expected",
    [
        ("bulk_sizes", "abc", "'bulk_sizes' of posts must be a JSON list of integers (default [10, 50, 100, 1000, 10000]), got \"abc\""),
        ("bulk_sizes", [10, "x"], "must be a JSON list of integers"),
        ("bulk_size", 1.5, "'bulk_size' of posts must be an integer (default 1000), got 1.5"),
        ("bulk_size", True, "must be an integer"),
        ("index_name", ["a"], "'index_name' of posts must be a string"),
    ],
)
def test_a_value_of_the_wrong_kind_is_named(name, value, expected):
    with pytest.raises(IngestlabError, match="track parameter") as caught:
        trackinfo.load(TRACKS_DIR / "posts").check({name: value})
    assert expected in str(caught.value)
