"""The night's races: the setups, how each study is raced on them, and the races of one setup, each beside one of a
reference's."""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import dataclass, replace
from typing import Callable

from ingestlab import racing
from ingestlab.cluster import lifecycle
from ingestlab.errors import IngestlabError
from ingestlab.hosts.hardware import parse_size
from ingestlab.rally.command import tag_value
from ingestlab.studies import Study

PORTS = {"http_port": 29250, "transport_port": 29350}
REFERENCE_PORTS = {"http_port": 29256, "transport_port": 29356}  # a 3-node setup takes 29250-29252
FULL_SIZE = " (full size)"  # a setup's name in the history when the night races at the articles' size: a series of its own


@dataclass(frozen=True)
class Setup:
    """A cluster the night races on: ``name`` is what the history files its figures under; ``hosts``: a running one;
    ``heap`` unset: 1g, or with ``--full-size`` the largest the studies ask for at their article's size."""

    name: str = "default"
    version: str | None = None
    nodes: int = 1
    heap: str | None = None
    hosts: str | None = None

    @classmethod
    def parse(cls, text: str) -> "Setup":
        """``9.2.0``, ``version=9.2.0;nodes=3;heap=512m`` or ``hosts=127.0.0.1:9200;name=reference``."""
        if "=" not in text:
            return cls(name=text, version=text)
        fields = dict(part.split("=", 1) for part in text.split(";") if part)
        unknown = set(fields) - {"version", "nodes", "heap", "name", "hosts"}
        if unknown:
            raise IngestlabError(f"setup {text!r}: unknown {', '.join(sorted(unknown))}; it takes version, nodes, heap, hosts, name")
        if "hosts" in fields and set(fields) & {"version", "nodes", "heap"}:
            raise IngestlabError(f"setup {text!r}: hosts names a running cluster; version, nodes and heap are for one the pack provisions")
        return cls(
            name=fields.get("name", text),
            version=fields.get("version"),
            nodes=int(fields.get("nodes", 1)),
            heap=fields.get("heap"),
            hosts=fields.get("hosts"),
        )


@dataclass(frozen=True)
class Sizing:
    """How each study is raced: ``repeat`` times a night, small in test mode or with ``full_size`` at the article's own
    size; ``include_tasks``: Rally's ``--include-tasks``."""

    repeat: int = 1
    full_size: bool = False
    include_tasks: str | None = None

    def options(self, study: Study, tags: dict) -> racing.Options:
        if self.full_size:
            return racing.Options(
                challenge=study.headline_challenge,
                params=dict(study.full_size),
                tags={**tags, **racing.FULL_SIZE_TAGS},
                include_tasks=self.include_tasks,
            )
        return racing.Options(
            challenge=study.small_challenge, params=study.small_params, tags=tags, test_mode=True, include_tasks=self.include_tasks
        )

    def named(self, setup: Setup) -> Setup:
        """The setup as the history files it: at full size under a name of its own, never in the small races' series."""
        return replace(setup, name=setup.name + FULL_SIZE) if self.full_size and not setup.name.endswith(FULL_SIZE) else setup

    def what(self) -> str:
        return ("at its article's size" if self.full_size else "test mode") + (
            f", tasks {self.include_tasks}" if self.include_tasks else ""
        )


def clusters(
    stack: ExitStack, setup: Setup, target: racing.Target | None, reference: Setup | None, studies: list[Study], sizing: Sizing, log
) -> tuple[racing.Target, str, racing.Target | None]:
    """The setup's target and URL, and the reference's target (both up the whole night); a node for full-size races
    gets the largest heap and every node setting the studies ask for."""
    wanted = max((s.full_size_heap for s in studies), key=parse_size) if sizing.full_size and studies else "1g"
    settings = {k: v for s in studies for k, v in s.full_size_settings.items()} if sizing.full_size else {}

    def up(s: Setup, name: str, ports: dict) -> racing.Target:
        shape = lifecycle.Shape(
            nodes=s.nodes, version=s.version or lifecycle.DEFAULT_VERSION, heap=s.heap or wanted, name=name, settings=settings, **ports
        )
        cluster = stack.enter_context(lifecycle.running(shape, log=log))
        return racing.Target(hosts=cluster.hosts, engine=cluster.engine)

    main = target or up(setup, "ingestlab-nightly", PORTS)
    beside = None
    if reference is not None:
        beside = (
            racing.Target(hosts=reference.hosts, client_options=target.client_options if target else None)
            if reference.hosts
            else up(reference, "ingestlab-nightly-reference", REFERENCE_PORTS)
        )
    return main, f"http://{main.hosts.split(',')[0]}", beside


def race_setup(
    setup: Setup,
    studies: list[Study],
    target: racing.Target | None,
    night: str,
    overhead: Callable[[str, str, Callable], dict] | None,
    sizing: Sizing,
    log,
    reference: Setup | None = None,
) -> tuple[dict, dict, dict]:
    """The night's races on one setup, ``sizing.repeat`` of each study, and ``overhead`` measured there when given;
    with a ``reference``, each race beside one of the reference's, taking turns to go first."""
    results, costs, beside = {}, {}, {}
    repeat = sizing.repeat

    def one(study: Study, t: racing.Target, n: int, who: str, side: str):  # tagged with its side: `bench changepoints --nightly` pairs them
        log(f"[ingestlab] nightly {night} ({who}): racing {study.name} ({sizing.what()})" + (f", race {n}/{repeat}" if repeat > 1 else ""))
        tags = {"study": study.name, "nightly": night, "nightly-setup": tag_value(setup.name), "nightly-side": side}
        return racing.race(study.track, t, sizing.options(study, tags), log=log)

    with ExitStack() as stack:
        main, url, ref = clusters(stack, setup, target, reference, studies, sizing, log)
        for study in studies:
            results[study.name], beside[study.name] = [], []
            for n in range(1, repeat + 1):
                turns = [(results, main, setup.name, "setup")] + (
                    [(beside, ref, f"reference {reference.name}", "reference")] if ref else []
                )
                for into, t, who, side in turns if n % 2 else turns[::-1]:
                    into[study.name].append(one(study, t, n, who, side))
        if overhead:
            log(f"[ingestlab] nightly {night} ({setup.name}): the pack's overhead beside a minimal client")
            costs.update(overhead(main.hosts, url, log))
    return results, costs, beside if reference else {}
