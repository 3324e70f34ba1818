"""Render tracks/posts with Rally's own template loader and check the JSON it yields."""
import json

import pytest
from esrally.track import loader

from ingestlab import paths

TRACK = paths.TRACKS_DIR / "posts" / "track.json"


def render(params=None):
    return json.loads(loader.render_template_from_file(str(TRACK), params or {}))


def schedule_ops(challenge):
    return [t["operation"] for t in challenge["schedule"]]


def test_defaults_reproduce_the_study():
    track = render()
    corpus = track["corpora"][0]["documents"][0]
    assert corpus["source-file"] == "posts-10000.json" and corpus["document-count"] == 10000
    challenges = {c["name"]: c for c in track["challenges"]}
    sweep = challenges["bulk-size-sweep"]
    assert sweep["default"] is True
    assert schedule_ops(sweep) == ["index-api", "bulk-10", "bulk-50", "bulk-100", "bulk-1000", "bulk-10000"]
    assert all(t["iterations"] == 10 and t["clients"] == 1 for t in sweep["schedule"])
    assert schedule_ops(challenges["index-api"]) == ["index-api"]
    assert schedule_ops(challenges["bulk"]) == ["bulk-1000"]


def test_every_scheduled_operation_is_defined_with_its_method():
    track = render({"bulk_sizes": [5, 500], "bulk_size": 42})
    ops = {o["name"]: o for o in track["operations"]}
    for challenge in track["challenges"]:
        for op in schedule_ops(challenge):
            assert op in ops
    assert ops["index-api"]["method"] == "index"
    assert ops["bulk-42"]["bulk-size"] == 42 and ops["bulk-500"]["method"] == "bulk"


@pytest.mark.parametrize("repetitions,warmup", [(3, 1), (1, 0)])
def test_repetitions_and_warmup_are_params(repetitions, warmup):
    track = render({"repetitions": repetitions, "warmup_repetitions": warmup})
    task = track["challenges"][0]["schedule"][0]
    assert task["iterations"] == repetitions and task["warmup-iterations"] == warmup


def test_index_body_renders_shards_and_replicas():
    body = json.loads(loader.render_template_from_file(str(TRACK.parent / "index.json"), {"number_of_replicas": 1}))
    assert body["settings"] == {"index.number_of_shards": 1, "index.number_of_replicas": 1}
    assert body["mappings"]["properties"]["postDate"] == {"type": "date"}


def test_size_and_index_name_are_params():
    track = render({"posts_docs": 20000, "index_name": "posts-b"})
    assert track["corpora"][0]["documents"][0]["source-file"] == "posts-20000.json"
    assert track["indices"][0]["name"] == "posts-b"
