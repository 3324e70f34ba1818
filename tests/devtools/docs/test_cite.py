"""Figures cited in the short form are written from the ledger, with the unit and digits it gives; an alias no runs: line
declares, or a run the ledger lacks, is an error naming it; the record's pages are what the ledger renders."""

import pytest

from devtools.docs import cite, pages, record
from ingestlab.errors import IngestlabError

PAGE = """<!-- runs: demo=cf0ea004 -->
Bulk 1000 ran <!--demo.bulk1000-over-single-->1×<!----> the index API (the article: <!--demo.bulk1000-over-single.published:2-->?<!---->).
"""


def test_a_citation_takes_its_value_unit_and_digits_from_the_ledger():
    made = cite.render_text(PAGE, "x.md")
    assert "<!--demo.bulk1000-over-single-->55.5×<!---->" in made
    assert "<!--demo.bulk1000-over-single.published:2-->24.29×<!---->" in made
    assert cite.render_text(made, "x.md") == made  # rendering again changes nothing


def test_an_undeclared_alias_is_an_error_naming_it():
    with pytest.raises(IngestlabError, match="alias 'ci', which no runs: line declares"):
        cite.render_text("<!--ci.duration-->1 s<!---->", "x.md")


def test_a_citations_value_is_not_a_figure_typed_by_hand():
    assert "55.5" not in cite.blanked(cite.render_text(PAGE, "x.md"))


def test_markup_is_what_a_reader_never_sees_and_lines_are_counted_with_the_markers_stripped():
    # a line that held only markers still counts, as a blank line: the README's 120 lines are counted so
    text = "# T\n\n<!-- ingestlab:studies -->\n| a |\n<!-- /ingestlab:studies -->\nword <!--x.y-->1<!----> word\n"
    assert pages.shown(text) == ["# T", "", "", "| a |", "", "word 1 word"]
    assert 0 < pages.markup_share(text) < 1


def test_every_run_has_a_place_in_the_record_and_a_link_from_any_page():
    from devtools import ledger

    entry = ledger.load_all()["cf0ea004"]
    assert record.link(entry, "README.md") == "docs/record/studies.md#cf0ea004-97a6-4ed9-a92f-c3a2a105d07e"
    assert record.link(entry, "tracks/posts/README.md") == "../../docs/record/studies.md#cf0ea004-97a6-4ed9-a92f-c3a2a105d07e"
    assert record.link(entry, "docs/compare.md") == "record/studies.md#cf0ea004-97a6-4ed9-a92f-c3a2a105d07e"
