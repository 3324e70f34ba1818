"""Every study's charts render from a real race.json fixture, and the HTML page embeds them."""

import base64
import warnings

import pytest

from ingestlab import published
from ingestlab.report import html, plot
from ingestlab.runners.utils.runner_stats import read
from ingestlab.studies import dvf, posts, refresh, wikipedia
from tests.unit.studies.races import FIXTURES, result

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    "module,fixture,count",
    [
        # each study's own chart(s), and the cost model's measured points with both sides' fitted curves
        (posts, "posts-test-mode-race.json", 2),
        (refresh, "refresh-test-mode-race.json", 3),
        (dvf, "dvf-test-mode-race.json", 2),
        (wikipedia, "wikipedia-test-mode-race.json", 1),
    ],
)
def test_charts_render(module, fixture, count):
    study = module.__name__.rsplit(".", 1)[1]
    stats = read(FIXTURES / "wikipedia-test-mode-runner-stats.jsonl") if study == "wikipedia" else None
    charts = module.STUDY.charts(result(study, stats=stats), published.load(study))
    assert len(charts) == count and all(png.startswith(PNG) and len(png) > 10_000 for _, png in charts)


def test_page_embeds_charts_and_renders_tables():
    page = html.page("t", "## Title\n\n| a | b |\n|---|---:|\n| x | 1 |\n\n- note", [("chart one", PNG + b"rest")])
    assert f'src="data:image/png;base64,{base64.b64encode(PNG + b"rest").decode()}"' in page
    assert "<table>" in page and "<h2>Title</h2>" in page and "<li>note</li>" in page and "data-images-loaded" in page


def test_a_caption_leaves_out_words_its_font_cannot_draw_and_the_chart_draws_no_empty_boxes():
    words = published.load("posts")["hardware"]
    assert "localhost上のElasticsearch" in words  # the data keeps the article's words; only the chart's caption drops them
    assert plot.drawable(words) == "MacBook Pro 13-inch (2016), client and node on it together"
    assert plot.drawable("a 再インデクシング b (2016)") == "a … b (2016)" and plot.drawable("plain — text") == "plain — text"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # matplotlib warns of each glyph its font lacks
        posts.STUDY.charts(result("posts"), published.load("posts"))


@pytest.mark.parametrize(
    "here, published_values, labels",
    [
        ([None], [None], []),  # nothing raced that the chart can show: no legend, no warning
        ([None, 2.0], [3.0, None], ["this machine", "published"]),  # a series whose first value is missing keeps its label
    ],
)
def test_paired_bars_legend_names_only_series_with_a_bar(here, published_values, labels, monkeypatch):
    seen = []
    monkeypatch.setattr(
        plot,
        "png",
        lambda fig: seen.append([t.get_text() for t in (fig.axes[0].get_legend().get_texts() if fig.axes[0].get_legend() else [])]) or b"",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # matplotlib warns when a legend has nothing to show
        plot.paired_bars(
            [f"row {i}" for i in range(len(here))],
            here,
            published_values,
            ylabel="x",
            title="t",
            result=None,
            published={"elasticsearch": "5.2"},
        )
    assert seen == [labels]


def test_the_page_shows_title_why_sentence_charts_then_tables_and_no_prose_line_is_a_table_row():
    """3d84df4's posts demo report: its charts came before its title and why sentence, and "- Load side alone: …" sat
    right under the cost model's table, so Markdown and the HTML read it as one more row of that table."""
    load_side = {"docs_per_s": 900_000.0, "mb_per_s": 120.0, "generator_docs_per_s": 300_000.0, "generator_mb_per_s": 40.0}
    report = posts.STUDY.report(result("posts"), load_side, charts=False)
    lines = report.markdown.split("\n")
    load = next(i for i, line in enumerate(lines) if line.startswith("- Load side alone"))
    assert not lines[load - 1].startswith("|")
    page = html.page(report.title, report.markdown, [("chart one", PNG + b"rest")])
    order = [page.index(tag) for tag in ("<h2>", "<p>", "<figure>", "<table>")]
    assert order == sorted(order), order
    assert "<td>- " not in page and "<li>Load side alone" in page
    assert '"Noto Sans CJK JP"' in page  # a font that draws the article's Japanese words where one is installed
