"""``ingestlab cluster …`` (local nodes) and ``ingestlab hosts …`` (test hosts in network namespaces)."""

from __future__ import annotations

import json

from ingestlab.cli import options
from ingestlab.cluster import faults, lifecycle
from ingestlab.cluster.model import DEFAULT_HTTP_PORT, DEFAULT_TRANSPORT_PORT, Cluster
from ingestlab.errors import IngestlabError
from ingestlab.hosts import hardware, lab


def cmd_cluster(args) -> int:
    if args.action == "up":
        lifecycle.up(
            options.shape(
                args,
                name=args.name,
                http_port=args.http_port,
                transport_port=args.transport_port,
                settings=options.pairs(args.setting, "=", "setting"),
                data_dir=args.data_dir,
                secured=args.secured,
            )
        )
    elif args.action == "down":
        lifecycle.down(args.name)
    elif args.action in ("kill-node", "start-node"):
        cluster = Cluster.load(args.name)
        if cluster is None or not args.node:
            raise IngestlabError(f"{args.action} needs a recorded cluster (--name) and --node NAME")
        if args.action == "kill-node":
            faults.kill_node(cluster, args.node)
            print(f"[ingestlab] {args.node} of {args.name} killed (SIGKILL); `ingestlab cluster start-node --node {args.node}` restarts it")
        else:
            faults.start_node(cluster, args.node)
    else:
        print(json.dumps(lifecycle.status(args.name), indent=2))
    return 0


def cmd_hosts(args) -> int:
    if args.action == "up":
        if getattr(args, "engine", "elasticsearch") != "elasticsearch":
            raise IngestlabError(
                "test hosts run Elasticsearch nodes and Rally's load-driver daemons only; for OpenSearch, "
                "`ingestlab cluster up --engine opensearch [--nodes 3]`"
            )
        emulated = ("cpus", "memory", "disk", "link", "driver_cpus", "scale", "coordinator_cpus")
        profile = hardware.from_options(**{k: getattr(args, k) for k in emulated})
        lab.up(
            count=args.hosts,
            prefix=args.prefix,
            subnet=args.subnet,
            version=args.version,
            heap=lifecycle.validate_heap(args.heap),
            provision=args.provision,
            car=args.car,
            hardware=profile,
        )
    elif args.action == "down":
        lab.down(args.prefix)
    elif args.action in ("cut", "restore"):
        if not args.host:
            raise IngestlabError(f"{args.action} needs --host NAME, e.g. h2")
        host = lab.set_link(args.prefix, args.host, up=args.action == "restore")
        cut = f"cut off (link {host.veth} down); `ingestlab hosts restore --host {host.name}` reconnects it"
        print(f"[ingestlab] {host.name} ({host.address}) " + ("reconnected" if args.action == "restore" else cut))
    else:
        print(json.dumps(lab.status(args.prefix), indent=2))
    return 0


def add(sub) -> None:
    c = sub.add_parser("cluster", help="provision, start, stop a local Elasticsearch cluster")
    c.add_argument(
        "action",
        choices=["up", "down", "status", "kill-node", "start-node"],
        help="kill-node / start-node: crash one node (SIGKILL) and restart it on its data, for fault tests",
    )
    c.add_argument("--node", help="kill-node / start-node: the node, e.g. node-2")
    options.add_shape(c)
    c.add_argument("--http-port", type=int, default=DEFAULT_HTTP_PORT)
    c.add_argument("--transport-port", type=int, default=DEFAULT_TRANSPORT_PORT)
    c.add_argument("--setting", action="append", metavar="KEY=VALUE", help="extra node setting, repeatable")
    c.add_argument("--name", default=lifecycle.DEFAULT_CLUSTER)
    c.add_argument(
        "--secured",
        action="store_true",
        help="x-pack security: basic auth (user elastic, password in <cluster dir>/credentials.json) and TLS",
    )
    c.add_argument(
        "--data-dir",
        help="where the nodes' data, logs and config go, as DIR/<name>/node-N, emptied at every start (default: under INGESTLAB_HOME)",
    )
    c.set_defaults(func=cmd_cluster)

    h = sub.add_parser("hosts", help="test hosts on this machine (network namespaces, root): one node and one esrallyd each")
    h.add_argument(
        "action",
        choices=["up", "down", "status", "cut", "restore"],
        help="cut / restore: take a host's link down (as if its cable were pulled) and up again",
    )
    h.add_argument("--hosts", type=int, default=3, help="up: how many hosts (default 3)")
    h.add_argument("--prefix", default="ingl", help="names the namespaces <prefix>-hN, links and state (default ingl)")
    h.add_argument("--subnet", default="127.213.0", help="the first three numbers of the hosts' /24 (default 127.213.0)")
    h.add_argument("--host", help="cut / restore: the host, e.g. h2")
    options.add_shape(h, heap="512m", nodes=False)
    h.add_argument(
        "--provision",
        choices=["ingestlab", "rally"],
        default="ingestlab",
        help="who starts the nodes: the pack (default), or Rally itself (esrally install/start/stop with car-configs, as on real machines)",
    )
    h.add_argument("--car", default="defaults", help="--provision rally: car and mixins of car-configs, e.g. defaults,1gheap")
    hw = h.add_argument_group("emulated hardware (root, cgroup v1): each host's own, the same for every host")
    hw.add_argument("--cpus", type=float, help="cores of CPU bandwidth for each host's node (cgroup quota); node.processors follows")
    hw.add_argument("--memory", help="memory of each host's node, e.g. 3g (cgroup limit); the heap is half of it")
    hw.add_argument(
        "--disk", help="sc1, hdd, ssd, nvme, or raid0:<n>x<kind> (e.g. raid0:4xhdd): throttled loop devices, striped with btrfs"
    )
    hw.add_argument("--link", help="each host's link, e.g. 1gbit or 100mbit (tc tbf on both ends)")
    hw.add_argument("--driver-cpus", type=float, help="cores of CPU bandwidth for each host's Rally load driver, and the coordinator's")
    hw.add_argument(
        "--coordinator-cpus",
        type=float,
        help="cores of CPU bandwidth for the coordinator's load driver alone (then "
        "--driver-cpus is the hosts' drivers' only, and none gives them no share: for `race`/`redline --one-driver`)",
    )
    hw.add_argument(
        "--scale",
        choices=["study5", "study4"],
        help="derive memory, disk and link from the study's machines in proportion to --cpus (given options override)",
    )
    h.set_defaults(func=cmd_hosts)
