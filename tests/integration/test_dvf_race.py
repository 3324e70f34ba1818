"""The DVF study end to end: generate → convert → race in test mode against the real node → report;
and the converter's command line on hand-made samples of the real formats."""

import uuid
from pathlib import Path

import pytest

from ingestlab import paths
from ingestlab.corpus.files import read_meta
from ingestlab.rally import results
from ingestlab.rally.home import data_cache
from tests.integration.conftest import get_json, ingestlab

pytestmark = [pytest.mark.integration, pytest.mark.check]
SAMPLES = Path(__file__).parent.parent / "fixtures" / "dvf"


def test_the_grid_races_in_test_mode(es_node):
    run_tag = f"it-{uuid.uuid4().hex[:8]}"
    proc = ingestlab(
        "race",
        "dvf",
        "--test-mode",
        "--target-hosts",
        es_node.hosts,
        "--tag",
        f"run:{run_tag}",
        "--track-param",
        "bulk_sizes=[1,100]",
        "--track-param",
        "client_counts=[1,4]",
        "--track-param",
        "dvf_rows=3000",
        "--track-param",
        "index_name=dvf-it",
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    # test mode reads the -1k file, and the track makes only that: 1,000 rows, generated and converted, in the
    # pack's Rally data cache (made once, kept for later races), not in the checkout
    entry = read_meta(data_cache() / "dvf" / "dvf-generated-etalab-3000-1k.json")
    assert not (paths.TRACKS_DIR / "dvf" / "dvf-generated-etalab-3000-1k.json").exists()
    assert {k: entry["source"][k] for k in ("docs", "format", "seed")} == {"docs": 1000, "format": "etalab", "seed": 2020}
    assert entry["document-count"] == 1000 and entry["source"]["skipped-rows"] == 0

    stored = results.latest_race({"study": "dvf", "run": run_tag})
    assert stored["track-params"]["dvf_rows"] == 3000  # a track parameter: the track makes its corpus
    measured = results.task_results(stored)
    writes = [t for t in measured if t.startswith("b")]
    assert writes == ["b1-t1", "b1-t4", "b100-t1", "b100-t4"]
    assert all(measured[t].error_rate == 0.0 and measured[t].throughput_median > 0 for t in measured)
    # the last cell wrote the test-mode corpus; its check task compared the count already
    assert get_json(f"{es_node.url}/dvf-it/_count")["count"] == 1000
    doc = get_json(f"{es_node.url}/dvf-it/_search?size=1&q=_exists_:location")["hits"]["hits"][0]["_source"]
    assert len(doc["postal_code"]) == 5 and doc["mutation_date"].startswith("2020-")
    assert "| 100 | 2,272.3 | 6,616.8 |" in proc.stdout and "### This machine" in proc.stdout


def test_convert_command_reports_bad_rows_or_stops_on_them(tmp_path):
    samples = [str(SAMPLES / n) for n in ("valeursfoncieres-2019-sample.txt", "valeursfoncieres-2022-sample.txt", "full.2020-sample.csv")]
    proc = ingestlab("dvf", "convert", *samples, "--out", str(tmp_path / "dvf.json"), "--bz2")
    assert proc.returncode == 0, proc.stderr
    assert "6 documents" in proc.stdout and "skipped 5 bad rows" in proc.stderr
    assert "valeursfoncieres-2019-sample.txt:5: expected 43 '|'-separated columns, got 30" in proc.stderr
    assert (tmp_path / "dvf.json.bz2").is_file() and (tmp_path / "dvf.meta.json").is_file()

    strict = ingestlab("dvf", "convert", samples[2], "--out", str(tmp_path / "strict" / "dvf.json"), "--strict")
    assert strict.returncode == 2 and "Traceback" not in strict.stderr
    assert strict.stderr.strip() == f"ingestlab: error: {samples[2]}:4: expected 40 ','-separated columns, got 37"
