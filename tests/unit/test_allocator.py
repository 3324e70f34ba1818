import subprocess
import sys

from ingestlab import allocator
from ingestlab.rally.race import environment


def test_both_thresholds_are_set_since_one_alone_pins_the_mmap_threshold_at_128_kib():
    env = allocator.with_settings({"PATH": "/bin"})
    assert env["MALLOC_TRIM_THRESHOLD_"] == str(64 << 20)
    assert env["MALLOC_MMAP_THRESHOLD_"] == str(32 << 20)  # glibc refuses more than 32 MiB on 64-bit
    assert env["PATH"] == "/bin"


def test_a_users_own_setting_wins():
    env = allocator.with_settings({"MALLOC_TRIM_THRESHOLD_": "0"})
    assert env["MALLOC_TRIM_THRESHOLD_"] == "0" and env["MALLOC_MMAP_THRESHOLD_"] == str(32 << 20)


def test_rallys_environment_carries_both(tmp_path, monkeypatch):
    for key in allocator.SETTINGS:
        monkeypatch.delenv(key, raising=False)
    env = environment("race", tmp_path, 1900, tmp_path / "progress")
    assert {k: env[k] for k in allocator.SETTINGS} == allocator.SETTINGS


def test_glibc_takes_the_mmap_threshold():
    """A 4 MiB buffer allocated and freed in a loop: with the settings it is reused from the heap, so the loop's
    minor page faults stay far under one per page of each buffer (a fresh mmap each time faults in all 1,024)."""
    code = (
        "import resource\nb=resource.getrusage(resource.RUSAGE_SELF).ru_minflt\n"
        "for _ in range(50):\n x=bytearray(4<<20); x[::4096]=b'\\1'*1024; del x\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt-b)"
    )
    faults = int(
        subprocess.run([sys.executable, "-c", code], env=allocator.with_settings({}), capture_output=True, text=True, check=True).stdout
    )
    assert faults < 50 * 1024 // 4
