"""Emulated hardware, proven on small cases on this machine: a CPU quota holds under a busy load, a two-device RAID0
writes well above one device under the same throttle, a shaped link carries its rate; a lab with a whole profile
races with a fidelity verdict, and tear-down (also after a failed `hosts up`) leaves no cgroup, loop device, mount or
qdisc. No benchmark outcome is asserted here."""

import os
import subprocess
import sys
import time
import uuid

import pytest

from ingestlab.hosts import cgroups, disks, hardware, links, namespaces
from ingestlab.hosts import lab as labs
from ingestlab.models import bottleneck
from ingestlab.rally import results
from tests.integration.conftest import ingestlab

pytestmark = [
    pytest.mark.integration,
    pytest.mark.lab,
]  # test hosts of its own; what measures this machine's cores, disks and links runs alone


def _need(reason):
    if reason:
        pytest.skip(reason)


@pytest.fixture
def group():
    _need(cgroups.unavailable_reason())
    prefix = f"t{uuid.uuid4().hex[:6]}"
    made = cgroups.Group(prefix, "busy")
    yield made
    cgroups.remove(prefix)
    assert cgroups.existing(prefix) == []


@pytest.mark.alone
def test_a_cpu_quota_holds_within_ten_percent_under_a_busy_load(group):
    group.create(0.5, None)
    busy = subprocess.Popen(cgroups.joining([group], [sys.executable, "-c", "while True: pass"]))
    try:
        time.sleep(1.0)
        first, start = group.stats(), time.monotonic()
        time.sleep(5.0)
        last, seconds = group.stats(), time.monotonic() - start
    finally:
        busy.kill()
        busy.wait()
    used = (last["usage_ns"] - first["usage_ns"]) / 1e9 / seconds
    print(
        f"[emulation] quota 0.5 cores: used {used:.3f} cores, throttled {last['nr_throttled'] - first['nr_throttled']} of "
        f"{last['nr_periods'] - first['nr_periods']} periods"
    )
    assert abs(used - 0.5) <= 0.05 and last["nr_throttled"] > first["nr_throttled"]


def _write_rate(mount: str) -> float:
    start = time.monotonic()
    subprocess.run(["dd", "if=/dev/zero", f"of={mount}/f", "bs=1M", "count=120", "conv=fsync"], check=True, capture_output=True)
    return 120 * (1 << 20) / (time.monotonic() - start)


@pytest.mark.alone
def test_a_two_device_raid0_writes_at_least_1_6_times_one_device_under_the_same_throttle(tmp_path):
    _need(disks.unavailable_reason())
    disk = hardware.Disk("hdd", 1, scale=20 / 150)  # 20 MB/s per device
    one = disks.create(tmp_path, "single", disk, (0, 0))
    try:
        single = _write_rate(one.mount)
        two = disks.create(tmp_path, "raid", hardware.Disk("hdd", 2, scale=20 / 150), (0, 0))
        raid = _write_rate(two.mount)
    finally:
        disks.remove(tmp_path)
    print(f"[emulation] 20 MB/s per device: one device {single / 1e6:.1f} MB/s, RAID0 of two {raid / 1e6:.1f} MB/s ({raid / single:.2f}×)")
    assert raid >= 1.6 * single
    assert disks.existing(tmp_path) == []
    assert not any(str(tmp_path) in line for line in open("/proc/mounts"))


@pytest.mark.alone
def test_a_shaped_link_carries_its_rate_within_15_percent():
    _need(namespaces.unavailable_reason() or links.unavailable_reason())
    prefix, subnet = "inls", "127.213.11"
    host = namespaces.create(prefix, subnet, 1)[0]
    try:
        links.shape(host, 40_000_000)
        server = subprocess.Popen(
            namespaces.in_namespace(
                host,
                [
                    sys.executable,
                    "-c",
                    (
                        "import socket; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); "
                        f"s.bind(('{host.address}', 5999)); s.listen(1); c, _ = s.accept()\n"
                        "while c.recv(1 << 16): pass"
                    ),
                ],
            )
        )
        time.sleep(1.0)
        import socket

        sent, payload = 0, b"x" * (1 << 16)
        with socket.create_connection((host.address, 5999), timeout=10) as sock:
            start = time.monotonic()
            while time.monotonic() - start < 5.0:
                sock.sendall(payload)
                sent += len(payload)
            seconds = time.monotonic() - start
        server.wait(timeout=10)
        rate = sent * 8 / seconds
        print(f"[emulation] link shaped to 40 Mbit/s carried {rate / 1e6:.1f} Mbit/s")
        assert abs(rate - 40e6) <= 0.15 * 40e6
    finally:
        namespaces.delete(prefix)
    assert namespaces.existing_links(prefix) == [] and namespaces.existing_namespaces(prefix) == []


PREFIX, SUBNET = "inge", "127.213.8"
PROFILE = ["--cpus", "0.4", "--driver-cpus", "0.2", "--memory", "1536m", "--disk", "raid0:2xssd", "--link", "200mbit"]


