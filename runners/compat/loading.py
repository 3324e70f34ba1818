"""Track (OSB: workload) loading: the loader, track processors and their registration, the config's test mode, data
directories and user tags; and, Rally only, reading a track as Rally renders it."""

from __future__ import annotations

from ingestlab.runners.compat.core import engine, generator_module


def loader():
    return generator_module("osbenchmark.workload.loader", "esrally.track.loader")


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
    return generator_module("osbenchmark.exceptions", "esrally.exceptions").DataError(message)


def console_info(message: str) -> None:
    generator_module("osbenchmark.utils.console", "esrally.utils.console").info(message, logger=None)


def add_user_tags(cfg, tags: dict) -> None:
    """Tags the race stores (race.json's ``user-tags``; OSB: the test run's): ``tags`` under the user's own, which win.
    Called while the coordinator loads the track, before the race record is made from the config."""
    if not cfg or not tags:
        return

    config = generator_module("osbenchmark.config", "esrally.config")
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


# Rally only: reading a track as Rally renders it, its client options


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
