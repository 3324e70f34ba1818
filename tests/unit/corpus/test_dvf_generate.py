"""The DVF generator: deterministic, mutations spanning rows, both formats readable by the converter."""

from collections import defaultdict

import pytest

from ingestlab.corpus.dvf import convert, generate
from ingestlab.corpus.dvf.reference import Commune

COMMUNES = [
    Commune("01053", "Bourg-en-Bresse", "01", ("01000",), 41000, 46.205, 5.225),
    Commune("75101", "Paris 1er Arrondissement", "75", ("75001",), 16000, 48.86, 2.34),
    Commune("97101", "Les Abymes", "971", ("97139", "97142"), 51000, 16.27, -61.5),
    Commune("2A004", "Ajaccio", "2A", ("20000", "20090"), 76000, 41.92, 8.74),
    Commune("67453", "Schœnau", "67", ("67390",), 600, 48.24, 7.63),
]


def test_same_seed_same_rows_other_seed_other_rows():
    first = [generate.etalab_row(r) for r in generate.DvfGenerator(COMMUNES, seed=7).rows(300)]
    again = [generate.etalab_row(r) for r in generate.DvfGenerator(COMMUNES, seed=7).rows(300)]
    other = [generate.etalab_row(r) for r in generate.DvfGenerator(COMMUNES, seed=8).rows(300)]
    assert first == again and first != other


def test_mutations_span_rows_that_share_date_price_and_commune():
    by_mutation = defaultdict(list)
    for r in generate.DvfGenerator(COMMUNES).rows(3000):
        by_mutation[r.mutation_id].append(r)
    sizes = [len(rows) for rows in by_mutation.values()]
    assert 1.1 < sum(sizes) / len(sizes) < 2.0 and max(sizes) >= 3
    for rows in by_mutation.values():
        assert len({(r.day, r.value, r.commune.code) for r in rows}) == 1
    kinds = {r.local[1] if r.local else None for rows in by_mutation.values() for r in rows}
    assert {"Maison", "Appartement", "Dépendance", None} <= kinds


def test_prices_follow_the_departement():
    rows = list(generate.DvfGenerator(COMMUNES).rows(6000))
    flats = defaultdict(list)
    for r in rows:
        if r.local and r.local[1] == "Appartement" and len(r.lots) and r.built_area:
            flats[r.commune.department].append(r.value / r.built_area)
    median = {d: sorted(v)[len(v) // 2] for d, v in flats.items() if len(v) > 20}
    assert median["75"] > 2 * median["01"]


@pytest.mark.parametrize("fmt,year,encoding", [("etalab", 2020, "utf-8"), ("official", 2020, "latin-1"), ("official", 2023, "utf-8")])
def test_both_formats_convert_without_a_skipped_row(tmp_path, fmt, year, encoding):
    path = tmp_path / ("full.csv" if fmt == "etalab" else "vf.txt")
    rows = list(generate.DvfGenerator(COMMUNES, year=year).rows(2000))
    assert generate.write(path, iter(rows), fmt, year=year) == 2000
    assert convert.detect_encoding(path) == encoding
    skipped = convert.Skipped()
    docs = list(convert.documents(path, skipped))
    assert skipped.count == 0 and len(docs) == 2000
    first, row = docs[0], rows[0]
    assert first["property_value"] == row.value and first["commune_code"] == row.commune.code
    assert first["postal_code"] == row.postcode and first["mutation_date"] == row.day.isoformat()
    if fmt == "etalab":
        assert sum("location" in d for d in docs) > 1900  # a few rows lack coordinates, as in the real file
        assert first["plot_id"] == f"{row.commune.code}000{row.section.rjust(2, '0')}{row.plan:04d}"
    else:
        assert "location" not in first
        header = path.read_text(encoding=encoding).split("|", 1)[0]
        assert header == ("Identifiant de document" if year >= 2022 else "Code service CH")
    if fmt == "official":
        assert any(d["commune_name"] == "SCHOENAU" for d in docs)
