"""The DVF converter's compiled fast path (ingestlab/corpus/dvf/native) gives what the Python converter gives: the same
corpus and -1k files byte for byte, the same skipped rows with the same messages, the same strict-mode error. Each
case converts the same input both ways (``INGESTLAB_DVF_CONVERTER=python`` and the default) and compares."""

import os
import random
from pathlib import Path

import pytest

from ingestlab.corpus.dvf import convert, formats, generate, native, reference
from ingestlab.corpus.files import read_meta

SAMPLES = Path(__file__).parents[2] / "fixtures" / "dvf"
ETALAB_HEADER = ",".join(c.header for c in formats.ETALAB_COLUMNS)
OFFICIAL_HEADER = "|".join(c.header for c in formats.OFFICIAL_COLUMNS)
ETALAB_ROW = (
    "2020-1,2020-01-02,1,Vente,150000.0,3,,RUE DES LILAS,,01400,01001,L'Abergement-Clémenciat,01,,,"
    "010010000A0123,,,,,,,,,,,,,0,1,Maison,98,4,S,sols,,,812,4.926,46.153"
).split(",")
OFFICIAL_ROW = (
    "|||||||000001|03/01/2019|Vente|295000,00|12||RUE|0450|DE LA REPUBLIQUE|1000|BOURG-EN-BRESSE|01|53||AB|"
    "123||12|45,20|||||||||1|2|Appartement||47|2|||"
).split("|")


@pytest.fixture(scope="module")
def exe():
    built = native.binary()
    if built is None:
        pytest.skip("no cargo here: the Python converter does all the work, and its own tests cover it")
    return built


def both(monkeypatch, tmp_path: Path, inputs: list[Path], **options) -> dict:
    """Each way's corpus, -1k file, skipped messages (or strict error) and who converted the rows."""
    seen = {}
    for way in ("python", "auto"):
        monkeypatch.setenv(native.VARIABLE, way)
        out = tmp_path / way / "dvf.json"
        try:
            result = convert.convert(inputs, out, **options)
        except convert.BadInput as e:
            seen[way] = ("error", str(e), sorted(p.name for p in out.parent.iterdir()) if out.parent.exists() else [])
            continue
        one_k = out.with_name("dvf-1k.json")
        seen[way] = (
            out.read_bytes(),
            one_k.read_bytes() if one_k.exists() else None,
            result.skipped.count,
            result.skipped.messages,
            result.documents,
        )
        seen[way + "-by"] = read_meta(out)["source"]["rows-converted-by"]
        if options.get("compress"):
            seen[way + "-bz2"] = out.with_name("dvf.json.bz2").exists()
    assert seen["python"] == seen["auto"]
    return seen


def write(path: Path, header: str, rows: list[list[str]], sep: str, encoding: str = "utf-8", end: str = "\n") -> Path:
    path.write_bytes(
        (header + "\n" + "".join(sep.join(r) + end for r in rows)).encode(encoding, errors="replace")
    )  # ? for what Latin-1 lacks
    return path


def etalab(**cells) -> list[str]:
    row = list(ETALAB_ROW)
    headers = [c.header for c in formats.ETALAB_COLUMNS]
    for name, value in cells.items():
        row[headers.index(name)] = value
    return row


def official(**cells) -> list[str]:
    row = list(OFFICIAL_ROW)
    headers = [c.header.replace(" ", "_").replace("/", "_") for c in formats.OFFICIAL_COLUMNS]
    for name, value in cells.items():
        row[headers.index(name)] = value
    return row


NUMBERS = [
    "0",
    "-0",
    "007",
    "0.0",
    "-0.000",
    "00.5",
    "0.00001",
    "0.000010",
    "0.000001",
    "1e5",
    "1E5",
    "1.",
    ".5",
    "-",
    "+5",
    " 42",
    "42 ",
    "1_000",
    "inf",
    "nan",
    "-inf",
    "١٢",
    "12345678901234567",
    "1234567890123456",
    "123456789012345",
    "999999999999999.9",
    "99999999999999.9",
    "0.1",
    "0.30000000000000004",
    "123.4500",
    "9007199254740993",
    "1.7976931348623157e308",
    "1e400",
    "2147483647",
    "2147483648",
    "02147483647",
    "99999999999",
    "12,5",
    "douze",
    "",
    "3",
]


def test_plain_rows_are_converted_by_the_fast_path(exe, monkeypatch, tmp_path):
    rows = [etalab(id_mutation=f"2020-{i}", valeur_fonciere=f"{i * 1000}.5") for i in range(3000)]
    seen = both(monkeypatch, tmp_path, [write(tmp_path / "plain.csv", ETALAB_HEADER, rows, ",")], compress=False)
    assert seen["auto-by"] == {"compiled": 3000, "python": 0} and seen["python-by"] == {"compiled": 0, "python": 3000}
    assert seen["auto"][1].count(b"\n") == 1000  # the -1k file from the fast path's head blocks


