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
    assert "1 of 2 cells with 5 runs or more showed no trend" in line and "index-api was still warming up" in line
    assert "first 9,100 ms, last 6,740 ms" in line


def test_too_few_runs_or_no_per_run_times_are_said_not_guessed():
    few = warmth.line(result("posts", stats=_runs("bulk-10", [1100, 1000, 900])))
    assert "bulk-10: fewer than 5 runs, too few races to see a trend" in few
    assert "not told here" in warmth.line(result("posts", stats=[]))


def test_the_study_report_carries_the_line_after_its_tables():
    stats = _runs("index-api", [9100, 8400, 7900, 7300, 7000]) + _runs("bulk-1000", [270, 262, 275, 266])
    text = posts.STUDY.report(result("posts", stats=stats), charts=False).markdown
    assert "- Warm or not: " in text
    lines = text.splitlines()
    at = next(i for i, l in enumerate(lines) if l.startswith("- Warm or not"))
    assert not lines[at - 1].startswith("|")  # not read as a row of a table above it
