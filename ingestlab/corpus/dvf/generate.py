"""Realistic DVF files, offline and deterministic for a seed, in either real format.

A sale (*mutation*: one date, price and commune) spans one or more rows, as in the real files. Communes are real
(:mod:`ingestlab.corpus.dvf.reference`), drawn by population; surfaces and prices are log-normal around typical French
values, priced per m² by département. Rows stream, so a file of any size is written at constant memory.
"""

from __future__ import annotations

import bisect
import csv
import itertools
import random
import unicodedata
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Iterator

from ingestlab.corpus.dvf.formats import ETALAB_COLUMNS, OFFICIAL_COLUMNS
from ingestlab.corpus.dvf.reference import Commune

DEFAULT_SEED = 2020
# (weight, kind) of a sale
KINDS = [(38, "house"), (32, "flat"), (20, "land"), (10, "commercial")]
NATURES = [
    (930, "Vente"),
    (35, "Vente en l'état futur d'achèvement"),
    (15, "Echange"),
    (10, "Adjudication"),
    (9, "Vente terrain à bâtir"),
    (1, "Expropriation"),
]
LOCAL_TYPES = {
    "house": ("1", "Maison"),
    "flat": ("2", "Appartement"),
    "outbuilding": ("3", "Dépendance"),
    "commercial": ("4", "Local industriel. commercial ou assimilé"),
}
LAND_NATURES = [
    (30, "S", "sols"),
    (18, "T", "terres"),
    (14, "P", "prés"),
    (10, "AG", "terrains d'agrément"),
    (8, "J", "jardins"),
    (8, "BT", "taillis simples"),
    (5, "L", "landes"),
    (4, "VI", "vignes"),
    (3, "B", "bois"),
]
STREET_TYPES = [
    (40, "RUE", "RUE"),
    (15, "AV", "AVENUE"),
    (12, "CHE", "CHEMIN"),
    (8, "BD", "BOULEVARD"),
    (7, "IMP", "IMPASSE"),
    (6, "ALL", "ALLEE"),
    (6, "RTE", "ROUTE"),
    (4, "PL", "PLACE"),
    (2, "LOT", "LOTISSEMENT"),
]
STREET_WORDS = [
    "DE LA REPUBLIQUE",
    "DE LA GARE",
    "DU MOULIN",
    "DES ECOLES",
    "DE L EGLISE",
    "DU CHATEAU",
    "DES LILAS",
    "DE LA MAIRIE",
    "DU STADE",
    "DES ROSES",
    "DE LA FONTAINE",
    "DU PONT",
    "DES VIGNES",
    "DE LA LIBERATION",
    "DU GENERAL DE GAULLE",
    "JEAN JAURES",
    "VICTOR HUGO",
    "PASTEUR",
    "DES TILLEULS",
    "DU COMMERCE",
    "DES PRES",
    "DE LA PAIX",
    "DU 8 MAI 1945",
    "DES CHAMPS",
    "DE BELLEVUE",
    "DU CENTRE",
    "DES PEUPLIERS",
]
# price per m² of built surface, by département; others use the base
PRICE_PER_M2 = {
    "75": 10500,
    "92": 6500,
    "94": 4800,
    "93": 3800,
    "78": 4200,
    "06": 4700,
    "74": 4300,
    "69": 3600,
    "33": 3400,
    "13": 3200,
    "31": 2900,
    "44": 3100,
    "35": 2900,
    "34": 3000,
    "67": 2700,
    "64": 3100,
    "83": 3900,
    "2A": 3600,
    "2B": 3100,
    "971": 2500,
    "972": 2400,
    "974": 2500,
}
BASE_PRICE_PER_M2 = 1900


def _weighted(pairs):
    """(cumulative weights, values) for fast weighted draws with bisect."""
    weights = list(itertools.accumulate(p[0] for p in pairs))
    return weights, [p[1:] if len(p) > 2 else p[1] for p in pairs]


def _fold_upper(name: str) -> str:
    """Upper case without accents, as the official file writes commune names (Schœnau → SCHOENAU)."""
    name = name.replace("œ", "oe").replace("Œ", "OE").replace("æ", "ae").replace("Æ", "AE")
    return unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().upper()


@dataclass
class Row:
    """One DVF row, format-neutral (the writers format it)."""

    mutation_id: str
    day: date
    disposition: int
    nature: str
    value: float
    commune: Commune
    postcode: str
    street_number: int | None
    suffix: str
    street_type: tuple[str, str] | None  # (abbreviation, full word)
    street_words: str
    street_code: str
    section: str
    plan: int
    lots: list[tuple[str, float | None]]
    lot_count: int
    local: tuple[str, str] | None
    built_area: int | None
    rooms: int | None
    land: tuple[str, str] | None
    land_surface: int | None
    location: tuple[float, float] | None


