"""The other end of the supported esrally range (pyproject: esrally>=2.12,<2.14; the suite's own venv has the newest):
``pip install -e .`` into an environment with esrally 2.12 keeps that esrally, and every track's default challenge
races with it, plain, in test mode, as with 2.13."""

import json
import os
import subprocess
import sys

import pytest

from ingestlab import locks, paths
from tests import matrix
from tests.integration.conftest import get_json, port_1900_taken, port_1900_to_ourselves
from tests.integration.test_plain_esrally import LANDED, PARAMS, clean_tracks  # noqa: F401  (a fixture)

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(port_1900_taken(), reason="another Rally holds 127.0.0.1:1900; plain esrally would join it"),
]

OLDEST = "2.12.0"


@pytest.fixture(scope="module")
def old_rally(tmp_path_factory):
    """A fresh environment: esrally 2.12 first, then the pack on top, as a user with that Rally would install it."""
    venv = tmp_path_factory.mktemp("esrally-2.12") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    with port_1900_to_ourselves():  # Rally's process test counts a python whose command line names esrally as a Rally
        subprocess.run([*pip, f"esrally=={OLDEST}"], check=True, timeout=900)
        with locks.editable_install():  # the build writes into the checkout: one at a time with the pack's own installs
            installed = subprocess.run([*pip, "-e", str(paths.REPO_ROOT)], capture_output=True, text=True, timeout=900)
    assert installed.returncode == 0, installed.stderr[-3000:]
    return venv / "bin"


def test_installing_the_pack_keeps_the_users_esrally(old_rally):
    version = subprocess.run(
        [str(old_rally / "python"), "-c", "import esrally; print(esrally.__version__)"], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert version == OLDEST


@pytest.mark.parametrize("track", matrix.tracks("plain-2.12"))  # tests/matrix.json: a track per kind of runner
def test_every_track_races_plain_on_the_oldest_esrally(old_rally, es_node, clean_tracks, tmp_path, track):  # noqa: F811
    params = []
    if track in PARAMS:
        (tmp_path / "params.json").write_text(json.dumps(PARAMS[track]))
        params = [f"--track-params={tmp_path / 'params.json'}"]
    from ingestlab.rally.home import ensure_rally_home

    ensure_rally_home(tmp_path)  # an offline rally.ini, as for the suite's own plain races
    with port_1900_to_ourselves():
        proc = subprocess.run(
            [
                str(old_rally / "esrally"),
                "race",
                "--offline",
                "--pipeline=benchmark-only",
                f"--track-path={clean_tracks / track}",
                f"--target-hosts={es_node.hosts}",
                "--test-mode",
                f"--report-file={tmp_path / 'report.md'}",
                *params,
            ],
            env={**os.environ, "RALLY_HOME": str(tmp_path)},
            capture_output=True,
            text=True,
            timeout=600,
        )
    assert proc.returncode == 0 and "SUCCESS" in proc.stdout, proc.stdout[-3000:] + proc.stderr[-3000:]
    index, count = LANDED[track]
    assert get_json(f"{es_node.url}/{index}/_count")["count"] == count
    race = json.loads(next((tmp_path / ".rally" / "benchmarks" / "races").glob("*/race.json")).read_text())
    assert race["rally-version"].startswith("2.12") and race["user-tags"]["corpus"] == "generated"
    assert race["cluster"]["distribution-version"] == matrix.version("plain-2.12")
