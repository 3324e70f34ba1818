"""Naming of the test hosts, and what a lab gathers and watches during a race (no namespaces made here)."""

import json

import pytest

from ingestlab.errors import IngestlabError
from ingestlab.hosts import lab as labs
from ingestlab.hosts import namespaces
from ingestlab.rally import driver_watch
from ingestlab.rally.driver_watch import DriverStats, DriverWatch


def test_hosts_are_numbered_from_ten_up_on_the_subnet():
    hosts = namespaces.hosts_for("ingl", "127.213.0", 3)
    assert [(h.name, h.namespace, h.address, h.veth) for h in hosts] == [
        ("h1", "ingl-h1", "127.213.0.11", "ingl-v1"),
        ("h2", "ingl-h2", "127.213.0.12", "ingl-v2"),
        ("h3", "ingl-h3", "127.213.0.13", "ingl-v3"),
    ]
    assert namespaces.coordinator_address("127.213.0") == "127.213.0.1" and namespaces.bridge_name("ingl") == "ingl-br"


@pytest.mark.parametrize(
    "prefix, subnet", [("Ingl", "127.213.0"), ("toolongname", "127.213.0"), ("ingl", "127.213"), ("ingl", "127.213.300")]
)
def test_bad_names_are_refused_before_anything_is_made(prefix, subnet):
    with pytest.raises(IngestlabError):
        namespaces.check_names(prefix, subnet)


def test_interface_names_fit_the_kernels_limit():
    longest = namespaces.hosts_for("abcdefgh", "10.0.0", 32)[-1]
    assert len(longest.veth) <= 15 and len(namespaces.bridge_name("abcdefgh")) <= 15


@pytest.fixture
def lab(tmp_path, monkeypatch):
    monkeypatch.setenv("INGESTLAB_HOME", str(tmp_path))
    return labs.Lab(prefix="ingu", subnet="127.213.5", count=2, actor_port=40000)


def test_each_hosts_new_runner_stats_go_into_the_race_file_marked_with_the_host(lab, tmp_path):
    h1, h2 = lab.hosts
    lab.runner_stats_file(h1).parent.mkdir(parents=True)
    lab.runner_stats_file(h1).write_text(json.dumps({"task": "old"}) + "\n")  # an earlier race's line
    stats = DriverStats(lab)
    with open(lab.runner_stats_file(h1), "a") as f:
        f.write(json.dumps({"task": "scale-out-local", "docs": 5}) + "\n")
    lab.runner_stats_file(h2).write_text(json.dumps({"task": "scale-out-local", "docs": 7}) + "\n")
    into = tmp_path / "race" / "stats.jsonl"
    assert stats.collect(into) == 2
    lines = [json.loads(x) for x in into.read_text().splitlines()]
    assert lines == [
        {"task": "scale-out-local", "docs": 5, "load_driver": "h1"},
        {"task": "scale-out-local", "docs": 7, "load_driver": "h2"},
    ]


def test_a_host_silent_for_the_grace_period_is_named(lab, monkeypatch):
    silent = {"127.213.5.12"}
    monkeypatch.setattr(driver_watch, "answers", lambda address, port, timeout=1.0: address not in silent)
    watch = DriverWatch(lab, grace=0.0)
    problem = watch.check()
    assert problem.startswith("load-driver host h2 (127.213.5.12) stopped answering on Rally's actor port 40000")
    silent.clear()
    assert watch.check() is None


def test_a_short_silence_is_not_yet_a_problem(lab, monkeypatch):
    monkeypatch.setattr(driver_watch, "answers", lambda address, port, timeout=1.0: False)
    assert DriverWatch(lab, grace=60).check() is None


def test_state_round_trips_and_a_missing_lab_is_a_clear_error(lab):
    lab.save()
    assert labs.Lab.load("ingu") == lab
    with pytest.raises(IngestlabError, match="no lab of test hosts 'nolab' is up"):
        labs.require("nolab")
