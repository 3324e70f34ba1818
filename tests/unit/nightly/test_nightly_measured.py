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


def test_a_night_quotes_the_simulation_of_its_own_configuration_with_intervals_run_and_command(tmp_path, monkeypatch):
    kept(tmp_path, monkeypatch, "2026-11-29T040000-changepoints", FULL, found=(500, 600))
    kept(tmp_path, monkeypatch, "2026-11-29T050000-changepoints", FULL)
    monkeypatch.setattr(measured.machine, "describe", lambda: dict(HERE, memory_gib=23.5))
    line = measured.quote(FULL, None, "tonight", 1)
    assert "simulated from 3 real nights of 2 days (2026-11-28, 2026-11-29) raced here as posts/bulk-1000" in line
    assert "(run 2026-11-29T050000-changepoints;" in line
    assert "every series judged on every night in turn as the nightly judges it" in line
    assert "a false change point (up or down; only a downward one turns the night red) on some night in 0/600 (0.0%; 95 % interval" in line
    assert "on 0/15000 (0.0%; 95 % interval 0.0%–0.0%) of nights judged; a report of 6 such series raised one on 0/2500" in line
    assert "(tonight this study judges 1 series on this setup)" in line
    assert "(tonight this study judges 3 series on this setup)" in measured.quote(FULL, None, "tonight", 3)
    assert "566/600 (94.3%; 95 % interval 92.2%–96.0%)" in line and "`python -m devtools.bench changepoints --track posts" in line
    assert "the drop rule called 68/16200" in line
    assert "at a margin of 5%, not tonight's" in measured.quote(FULL, 0.1, "tonight", 1)  # another --margin: its drop rates do not hold


def test_a_night_quotes_the_run_whose_nights_ran_on_the_most_days_then_the_most_nights_then_the_newest(tmp_path, monkeypatch):
    """A quick check on two nights, run after the simulation of a week's, is not what tonight's report quotes; nor are
    more nights of fewer days preferred to nights spread over more."""
    week = [f"2026-11-{day:02d}T020000" for day in range(20, 27)]
    kept(tmp_path, monkeypatch, "2026-11-27T050000-changepoints", FULL, nights=week)
    kept(tmp_path, monkeypatch, "2026-11-28T050000-changepoints", FULL, nights=week[-2:])
    line = measured.quote(FULL, None, "tonight", 1)
    assert "(run 2026-11-27T050000-changepoints;" in line and "7 real nights of 7 days (2026-11-20 to 2026-11-26)" in line
    kept(tmp_path, monkeypatch, "2026-11-29T050000-changepoints", FULL, nights=week)  # as many nights and days: the newest
    assert "(run 2026-11-29T050000-changepoints;" in measured.quote(FULL, None, "tonight", 1)
    crowded = [f"2026-11-2{day}T0{hour}0000" for day in (7, 8) for hour in range(6)]  # 12 nights of 2 days
    kept(tmp_path, monkeypatch, "2026-11-30T050000-changepoints", FULL, nights=crowded)
    assert "(run 2026-11-29T050000-changepoints;" in measured.quote(FULL, None, "tonight", 1)


def test_the_days_of_the_nights_drawn_from_are_listed_up_to_three_and_given_as_a_range_beyond(tmp_path, monkeypatch):
    three = ["2026-11-20T020000", "2026-11-21T020000", "2026-11-22T020000", "2026-11-22T030000"]
    kept(tmp_path, monkeypatch, "2026-11-27T050000-changepoints", FULL, nights=three)
    assert "4 real nights of 3 days (2026-11-20, 2026-11-21, 2026-11-22)" in measured.quote(FULL, None, "tonight", 1)
    kept(tmp_path, monkeypatch, "2026-11-28T050000-changepoints", FULL, nights=[*three, "2026-11-23T020000"])
    assert "5 real nights of 4 days (2026-11-20 to 2026-11-23)" in measured.quote(FULL, None, "tonight", 1)


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
    line = measured.quote(FULL, None, "2026-11-29T061500", 1)
    assert "**not measured** on this machine for posts/bulk-1000 on 7.17.29 (full size), at its article size, 60 race(s)" in line
    assert "--nightly 2026-11-29T061500 --nightly NIGHT … --repeat 60`" in line and "--unpaired" not in line


def test_another_machine_or_another_rule_is_not_this_nights_evidence(tmp_path, monkeypatch):
    kept(tmp_path, monkeypatch, "2026-11-29T050000-changepoints", FULL, cpu="Intel Xeon")
    monkeypatch.setattr(measured.machine, "describe", lambda: HERE)
    assert measured.find(FULL) is None
    kept(tmp_path, monkeypatch, "2026-11-29T060000-changepoints", FULL, rule={**measured.rules()["rule"], "permutations": 99})
    assert measured.find(FULL) is None
    unpaired = measured.Basis("posts", "bulk-1000", "7.17.29", "", False, 1)
    assert "--repeat 1 --unpaired`" in measured.quote(unpaired, None, "n", 1)


def test_a_nights_quote_counts_the_series_of_the_study_it_judges_never_its_headline(monkeypatch):
    """Two tasks and a headline tonight: each task's line says the study judges two series on this setup."""
    from ingestlab.nightly import history
    from ingestlab.nightly.run import _Night

    asked = []
    monkeypatch.setattr(measured, "quote", lambda basis, margin, tonight, judged: asked.append((basis.task, judged)) or basis.task)
    figures = {"bulk-1000": 1.0, "bulk-10000": 1.1, f"{history.HEADLINE}posts": 1.0}
    text = _Night("2026-12-04T010000", None, None, print).rates_here("7.17.29", "8.19.7", "posts", figures)
    assert asked == [("bulk-1000", 2), ("bulk-10000", 2)] and "- bulk-1000\n- bulk-10000\n" in text
