"""Hardware profiles of emulated hosts: options parsed with errors naming them, a profile scaled from a study's
machine keeps the study's ratio of CPU to memory, disk and network, and the shares must fit this machine."""

import pytest

from ingestlab.errors import IngestlabError
from ingestlab.hosts import cgroups, hardware


def test_options_become_a_profile_with_its_numbers():
    profile = hardware.from_options(cpus=0.5, memory="3g", disk="raid0:4xhdd", link="1gbit", driver_cpus=0.2)
    assert profile.cpus == 0.5 and profile.memory_bytes == 3 << 30 and profile.heap == "1536m" and profile.processors == 1
    assert profile.disk.devices == 4 and profile.disk.bytes_per_s == 150_000_000
    assert profile.disk.iops == 2289  # 150 MB/s in 64 KiB I/Os: a stream is bound by throughput, not by the class's 150 IOPS
    assert profile.link_bits == 1_000_000_000
    assert profile.label() == (
        "0.5 cores, 3.00 GiB (heap 1536m), RAID0 of 4 × hdd (150.0 MB/s, 2,289 IOPS), link 1,000.0 Mbit/s, load driver 0.2 cores"
    )
    assert hardware.Disk("ssd").iops == 20_000
    assert "," not in profile.tag() and ":" not in profile.tag() and profile.tag().startswith("0.5cpu-3.0gb-raid0x4hdd")
    assert hardware.Hardware.from_json(profile.to_json()) == profile


def test_a_profile_scaled_from_study_5_keeps_its_ratios():
    profile = hardware.from_options(cpus=0.5, scale="study5", driver_cpus=0.1)
    factor = 0.5 / 12
    assert profile.memory_bytes == int((24 << 30) * factor) and profile.link_bits == int(1e9 * factor)
    assert profile.disk.bytes_per_s == int(150e6 * factor) and profile.disk.iops == -(-int(150e6 * factor) // 65536)
    assert profile.source.startswith("study 5") and any("assumed" in n or "HDD" in n for n in profile.notes)
    raid = hardware.from_options(cpus=0.5, scale="study5", disk="raid0:4xhdd")
    assert raid.disk.devices == 4 and raid.disk.bytes_per_s == profile.disk.bytes_per_s  # each device as the single disk
    assert hardware.from_options(cpus=0.5, scale="study5", memory="2g").memory_bytes == 2 << 30  # given options override


@pytest.mark.parametrize(
    "options,message",
    [
        ({"disk": "floppy"}, "--disk 'floppy': one of sc1, hdd, ssd, nvme"),
        ({"disk": "raid0:9xhdd"}, "raid0:<2-8>x<kind>"),
        ({"memory": "lots"}, "--memory 'lots' is not a size"),
        ({"link": "fast"}, "--link 'fast' is not a rate"),
        ({"cpus": 0}, "--cpus 0: a number of cores"),
        ({"scale": "study5"}, "--scale needs --cpus"),
        ({"cpus": 1, "scale": "study9"}, "--scale 'study9': one of study5, study4"),
    ],
)
def test_bad_options_are_named(options, message):
    with pytest.raises(IngestlabError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        hardware.from_options(**options)


def test_the_shares_must_fit_this_machine():
    profile = hardware.from_options(cpus=0.5, driver_cpus=0.2, memory="4g")
    hardware.check_fits(profile, 2, cores=2, memory_bytes=24 << 30, coordinator_cpus=0.2)
    with pytest.raises(
        IngestlabError, match=r"3 hosts × \(0.5 \+ 0.2 load-driver\) cores \+ 0.2 .* = 2.3 cores, more than this machine's 2"
    ):
        hardware.check_fits(profile, 3, cores=2, memory_bytes=24 << 30, coordinator_cpus=0.2)
    with pytest.raises(IngestlabError, match="more than 90 % of this machine's"):
        hardware.check_fits(profile, 6, cores=64, memory_bytes=24 << 30)


def test_a_process_joins_its_groups_before_it_becomes_the_program():
    cmd = cgroups.joining([cgroups.Group("ingl", "h1-node")], ["elasticsearch", "-d"])
    assert cmd[:2] == ["sh", "-c"] and cmd[-2:] == ["elasticsearch", "-d"]
    assert "ingestlab-ingl/h1-node/cgroup.procs" in cmd[2] and 'exec "$@"' in cmd[2]


def test_study_5_on_emulated_hosts_fits_two_cores_with_one_load_driver_at_the_coordinator():
    """`corpora --emulated` races from the coordinator: its share counts once, the hosts' idle daemons get none."""
    from ingestlab.studies import corpora_hardware

    for _, hosts, devices, _ in corpora_hardware.SETUPS:
        profile = hardware.scaled("study5", corpora_hardware.CPUS, devices, coordinator_cpus=corpora_hardware.DRIVER_CPUS)
        assert profile.driver_cpus is None and profile.coordinator_share == 0.5 and profile.drivers_limited
        hardware.check_fits(profile, hosts, cores=2, memory_bytes=24 << 30, coordinator_cpus=profile.coordinator_share)
        assert "the coordinator's load driver 0.5 cores" in profile.label()
        assert hardware.Hardware.from_json(profile.to_json()) == profile
