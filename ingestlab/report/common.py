"""Small pieces every study's report uses."""
from __future__ import annotations


def is_test_mode(race: dict) -> bool:
    """Rally stores the tag value ``true`` as a boolean."""
    return str(race.get("user-tags", {}).get("test-mode", "")).lower() == "true"


def fmt(value, pattern: str, suffix: str = "") -> str:
    return "—" if value is None else format(value, pattern) + suffix
