"""The commune reference, built from a small stand-in for Etalab's communes.json and the real GeoNames data."""

import json

import pytest

from ingestlab.corpus.dvf import reference

COMMUNES = [
    {
        "code": "01053",
        "nom": "Bourg-en-Bresse",
        "departement": "01",
        "region": "84",
        "type": "commune-actuelle",
        "codesPostaux": ["01000"],
        "population": 41000,
    },
    {
        "code": "01999",
        "nom": "Nowhere-sur-Rien",
        "departement": "01",
        "region": "84",
        "type": "commune-actuelle",
        "codesPostaux": ["01990"],
        "population": 120,
    },
    {
        "code": "75056",
        "nom": "Paris",
        "departement": "75",
        "region": "11",
        "type": "commune-actuelle",
        "codesPostaux": ["75001"],
        "population": 2100000,
    },
    {
        "code": "75101",
        "nom": "Paris 1er Arrondissement",
        "departement": "75",
        "region": "11",
        "type": "arrondissement-municipal",
        "codesPostaux": ["75001"],
        "population": 16000,
    },
    {
        "code": "01015",
        "nom": "Arbignieu",
        "departement": "01",
        "region": "84",
        "type": "commune-deleguee",
        "codesPostaux": ["01300"],
        "population": 500,
    },
]


@pytest.mark.slow
def test_build_keeps_selling_communes_with_locations(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "communes.json").write_text(json.dumps(COMMUNES))
    out = tmp_path / "ref.json"
    assert reference.build(data, out) == 3
    communes = {c.code: c for c in reference.load_communes(out)}
    assert set(communes) == {"01053", "01999", "75101"}  # Paris sells by arrondissement; delegated communes do not sell
    bourg = communes["01053"]
    assert abs(bourg.latitude - 46.2) < 0.1 and abs(bourg.longitude - 5.22) < 0.1  # from GeoNames
    assert abs(communes["01999"].latitude - bourg.latitude) < 0.5  # not in GeoNames: near its département's communes
    assert abs(communes["75101"].latitude - 48.85) < 0.1
    assert communes["75101"].code_in_department == "101" and communes["01053"].postcodes == ("01000",)
    assert reference.build(data, tmp_path / "again.json") == 3 and (tmp_path / "again.json").read_bytes() == out.read_bytes()
