"""The bottleneck law on the fidelity monitor's readings (:mod:`ingestlab.models.bottleneck`) and study 5's
emulated report built on it, with made-up monitor reports."""

import pytest

from ingestlab import published
from ingestlab.models import bottleneck
from ingestlab.studies import corpora, corpora_bottleneck, corpora_hardware


def monitor(nodes: int, devices: int, node_cores: float, iops: float, driver_cores: float, seconds: float = 100.0) -> dict:
    """A fidelity report: ``nodes`` nodes of 0.45 cores, each with ``devices`` disks of 86 IOPS and 5.6 MB/s,
    each using the given means; one load driver of 0.5 cores."""
    groups = [{"host": f"h{i}", "role": "node", "quota_cores": 0.45, "used_cores": node_cores} for i in range(1, nodes + 1)]
    groups.append({"host": "coordinator", "role": "coordinator", "quota_cores": 0.5, "used_cores": driver_cores})
    return {
        "seconds": seconds,
        "groups": groups,
        "devices": [
            {"host": f"h{i}", "iops": iops, "limit_iops": 86, "mb_per_s": 1.0, "limit_mb_per_s": 5.6}
            for i in range(1, nodes + 1)
            for _ in range(devices)
        ],
        "links": [
            {"host": f"h{i}", "direction": d, "mbit_per_s": 2.0 if d == "in" else 0.5, "limit_mbit_per_s": 37.5}
            for i in range(1, nodes + 1)
            for d in ("in", "out")
        ],
    }


def test_demands_and_the_bound_follow_the_utilisation_law():
    setup = bottleneck.Setup.of(monitor(1, 1, node_cores=0.09, iops=74, driver_cores=0.1))
    assert setup.capacity == {
        bottleneck.NODE_CPU: 0.45,
        bottleneck.DRIVER: 0.5,
        bottleneck.IOPS: 86,
        bottleneck.DISK_MB: 5.6,
        bottleneck.LINK: 37.5,
    }
    assert setup.used[bottleneck.LINK] == 2.0  # a host's busier direction
    demands = setup.demands(documents=94_900, copies=94_900)  # 949 docs/s over 100 s
    assert demands[bottleneck.IOPS] == pytest.approx(74 * 100 / 94_900)
    b = bottleneck.bound(demands, setup.capacity, 1)
    assert b.resource == bottleneck.IOPS and b.rate == pytest.approx(86 / 74 * 949)
    assert setup.busiest() == (bottleneck.IOPS, pytest.approx(74 / 86))  # the utilisation law: the busiest binds
    # a replica doubles what the nodes' resources carry per document, not the load driver's
    two = bottleneck.bound(demands, setup.capacity, 2)
    assert two.rate == pytest.approx(b.rate / 2)
    # a share without a quota never binds
    free = monitor(1, 1, 0.09, 74, 0.1)
    free["groups"][0]["quota_cores"] = None
    assert bottleneck.NODE_CPU not in bottleneck.Setup.of(free).capacity


def test_the_emulated_report_opens_with_the_model_and_sets_its_ratios_beside_the_measured_and_published():
    rows = {
        "eventdata": {
            corpora.ONE_NODE: {"median": 949.0},
            corpora.ONE_NODE_RAID: {"median": 1647.0},
            corpora.THREE_NODES: {"median": 4313.0},
            corpora.THREE_NODES_REPLICA: {"median": 2344.0},
        }
    }
    docs = 94_900
    setups = {
        "eventdata": {
            corpora.ONE_NODE: (bottleneck.Setup.of(monitor(1, 1, 0.09, 74, 0.1)), docs, docs),
            corpora.ONE_NODE_RAID: (bottleneck.Setup.of(monitor(1, 4, 0.16, 72, 0.15, seconds=57.6)), docs, docs),
            corpora.THREE_NODES: (bottleneck.Setup.of(monitor(3, 4, 0.2, 40, 0.3, seconds=62.5)), 2 * docs, 3 * docs),
        }
    }
    text = corpora_hardware.markdown(rows, published.load("rally-corpora"), [], {}, {}, "m", False, None, setups)
    first = text.splitlines()[2]
    assert first.startswith(
        "The bottleneck law on the fidelity monitor's readings — eventdata: one node on one disk was bound by its "
        "disk IOPS (86% used); the law predicts 3 nodes ÷ 1 node (RAID0) "
    )
    m = corpora_bottleneck.model(rows, setups)["eventdata"]
    # RAID0 ÷ one disk, from the one-disk race: 4x the IOPS, still short of the node CPU's bound (4,745 docs/s)
    raid = m["ratios"]["RAID0 of 4 ÷ one disk (1 node)"]
    assert raid["from"] == corpora.ONE_NODE and raid["binds"] == (bottleneck.IOPS, bottleneck.IOPS) and raid["value"] == pytest.approx(4.0)
    # 3 nodes ÷ 1, from the RAID0 race: its demands with 3x the nodes' resources; the one load driver does not grow
    nodes = m["ratios"]["3 nodes ÷ 1 node (RAID0)"]
    raid_demands = bottleneck.Setup.of(monitor(1, 4, 0.16, 72, 0.15, seconds=57.6)).demands(docs, docs)
    one = min(0.45 / raid_demands[bottleneck.NODE_CPU], 344 / raid_demands[bottleneck.IOPS], 0.5 / raid_demands[bottleneck.DRIVER])
    three = min(1.35 / raid_demands[bottleneck.NODE_CPU], 1032 / raid_demands[bottleneck.IOPS], 0.5 / raid_demands[bottleneck.DRIVER])
    assert nodes["from"] == corpora.ONE_NODE_RAID and nodes["value"] == pytest.approx(three / one)
    # a replica doubles the copies the nodes index, not the documents the load driver sends: here the driver binds
    # without one and the disks with one, so the bound falls by less than half
    replica = m["ratios"]["1 replica ÷ 0 (3 nodes)"]
    assert replica["from"] == corpora.THREE_NODES and replica["binds"] == (bottleneck.IOPS, bottleneck.DRIVER)
    assert 0.5 < replica["value"] < 1.0
    assert "| eventdata | 1 node, RAID0 x4, 0 replicas | 1,647 | disk IOPS (84%) | " in text
    assert "| eventdata | 2.62× / " in text  # the node ratio: measured first, then predicted, then published


def test_no_line_of_the_emulated_report_is_swallowed_into_a_table():
    rows = {"eventdata": {corpora.ONE_NODE: {"median": 949.0}, corpora.ONE_NODE_RAID: {"median": 1647.0}}}
    setups = {
        "eventdata": {
            corpora.ONE_NODE: (bottleneck.Setup.of(monitor(1, 1, 0.09, 74, 0.1)), 94_900, 94_900),
            corpora.ONE_NODE_RAID: (bottleneck.Setup.of(monitor(1, 4, 0.16, 72, 0.15, seconds=57.6)), 94_900, 94_900),
        }
    }
    lines = corpora_hardware.markdown(rows, published.load("rally-corpora"), [], {}, {}, "m", False, None, setups).splitlines()
    assert not [b for a, b in zip(lines, lines[1:]) if a.startswith("|") and b.strip() and not b.startswith("|")]
