"""The fidelity monitor's rules on made-up counters: a device's peak rate over a window of seconds (a throttle lets a
large bio through whole, so one second may exceed the limit while every few seconds keep to it), and memory judged by
the kernel's OOM kills, not by how often usage reached the limit (page cache reclaimed there)."""

from ingestlab.hosts import cgroups, fidelity


def _monitor():
    m = fidelity.Monitor.__new__(fidelity.Monitor)
    m.peak_disk, m._disk_history = {}, []
    return m


def _bytes(total: int) -> dict:
    return {"7:0": {"bytes": {"write": total}, "ios": {"write": total // 65536}}}


def test_a_burst_within_one_second_is_averaged_over_the_window():
    m = _monitor()
    total = 0
    for second in range(12):  # 5 MB/s on average, all of each 2 s budget dispatched in one second as one large bio
        total += 10_000_000 if second % 2 else 0
        m._disk_peaks(float(second), _bytes(total))
    peak = m.peak_disk[("7:0", "bytes")]
    assert 4_000_000 <= peak <= 6_000_000, peak  # a one-second look would have said 10 MB/s


def test_no_peak_before_a_full_window():
    m = _monitor()
    for second in range(4):
        m._disk_peaks(float(second), _bytes(second * 50_000_000))
    assert m.peak_disk == {}


def test_oom_kills_are_read_from_oom_control():
    assert int(cgroups._fields("oom_kill_disable 0\nunder_oom 0\noom_kill 3\n").get("oom_kill", 0)) == 3
    assert int(cgroups._fields("oom_kill_disable 0\nunder_oom 0\n").get("oom_kill", 0)) == 0  # older kernels lack it


class _Group:
    """A cgroup's counters as cgroups.Group.stats gives them, at a fixed quota."""

    def __init__(self, quota_us: int):
        self.quota_us = quota_us

    def stats(self) -> dict:
        keys = ("usage_ns", "nr_periods", "nr_throttled", "throttled_ns", "memory_peak", "memory_failcnt", "oom_kills")
        return {**dict.fromkeys(keys, 0), "quota_us": self.quota_us, "memory_limit": None}


def test_a_group_whose_quota_is_not_the_profiles_means_the_emulation_did_not_hold():
    """`hosts up` puts the quotas on after the nodes and daemons start (emulation.hold): a lab whose `up` was cut short
    before that races without them, and the verdict says so; quotas as set_cpus writes them hold."""
    from ingestlab.hosts import hardware

    m = _monitor()
    m.hardware = hardware.Hardware(cpus=0.29, driver_cpus=0.57, coordinator_cpus=1.1)  # 0.29 x 100,000 is 28,999.99...
    m.machine_first, m.saturated_seconds, m.seconds_seen = fidelity.this_machine.busy_ns(), 0, 0
    m.lab, m.link_first = type("Lab", (), {"hosts": []})(), {}
    held = [
        fidelity._Watched("h1", "node", _Group(cgroups.quota_us(0.29))),
        fidelity._Watched("h1", "driver", _Group(cgroups.quota_us(0.57))),
        fidelity._Watched("coordinator", "driver", _Group(cgroups.quota_us(1.1))),
    ]
    m.watched = held
    assert m._verdict(10.0)["problems"] == []
    m.watched = [fidelity._Watched("h1", "node", _Group(-1)), *held[1:]]
    (problem,) = m._verdict(10.0)["problems"]
    assert problem.startswith("the node of h1 ran under no CPU quota where the profile gives it 0.29 cores")
    m.watched = [*held[:2], fidelity._Watched("coordinator", "driver", _Group(cgroups.quota_us(0.57)))]  # the hosts' share
    (problem,) = m._verdict(10.0)["problems"]
    assert problem.startswith("the driver of coordinator ran under a quota of 0.57 cores where the profile gives it 1.1 cores")


def test_an_emulated_node_starts_under_the_whole_cores_its_quota_rounds_up_to_and_hold_puts_the_quotas_on(monkeypatch):
    from ingestlab.hosts import emulation, hardware
    from ingestlab.hosts.namespaces import Host

    quotas = {}

    class Recorded:
        def __init__(self, name):
            self.name = name

        def create(self, cpus, memory_bytes):
            quotas[self.name] = cpus

        def set_cpus(self, cpus):
            quotas[self.name] = cpus

        @property
        def procs_files(self):
            return []

    lab = type("Lab", (), {"group": lambda self, host, role: Recorded(f"{host}-{role}")})()
    monkeypatch.setattr(emulation, "ensure_service_user", lambda: None)
    profile = hardware.Hardware(cpus=0.45, driver_cpus=0.1)
    hosts = [Host("h1", "ingu-h1", "127.213.30.11", "ingu-v1")]
    emulation.emulate(lab, hosts, profile, log=lambda *_: None)
    assert quotas == {"h1-node": 1, "h1-driver": None, "coordinator-driver": None}
    assert [emulation.starting_cpus(c) for c in (0.05, 1.0, 1.15, 2.0)] == [1, 1, 2, 2]
    emulation.hold(lab, hosts, profile)
    assert quotas == {"h1-node": 0.45, "h1-driver": 0.1, "coordinator-driver": 0.1}
