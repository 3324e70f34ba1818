"""Whether a study's cells ran warm: a trend in each cell's run times, said in the report, never guessed."""

from ingestlab.studies import posts, warmth
from tests.unit.studies.races import result


def _runs(task: str, times_ms: list[float]) -> list[dict]:
    return [{"task": task, "method": "fresh-index-load", "docs": 1000, "elapsed_s": t / 1000} for t in times_ms]


def test_a_cell_whose_runs_grew_faster_is_named_warming_with_its_first_and_last_run():
    stats = _runs("index-api", [9100, 8400, 7900, 7300, 7000, 6800, 6750, 6740]) + _runs("bulk-1000", [270, 262, 275, 266, 271, 268])
    got = warmth.verdicts(result("posts", stats=stats))
    assert got == {"index-api": "warming", "bulk-1000": "warm"}
    line = warmth.line(result("posts", stats=stats))
    assert "1 of 2 cells showed no trend" in line and "index-api was still warming up" in line
    assert "first 9,100 ms, last 6,740 ms" in line


def test_too_few_runs_or_no_per_run_times_are_said_not_guessed():
    few = warmth.line(result("posts", stats=_runs("bulk-10", [1100, 1000, 900])))
    assert "bulk-10: too few runs to see a trend (with 1 cell(s) corrected together, a cell needs 5)" in few
    assert "not told here" in warmth.line(result("posts", stats=[]))


def test_the_study_report_carries_the_line_after_its_tables():
    stats = _runs("index-api", [9100, 8400, 7900, 7300, 7000]) + _runs("bulk-1000", [270, 262, 275, 266])
    text = posts.STUDY.report(result("posts", stats=stats), charts=False).markdown
    assert "- Warm or not: " in text
    lines = text.splitlines()
    at = next(i for i, l in enumerate(lines) if l.startswith("- Warm or not"))
    assert not lines[at - 1].startswith("|")  # not read as a row of a table above it


def test_a_cell_whose_runs_grew_slower_is_named_so_and_cells_too_short_for_the_corrected_level_are_too_few():
    slower = _runs("index-api", [6700, 6900, 7300, 7800, 8300, 8900, 9400, 9900])
    assert warmth.verdicts(result("posts", stats=slower)) == {"index-api": "slowing"}
    assert "index-api grew slower as it went" in warmth.line(result("posts", stats=slower))
    # four cells of five runs: Holm's first step asks for p <= 0.0125, which five runs cannot reach (least 2/120)
    four = [r for t in ("a", "b", "c", "d") for r in _runs(t, [900, 800, 700, 600, 500])]
    assert set(warmth.verdicts(result("posts", stats=four)).values()) == {"too few runs"}
