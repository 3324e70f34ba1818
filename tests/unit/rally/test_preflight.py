"""Client options are read as Rally reads them; the preflight's auth header and errors follow from them."""

import base64

import pytest

from ingestlab.errors import IngestlabError
from ingestlab.rally import preflight


def test_client_options_are_parsed_by_rallys_own_rules():
    options = preflight.parse_client_options("use_ssl:true,verify_certs:false,basic_auth_user:'elastic',basic_auth_password:'s3cret'")
    assert options["use_ssl"] is True and options["verify_certs"] is False
    assert options["basic_auth_user"] == "elastic"


def test_basic_auth_and_api_key_become_authorization_headers():
    basic = preflight._authorization({"basic_auth_user": "u", "basic_auth_password": "p"})
    assert basic == "Basic " + base64.b64encode(b"u:p").decode()
    assert preflight._authorization({"api_key": "abc"}) == "ApiKey abc"
    assert preflight._authorization({}) is None


def test_a_wrong_address_is_named_without_credentials_in_the_message():
    with pytest.raises(IngestlabError) as failed:
        preflight.check_hosts("127.0.0.1:1", "basic_auth_user:'elastic',basic_auth_password:'hunter2'", timeout=2)
    assert "127.0.0.1:1" in str(failed.value) and "hunter2" not in str(failed.value)


def test_a_tls_context_is_made_once_and_never_for_plain_http(monkeypatch):
    from ingestlab.rally import preflight

    assert preflight._ssl_context({}) is preflight._ssl_context({"verify_certs": "false"})  # loading certificates costs ~15 ms
    seen = []
    monkeypatch.setattr(preflight, "_get_json", lambda url, auth, context, timeout, method: seen.append(context))
    preflight.get_json("http://127.0.0.1:9200/", {})
    preflight.get_json("https://127.0.0.1:9200/", {})
    assert seen[0] is None and seen[1] is not None


def test_the_jvm_options_the_pack_added_are_read_back_from_the_nodes_arguments_and_tag_the_race():
    from ingestlab.cluster import node_process
    from ingestlab.cluster.model import Cluster
    from ingestlab.rally.command import tag_value

    cluster = Cluster(name="t", version="7.17.29", heap="1g", java_options=["-XX:TieredStopAtLevel=1", "-Dx=y"])
    opts = node_process.java_opts(cluster)
    assert opts.split()[:4] == ["-Xms1g", "-Xmx1g", "-XX:TieredStopAtLevel=1", "-Dx=y"]
    arguments = ["-Xshare:auto", *opts.split(), "-Des.path.home=/x"]  # as _nodes/jvm lists them
    added = node_process.added_java_options(arguments + arguments)  # two nodes
    assert added == ("-XX:TieredStopAtLevel=1", "-Dx=y")
    assert tag_value(",".join(added)) == "-XX-TieredStopAtLevel=1+-Dx=y"
    assert node_process.added_java_options(["-Xms1g", "-XX:TieredStopAtLevel=1"]) == ()  # not the pack's: not named
    assert node_process.java_opts(Cluster(name="t", version="7.17.29", heap="1g")) == "-Xms1g -Xmx1g"
