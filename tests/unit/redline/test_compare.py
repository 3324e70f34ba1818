"""compare on redline searches: each side's bracket of the knee, a verdict only where the brackets do not overlap, open
ends shown open, and refusals in one line (made-up results; no cluster)."""

import json

import pytest

from ingestlab.errors import IngestlabError
from ingestlab.redline import compare


def _result(tmp_path, stamp, rate, failed_above, *, ms=200.0, bulk=1000, stopped="found", full=50_000.0):
    out = tmp_path / stamp
    out.mkdir()
    (out / "redline.json").write_text(
        json.dumps(
            {
                "stamp": stamp,
                "track": "posts",
                "challenge": "redline",
                "task": "redline-bulk",
                "bulk_size": bulk,
                "engine": "elasticsearch",
                "es_version": "7.17.29",
                "latency_target": {"percentile": "99", "ms": ms},
                "error_rate": 0.0,
                "rate": rate,
                "failed_above": failed_above,
                "stopped": stopped,
                "full_speed": {"rate": full},
                "probes": [],
            }
        )
    )
    return str(out)


def test_disjoint_brackets_give_a_verdict_bounded_by_their_ends(tmp_path):
    base = compare.load(_result(tmp_path, "20260101T000000", 10_000, 11_000))
    faster = compare.load(_result(tmp_path, "20260101T000001", 22_000, 24_000))
    slower = compare.load(_result(tmp_path, "20260101T000002", 4_000, 5_000))
    assert compare.verdict(base, faster) == ("higher", 2.0, 2.4)
    assert compare.verdict(base, slower) == ("lower", 4_000 / 11_000, 0.5)
    text = "\n".join(compare.lines(base, [faster, slower]))
    assert "higher: 2.00–2.40×" in text and "lower: 0.36–0.50×" in text and "10,000 – 11,000" in text


def test_overlapping_brackets_are_not_told_apart(tmp_path):
    base = compare.load(_result(tmp_path, "20260101T000000", 10_000, 11_000))
    near = compare.load(_result(tmp_path, "20260101T000001", 10_500, 11_500))
    word, low, high = compare.verdict(base, near)
    assert word.startswith("not told apart") and low < 1 < high


def test_repeats_of_a_side_widen_its_bracket_to_the_hull(tmp_path):
    a = _result(tmp_path, "20260101T000000", 10_000, 11_000)
    b = _result(tmp_path, "20260101T000001", 8_000, 9_000)
    side = compare.load(f"{a},{b}")
    assert (side.low, side.high) == (8_000, 11_000)
    other = compare.load(_result(tmp_path, "20260101T000002", 12_000, 13_000))
    text = "\n".join(compare.lines(other, [side]))
    assert "One search a side (" + other.name + ")" in text  # the repeated side is not named there


def test_open_ends_stay_open(tmp_path):
    base = compare.load(_result(tmp_path, "20260101T000000", 10_000, 11_000))
    never_failed = compare.load(_result(tmp_path, "20260101T000001", 40_000, None, stopped="met at every step"))
    never_met = compare.load(_result(tmp_path, "20260101T000002", None, 2_000, stopped="cannot be met"))
    assert compare.verdict(base, never_failed) == ("higher", 40_000 / 11_000, None)
    assert compare.verdict(base, never_met) == ("lower", None, 0.2)
    text = "\n".join(compare.lines(base, [never_failed, never_met]))
    assert "open (never failed above it)" in text and "not met (no lower end)" in text and "≥ 3.64×" in text and "≤ 0.20×" in text
    assert "Open ends: " in text and "met at every step" in text and " 0 –" not in text
    assert compare.verdict(never_failed, base) == ("lower", None, 11_000 / 40_000)


def test_what_cannot_be_compared_is_one_line(tmp_path):
    base = compare.load(_result(tmp_path, "20260101T000000", 10_000, 11_000))
    other_target = compare.load(_result(tmp_path, "20260101T000001", 10_000, 11_000, ms=500.0))
    with pytest.raises(IngestlabError, match="different targets"):
        compare.lines(base, [other_target])
    a = _result(tmp_path, "20260101T000002", 10_000, 11_000, bulk=100)
    with pytest.raises(IngestlabError, match="different setups"):
        compare.load(f"{a},{base.name}")
    with pytest.raises(IngestlabError, match="no redline search there"):
        compare.load(str(tmp_path / "nothing" / "redline.json"))
    (tmp_path / "bad.json").write_text("[1]")
    with pytest.raises(IngestlabError, match="not a redline result"):
        compare.load(str(tmp_path / "bad.json"))


def test_race_ids_and_tags_are_not_redline_searches(tmp_path):
    assert not compare.is_redline("run:abc") and not compare.is_redline("4f32b5e1-760e-44a7-be8c-aa52a6b37255")
    assert compare.is_redline(_result(tmp_path, "20260101T000000", 1.0, 2.0)) and compare.is_redline("20260101T000009")