@pytest.mark.parametrize(
    "column", ["valeur_fonciere", "numero_disposition", "surface_terrain", "longitude", "latitude", "code_postal", "date_mutation"]
)
def test_every_kind_of_cell_as_python_reads_it(exe, monkeypatch, tmp_path, column):
    rows = [
        etalab(id_mutation=f"2020-{i}", **{column: v})
        for i, v in enumerate(NUMBERS + ["2020-01-0x", "２０２０-01-01", "2020/01/01", "75001", "²", "7501"])
    ]
    seen = both(monkeypatch, tmp_path, [write(tmp_path / "cells.csv", ETALAB_HEADER, rows, ",")])
    assert seen["auto-by"]["compiled"] > 0 and seen["auto-by"]["python"] > 0


def test_official_codes_and_comma_decimals(exe, monkeypatch, tmp_path):
    rows = [official(Valeur_fonciere=v) for v in NUMBERS]
    rows += [
        official(Code_commune=c, Code_departement=d, Prefixe_de_section=p, Section=s, No_plan=n)
        for c, d, p, s, n in [
            ("53", "01", "", "AB", "123"),
            ("-5", "01", "", "A", "1"),
            ("1a", "2A", "12", "A", "7"),
            ("", "01", "", "A", "1"),
            ("53", "", "", "A", "1"),
            ("53", "01", "", "", "1"),
            ("53", "971", "+1", "A", "1"),
            ("٣", "01", "", "A", "1"),
            ("53", "01", "", "ÄB", "1"),
        ]
    ]
    rows += [official(Date_mutation=d) for d in ("03/01/2019", "2019-03-01", "3/1/2019", "03/01/19")]
    rows += [official(Voie="RUE DE L'ÉGLISE\t\x01\\ \"", Commune="SAINT-ÉTIENNE")]
    for encoding in ("utf-8", "latin-1"):
        path = write(tmp_path / f"vf-{encoding}.txt", OFFICIAL_HEADER, rows, "|", encoding=encoding, end="\r\n")
        seen = both(monkeypatch, tmp_path / encoding, [path])
        assert seen["auto-by"]["compiled"] > 0


def test_rows_of_the_wrong_width_blank_lines_and_a_last_line_without_its_end(exe, monkeypatch, tmp_path):
    path = tmp_path / "ragged.csv"
    body = [",".join(etalab()), "", ",".join(etalab()[:-1]), ",".join(etalab() + ["x"]), "", ",".join(etalab())]
    path.write_text(ETALAB_HEADER + "\n" + "\n".join(body))
    seen = both(monkeypatch, tmp_path, [path])
    assert seen["auto"][2] == 4 and seen["auto-by"]["compiled"] == 2


@pytest.mark.parametrize(
    "odd", ['2020-9,"quoted, with a comma\nand a line break",x', "2020-9,a\rb", "2020-9,\x00", "2020-9," + "x" * (1 << 20)]
)
def test_a_line_python_could_read_otherwise_hands_the_rest_of_the_file_over(exe, monkeypatch, tmp_path, odd):
    """Three lines converted by the fast path, then one that Python's csv module could read otherwise than line by
    line (a quoted field across lines, a carriage return inside a line, a NUL, over 1 MiB): Python reads on from it."""
    path = tmp_path / "odd.csv"
    good = ",".join(etalab())
    path.write_text("\n".join([ETALAB_HEADER, good, good, good, odd, good, good]) + "\n", newline="")
    seen = both(monkeypatch, tmp_path, [path])
    assert seen["auto-by"]["compiled"] == 3 and seen["auto"][4] == 5


def test_bytes_that_are_not_the_encodings_stop_as_python_stops(exe, monkeypatch, tmp_path):
    """A bad byte far into the file: the fast path hands the file over at its line, and Python's reading stops there
    with its own error; nothing is written either way."""
    path = tmp_path / "mixed.csv"
    good = ",".join(etalab()).encode()
    path.write_bytes(b"\n".join([ETALAB_HEADER.encode()] + [good] * 300 + [good.replace(b"LILAS", b"LIL\xc9S"), good]) + b"\n")
    for way in ("python", "auto"):
        monkeypatch.setenv(native.VARIABLE, way)
        with pytest.raises(convert.BadInput, match=r"mixed.csv: not utf-8 \(invalid continuation byte\) after line \d+; pass"):
            convert.convert([path], tmp_path / way / "dvf.json", encoding="utf-8")
        assert not (tmp_path / way / "dvf.json").exists()


