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


def invalid_lines(race: dict, runner_stats: list[dict] | None = None) -> list[str]:
    """Every report's verdict on failed requests: any task of the race with errors (a check task too) marks
    the whole report INVALID, with the error rates and, where the pack's runners recorded them, the first
    error of each task. Empty when the race was clean."""
    from ingestlab.rally.results import task_results

    failed = {name: r.error_rate for name, r in task_results(race).items() if r.error_rate}
    if not failed:
        return []
    rates = ", ".join(f"{name} ({rate:.1%} of requests)" for name, rate in failed.items())
    lines = [f"- **INVALID**: requests failed in {rates}; the numbers above are not clean."]
    if runner_stats is None:
        from ingestlab.rally.race import runner_stats_file
        from ingestlab.runners.runner_stats import read

        runner_stats = read(runner_stats_file(race["race-id"])) if race.get("race-id") else []
    first_errors: dict = {}
    for entry in runner_stats:
        if entry.get("error"):
            first_errors.setdefault(entry.get("task"), [0, entry["error"]])[0] += 1
    for task, (count, message) in first_errors.items():
        lines.append(f"  - {task}: {count} failed call{'s' if count != 1 else ''}; first: {message}")
    return lines
