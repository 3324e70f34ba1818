"""Options several commands share, and turning them into the values the pack works with: a cluster shape,
a race target (with the credentials of the pack's own secured cluster, never printed), race options."""

from __future__ import annotations

import argparse

from ingestlab import racing
from ingestlab.cluster import lifecycle
from ingestlab.cluster.versions import DEFAULT_OPENSEARCH, DEFAULT_VERSION, DISTRIBUTIONS, ENGINES, OPENSEARCH, spec_for
from ingestlab.errors import IngestlabError
from ingestlab.hosts import lab
from ingestlab.sweep.grid import parse_value

VERSIONS = sorted({*DISTRIBUTIONS, *OPENSEARCH}, key=lambda v: tuple(int(x) for x in v.split(".")))


def pairs(items: list[str] | None, sep: str, what: str) -> dict:
    out = {}
    for item in items or []:
        if sep not in item:
            raise IngestlabError(f"{what} {item!r} must look like key{sep}value")
        k, v = item.split(sep, 1)
        out[k.strip()] = v.strip()
    return out


def track_params(args) -> dict:
    return {k: parse_value(v) for k, v in pairs(getattr(args, "track_param", None), "=", "track param").items()}


def add_shape(p: argparse.ArgumentParser, heap: str = "1g", nodes: bool = True, version: str | None = DEFAULT_VERSION) -> None:
    """--nodes, --version, --heap, --engine; ``version=None``: the default is the study's own (see Study.default_version)."""
    if nodes:
        p.add_argument("--nodes", type=int, default=1)
    p.add_argument(
        "--engine",
        choices=sorted(ENGINES),
        default="elasticsearch",
        help="what to provision and race: Elasticsearch (with esrally) or OpenSearch (with opensearch-benchmark)",
    )
    p.add_argument(
        "--version",
        default=version,
        choices=VERSIONS,
        help=f"the engine's version (default: {version or 'the study’s own, named in its README'}; OpenSearch: {DEFAULT_OPENSEARCH})",
    )
    p.add_argument("--heap", default=heap)


def engine_version(args, default: str | None = None) -> str:
    """The version to provision: the one given, else the engine's default (for Elasticsearch, ``default`` first)."""
    engine = getattr(args, "engine", "elasticsearch")
    version = args.version if args.version and (engine == "elasticsearch") == (args.version in DISTRIBUTIONS) else None
    if args.version and version is None:
        spec_for(args.version, engine)  # names what the engine has
    return version or (default or DEFAULT_VERSION if engine == "elasticsearch" else DEFAULT_OPENSEARCH)


def shape(args, **fixed) -> lifecycle.Shape:
    engine = getattr(args, "engine", "elasticsearch")
    chosen = {"nodes": getattr(args, "nodes", 1), "version": engine_version(args), "heap": args.heap, "engine": engine, **fixed}
    chosen["heap"] = lifecycle.validate_heap(chosen["heap"])
    return lifecycle.Shape(**chosen)


def add_race(p: argparse.ArgumentParser) -> None:
    p.add_argument("--challenge", help="challenge of the study's track (default: the track's default)")
    p.add_argument("--track-param", action="append", metavar="KEY=VALUE", help="track parameter (JSON values allowed), repeatable")
    p.add_argument("--tag", action="append", metavar="KEY:VALUE", help="user tag stored with the race, repeatable")
    p.add_argument("--test-mode", action="store_true", help="Rally's test mode: 1k docs, one iteration per task")
    p.add_argument(
        "--full-size",
        action="store_true",
        help="the study at its article's own size (its corpus and grid; the study's README gives the duration here); "
        "--track-param still overrides",
    )
    p.add_argument("--client-options", help="passed to esrally --client-options (never printed)")
    p.add_argument(
        "--on-error",
        choices=["abort", "continue", "continue-on-network"],
        default="abort",
        help="Rally's --on-error: abort at the first failed request (default); continue: race on and mark the report "
        "INVALID (a lost connection still aborts); continue-on-network: race on through lost connections too",
    )
    p.add_argument("--cluster", default=lifecycle.DEFAULT_CLUSTER, help="name of the pack's local cluster")


def race_options(args, study=None) -> racing.Options:
    """The race's options; with ``--full-size`` the study's article-size parameters under the given ones, and a tag."""
    params, tags = track_params(args), pairs(args.tag, ":", "tag")
    if getattr(args, "full_size", False) and study is not None:
        params = {**study.full_size, **params}
        tags = {**racing.FULL_SIZE_TAGS, **tags}
    return racing.Options(challenge=args.challenge, params=params, tags=tags, test_mode=args.test_mode, on_error=args.on_error)


def target(args) -> racing.Target:
    """Where ``ingestlab race`` goes: --target-hosts, a lab of test hosts (--hosts), Rally's own provisioning
    (--pipeline from-distribution), or the pack's running local cluster (with its credentials if secured)."""
    if getattr(args, "pipeline", "benchmark-only") == "from-distribution":
        return racing.Target(distribution={"version": args.distribution_version, "car": args.car, "car_params": args.car_params})
    if getattr(args, "hosts", None):
        drivers = lab.require(args.hosts)
        emulation = drivers if drivers.hardware else None
        if getattr(args, "one_driver", False):  # one load driver outside the hosts, in the coordinator's CPU share
            return racing.Target(
                hosts=drivers.target_hosts,
                client_options=args.client_options,
                emulation=emulation,
                launcher=tuple(drivers.driver_launcher("coordinator")),
            )
        return racing.Target(hosts=drivers.target_hosts, client_options=args.client_options, drivers=drivers, emulation=emulation)
    if getattr(args, "target_hosts", None):
        return racing.Target(
            hosts=args.target_hosts, client_options=args.client_options, engine=getattr(args, "engine", None) or "elasticsearch"
        )
    cluster = lifecycle.running_cluster(args.cluster)
    return racing.Target(hosts=cluster.hosts, client_options=args.client_options or cluster.client_options(), engine=cluster.engine)


def check_agree(args) -> None:
    """A warm-up's ``--agree`` (ab, calibrate), refused in one line below 1."""
    if args.agree < 1:
        raise IngestlabError(f"--agree {args.agree}: at least 1 (the first race of a session is never kept)")
