"""The docs' rendered blocks are current, and the CI matrix they show is the one the integration tests take their
cases from (``tests/matrix.json``)."""

import re

from devtools.docs import blocks, matrix, render
from ingestlab import paths
from tests import matrix as test_matrix


def test_every_rendered_block_of_the_docs_is_current():
    assert [str(p.relative_to(paths.REPO_ROOT)) for p in render.stale()] == [], "run `make docs`"


def test_the_docs_ci_tables_are_rendered_blocks_not_prose():
    """A doc says what CI races only through a block rendered from the matrix: no hand-written claim of it."""
    claims = re.compile(r"each in CI|every track on every line|every track runs on all", re.I)
    for p in render.documents():
        prose = blocks.BLOCK.sub("", p.read_text())
        assert not claims.search(prose), f"{p}: a hand-written claim of what CI races; use a ci-matrix or ci-versions block"


def test_each_row_of_the_matrix_is_raced_by_the_tests_it_names():
    """Every file a row names is there, and one of them takes its cases from the row (``matrix.tracks("<id>")``…)."""
    for row in test_matrix.MATRIX["rows"]:
        files = []
        for name in row["test"].split(", "):
            name = name if name.startswith("tests/") else f"tests/integration/{name}"
            files += (
                [paths.REPO_ROOT / name.replace("<track>", t) for t in row["tracks"]] if "<track>" in name else [paths.REPO_ROOT / name]
            )
        missing = [str(f) for f in files if not f.is_file()]
        assert not missing, f"row {row['id']}: {missing} not there"
        uses = re.compile(rf"""matrix\.(tracks|cases|version)\("{re.escape(row["id"])}"\s*[,)]""")
        assert any(uses.search(f.read_text()) for f in files), f"row {row['id']}: none of {row['test']} takes its cases from it"


def test_every_track_is_in_the_matrix_and_the_tables_name_each_engine_and_version():
    tracks = sorted(p.parent.name for p in paths.TRACKS_DIR.glob("*/track.json"))
    assert sorted(test_matrix.MATRIX["tracks"]) == tracks
    table = matrix.table({})
    for row in test_matrix.MATRIX["rows"]:
        assert f"{matrix.ENGINES[row['engine']]} {row['version']}" in table.splitlines()[0]


def test_no_document_states_a_measured_figure_by_hand():
    """Every figure of every page a reader meets (README.md, docs/, the tracks' READMEs) comes from a ledger entry (its
    run, date, commit and machine beside it) or from the articles' published data; this failed on 3d84df4's README
    (50.2× with no race, 490× with no date, a calibration table typed in) and on 1,560 figures of the other pages."""
    loose = [f for p in render.documents() for f in render.unledgered(p)]
    assert loose == []


def test_every_ingestlab_command_line_in_the_docs_uses_flags_the_command_has():
    """docs/cli.md lists every flag from the parser (a rendered block), and no doc gives a command a flag it lacks
    (3d84df4's docs/versions-and-engines.md gave `versions` --engine and --version)."""
    from devtools.docs import cli_flags

    wrong = []
    for p in render.documents():
        wrong += [f"{p.relative_to(paths.REPO_ROOT)}: {w}" for w in cli_flags.unknown_flags(blocks.BLOCK.sub("", p.read_text()))]
    assert wrong == []
    assert "--distribution-version" in cli_flags.by_command()[("race",)]


def test_a_figure_in_code_is_a_setting_and_one_in_prose_a_statement(tmp_path):
    """Commands and settings (code spans, also over a line break; fenced and indented blocks) are not figures a page
    states as measured; the same figure in prose is; a block keeps the lines after it where they were."""
    page = tmp_path / "page.md"
    page.write_text(
        "A setting: `--latency p99<=200ms`, `a span\nover 5 s`.\n\n    ingestlab redline --resolution 5 %\n\n"
        "```\n3 min\n```\n<!-- ingestlab:x a=b -->\n1 s\n<!-- /ingestlab:x -->\nIt took 36 s.\n"
    )
    assert [f.split(": ", 1)[1] for f in render.unledgered(page)] == ["36 s"]
    assert render.unledgered(page)[0].endswith("page.md:12: 36 s")


def test_an_article_block_renders_the_published_figures_as_the_article_wrote_them():
    from devtools.docs import articles

    table = articles.article({"study": "posts"})
    assert "| index API | 6.46 s | 1,548 | 1.0× |" in table and "| bulk 1000 | 266 ms | 37,594 | 24.3× |" in table
    assert articles.article({"study": "refresh", "value": "highlights.1.about", "unit": "×"}) == "433×"
    assert "| 10,000 | 11,009.0 | 55.1 | 37,227.8 | 86.0 |" in articles.article({"study": "refresh"})
    import pytest

    from ingestlab.errors import IngestlabError

    with pytest.raises(IngestlabError, match="no 'highlights.9.about'"):
        articles.article({"study": "refresh", "value": "highlights.9.about"})
    with pytest.raises(IngestlabError, match="no table"):
        articles.article({"study": "dvf"})


def test_a_ratio_block_divides_across_two_runs(monkeypatch):
    from devtools import ledger
    from devtools.docs import figures

    def entry(run, value):
        return ledger.Entry(
            run=run,
            kind="redline",
            date="2026-11-27T00:00:00Z",
            commit="abc1234",
            machine={},
            command="c",
            figures={"sustainable": ledger.Figure(value, "docs/s", "s")},
        )

    monkeypatch.setattr(figures, "_entries", lambda: {"three": entry("three", 3000.0), "one": entry("one", 1200.0)})
    assert figures.ratio({"run": "three", "of": "sustainable", "over-run": "one", "over": "sustainable", "digits": "2"}) == "2.50×"
    assert figures.ratio({"run": "three", "of": "sustainable", "over": "sustainable"}) == "1.0×"
