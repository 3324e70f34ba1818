"""Small pieces every study's report uses."""
from __future__ import annotations


def is_test_mode(race: dict) -> bool:
    """Rally stores the tag value ``true`` as a boolean."""
    return str(race.get("user-tags", {}).get("test-mode", "")).lower() == "true"


def fmt(value, pattern: str, suffix: str = "") -> str:
    return "—" if value is None else format(value, pattern) + suffix


def this_machine(race: dict, machine_line: str) -> str:
    """"This machine: …" with the Elasticsearch and esrally versions and the race id, as every report states it."""
    cluster = race.get("cluster", {})
    return (f"This machine: {machine_line}; Elasticsearch {cluster.get('distribution-version')} ({cluster.get('distribution-flavor')}), "
            f"esrally {race.get('rally-version')}, race {race.get('race-id')}")
