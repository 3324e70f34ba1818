"""What the nightly's rules were measured to do here: a night quotes the simulation of its own configuration, on this
machine, under today's rules, or says it is not measured and how to measure it."""

import copy

import pytest

from ingestlab.errors import IngestlabError
from ingestlab.nightly import measured, simulate, sources

HERE = {"cpu": "AMD EPYC", "cores": 2}
FULL = measured.Basis("posts", "bulk-1000", "7.17.29 (full size)", True, True, 60)


def kept(tmp_path, monkeypatch, run, basis, false=(0, 600), found=(566, 600), cpu="AMD EPYC", **rules):
    monkeypatch.setenv("INGESTLAB_RESULTS", str(tmp_path))
    monkeypatch.setattr(measured.machine, "describe", lambda: {"cpu": cpu, "cores": 2})
    data = {
        "series": 600,
        "nights": 30,
        "step": 0.1,
        "after": 3,
        "false_alarms": list(false),
        "found": list(found),
        "drop_false_alarms": [68, 16200],
        "drop_found": [585, 600],
        **measured.rules(),
        **rules,
    }
    return measured.save(
        run, basis, data, f"ingestlab bench changepoints --track posts --task bulk-1000 --repeat {basis.repeat}", ["n1", "n2"]
    )


def test_a_night_quotes_the_newest_simulation_of_its_own_configuration_with_intervals_run_and_command(tmp_path, monkeypatch):
    kept(tmp_path, monkeypatch, "2026-11-29T040000-changepoints", FULL, found=(500, 600))
    kept(tmp_path, monkeypatch, "2026-11-29T050000-changepoints", FULL)
    monkeypatch.setattr(measured.machine, "describe", lambda: dict(HERE, memory_gib=23.5))
    line = measured.quote(FULL, None, "tonight")
    assert "run 2026-11-29T050000-changepoints, from 2 real nights" in line
    assert "a false change point in 0/600 (0.0%; 95 % interval 0.0%–0.6%) of series" in line
    assert "566/600 (94.3%; 95 % interval 92.2%–96.0%)" in line and "`ingestlab bench changepoints --track posts" in line
    assert "the drop rule called 68/16200" in line
    assert "at a margin of 5%, not tonight's" in measured.quote(FULL, 0.1, "tonight")  # another --margin: its drop rates do not hold


@pytest.mark.parametrize(
    "other",
    [
        measured.Basis("posts", "bulk-1000", "7.17.29 (full size)", True, True, 30),  # fewer races a night
        measured.Basis("posts", "bulk-1000", "7.17.29 (full size)", False, True, 60),  # no reference beside it
        measured.Basis("posts", "bulk-1000", "7.17.29", True, False, 60),  # test mode
        measured.Basis("posts", "bulk-10000", "7.17.29 (full size)", True, True, 60),  # another task
    ],
)
def test_a_simulation_of_another_configuration_is_never_quoted(tmp_path, monkeypatch, other):
    kept(tmp_path, monkeypatch, "2026-11-29T050000-changepoints", other)
    line = measured.quote(FULL, None, "2026-11-29T061500")
    assert "**not measured** on this machine for posts/bulk-1000 on 7.17.29 (full size), at its article size, 60 race(s)" in line
    assert "--nightly 2026-11-29T061500 --nightly NIGHT … --repeat 60`" in line and "--unpaired" not in line


def test_another_machine_or_another_rule_is_not_this_nights_evidence(tmp_path, monkeypatch):
    kept(tmp_path, monkeypatch, "2026-11-29T050000-changepoints", FULL, cpu="Intel Xeon")
    monkeypatch.setattr(measured.machine, "describe", lambda: HERE)
    assert measured.find(FULL) is None
    kept(tmp_path, monkeypatch, "2026-11-29T060000-changepoints", FULL, rule={**measured.rules()["rule"], "permutations": 99})
    assert measured.find(FULL) is None
    unpaired = measured.Basis("posts", "bulk-1000", "7.17.29", False, False, 1)
    assert "--repeat 1 --unpaired`" in measured.quote(unpaired, None, "n")


def test_the_simulation_keeps_todays_rules_in_its_results(monkeypatch):
    monkeypatch.setattr(simulate.changepoints, "detect", lambda series, log: {})
    data = simulate.simulate(0.05, series=10, nights=6, after=3, log=lambda *_: None)
    assert data["rule"] == measured.rules()["rule"] and data["drop_rule"] == measured.rules()["drop_rule"]


def test_the_nights_a_simulation_draws_from_are_of_one_setup_and_one_size(monkeypatch):
    from ingestlab.rally import results
    from tests.unit.studies.races import race

    def stored(night, setup, size):
        doc = copy.deepcopy(race("posts"))
        doc["user-tags"] = {"nightly": night, "nightly-setup": setup, **({"size": size} if size else {})}
        return doc

    races = [stored("n1", "7.17.29 (full size)", "full"), stored("n2", "7.17.29 (full size)", "full")]
    monkeypatch.setattr(results, "races_with_tags", lambda tags: [r for r in races if r["user-tags"]["nightly"] == tags["nightly"]])
    assert sources.nightly_kind(["n1", "n2"], "posts") == ("7.17.29 (full size)", True)
    races.append(stored("n3", "7.17.29 (full size)", None))
    with pytest.raises(IngestlabError, match="nights n1, n2 raced at full size and n3 in test mode"):
        sources.nightly_kind(["n1", "n2", "n3"], "posts")
    races.append(stored("n4", "8.19.7", None))
    with pytest.raises(IngestlabError, match="nights of setups 7.17.29 \\(full size\\) \\(n1, n2, n3\\); 8.19.7 \\(n4\\)"):
        sources.nightly_kind(["n1", "n2", "n3", "n4"], "posts")
    with pytest.raises(IngestlabError, match="no race of eventdata"):
        sources.nightly_kind(["n1"], "eventdata")
