"""Running a sweep: one Rally race per cell and repetition, tagged ``sweep:<id>`` and ``cell:<k=v;…>`` (so
``esrally compare`` and ``ingestlab compare`` work on them), the state saved after every race so that
``ingestlab sweep --resume <id>`` runs only what has not finished.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from pathlib import Path

from ingestlab import racing
from ingestlab.cluster import lifecycle
from ingestlab.cluster.versions import resolve
from ingestlab.errors import IngestlabError
from ingestlab.hosts import hardware
from ingestlab.hosts import lab as labs
from ingestlab.report.common import task_limits
from ingestlab.sweep.grid import CLUSTER_KEYS, HARDWARE_KEYS, cell_id
from ingestlab.sweep.report import headline_figure
from ingestlab.sweep.state import finished, planned, save

SHAPE = {"name": "ingestlab-sweep", "http_port": 29460, "transport_port": 29560}
LAB = {"prefix": "inglsw", "subnet": "127.213.20"}  # test hosts of a sweep over emulated hardware


def figures(result) -> dict:
    """Per task of the race: Rally's throughput and service times, whether every sample fell in the warm-up, and which
    side was at its CPU limit (:mod:`ingestlab.rally.load_side`) and what limited the rate (none where it was not seen)."""
    out = {}
    sides = ((result.footprint or {}).get("load_side") or {}).get("tasks") or {}
    held = task_limits(result)
    for t in result.schedule:
        r = result.tasks.get(t.name)
        warm = t.warmup_time_period
        if r is None or r.throughput_median is None:
            if warm and t.name not in out:
                out[t.name] = {"warmup_only": True, "warmup_time_period": warm, "operation_type": t.operation_type}
            continue
        out[t.name] = {
            "median": r.throughput_median,
            "min": r.throughput_min,
            "max": r.throughput_max,
            "unit": r.unit,
            "error_rate": r.error_rate,
            "p50": r.service_time("p50"),
            "p90": r.service_time("p90"),
            "p99": r.service_time("p99"),
            "operation_type": t.operation_type,
            "load_side": (sides.get(t.name) or {}).get("verdict"),
            "limit": (held.get(t.name) or {}).get("resource"),  # what limited its rate (rally.limits), a race judged whole too
        }
    return out


def execute(state: dict, target: racing.Target | None, log=print) -> dict:
    """Race every run the state has not finished; the state is saved after each one."""
    todo = [(cell, rep) for cell, rep in planned(state) if (cell_id(cell), rep) not in finished(state)]
    total, started = len(planned(state)), time.monotonic()
    if not todo:
        log(f"[ingestlab] sweep {state['id']}: every run has finished")
        return state
    log(f"[ingestlab] sweep {state['id']}: {len(todo)} of {total} runs to go ({len(finished(state))} finished before)")
    done_now = 0

    def one(cell: dict, rep: int, run_target: racing.Target) -> None:
        nonlocal done_now
        params = {**state["fixed"], **{k: v for k, v in cell.items() if k not in CLUSTER_KEYS}}
        tags = {"sweep": state["id"], "cell": cell_id(cell), "repetition": str(rep)}
        if state.get("study"):
            tags["study"] = state["study"]
        options = racing.Options(
            challenge=state["challenge"], params=params, tags=tags, test_mode=state["test_mode"], on_error=state["on_error"]
        )
        run_started = time.monotonic()
        record = {"cell": cell, "cell_id": cell_id(cell), "repetition": rep}
        try:
            result = racing.race(Path(state["track"]), run_target, options, log=lambda *_: None, stream=False)
            record.update(status="done", race_id=result.race_id, figures=figures(result), es_version=result.es_version)
            emulation = result.footprint.get("emulation")
            if emulation:
                record["hardware"] = emulation["profile"]["label"]
                if not emulation["held"]:  # marked like a race with failed requests: left out of the cell's figures
                    record.update(status="failed", error="emulated hardware did not hold: " + "; ".join(emulation["problems"]))
        except IngestlabError as e:
            record.update(status="failed", error=str(e).splitlines()[0][:500])
        record["seconds"] = time.monotonic() - run_started
        state["runs"].append(record)
        save(state)
        done_now += 1
        log(progress_line(state, record, done_now, len(todo), time.monotonic() - started))

    try:
        if target is not None:
            for cell, rep in todo:
                one(cell, rep, target)
        else:
            for setup in _setups(todo):
                try:
                    with provisioned(state, setup) as setup_target:
                        log(
                            f"[ingestlab] sweep {state['id']}: "
                            f"cluster {', '.join(f'{k} {v}' for k, v in setup.items()) or 'as given'} is up"
                        )
                        for cell, rep in todo:
                            if {k: cell[k] for k in setup} == setup:
                                one(cell, rep, setup_target)
                except IngestlabError as e:  # a setup that cannot be made (e.g. shares beyond this machine): its runs fail
                    _setup_failed(state, todo, setup, e, log)
    except KeyboardInterrupt:
        given = " --target-hosts HOSTS" + (" --client-options …" if target.client_options else "") if target is not None else ""
        log(
            f"[ingestlab] sweep {state['id']} stopped after {len(finished(state))} of {total} runs; "
            f"continue with: ingestlab sweep --resume {state['id']}{given}"
        )
        raise
    return state


def _setup_failed(state: dict, todo: list, setup: dict, error: Exception, log) -> None:
    why = str(error).splitlines()[0]
    for cell, rep in todo:
        if {k: cell[k] for k in setup} == setup and (cell_id(cell), rep) not in finished(state):
            state["runs"].append(
                {"cell": cell, "cell_id": cell_id(cell), "repetition": rep, "status": "failed", "error": why[:500], "seconds": 0.0}
            )
            save(state)
    log(f"[ingestlab] sweep {state['id']}: setup {setup} failed: {why}")


@contextmanager
def provisioned(state: dict, setup: dict):
    """The cluster of one setup for the length of a block, as a race target: a local cluster, or — with hardware keys
    in the grid or the sweep's options — a lab of test hosts (one node each) with that emulated hardware, raced by one
    load driver in the coordinator's CPU share."""
    base = {**dict(state["cluster"]), **setup}
    if base.get("version"):  # a grid may hold both engines: 9.2.0, opensearch:2.19.0
        spec = resolve(str(base["version"]))
        base.update(version=spec.version, engine=spec.engine)
    hardware_given = {k: base.pop(k) for k in HARDWARE_KEYS if base.get(k) is not None}
    extra = {k: base.pop(k) for k in ("driver_cpus", "scale") if k in base}
    if not hardware_given and not extra.get("scale"):
        with lifecycle.running(lifecycle.Shape(**{**SHAPE, **base}), log=lambda *_: None) as cluster:
            yield racing.Target(hosts=cluster.hosts, engine=cluster.engine)
        return

    given = {k: hardware_given.get(k) for k in HARDWARE_KEYS}
    profile = hardware.from_options(**given, driver_cpus=extra.get("driver_cpus"), scale=extra.get("scale"))
    if base.get("engine", "elasticsearch") != "elasticsearch":
        raise IngestlabError("emulated hardware (the test hosts' lab) provisions Elasticsearch only; drop the hardware keys for OpenSearch")
    nodes, heap = int(base.get("nodes", 1)), base.get("heap") or "512m"
    lab = labs.up(count=nodes, version=base.get("version"), heap=heap, hardware=profile, log=lambda *_: None, **LAB)
    try:
        yield racing.Target(hosts=lab.target_hosts, emulation=lab, launcher=tuple(lab.driver_launcher("coordinator")))
    finally:
        labs.down(LAB["prefix"], log=lambda *_: None)


def _setups(todo: list) -> list[dict]:
    seen: list[dict] = []
    for cell, _ in todo:
        setup = {k: cell[k] for k in CLUSTER_KEYS if k in cell}
        if setup not in seen:
            seen.append(setup)
    return seen


def progress_line(state: dict, record: dict, done_now: int, todo: int, elapsed: float) -> str:
    left = todo - done_now
    eta = elapsed / done_now * left if done_now else 0
    what = f"FAILED: {record['error'][:160]}" if record["status"] == "failed" else headline_figure(record)
    return (
        f"[ingestlab] sweep {len(finished(state))}/{len(planned(state))} {record['cell_id']} (run {record['repetition']}): {what} "
        f"— {int(elapsed // 60)}:{int(elapsed % 60):02d} elapsed, about {int(eta // 60)}:{int(eta % 60):02d} to go"
    )
