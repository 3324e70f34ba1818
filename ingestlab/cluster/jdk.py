"""Which JDK runs a given Elasticsearch: the first of ``ES_JAVA_HOME``, ``JAVA_HOME``, the ``java`` on PATH and the
system's JVMs whose ``release`` file names a major that fits."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from ingestlab.cluster.versions import DistributionSpec
from ingestlab.errors import IngestlabError

JVM_DIRS = (Path("/usr/lib/jvm"),)
_VERSION = re.compile(r'^JAVA_VERSION="(\d+)(?:\.(\d+))?', re.M)


def major(java_home: Path) -> int | None:
    """The JDK's major version (1.8 counts as 8), or None when it does not say."""
    try:
        m = _VERSION.search((Path(java_home) / "release").read_text())
    except OSError:
        return None
    if not m:
        return None
    first = int(m.group(1))
    return int(m.group(2) or 0) if first == 1 else first


def candidates() -> list[Path]:
    found = [Path(os.environ[var]) for var in ("ES_JAVA_HOME", "JAVA_HOME") if os.environ.get(var)]
    java = shutil.which("java")
    if java:
        found.append(Path(os.path.realpath(java)).parent.parent)
    for root in JVM_DIRS:
        if root.is_dir():
            found += sorted(p for p in root.iterdir() if p.is_dir() and (p / "bin" / "java").exists())
    unique: dict[Path, Path] = {}
    for c in found:
        unique.setdefault(c.resolve(), c)
    return list(unique.values())


def java_home_for(spec: DistributionSpec) -> Path:
    low, high = spec.java
    seen = []
    for home in candidates():
        m = major(home)
        seen.append(f"{m or '?'} ({home})")
        if m is not None and low <= m <= high:
            return home
    if not seen:
        raise IngestlabError(
            f"no Java found: install a JDK {spec.java_text} for {spec.label} "
            f"(e.g. `apt-get install openjdk-{low}-jdk-headless`) or set ES_JAVA_HOME"
        )
    raise IngestlabError(
        f"{spec.label} needs a JDK {spec.java_text}; found only {', '.join(seen)}. "
        f"Install one (e.g. openjdk-{low}-jdk-headless) or set ES_JAVA_HOME to it"
    )
