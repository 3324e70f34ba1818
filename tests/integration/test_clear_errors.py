"""User mistakes end in one clear line, not a traceback."""

import socket

import pytest

from ingestlab import paths
from tests.integration.conftest import ingestlab, plain_esrally, port_1900_taken

pytestmark = [pytest.mark.integration, pytest.mark.check]


def test_port_in_use():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        proc = ingestlab("cluster", "up", "--name", "ingestlab-busy", "--http-port", str(port))
    assert proc.returncode == 2
    assert f"port(s) {port}" in proc.stderr and "Traceback" not in proc.stderr


def test_unknown_study():
    proc = ingestlab("race", "nosuchstudy", "--target-hosts", "127.0.0.1:1")
    assert proc.returncode == 2 and "unknown study 'nosuchstudy'" in proc.stderr and "Traceback" not in proc.stderr


def test_race_without_a_cluster():
    proc = ingestlab("race", "posts", "--cluster", "ingestlab-none")
    assert proc.returncode == 2 and "ingestlab cluster up" in proc.stderr


def test_node_that_does_not_start_reports_its_log_and_leaves_nothing_running():
    proc = ingestlab(
        "cluster", "up", "--name", "ingestlab-bad", "--http-port", "29270", "--transport-port", "29370", "--setting", "no.such.setting=1"
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "node-1 did not start" in proc.stderr or "exited during start-up" in proc.stderr
    assert "no.such.setting" in proc.stderr  # the tail of the node's own log says why
    status = ingestlab("cluster", "status", "--name", "ingestlab-bad")
    assert '"running": false' in status.stdout


def test_race_against_a_wrong_address_fails_fast_naming_the_host():
    proc = ingestlab("race", "posts", "--test-mode", "--target-hosts", "127.0.0.1:1")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("ingestlab: error: no Elasticsearch answers at 127.0.0.1:1 (")
    assert "ingestlab cluster up" in proc.stderr


def test_track_param_of_the_wrong_kind_is_named_before_rally_starts():
    proc = ingestlab("race", "posts", "--test-mode", "--target-hosts", "127.0.0.1:1", "--track-param", "bulk_sizes=abc")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "track parameter 'bulk_sizes' of posts must be a JSON list of integers" in proc.stderr


@pytest.mark.skipif(port_1900_taken(), reason="another Rally holds 127.0.0.1:1900; plain esrally would join it")
def test_plain_esrally_against_a_wrong_address_fails_fast(tmp_path):
    """Rally connects before it loads the track, so its own message (a traceback ending in the refused
    connection) is what plain esrally users see; it comes within seconds, and nothing is raced."""
    proc = plain_esrally(
        "race",
        "--pipeline=benchmark-only",
        f"--track-path={paths.TRACKS_DIR / 'posts'}",
        "--target-hosts=127.0.0.1:1",
        "--test-mode",
        rally_home=tmp_path,
        timeout=120,
    )
    assert proc.returncode != 0 and proc.seconds < 60
    assert "Cannot race" in proc.stdout + proc.stderr and "Connection refused" in proc.stdout + proc.stderr


def test_data_dir_that_cannot_hold_the_nodes_is_named(tmp_path):
    not_a_dir = tmp_path / "a-file"
    not_a_dir.write_text("")
    proc = ingestlab(
        "cluster", "up", "--name", "ingestlab-nodir", "--http-port", "29273", "--transport-port", "29373", "--data-dir", str(not_a_dir)
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert f"cannot create {not_a_dir}/ingestlab-nodir for the nodes' data" in proc.stderr and "--data-dir" in proc.stderr


def test_data_dir_the_service_user_cannot_write_is_named(tmp_path):
    private = tmp_path / "private"
    private.mkdir(mode=0o500)  # root: Elasticsearch's user cannot enter it; anyone else: cannot write it
    proc = ingestlab(
        "cluster", "up", "--name", "ingestlab-ro", "--http-port", "29273", "--transport-port", "29373", "--data-dir", str(private / "nodes")
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert str(private) in proc.stderr and "--data-dir" in proc.stderr
    assert '"running": false' in ingestlab("cluster", "status", "--name", "ingestlab-ro").stdout


def test_maven_unreachable_with_an_empty_cache_is_a_clear_error_and_leaves_nothing(tmp_path):
    """Maven's own settings point every repository at a closed port; the local repository is empty."""
    (tmp_path / ".m2").mkdir()
    (tmp_path / ".m2" / "settings.xml").write_text(
        "<settings><mirrors><mirror><id>unreachable</id><mirrorOf>*</mirrorOf>"
        "<url>http://127.0.0.1:1/maven2</url></mirror></mirrors></settings>"
    )
    env = {
        "MAVEN_OPTS": f"-Duser.home={tmp_path}",
        "INGESTLAB_MAVEN_REPO": str(tmp_path / ".m2" / "repository"),
        "INGESTLAB_HOME": str(tmp_path / "home"),
    }
    proc = ingestlab("cluster", "up", "--name", "ingestlab-nomaven", "--http-port", "29274", "--transport-port", "29374", env=env)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "Maven could not resolve org.elasticsearch.distribution.integ-test-zip:elasticsearch:7.17.29:zip" in proc.stderr
    assert "127.0.0.1:1" in proc.stderr  # Maven's own words name the repository it could not reach
    assert not list((tmp_path / "home").glob("distributions/*/*"))  # no half-unpacked distribution
    assert '"running": false' in ingestlab("cluster", "status", "--name", "ingestlab-nomaven", env=env).stdout
