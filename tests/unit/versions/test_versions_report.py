"""The cross-version report: every row names its engine and distribution flavour, OpenSearch versions sit beside
Elasticsearch's, fitted cost parameters carry their unit, and what a version lacks is said, never drawn as 0."""

import pytest

from ingestlab import studies, versions
from ingestlab.cluster.versions import key_of, resolve
from ingestlab.errors import IngestlabError
from ingestlab.studies.base import Headline


def test_versions_resolve_to_their_engine():
    assert resolve("9.2.0").engine == "elasticsearch" and resolve("2.19.0").engine == "opensearch"
    assert key_of(resolve("opensearch:3.2.0")) == "opensearch:3.2.0" and key_of(resolve("7.17.29")) == "7.17.29"
    with pytest.raises(IngestlabError, match="unknown OpenSearch version '9.9.9'"):
        resolve("opensearch:9.9.9")


def test_each_row_names_engine_and_flavour_and_fitted_units():
    posts = studies.get("posts")
    cells = [
        versions.Cell(
            "6.8.23",
            "posts",
            "r1",
            [
                Headline("bulk1000-over-single", "bulk 1000 ÷ index API (speed)", 56.6, 24.3),
                Headline("fitted-request", "fitted cost per request (ms)", 1.16, 0.63, unit=" ms"),
            ],
        ),
        versions.Cell(
            "opensearch:2.19.0",
            "posts",
            "r2",
            [
                Headline("bulk1000-over-single", "bulk 1000 ÷ index API (speed)", 40.0, 24.3),
                Headline("fitted-request", "fitted cost per request (ms)", None, 0.63, "too few cells for the model", unit=" ms"),
            ],
        ),
    ]
    text = versions.markdown([posts], ["6.8.23", "opensearch:2.19.0"], cells, "stamp", full=False, test_mode=False)
    assert "| Elasticsearch 6.8.23 (full default distribution) | 56.6× | 1.16 ms |" in text
    assert (
        "| OpenSearch 2.19.0 (integ-test-zip (transport-netty4 only: no reindex module, no security plugin)) | 40.0× | too few cells"
        in text
    )
    assert "0.63 ms" in text
    panels = versions._panels(posts, ["6.8.23", "opensearch:2.19.0"], cells)
    assert [p[0] for p in panels] == ["posts: bulk 1000 ÷ index API (speed)"]  # fitted costs stay in the tables


@pytest.mark.parametrize("key", ["7.17.29", "opensearch:2.19.0"])
def test_a_version_race_carries_tags_rally_accepts(monkeypatch, key):
    """The tags name the engine and version apart: 'opensearch:2.19.0' as one tag value is refused by Rally (and by the
    pack before it), and failed every OpenSearch cell of `ingestlab versions`."""
    from types import SimpleNamespace

    from ingestlab import racing
    from ingestlab.rally.command import format_tags

    seen = {}

    def fake_race(track, target, options, log=print):
        seen.update(options.tags)
        raise versions_error("stop here")

    versions_error = IngestlabError
    monkeypatch.setattr(racing, "race", fake_race)
    version = resolve(key)
    cluster = SimpleNamespace(hosts="127.0.0.1:1", engine=version.engine, version=version.version)
    cell = versions._race(studies.get("posts"), key, cluster, False, False, "stamp", print)
    assert cell.error == "stop here"
    format_tags(seen)  # raises on ',' or ':'
    assert seen["engine"] == version.engine and seen["version"] == version.version
