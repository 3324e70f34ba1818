"""Results end to end: two tagged races compared (by the pack and by plain `esrally compare`), the HTML
report opened in headless Chromium with its charts, and the nightly run failing on an injected regression."""
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import uuid

import pytest

from ingestlab import paths
from ingestlab.rally import results
from tests.integration.conftest import ingestlab

pytestmark = pytest.mark.integration


def chromium_dom(path) -> str:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("Debian's chromium is not installed (.ci/run installs it)")
    proc = subprocess.run([browser, "--headless=new", "--no-sandbox", "--disable-gpu", "--dump-dom", f"file://{path}"],
                          capture_output=True, text=True, timeout=120)
    return proc.stdout


def test_tagged_races_compare_and_the_html_report_shows_its_charts(es_node, tmp_path):
    uid = uuid.uuid4().hex[:8]
    for side in ("a", "b"):
        proc = ingestlab("race", "posts", "--test-mode", "--challenge", "bulk", "--target-hosts", es_node.hosts,
                         "--tag", f"cmp:{uid}-{side}", "--track-param", "index_name=posts-cmp")
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    mine = ingestlab("compare", "--baseline", f"cmp:{uid}-a", "--contender", f"cmp:{uid}-b", "--study", "posts")
    assert mine.returncode == 0, mine.stderr
    assert re.search(r"\| bulk-1000 \| [\d,.]+ \(.*n=1\) \| [\d,.]+ .*\| [+-]\d+\.\d% \| ±5\.0% \| (faster|slower|within noise) \|", mine.stdout)

    a = results.latest_race({"cmp": f"{uid}-a"})
    b = results.latest_race({"cmp": f"{uid}-b"})
    esrally = os.path.join(os.path.dirname(sys.executable), "esrally")
    report = tmp_path / "compare.md"
    plain = subprocess.run([esrally, "compare", f"--baseline={a['race-id']}", f"--contender={b['race-id']}", f"--report-file={report}",
                            "--report-format=markdown", "--offline"],
                           env={**os.environ, "RALLY_HOME": str(paths.rally_home())}, capture_output=True, text=True, timeout=120)
    assert plain.returncode == 0, plain.stdout[-2000:] + plain.stderr[-2000:]
    assert "bulk-1000" in report.read_text()

    html = paths.results_dir() / "posts" / b["race-id"] / "report.html"
    dom = chromium_dom(html)
    assert 'data-images-loaded="1/1"' in dom and "<table>" in dom and "Published: Elasticsearch 6.0.0-rc2" in html.read_text()


def test_nightly_passes_then_fails_on_an_injected_regression(es_node, tmp_path):
    history = tmp_path / "history.sqlite"
    first = ingestlab("nightly", "--studies", "posts", "--history", str(history), "--target-hosts", es_node.hosts)
    assert first.returncode == 0, first.stdout[-2000:] + first.stderr[-2000:]
    assert "No previous night in the history yet" in first.stdout
    with sqlite3.connect(history) as db:  # the injected regression: a past night five times faster
        db.execute("UPDATE figures SET value = value * 5")
    second = ingestlab("nightly", "--studies", "posts", "--history", str(history), "--target-hosts", es_node.hosts)
    assert second.returncode == 1, second.stdout[-2000:] + second.stderr[-2000:]
    assert "regression(s)** beyond the margin: posts/" in second.stdout
    report = re.search(r"nightly report: (\S+report\.html)", second.stdout).group(1)
    assert 'data-images-loaded="1/1"' in chromium_dom(report)
