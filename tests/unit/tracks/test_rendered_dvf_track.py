"""Render tracks/dvf with Rally's own template loader and check the JSON it yields."""
import json
import shutil

import pytest
from esrally.track import loader

from ingestlab import paths
from ingestlab.corpus.dvf.formats import FIELD_KINDS

TRACK_DIR = paths.TRACKS_DIR / "dvf"
ENTRY = {"name": "dvf", "target-index": "dvf", "documents": [
    {"source-file": "dvf-generated-etalab-5000.json", "document-count": 5000,
     "meta": {"ingestlab.generator": "dvf", "ingestlab.seed": 2020, "ingestlab.format": "etalab"}}]}


@pytest.fixture
def track_copy(tmp_path):
    """A clean copy of the track: no corpus file (it is made on first use); the shared challenges beside it, as in the repo."""
    copy = tmp_path / "tracks" / "dvf"
    shutil.copytree(TRACK_DIR, copy, ignore=shutil.ignore_patterns("dvf*.json", "*.offset"))
    shutil.copytree(paths.REPO_ROOT / "challenges", tmp_path / "challenges")
    return copy


def render(track_dir, params=None):
    return json.loads(loader.render_template_from_file(str(track_dir / "track.json"), {"dvf_rows": 5000, **(params or {})}))


def test_default_grid_is_every_bulk_size_with_every_client_count(track_copy):
    track = render(track_copy)
    grid = next(c for c in track["challenges"] if c["name"] == "bulk-clients-grid")
    assert grid["default"] is True
    writes = [t for t in grid["schedule"] if t["operation"].startswith("load-")]
    assert [(t["name"], t["clients"]) for t in writes[:4]] == [("b1-t1", 1), ("b1-t4", 4), ("b1-t8", 8), ("b1-t16", 16)]
    assert len(writes) == 16 and len(grid["schedule"]) == 48
    names = [t["name"] for t in grid["schedule"]]
    assert names[:3] == ["recreate-b1-t1", "b1-t1", "check-b1-t1"]
    assert track["corpora"] == [ENTRY]


def test_index_api_cells_write_fewer_docs_and_checks_expect_the_same(track_copy):
    ops = {o["name"]: o for o in render(track_copy, {"index_api_docs": 3000, "docs_per_cell": 40000})["operations"]}
    assert ops["load-bulk-1"]["bulk-size"] == 1 and ops["load-bulk-1"]["doc-count"] == 3000
    assert ops["check-bulk-1"]["doc-count"] == 3000
    assert ops["load-bulk-100"]["doc-count"] == ops["check-bulk-100"]["doc-count"] == 40000


def test_one_cell_challenge_takes_bulk_size_and_clients(track_copy):
    track = render(track_copy, {"bulk_size": 500, "clients": 2})
    cell = next(c for c in track["challenges"] if c["name"] == "one-cell")
    assert [t["name"] for t in cell["schedule"]] == ["recreate-b500-t2", "b500-t2", "check-b500-t2"]
    assert cell["schedule"][1]["clients"] == 2
    assert "load-bulk-500" in {o["name"] for o in track["operations"]}


def test_mapping_covers_every_field_the_converter_writes():
    body = json.loads(loader.render_template_from_file(str(TRACK_DIR / "index.json"), {}))
    properties = body["mappings"]["properties"]
    assert {k: v["type"] for k, v in properties.items()} == FIELD_KINDS
    assert body["mappings"]["dynamic"] == "strict" and properties["location"] == {"type": "geo_point"}


def test_the_redline_challenge_loops_rallys_bulk_over_the_corpus_at_the_offered_rate(track_copy):
    track = render(track_copy, {"target_throughput": 12.5, "bulk_size": 500})
    redline = next(c for c in track["challenges"] if c["name"] == "redline")
    bulk = next(t for t in redline["schedule"] if t.get("name") == "redline-bulk")
    assert bulk["target-throughput"] == 12.5 and bulk["time-period"] == 15
    op = next(o for o in track["operations"] if o["name"] == bulk["operation"])
    assert op["operation-type"] == "bulk" and op["corpora"] == "dvf" and op["looped"] is True and op["bulk-size"] == 500
