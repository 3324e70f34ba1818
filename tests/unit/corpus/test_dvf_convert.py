"""The DVF converter on hand-made samples of both real formats (fixtures/dvf)."""

import bz2
from pathlib import Path

import orjson
import pytest

from ingestlab.corpus.dvf import convert, formats
from ingestlab.corpus.files import read_meta

SAMPLES = Path(__file__).parents[2] / "fixtures" / "dvf"
OFFICIAL_2019 = SAMPLES / "valeursfoncieres-2019-sample.txt"  # Latin-1, 5 rows: one short, one with an ISO date
OFFICIAL_2022 = SAMPLES / "valeursfoncieres-2022-sample.txt"  # UTF-8, "Identifiant de document"
ETALAB = SAMPLES / "full.2020-sample.csv"  # 5 rows: one short, one bad number, one half a coordinate


def docs(path: Path) -> list[dict]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


def test_encodings_are_detected():
    assert convert.detect_encoding(OFFICIAL_2019) == "latin-1"
    assert convert.detect_encoding(ETALAB) == "utf-8"


def test_official_latin1_file(tmp_path):
    skipped = convert.Skipped()
    out = list(convert.documents(OFFICIAL_2019, skipped))
    flat, parking, overseas = out
    assert flat["mutation_date"] == "2019-01-03" and flat["property_value"] == 295000.0
    assert flat["postal_code"] == "01000" and flat["commune_code"] == "01053"
    assert flat["plot_id"] == "01053000AB0123" and flat["lot_1_carrez_area"] == 45.2
    assert flat["disposition_number"] == 1 and flat["main_room_count"] == 2 and flat["real_built_up_area"] == 47.0
    assert parking["local_type"] == "Dépendance" and parking["property_value"] == flat["property_value"]
    assert overseas["mutation_type"] == "Vente en l'état futur d'achèvement"
    assert overseas["commune_code"] == "97101" and overseas["plot_id"] == "971010000C0009"
    assert "location" not in flat and "service_code" not in flat  # empty columns are left out
    assert skipped.count == 2
    assert skipped.messages[0] == f"{OFFICIAL_2019}:5: expected 43 '|'-separated columns, got 30"
    assert skipped.messages[1].startswith(f"{OFFICIAL_2019}:6: column 'Date mutation': date '2019-03-01' is not dd/mm/yyyy")


def test_official_2022_header_and_utf8():
    (doc,) = convert.documents(OFFICIAL_2022, convert.Skipped())
    assert doc["mutation_date"] == "2022-07-04" and doc["commune_code"] == "69383" and doc["postal_code"] == "69003"


def test_etalab_file():
    skipped = convert.Skipped()
    house, land = convert.documents(ETALAB, skipped)
    assert house["mutation_id"] == "2020-1" and house["location"] == {"lat": 46.153, "lon": 4.926}
    assert house["commune_name"] == "L'Abergement-Clémenciat" and house["land_surface"] == 812.0
    assert "location" not in land and land["postal_code"] == "02000" and land["commune_name"] == "Abbécourt, hameau"
    assert [m.split(": ", 1)[1] for m in skipped.messages] == [
        "expected 40 ','-separated columns, got 37",
        "column 'valeur_fonciere': could not convert string to float: 'douze'",
        "longitude/latitude '2.35'/'' is not a pair of numbers",
    ]
    assert [m.split(":")[1] for m in skipped.messages] == ["4", "5", "6"]


def test_strict_mode_stops_at_the_first_bad_row_and_writes_nothing(tmp_path):
    with pytest.raises(convert.BadInput, match=r"full.2020-sample.csv:4: expected 40"):
        convert.convert([ETALAB], tmp_path / "dvf.json", strict=True)
    assert list(tmp_path.iterdir()) == []


