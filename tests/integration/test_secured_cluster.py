"""A node with x-pack security (basic auth, TLS on HTTP and transport): the studies race with credentials in
--client-options, the pack's runners and tools use them, and the password shows up nowhere."""

import ssl
import urllib.error
import urllib.request
import uuid

import pytest

from ingestlab import paths
from ingestlab.cluster import lifecycle
from ingestlab.rally import results
from tests.integration.conftest import ingestlab

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def es_secured():
    cluster = lifecycle.up(
        lifecycle.Shape(nodes=1, heap="512m", http_port=29287, transport_port=29387, name="ingestlab-it-sec", secured=True)
    )
    yield cluster
    lifecycle.stop(cluster)


def _race(cluster, study, *extra, client_options):
    tag = f"sec-{uuid.uuid4().hex[:8]}"
    proc = ingestlab(
        "race", study, "--test-mode", "--target-hosts", cluster.hosts, "--client-options", client_options, "--tag", f"run:{tag}", *extra
    )
    return proc, tag


def _files_holding(text: str, *roots) -> list:
    hits = []
    for root in roots:
        for f in root.rglob("*"):
            if f.is_file() and text.encode() in f.read_bytes():
                hits.append(f)
    return hits


def test_the_node_refuses_requests_without_credentials(es_secured):
    assert es_secured.url.startswith("https://")
    trusted = ssl.create_default_context(cafile=es_secured.credentials().ca_certs)  # TLS passes: authentication must refuse
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(es_secured.url + "/", timeout=10, context=trusted)
    assert refused.value.code == 401
    assert es_secured.get_json("/_security/_authenticate")["username"] == "elastic"


def test_studies_race_with_credentials_and_the_password_is_nowhere(es_secured, tmp_path):
    credentials = es_secured.credentials()
    options = credentials.client_options()
    outputs = []
    posts, posts_tag = _race(es_secured, "posts", "--challenge", "bulk", "--track-param", "index_name=posts-sec", client_options=options)
    assert posts.returncode == 0, posts.stdout[-3000:] + posts.stderr[-3000:]
    assert es_secured.get_json("/posts-sec/_count")["count"] == 1000
    # the reindex study: the _reindex API, scroll and bulk through the pack's own runners
    wiki, wiki_tag = _race(
        es_secured,
        "wikipedia",
        "--track-param",
        "wiki_pages=3000",
        "--track-param",
        "source_shards=2",
        "--track-param",
        "source_index=wiki-sec-source",
        "--track-param",
        "dest_index=wiki-sec-dest",
        client_options=options,
    )
    assert wiki.returncode == 0, wiki.stdout[-3000:] + wiki.stderr[-3000:]
    assert es_secured.get_json("/wiki-sec-dest/_count")["count"] == 1000
    history = tmp_path / "history.sqlite"
    nightly = ingestlab(
        "nightly", "--studies", "posts", "--target-hosts", es_secured.hosts, "--client-options", options, "--history", str(history)
    )
    assert nightly.returncode in (0, 1), nightly.stdout[-3000:] + nightly.stderr[-3000:]  # 1 would be a regression
    outputs = [posts, wiki, nightly]
    for proc in outputs:
        assert credentials.password not in proc.stdout + proc.stderr
    races = [results.latest_race({"run": tag}) for tag in (posts_tag, wiki_tag)]
    assert all(r is not None for r in races)
    assert _files_holding(credentials.password, paths.rally_home(), paths.results_dir(), tmp_path) == []


def test_wrong_password_is_a_clear_error(es_secured):
    credentials = es_secured.credentials()
    wrong = credentials.client_options().replace(credentials.password, "not-the-password")
    proc, _ = _race(es_secured, "posts", "--challenge", "bulk", client_options=wrong)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "refused the credentials of user 'elastic' (HTTP 401)" in proc.stderr


def test_plain_http_to_a_tls_node_is_a_clear_error(es_secured):
    proc = ingestlab("race", "posts", "--test-mode", "--target-hosts", es_secured.hosts)
    assert proc.returncode == 2 and "use_ssl:true" in proc.stderr and "Traceback" not in proc.stderr
