"""A secured local cluster: x-pack security with basic auth and TLS, from a throw-away CA made by ``openssl``. The
``elastic`` password is generated here and kept in ``credentials.json`` (mode 0600), never in ``cluster.json`` and
never printed."""

from __future__ import annotations

import base64
import json
import os
import secrets
import ssl
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ingestlab.cluster.distribution import require_tool
from ingestlab.errors import IngestlabError

USER = "elastic"
CA_FILE = "ca.crt"
NODE_CERT = "node.crt"
NODE_KEY = "node.key"


def basic_authorization(user: str, password: str) -> str:
    """The ``Authorization`` header value for HTTP basic auth."""
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


@dataclass(frozen=True)
class Credentials:
    user: str
    password: str
    ca_certs: str

    def authorization(self) -> str:
        return basic_authorization(self.user, self.password)

    def ssl_context(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=self.ca_certs)

    def client_options(self) -> str:
        """Rally's ``--client-options`` for this cluster (holds the password: pass it on, never print it)."""
        return (
            f"use_ssl:true,verify_certs:true,ca_certs:'{self.ca_certs}',basic_auth_user:'{self.user}',basic_auth_password:'{self.password}'"
        )


def credentials_file(cluster_dir: Path) -> Path:
    return Path(cluster_dir) / "credentials.json"


def load(cluster_dir: Path) -> Credentials | None:
    f = credentials_file(cluster_dir)
    return Credentials(**json.loads(f.read_text())) if f.is_file() else None


def _openssl(*args: str, cwd: Path) -> None:
    proc = subprocess.run(["openssl", *args], cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise IngestlabError(f"openssl {args[0]} failed while making the cluster's TLS certificates: {proc.stderr.strip()[-500:]}")


def create(cluster_dir: Path) -> Credentials:
    """A new CA, node certificate and password for the cluster in ``cluster_dir``."""
    require_tool("openssl", "to make the TLS certificates of a secured cluster")
    tls = Path(cluster_dir) / "tls"
    tls.mkdir(parents=True, exist_ok=True)
    new_ca = ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", CA_FILE]
    _openssl(*new_ca, "-days", "30", "-subj", "/CN=ingestlab local CA", cwd=tls)
    _openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", NODE_KEY, "-out", "node.csr", "-subj", "/CN=127.0.0.1", cwd=tls)
    (tls / "san.ext").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    sign = ["x509", "-req", "-in", "node.csr", "-CA", CA_FILE, "-CAkey", "ca.key", "-CAcreateserial", "-out", NODE_CERT]
    _openssl(*sign, "-days", "30", "-extfile", "san.ext", cwd=tls)
    os.chmod(tls / CA_FILE, 0o644)
    credentials = Credentials(user=USER, password=secrets.token_urlsafe(18), ca_certs=str(tls / CA_FILE))
    f = credentials_file(cluster_dir)
    fd = os.open(f, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        json.dump(credentials.__dict__, out)
    return credentials


def install_on_node(es_home: Path, config_dir: Path, cluster_dir: Path, credentials: Credentials, env: dict) -> None:
    """Copy the key material into the node's config dir and put the bootstrap password in its keystore."""
    tls = Path(cluster_dir) / "tls"
    for name in (CA_FILE, NODE_CERT, NODE_KEY):
        (config_dir / name).write_bytes((tls / name).read_bytes())
    keystore = str(es_home / "bin" / "elasticsearch-keystore")
    for args, stdin in ((["create"], None), (["add", "-x", "-f", "bootstrap.password"], credentials.password)):
        proc = subprocess.run([keystore, *args], input=stdin, env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            raise IngestlabError(f"elasticsearch-keystore {args[0]} failed in {config_dir}: {proc.stderr.strip()[-500:]}")


def node_settings() -> dict:
    settings = {"xpack.security.enabled": "true"}
    for layer in ("http", "transport"):
        settings.update(
            {
                f"xpack.security.{layer}.ssl.enabled": "true",
                f"xpack.security.{layer}.ssl.key": NODE_KEY,
                f"xpack.security.{layer}.ssl.certificate": NODE_CERT,
                f"xpack.security.{layer}.ssl.certificate_authorities": CA_FILE,
            }
        )
    settings["xpack.security.transport.ssl.verification_mode"] = "certificate"
    return settings
