"""glibc's allocator settings for the processes that send documents (Rally's and OSB's load drivers, the lab's
daemons, the overhead bench's client). Setting the trim threshold alone turns off glibc's self-tuning mmap threshold,
so every buffer over 128 KiB would be a fresh ``mmap``; both are set, so request bodies come from the heap."""

from __future__ import annotations

from typing import Mapping

TRIM_THRESHOLD = 64 << 20  # freed memory stays in the process up to this much at the top of its heap
MMAP_THRESHOLD = 32 << 20  # buffers under this come from the heap, not a fresh mmap each (glibc's largest allowed)

SETTINGS = {"MALLOC_TRIM_THRESHOLD_": str(TRIM_THRESHOLD), "MALLOC_MMAP_THRESHOLD_": str(MMAP_THRESHOLD)}


def with_settings(env: Mapping[str, str]) -> dict:
    """``env`` with the allocator settings added where it does not set them itself."""
    return {**SETTINGS, **env}
