"""Results end to end: two tagged races compared (by the pack and by plain `esrally compare`), the HTML
report opened in headless Chromium with its charts, and the nightly run failing on an injected regression."""

import os
import re
import shutil
import sqlite3
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from ingestlab import paths
from ingestlab.rally import results
from tests import examples
from tests.integration.conftest import devtools_bench, ingestlab, port_1900_to_ourselves

pytestmark = pytest.mark.integration


def chromium_dom(path) -> str:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("Debian's chromium is not installed (.ci/run installs it)")
    proc = subprocess.run(
        [browser, "--headless=new", "--no-sandbox", "--disable-gpu", "--dump-dom", f"file://{path}"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    return proc.stdout


def test_tagged_races_compare_and_the_html_report_shows_its_charts(es_node, tmp_path):
    """One race a side is not judged (no noise floor measured here): compare says what it would need; test-mode races
    are left out and named. (Three races a side called by Welch's test on real races: test_compare_stats' ab session.)"""
    uid = uuid.uuid4().hex[:8]
    same = [
        "--challenge",
        "bulk",
        "--track-param",
        "posts_docs=2000",
        "--track-param",
        "repetitions=5",
        "--track-param",
        "index_name=posts-cmp",
    ]
    for side in ("a", "b"):
        proc = ingestlab("race", "posts", "--target-hosts", es_node.hosts, "--tag", f"cmp:{uid}-{side}", *same)
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    mine = ingestlab(
        "compare",
        "--baseline",
        f"cmp:{uid}-a",
        "--contender",
        f"cmp:{uid}-b",
        "--study",
        "posts",
        env={"INGESTLAB_RESULTS": str(tmp_path / "no-calibration")},
    )
    assert mine.returncode == 0, mine.stderr
    assert re.search(
        r"\| bulk-1000 \| .* \| not enough races \(1 vs 1 races and no noise floor measured for this task here: race 3 or "
        r"more a side, or run `ingestlab calibrate`",
        mine.stdout,
    ), mine.stdout
    assert "No calibration of this track on this machine" in mine.stdout
    tm = ingestlab(
        "race",
        "posts",
        "--test-mode",
        "--challenge",
        "bulk",
        "--target-hosts",
        es_node.hosts,
        "--tag",
        f"cmp:{uid}-a",
        "--track-param",
        "index_name=posts-cmp",
    )
    assert tm.returncode == 0
    left = ingestlab("compare", "--baseline", f"cmp:{uid}-a", "--contender", f"cmp:{uid}-b", "--study", "posts")
    assert "left out: a test-mode race" in left.stdout and "(1 race)" in left.stdout

    a = results.latest_race({"cmp": f"{uid}-a"})
    b = results.latest_race({"cmp": f"{uid}-b"})
    esrally = os.path.join(os.path.dirname(sys.executable), "esrally")
    report = tmp_path / "compare.md"
    with port_1900_to_ourselves():  # plain esrally on another worker would count this one as another Rally
        plain = subprocess.run(
            [
                esrally,
                "compare",
                f"--baseline={a['race-id']}",
                f"--contender={b['race-id']}",
                f"--report-file={report}",
                "--report-format=markdown",
                "--offline",
            ],
            env={**os.environ, "RALLY_HOME": str(paths.rally_home())},
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert plain.returncode == 0, plain.stdout[-2000:] + plain.stderr[-2000:]
    assert "bulk-1000" in report.read_text()

    html = paths.results_dir() / "posts" / b["race-id"] / "report.html"
    dom = chromium_dom(html)
    loaded = re.search(r'data-images-loaded="(\d+)/(\d+)"', dom)  # every chart the report holds (the study's, its cost model's)
    assert loaded and loaded[1] == loaded[2] == str(html.read_text().count("<img")) != "0", loaded
    assert "<table>" in dom and "Published: Elasticsearch 6.0.0-rc2" in html.read_text()
    # as a reader sees it: the title, its why sentence, the charts, then the tables; no line of prose read as a row
    order = [dom.index(tag) for tag in ("<h2", "<figure", "<table")]
    assert order == sorted(order) and not re.search(r"<td[^>]*>- ", dom), order


@pytest.mark.alone  # its regression flag is a measurement: beside other tests the nights' noise hid it
def test_nightly_over_three_nights_draws_trends_with_an_annotation_and_flags_a_vanished_task(es_node, tmp_path):
    history = tmp_path / "history.sqlite"
    first = ingestlab("nightly", "--studies", "posts", "--history", str(history), "--target-hosts", es_node.hosts)
    assert first.returncode == 0, first.stdout[-2000:] + first.stderr[-2000:]
    assert "No previous night in the history yet" in first.stdout
    night_one = re.search(r"# ingestlab nightly (\S+)", first.stdout).group(1)
    noted = ingestlab("nightly", "annotate", "--history", str(history), "--night", night_one, "--text", "JDK 17.0.15 -> 17.0.16")
    assert noted.returncode == 0, noted.stderr
    with sqlite3.connect(history) as db:  # a task the first night had and later nights lack (a renamed task, say)
        db.execute(
            "INSERT INTO figures (night, study, task, value, race_id, es_version, setup) "
            "VALUES (?, 'posts', 'bulk-77', 1000.0, 'r', '7.17.29', 'default')",
            (night_one,),
        )
    second = ingestlab("nightly", "--studies", "posts", "--history", str(history), "--target-hosts", es_node.hosts, "--repeat", "2")
    assert second.returncode == 1 and "| bulk-77 | — | 1,000.0 (1) | | | **missing tonight** |" in second.stdout
    assert re.search(r"Tonight's figures: the median of 2 races \(\S+, \S+\); the report below is the last one's\.", second.stdout)
    assert "**1 task(s) missing tonight** that earlier nights had: default/posts/bulk-77." in second.stdout
    examples.check_shape("nightly", first.stdout + "\n" + second.stdout)  # the README's worked example is today's output
    with sqlite3.connect(history) as db:  # the injected regression: three past nights, each five times night one (±2 %)
        first_night = list(db.execute("SELECT study, task, value, race_id, es_version, setup FROM figures WHERE night = ?", (night_one,)))
        db.execute("DELETE FROM figures WHERE task NOT LIKE 'headline:%' AND task != 'bulk-77'")
        db.executemany(
            "INSERT INTO figures (night, study, task, value, race_id, es_version, setup) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (night, study, task, value * 5 * factor, race, version, setup)
                for night, factor in (("2000-01-01T000000", 0.98), (night_one, 1.0), ("2000-01-02T000000", 1.02))
                for study, task, value, race, version, setup in first_night
                if not task.startswith("headline:") and task != "bulk-77"
            ],
        )
    third = devtools_bench(
        "nightly", "--studies", "posts", "--history", str(history), "--target-hosts", es_node.hosts, "--overhead", timeout=900
    )
    assert third.returncode == 1, third.stdout[-2000:] + third.stderr[-2000:]
    assert re.search(
        r"regression\(s\)\*\* \(below the previous nights' 95% prediction bound, Holm over a study's tasks, and a drop "
        r"of 5% or more\): default/posts/",
        third.stdout,
    ), third.stdout[:3000]
    # the pack's own cost is a nightly figure too: pack ÷ minimal client per task, kept in the history
    assert "## the pack's cost on default (pack ÷ minimal client, docs/s): against previous nights" in third.stdout
    with sqlite3.connect(history) as db:
        costs = dict(db.execute("SELECT task, value FROM figures WHERE study = 'overhead'"))
    assert set(costs) == {"posts index API", "posts bulk 1000"} and all(v > 0 for v in costs.values())
    with sqlite3.connect(history) as db:
        assert len({n for (n,) in db.execute("SELECT DISTINCT night FROM figures")}) == 5
        assert [t for (t,) in db.execute("SELECT DISTINCT task FROM figures WHERE task LIKE 'headline:%'")] == [
            "headline:bulk1000-over-single"
        ]
    report = Path(re.search(r"nightly report: (\S+report\.html)", third.stdout).group(1))
    assert "posts on default: trends over the nights" in report.read_text()
    # every chart decodes: the study's own (its ratios, its cost model), its trend chart, the cost's trend chart
    loaded = re.search(r'data-images-loaded="(\d+)/(\d+)"', chromium_dom(report))
    assert loaded and loaded[1] == loaded[2] == str(report.read_text().count("<img")) and int(loaded[2]) >= 3, loaded


def test_nightly_beside_a_reference_races_them_in_turn_and_judges_the_ratio(es_node, tmp_path):
    """`nightly --reference`: each of the setup's races has one of the reference's beside it, the order alternating;
    the history keeps the setup's figures over the reference's as a setup of their own, which the night judges. (One
    node plays both here: this checks the flow; how much steadier the ratio is, `bench changepoints --ab` measures.)"""
    history = tmp_path / "history.sqlite"
    common = [
        "nightly",
        "--studies",
        "posts",
        "--history",
        str(history),
        "--target-hosts",
        es_node.hosts,
        "--reference",
        f"hosts={es_node.hosts};name=ref",
    ]
    first = ingestlab(*common, "--repeat", "2")
    assert first.returncode == 0, first.stdout[-2000:] + first.stderr[-2000:]
    turns = re.findall(r"nightly \S+ \((default|reference ref)\): racing posts \(test mode\), race (\d)/2", first.stdout)
    assert turns == [("default", "1"), ("reference ref", "1"), ("reference ref", "2"), ("default", "2")], turns
    assert "Judged on each setup's figures over those of the reference ref, raced beside it race by race." in first.stdout
    assert "these figures are shown and not judged" in first.stdout
    second = ingestlab(*common)
    assert second.returncode == 0, second.stdout[-2000:] + second.stderr[-2000:]
    assert "## posts on default ÷ ref: against previous nights (the setup's figure over the reference's)" in second.stdout
    with sqlite3.connect(history) as db:
        ratios = list(db.execute("SELECT night, task, value FROM figures WHERE setup = 'default ÷ ref'"))
        own = {t for (t,) in db.execute("SELECT DISTINCT task FROM figures WHERE setup = 'default' AND task NOT LIKE 'headline:%'")}
    assert {t for _, t, _ in ratios} == own and len({n for n, _, _ in ratios}) == 2 and all(v > 0 for _, _, v in ratios)
    assert re.search(r"\| bulk-1000 \| \d\.\d{3} \| \d\.\d{3} \(1\) \|", second.stdout), second.stdout[:3000]
    # no simulation of nights raced this way here: the report says so and how to measure it, never another's rates
    assert (
        "bulk-1000: how often these rules cry wolf and how soon they find a step is **not measured** on this machine for "
        "posts/bulk-1000 on default, test mode, 1 race(s) a night, beside a reference of "
    ) in second.stdout, second.stdout[:5000]  # the reference's version follows: a simulation beside another version is another
    # the nights' races are found again as pairs (tagged by side): two pairs are too few for `devtools.bench changepoints --nightly`
    nights = [re.search(r"nightly (\S+) \(default\)", p.stdout).group(1) for p in (first, second)]
    sim = devtools_bench("changepoints", "--track", "posts", "--task", "bulk-1000", "--nightly", nights[0], "--nightly", nights[1])
    assert sim.returncode != 0 and f"--nightly {nights[0]}: 2 pairs; 3 or more needed" in sim.stderr, sim.stderr[-2000:]
    # at the article's own size (not test mode, one task): a series of its own, never mixed with the small nights'
    full = ingestlab(*common, "--full-size", "--include-tasks", "bulk-10000")
    assert full.returncode == 0, full.stdout[-2000:] + full.stderr[-2000:]
    assert "racing posts (at its article's size, tasks bulk-10000)" in full.stdout and "--test-mode" not in full.stdout
    assert "## posts on default (full size) ÷ ref: against previous nights" in full.stdout
    with sqlite3.connect(history) as db:
        sized = {(s, t) for s, t in db.execute("SELECT setup, task FROM figures WHERE setup LIKE '%(full size)%'")}
    assert sized == {("default (full size)", "bulk-10000"), ("default (full size) ÷ ref", "bulk-10000")}, sized


@pytest.mark.check
def test_report_of_a_race_plain_esrally_ran(es_node, tmp_path):
    from tests.integration.conftest import plain_esrally

    proc = plain_esrally(
        "race",
        "--pipeline=benchmark-only",
        f"--track-path={paths.TRACKS_DIR / 'posts'}",
        f"--target-hosts={es_node.hosts}",
        "--test-mode",
        "--challenge=bulk",
        "--track-params=index_name:posts-any",
        rally_home=tmp_path,
    )
    assert proc.returncode == 0, proc.stdout[-2000:]
    race_id = re.search(r"Race id is \[([0-9a-f-]+)\]", proc.stdout).group(1)
    mine = ingestlab("report", "--race-id", race_id, "--rally-home", str(tmp_path))
    assert mine.returncode == 0, mine.stderr
    assert f"# Race {race_id}: posts" in mine.stdout and "| bulk-1000 | " in mine.stdout and "Elasticsearch 7.17.29 (oss)" in mine.stdout
    out = paths.results_dir() / "races" / race_id
    assert (out / "chart-1.png").is_file() and (out / "chart-2.png").is_file()
    assert 'data-images-loaded="2/2"' in chromium_dom(out / "report.html")
