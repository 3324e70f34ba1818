import socket

import pytest

from ingestlab import net
from ingestlab.cluster import jdk, lifecycle, node_process, versions
from ingestlab.cluster.model import Cluster, Node
from ingestlab.errors import IngestlabError


def cluster_of(n, version="7.17.29"):
    c = Cluster(name="t", version=version, heap="512m")
    c.nodes = [Node(f"node-{i + 1}", 29200 + i, 29300 + i, f"/tmp/n{i}") for i in range(n)]
    return c


def test_single_node_settings():
    c = cluster_of(1)
    s = node_process.node_settings(versions.spec_for("7.17.29"), c, c.nodes[0])
    assert s["discovery.type"] == "single-node" and s["network.host"] == "127.0.0.1"
    assert s["http.port"] == "29200" and s["transport.port"] == "29300"
    assert s["xpack.security.enabled"] == "false"


def test_three_nodes_discover_each_other():
    c = cluster_of(3)
    s = node_process.node_settings(versions.spec_for("7.17.29"), c, c.nodes[1])
    assert s["discovery.seed_hosts"] == "127.0.0.1:29300,127.0.0.1:29301,127.0.0.1:29302"
    assert s["cluster.initial_master_nodes"] == "node-1,node-2,node-3"
    assert "discovery.type" not in s


def test_six_eight_uses_zen_discovery():
    c = cluster_of(3, "6.8.23")
    s = node_process.node_settings(versions.spec_for("6.8.23"), c, c.nodes[0])
    assert s["discovery.zen.minimum_master_nodes"] == "2" and "transport.tcp.port" in s


def test_indexing_pressure_is_raised_where_it_exists():
    for version, kept in (("7.17.29", True), ("9.2.0", True), ("6.8.23", False)):
        c = cluster_of(1, version)
        c.settings = {"indexing_pressure.memory.limit": "50%"}
        s = node_process.node_settings(versions.spec_for(version), c, c.nodes[0])
        assert ("indexing_pressure.memory.limit" in s) is kept, version


def test_extra_jvm_options_come_from_the_environment_and_each_must_be_an_option(monkeypatch):
    monkeypatch.delenv(node_process.EXTRA_JAVA_OPTS, raising=False)
    assert node_process.extra_java_options() == []
    monkeypatch.setenv(node_process.EXTRA_JAVA_OPTS, " -XX:TieredStopAtLevel=1  -Dx=y ")
    assert node_process.extra_java_options() == ["-XX:TieredStopAtLevel=1", "-Dx=y"]
    monkeypatch.setenv(node_process.EXTRA_JAVA_OPTS, "-Xss1m TieredStopAtLevel=1")
    with pytest.raises(IngestlabError, match=r"INGESTLAB_NODE_JAVA_OPTS: 'TieredStopAtLevel=1' is not a JVM option"):
        node_process.extra_java_options()
    for heap in ("-Xmx2g", "-Xms2g", "-XX:MaxHeapSize=2g"):
        monkeypatch.setenv(node_process.EXTRA_JAVA_OPTS, heap)
        with pytest.raises(IngestlabError, match=rf"INGESTLAB_NODE_JAVA_OPTS: '{heap}' sets the heap; give its size with --heap"):
            node_process.extra_java_options()
    monkeypatch.setenv(node_process.EXTRA_JAVA_OPTS, "-Dlist=a|b")
    with pytest.raises(IngestlabError, match=r"INGESTLAB_NODE_JAVA_OPTS: '-Dlist=a\|b' holds a '\|', which the pack cannot record"):
        node_process.extra_java_options()


def test_port_in_use_is_detected():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        assert not net.port_is_free(sock.getsockname()[1])


def test_heap_validation():
    assert lifecycle.validate_heap("512m") == "512m"
    with pytest.raises(IngestlabError):
        lifecycle.validate_heap("lots")


def test_no_java_is_a_clear_error(monkeypatch):
    monkeypatch.delenv("ES_JAVA_HOME", raising=False)
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setattr(jdk.shutil, "which", lambda name: None)
    monkeypatch.setattr(jdk, "JVM_DIRS", ())
    with pytest.raises(IngestlabError, match="no Java found: install a JDK 17"):
        jdk.java_home_for(versions.spec_for("7.17.29"))


def test_a_secured_cluster_turns_on_security_and_tls_on_both_layers():
    c = cluster_of(3)
    c.security = True
    s = node_process.node_settings(versions.spec_for("7.17.29"), c, c.nodes[0])
    assert s["xpack.security.enabled"] == "true"
    assert s["xpack.security.http.ssl.enabled"] == "true" and s["xpack.security.transport.ssl.enabled"] == "true"
    assert s["xpack.security.http.ssl.certificate"] == "node.crt"  # a copy in the node's own config dir


def test_a_stopped_setups_data_can_be_dropped_keeping_its_logs(tmp_path, monkeypatch):
    c = Cluster(name="t", version="9.2.0", heap="512m")
    c.nodes = [Node(f"node-{i + 1}", 29200 + i, 29300 + i, str(tmp_path / f"node-{i + 1}")) for i in range(2)]
    for n in c.nodes:
        shard = tmp_path / n.name / "data" / "indices" / "abc" / "0"
        shard.mkdir(parents=True)
        (shard / "_0.cfs").write_bytes(b"x" * 1000)
        (tmp_path / n.name / "logs").mkdir()
        (tmp_path / n.name / "logs" / "t.log").write_text("kept")
    monkeypatch.setattr(lifecycle, "up", lambda shape, log: c)
    stopped, said = [], []
    monkeypatch.setattr(lifecycle, "stop", lambda cluster, log: stopped.append(cluster))
    with lifecycle.running(lifecycle.Shape(nodes=2), log=said.append):
        pass
    assert stopped and all(any((tmp_path / n.name / "data").iterdir()) for n in c.nodes)  # by default the data stays
    with lifecycle.running(lifecycle.Shape(nodes=2), drop_data=True, log=said.append):
        assert all(any((tmp_path / n.name / "data").iterdir()) for n in c.nodes)  # only after the block
    assert all((tmp_path / n.name / "data").is_dir() and not any((tmp_path / n.name / "data").iterdir()) for n in c.nodes)
    assert all((tmp_path / n.name / "logs" / "t.log").read_text() == "kept" for n in c.nodes)
    assert said[-1] == "[ingestlab] cluster t stopped; its nodes' data removed (0.00 GB)" and len(stopped) == 2
    assert node_process.drop_data(c.nodes[0]) == 0


def test_a_pid_file_is_read_only_once_the_node_wrote_its_number(tmp_path):
    pid_file = tmp_path / "es.pid"
    assert node_process._pid_in(pid_file) is None  # not there yet
    pid_file.write_text("")  # created, the number not yet written
    assert node_process._pid_in(pid_file) is None
    pid_file.write_text("4242\n")
    assert node_process._pid_in(pid_file) == 4242
