"""The pack's own cost, measured beside a minimal client on the suite's real node: the overhead command's table and its
one line per task that a script reads; the load side alone prints every figure the README quotes."""

import json
import re

import pytest

from tests.integration.conftest import devtools_bench

pytestmark = pytest.mark.integration


def test_overhead_prints_a_ratio_line_per_task_measured_side_by_side(es_node):
    proc = devtools_bench(
        "overhead",
        "--target-hosts",
        es_node.hosts,
        "--rounds",
        "2",
        "--max-rounds",
        "2",
        "--runs",
        "1",
        "--scale",
        "0.05",
        "--warmup-rounds",
        "0",
        "--tasks",
        "posts-bulk-1000,reindex-raw",
        timeout=900,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    lines = dict(re.findall(r"^(posts bulk 1000|reindex raw sliced scroll): pack/minimal = ([\d.]+)x$", proc.stdout, re.M))
    assert set(lines) == {"posts bulk 1000", "reindex raw sliced scroll"} and all(float(v) > 0 for v in lines.values())
    # both sides ran in each round, in alternating order, and each has its client and node CPU per document
    assert len(re.findall(r"overhead round [12]/2 posts bulk 1000: pack [\d,]+ docs/s, minimal [\d,]+ docs/s", proc.stdout)) == 2
    row = next(line for line in proc.stdout.splitlines() if line.startswith("| posts bulk 1000 |"))
    cells = [c.strip() for c in row.strip(" |").split("|")]
    assert cells[4:6] == ["—", "2"], row  # two rounds give no 95 % interval: missing, not made up
    assert "—" not in cells[:4] + cells[6:], row  # every figure measured, none left blank


def test_an_unknown_overhead_task_is_named_before_anything_runs():
    proc = devtools_bench("overhead", "--target-hosts", "127.0.0.1:1", "--tasks", "posts-bulk-7")
    assert proc.returncode == 2 and "--tasks posts-bulk-7: the overhead bench has posts-index, posts-bulk-1000" in proc.stderr


def test_the_load_side_alone_prints_every_figure():
    proc = devtools_bench("load", "all", "--docs", "5000", "--memory", "2", "--worker-scale", "2", timeout=900)
    assert proc.returncode == 0, proc.stderr[-2000:]
    figures = json.loads(proc.stdout)
    assert figures["posts"]["prepared_docs"] == 5000 and figures["posts"]["docs_per_s"] > 0
    assert figures["dvf"]["etalab"]["rows_per_s"] > 0 and figures["dvf"]["official"]["rows_per_s"] > 0
    assert figures["wikipedia"]["mb_per_s"] > 0 and figures["eventdata"]["docs_per_s"] > 0
    # the peak memory of each generator and converter, each in a child of its own, at 1x and 2x its input
    peaks = {kind: row for study in figures.values() for kind, row in study["peak_rss"].items()}
    makers = {"posts-generator", "eventdata-generator", "dvf-etalab-converter", "dvf-official-converter", "wikipedia-converter"}
    workers = {"posts-worker", "dvf-worker", "wikipedia-worker", "eventdata-worker"}
    assert set(peaks) == makers | workers
    for kind in makers:
        row = peaks[kind]
        assert row["1x"][row["unit"]] == 5000 and row["2x"][row["unit"]] == 10000
        assert 10 < row["1x"]["peak_rss_mib"] < 2000 and row["growth"] == round(row["2x"]["peak_rss_mib"] / row["1x"]["peak_rss_mib"], 2)
    for kind in workers:  # a load-driver worker's writers: every document of its clients' shares drawn, at 1x and 2x
        row = peaks[kind]
        assert row["1x"]["docs"] == 20_000 and row["2x"]["docs"] == 40_000 and row["2x"]["peak_rss_mib"] > 0
    assert figures["wikipedia"]["mb_per_s_every_core_wall_clock"] > 0 and figures["wikipedia"]["cores"] >= 1
