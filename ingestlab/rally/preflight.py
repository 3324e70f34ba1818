"""Before Rally starts: does an Elasticsearch answer at the target hosts, and does it take the credentials? A wrong
address or password fails in a second, naming the host, never a password or key. The client options are read with
Rally's own parser, so TLS and auth options mean here what they mean to Rally."""

from __future__ import annotations

import base64
import functools
import http.client
import json
import socket
import ssl
import urllib.error
import urllib.request
from dataclasses import dataclass

from ingestlab.cluster.node_process import added_java_options
from ingestlab.cluster.security import basic_authorization
from ingestlab.errors import IngestlabError


def parse_client_options(client_options: str | None) -> dict:
    """The ``default`` cluster's options as Rally reads ``--client-options``."""
    if not client_options:
        return {}
    from ingestlab.runners import compat  # heavy: loads the client (elasticsearch, ~0.3 s); the CLI starts without it

    try:
        return compat.client_options(client_options)
    except Exception as e:  # Rally's parser raises assorted errors for malformed strings
        raise IngestlabError(
            f"--client-options could not be read ({e.__class__.__name__}); "
            f"expected key:value pairs like use_ssl:true,basic_auth_user:'elastic'"
        ) from None


def _ssl_context(options: dict) -> ssl.SSLContext:
    verify = options.get("verify_certs", True) not in (False, "false") and options.get("ca_certs")
    return _context(options["ca_certs"] if verify else None)


@functools.lru_cache(maxsize=8)
def _context(ca_certs: str | None) -> ssl.SSLContext:
    """One context per CA file (None: no verification), made once: loading the default certificates takes ~15 ms of
    CPU, which the load side's call a second would add to every race."""
    if ca_certs is None:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE  # reachability only; Rally's client verifies with its own options
        return context
    return ssl.create_default_context(cafile=ca_certs)


def _authorization(options: dict) -> str | None:
    if options.get("basic_auth_user"):
        return basic_authorization(options["basic_auth_user"], options.get("basic_auth_password", ""))
    if options.get("api_key"):
        key = options["api_key"]
        return "ApiKey " + (key if isinstance(key, str) else base64.b64encode(":".join(key).encode()).decode())
    return None


def _url(host: str, tls: bool) -> str:
    if host.startswith(("http://", "https://")):
        return host.rstrip("/") + "/"
    return f"{'https' if tls else 'http'}://{host}/"


@dataclass(frozen=True)
class ClusterFacts:
    """What a race needs to know of the cluster before it starts: its version, its modules, how many nodes it has."""

    version: str | None
    modules: frozenset = frozenset()
    nodes: int | None = None
    distribution: str = "elasticsearch"  # or "opensearch", as GET / says
    java_options: tuple = ()  # the JVM options the pack added to its nodes (INGESTLAB_NODE_JAVA_OPTS), any node's

    @property
    def major(self) -> int | None:
        return int(self.version.split(".")[0]) if self.version else None

    def lacks(self, module: str) -> bool:
        return bool(self.modules) and module not in self.modules


def _request(url: str, authorization: str | None, method: str = "GET") -> urllib.request.Request:
    request = urllib.request.Request(url, method=method)
    if authorization:
        request.add_header("Authorization", authorization)
    return request


def _get_json(url: str, authorization: str | None, context, timeout: float, method: str = "GET"):
    with urllib.request.urlopen(_request(url, authorization, method), timeout=timeout, context=context) as response:
        return json.loads(response.read())


def base_url(host: str, options: dict) -> str:
    return _url(host, options.get("use_ssl") in (True, "true"))


def get_json(url: str, options: dict, timeout: float = 5.0, method: str = "GET"):
    """GET ``url`` (or another ``method``) with the credentials and TLS settings of Rally's client options (parsed)."""
    return _get_json(url, _authorization(options), _ssl_context(options) if url.startswith("https:") else None, timeout, method)


def check_hosts(target_hosts: str, client_options: str | None = None, timeout: float = 5.0) -> ClusterFacts:
    """Every host answers and takes the credentials; then the cluster's version (``GET /``) and common modules."""
    options = parse_client_options(client_options)
    tls = options.get("use_ssl") in (True, "true")
    context = _ssl_context(options)
    authorization = _authorization(options)
    for host in (h.strip() for h in target_hosts.split(",") if h.strip()):
        try:
            with urllib.request.urlopen(_request(_url(host, tls), authorization), timeout=timeout, context=context):
                pass
        except urllib.error.HTTPError as e:
            if e.code == 401 and authorization:
                who = f"user {options['basic_auth_user']!r}" if options.get("basic_auth_user") else "the API key"
                raise IngestlabError(
                    f"Elasticsearch at {host} refused the credentials of {who} (HTTP 401); "
                    f"check basic_auth_user/basic_auth_password or api_key in --client-options"
                ) from None
            continue  # it answered (e.g. 401 to a request without credentials): reachable; Rally reports the rest
        except (urllib.error.URLError, socket.timeout, ConnectionError, OSError) as e:
            reason = getattr(e, "reason", e)
            if isinstance(reason, ssl.SSLError):
                raise IngestlabError(
                    f"TLS with {host} failed ({reason}); check use_ssl, verify_certs and ca_certs in --client-options"
                ) from None
            if isinstance(e, http.client.RemoteDisconnected) and not tls:
                raise IngestlabError(
                    f"{host} closed the connection on a plain HTTP request; if it speaks HTTPS, "
                    f"add use_ssl:true (and ca_certs) to --client-options"
                ) from None
            raise IngestlabError(
                f"no Elasticsearch answers at {host} ({reason}); start the pack's cluster with `ingestlab cluster up`, "
                f"or pass --target-hosts HOST:PORT of a running one"
            ) from None
    return _facts(_url(target_hosts.split(",")[0].strip(), tls), authorization, context, timeout)


def _facts(url: str, authorization: str | None, context, timeout: float) -> ClusterFacts:
    try:
        root = _get_json(url, authorization, context, timeout)
    except urllib.error.HTTPError as e:
        if e.code == 405:
            raise IngestlabError(
                f"Elasticsearch at {url} answers 405 to GET / (a distribution without the rest-root module, "
                f"such as an integration-test zip); Rally reads the version there. `ingestlab cluster up "
                f"--version …` adds the pack's root endpoint to such distributions"
            ) from None
        return ClusterFacts(None)  # e.g. 401 without credentials: Rally says the rest
    try:
        info = "_nodes/plugins,jvm?filter_path=nodes.*.modules.name,nodes.*.jvm.input_arguments"
        nodes = _get_json(url + info, authorization, context, timeout).get("nodes", {})
        per_node = [{m["name"] for m in n.get("modules", [])} for n in nodes.values()]
        modules = frozenset(set.intersection(*per_node)) if per_node else frozenset()
        count = len(nodes) or None
        java_options = added_java_options(a for n in nodes.values() for a in (n.get("jvm") or {}).get("input_arguments") or [])
    except (urllib.error.URLError, OSError, ValueError):
        modules, count, java_options = frozenset(), None, ()
    return ClusterFacts(
        root.get("version", {}).get("number"),
        modules,
        count,
        root.get("version", {}).get("distribution") or "elasticsearch",
        java_options,
    )
