"""DVF as data.gouv.fr ships it: Etalab's ``full.csv.gz`` (and ``departements/NN.csv.gz``), DGFiP's
``ValeursFoncieres-YYYY.txt.zip``. The pack's own fixtures, compressed here, convert to the same documents as their
plain copies, through the compiled fast path (fed through a pipe) and in Python; what cannot be read is one line."""

import bz2
import gzip
import lzma
import os
import shutil
import zipfile
from pathlib import Path
from unittest import mock

import pytest

from ingestlab.corpus.dvf import convert, generate, native, reference
from ingestlab.corpus.files import read_meta

SAMPLES = Path(__file__).parents[2] / "fixtures" / "dvf"
FIXTURES = sorted(SAMPLES.iterdir())
PATHS = ["compiled", "python"]


def converted(paths, out: Path, path: str, **kwargs):
    env = {native.VARIABLE: "python"} if path == "python" else {}
    with mock.patch.dict(os.environ, env):
        if path == "compiled" and native.binary() is None:
            pytest.skip("no cargo here: the compiled fast path is not built")
        return convert.convert(paths, out, compress=False, **kwargs)


def gzipped(src: Path, directory: Path) -> Path:
    out = directory / (src.name + ".gz")
    out.write_bytes(gzip.compress(src.read_bytes()))
    return out


def zipped(members: dict, out: Path) -> Path:
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return out


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    """A generated Etalab file big enough for several of the fast path's blocks (each one MiB of documents)."""
    path = tmp_path_factory.mktemp("gen") / "full.2020.csv"
    generate.write(path, generate.DvfGenerator(reference.load_communes()).rows(20_000), "etalab")
    return path


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("fixture", FIXTURES, ids=[f.name for f in FIXTURES])
def test_each_fixture_gzipped_bz2_and_zipped_converts_as_its_plain_copy(tmp_path, fixture, path):
    plain = converted([fixture], tmp_path / "plain" / "dvf.json", path)
    compressed = {
        "gz": gzipped(fixture, tmp_path),
        "bz2": tmp_path / (fixture.name + ".bz2"),
        "zip": tmp_path / (fixture.name + ".zip"),
        "misnamed": tmp_path / (fixture.stem + ".txt"),  # gzip under a plain name: told by its bytes
    }
    compressed["bz2"].write_bytes(bz2.compress(fixture.read_bytes()))
    zipped({"LISEZ-MOI.pdf": b"%PDF-1.4 notice", fixture.name: fixture.read_bytes()}, compressed["zip"])
    shutil.copy(compressed["gz"], compressed["misnamed"])
    for name, source in compressed.items():
        result = converted([source], tmp_path / name / "dvf.json", path)
        assert (tmp_path / name / "dvf.json").read_bytes() == (tmp_path / "plain" / "dvf.json").read_bytes(), name
        assert result.documents == plain.documents and result.skipped.count == plain.skipped.count
        # a bad row is named in the compressed file (and its member), at the plain file's line
        label = f"{source}[{fixture.name}]" if name == "zip" else str(source)
        assert result.skipped.messages == [m.replace(str(fixture), label, 1) for m in plain.skipped.messages]
    zip_result = converted([compressed["zip"]], tmp_path / "zip2" / "dvf.json", path)
    assert zip_result.left_out == [f"{compressed['zip']}[LISEZ-MOI.pdf]"]
    assert zip_result.inputs == [f"{compressed['zip']}[{fixture.name}]"]
    assert read_meta(tmp_path / "zip2" / "dvf.json")["source"]["left-out"] == zip_result.left_out


