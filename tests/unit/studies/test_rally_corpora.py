"""The Rally-corpora pieces: the eventdata generator, the geonames and pmc documents, the shared
track fragments, the study's ratio table, and the car-configs team."""

import configparser
import json
import shutil
from types import SimpleNamespace

import orjson
import pytest
from esrally.track import loader

from ingestlab import paths, published
from ingestlab.corpus import geonames, pmc
from ingestlab.rally import service
from ingestlab.runners.param_sources.eventdata import EventdataGenerator, EventdataParamSource
from ingestlab.studies import corpora, corpora_scaling
from tests.unit.runners.fake_track import drain


def test_eventdata_is_deterministic_and_split_between_clients():
    a = EventdataGenerator(7).documents(200)
    assert a == EventdataGenerator(7).documents(200) and a != EventdataGenerator(8).documents(200)
    doc = orjson.loads(a[0])
    assert {"@timestamp", "message", "clientip", "verb", "request", "response", "bytes", "useragent", "geoip"} <= set(doc)
    assert doc["message"].startswith(doc["clientip"] + " - - [") and 500 < sum(map(len, a)) / len(a) < 1200
    track = SimpleNamespace(indices=[SimpleNamespace(name="eventdata", body={})], corpora=[])
    source = EventdataParamSource(track, {"docs": 25, "bulk-size": 10})
    requests = [drain(source.partition(i, 2)) for i in range(2)]
    assert [[r["bulk-size"] for r in c] for c in requests] == [[10, 2], [10, 3]]  # Rally's borders: round(12.5) = 12
    body = requests[0][0]["body"]
    assert body.count(b'{"index":{"_index":"eventdata"}}\n') == 10 and requests[0][0]["action-metadata-present"] is True
    assert requests[0][0]["retries_on_429"] == 10


def test_eventdata_documents_are_the_json_orjson_writes_for_them():
    """The generator formats each document from pre-encoded pieces; every one must be valid JSON, byte for byte what
    orjson writes for the parsed document (field order, escapes, non-ASCII city names), its message made of its fields."""
    docs = EventdataGenerator(3).documents(5000)
    for line in docs:
        doc = orjson.loads(line)
        assert orjson.dumps(doc) == line
        ip, rest = doc["message"].split(" - - [", 1)
        when, request = rest.split("] ", 1)
        assert (
            ip == doc["clientip"]
            and when.endswith(" +0000")
            and request
            == (f'"{doc["verb"]} {doc["request"]} HTTP/1.1" {doc["response"]} {doc["bytes"]} "{doc["referrer"]}" "{doc["agent"]}"')
        )
        assert set(doc["geoip"]) == {"country_name", "city_name", "location"} and len(doc["geoip"]["location"]) == 2
        assert (doc["bytes"] == 0) == (doc["response"] != 200) or doc["bytes"] == 0
    assert any(not d.isascii() for d in docs)  # city names outside ASCII are in the sample
    assert [orjson.loads(d)["offset"] for d in docs[:3]] == [180, 360, 540]


def test_geonames_documents_scale_with_new_ids():
    rows = [
        {
            "geonameid": 5,
            "name": "Zürich",
            "latitude": 47.37,
            "longitude": 8.54,
            "countrycode": "CH",
            "population": 341730,
            "timezone": "Europe/Zurich",
            "admin1code": "ZH",
            "alternatenames": ["Zurich", "Zuerich"],
        }
    ]
    first, second = (orjson.loads(d) for d in geonames.documents(2, rows))
    assert first == {
        "geonameid": 5,
        "name": "Zürich",
        "asciiname": "Zurich",
        "alternatenames": "Zurich,Zuerich",
        "feature_class": "P",
        "feature_code": "PPL",
        "country_code": "CH",
        "admin1_code": "ZH",
        "population": 341730,
        "timezone": "Europe/Zurich",
        "location": [8.54, 47.37],
    }
    assert second["geonameid"] == 100_000_005 and second["location"] != first["location"]


NXML = b"""<article><front><journal-meta><journal-title-group><journal-title>J Test</journal-title></journal-title-group></journal-meta>
<article-meta><article-id pub-id-type="pmid">123</article-id><article-id pub-id-type="pmc">456</article-id>
<title-group><article-title>A <italic>real</italic> title</article-title></title-group>
<pub-date><day>3</day><month>4</month><year>2011</year></pub-date><volume>11</volume><issue>2</issue></article-meta></front>
<body><sec><p>First  paragraph.</p><p>Second <b>one</b>.</p></sec></body></article>"""


def test_pmc_article_and_scaled_documents():
    art = pmc.article(NXML)
    assert art["name"] == "A real title" and art["journal"] == "J Test" and art["accession"] == "PMC456" and art["pmid"] == 123
    assert art["timestamp"] == "2011-04-03 00:00:00" and art["paragraphs"] == ["First paragraph.", "Second one."]
    real, scaled = (orjson.loads(d) for d in pmc.documents(2, [art]))
    assert real["body"] == "First paragraph.\nSecond one." and real["pmid"] == 123
    assert scaled["pmid"] == 30_000_001 and scaled["accession"] == "PMC456-1" and scaled["body"]


