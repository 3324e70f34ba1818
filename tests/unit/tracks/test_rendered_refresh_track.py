"""Render tracks/refresh with Rally's own template loader and check the JSON it yields."""
import json

from esrally.track import loader

from ingestlab import paths

TRACK = paths.TRACKS_DIR / "refresh" / "track.json"


def render(params=None):
    return json.loads(loader.render_template_from_file(str(TRACK), params or {}))


def challenge(track, name):
    return next(c for c in track["challenges"] if c["name"] == name)


def schedule_ops(ch):
    return [t["operation"] for t in ch["schedule"]]


def test_default_table_has_every_cell_of_the_study_plus_wait_for():
    track = render()
    table = schedule_ops(challenge(track, "refresh-table"))
    for docs in (10, 100, 1000, 10000):
        for method in ("single", "bulk"):
            for mode in ("none", "true"):
                assert f"{method}-{docs}-refresh-{mode}" in table
        assert f"bulk-{docs}-refresh-wait_for" in table
    # one document per refresh_interval: single-doc wait_for is kept to the small cells
    assert "single-10-refresh-wait_for" in table and "single-100-refresh-wait_for" not in table
    assert len(table) == 4 * 5 + 1


def test_table_operations_write_the_right_number_of_docs_in_one_bulk():
    track = render()
    ops = {o["name"]: o for o in track["operations"]}
    cell = ops["bulk-1000-refresh-true"]
    assert cell["operation-type"] == "fresh-index-load" and cell["method"] == "bulk"
    assert cell["doc-count"] == 1000 and cell["bulk-size"] == 10000 and cell["refresh"] == "true"
    assert ops["single-10000-refresh-none"]["method"] == "index"
    assert track["corpora"][0]["documents"][0]["source-file"] == "posts-10000.json"


def test_every_scheduled_operation_is_defined():
    track = render({"doc_counts": [5, 50], "searchable_intervals_ms": [200]})
    ops = {o["name"] for o in track["operations"]}
    for ch in track["challenges"]:
        assert set(schedule_ops(ch)) <= ops
    assert challenge(track, "refresh-study")["default"] is True


def test_searchable_schedule_sets_each_interval_before_its_cells():
    track = render({"searchable_intervals_ms": [100, 5000], "searchable_clients": 4, "searchable_samples": 10})
    schedule = challenge(track, "time-to-searchable")["schedule"]
    names = [t.get("name", t["operation"]) for t in schedule]
    assert names[:2] == ["delete-searchable-index", "create-searchable-index"]
    assert names[2:6] == ["searchable-refresh-interval-100ms", "searchable-100ms-refresh-none",
                          "searchable-100ms-refresh-true", "searchable-100ms-refresh-wait_for"]
    assert names[-1] == "delete-searchable-index-after"
    cells = [t for t in schedule if t["operation"].startswith("searchable-") and "interval" not in t["operation"]]
    assert all(t["clients"] == 4 and t["iterations"] == 3 for t in cells)  # ceil(10 / 4)
    ops = {o["name"]: o for o in track["operations"]}
    assert ops["searchable-refresh-interval-5000ms"]["body"] == {"index": {"refresh_interval": "5000ms"}}
    probe = ops["searchable-5000ms-refresh-wait_for"]
    assert probe["phase-jitter-ms"] == 5000 and probe["method"] == "index" and probe["index"] == "refresh-searchable"


def test_index_body_takes_refresh_interval_when_given():
    index = TRACK.parent / "index.json"
    plain = json.loads(loader.render_template_from_file(str(index), {}))
    assert "index.refresh_interval" not in plain["settings"]
    assert plain["mappings"]["properties"]["probe"] == {"type": "keyword"}
    tuned = json.loads(loader.render_template_from_file(str(index), {"refresh_interval": "30s"}))
    assert tuned["settings"]["index.refresh_interval"] == "30s"