@pytest.mark.parametrize("path", PATHS)
def test_a_directory_of_gzipped_department_files_and_a_zip_of_years_convert_in_name_order(tmp_path, generated, path):
    lines = generated.read_bytes().splitlines(keepends=True)
    header, rows = lines[0], lines[1:]
    departments = tmp_path / "departements"
    departments.mkdir()
    for i, part in enumerate((rows[:7000], rows[7000:13000], rows[13000:])):
        (departments / f"0{i + 1}.csv.gz").write_bytes(gzip.compress(header + b"".join(part)))
    whole = converted([generated], tmp_path / "whole" / "dvf.json", path)
    by_department = converted([departments], tmp_path / "dep" / "dvf.json", path)
    assert (tmp_path / "dep" / "dvf.json").read_bytes() == (tmp_path / "whole" / "dvf.json").read_bytes()
    assert by_department.documents == whole.documents == 20_000
    if path == "compiled":  # the gzipped files went through the pipe into the fast path, not around it
        assert by_department.converted_by.native > 19_000
    years = zipped({"b-2021.csv": header + b"".join(rows[10000:]), "a-2020.csv": header + b"".join(rows[:10000])}, tmp_path / "years.zip")
    converted([years], tmp_path / "years" / "dvf.json", path)
    assert (tmp_path / "years" / "dvf.json").read_bytes() == (tmp_path / "whole" / "dvf.json").read_bytes()


@pytest.mark.parametrize("path", PATHS)
def test_a_truncated_gzip_or_bz2_stops_the_conversion_and_says_so(tmp_path, generated, path):
    for kind, data in (("gzip", gzip.compress(generated.read_bytes())), ("bz2", bz2.compress(generated.read_bytes()))):
        cut = tmp_path / f"cut.{kind}"
        cut.write_bytes(data[: len(data) * 2 // 3])
        with pytest.raises(convert.BadInput) as e:
            converted([cut], tmp_path / kind / "dvf.json", path)
        assert str(e.value) == f"{cut}: ends inside a {kind} stream (the file is truncated: download it again)"
        assert not (tmp_path / kind).exists() or not any((tmp_path / kind).iterdir())  # nothing kept


def test_what_cannot_be_read_is_one_line_naming_the_file_and_what_it_looks_like(tmp_path):
    xz = tmp_path / "full.2020.csv.xz"
    xz.write_bytes(lzma.compress(b"id_mutation,date_mutation\n"))
    no_dvf = zipped({"notice.pdf": b"%PDF-1.4", "readme.txt": b"Demandes de valeurs foncieres\n"}, tmp_path / "vf.zip")
    other = tmp_path / "other.csv.gz"
    other.write_bytes(gzip.compress(b"a,b,c\n1,2,3\n"))
    pdf = tmp_path / "valeursfoncieres-2020.txt"
    pdf.write_bytes(b"%PDF-1.7\n\x00\x01\x02binary")
    zip_cut = tmp_path / "cut.zip"
    zip_cut.write_bytes(
        zipped({"v.txt": (SAMPLES / "valeursfoncieres-2019-sample.txt").read_bytes()}, tmp_path / "ok.zip").read_bytes()[:200]
    )
    expected = {
        xz: f"{xz}: xz-compressed; the pack reads plain, gzip, bz2 and ZIP files: decompress it first (xz -d full.2020.csv.xz)",
        no_dvf: f"{no_dvf}: a ZIP with no DVF member (it holds notice.pdf, readme.txt)",
        other: f"{other}:1: not a DVF header: expected the official '|'-separated header (first column 'Code service CH' or "
        f"'Identifiant de document') or Etalab's 'id_mutation,…'; got 'a,b,c'",
        pdf: f"{pdf}: a PDF document, not a DVF file (expected the official '|'-separated header (first column 'Code service CH' "
        f"or 'Identifiant de document') or Etalab's 'id_mutation,…')",
        zip_cut: f"{zip_cut}: a ZIP archive whose directory is missing or damaged (the file is truncated: download it again)",
        tmp_path / "missing.csv.gz": f"{tmp_path / 'missing.csv.gz'}: no such file",
    }
    for bad, message in expected.items():
        with pytest.raises(convert.BadInput) as e:
            convert.convert([bad], tmp_path / "out" / "dvf.json", compress=False)
        assert str(e.value) == message
        assert "\\x" not in str(e.value)  # never bytes quoted back
