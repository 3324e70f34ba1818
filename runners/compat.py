"""Everything the pack takes from the load generator that runs it, in one module: Rally (``esrally``, 2.12 and 2.13)
or opensearch-benchmark (OSB, 2.4, Rally's fork), and their clients (``elasticsearch`` 8, ``opensearch-py`` 2).

The runners and track processors call :func:`request`, :data:`ApiErrors` / :func:`status`, :func:`request_context`,
:func:`raw_responses` and the loader pieces here; the pack's launcher and track reader call the Rally hooks below.
Nothing else in the pack imports esrally's or OSB's internals. The first use checks the version that is installed
and fails with one line naming it and the supported range when it is outside.
"""
from __future__ import annotations

import sys
from functools import lru_cache

SUPPORTED = {"esrally": ((2, 12), (2, 13)), "opensearch-benchmark": ((2, 4), (2, 4))}  # (lowest, highest) minor


class Unsupported(RuntimeError):
    pass


@lru_cache(maxsize=None)
def engine() -> str:
    """The load generator running (or installed, when none is running): "rally" or "osb"."""
    if "osbenchmark" in sys.modules:
        return "osb"
    if "esrally" in sys.modules:
        return "rally"
    from importlib.util import find_spec

    return "rally" if find_spec("esrally") is not None else "osb"


@lru_cache(maxsize=None)
def checked() -> str:
    """The engine, once its installed version is known to be supported; else one line saying what is."""
    from importlib.metadata import PackageNotFoundError, version

    name = "esrally" if engine() == "rally" else "opensearch-benchmark"
    try:
        found = version(name)
    except PackageNotFoundError:
        raise Unsupported("neither esrally nor opensearch-benchmark is installed; install esrally 2.12 or 2.13") from None
    minor = tuple(int(x) for x in found.split(".")[:2])
    low, high = SUPPORTED[name]
    if not low <= minor <= high:
        span = f"{low[0]}.{low[1]}" + (f"–{high[0]}.{high[1]}" if high != low else "")
        raise Unsupported(f"{name} {found} is not supported by this pack (supported: {span}.x)")
    return engine()


# ---- the client: requests, errors, raw responses ------------------------------------------------------------------

def _is_opensearch(es) -> bool:
    return type(es).__module__.startswith(("osbenchmark", "opensearchpy"))


async def request(es, method: str, path: str, params: dict | None = None, headers: dict | None = None, body=None):
    """One request with the runner's client: Rally's ``perform_request``, or opensearch-py's transport's. (opensearch-py
    takes a ``timeout`` query parameter for its own request timeout: the query goes into the URL for it instead.)"""
    if _is_opensearch(es):
        if params:
            from urllib.parse import urlencode

            path = f"{path}?{urlencode({k: str(v).lower() if isinstance(v, bool) else v for k, v in params.items()})}"
        return await es.transport.perform_request(method, path, params=None, headers=headers, body=body)
    return await es.perform_request(method, path, params=params, headers=headers, body=body)


def _error_classes() -> tuple:
    classes = []
    try:
        from elasticsearch import ApiError

        classes.append(ApiError)
    except ImportError:
        pass
    try:
        from opensearchpy.exceptions import TransportError

        classes.append(TransportError)
    except ImportError:
        pass
    return tuple(classes)


ApiErrors = _error_classes()  # what a client raises for an HTTP error, whichever client it is


def status(error) -> int | None:
    """The HTTP status of a client error (``meta.status`` in elasticsearch-py 8, ``status_code`` in opensearch-py)."""
    meta = getattr(error, "meta", None)
    if meta is not None and getattr(meta, "status", None) is not None:
        return meta.status
    code = getattr(error, "status_code", None)
    return code if isinstance(code, int) else None


def error_body(error):
    """The error's response body: ``body`` (elasticsearch-py) or ``info`` (opensearch-py)."""
    body = getattr(error, "body", None)
    return body if body is not None else getattr(error, "info", None)


def raw_responses(es) -> None:
    """Ask the client to hand this call's responses over as bytes (both generators' clients can; a test's stand-in
    keeps decoding)."""
    ask = getattr(es, "return_raw_response", None)
    if ask is not None:
        ask()


