"""Races kept in an Elasticsearch metrics store (a user's ``rally.ini`` with ``datastore.type = elasticsearch``), read
from ``rally-races-*`` as race.json files are, with the store's address and credentials from that rally.ini."""

from __future__ import annotations

import configparser
import json
import ssl
import urllib.error
import urllib.request
from pathlib import Path

from ingestlab.cluster.security import basic_authorization
from ingestlab.errors import IngestlabError


def datastore(home: Path) -> dict | None:
    """The ``[reporting]`` settings of ``home``'s rally.ini when they name an Elasticsearch store; None for files."""
    ini = Path(home) / ".rally" / "rally.ini"
    if not ini.is_file():
        return None
    config = configparser.ConfigParser(interpolation=None)
    config.read(ini)
    reporting = dict(config["reporting"]) if config.has_section("reporting") else {}
    return reporting if reporting.get("datastore.type") == "elasticsearch" else None


def _get(store: dict, path: str, body: dict) -> dict:
    secure = str(store.get("datastore.secure", "false")).lower() == "true"
    url = f"{'https' if secure else 'http'}://{store.get('datastore.host', 'localhost')}:{store.get('datastore.port', '9200')}/{path}"
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers={"content-type": "application/json"})
    if store.get("datastore.user"):
        request.add_header("Authorization", basic_authorization(store["datastore.user"], store.get("datastore.password", "")))
    context = None
    if secure:
        context = ssl.create_default_context()
        if store.get("datastore.ssl.verification_mode", "full") == "none":
            context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    try:
        with urllib.request.urlopen(request, timeout=30, context=context) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as e:
        if e.code == 404:
            return {"hits": {"hits": []}}
        raise IngestlabError(f"the metrics store at {url.split('/')[2]} answered HTTP {e.code} to a search of Rally's races") from None
    except (urllib.error.URLError, OSError) as e:
        raise IngestlabError(
            f"the metrics store at {url.split('/')[2]} (rally.ini's datastore) does not answer: {getattr(e, 'reason', e)}"
        ) from None


def races(store: dict, race_id: str | None = None) -> list[dict]:
    """Every race document of the store (or the one with ``race_id``), oldest first."""
    query = {"ids": {"values": [race_id]}} if race_id else {"match_all": {}}
    found = _get(store, "rally-races-*/_search", {"query": query, "size": 10000, "sort": [{"race-timestamp": "asc"}]})
    return [hit["_source"] for hit in found.get("hits", {}).get("hits", [])]
