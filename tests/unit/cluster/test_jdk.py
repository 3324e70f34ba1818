"""The JDK for a version is the first installed one whose major fits it; none fitting is one clear line."""

import pytest

from ingestlab.cluster import jdk, versions
from ingestlab.errors import IngestlabError


def fake_jdk(root, name, version):
    home = root / name
    (home / "bin").mkdir(parents=True)
    (home / "bin" / "java").write_text("")
    (home / "release").write_text(f'IMPLEMENTOR="x"\nJAVA_VERSION="{version}"\n')
    return home


@pytest.fixture
def jvms(tmp_path, monkeypatch):
    for var in ("ES_JAVA_HOME", "JAVA_HOME"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(jdk.shutil, "which", lambda name: None)
    monkeypatch.setattr(jdk, "JVM_DIRS", (tmp_path,))
    return tmp_path


def test_each_version_gets_a_jdk_it_runs_on(jvms):
    j17, j25 = fake_jdk(jvms, "jdk-17", "17.0.15"), fake_jdk(jvms, "temurin-25", "25.0.1")
    assert jdk.java_home_for(versions.spec_for("7.17.29")) == j17
    assert jdk.java_home_for(versions.spec_for("8.19.7")) == j17
    assert jdk.java_home_for(versions.spec_for("9.2.0")) == j25
    assert jdk.major(fake_jdk(jvms, "old", "1.8.0_412")) == 8


def test_no_fitting_jdk_names_the_one_needed_and_what_was_found(jvms):
    fake_jdk(jvms, "jdk-17", "17.0.15")
    with pytest.raises(IngestlabError, match=r"Elasticsearch 9.2.0 needs a JDK 21 or newer; found only 17 \(.*jdk-17\)"):
        jdk.java_home_for(versions.spec_for("9.2.0"))


def test_es_java_home_wins_when_it_fits(jvms, monkeypatch):
    fake_jdk(jvms, "jdk-17", "17.0.15")
    chosen = fake_jdk(jvms.parent / "elsewhere", "jdk-21", "21.0.5")
    monkeypatch.setenv("ES_JAVA_HOME", str(chosen))
    assert jdk.java_home_for(versions.spec_for("8.19.7")) == chosen
