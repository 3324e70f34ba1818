"""``ingestlab``: provision a local cluster, prepare corpora, race studies, report them."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ingestlab import machine, paths, studies
from ingestlab.errors import IngestlabError


def _parse_value(text: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _pairs(items: list[str], sep: str, what: str) -> dict:
    out = {}
    for item in items or []:
        if sep not in item:
            raise IngestlabError(f"{what} {item!r} must look like key{sep}value")
        k, v = item.split(sep, 1)
        out[k.strip()] = v.strip()
    return out


def cmd_cluster(args) -> int:
    from ingestlab.cluster import nodes

    if args.action == "up":
        settings = _pairs(args.setting, "=", "setting")
        nodes.up(
            nodes=args.nodes,
            version=args.version,
            heap=nodes.validate_heap(args.heap),
            http_port=args.http_port,
            transport_port=args.transport_port,
            name=args.name,
            settings=settings,
            data_dir=args.data_dir,
            secured=args.secured,
        )
    elif args.action == "down":
        nodes.down(args.name)
    elif args.action in ("kill-node", "start-node"):
        cluster = nodes.Cluster.load(args.name)
        if cluster is None or not args.node:
            raise IngestlabError(f"{args.action} needs a recorded cluster (--name) and --node NAME")
        if args.action == "kill-node":
            nodes.kill_node(cluster, args.node)
            print(f"[ingestlab] {args.node} of {args.name} killed (SIGKILL); `ingestlab cluster start-node --node {args.node}` restarts it")
        else:
            nodes.start_node(cluster, args.node)
    else:
        print(json.dumps(nodes.status(args.name), indent=2))
    return 0


def cmd_hosts(args) -> int:
    from ingestlab.hosts import lab

    if args.action == "up":
        lab.up(count=args.hosts, prefix=args.prefix, subnet=args.subnet, version=args.version, heap=args.heap,
               provision=args.provision, car=args.car)
    elif args.action == "down":
        lab.down(args.prefix)
    elif args.action in ("cut", "restore"):
        if not args.host:
            raise IngestlabError(f"{args.action} needs --host NAME, e.g. h2")
        host = lab.set_link(args.prefix, args.host, up=args.action == "restore")
        print(f"[ingestlab] {host.name} ({host.address}) " + ("reconnected" if args.action == "restore" else
              f"cut off (link {host.veth} down); `ingestlab hosts restore --host {host.name}` reconnects it"))
    else:
        print(json.dumps(lab.status(args.prefix), indent=2))
    return 0


def cmd_corpus(args) -> int:
    study = studies.get(args.study)
    if args.from_file:
        from ingestlab.corpus import track_corpus_file

        if study.name not in ("geonames", "pmc"):
            raise IngestlabError("--from takes Rally's real corpus file of the geonames or pmc track")
        entry = track_corpus_file.register_real(study.track, Path(args.from_file))
        print(f"[ingestlab] {entry['document-count']:,} documents of {args.from_file} registered in {study.track}")
        return 0
    params = study.params_with(_track_params(args))
    if args.docs:
        if study.name != "posts":
            raise IngestlabError("--docs is the posts corpus size; for other studies pass --track-param (see the track's README)")
        params["posts_docs"] = args.docs
    study.prepare(params)
    return 0


def _track_params(args) -> dict:
    return {k: _parse_value(v) for k, v in _pairs(args.track_param, "=", "track param").items()}


def _target_hosts(args) -> str:
    if args.target_hosts:
        return args.target_hosts
    from ingestlab.cluster import nodes

    cluster = nodes.Cluster.load(args.cluster)
    if cluster is None or not any(nodes.pid_alive(n.pid) for n in cluster.nodes):
        raise IngestlabError("no running ingestlab cluster: start one with `ingestlab cluster up`, or pass --target-hosts")
    if cluster.security and not args.client_options:
        args.client_options = cluster.credentials().client_options()  # the pack's own secured cluster
    return cluster.hosts


def _write_results(study_name: str, race: dict, text: str, extra: dict) -> Path:
    out = paths.results_dir() / study_name / race["race-id"]
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.md").write_text(text)
    (out / "results.json").write_text(json.dumps({"race": race, **extra}, indent=2, default=str))
    return out


def race_study(study_name: str, target_hosts: str | None, args) -> dict:
    from ingestlab import racing

    node = None
    if getattr(args, "pipeline", "benchmark-only") == "from-distribution":
        node = {"version": args.distribution_version, "car": args.car, "car_params": args.car_params}
    lab = None
    if getattr(args, "hosts", None):
        from ingestlab.hosts import lab as labs

        lab = labs.require(args.hosts)
    return racing.race_study(study_name, target_hosts, challenge=args.challenge, track_params=_track_params(args),
                             tags=_pairs(args.tag, ":", "tag"), test_mode=args.test_mode, client_options=args.client_options,
                             from_distribution=node, on_error=args.on_error, lab=lab)


def _report(study_name: str, race_doc: dict, load_side: dict | None) -> None:
    from ingestlab.report import html

    study = studies.get(study_name)
    info = machine.describe()
    text = study.report(race_doc, machine.one_line(info), load_side)
    out = _write_results(study_name, race_doc, text, {"machine": info, "load_side": load_side})
    charts = []
    if study.charts:
        print("[ingestlab] drawing the charts ...", flush=True)
        charts = study.charts(race_doc, machine.one_line(info))
    (out / "report.html").write_text(html.page(f"ingestlab: {study.title}", text, charts))
    print()
    print(text)
    print(f"[ingestlab] report written to {out}/report.md and {out}/report.html ({len(charts)} charts)")


def cmd_race(args) -> int:
    hosts = None if args.pipeline == "from-distribution" or args.hosts else _target_hosts(args)
    race_doc = race_study(args.study, hosts, args)
    _report(args.study, race_doc, None)
    return 0


def cmd_report(args) -> int:
    from ingestlab.rally import results

    if args.race_id:
        race_doc = results.load_race(args.race_id)
    else:
        race_doc = results.latest_race({"study": args.study})
        if race_doc is None:
            raise IngestlabError(f"no stored race of study {args.study!r}; run `ingestlab race {args.study}` first")
    _report(args.study, race_doc, None)
    return 0


def _races(selector: str, study: str | None) -> tuple[str, list[dict]]:
    """``RACE_ID`` or ``key:value`` (every stored race with that tag, of the study if given)."""
    from ingestlab.rally import results

    if ":" in selector:
        key, value = selector.split(":", 1)
        tags = {key: value, **({"study": study} if study else {})}
        races = results.races_with_tags(tags)
        if not races:
            raise IngestlabError(f"no stored race tagged {selector}" + (f" of study {study}" if study else ""))
        return selector, races
    try:
        return selector, [results.load_race(selector)]
    except FileNotFoundError as e:
        raise IngestlabError(str(e)) from None


def cmd_compare(args) -> int:
    from ingestlab import compare

    name, baseline = _races(args.baseline, args.study)
    contenders = [_races(c, args.study) for c in args.contender]
    margin = args.margin / 100.0 if args.margin is not None else None
    text = compare.markdown(f"{name} ({len(baseline)} race{'s' if len(baseline) != 1 else ''})", compare.aggregate(baseline),
                            [(f"{n} ({len(r)} race{'s' if len(r) != 1 else ''})", compare.aggregate(r)) for n, r in contenders], margin)
    print(text)
    return 0


def cmd_nightly(args) -> int:
    from ingestlab import nightly

    names = [s.strip() for s in args.studies.split(",") if s.strip()]
    for name in names:
        studies.get(name)
    return nightly.run(names, Path(args.history) if args.history else None,
                       args.margin / 100.0 if args.margin is not None else None,
                       target_hosts=args.target_hosts, version=args.version, client_options=args.client_options)


def cmd_corpora(args) -> int:
    from ingestlab import corpora_study

    tracks = [t.strip() for t in args.tracks.split(",") if t.strip()]
    extra: dict = {}
    for key, value in _pairs(args.track_param, "=", "track param").items():
        track, _, name = key.partition(".")
        if not name or track not in corpora_study.TRACKS:
            raise IngestlabError(f"track param {key!r} must look like <track>.<param>, e.g. eventdata.eventdata_docs=50000")
        extra.setdefault(track, {})[name] = _parse_value(value)
    corpora_study.run(tracks, test_mode=args.test_mode, extra_params=extra, clients=args.clients)
    return 0


def cmd_loadbench(args) -> int:
    from ingestlab import loadbench

    if args.study == "dvf":
        print(json.dumps(loadbench.dvf(rows=args.docs or 100_000), indent=2))
    elif args.study == "wikipedia":
        print(json.dumps(loadbench.wikipedia(pages=args.docs or 20_000), indent=2))
    elif args.study == "eventdata":
        print(json.dumps(loadbench.eventdata(docs=args.docs or 200_000), indent=2))
    else:
        print(json.dumps(loadbench.posts(docs=args.docs or 100_000, bulk_size=args.bulk_size), indent=2))
    return 0


def cmd_wikipedia(args) -> int:
    from ingestlab.corpus.wikipedia import convert, generate, track_corpus

    if args.action == "generate":
        written = generate.write(Path(args.output), generate.WikiGenerator(seed=args.seed).pages(args.pages))
        print(f"[ingestlab] wrote {written:,} pages to {args.output}")
        return 0
    out = Path(args.out) if args.out else track_corpus.CORPUS
    result = convert.convert(Path(args.dump), out, limit=args.limit)
    print(f"[ingestlab] {result.documents:,} pages into {out} ({result.uncompressed_bytes / 1e6:,.1f} MB) from "
          f"{result.input_bytes / 1e6:,.1f} MB of XML in {result.seconds:,.1f} s: {result.mb_per_second:,.1f} MB/s")
    return 0


def cmd_dvf(args) -> int:
    from ingestlab.corpus.dvf import convert, generate, reference, track_corpus

    if args.action == "generate":
        rows = generate.DvfGenerator(reference.load_communes(), seed=args.seed, year=args.year).rows(args.rows)
        written = generate.write(Path(args.output), rows, args.format, year=args.year, encoding=args.encoding)
        print(f"[ingestlab] wrote {written:,} {args.format} rows to {args.output}")
        return 0
    out = Path(args.out) if args.out else track_corpus.CORPUS
    result = convert.convert([Path(p) for p in args.inputs], out, strict=args.strict, compress=args.bz2, encoding=args.encoding, limit=args.limit)
    print(f"[ingestlab] {result.documents:,} documents into {out} ({result.uncompressed_bytes / 1e6:,.1f} MB"
          + (f", {result.compressed_bytes / 1e6:,.1f} MB as .bz2" if result.compressed_bytes else "")
          + f") in {result.seconds:,.1f} s: {result.rows_per_second:,.0f} rows/s; corpus entry: {out.with_name('corpus.json')}")
    if result.skipped.count:
        print(f"[ingestlab] skipped {result.skipped.count:,} bad rows (--strict stops at the first); the first ones:", file=sys.stderr)
        for message in result.skipped.messages:
            print(f"  {message}", file=sys.stderr)
    return 0


def cmd_demo(args) -> int:
    from ingestlab.cluster import nodes

    study = studies.get(args.study)  # an unknown study fails before a cluster starts
    cluster = nodes.up(nodes=args.nodes, version=args.version, heap=nodes.validate_heap(args.heap), name=args.cluster)
    try:
        race_doc = race_study(args.study, cluster.hosts, args)
    finally:
        if not args.keep_cluster:
            nodes.stop(cluster, log=print)
            print(f"[ingestlab] cluster {cluster.name} stopped")
    load_side = None
    if study.load_bench:
        print("[ingestlab] measuring the load side alone (no cluster) ...")
        load_side = study.load_bench()
    _report(args.study, race_doc, load_side)
    return 0


def _race_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("study", nargs="?", default="posts", help="study to race (default: posts)")
    p.add_argument("--challenge", help="challenge of the study's track (default: the track's default)")
    p.add_argument("--track-param", action="append", metavar="KEY=VALUE", help="track parameter (JSON values allowed), repeatable")
    p.add_argument("--tag", action="append", metavar="KEY:VALUE", help="user tag stored with the race, repeatable")
    p.add_argument("--test-mode", action="store_true", help="Rally's test mode: 1k docs, one iteration per task")
    p.add_argument("--client-options", help="passed to esrally --client-options (never printed)")
    p.add_argument("--on-error", choices=["abort", "continue", "continue-on-network"], default="abort",
                   help="Rally's --on-error: abort at the first failed request (default); continue: race on and mark the report "
                        "INVALID (a lost connection still aborts); continue-on-network: race on through lost connections too")
    p.add_argument("--cluster", default="ingestlab", help="name of the pack's local cluster")


def parser() -> argparse.ArgumentParser:
    from ingestlab.cluster import distribution, nodes

    top = argparse.ArgumentParser(prog="ingestlab", description=__doc__)
    sub = top.add_subparsers(dest="command", required=True)

    c = sub.add_parser("cluster", help="provision, start, stop a local Elasticsearch cluster")
    c.add_argument("action", choices=["up", "down", "status", "kill-node", "start-node"],
                   help="kill-node / start-node: crash one node (SIGKILL) and restart it on its data, for fault tests")
    c.add_argument("--node", help="kill-node / start-node: the node, e.g. node-2")
    c.add_argument("--nodes", type=int, default=1)
    c.add_argument("--version", default=distribution.DEFAULT_VERSION, choices=sorted(distribution.DISTRIBUTIONS))
    c.add_argument("--heap", default="1g")
    c.add_argument("--http-port", type=int, default=nodes.DEFAULT_HTTP_PORT)
    c.add_argument("--transport-port", type=int, default=nodes.DEFAULT_TRANSPORT_PORT)
    c.add_argument("--setting", action="append", metavar="KEY=VALUE", help="extra node setting, repeatable")
    c.add_argument("--name", default=nodes.DEFAULT_CLUSTER)
    c.add_argument("--secured", action="store_true",
                   help="x-pack security: basic auth (user elastic, password in <cluster dir>/credentials.json) and TLS")
    c.add_argument("--data-dir", help="where the nodes' data, logs and config go, as DIR/<name>/node-N, emptied at every start (default: under INGESTLAB_HOME)")
    c.set_defaults(func=cmd_cluster)

    h = sub.add_parser("hosts", help="test hosts on this machine (network namespaces, root): one node and one esrallyd each")
    h.add_argument("action", choices=["up", "down", "status", "cut", "restore"],
                   help="cut / restore: take a host's link down (as if its cable were pulled) and up again")
    h.add_argument("--hosts", type=int, default=3, help="up: how many hosts (default 3)")
    h.add_argument("--prefix", default="ingl", help="names the namespaces <prefix>-hN, links and state (default ingl)")
    h.add_argument("--subnet", default="127.213.0", help="the first three numbers of the hosts' /24 (default 127.213.0)")
    h.add_argument("--host", help="cut / restore: the host, e.g. h2")
    h.add_argument("--version", default=distribution.DEFAULT_VERSION, choices=sorted(distribution.DISTRIBUTIONS))
    h.add_argument("--heap", default="512m", help="each node's heap (default 512m)")
    h.add_argument("--provision", choices=["ingestlab", "rally"], default="ingestlab",
                   help="who starts the nodes: the pack (default), or Rally itself (esrally install/start/stop with car-configs, as on real machines)")
    h.add_argument("--car", default="defaults", help="--provision rally: car and mixins of car-configs, e.g. defaults,1gheap")
    h.set_defaults(func=cmd_hosts)

    co = sub.add_parser("corpus", help="generate a study's corpus into its track directory")
    co.add_argument("study", choices=sorted(studies.STUDIES))
    co.add_argument("--docs", type=int, help="posts only: number of documents (default 10000)")
    co.add_argument("--from", dest="from_file", metavar="FILE", help="geonames/pmc: use Rally's real documents.json(.bz2) instead of generating")
    co.add_argument("--track-param", action="append", metavar="KEY=VALUE", help="track parameter that sizes the corpus, e.g. doc_counts=[10,100]")
    co.set_defaults(func=cmd_corpus)

    r = sub.add_parser("race", help="race a study against a running cluster and report it")
    _race_options(r)
    r.add_argument("--target-hosts", help="default: the pack's running local cluster")
    r.add_argument("--hosts", nargs="?", const="ingl", metavar="PREFIX",
                   help="race on a lab of test hosts (`ingestlab hosts up`): its cluster, with Rally's load drivers on its hosts")
    r.add_argument("--pipeline", choices=["benchmark-only", "from-distribution"], default="benchmark-only",
                   help="from-distribution: Rally installs, starts and stops the node itself, with the car-configs team")
    r.add_argument("--car", default="defaults", help="from-distribution: car and mixins of car-configs, e.g. defaults,4gheap,ssd")
    r.add_argument("--car-params", help="from-distribution: e.g. \"data_paths:'/mnt/raid0/es'\"")
    r.add_argument("--distribution-version", default=distribution.DEFAULT_VERSION, choices=sorted(distribution.DISTRIBUTIONS))
    r.set_defaults(func=cmd_race)

    rep = sub.add_parser("report", help="report a stored race of a study beside the published figures")
    rep.add_argument("study", nargs="?", default="posts")
    rep.add_argument("--race-id", help="default: the newest race tagged with the study")
    rep.set_defaults(func=cmd_report)

    cmp = sub.add_parser("compare", help="compare a baseline with contenders: race ids, or tags aggregating repeated races")
    cmp.add_argument("--baseline", required=True, metavar="RACE_ID|TAG:VALUE")
    cmp.add_argument("--contender", required=True, action="append", metavar="RACE_ID|TAG:VALUE", help="repeatable")
    cmp.add_argument("--study", help="only races of this study (with tags)")
    cmp.add_argument("--margin", type=float, metavar="PERCENT", help="noise margin; default: derived from the races' spread")
    cmp.set_defaults(func=cmd_compare)

    nt = sub.add_parser("nightly", help="race the studies small, compare with previous nights and the published studies; exit 1 on a regression")
    nt.add_argument("--studies", default=",".join(("posts", "refresh", "dvf", "wikipedia")))
    nt.add_argument("--history", help="SQLite history file (default: results/nightly/history.sqlite)")
    nt.add_argument("--margin", type=float, metavar="PERCENT", help="regression margin; default: 2x the history's coefficient of variation, at least 10 %%")
    nt.add_argument("--target-hosts", help="race against this cluster instead of provisioning one")
    nt.add_argument("--client-options", help="with --target-hosts: passed to esrally --client-options (never printed)")
    nt.add_argument("--version", choices=sorted(distribution.DISTRIBUTIONS), help="Elasticsearch of the provisioned node")
    nt.set_defaults(func=cmd_nightly)

    cs = sub.add_parser("corpora", help="study 5: eventdata, geonames, pmc on 1 node, then 3 nodes with 0 and 1 replica; ratios beside the study")
    cs.add_argument("--tracks", default="eventdata,geonames,pmc")
    cs.add_argument("--test-mode", action="store_true")
    cs.add_argument("--clients", type=int, help="bulk_indexing_clients (default: the tracks' 8)")
    cs.add_argument("--track-param", action="append", metavar="TRACK.KEY=VALUE", help="e.g. geonames.geonames_docs=234908, repeatable")
    cs.set_defaults(func=cmd_corpora)

    lb = sub.add_parser("loadbench", help="measure the load side alone (no cluster)")
    lb.add_argument("study", nargs="?", default="posts", choices=["posts", "dvf", "wikipedia", "eventdata"])
    lb.add_argument("--docs", type=int, help="documents (posts, default 100000), rows (dvf, 100000) or pages (wikipedia, 20000)")
    lb.add_argument("--bulk-size", type=int, default=1000)
    lb.set_defaults(func=cmd_loadbench)

    dv = sub.add_parser("dvf", help="DVF files: generate realistic ones, convert real or generated ones into the track's corpus")
    dvsub = dv.add_subparsers(dest="action", required=True)
    g = dvsub.add_parser("generate", help="write a realistic DVF file (deterministic for a seed)")
    g.add_argument("output", help="file to write, e.g. full.2020.csv or valeursfoncieres-2020.txt")
    g.add_argument("--format", choices=["etalab", "official"], default="etalab")
    g.add_argument("--rows", type=int, default=100_000)
    g.add_argument("--seed", type=int, default=2020)
    g.add_argument("--year", type=int, default=2020, help="official files from 2022 on are UTF-8 with 'Identifiant de document'")
    g.add_argument("--encoding", help="default: latin-1 for official files before 2022, else utf-8")
    g.set_defaults(func=cmd_dvf)
    cv = dvsub.add_parser("convert", help="convert DVF files (official .txt or Etalab .csv, detected) into a Rally corpus")
    cv.add_argument("inputs", nargs="+", help="DVF files, converted in order into one corpus")
    cv.add_argument("--out", help="corpus file (default: tracks/dvf/dvf.json); corpus.json is written beside it")
    cv.add_argument("--strict", action="store_true", help="stop at the first bad row (default: skip, count and list them)")
    cv.add_argument("--bz2", action="store_true", help="also write the .json.bz2 archives (slower: bz2 runs at ~12 MB/s)")
    cv.add_argument("--encoding", help="default: detected (UTF-8 if the first MiB decodes, else Latin-1)")
    cv.add_argument("--limit", type=int, help="stop after this many documents")
    cv.set_defaults(func=cmd_dvf)

    wk = sub.add_parser("wikipedia", help="MediaWiki exports: generate a Japanese-like one, convert real or generated ones into the track's corpus")
    wksub = wk.add_subparsers(dest="action", required=True)
    wg = wksub.add_parser("generate", help="write a Japanese-Wikipedia-like export (.xml or .xml.bz2), deterministic for a seed")
    wg.add_argument("output")
    wg.add_argument("--pages", type=int, default=30_000)
    wg.add_argument("--seed", type=int, default=2016)
    wg.set_defaults(func=cmd_wikipedia)
    wc = wksub.add_parser("convert", help="convert a pages-articles export (.xml or .xml.bz2) into a Rally corpus")
    wc.add_argument("dump")
    wc.add_argument("--out", help="corpus file (default: tracks/wikipedia/wikipedia.json)")
    wc.add_argument("--limit", type=int, help="stop after this many pages")
    wc.set_defaults(func=cmd_wikipedia)

    d = sub.add_parser("demo", help="provision a node, race a study, print it beside the published figures, stop the node")
    _race_options(d)
    d.add_argument("--nodes", type=int, default=1)
    d.add_argument("--version", default=distribution.DEFAULT_VERSION, choices=sorted(distribution.DISTRIBUTIONS))
    d.add_argument("--heap", default="1g")
    d.add_argument("--keep-cluster", action="store_true", help="leave the cluster running afterwards")
    d.set_defaults(func=cmd_demo)
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.func(args)
    except IngestlabError as e:
        print(f"ingestlab: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("ingestlab: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
