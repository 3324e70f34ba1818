"""Plain esrally first: every challenge of every track races with stock ``esrally race --test-mode`` on a clean
copy of the tracks (no corpus file in it, no ingestlab command before), against the suite's real node; and
``esrally info`` describes each track, its parameters and challenges."""

import json
import shutil

import pytest

from ingestlab import paths
from ingestlab.rally import trackinfo
from tests import matrix
from tests.integration.conftest import get_json, plain_esrally, port_1900_taken

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(port_1900_taken(), reason="another Rally holds 127.0.0.1:1900; plain esrally would join it"),
]

# small sizes where a challenge would otherwise take minutes in test mode (refresh's 5 s refresh_interval, its single +
# wait_for cell that waits a scheduled refresh per document, its single + refresh=true cell at 1,000 documents, the DVF
# grid); test_refresh_race races refresh's own defaults
PARAMS = {
    "refresh": {
        "doc_counts": [10, 100],
        "searchable_intervals_ms": [100],
        "searchable_clients": 2,
        "single_wait_for_max_docs": 0,
        "repetitions": 1,
    },
    "dvf": {"bulk_sizes": [1, 100], "client_counts": [1, 2]},
    "wikipedia": {"source_shards": 2},
}
# (index that holds the race's documents afterwards, how many)
LANDED = {
    "posts": ("posts", 1000),
    "refresh": ("refresh", 100),
    "dvf": ("dvf", 1000),
    "wikipedia": ("wikipedia-dest", 1000),
    "eventdata": ("eventdata", 1000),
    "geonames": ("geonames", 1000),
    "pmc": ("pmc", 1000),
}
# (eventdata: test mode cuts what it makes on the fly, 200,000 by default, to 1,000, as Rally cuts a corpus to its -1k file)
# each track's default challenge, and every other challenge that runs an operation the default does not (the rest run
# the default's own operations with other clients or counts: esrally info loads them, below, and the rendered-track
# unit tests check their JSON); geonames and pmc share eventdata's challenge files (challenges/append-*.j2), so the
# shared challenges race on eventdata and those two tracks race their default challenge
SHARED = ("geonames", "pmc")


def _operations(info, challenge) -> set:
    return {(t.operation.get("name"), t.operation_type) for t in info.challenge(challenge).schedule}


def raced_challenges(track: str) -> list[str]:
    info = trackinfo.load(paths.TRACKS_DIR / track)
    default = info.default_challenge
    others = (
        [] if track in SHARED else [c for c in info.challenges if c != default and not _operations(info, c) <= _operations(info, default)]
    )
    return [default, *(c for c in others if not (c == "redline" and track != REDLINE))]


# the redline challenge (challenges/redline.j2) races plain on posts; eventdata renders the same fragment around its
# index-append operation with more documents (esrally info loads it below; tests/integration/test_redline.py races it
# through the pack)
REDLINE = "posts"


# the tracks: tests/matrix.json's "plain" row (the docs' CI tables are rendered from it); the default challenges are in
# the fast tier (make check)
CASES = [
    pytest.param(t, c, marks=[pytest.mark.check] if c == trackinfo.load(paths.TRACKS_DIR / t).default_challenge else [], id=f"{t}-{c}")
    for t in matrix.tracks("plain")
    for c in raced_challenges(t)
]
GENERATED = ("*-generated-*", "posts-*.json", "geonames-*.json", "pmc-*.json", "*.offset", ".*.lock")


@pytest.fixture(scope="module")
def clean_tracks(tmp_path_factory):
    """The repository's tracks/ and challenges/ as a fresh clone has them: no corpus file anywhere."""
    root = tmp_path_factory.mktemp("clean")
    shutil.copytree(paths.REPO_ROOT / "challenges", root / "challenges")
    shutil.copytree(paths.TRACKS_DIR, root / "tracks", ignore=shutil.ignore_patterns(*GENERATED))
    assert not [p for p in (root / "tracks").rglob("*.json") if p.name.startswith(("posts-", "dvf-", "wikipedia-", "geonames-", "pmc-"))]
    return root / "tracks"


