"""glibc's allocator settings for the processes that send documents: Rally's (and opensearch-benchmark's) load
drivers, the lab's esrallyd daemons and the overhead bench's minimal client, which gets the same as the pack's side.

A load driver builds and frees a request body of megabytes per bulk and reads scroll pages as large. With glibc's
defaults, freed memory is handed back to the kernel once the top of the heap holds more than the trim threshold,
and the next batch faults its pages in again. Raising only the trim threshold (``M_TRIM_THRESHOLD``) is not enough:
setting any of these thresholds turns off glibc's self-tuning mmap threshold, which then stays at 128 KiB, so every
buffer over that size became a fresh ``mmap`` whose pages the kernel zeroes on first touch, and an ``munmap`` when
freed. Measured with the raw sliced-scroll copy and Rally's client on the 2-core AMD EPYC (20,000 pages): 11.5–15.1 µs
of client CPU per document with the trim threshold alone, 5.0–7.9 with both set (a trim threshold of 64 or 256 MiB
alike), 6.1–9.1 with neither; the process's peak RSS 107, 120–128 and 123 MiB. A pmc worker racing Rally's own bulk
(57,420 articles, one node) kept 284 MiB of anonymous memory with 64 MiB, 298–306 with 256 MiB, and 193–210 with the
trim threshold alone, when its ~15 MB bodies (500 articles of ~30 KB) were each a fresh mmap.
"""

from __future__ import annotations

from typing import Mapping

TRIM_THRESHOLD = 64 << 20  # freed memory stays in the process up to this much at the top of its heap
MMAP_THRESHOLD = 32 << 20  # buffers under this come from the heap, not a fresh mmap each (glibc's largest allowed)

SETTINGS = {"MALLOC_TRIM_THRESHOLD_": str(TRIM_THRESHOLD), "MALLOC_MMAP_THRESHOLD_": str(MMAP_THRESHOLD)}


def with_settings(env: Mapping[str, str]) -> dict:
    """``env`` with the allocator settings added where it does not set them itself."""
    return {**SETTINGS, **env}
