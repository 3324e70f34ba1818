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