@pytest.mark.parametrize("track,challenge", CASES)
def test_every_challenge_races_with_plain_esrally(es_node, clean_tracks, tmp_path, track, challenge):
    params = []
    if track in PARAMS:  # a JSON file: Rally's inline form splits lists at their commas
        (tmp_path / "params.json").write_text(json.dumps(PARAMS[track]))
        params = [f"--track-params={tmp_path / 'params.json'}"]
    proc = plain_esrally(
        "race",
        "--pipeline=benchmark-only",
        f"--track-path={clean_tracks / track}",
        f"--target-hosts={es_node.hosts}",
        "--test-mode",
        f"--challenge={challenge}",
        f"--report-file={tmp_path / 'report.md'}",
        *params,
        rally_home=tmp_path,
    )
    assert proc.returncode == 0 and "SUCCESS" in proc.stdout, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert (tmp_path / "report.md").is_file()
    race = json.loads(next((tmp_path / ".rally" / "benchmarks" / "races").glob("*/race.json")).read_text())
    assert race["user-tags"]["corpus"] == "generated"  # never passes for rally-tracks' real corpus
    assert race["user-tags"]["test-mode"] == "true"  # nor for a full-size race
    assert race["cluster"]["distribution-version"] == matrix.version("plain")
    index, count = LANDED[track]
    landed = get_json(f"{es_node.url}/{index}/_count")["count"]
    if challenge == "redline":  # sends its corpus again and again for a time (test mode: 10 s), every request answered
        (bulk,) = [op for op in race["results"]["op_metrics"] if op["task"] == "redline-bulk"]
        assert landed >= count and bulk["error_rate"] == 0
    elif challenge != "time-to-searchable":  # that one writes probes into its own index, removed at the end
        assert landed == count


@pytest.mark.check
@pytest.mark.parametrize("track", list(LANDED))
def test_esrally_info_lists_parameters_and_challenges(clean_tracks, tmp_path, track):
    proc = plain_esrally("info", f"--track-path={clean_tracks / track}", rally_home=tmp_path)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "; parameters: " in proc.stdout
    for name in trackinfo.load(clean_tracks / track).challenges:
        assert f"Challenge [{name}]" in proc.stdout


@pytest.mark.check
def test_a_supplied_corpus_file_that_is_not_there_is_named_with_the_command_that_makes_it(es_node, clean_tracks, tmp_path):
    proc = plain_esrally(
        "race",
        "--pipeline=benchmark-only",
        f"--track-path={clean_tracks / 'dvf'}",
        f"--target-hosts={es_node.hosts}",
        "--test-mode",
        "--track-params=corpus_file:'dvf-2020.json'",
        rally_home=tmp_path,
        timeout=120,
    )
    assert proc.returncode != 0
    assert (
        "corpus file dvf-2020.json of track dvf does not exist; make it with: ingestlab dvf convert <your DVF files> --out dvf-2020.json"
    ) in proc.stdout + proc.stderr
    assert "NoneType" not in proc.stdout + proc.stderr and "is too short" not in proc.stdout + proc.stderr


@pytest.mark.check
def test_the_dvf_track_races_a_dvf_file_as_data_gouv_ships_it(es_node, clean_tracks, tmp_path):
    """``corpus_file`` names Etalab's gzipped file itself: the track converts it on first use (into Rally's data cache),
    and races its test-mode cut."""
    import gzip

    from ingestlab.corpus.dvf import generate, reference

    plain = tmp_path / "made" / "full.2020.csv"  # not beside it: only the downloaded .gz is where the track looks
    generate.write(plain, generate.DvfGenerator(reference.load_communes()).rows(1500), "etalab")
    shipped = tmp_path / "full.2020.csv.gz"
    shipped.write_bytes(gzip.compress(plain.read_bytes()))
    proc = plain_esrally(
        "race",
        "--pipeline=benchmark-only",
        f"--track-path={clean_tracks / 'dvf'}",
        f"--target-hosts={es_node.hosts}",
        "--test-mode",
        "--challenge=one-cell",
        f"--track-params=corpus_file:'{shipped}',index_name:'dvf-gz',bulk_size:100,clients:2",
        f"--report-file={tmp_path / 'report.md'}",
        rally_home=tmp_path,
    )
    assert proc.returncode == 0 and "SUCCESS" in proc.stdout, proc.stdout[-3000:] + proc.stderr[-3000:]
    converted = tmp_path / ".rally" / "benchmarks" / "data" / "dvf" / "converted-full.2020.csv.gz.json"
    assert converted.is_file() and sum(1 for _ in converted.open("rb")) == 1500
    assert get_json(f"{es_node.url}/dvf-gz/_count")["count"] == 1000
    race = json.loads(next((tmp_path / ".rally" / "benchmarks" / "races").glob("*/race.json")).read_text())
    assert race["user-tags"]["corpus"] == "supplied"
