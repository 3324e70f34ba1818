import os
import zipfile

import pytest

from ingestlab.cluster import distribution, versions
from ingestlab.errors import IngestlabError


def test_jars_already_in_lib_are_not_copied_again():
    resolved = ["reindex-client-7.17.29.jar", "elasticsearch-core-7.17.29.jar", "httpcore-nio-4.4.12.jar", "httpcore-4.4.12.jar"]
    shipped = ["elasticsearch-core-7.17.29.jar", "lucene-core-8.11.3.jar"]
    assert distribution.jars_to_add(resolved, shipped) == ["httpcore-4.4.12.jar", "httpcore-nio-4.4.12.jar", "reindex-client-7.17.29.jar"]


def test_plugin_descriptor_matches_the_shipped_modules_format():
    text = distribution.plugin_descriptor(versions.REINDEX, "7.17.29")
    props = dict(line.split("=", 1) for line in text.strip().splitlines())
    assert props == {
        "type": "isolated",
        "description": versions.REINDEX.description,
        "version": "7.17.29",
        "name": "reindex",
        "classname": "org.elasticsearch.reindex.ReindexPlugin",
        "java.version": "1.8",
        "elasticsearch.version": "7.17.29",
        "extended.plugins": "",
        "has.native.controller": "false",
    }


def test_unzip_restores_exec_bits(tmp_path):
    archive = tmp_path / "d.zip"
    with zipfile.ZipFile(archive, "w") as z:
        info = zipfile.ZipInfo("es/bin/elasticsearch")
        info.external_attr = 0o755 << 16
        z.writestr(info, "#!/bin/sh\n")
        z.writestr("es/config/jvm.options", "-Xms1g\n")
    distribution.unzip_keeping_modes(archive, tmp_path / "out")
    assert os.access(tmp_path / "out" / "es" / "bin" / "elasticsearch", os.X_OK)
    assert (tmp_path / "out" / "es" / "config" / "jvm.options").read_text() == "-Xms1g\n"


def test_versions_and_unknown_version():
    assert set(versions.DISTRIBUTIONS) == {"6.8.23", "7.17.29", "8.8.2", "8.19.7", "9.0.0", "9.1.5", "9.2.0"}
    assert versions.spec_for("6.8.23").coordinates == "org.elasticsearch.distribution.zip:elasticsearch:6.8.23:zip"
    with pytest.raises(IngestlabError, match="unknown Elasticsearch version '9.9.9'"):
        versions.spec_for("9.9.9")


def test_missing_maven_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(distribution.shutil, "which", lambda name: None)
    with pytest.raises(IngestlabError, match="`mvn` is not on PATH"):
        distribution.require_tool("mvn", "to fetch Elasticsearch")


def test_maven_failure_names_the_artifact_and_shows_its_output(monkeypatch):
    monkeypatch.setattr(distribution, "require_tool", lambda name, why: "mvn")

    class Failed:
        returncode = 1
        stdout = "[ERROR] Could not transfer artifact\n"
        stderr = ""

    monkeypatch.setattr(distribution.subprocess, "run", lambda *a, **k: Failed())
    with pytest.raises(IngestlabError, match=r"could not resolve g:a:1:zip \(exit 1\)[\s\S]*Could not transfer artifact"):
        distribution._run_maven(["dependency:get"], "g:a:1:zip")