@pytest.mark.parametrize("track", ["eventdata", "geonames", "pmc"])
def test_tracks_render_with_the_shared_challenges(tmp_path, track):
    shutil.copytree(paths.REPO_ROOT / "challenges", tmp_path / "challenges")
    copy = tmp_path / "tracks" / track
    shutil.copytree(paths.TRACKS_DIR / track, copy, ignore=shutil.ignore_patterns(f"{track}-*.json", "*.offset"))
    rendered = json.loads(loader.render_template_from_file(str(copy / "track.json"), {"bulk_indexing_clients": 4}))
    challenges = {c["name"]: c for c in rendered["challenges"]}
    assert challenges["append-no-conflicts"]["default"] is True
    sweep = [t.get("name", t["operation"]) for t in challenges["append-replica-sweep"]["schedule"]]
    assert "index-append-replicas-0" in sweep and "index-append-replicas-1" in sweep and "check-doc-count-replicas-1" in sweep
    ops = {o["name"]: o for o in rendered["operations"]}
    assert ops["create-index-replicas-1"]["settings"] == {"index.number_of_replicas": 1}
    assert ops["index-append"]["retries_on_429"] == 10
    append = next(t for t in challenges["append-no-conflicts-index-only"]["schedule"] if t["operation"] == "index-append")
    assert append["clients"] == 4


def test_scaling_table_shows_ratios_on_both_sides():
    text = corpora_scaling.scaling_markdown(
        {
            "eventdata": {"1 node": 10_000, "3 nodes": 15_000, "3 nodes, 1 replica": 7_500},
            "geonames": {"1 node": 20_000, "3 nodes": 24_000, "3 nodes, 1 replica": 12_000},
        },
        published.load("rally-corpora"),
        "m",
    )
    # the study's 3-node rows ran on RAID0: its node ratio is RAID0 ÷ RAID0 (70,045.9 ÷ 40,951.4), not ÷ the single disk
    assert "| eventdata | 10,000 | 15,000 | 7,500 | 1.50× / 1.71× | 0.50× / 0.55× |" in text
    assert "| geonames | 20,000 | 24,000 | 12,000 | 1.20× / 1.60× | 0.50× / — |" in text  # no published replica row for it
    assert "Published RAID0 of 4 disks ÷ a single disk, 1 node: eventdata 1.19×" in text


def test_the_emulated_report_says_whether_each_new_lab_was_warmed_up():
    from ingestlab.studies import corpora_hardware

    rows = {
        "geonames": {
            c: {"median": 1000.0, "p90": 10.0, "p99": None}
            for c in (corpora.ONE_NODE, corpora.ONE_NODE_RAID, corpora.THREE_NODES, corpora.THREE_NODES_REPLICA)
        }
    }
    args = (rows, published.load("rally-corpora"), [("geonames", corpora.ONE_NODE, True, [], "r1")], {}, {}, "m")
    warmed = corpora_hardware.markdown(*args, False, "geonames")
    assert "warmed up by one race of geonames first, not kept" in warmed
    assert "| 1,000 (10 / —) |" in warmed  # a missing p99 is shown as missing
    assert "No warm-up race" in corpora_hardware.markdown(*args, True)


def test_car_configs_team_names_the_pre_placed_distribution():
    cars = paths.REPO_ROOT / "car-configs" / "cars" / "v1"
    base = configparser.ConfigParser()
    base.read(cars / "vanilla" / "config.ini")
    url = base["variables"]["jdk.unbundled.release_url"].replace("{{VERSION}}", "7.17.29")
    assert url.rsplit("/", 1)[1] == service.tarball_name("7.17.29")
    assert base["variables"]["runtime.jdk.bundled"] == "false" and base["variables"]["runtime.jdk"] == "17"
    defaults = configparser.ConfigParser()
    defaults.read(cars / "defaults.ini")
    assert defaults["config"]["base"] == "vanilla" and defaults["meta"]["type"] == "car"
    for mixin in ("1gheap", "4gheap", "hdd", "ssd", "nvme"):
        m = configparser.ConfigParser()
        m.read(cars / f"{mixin}.ini")
        assert m["meta"]["type"] == "mixin"


@pytest.mark.parametrize(
    "challenge,params,expected",
    [
        ("append-replica-sweep", {}, {0: "index-append-replicas-0", 1: "index-append-replicas-1"}),
        ("append-no-conflicts-index-only", {"number_of_replicas": 0}, {0: "index-append"}),
        ("append-no-conflicts-index-only", {"number_of_replicas": 1}, {1: "index-append"}),
    ],
)
def test_the_bulk_task_of_each_replica_count_is_read_from_the_schedule(challenge, params, expected):
    from ingestlab.rally import trackinfo
    from ingestlab.rally.results import RaceResult

    race = {"race-id": "r", "challenge": challenge, "track-params": params, "results": {"op_metrics": []}}
    result = RaceResult(race=race, track=trackinfo.load(paths.TRACKS_DIR / "eventdata", params))
    assert corpora.bulk_task_per_replicas(result) == expected


