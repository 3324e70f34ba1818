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