def test_many_rows_for_python_hand_the_rest_of_the_file_over(exe, monkeypatch, tmp_path):
    """Over 2,000 rows left to Python and more than one in fifty: the fast path stops, Python reads on from there."""
    rows = [etalab(id_mutation=f"2020-{i}", valeur_fonciere="1e3" if 100 <= i < 2500 else "5.0") for i in range(4000)]
    seen = both(monkeypatch, tmp_path, [write(tmp_path / "many.csv", ETALAB_HEADER, rows, ",")])
    assert seen["auto-by"]["compiled"] == 100 and seen["auto-by"]["python"] == 3900


def test_strict_mode_names_the_same_row_and_writes_nothing(exe, monkeypatch, tmp_path):
    rows = [etalab(id_mutation=f"2020-{i}") for i in range(5000)]
    rows[4321] = etalab(valeur_fonciere="douze")
    seen = both(monkeypatch, tmp_path, [write(tmp_path / "strict.csv", ETALAB_HEADER, rows, ",")], strict=True)
    assert seen["auto"][0] == "error" and "strict.csv:4323: column 'valeur_fonciere'" in seen["auto"][1]
    assert seen["auto"][2] == []


def test_several_files_samples_and_archives(exe, monkeypatch, tmp_path):
    inputs = [
        SAMPLES / "valeursfoncieres-2019-sample.txt",
        SAMPLES / "valeursfoncieres-2022-sample.txt",
        SAMPLES / "full.2020-sample.csv",
        write(tmp_path / "plain.csv", ETALAB_HEADER, [etalab()] * 1500, ","),
    ]
    for compress in (False, True):
        seen = both(monkeypatch, tmp_path / str(compress), inputs, compress=compress)
        assert seen["auto-by"]["compiled"] >= 1500


@pytest.mark.parametrize("fmt,year", [("etalab", 2020), ("official", 2020), ("official", 2023)])
def test_generated_years(exe, monkeypatch, tmp_path, fmt, year):
    path = tmp_path / ("full.csv" if fmt == "etalab" else "vf.txt")
    generate.write(path, generate.DvfGenerator(reference.load_communes(), year=year, seed=7).rows(5000), fmt, year=year)
    seen = both(monkeypatch, tmp_path, [path])
    assert seen["auto-by"] == {"compiled": 5000, "python": 0}


@pytest.mark.slow
def test_random_decimals(exe, monkeypatch, tmp_path):
    rnd = random.Random(11)

    def number() -> str:
        whole = str(rnd.randint(0, 10 ** rnd.randint(0, 17 if rnd.random() < 0.01 else 9)))
        frac = "".join(rnd.choice("0123456789") for _ in range(rnd.randint(0, 9)))
        sign = "-" if rnd.random() < 0.1 else ""
        return sign + whole + ("." + frac if frac or rnd.random() < 0.05 else "")

    rows = [
        etalab(
            valeur_fonciere=number(),
            surface_terrain=number(),
            longitude=number(),
            latitude=number(),
            nombre_lots=str(rnd.randint(0, 10 ** rnd.randint(0, 20 if rnd.random() < 0.01 else 9))),
        )
        for _ in range(20_000)
    ]
    seen = both(monkeypatch, tmp_path, [write(tmp_path / "random.csv", ETALAB_HEADER, rows, ",")])
    assert seen["auto-by"]["compiled"] > 5_000 and seen["auto-by"]["python"] > 100  # both ways, row by row


def _running(name: str) -> list[int]:
    """This process's children running the program ``name``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if (
                entry.name.isdigit()
                and int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == os.getpid()
                and (entry / "comm").read_text().strip() == name
            ):
                found.append(int(entry.name))
        except (OSError, IndexError, ValueError):
            continue
    return found


def test_a_strict_stop_ends_the_program_at_once(exe, monkeypatch, tmp_path):
    """The program, waiting for Python's answer to the bad row, is ended before the error reaches the caller (the
    converter's ``with`` ends it; it does not rest on the reader being freed)."""
    rows = [etalab(id_mutation=f"2020-{i}") for i in range(3000)]
    rows[1500] = etalab(valeur_fonciere="douze")
    monkeypatch.setenv(native.VARIABLE, "auto")
    with pytest.raises(convert.BadInput, match="strict.csv:1502") as caught:
        convert.convert([write(tmp_path / "strict.csv", ETALAB_HEADER, rows, ",")], tmp_path / "out" / "dvf.json", strict=True)
    assert caught.value is not None and _running("dvf-fast") == []


def test_a_new_build_removes_the_builds_of_earlier_sources(exe, monkeypatch, tmp_path):
    monkeypatch.setenv("INGESTLAB_HOME", str(tmp_path / "home"))
    earlier = tmp_path / "home" / "native" / "dvf-fast-000000000000" / "release"
    earlier.mkdir(parents=True)
    (earlier / "dvf-fast").write_text("an old build")
    built = native.binary()
    assert built is not None and built.is_file() and not earlier.exists()
    assert [p.name for p in (tmp_path / "home" / "native").iterdir()] == [built.parents[1].name]
