"""The two real DVF file formats: their columns, and the document field each column becomes.

- ``official``: DGFiP's ``valeursfoncieres-YYYY.txt``: ``|``-separated, 43 columns, dates ``dd/mm/yyyy``,
  decimal commas, unpadded postcodes and commune numbers; Latin-1 or UTF-8; from 2022 the first
  column is called "Identifiant de document".
- ``etalab``: Etalab's geo-dvf ``full.YYYY.csv``: ``,``-separated, 40 columns, ISO dates, decimal points,
  UTF-8, with longitude/latitude (possibly empty).

Field kinds: ``keyword`` (kept as text), ``integer``, ``double``, ``date`` (written ``yyyy-mm-dd``).
"""

from __future__ import annotations

from dataclasses import dataclass

KEYWORD, INTEGER, DOUBLE, DATE = "keyword", "integer", "double", "date"


@dataclass(frozen=True)
class Column:
    header: str
    field: str | None  # None: the converter handles it specially (or drops it: see the format)
    kind: str = KEYWORD


def _lots(official: bool) -> list[Column]:
    out = []
    for n in range(1, 6):
        if official:
            ordinal = "1er" if n == 1 else f"{n}eme"
            out += [Column(f"{ordinal} lot", f"lot_{n}_number"), Column(f"Surface Carrez du {ordinal} lot", f"lot_{n}_carrez_area", DOUBLE)]
        else:
            out += [Column(f"lot{n}_numero", f"lot_{n}_number"), Column(f"lot{n}_surface_carrez", f"lot_{n}_carrez_area", DOUBLE)]
    return out


OFFICIAL_COLUMNS: list[Column] = [
    Column("Code service CH", "service_code"),
    Column("Reference document", "document_reference"),
    *[Column(f"{n} Articles CGI", f"cgi_article_{n}") for n in range(1, 6)],
    Column("No disposition", "disposition_number", INTEGER),
    Column("Date mutation", "mutation_date", DATE),
    Column("Nature mutation", "mutation_type"),
    Column("Valeur fonciere", "property_value", DOUBLE),
    Column("No voie", "street_number", INTEGER),
    Column("B/T/Q", "street_number_suffix"),
    Column("Type de voie", "street_type"),
    Column("Code voie", "street_code"),
    Column("Voie", "street_name"),
    Column("Code postal", None),  # padded to 5 digits
    Column("Commune", "commune_name"),
    Column("Code departement", "department_code"),
    Column("Code commune", None),  # made into the INSEE code, as etalab's code_commune
    Column("Prefixe de section", "section_prefix"),
    Column("Section", "section"),
    Column("No plan", "plan_number"),
    Column("No Volume", "volume_number"),
    *_lots(official=True),
    Column("Nombre de lots", "lot_count", INTEGER),
    Column("Code type local", "local_type_code"),
    Column("Type local", "local_type"),
    Column("Identifiant local", "local_id"),
    Column("Surface reelle bati", "real_built_up_area", DOUBLE),
    Column("Nombre pieces principales", "main_room_count", INTEGER),
    Column("Nature culture", "land_nature_code"),
    Column("Nature culture speciale", "special_land_nature_code"),
    Column("Surface terrain", "land_surface", DOUBLE),
]
OFFICIAL_FIRST_HEADERS = ("Code service CH", "Identifiant de document")

ETALAB_COLUMNS: list[Column] = [
    Column("id_mutation", "mutation_id"),
    Column("date_mutation", "mutation_date", DATE),
    Column("numero_disposition", "disposition_number", INTEGER),
    Column("nature_mutation", "mutation_type"),
    Column("valeur_fonciere", "property_value", DOUBLE),
    Column("adresse_numero", "street_number", INTEGER),
    Column("adresse_suffixe", "street_number_suffix"),
    Column("adresse_nom_voie", "street_name"),
    Column("adresse_code_voie", "street_code"),
    Column("code_postal", None),  # padded to 5 digits
    Column("code_commune", "commune_code"),
    Column("nom_commune", "commune_name"),
    Column("code_departement", "department_code"),
    Column("ancien_code_commune", "former_commune_code"),
    Column("ancien_nom_commune", "former_commune_name"),
    Column("id_parcelle", "plot_id"),
    Column("ancien_id_parcelle", "former_plot_id"),
    Column("numero_volume", "volume_number"),
    *_lots(official=False),
    Column("nombre_lots", "lot_count", INTEGER),
    Column("code_type_local", "local_type_code"),
    Column("type_local", "local_type"),
    Column("surface_reelle_bati", "real_built_up_area", DOUBLE),
    Column("nombre_pieces_principales", "main_room_count", INTEGER),
    Column("code_nature_culture", "land_nature_code"),
    Column("nature_culture", "land_nature"),
    Column("code_nature_culture_speciale", "special_land_nature_code"),
    Column("nature_culture_speciale", "special_land_nature"),
    Column("surface_terrain", "land_surface", DOUBLE),
    Column("longitude", None),  # with latitude: the geo_point "location"
    Column("latitude", None),
]

assert len(OFFICIAL_COLUMNS) == 43 and len(ETALAB_COLUMNS) == 40

# Types of every document field, for the track's mapping (tests check the two agree).
FIELD_KINDS: dict[str, str] = {c.field: c.kind for c in OFFICIAL_COLUMNS + ETALAB_COLUMNS if c.field}
FIELD_KINDS.update({"postal_code": KEYWORD, "commune_code": KEYWORD, "plot_id": KEYWORD, "location": "geo_point"})