def request_context():
    """The class that holds a request's timing in a context variable (the client's hooks write it)."""
    if engine() == "osb":
        from osbenchmark.context import RequestContextHolder
    else:
        from esrally.client.context import RequestContextHolder
    return RequestContextHolder


# ---- track (workload) loading ---------------------------------------------------------------------------------------

def loader():
    if engine() == "osb":
        from osbenchmark.workload import loader as found
    else:
        from esrally.track import loader as found
    return found


def processor_base():
    """The base class of a track processor (OSB: a workload processor)."""
    found = loader()
    return getattr(found, "TrackProcessor", None) or getattr(found, "WorkloadProcessor")


def register_processor(registry, processor) -> None:
    """Register ``processor`` and then the generator's own corpus preparation again (registering any processor
    replaces the defaults). Rally hands each processor its config; OSB does not, and builds its own preparation
    with the config: both take it from OSB's processor registry here."""
    if engine() == "osb":
        cfg = getattr(getattr(registry.workload_processor_registry, "__self__", None), "base_config", None)
        processor.cfg = cfg
        registry.register_workload_processor(processor)
        registry.register_workload_processor(loader().DefaultWorkloadPreparator(cfg))
        return
    registry.register_track_processor(processor)
    registry.register_track_processor(loader().DefaultTrackPreparator())


def schedules(track) -> list:
    """A track's challenges (OSB: a workload's test procedures)."""
    return getattr(track, "challenges", None) or getattr(track, "test_procedures", None) or []


def data_dirs(cfg, name: str, corpus: str) -> list[str]:
    return loader().data_dir(cfg, name, corpus) if cfg else []


def data_error(message: str) -> Exception:
    if engine() == "osb":
        from osbenchmark import exceptions
    else:
        from esrally import exceptions
    return exceptions.DataError(message)


def console_info(message: str) -> None:
    if engine() == "osb":
        from osbenchmark.utils import console
    else:
        from esrally.utils import console
    console.info(message, logger=None)


def add_user_tags(cfg, tags: dict) -> None:
    """Tags the race stores (race.json's ``user-tags``; OSB: the test run's): ``tags`` under the user's own, which win.
    Called while the coordinator loads the track, before the race record is made from the config."""
    if not cfg or not tags:
        return
    from importlib import import_module

    config = import_module("osbenchmark.config" if engine() == "osb" else "esrally.config")
    if engine() == "osb":  # one string, "key:value,key:value"
        given = cfg.opts("test_run", "user.tag", mandatory=False) or ""
        own = {k: v for k, _, v in (t.partition(":") for t in given.split(",") if t.strip())}
        merged = {**tags, **own}
        cfg.add(config.Scope.applicationOverride, "test_run", "user.tag", ",".join(f"{k}:{v}" for k, v in merged.items()))
    else:
        own = cfg.opts("race", "user.tags", default_value={}, mandatory=False) or {}
        cfg.add(config.Scope.applicationOverride, "race", "user.tags", {**tags, **own})


def test_mode(cfg) -> bool:
    if not cfg:
        return False
    section = "workload" if engine() == "osb" else "track"
    return bool(cfg.opts(section, "test.mode.enabled", mandatory=False, default_value=False))


# ---- Rally only: reading a track as Rally renders it, its client options --------------------------------------------

def rendered_track(path: str, params: dict) -> str:
    from esrally.track.loader import render_template_from_file

    return render_template_from_file(path, params)


def assembled_template(directory: str, file_name: str) -> str:
    from esrally.track.loader import TemplateSource

    source = TemplateSource(directory, file_name)
    source.load_template_from_file()
    return source.assembled_source


def template_globals() -> dict:
    from esrally.track.loader import default_internal_template_vars

    return default_internal_template_vars()


def client_options(text: str) -> dict:
    from esrally.utils import opts

    return dict(opts.ClientOptions(text).default)


def other_rally_processes() -> list:
    from esrally.utils import process

    return process.find_all_other_rally_processes()


# ---- Rally only: the launcher's hooks (actor port, task polling, progress lines) ------------------------------------

