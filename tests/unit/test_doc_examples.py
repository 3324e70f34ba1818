"""The worked examples of the README and docs that read stored results (a study's report, a comparison, an A/B
session compared again, a redline search, a sweep), run again on the same real races and results, kept as fixtures
under tests/fixtures/examples (``rally/``: the Rally home; ``results/``: the pack's results): the lines the docs show
are today's output. The nightly's example is held by the integration test that races nights."""

import os
import shlex
import shutil
import subprocess
import sys

import pytest

from tests import examples

STORED = ("report", "compare", "ab", "redline", "sweep")


@pytest.mark.parametrize("name", STORED)
def test_a_worked_example_of_stored_results_is_todays_output(name, tmp_path):
    command, _, _ = examples.examples()[name]
    args = shlex.split(command)
    assert args[0] == "ingestlab"
    home = tmp_path / "home"
    shutil.copytree(examples.FIXTURES, home)  # a report writes beside what it reads: never into the fixtures
    env = {**os.environ, "INGESTLAB_HOME": str(home), "INGESTLAB_RESULTS": str(home / "results"), "INGESTLAB_LEDGER": "off"}
    proc = subprocess.run([sys.executable, "-m", "ingestlab.cli", *args[1:]], capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode in (0, 1), proc.stdout[-2000:] + proc.stderr[-2000:]
    examples.check(name, proc.stdout)


def test_every_example_is_held_by_a_test():
    held = set(STORED) | {"nightly"}  # the nightly's: tests/integration/test_reports_and_nightly.py (check_shape)
    assert set(examples.examples()) <= held, set(examples.examples()) - held
