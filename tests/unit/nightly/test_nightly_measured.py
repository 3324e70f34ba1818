"""What the nightly's rules were measured to do here: a night quotes the simulation of its own configuration, on this
machine, under today's rules, or says it is not measured and how to measure it."""

import pytest

from ingestlab.nightly import measured

HERE = {"cpu": "AMD EPYC", "cores": 2}
FULL = measured.Basis("posts", "bulk-1000", "7.17.29 (full size)", "7.17.29", True, 60)


NIGHTS = ("2026-11-28T010000", "2026-11-29T010000", "2026-11-29T030000")


def kept(tmp_path, monkeypatch, run, basis, false=(0, 600), found=(566, 600), cpu="AMD EPYC", nights=NIGHTS, **rules):
    monkeypatch.setenv("INGESTLAB_RESULTS", str(tmp_path))
    monkeypatch.setattr(measured.machine, "describe", lambda: {"cpu": cpu, "cores": 2})
    data = {
        "series": 600,
        "nights": 30,
        "step": 0.1,
        "after": 3,
        "false_alarms": list(false),
        "false_per_night": [0, 15000],
        "per_report": 6,
        "report_false_per_night": [0, 2500],
        "found": list(found),
        "drop_false_alarms": [68, 16200],
        "drop_found": [585, 600],
        **measured.rules(),
        **rules,
    }
    command = f"python -m devtools.bench changepoints --track posts --task bulk-1000 --repeat {basis.repeat}"
    return measured.save(run, basis, data, command, list(nights))


def test_a_night_quotes_the_newest_simulation_of_its_own_configuration_with_intervals_run_and_command(tmp_path, monkeypatch):
    kept(tmp_path, monkeypatch, "2026-11-29T040000-changepoints", FULL, found=(500, 600))
    kept(tmp_path, monkeypatch, "2026-11-29T050000-changepoints", FULL)
    monkeypatch.setattr(measured.machine, "describe", lambda: dict(HERE, memory_gib=23.5))
    line = measured.quote(FULL, None, "tonight")
    assert "simulated from 3 real nights of 2 days (2026-11-28, 2026-11-29) raced here as posts/bulk-1000" in line
    assert "(run 2026-11-29T050000-changepoints;" in line
    assert "every series judged on every night in turn as the nightly judges it" in line
    assert "a false change point (up or down; only a drop turns the night red) on some night in 0/600 (0.0%; 95 % interval" in line
    assert "on 0/15000 (0.0%; 95 % interval 0.0%–0.0%) of nights judged; a report of 6 such series raised one on 0/2500" in line
    assert "(this study judges 1 series tonight, so the rate of nights judged is its own)" in line
    assert "(this study judges 3 series tonight)" in measured.quote(FULL, None, "tonight", judged=3)
    assert "566/600 (94.3%; 95 % interval 92.2%–96.0%)" in line and "`python -m devtools.bench changepoints --track posts" in line
    assert "the drop rule called 68/16200" in line
    assert "at a margin of 5%, not tonight's" in measured.quote(FULL, 0.1, "tonight")  # another --margin: its drop rates do not hold


def test_a_later_run_on_fewer_nights_does_not_replace_the_one_drawn_from_more_days(tmp_path, monkeypatch):
    """A quick check on two nights, run after the simulation of a week's, is not what tonight's report quotes."""
    week = [f"2026-11-{day:02d}T020000" for day in range(20, 27)]
    kept(tmp_path, monkeypatch, "2026-11-27T050000-changepoints", FULL, nights=week)
    kept(tmp_path, monkeypatch, "2026-11-28T050000-changepoints", FULL, nights=week[-2:])
    line = measured.quote(FULL, None, "tonight")
    assert "(run 2026-11-27T050000-changepoints;" in line and "7 real nights of 7 days (2026-11-20 to 2026-11-26)" in line
    kept(tmp_path, monkeypatch, "2026-11-29T050000-changepoints", FULL, nights=week)  # as many nights: the newest
    assert "(run 2026-11-29T050000-changepoints;" in measured.quote(FULL, None, "tonight")


@pytest.mark.parametrize(
    "other",
    [
        measured.Basis("posts", "bulk-1000", "7.17.29 (full size)", "7.17.29", True, 30),  # fewer races a night
        measured.Basis("posts", "bulk-1000", "7.17.29 (full size)", "", True, 60),  # no reference beside it
        measured.Basis("posts", "bulk-1000", "7.17.29 (full size)", "8.19.7", True, 60),  # a reference of another version
        measured.Basis("posts", "bulk-1000", "7.17.29", "7.17.29", False, 60),  # test mode
        measured.Basis("posts", "bulk-10000", "7.17.29 (full size)", "7.17.29", True, 60),  # another task
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
    unpaired = measured.Basis("posts", "bulk-1000", "7.17.29", "", False, 1)
    assert "--repeat 1 --unpaired`" in measured.quote(unpaired, None, "n")