def _nothing_left(prefix: str) -> None:
    directory = labs.lab_dir(prefix)
    assert labs.leftovers(prefix) == []
    assert cgroups.existing(prefix) == [] and disks.existing(directory) == []
    assert not any(str(directory) in line for line in open("/proc/mounts"))
    assert not [
        line for line in subprocess.run(["tc", "qdisc", "show"], capture_output=True, text=True).stdout.splitlines() if f"{prefix}-" in line
    ]


@pytest.fixture(scope="module")
def emulated_lab():
    _need(namespaces.unavailable_reason() or cgroups.unavailable_reason() or disks.unavailable_reason())
    up = ingestlab("hosts", "up", "--hosts", "2", "--prefix", PREFIX, "--subnet", SUBNET, *PROFILE, timeout=900)
    try:
        assert up.returncode == 0, up.stdout[-3000:] + up.stderr[-3000:]
        assert "each host's hardware: 0.4 cores, 1.50 GiB (heap 768m), RAID0 of 2 × ssd" in up.stdout
        yield labs.require(PREFIX)
    finally:
        down = ingestlab("hosts", "down", "--prefix", PREFIX, timeout=300)
        assert down.returncode == 0, down.stdout[-2000:] + down.stderr[-2000:]
        _nothing_left(PREFIX)


@pytest.mark.alone
def test_a_race_on_emulated_hosts_says_whether_the_emulation_held(emulated_lab):
    for host in emulated_lab.hosts:  # each node in its own groups, on its own disk
        assert emulated_lab.group(host.name, "node").threads(), f"no thread of {host.name}'s node in its cgroup"
    assert {d["host"] for d in emulated_lab.disks} == {"h1", "h2"} and all(len(d["devices"]) == 2 for d in emulated_lab.disks)
    tag = f"it-{uuid.uuid4().hex[:8]}"
    proc = ingestlab(
        "race",
        "posts",
        "--challenge",
        "bulk",
        "--test-mode",
        "--hosts",
        PREFIX,
        "--one-driver",
        "--tag",
        f"run:{tag}",
        "--track-param",
        "number_of_shards=2",
        timeout=900,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "Emulated hardware per host: 0.4 cores" in proc.stdout
    assert "Fidelity: **emulation held**" in proc.stdout or "Fidelity: **EMULATION DID NOT HOLD**" in proc.stdout
    stored = results.latest_race({"study": "posts", "run": tag})
    report = stored[results.EMULATION_KEY]
    assert {(g["host"], g["role"]) for g in report["groups"]} >= {("h1", "node"), ("h2", "node"), ("coordinator", "driver")}
    assert all(g["quota_cores"] == 0.4 for g in report["groups"] if g["role"] == "node")
    assert len(report["devices"]) == 4 and len(report["links"]) == 4
    assert stored["user-tags"]["hardware"].startswith("0.4cpu-1.5gb-raid0x2ssd")
    # the bottleneck law reads this race's resources: capacities from the profile, use from the monitor
    setup = bottleneck.Setup.of(report)
    assert setup.capacity[bottleneck.NODE_CPU] == pytest.approx(0.8)
    assert setup.capacity[bottleneck.IOPS] == sum(d["limit_iops"] for d in report["devices"]) > 0
    assert setup.used[bottleneck.NODE_CPU] > 0 and setup.used[bottleneck.DRIVER] > 0
    assert bottleneck.bound(setup.demands(1_000, 1_000), setup.capacity, 1).resource in bottleneck.RESOURCES


def test_a_failed_hosts_up_takes_away_what_it_made():
    """A node whose memory limit cannot hold it is killed while it starts, after the host's cgroups, disk and link were
    made: the error says why, and everything made is gone."""
    _need(namespaces.unavailable_reason() or cgroups.unavailable_reason() or disks.unavailable_reason())
    prefix = "ingf"
    small = [*PROFILE[:4], "--memory", "200m", *PROFILE[6:]]
    proc = ingestlab("hosts", "up", "--hosts", "1", "--prefix", prefix, "--subnet", "127.213.12", *small, timeout=600)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "did not come up; removing what was made" in proc.stdout
    assert "hit its memory limit" in proc.stderr, proc.stderr[-2000:]
    _nothing_left(prefix)


def test_what_is_missing_is_one_line(monkeypatch):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    for reason in (cgroups.unavailable_reason(), disks.unavailable_reason()):
        assert reason and "root" in reason and "\n" not in reason


@pytest.mark.alone
def test_a_sweep_over_disks_provisions_each_setup_on_emulated_hosts():
    _need(namespaces.unavailable_reason() or cgroups.unavailable_reason() or disks.unavailable_reason())
    proc = ingestlab(
        "sweep",
        "posts",
        "--challenge",
        "bulk",
        "--test-mode",
        "--grid",
        "disk=ssd,raid0:2xssd",
        "--grid",
        "cpus=0.8",
        "--driver-cpus",
        "0.3",
        timeout=1200,
    )
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    runs = [line for line in proc.stdout.splitlines() if line.startswith("[ingestlab] sweep ") and "(run 1)" in line]
    assert len(runs) == 2 and any("disk=raid0-2xssd" in line for line in runs), proc.stdout[-3000:]
    assert "setup" not in proc.stdout or "failed" not in proc.stdout.split("setup", 1)[1][:60]
    assert labs.Lab.load("inglsw") is None and labs.leftovers("inglsw") == []