def move_actor_port(port: int, note) -> None:
    """Rally's actor system on ``port`` instead of 1900; other Rally processes named (``note``) instead of refused."""
    from esrally import actor
    from esrally.utils import process
    from thespian.system.transport import TCPTransport

    checked()
    TCPTransport.DEFAULT_ADMIN_PORT = port
    probe = actor.actor_system_already_running

    def already_running_on_our_port(ip=None, port_=None, system_base=None, **kwargs):
        return probe(ip=ip, port=kwargs.get("port", port_) or port, system_base=system_base)

    actor.actor_system_already_running = already_running_on_our_port
    find_others = process.find_all_other_rally_processes

    def others_noted():
        others = find_others()
        if others:
            note(others)
        return []

    process.find_all_other_rally_processes = others_noted


def poll_tasks_every(seconds: float) -> None:
    """How often Rally's workers (and its task-execution actor) look whether their work is done."""
    from esrally.driver import driver

    driver.Worker.WAKEUP_INTERVAL_SECONDS = seconds
    init = driver.TaskExecutionActor.__init__

    def task_execution_actor_init(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.wakeup_interval = min(self.wakeup_interval, seconds)

    driver.TaskExecutionActor.__init__ = task_execution_actor_init


def task_figures(store, name: str) -> dict:
    """Rally's own figures of one finished task, from the driver's metrics store."""
    from esrally.metrics import SampleType

    measured = store.get("service_time", task=name, sample_type=SampleType.Normal)
    return {
        "task": name,
        "throughput_samples": [v for v in store.get("throughput", task=name, sample_type=SampleType.Normal) if v is not None],
        "median": store.get_median("throughput", task=name, sample_type=SampleType.Normal),
        "unit": store.get_unit("throughput", task=name),
        "samples": len(measured),
        "warmup_samples": len(store.get("service_time", task=name, sample_type=SampleType.Warmup)),
        "error_rate": store.get_error_rate(task=name, sample_type=SampleType.Normal) if measured else None,
    }


def on_finished_tasks(callback) -> None:
    """``callback(driver, step, steps, [task names])`` each time Rally's driver has processed the samples of tasks that
    just finished (a join point)."""
    from esrally.driver import driver

    update, post_process = driver.Driver.update_progress_message, driver.Driver.post_process_samples

    def update_progress_message(self, task_finished=False):
        if task_finished and self.current_step >= 0:  # step -1 is the join point before the first task
            self._ingestlab_finished = (self.current_step, [t.name for t in self.tasks_per_join_point[self.current_step]])
        return update(self, task_finished)

    def post_process_samples(self):
        post_process(self)
        finished, self._ingestlab_finished = getattr(self, "_ingestlab_finished", None), None
        if finished and self.metrics_store is not None:
            callback(self, finished[0], self.number_of_steps, finished[1])

    driver.Driver.update_progress_message = update_progress_message
    driver.Driver.post_process_samples = post_process_samples


def run_rally(daemon: bool) -> int:
    checked()
    if daemon:
        from esrally import rallyd

        sys.argv[0:2] = ["esrallyd"]
        rallyd.main()
        return 0
    from esrally import rally

    sys.argv[0] = "esrally"
    return rally.main()


# ---- opensearch-benchmark only: its launcher's hooks -----------------------------------------------------------------

def osb_move_actor_port(port: int, note) -> None:
    """OSB's actor system on ``port`` instead of 1900 (its probe and its convention address say 1900 outright); other
    OSB processes named (``note``) instead of refused."""
    from osbenchmark import actor
    from osbenchmark.utils import process
    from thespian.system.transport import TCPTransport

    checked()
    TCPTransport.DEFAULT_ADMIN_PORT = port

    def already_running(ip="127.0.0.1"):
        import socket

        with socket.socket() as s:
            return s.connect_ex((ip, port)) == 0

    actor.actor_system_already_running = already_running
    find_others = process.find_all_other_benchmark_processes

    def others_noted():
        others = find_others()
        if others:
            note(others)
        return []

    process.find_all_other_benchmark_processes = others_noted


def run_osb() -> int:
    checked()
    from osbenchmark import benchmark

    sys.argv[0] = "opensearch-benchmark"
    return benchmark.main() or 0