DISK = {"resource": "disk", "share": 0.97, "evidence": "sda 97% busy", "costs": {"documents": 1000}}
CPU = {"resource": "node CPU", "share": 0.99, "evidence": "3 nodes 1.98 of 2.00 cores", "costs": {}}


def corpora_race(challenge: str, medians: dict, footprint: dict, race_id: str = "r"):
    from ingestlab.rally import trackinfo
    from ingestlab.rally.results import RaceResult

    params = {"number_of_replicas": 0} if challenge == "append-no-conflicts-index-only" else {}
    ops = [{"task": t, "throughput": {"median": m}} for t, m in medians.items()]
    race = {"race-id": race_id, "challenge": challenge, "track-params": params, "results": {"op_metrics": ops}}
    return RaceResult(race=race, track=trackinfo.load(paths.TRACKS_DIR / "eventdata", params), footprint=footprint)


def limited_races(one_node: dict, three_nodes: dict) -> list:
    """A 1-node race (its admin tasks rated too) and a 3-node sweep whose 1-replica task has no rate."""
    one = corpora_race("append-no-conflicts-index-only", {"create-index": 5.0, "index-append": 10_000.0}, one_node)
    medians = {"index-append-replicas-0": 15_000.0, "index-append-replicas-1": None}
    return [(1, one), (3, corpora_race("append-replica-sweep", medians, three_nodes))]


def test_the_opening_says_what_held_each_measured_row_in_its_race():
    """The 1-node race was judged whole (its driver elsewhere): its one bulk task's; the 3-node race per task, the
    1-replica task cited by no one since Rally measured no rate of it."""
    table = corpora_scaling.Table(corpora.TRACKS[:1])
    sweep = {"index-append-replicas-0": {"limit": CPU}, "index-append-replicas-1": {"limit": DISK}}
    for nodes, result in limited_races({"load_side": {"tasks": {}, "limit": DISK}}, {"load_side": {"tasks": sweep}}):
        table.add("eventdata", nodes, result)
    text = corpora_scaling.scaling_markdown(table.results, published.load("rally-corpora"), "m", held=table.held)
    assert (
        "What held each rate here, as sampled during its race: eventdata on 1 node by disk (sda 97% busy); "
        "eventdata on 3 nodes by node CPU (3 nodes 1.98 of 2.00 cores).\n" in text
    )


def test_races_without_sampled_limits_leave_the_opening_as_before():
    table = corpora_scaling.Table(corpora.TRACKS[:1])
    for nodes, result in limited_races({}, {"load_side": {"tasks": {"index-append-replicas-0": {"verdict": "cluster bound"}}}}):
        table.add("eventdata", nodes, result)
    data = published.load("rally-corpora")
    assert table.held == {} and table.results["eventdata"] == {"1 node": 10_000.0, "3 nodes": 15_000.0, "3 nodes, 1 replica": None}
    text = corpora_scaling.scaling_markdown(table.results, data, "m", held=table.held)
    assert text == corpora_scaling.scaling_markdown(table.results, data, "m") and "What held" not in text


def test_the_emulated_report_cites_each_stored_race_for_its_row(monkeypatch):
    from ingestlab.studies import corpora_hardware

    races = limited_races({"load_side": {"limit": DISK}}, {"load_side": {"tasks": {"index-append-replicas-0": {"limit": CPU}}}})
    by_id = {str(i): result for i, (_, result) in enumerate(races)}
    stored = [
        {"race-id": "0", "user-tags": {"study": "eventdata", "configuration": corpora.ONE_NODE.replace(",", ";")}},
        {"race-id": "1", "user-tags": {"study": "eventdata", "configuration": corpora.THREE_NODES.replace(",", ";")}},
    ]
    monkeypatch.setattr(corpora_hardware.results, "races_with_tags", lambda tags: stored if "corpora-hardware" in tags else [])
    monkeypatch.setattr(corpora_hardware.results, "load", lambda race_id, track_path: by_id[race_id])
    found = corpora_hardware.stored("s", corpora.TRACKS[:1])
    assert found.limits == {"eventdata on 1 node, 1 disk, 0 replicas": DISK, "eventdata on 3 nodes, RAID0, 0 replicas": CPU}
    args = (found.rows, published.load("rally-corpora"), found.verdicts, found.profiles, found.docs, "m", False)
    text = corpora_hardware.markdown(*args, limits=found.limits)
    assert (
        "What held each rate here, as sampled during its race: eventdata on 1 node, 1 disk, 0 replicas by disk (sda 97% busy); "
        "eventdata on 3 nodes, RAID0, 0 replicas by node CPU (3 nodes 1.98 of 2.00 cores).\n" in text
    )
    assert "What held" not in corpora_hardware.markdown(*args)
