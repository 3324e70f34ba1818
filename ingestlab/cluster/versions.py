"""The Elasticsearch and OpenSearch versions the pack can provision, what each needs, and what each lacks.

Every version comes from Maven Central. The integration-test zips carry a minimal set of modules; what a
study needs beyond them is assembled (``extra_modules``, from published module jars) or built from the
pack's own source (``root_endpoint``: the ``GET /`` answer Rally reads, which 8.19/9.x zips lack).
What cannot be had is named in ``lacks``, so a report can say so instead of leaving a row out.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ingestlab.errors import IngestlabError


@dataclass(frozen=True)
class ExtraModule:
    """A module jar published on Maven Central that the distribution lacks."""

    name: str
    classname: str
    description: str

    @property
    def artifact_id(self) -> str:
        return f"{self.name}-client"


@dataclass(frozen=True)
class DistributionSpec:
    version: str
    group_id: str
    flavor_note: str
    java: tuple[int, int]  # the JDK majors it runs on, inclusive
    extra_modules: tuple[ExtraModule, ...] = ()
    node_settings: dict = field(default_factory=dict)  # settings only this major understands
    root_endpoint: bool = False  # the zip lacks rest-root: build the pack's GET / module
    lacks: tuple[str, ...] = ()  # APIs this distribution does not have, e.g. "_reindex"
    engine: str = "elasticsearch"  # or "opensearch"

    @property
    def major(self) -> int:
        return int(self.version.split(".")[0])

    @property
    def artifact(self) -> str:
        """The Maven artifact, the home's and the start script's name: ``elasticsearch`` or ``opensearch``."""
        return self.engine

    @property
    def product(self) -> str:
        return "OpenSearch" if self.engine == "opensearch" else "Elasticsearch"

    @property
    def home_name(self) -> str:
        return f"{self.artifact}-{self.version}"

    @property
    def env_prefix(self) -> str:
        """Of the start script's variables: ES_JAVA_HOME, ES_JAVA_OPTS, … or OPENSEARCH_JAVA_HOME, …"""
        return "OPENSEARCH" if self.engine == "opensearch" else "ES"

    @property
    def label(self) -> str:
        return f"{self.product} {self.version}"

    @property
    def coordinates(self) -> str:
        return f"{self.group_id}:{self.artifact}:{self.version}:zip"

    @property
    def java_text(self) -> str:
        low, high = self.java
        return f"{low}" if low == high else (f"{low} or newer" if high >= 99 else f"{low} to {high}")


REINDEX = ExtraModule("reindex", "org.elasticsearch.reindex.ReindexPlugin", "Reindex, update-by-query and delete-by-query")
MAPPER_EXTRAS = ExtraModule(
    "mapper-extras", "org.elasticsearch.index.mapper.MapperExtrasPlugin", "Extra field mappers (scaled_float, token_count, ...)"
)
INTEG_TEST_ZIP = "org.elasticsearch.distribution.integ-test-zip"
# ES 6–8 need Java's security manager, which JDK 24 removed; 9.x runs on 21 and newer.
SECURITY_MANAGER_JDKS = (17, 21)
NO_SECURITY_OFF = {"xpack.security.enabled": "false"}


def _current(version: str) -> DistributionSpec:
    major = int(version.split(".")[0])
    return DistributionSpec(
        version=version,
        group_id=INTEG_TEST_ZIP,
        flavor_note="integ-test-zip + the pack's root endpoint (no reindex module)",
        java=(21, 99) if major >= 9 else SECURITY_MANAGER_JDKS,
        node_settings=NO_SECURITY_OFF,
        root_endpoint=True,
        lacks=("_reindex",),
    )


DISTRIBUTIONS = {
    "6.8.23": DistributionSpec(
        version="6.8.23",
        group_id="org.elasticsearch.distribution.zip",
        flavor_note="full default distribution",
        java=SECURITY_MANAGER_JDKS,
        node_settings={"xpack.security.enabled": "false", "xpack.ml.enabled": "false"},
    ),
    "7.17.29": DistributionSpec(
        version="7.17.29",
        group_id=INTEG_TEST_ZIP,
        flavor_note="integ-test-zip (oss) + reindex, mapper-extras modules",
        java=SECURITY_MANAGER_JDKS,
        extra_modules=(REINDEX, MAPPER_EXTRAS),
        node_settings=NO_SECURITY_OFF,
    ),
    "8.8.2": DistributionSpec(
        version="8.8.2",
        group_id=INTEG_TEST_ZIP,
        flavor_note="integ-test-zip (no reindex module)",
        java=SECURITY_MANAGER_JDKS,
        node_settings=NO_SECURITY_OFF,
        lacks=("_reindex",),
    ),
    **{v: _current(v) for v in ("8.19.7", "9.0.0", "9.1.5", "9.2.0")},
}
DEFAULT_VERSION = "7.17.29"
OPENSEARCH_ZIP = "org.opensearch.distribution.integ-test-zip"
OPENSEARCH = {  # integration-test zips: transport-netty4 only (no reindex module, no security plugin)
    v: DistributionSpec(
        version=v,
        group_id=OPENSEARCH_ZIP,
        engine="opensearch",
        flavor_note="integ-test-zip (transport-netty4 only: no reindex module, no security plugin)",
        java=(21, 99) if v.startswith("3.") else (17, 21),
        lacks=("_reindex",),
    )
    for v in ("2.19.0", "3.0.0", "3.2.0")
}
DEFAULT_OPENSEARCH = "2.19.0"
ENGINES = {"elasticsearch": DISTRIBUTIONS, "opensearch": OPENSEARCH}


def spec_for(version: str, engine: str = "elasticsearch") -> DistributionSpec:
    known = ENGINES.get(engine)
    if known is None:
        raise IngestlabError(f"unknown engine {engine!r}; the pack provisions {', '.join(ENGINES)}")
    try:
        return known[version]
    except KeyError:
        product = "OpenSearch" if engine == "opensearch" else "Elasticsearch"
        where = (
            "from Maven Central; 9.2.1, for one, did not resolve there"
            if engine == "elasticsearch"
            else "integration-test zips from Maven Central"
        )
        raise IngestlabError(
            f"unknown {product} version {version!r}; these can be provisioned here: {', '.join(known)} ({where})"
        ) from None


def resolve(version: str) -> DistributionSpec:
    """A version as the cross-version commands take it: ``9.2.0``, ``opensearch:2.19.0``, or a bare OpenSearch version."""
    engine, _, bare = version.rpartition(":")
    if engine:
        return spec_for(bare, engine)
    for known in ENGINES.values():
        if version in known:
            return known[version]
    return spec_for(version)  # names what Elasticsearch has


def key_of(spec: DistributionSpec) -> str:
    """The version's name in a cross-version run: the bare version for Elasticsearch, ``opensearch:<v>`` otherwise."""
    return spec.version if spec.engine == "elasticsearch" else f"{spec.engine}:{spec.version}"
