"""The docs' rendered blocks are current, and the CI matrix they show is the one the integration tests take their
cases from (``tests/matrix.json``)."""
import re

from ingestlab import paths
from ingestlab.docs import blocks, matrix, render
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
            files += [paths.REPO_ROOT / name.replace("<track>", t) for t in row["tracks"]] if "<track>" in name else [paths.REPO_ROOT / name]
        missing = [str(f) for f in files if not f.is_file()]
        assert not missing, f"row {row['id']}: {missing} not there"
        uses = re.compile(rf"""matrix\.(tracks|cases|version)\("{re.escape(row['id'])}"\s*[,)]""")
        assert any(uses.search(f.read_text()) for f in files), f"row {row['id']}: none of {row['test']} takes its cases from it"


def test_every_track_is_in_the_matrix_and_the_tables_name_each_engine_and_version():
    tracks = sorted(p.parent.name for p in paths.TRACKS_DIR.glob("*/track.json"))
    assert sorted(test_matrix.MATRIX["tracks"]) == tracks
    table = matrix.table({})
    for row in test_matrix.MATRIX["rows"]:
        assert f"{matrix.ENGINES[row['engine']]} {row['version']}" in table.splitlines()[0]


def test_the_ledger_only_documents_state_no_measured_figure_by_hand():
    """Every figure of README.md comes from a ledger entry (its run, date, commit and machine beside it); this failed on
    3d84df4's README (50.2× with no race, 490× with no date, a calibration table typed in)."""
    loose = [f for name in render.FROM_LEDGER_ONLY for f in render.unledgered(paths.REPO_ROOT / name)]
    assert loose == []


def test_every_ingestlab_command_line_in_the_docs_uses_flags_the_command_has():
    """docs/cli.md lists every flag from the parser (a rendered block), and no doc gives a command a flag it lacks
    (3d84df4's docs/versions-and-engines.md gave `versions` --engine and --version)."""
    from ingestlab.docs import cli_flags

    wrong = []
    for p in render.documents():
        wrong += [f"{p.relative_to(paths.REPO_ROOT)}: {w}" for w in cli_flags.unknown_flags(blocks.BLOCK.sub("", p.read_text()))]
    assert wrong == []
    assert "--distribution-version" in cli_flags.by_command()[("race",)]
