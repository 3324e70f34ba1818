"""The pack's root endpoint module (``GET /`` and ``HEAD /``, which Rally needs and the 8.19 and 9.x integration-test
zips lack), compiled from ``root_endpoint/RootEndpointPlugin.java`` against the distribution's own jars and
installed as ``modules/ingestlab-root-endpoint``."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import zipfile
from importlib import resources
from pathlib import Path

from ingestlab.cluster.versions import DistributionSpec
from ingestlab.errors import IngestlabError

MODULE = "ingestlab-root-endpoint"
CLASSNAME = "org.ingestlab.rootendpoint.RootEndpointPlugin"


def descriptor(spec: DistributionSpec, java_release: int) -> str:
    return "\n".join(
        [
            "description=ingestlab: GET / and HEAD / (the rest-root module this distribution lacks)",
            f"version={spec.version}",
            f"name={MODULE}",
            f"classname={CLASSNAME}",
            f"java.version={java_release}",
            f"elasticsearch.version={spec.version}",
            "extended.plugins=",
            "has.native.controller=false",
            "",
        ]
    )


def install(es_home: Path, spec: DistributionSpec, java_home: Path, log=print) -> Path:
    """Compile the module against ``es_home``'s jars and put it in ``es_home/modules``."""
    javac = Path(java_home) / "bin" / "javac"
    if not javac.exists():
        raise IngestlabError(f"{java_home} has no javac: building the root endpoint of Elasticsearch {spec.version} needs a JDK, not a JRE")
    release = spec.java[0]
    log(f"[ingestlab]   + module {MODULE} (GET /), compiled with {java_home.name} against {es_home.name}'s jars")
    source = resources.files("ingestlab.cluster").joinpath("root_endpoint", "RootEndpointPlugin.java")
    with tempfile.TemporaryDirectory(prefix="ingestlab-root-endpoint-") as tmp, resources.as_file(source) as java_file:
        classes = Path(tmp) / "classes"
        proc = subprocess.run(
            [str(javac), "--release", str(release), "-d", str(classes), "-cp", str(es_home / "lib" / "*"), str(java_file)],
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            raise IngestlabError(f"javac could not build the root endpoint for Elasticsearch {spec.version}:\n{proc.stderr[-2000:]}")
        module = es_home / "modules" / MODULE
        if module.exists():
            shutil.rmtree(module)
        module.mkdir(parents=True)
        with zipfile.ZipFile(module / f"{MODULE}-{spec.version}.jar", "w", zipfile.ZIP_DEFLATED) as jar:
            for f in sorted(classes.rglob("*.class")):
                jar.write(f, f.relative_to(classes).as_posix())
        (module / "plugin-descriptor.properties").write_text(descriptor(spec, release))
    return module
