"""Study 4 over host counts (:mod:`ingestlab.studies.wikipedia_hosts`): the Universal Scalability Law over 1, 2 and 4
hosts and its prediction at the article's 8 nodes, from made-up rates."""

import pytest

from ingestlab import published
from ingestlab.models import usl
from ingestlab.studies import wikipedia_hosts


def rates(tool: float, reindex: float, n: int) -> dict:
    return {"tool_per_node": tool, "reindex": reindex, "drivers": n, "docs": 20_000, "tool_s": 20_000 / tool, "reindex_s": 20_000 / reindex}


def by_hosts(tool_law, reindex_law) -> dict:
    return {n: rates(usl.throughput(n, *tool_law).item(), usl.throughput(n, *reindex_law).item(), n) for n in (1, 2, 4)}


def test_three_host_counts_fit_exactly_and_predict_the_ratio_at_eight():
    tool, api = (800.0, 0.1, 0.01), (500.0, 0.6, 0.0005)
    m = wikipedia_hosts.model(by_hosts(tool, api), published.load("wikipedia"))
    assert m["tool"][0].dof == 0 and m["tool"][0].at(4) == pytest.approx(usl.throughput(4, *tool), rel=1e-3)
    expected = usl.throughput(8, *tool) / usl.throughput(8, *api)
    assert m["predicted_ratio"] == pytest.approx(expected, rel=0.02)
    assert m["published_ratio"] == pytest.approx(248 / 21)
    text = wikipedia_hosts.markdown(
        by_hosts(tool, api), {1: (True, []), 2: (True, []), 4: (False, ["a starved driver"])}, "p", published.load("wikipedia"), "m", False
    )
    opening = text.splitlines()[2]
    assert opening.startswith("The Universal Scalability Law over 1, 2, 4 emulated hosts predicts one tool per node at **")
    assert "the article measured 11.8× on its 8 nodes" in opening
    assert "κ 0.0100 (exact: 3 points for 3 parameters)" in text and "it passes through the 3 points" in text
    assert "did not hold: a starved driver" in text


def test_a_missing_step_is_missing_and_the_prediction_refused_in_words():
    hosts = {
        1: rates(800.0, 500.0, 1),
        2: {"tool_per_node": None, "reindex": 480.0, "drivers": None, "docs": None, "tool_s": None, "reindex_s": 41.0},
    }
    text = wikipedia_hosts.markdown(hosts, {}, "p", published.load("wikipedia"), "m", False)
    assert "No prediction at 8 hosts: tool — 1 point(s) at 1 distinct N" in text
    assert "| 2 | — | — | — | — |" in text


@pytest.mark.parametrize(
    "hosts,says", [("a,2", "host counts separated by commas"), ("0,2", "each 1 or more"), (",", "at least one host count")]
)
def test_bad_host_counts_are_one_line(hosts, says):
    from types import SimpleNamespace

    from ingestlab.cli.study_cmd import cmd_scale_out
    from ingestlab.errors import IngestlabError

    args = SimpleNamespace(
        report=None, hosts=hosts, track_param=None, cpus=0.25, driver_cpus=0.18, memory="2g", version="7.17.29", test_mode=True
    )
    with pytest.raises(IngestlabError, match=says):
        cmd_scale_out(args)
