"""The redline report from a stored result: a missing value is shown as missing, the steps in rate order."""

from ingestlab.redline import report


def _probe(rate, outcome, p99, verdict="neither at its limit"):
    return {
        "rate": rate,
        "outcome": outcome,
        "why": f"p99 {p99} ms",
        "latency_ms": {"p50": 10.0, "p90": 20.0, "p99": p99},
        "throughput": rate * 0.99 if p99 is not None else None,
        "error_rate": 0.0,
        "race_id": "r",
        "load_side": {"verdict": verdict},
    }


RESULT = {
    "stamp": "20261127T100000",
    "track": "posts",
    "challenge": "redline",
    "task": "redline-bulk",
    "bulk_size": 1000,
    "latency_target": {"percentile": "99", "ms": 200.0},
    "error_rate": 0.0,
    "rate": 4000.0,
    "failed_above": 4200.0,
    "stopped": "4,000 docs/s offered met the target in all 3 of its probes",
    "machine_line": "this machine",
    "full_speed": {"rate": 8000.0, "clients": 1, "races": ["abcdef0123", "0123abcdef"]},
    "probes": [
        _probe(1000, "pass", 30.0),
        _probe(4200, "fail", 900.0, "cluster bound"),
        _probe(4000, "pass", 150.0),
        _probe(4200, "fail", None),
        _probe(4000, "pass", 160.0),
        _probe(4000, "pass", 170.0),
    ],
}


def test_the_lines_name_the_rate_the_knee_and_full_speed_and_show_a_missing_latency_as_missing():
    text = "\n".join(report.lines(RESULT))
    assert "- sustainable: 4,000 docs/s offered: all 3 of its probes met the target, 50% of full speed" in text
    assert "4,200 docs/s, which failed" in text and "- full speed: 8,000 docs/s" in text
    rows = [line for line in text.splitlines() if line.startswith("| ") and line[2].isdigit()]
    assert [r.split(" | ")[0] for r in rows] == ["| 1,000", "| 4,000", "| 4,200"]
    assert "| 4,000 | 3 | 3 | 10 | 20 | 160 (150–170) | — |" in text  # requests not recorded: missing, not 0
    assert "| 4,200 | 2 | 0 |" in text and " 900 |" in text and "cluster bound" in text
    assert "Probes that did not pass: 4,200 docs/s: p99 900.0 ms" in text  # each failed probe with its own reason


def test_the_chart_is_a_png(tmp_path):
    png = report.chart(RESULT)
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000


def test_the_recorded_command_leaves_out_client_options():
    from ingestlab.report.writer import command_line

    got = command_line(
        [
            "redline",
            "posts",
            "--latency",
            "p99<=200ms",
            "--client-options",
            "basic_auth_password:'s3cret'",
            "--client-options=basic_auth_password:'s3cret'",
            "--target-hosts",
            "h:9200",
        ]
    )
    assert got == "ingestlab redline posts --latency 'p99<=200ms' --target-hosts h:9200" and "s3cret" not in got
