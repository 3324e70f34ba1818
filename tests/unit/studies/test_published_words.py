"""The published data files hold to the articles' own words: titles as the articles give them (none left null), what
each article says of its client and machine, and what the pack derived marked as its own."""

import json

import pytest

from ingestlab import published

STUDIES = ["posts", "refresh", "dvf", "wikipedia", "rally-corpora"]


@pytest.mark.parametrize("study", STUDIES)
def test_every_study_has_its_articles_title(study):
    source = published.load(study)["source"]
    assert source["title"], f"{study} has no title"


def test_posts_is_the_hatena_article_with_client_and_node_on_one_machine():
    data = published.load("posts")
    assert data["source"]["title"] == "ElasticsearchのBulk API効果を実測する"
    assert data["source"]["author"] == "n_agetsuma" and "見習いプログラミング日記" in data["source"]["blog"]
    assert "2017-11-13" in data["source"]["date"] and "n-agetsu/elastic-restclient" in data["source"]["code"]
    assert data["same_machine"] is True and "localhost上のElasticsearch" in data["hardware"]


def test_refresh_ran_on_one_machine_and_its_time_until_searchable_is_its_refresh_true_columns():
    data = published.load("refresh")
    assert data["same_machine"] is True
    assert "refresh=true columns" in data["time_to_searchable"] and "wait_for out on purpose" in data["time_to_searchable"]
    assert data["headline"]["docs"] == 10000 and "433x" in data["headline"]["note"]
    assert "Go 1.24.2" not in json.dumps(data, ensure_ascii=False)
    assert data["source"]["outside_the_text"]


def test_wikipedia_is_the_5_0_0_article_with_a_no_slices_baseline():
    data = published.load("wikipedia")
    assert data["source"]["title"] == "Elasticsearch 5.0.0で再インデクシングの高速化を探求する"
    assert data["source"]["publisher"] == "Cybozu" and data["source"]["date"] == "2016-08"
    assert any("talk" in x for x in data["source"]["outside_the_text"]) and "talk" not in data["source"]["kind"]
    assert "no slices" in data["reindex_baseline"] and "248 s at scroll size 300,000" in data["reindex_baseline"]
    assert data["headline_words"] == "about 20 s, more than 10x the Reindex API"
    labels = {f["key"]: f["label"] for f in data["figures"]}
    assert "16 slices, 24 bulk threads" in labels["tool-local"] and "crossing nodes" in labels["tool-local-to-remote"]
    text = json.dumps(data, ensure_ascii=False)
    assert "also dropped decode" not in text and "did not drop decode or gzip" in data["profiling"]["note"]


def test_rally_corpora_carries_its_title_its_derivations_marked_and_its_percentiles():
    data = published.load("rally-corpora")
    assert data["source"]["title"] == "Elasticsearch 压力测试" and data["source"]["cites"] == "segmentfault.com/a/1190000011174694"
    assert "version:5.5.0" in data["source"]["note"] and data["source"]["author"] is None and data["source"]["date"] is None
    assert "the pack's derivation" in data["derived"]["node_ratio"] and "about +35 %" in data["derived"]["node_ratio"]
    assert any("1/2" in c and "654 → 1,232 ms" in c for c in data["conclusions"])
    assert data["details"]["pmc 1 node, 1 disk"]["p99_ms"] == 19435.3 and data["details"]["pmc 1 node, RAID0 x4"]["p99_ms"] == 4811.05
    assert "120 s warm-up" in data["challenge"] and "force-merge" in data["challenge"]


def test_dvf_says_nothing_the_article_does_not():
    text = json.dumps(published.load("dvf"), ensure_ascii=False)
    assert "first half" not in text and "the study used this file" not in text.lower()
