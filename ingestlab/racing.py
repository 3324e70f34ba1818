"""Race one study: prepare its corpus, then run Rally (benchmark-only against given hosts, or Rally's own
from-distribution pipeline) with the pack's tags, and return the stored race. The CLI, the nightly run
and the Rally-corpora study all race through here."""
from __future__ import annotations

import time

from ingestlab import paths, studies
from ingestlab.errors import IngestlabError


def race_study(study_name: str, target_hosts: str | None, *, challenge: str | None = None, track_params: dict | None = None,
               tags: dict | None = None, test_mode: bool = False, client_options: str | None = None,
               from_distribution: dict | None = None, on_error: str = "abort", lab=None) -> dict:
    """``from_distribution``: None for benchmark-only, else the keyword arguments of
    :func:`ingestlab.rally.from_distribution.run` that choose the node (version, car, car_params).
    ``on_error``: Rally's ``--on-error``: ``abort`` ends the race at the first failed request; ``continue``
    races on, and the report marks every task with failed requests INVALID.
    ``lab``: a lab of test hosts (:mod:`ingestlab.hosts.lab`): the race targets its cluster, with Rally's
    load drivers on its hosts (``--load-driver-hosts``); a track's ``drivers`` parameter defaults to their number."""
    from ingestlab.rally import race

    study = studies.get(study_name)
    if lab is not None:
        from ingestlab.rally.track_params import declared_defaults

        target_hosts = lab.target_hosts
        tags = {"load-driver-hosts": str(lab.count), **(tags or {})}
        if "drivers" in declared_defaults(study.track) and "drivers" not in (track_params or {}):
            track_params = {**(track_params or {}), "drivers": lab.count}
    params = study.params_with(track_params)
    study.prepare(params)
    tags = {"study": study.name, **(tags or {})}
    if test_mode:
        tags["test-mode"] = "true"
    report_dir = paths.results_dir() / study.name
    report_dir.mkdir(parents=True, exist_ok=True)
    report_file = report_dir / f"rally-summary-{time.strftime('%Y%m%dT%H%M%S')}.md"
    if from_distribution is not None:
        from ingestlab.rally import from_distribution as pipeline

        return pipeline.run(study.track, challenge=challenge, track_params=study.rally_params(params),
                            user_tags={**tags, "pipeline": "from-distribution"}, test_mode=test_mode, report_file=report_file,
                            on_error=on_error,
                            **from_distribution).load()
    from ingestlab.rally import preflight

    preflight.check_hosts(target_hosts, client_options)
    outcome = race.run(race.RaceRequest(track_path=study.track, target_hosts=target_hosts, challenge=challenge,
                                        track_params=study.rally_params(params), user_tags=tags, test_mode=test_mode,
                                        client_options=client_options, report_file=report_file, on_error=on_error, lab=lab))
    if outcome.stopped_because:
        raise IngestlabError(f"{outcome.stopped_because}. Rally's log: {race.rally_log()}")
    if not outcome.ok:
        raise IngestlabError(f"the race failed (exit {outcome.returncode}); Rally's log: {race.rally_log()}")
    return outcome.load()