class DvfGenerator:
    def __init__(self, communes: list[Commune], seed: int = DEFAULT_SEED, year: int = 2020, first_month: int = 1, months: int = 6):
        if not communes:
            raise ValueError("the generator needs at least one commune")
        self.communes = communes
        self.commune_weights = list(itertools.accumulate(c.population for c in communes))
        self.seed = seed
        self.year = year
        start = date(year, first_month, 1)
        end = date(year + (first_month + months - 1) // 12, (first_month + months - 1) % 12 + 1, 1)
        self.days = [start + timedelta(d) for d in range((end - start).days) if (start + timedelta(d)).weekday() < 5]
        self.kinds = _weighted(KINDS)
        self.natures = _weighted(NATURES)
        self.land_natures = _weighted(LAND_NATURES)
        self.street_types = _weighted(STREET_TYPES)

    def _pick(self, rng, table):
        weights, values = table
        return values[bisect.bisect_right(weights, rng.random() * weights[-1])]

    def rows(self, count: int) -> Iterator[Row]:
        rng = random.Random(self.seed)
        written = 0
        for n in itertools.count(1):
            for row in self._mutation(rng, n):
                if written >= count:
                    return
                yield row
                written += 1

    def _parts(self, rng: random.Random, kind: str, nature: str, ppm2: float) -> tuple[list[dict], float]:
        """What one mutation sells (its buildings, lots and land) and its price before rounding."""
        parts: list[dict] = []
        if kind == "house":
            area = max(20, round(rng.lognormvariate(4.6, 0.35)))
            land = max(50, round(rng.lognormvariate(6.5, 0.8)))
            rooms = max(1, min(12, round(area / 24) + rng.randint(0, 1)))
            parts.append({"local": "house", "area": area, "rooms": rooms, "land": ("S", "sols"), "land_surface": land})
            if rng.random() < 0.25:
                parts.append({"local": "outbuilding", "area": None, "rooms": 0, "land": ("S", "sols"), "land_surface": land})
            if rng.random() < 0.2:
                parts.append({"local": None, "land": ("J", "jardins"), "land_surface": max(30, round(rng.lognormvariate(6, 0.7)))})
            price = area * ppm2 * 0.9 + land * rng.uniform(5, 40)
        elif kind == "flat":
            area = max(9, round(rng.lognormvariate(4.0, 0.45)))
            carrez = round(area * rng.uniform(0.93, 1.0), 2) if rng.random() < 0.7 else None
            lots = [(str(rng.randint(1, 800)), carrez)]
            rooms = max(1, min(8, round(area / 20) + rng.randint(0, 1)))
            parts.append({"local": "flat", "area": area, "rooms": rooms, "lots": lots, "lot_count": rng.choice((1, 1, 1, 2, 2, 3))})
            if rng.random() < 0.35:
                parts.append({"local": "outbuilding", "area": None, "rooms": 0, "lots": [(str(rng.randint(1, 800)), None)], "lot_count": 1})
            price = area * ppm2
        elif kind == "land":
            for _ in range(rng.choice((1, 1, 1, 2, 2, 3, 4))):
                land = self._pick(rng, self.land_natures)
                parts.append({"local": None, "land": land, "land_surface": max(10, round(rng.lognormvariate(7.8, 1.2)))})
            per_m2 = rng.uniform(40, 200) if nature == "Vente terrain à bâtir" else rng.uniform(0.3, 8)
            price = sum(p["land_surface"] for p in parts) * per_m2
        else:
            area = max(10, round(rng.lognormvariate(5.0, 0.9)))
            lots = [(str(rng.randint(1, 300)), None)] if rng.random() < 0.4 else []
            parts.append({"local": "commercial", "area": area, "rooms": 0, "lots": lots, "lot_count": 0})
            price = area * ppm2 * 0.8
        return parts, price

    def _mutation(self, rng: random.Random, n: int) -> list[Row]:
        commune = self.communes[bisect.bisect_right(self.commune_weights, rng.random() * self.commune_weights[-1])]
        kind = self._pick(rng, self.kinds)
        nature = self._pick(rng, self.natures)
        if nature == "Vente terrain à bâtir":
            kind = "land"
        ppm2 = PRICE_PER_M2.get(commune.department, BASE_PRICE_PER_M2) * rng.lognormvariate(0, 0.3)
        parts, price = self._parts(rng, kind, nature, ppm2)
        price = round(price, -3) if price > 100_000 else round(price, -2) if price > 5_000 else round(max(price, 1.0), 2)

        day = rng.choice(self.days)
        postcode = rng.choice(commune.postcodes)
        street = self._pick(rng, self.street_types)
        words = rng.choice(STREET_WORDS)
        number = rng.randint(1, 150) if kind != "land" else None
        suffix = rng.choice("BT") if number and rng.random() < 0.03 else ""
        code = ("B" if rng.random() < 0.2 else "0") + f"{rng.randint(1, 999):03d}"
        section = (
            rng.choice("ABCDEFGHIKLMNOPRSTUVWXYZ") + rng.choice("ABCDEFGHIKLMNOPRSTUVWXYZ")
            if rng.random() < 0.6
            else "0" + rng.choice("ABCDEFGHIK")
        )
        plan = rng.randint(1, 2500)
        location = None
        if rng.random() > 0.03:  # the real file lacks coordinates for some rows
            location = (round(commune.latitude + rng.gauss(0, 0.01), 6), round(commune.longitude + rng.gauss(0, 0.014), 6))
        disposition = 1 if rng.random() < 0.96 else 2
        street_type, street_words = (street, words) if kind != "land" else (None, "LIEU DIT " + words.split(" ")[-1])
        head = (f"{self.year}-{n}", day, disposition, nature, price, commune, postcode, number, suffix, street_type, street_words, code)
        return [
            Row(
                *head,
                section=section,
                plan=plan if part.get("local") != "outbuilding" else plan + 1,
                lots=part.get("lots", []),
                lot_count=part.get("lot_count", 0),
                local=LOCAL_TYPES[part["local"]] if part.get("local") else None,
                built_area=part.get("area") if part.get("local") else None,
                rooms=part.get("rooms") if part.get("local") else None,
                land=part.get("land"),
                land_surface=part.get("land_surface"),
                location=location,
            )
            for part in parts
        ]


def _num(value, comma: bool) -> str:
    if value is None:
        return ""
    text = f"{value:.2f}"
    return text.replace(".", ",") if comma else text


def _lots(r: Row, comma: bool) -> list[str]:
    """The five (lot number, Carrez area) column pairs."""
    padded = r.lots[:5] + [("", None)] * (5 - len(r.lots))
    return [cell for number, carrez in padded for cell in (number, _num(carrez, comma))]


def etalab_row(r: Row) -> list[str]:
    street = f"{r.street_type[1]} {r.street_words}" if r.street_type else r.street_words
    return [
        r.mutation_id,
        r.day.isoformat(),
        str(r.disposition),
        r.nature,
        _num(r.value, False),
        str(r.street_number or ""),
        r.suffix,
        street,
        r.street_code,
        r.postcode,
        r.commune.code,
        r.commune.name,
        r.commune.department,
        "",
        "",
        f"{r.commune.code}000{r.section.rjust(2, '0')}{r.plan:04d}",
        "",
        "",
        *_lots(r, comma=False),
        str(r.lot_count),
        r.local[0] if r.local else "",
        r.local[1] if r.local else "",
        "" if r.built_area is None else str(r.built_area),
        "" if r.rooms is None else str(r.rooms),
        r.land[0] if r.land else "",
        r.land[1] if r.land else "",
        "",
        "",
        "" if r.land_surface is None else str(r.land_surface),
        "" if r.location is None else str(r.location[1]),
        "" if r.location is None else str(r.location[0]),
    ]


def official_row(r: Row) -> list[str]:
    return [
        *[""] * 7,  # service code, document reference, the five CGI articles
        f"{r.disposition:06d}",
        r.day.strftime("%d/%m/%Y"),
        r.nature,
        _num(r.value, True),
        str(r.street_number or ""),
        r.suffix,
        r.street_type[0] if r.street_type else "",
        r.street_code,
        r.street_words,
        r.postcode.lstrip("0"),
        _fold_upper(r.commune.name),
        r.commune.department,
        r.commune.code_in_department.lstrip("0") or "0",
        "",
        r.section,
        str(r.plan),
        "",
        *_lots(r, comma=True),
        str(r.lot_count),
        r.local[0] if r.local else "",
        r.local[1] if r.local else "",
        "",
        "" if r.built_area is None else str(r.built_area),
        "" if r.rooms is None else str(r.rooms),
        r.land[0] if r.land else "",
        "",
        "" if r.land_surface is None else str(r.land_surface),
    ]


def official_header(year: int) -> list[str]:
    headers = [c.header for c in OFFICIAL_COLUMNS]
    if year >= 2022:
        headers[0] = "Identifiant de document"
    return headers


def write(path: Path, rows: Iterator[Row], fmt: str, year: int = 2020, encoding: str | None = None) -> int:
    """Write a DVF file; returns the number of rows. Official files default to Latin-1 before 2022."""
    path.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    if fmt == "etalab":
        with open(path, "w", encoding=encoding or "utf-8", newline="") as f:
            writer = csv.writer(f, lineterminator="\n")
            writer.writerow([c.header for c in ETALAB_COLUMNS])
            for r in rows:
                writer.writerow(etalab_row(r))
                count += 1
    elif fmt == "official":
        with open(path, "w", encoding=encoding or ("utf-8" if year >= 2022 else "latin-1"), newline="") as f:
            f.write("|".join(official_header(year)) + "\n")
            for r in rows:
                f.write("|".join(official_row(r)) + "\n")
                count += 1
    else:
        raise ValueError(f"unknown DVF format {fmt!r}: official or etalab")
    return count
