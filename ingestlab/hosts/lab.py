"""A lab of test hosts on one machine: N network namespaces, each with one Elasticsearch node (the pack's, or with
``provision="rally"`` Rally's) and one Rally daemon, and the coordinating daemon in the root namespace, all on one
free actor port (the daemons: :mod:`ingestlab.hosts.daemons`); races join with ``--load-driver-hosts``. Every process
it starts carries ``INGESTLAB_LAB=<prefix>``, so :func:`down` needs only the prefix, also after a crash. With a hardware
profile, each host's node, load driver, disk and link are emulated (:mod:`ingestlab.hosts.emulation`) and checked
(:mod:`ingestlab.hosts.fidelity`).

State: ``INGESTLAB_HOME/hosts/<prefix>/lab.json``; daemon logs, disk images, mounts and runner stats beside it."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ingestlab import net, paths, procs
from ingestlab.cluster import lifecycle
from ingestlab.cluster.health import wait_for_health_at
from ingestlab.cluster.model import DEFAULT_HTTP_PORT, Cluster
from ingestlab.cluster.versions import DEFAULT_VERSION
from ingestlab.errors import IngestlabError
from ingestlab.hosts import cgroups, daemons, disks, emulation, namespaces, rally_provisioning
from ingestlab.hosts import hardware as hw
from ingestlab.hosts.namespaces import Host


def lab_dir(prefix: str) -> Path:
    return paths.home() / "hosts" / prefix


def cluster_name(prefix: str) -> str:
    return f"{prefix}-lab"


@dataclass
class Lab:
    prefix: str
    subnet: str
    count: int
    actor_port: int
    provision: str = "ingestlab"  # or "rally": esrally install/start/stop
    version: str = DEFAULT_VERSION
    installations: dict = field(default_factory=dict)  # host name -> Rally installation id (provision "rally")
    hardware: dict = field(default_factory=dict)  # the hosts' hardware profile (Hardware.to_json()); empty: shared machine
    disks: list = field(default_factory=list)  # per host: {"host", "mount", "devices", "numbers"} of its emulated disk

    @property
    def profile(self) -> hw.Hardware:
        return hw.Hardware.from_json(self.hardware)

    @property
    def actor_token(self) -> str:
        """The token of the lab's actor system: its daemons and every race on them carry it (see rally.launcher)."""
        return f"lab-{self.prefix}-{self.actor_port}"

    @property
    def process_marker(self) -> str:
        """``NAME=value`` in the environment of every process started for the lab (its daemons and their workers)."""
        return daemons.marker(self.prefix)

    def group(self, host: str, role: str) -> cgroups.Group:
        """The cgroup of a host's node or load driver (``role``), or of the coordinator's load driver."""
        return cgroups.Group(self.prefix, f"{host}-{role}")

    def driver_launcher(self, host: str) -> list[str]:
        """A command prefix that runs a load driver in its host's (or the coordinator's) CPU share; none when not emulated."""
        if self.profile.cpus is None and not self.profile.drivers_limited:
            return []
        return cgroups.joining([self.group(host, "driver")], [])

    @property
    def hosts(self) -> list[Host]:
        return namespaces.hosts_for(self.prefix, self.subnet, self.count)

    @property
    def coordinator(self) -> str:
        return namespaces.coordinator_address(self.subnet)

    @property
    def directory(self) -> Path:
        return lab_dir(self.prefix)

    @property
    def load_driver_hosts(self) -> str:
        return ",".join(h.address for h in self.hosts)

    @property
    def target_hosts(self) -> str:
        """Rally's ``--target-hosts``: the node on every host (both provisionings use the same HTTP port)."""
        return ",".join(f"{h.address}:{DEFAULT_HTTP_PORT}" for h in self.hosts)

    @property
    def url(self) -> str:
        return f"http://{self.hosts[0].address}:{DEFAULT_HTTP_PORT}"

    def host(self, name: str) -> Host:
        for h in self.hosts:
            if h.name == name:
                return h
        raise IngestlabError(f"the lab {self.prefix!r} has no host {name!r}; it has {', '.join(h.name for h in self.hosts)}")

    def runner_stats_file(self, host: Host | None) -> Path:
        """Where the pack's runners on that host's daemon write their per-call figures (None: the coordinator's)."""
        return self.directory / "runner-stats" / f"{host.name if host else 'coordinator'}.jsonl"

    def save(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        (self.directory / "lab.json").write_text(json.dumps(asdict(self), indent=2))

    @classmethod
    def load(cls, prefix: str = namespaces.DEFAULT_PREFIX) -> "Lab | None":
        f = lab_dir(prefix) / "lab.json"
        return cls(**json.loads(f.read_text())) if f.is_file() else None


def require(prefix: str = namespaces.DEFAULT_PREFIX) -> Lab:
    lab = Lab.load(prefix)
    if lab is None:
        raise IngestlabError(f"no lab of test hosts {prefix!r} is up: start one with `ingestlab hosts up --prefix {prefix}`")
    return lab


PROVISIONERS = ("ingestlab", "rally")


def up(
    count: int = 3,
    prefix: str = namespaces.DEFAULT_PREFIX,
    subnet: str = namespaces.DEFAULT_SUBNET,
    version: str = DEFAULT_VERSION,
    heap: str = "512m",
    provision: str = "ingestlab",
    car: str = "defaults",
    log=print,
    hardware: hw.Hardware | None = None,
) -> Lab:
    """Make the hosts, a cluster of one node per host, a Rally daemon per host and the coordinator's. ``heap`` is for
    the pack's provisioning (with ``provision="rally"`` the ``car`` sets it; with ``hardware``, half its memory).
    Whatever fails, everything made so far is removed again before the error is raised."""
    if provision not in PROVISIONERS:
        raise IngestlabError(f"provision with one of {', '.join(PROVISIONERS)}, not {provision!r}")
    reason = namespaces.unavailable_reason()
    if reason:
        raise IngestlabError(f"test hosts cannot be made here: {reason}")
    hardware = hardware or hw.Hardware()
    emulation.check(hardware, count, provision)
    if Lab.load(prefix):
        raise IngestlabError(f"a lab {prefix!r} is recorded as up; `ingestlab hosts down --prefix {prefix}` first")
    namespaces.check_names(prefix, subnet)
    # the coordinator's daemon listens on every address of the root namespace
    lab = Lab(
        prefix=prefix,
        subnet=subnet,
        count=count,
        actor_port=net.free_port("0.0.0.0"),
        provision=provision,
        version=version,
        hardware=hardware.to_json() if hardware.emulated or hardware.drivers_limited else {},
    )
    try:
        hosts = namespaces.create(prefix, subnet, count)
        lab.save()
        log(
            f"[ingestlab] {count} test hosts: "
            + ", ".join(f"{h.name} {h.address} (netns {h.namespace})" for h in hosts)
            + f"; coordinator {lab.coordinator} on bridge {namespaces.bridge_name(prefix)}"
        )
        _start_nodes(lab, hosts, hardware, heap, car, log)
        daemons.start(lab, None, log)
        for host in hosts:
            daemons.start(lab, host, log)
        if lab.hardware:
            emulation.hold(lab, hosts, hardware)
    except BaseException as e:
        log(f"[ingestlab] the lab {prefix!r} did not come up; removing what was made")
        hits = [h.name for h in lab.hosts if lab.hardware and lab.group(h.name, "node").stats()["memory_failcnt"]]
        down(prefix, log=log)
        if hits and isinstance(e, IngestlabError):
            raise IngestlabError(
                f"the node of {', '.join(hits)} hit its memory limit ({lab.profile.memory_bytes / (1 << 20):,.0f} MiB, "
                f"heap {lab.profile.heap}) while starting: raise --memory. {e}"
            ) from None
        raise
    log(f"[ingestlab] lab {prefix} is up: `ingestlab race <study> --hosts {prefix}` races with --load-driver-hosts={lab.load_driver_hosts}")
    return lab


def _start_nodes(lab: Lab, hosts: list, hardware: hw.Hardware, heap: str, car: str, log) -> None:
    """One node per host: Rally's, from the ``car`` (``provision="rally"``), or the pack's, on the emulated hardware."""
    if lab.provision == "rally":
        try:
            rally_provisioning.install_and_start(hosts, lab.version, car, lab.installations, log=log)
        finally:
            lab.save()  # the installations so far: down() stops them
        if not net.wait_answering(hosts[0].address, DEFAULT_HTTP_PORT, 180):
            raise IngestlabError(f"the node Rally started on {hosts[0].name} does not answer on {lab.url}")
        wait_for_health_at(lab.url, lab.count, "green", timeout=180, name="started by Rally")
        log(f"[ingestlab] Rally started one node per host (car {car}): {lab.target_hosts}")
        return
    placement = emulation.emulate(lab, hosts, hardware, log) if lab.hardware else None
    settings = {"node.processors": str(hardware.processors)} if hardware.processors else {}
    lifecycle.up(
        lifecycle.Shape(name=cluster_name(lab.prefix), version=lab.version, heap=hardware.heap or heap, settings=settings),
        hosts=hosts,
        log=log,
        placement=placement,
    )


def down(prefix: str = namespaces.DEFAULT_PREFIX, log=print) -> list[str]:
    """Stop the lab's daemons and nodes and remove its namespaces, links and state; what it removed."""
    removed = []
    lab = Lab.load(prefix)
    if lab and lab.installations:
        removed += rally_provisioning.stop(lab.hosts, lab.installations, lab.version, log=log)
    stopped = procs.stop(lambda: daemons.tagged(prefix), grace=10)
    if stopped:
        removed.append(f"{stopped} Rally daemon processes")
    cluster = Cluster.load(cluster_name(prefix))
    if cluster:
        lifecycle.stop(cluster, timeout=30, log=log)
        removed.append(f"cluster {cluster.name}")
    removed += namespaces.delete(prefix)  # the links' shapers go with the links
    removed += disks.remove(lab_dir(prefix))
    removed += cgroups.remove(prefix)
    (lab_dir(prefix) / "lab.json").unlink(missing_ok=True)
    left = leftovers(prefix)
    log(f"[ingestlab] lab {prefix} down: removed " + (", ".join(removed) or "nothing (none was up)"))
    if left:
        raise IngestlabError(f"tear-down of lab {prefix!r} left: {'; '.join(left)}")
    return removed


def leftovers(prefix: str) -> list[str]:
    """Anything of the lab still there: namespaces, links, tagged processes."""
    left = [f"namespace {n}" for n in namespaces.existing_namespaces(prefix)]
    left += [f"link {n}" for n in namespaces.existing_links(prefix)]
    left += [f"process {p}" for p in daemons.tagged(prefix)]
    left += disks.existing(lab_dir(prefix))
    left += [f"cgroup {d}" for d in cgroups.existing(prefix)]
    return left


def status(prefix: str = namespaces.DEFAULT_PREFIX) -> dict:
    lab = Lab.load(prefix)
    if lab is None:
        return {"lab": prefix, "up": False, "leftovers": leftovers(prefix)}
    return {
        "lab": prefix,
        "up": True,
        "provision": lab.provision,
        "coordinator": f"{lab.coordinator}:{lab.actor_port}",
        "coordinator_daemon": net.answers(lab.coordinator, lab.actor_port),
        "hosts": [
            {
                "name": h.name,
                "address": h.address,
                "namespace": h.namespace,
                "esrallyd": net.answers(h.address, lab.actor_port),
                "elasticsearch": net.answers(h.address, DEFAULT_HTTP_PORT),
            }
            for h in lab.hosts
        ],
        "target_hosts": lab.target_hosts,
        "load_driver_hosts": lab.load_driver_hosts,
    }


def set_link(prefix: str, host_name: str, up: bool) -> Host:
    host = require(prefix).host(host_name)
    namespaces.set_link(host, up)
    return host
