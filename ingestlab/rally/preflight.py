"""Before Rally starts: does anything answer at the target hosts? A wrong address then fails in a second
with the host named and what to do, instead of a connection traceback from inside Rally.

Any HTTP answer counts (401 from a secured cluster too): this checks reachability, not credentials, and
sends none. TLS certificates are not verified here; Rally's own client does that with the client options.
"""
from __future__ import annotations

import socket
import ssl
import urllib.error
import urllib.request

from ingestlab.errors import IngestlabError


def _url(host: str, tls: bool) -> str:
    if host.startswith(("http://", "https://")):
        return host.rstrip("/") + "/"
    return f"{'https' if tls else 'http'}://{host}/"


def check_hosts(target_hosts: str, client_options: str | None = None, timeout: float = 5.0) -> None:
    tls = bool(client_options and "use_ssl:true" in client_options.replace(" ", "").lower())
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    for host in (h.strip() for h in target_hosts.split(",") if h.strip()):
        url = _url(host, tls)
        try:
            with urllib.request.urlopen(urllib.request.Request(url, method="GET"), timeout=timeout, context=context):
                pass
        except urllib.error.HTTPError:
            continue  # it answered (e.g. 401 on a secured cluster): reachable
        except (urllib.error.URLError, socket.timeout, ConnectionError, OSError) as e:
            reason = getattr(e, "reason", e)
            raise IngestlabError(
                f"no Elasticsearch answers at {host} ({reason}); start the pack's cluster with `ingestlab cluster up`, "
                f"or pass --target-hosts HOST:PORT of a running one"
            ) from None
