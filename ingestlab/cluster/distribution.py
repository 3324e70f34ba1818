"""Elasticsearch distributions from Maven Central (``mvn dependency:get``: the user's mirror settings apply), unpacked
once and cached, with any extra modules assembled from their published jars and, where the zip lacks ``GET /``, the
pack's root endpoint (:mod:`ingestlab.cluster.root_endpoint`)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import zipfile
from dataclasses import asdict
from pathlib import Path

from ingestlab import locks, paths
from ingestlab.cluster import root_endpoint
from ingestlab.cluster.jdk import java_home_for
from ingestlab.cluster.versions import DEFAULT_VERSION, DistributionSpec, ExtraModule, spec_for
from ingestlab.errors import IngestlabError

READY_MARKER = ".ingestlab-ready.json"


def require_tool(name: str, why: str) -> str:
    found = shutil.which(name)
    if not found:
        raise IngestlabError(f"`{name}` is not on PATH; it is needed {why}. Install it (e.g. `apt-get install {name}`) and retry.")
    return found


def _run_maven(args: list[str], what: str, cwd: Path | None = None) -> None:
    mvn = require_tool("mvn", "to fetch Elasticsearch from Maven Central")
    repo = [f"-Dmaven.repo.local={_local_repository()}"] if os.environ.get("INGESTLAB_MAVEN_REPO") else []
    proc = subprocess.run([mvn, "-q", "-B", "-Dstyle.color=never", *repo, *args], cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-15:])
        raise IngestlabError(
            f"Maven could not resolve {what} (exit {proc.returncode}). "
            f"Is Maven Central (or your mirror) reachable and is ~/.m2 writable?\n{tail}"
        )


def _local_repository() -> Path:
    override = os.environ.get("INGESTLAB_MAVEN_REPO")
    return Path(override) if override else Path.home() / ".m2" / "repository"


def fetch_zip(spec: DistributionSpec) -> Path:
    """Resolve the distribution zip through Maven; returns its path in the local repository."""
    zip_path = _local_repository() / spec.group_id.replace(".", "/") / spec.artifact / spec.version / f"{spec.home_name}.zip"
    if not zip_path.is_file():
        _run_maven(["dependency:get", "-Dtransitive=false", f"-Dartifact={spec.coordinates}"], spec.coordinates)
    if not zip_path.is_file():
        raise IngestlabError(f"Maven reported success but {zip_path} does not exist")
    return zip_path


def unzip_keeping_modes(zip_path: Path, dest: Path) -> None:
    """Unpack a zip and restore the Unix permission bits that ``zipfile`` drops (bin/ needs exec)."""
    with zipfile.ZipFile(zip_path) as archive:
        for info in archive.infolist():
            target = archive.extract(info, dest)
            mode = (info.external_attr >> 16) & 0o777
            if mode:
                os.chmod(target, mode)


def plugin_descriptor(module: ExtraModule, version: str) -> str:
    return "\n".join(
        [
            "type=isolated",
            f"description={module.description}",
            f"version={version}",
            f"name={module.name}",
            f"classname={module.classname}",
            "java.version=1.8",
            f"elasticsearch.version={version}",
            "extended.plugins=",
            "has.native.controller=false",
            "",
        ]
    )


def _artifact_name(jar_name: str) -> str:
    """``httpcore-nio-4.4.12.jar`` -> ``httpcore-nio``: the name without its version."""
    stem = jar_name[: -len(".jar")]
    parts = stem.split("-")
    while parts and parts[-1][:1].isdigit():
        parts.pop()
    return "-".join(parts)


def jars_to_add(resolved: list[str], shipped: list[str]) -> list[str]:
    """The resolved jars that the distribution's lib/ does not already carry."""
    have = {_artifact_name(j) for j in shipped}
    return sorted(j for j in resolved if _artifact_name(j) not in have)


def install_module(es_home: Path, module: ExtraModule, version: str) -> None:
    with tempfile.TemporaryDirectory(prefix=f"ingestlab-{module.name}-") as tmp:
        pom = Path(tmp) / "pom.xml"
        pom.write_text(
            f"""<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
<groupId>ingestlab</groupId><artifactId>module-{module.name}</artifactId><version>1</version>
<dependencies><dependency><groupId>org.elasticsearch.plugin</groupId>
<artifactId>{module.artifact_id}</artifactId><version>{version}</version></dependency></dependencies>
</project>
"""
        )
        _run_maven(
            ["dependency:copy-dependencies", "-DincludeScope=runtime", "-DoutputDirectory=jars"],
            f"org.elasticsearch.plugin:{module.artifact_id}:{version} and its runtime dependencies",
            cwd=Path(tmp),
        )
        resolved = [p.name for p in (Path(tmp) / "jars").glob("*.jar")]
        shipped = [p.name for p in (es_home / "lib").glob("*.jar")]
        module_dir = es_home / "modules" / module.name
        module_dir.mkdir(parents=True, exist_ok=True)
        for jar in jars_to_add(resolved, shipped):
            shutil.copy2(Path(tmp) / "jars" / jar, module_dir / jar)
        (module_dir / "plugin-descriptor.properties").write_text(plugin_descriptor(module, version))


def ensure_distribution(version: str = DEFAULT_VERSION, log=print, engine: str = "elasticsearch") -> Path:
    """Return the home of ``version`` of ``engine``, fetching and assembling it on first use."""
    spec = spec_for(version, engine)
    base = paths.distributions_dir() / (version if engine == "elasticsearch" else spec.home_name)
    es_home = base / spec.home_name
    marker = base / READY_MARKER
    if marker.is_file() and es_home.is_dir():
        return es_home
    with locks.held(base.parent / f".{base.name}.lock"):  # two commands starting at once on a fresh machine: the second
        if marker.is_file() and es_home.is_dir():  # waits for the first's distribution instead of removing it
            return es_home
        _assemble(spec, version, base, es_home, log)
    return es_home


def _assemble(spec: DistributionSpec, version: str, base: Path, es_home: Path, log) -> None:
    log(f"[ingestlab] preparing {spec.label} ({spec.flavor_note}) from Maven Central ...")
    zip_path = fetch_zip(spec)
    if base.exists():
        shutil.rmtree(base)
    staging = Path(tempfile.mkdtemp(prefix=f"es-{version}-", dir=base.parent))
    try:
        unzip_keeping_modes(zip_path, staging)
        staged_home = staging / spec.home_name
        for module in spec.extra_modules:
            log(f"[ingestlab]   + module {module.name}")
            install_module(staged_home, module, version)
        if spec.root_endpoint:
            root_endpoint.install(staged_home, spec, java_home_for(spec), log=log)
        base.mkdir(parents=True, exist_ok=True)
        staged_home.rename(es_home)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    make_world_readable(base)
    (base / READY_MARKER).write_text(json.dumps({**asdict(spec), "zip": str(zip_path)}, indent=2))


def make_world_readable(root: Path) -> None:
    """Let the service user read (and run what is executable in) ``root``; root's umask may be strict."""
    for dirpath, dirnames, filenames in os.walk(root):
        os.chmod(dirpath, os.stat(dirpath).st_mode | 0o755)
        for name in filenames:
            p = os.path.join(dirpath, name)
            if os.path.islink(p):
                continue
            mode = os.stat(p).st_mode
            os.chmod(p, mode | 0o444 | (0o111 if mode & 0o100 else 0))
