"""Study 5 against real nodes: the three tracks in test mode, the 1-node / 3-node command, and Rally's own
from-distribution pipeline with the car-configs team (Rally installs, starts and stops the node)."""

import re

import pytest

from ingestlab import paths
from ingestlab.rally import results
from tests import matrix
from tests.integration.conftest import get_json, ingestlab

pytestmark = pytest.mark.integration


@pytest.mark.check
@pytest.mark.parametrize("track", [t for t in matrix.tracks("race") if t in ("eventdata", "geonames", "pmc")])
def test_each_track_races_in_test_mode(es_node, track):
    params = ["--track-param", "eventdata_docs=2000"] if track == "eventdata" else []  # test mode cuts it to 1,000
    proc = ingestlab("race", track, "--test-mode", "--target-hosts", es_node.hosts, "--track-param", f"index_name={track}-it", *params)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    race = results.latest_race({"study": track})
    assert all(r.error_rate == 0 for r in results.task_results(race).values())
    expected = 1000
    assert get_json(f"{es_node.url}/{track}-it/_count")["count"] == expected
    assert "| index-append |" in proc.stdout


@pytest.mark.default_ports
def test_one_and_three_nodes_report_the_ratios():
    # eventdata alone: geonames and pmc go through the same shapes and report lines (geonames' row, with its missing
    # published replica figure, is unit-tested in tests/unit/studies/test_rally_corpora.py)
    assert matrix.tracks("corpora") == ["eventdata"]
    proc = ingestlab(
        "corpora",
        "--test-mode",
        "--tracks",
        "eventdata",
        "--track-param",
        "eventdata.eventdata_docs=2000",
        "--clients",
        "2",
        "--version",
        matrix.version("corpora"),
        timeout=900,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    # every shape measured (a number in each column, no dash), each ratio beside the study's own
    assert re.search(r"\| eventdata \| [\d,]+ \| [\d,]+ \| [\d,]+ \| [\d.]+× / 1\.71× \| [\d.]+× / 0\.55× \|", proc.stdout), proc.stdout
    assert "Documents per race, as the count checks found them: eventdata 1,000." in proc.stdout
    # each setup's indices are gone when the study stops its nodes (a full-size setup's would hold the next one's disk)
    assert len(re.findall(r"cluster ingestlab-corpora-[13] stopped; its nodes' data removed", proc.stdout)) == 2, proc.stdout[-3000:]
    data = [paths.clusters_dir() / f"ingestlab-corpora-{n}" / f"node-{i}" / "data" for n in (1, 3) for i in range(1, n + 1)]
    assert all(d.is_dir() and not any(d.iterdir()) for d in data) and all(d.parent.joinpath("logs").is_dir() for d in data)


@pytest.mark.default_ports
def test_from_distribution_pipeline_with_the_car_configs_team():
    proc = ingestlab(
        "race",
        "posts",
        "--pipeline",
        "from-distribution",
        "--car",
        "defaults,1gheap,ssd",
        "--test-mode",
        "--challenge",
        "bulk",
        timeout=900,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "| bulk 1000 |" in proc.stdout
    race = results.latest_race({"study": "posts", "pipeline": "from-distribution"}, rally_home=paths.home() / "rally-from-distribution")
    assert race["pipeline"] == "from-distribution" and race["car"] == ["defaults", "1gheap", "ssd"]
    assert race["cluster"]["distribution-version"] == "7.17.29"
