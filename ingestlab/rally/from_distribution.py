"""Race with Rally's own ``from-distribution`` pipeline: Rally installs, starts and stops the node, as the
pack's service user with the pack's car configs (:mod:`ingestlab.rally.service` sets that user up)."""

from __future__ import annotations

import json
import shutil
import subprocess
import uuid
from pathlib import Path

from ingestlab import net
from ingestlab.cluster import service_user
from ingestlab.cluster.versions import DEFAULT_VERSION
from ingestlab.errors import IngestlabError
from ingestlab.rally import home as rally_home
from ingestlab.rally.command import RaceRequest, build_command, redacted
from ingestlab.rally.launcher import PORT_VARIABLE
from ingestlab.rally.results import finished
from ingestlab.rally.service import TEAM_PATH, service_rally
from ingestlab.runners.utils.runner_stats import VARIABLE as RUNNER_STATS_VARIABLE


def run(request: RaceRequest, version: str = DEFAULT_VERSION, car: str = "defaults", car_params: str | None = None, track=None, log=print):
    """Race ``request`` on a node Rally provisions from the pack's car configs; the stored race."""
    user, venv, home, env = service_rally(version, log=log)
    service_user.check_reachable(user, Path(request.track_path))
    race_id = str(uuid.uuid4())
    work = home / "requests" / race_id
    work.mkdir(parents=True)
    params_file = None
    if request.track_params:
        params_file = work / "track-params.json"
        params_file.write_text(json.dumps(request.track_params))
    wanted_report = request.report_file
    request = RaceRequest(
        track_path=request.track_path,
        target_hosts=None,
        pipeline="from-distribution",
        challenge=request.challenge,
        user_tags={**request.user_tags, "pipeline": "from-distribution"},
        test_mode=request.test_mode,
        report_file=work / "report.md",
        on_error=request.on_error,
        extra_args=(f"--distribution-version={version}", f"--team-path={TEAM_PATH}", f"--car={car}")
        + ((f"--car-params={car_params}",) if car_params else ()),
    )
    cmd = build_command(request, race_id, params_file, python=str(venv / "bin" / "python"))
    user.chown(home)
    stats_file = rally_home.runner_stats_file(race_id, home)
    env = {**env, PORT_VARIABLE: str(net.free_port()), RUNNER_STATS_VARIABLE: str(stats_file)}
    log(f"[ingestlab] as {user.name}: {redacted(cmd)}")
    kwargs = {} if user.is_current else {"user": user.uid, "group": user.gid, "extra_groups": []}
    proc = subprocess.run(cmd, env=env, cwd=str(home), stdin=subprocess.DEVNULL, **kwargs)
    if wanted_report and (work / "report.md").is_file():
        shutil.copyfile(work / "report.md", wanted_report)
    race_file = rally_home.race_json(race_id, home)
    if proc.returncode != 0 or not race_file.is_file():
        raise IngestlabError(f"the from-distribution race failed (exit {proc.returncode}); Rally's log: {rally_home.rally_log(home)}")
    return finished(json.loads(race_file.read_text()), stats_file, track, rally_home=home)