def test_corpus_files_and_entry(tmp_path):
    result = convert.convert([OFFICIAL_2019, OFFICIAL_2022, ETALAB], tmp_path / "dvf.json", compress=True)
    assert result.documents == 6 and result.skipped.count == 5
    corpus = tmp_path / "dvf.json"
    assert len(docs(corpus)) == 6 and docs(tmp_path / "dvf-1k.json") == docs(corpus)
    assert bz2.decompress((tmp_path / "dvf.json.bz2").read_bytes()) == corpus.read_bytes()
    assert bz2.decompress((tmp_path / "dvf-1k.json.bz2").read_bytes()) == corpus.read_bytes()
    entry = read_meta(corpus)
    assert [{k: entry[k] for k in ("source-file", "document-count", "uncompressed-bytes", "compressed-bytes")}] == [
        {
            "source-file": "dvf.json.bz2",
            "document-count": 6,
            "uncompressed-bytes": corpus.stat().st_size,
            "compressed-bytes": (tmp_path / "dvf.json.bz2").stat().st_size,
        }
    ]
    assert entry["source"]["skipped-rows"] == 5


def test_limit_and_one_k_file(tmp_path):
    lines = (
        "\n".join(
            ["id_mutation," + ",".join(c.header for c in formats.ETALAB_COLUMNS[1:])]
            + [f"2020-{i},2020-01-02,1,Vente,{i}.0" + "," * 35 for i in range(1500)]
        )
        + "\n"
    )
    source = tmp_path / "big.csv"
    source.write_text(lines)
    result = convert.convert([source], tmp_path / "out" / "dvf.json", compress=False, limit=1200)
    assert result.documents == 1200
    assert len(docs(tmp_path / "out" / "dvf-1k.json")) == 1000
    assert not (tmp_path / "out" / "dvf.json.bz2").exists()


def test_not_a_dvf_file(tmp_path):
    other = tmp_path / "other.csv"
    other.write_text("a,b,c\n1,2,3\n")
    with pytest.raises(convert.BadInput, match=r"other.csv:1: not a DVF header"):
        list(convert.documents(other, convert.Skipped()))


def test_wrong_encoding_is_named(tmp_path):
    with pytest.raises(convert.BadInput, match=r"not utf-8 .* pass --encoding latin-1"):
        list(convert.documents(OFFICIAL_2019, convert.Skipped(), encoding="utf-8"))


def test_numbers_their_field_cannot_hold_are_bad_rows_naming_file_and_line(tmp_path):
    """Before: a 21-digit count stopped the conversion with orjson's TypeError, `inf` and `nan` were written as null
    (a value lost without a word), and a count beyond 32 bits went on to be refused by Elasticsearch's `integer`."""
    headers = [c.header for c in formats.ETALAB_COLUMNS]
    good = (
        "2020-1,2020-01-02,1,Vente,150000.0,3,,RUE DES LILAS,,01400,01001,L'Abergement,01,,,010010000A0123,,,,,,,,,,,"
        ",,0,1,Maison,98,4,S,sols,,,812,4.926,46.153"
    ).split(",")

    def row(**cells):
        r = list(good)
        for name, value in cells.items():
            r[headers.index(name)] = value
        return ",".join(r)

    source = tmp_path / "numbers.csv"
    source.write_text(
        "\n".join(
            [
                ",".join(headers),
                row(),
                row(nombre_lots="2147483648"),
                row(nombre_lots="123456789012345678901"),
                row(valeur_fonciere="inf"),
                row(surface_terrain="1e400"),
                row(longitude="nan"),
                row(nombre_lots="2147483647", valeur_fonciere="-0"),
            ]
        )
        + "\n"
    )
    result = convert.convert([source], tmp_path / "out" / "dvf.json", compress=False)
    assert result.documents == 2 and result.skipped.messages == [
        f"{source}:3: column 'nombre_lots': '2147483648' is beyond an integer field's range (-2147483648 to 2147483647)",
        f"{source}:4: column 'nombre_lots': '123456789012345678901' is beyond an integer field's range (-2147483648 to 2147483647)",
        f"{source}:5: column 'valeur_fonciere': 'inf' is not a finite number",
        f"{source}:6: column 'surface_terrain': '1e400' is not a finite number",
        f"{source}:7: longitude/latitude 'nan'/'46.153' is not a pair of numbers",
    ]
    last = docs(tmp_path / "out" / "dvf.json")[-1]
    assert last["lot_count"] == 2147483647 and str(last["property_value"]) == "-0.0"
