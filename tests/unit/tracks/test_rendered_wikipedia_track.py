"""Render tracks/wikipedia with Rally's own template loader and check the JSON it yields."""
import json
import shutil

from esrally.track import loader

from ingestlab import paths

TRACK_DIR = paths.TRACKS_DIR / "wikipedia"
DOCS = {"source-file": "wikipedia-generated-30.json", "document-count": 30, "includes-action-and-meta-data": True,
        "meta": {"ingestlab.generator": "wikipedia", "ingestlab.seed": 2016}}


def render(tmp_path, params=None):
    shutil.copytree(paths.REPO_ROOT / "challenges", tmp_path / "challenges")  # track.json includes ../../challenges/
    copy = tmp_path / "tracks" / "wikipedia"
    shutil.copytree(TRACK_DIR, copy, ignore=shutil.ignore_patterns("wikipedia*.json", "*.offset"))
    return json.loads(loader.render_template_from_file(str(copy / "track.json"), {"wiki_pages": 30, **(params or {})}))


def test_default_challenge_loads_the_source_then_every_method(tmp_path):
    track = render(tmp_path)
    methods = next(c for c in track["challenges"] if c["name"] == "reindex-methods")
    names = [t["operation"] for t in methods["schedule"]]
    assert names[:4] == ["delete-source", "create-source", "load-source", "check-source"]
    assert names[4:7] == ["reindex-api-scroll-1000", "reindex-api-scroll-10000", "reindex-api-slices-auto"]
    assert names[7:] == ["tool-1-slice-1-worker", "tool-1-slice-parallel-bulk", "tool-sliced", "tool-sliced-local-decode",
                         "tool-sliced-local-raw", "tool-sliced-local-raw-to-remote"]
    assert all(t["iterations"] == 3 for t in methods["schedule"][4:])
    assert track["corpora"][0]["target-index"] == "wikipedia-source" and track["corpora"][0]["documents"] == [DOCS]


def test_tool_variants_step_through_the_study(tmp_path):
    ops = {o["name"]: o for o in render(tmp_path, {"source_shards": 3, "bulk_workers": 6})["operations"]}
    assert ops["tool-1-slice-1-worker"]["slices"] == 1 and ops["tool-1-slice-1-worker"]["bulk-workers"] == 1
    assert ops["tool-1-slice-parallel-bulk"]["bulk-workers"] == 6 and ops["tool-sliced"]["slices"] == "auto"
    raw, decode = ops["tool-sliced-local-raw"], ops["tool-sliced-local-decode"]
    assert raw["raw"] and not decode["raw"] and raw["local-shards"] and not raw["compression"]
    assert {k: v for k, v in raw.items() if k not in ("name", "raw", "meta")} == {k: v for k, v in decode.items() if k not in ("name", "raw", "meta")}
    assert ops["tool-sliced-local-raw-to-remote"]["dest-shards"] == 6 and "dest-shards" not in raw
    assert ops["load-source"]["operation-type"] == "corpus-load"


def test_scale_out_runs_each_step_between_a_fresh_destination_and_its_count(tmp_path):
    track = render(tmp_path, {"drivers": 3, "repetitions": 2, "source_shards": 3})
    scale_out = next(c for c in track["challenges"] if c["name"] == "scale-out")
    reindex = scale_out["schedule"][4:7]  # the _reindex API first, as the study compared the tool with it
    assert [t["operation"] for t in reindex] == ["reindex-api-scroll-1000", "reindex-api-scroll-10000", "reindex-api-slices-auto"]
    tasks = scale_out["schedule"][7:]
    assert len(tasks) == 2 * 5 * 3
    first = tasks[:3]
    assert [t["operation"] for t in first] == ["recreate-dest", "scale-out-parallel-bulk", "check-dest"]
    assert len({t["name"] for t in scale_out["schedule"][7:]}) == len(tasks)  # Rally needs unique task names
    clients = {t["operation"]: t["clients"] for t in tasks if "clients" in t}
    assert clients == {"scale-out-parallel-bulk": 1, "scale-out-sliced": 1, "scale-out-sliced-raw": 1,
                       "scale-out-local": 3, "scale-out-local-to-remote": 3}
    ops = {o["name"]: o for o in track["operations"]}
    assert all(ops[name]["node"] == "driver-host" and ops[name]["dest"] == "existing" for name in clients)
    assert ops["scale-out-local"]["local-shards"] and ops["scale-out-local"]["raw"] and not ops["scale-out-sliced"]["raw"]
    remote = next(t for t in tasks if t["operation"] == "recreate-dest-remote")
    assert tasks[tasks.index(remote) + 1]["operation"] == "scale-out-local-to-remote"
    assert ops["recreate-dest-remote"]["number-of-shards"] == 6
