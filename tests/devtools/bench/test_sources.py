"""Where ``python -m devtools.bench changepoints`` draws its nights from: calibration sessions, ab sessions, or nights
raced beside a reference, each of one setup and one size."""

import copy

import pytest

from devtools.bench import sources
from ingestlab.errors import IngestlabError


def test_the_nights_a_simulation_draws_from_are_of_one_setup_and_one_size(monkeypatch):
    from ingestlab.rally import results
    from tests.unit.studies.races import race

    def stored(night, setup, size):
        doc = copy.deepcopy(race("posts"))
        doc["user-tags"] = {"nightly": night, "nightly-setup": setup, **({"size": size} if size else {})}
        return doc

    races = [stored("n1", "7.17.29 (full size)", "full"), stored("n2", "7.17.29 (full size)", "full")]
    monkeypatch.setattr(results, "races_with_tags", lambda tags: [r for r in races if r["user-tags"]["nightly"] == tags["nightly"]])
    assert sources.nightly_kind(["n1", "n2"], "posts") == ("7.17.29 (full size)", True, "")
    races.append(stored("n3", "7.17.29 (full size)", None))
    with pytest.raises(IngestlabError, match="nights n1, n2 raced at full size and n3 in test mode"):
        sources.nightly_kind(["n1", "n2", "n3"], "posts")
    races.append(stored("n4", "8.19.7", None))
    with pytest.raises(IngestlabError, match="nights of setups 7.17.29 \\(full size\\) \\(n1, n2, n3\\); 8.19.7 \\(n4\\)"):
        sources.nightly_kind(["n1", "n2", "n3", "n4"], "posts")
    with pytest.raises(IngestlabError, match="no race of eventdata"):
        sources.nightly_kind(["n1"], "eventdata")


def test_the_sigma_of_one_race_around_sessions_keeps_every_sessions_shift():
    import math

    assert abs(sources.sigma_around(((0.0, 0.0), (0.2, 0.2))) - 0.1) < 1e-12
    assert math.isclose(sources.sigma_around(((0.0, 0.2), (0.0, 0.2))), 0.1)


def test_a_nights_pairs_are_its_setups_races_beside_the_references_in_turn_and_a_night_of_two_setups_is_refused(monkeypatch):
    import copy
    import math

    import pytest

    from ingestlab import compare
    from ingestlab.errors import IngestlabError
    from ingestlab.rally import results
    from tests.unit.studies.races import race

    def scaled(night, side, n, scale, setup="7.17.29"):
        doc = copy.deepcopy(race("posts"))
        doc.update(
            {
                "race-id": f"{night}-{side}-{n}",
                "race-timestamp": f"{night}{n:02d}",
                "user-tags": {"nightly": night, "nightly-side": side, "nightly-setup": setup},
            }
        )
        for op in doc["results"]["op_metrics"]:
            op["throughput"]["median"] *= scale
        return doc

    stored = [
        scaled("n1", side, n, s * (1.1 if side == "setup" else 1.0))
        for n, s in enumerate((1.0, 2.0, 1.5), 1)
        for side in ("setup", "reference")
    ]
    stored += [scaled("n2", side, n, 0.5) for n in range(1, 4) for side in ("reference", "setup")]
    monkeypatch.setattr(
        results,
        "races_with_tags",
        lambda tags: sorted(
            (r for r in stored if all(r["user-tags"].get(k) == v for k, v in tags.items())), key=lambda r: r["race-timestamp"]
        ),
    )
    sigma, source, sessions = sources.nightly_sessions(["n1", "n2"], "posts", "bulk-1000")
    assert not sources.kept_dir().joinpath("n1-posts-bulk-1000.json").exists()  # INGESTLAB_LEDGER=off: nothing kept
    base = math.log(compare.task_figures(race("posts"))["bulk-1000"])
    assert source == "nights n1, n2" and [len(s) for s in sessions] == [3, 3]
    assert sessions[0][1] == pytest.approx((base + math.log(2.0), base + math.log(2.2)))  # (reference, setup) of its second pair
    assert sigma == pytest.approx(math.log(1.1) / 2)  # the log ratio: log 1.1 on one night, 0 on the other, around their mean

    stored.append(scaled("n2", "setup", 9, 1.0, setup="9.2.0"))
    with pytest.raises(IngestlabError, match="n2: races of setups 7.17.29, 9.2.0"):
        sources.nightly_sessions(["n1", "n2"], "posts", "bulk-1000")
    with pytest.raises(IngestlabError, match="name two nights or more"):
        sources.nightly_sessions(["n1", "n1"], "posts", "bulk-1000")
    stored[:] = [r for r in stored if r["race-id"] != "n1-setup-3"]
    with pytest.raises(IngestlabError, match="n1: 2 reference and 3 setup|n1: 3 reference and 2 setup"):
        sources.nightly_sessions(["n1", "n2"], "posts", "bulk-1000")


def test_a_nights_pairs_are_kept_in_the_repository_and_read_back_once_its_races_are_gone(monkeypatch, tmp_path):
    """Nights raced on different days accumulate: the first simulation that draws from a night keeps its pairs beside
    the ledger; a night no longer in the Rally home (a machine reset in between) is read from there."""
    import math

    from ingestlab.rally import results
    from tests.unit.studies.races import race

    monkeypatch.setenv("INGESTLAB_LEDGER", str(tmp_path))

    def one(night, side, n, scale):
        doc = copy.deepcopy(race("posts"))
        doc.update(
            {
                "race-id": f"{night}-{side}-{n}",
                "race-timestamp": f"2026120{n}T0{n}0000Z",
                "user-tags": {"nightly": night, "nightly-side": side, "nightly-setup": "7.17.29 (full size)", "size": "full"},
                "cluster": {"distribution-version": "8.19.7" if side == "reference" else "7.17.29"},
            }
        )
        for op in doc["results"]["op_metrics"]:
            op["throughput"]["median"] *= scale
        return doc

    stored = [
        one(night, side, n, n * (1.2 if side == "setup" else 1.0))
        for night in ("d1", "d2")
        for n in (1, 2, 3)
        for side in ("reference", "setup")
    ]
    monkeypatch.setattr(
        results,
        "races_with_tags",
        lambda tags: sorted(
            (r for r in stored if all(r["user-tags"].get(k) == v for k, v in tags.items())), key=lambda r: r["race-timestamp"]
        ),
    )
    first = sources.nightly_sessions(["d1", "d2"], "posts", "bulk-1000")
    kept = sources.read_kept("d1", "posts", "bulk-1000")
    assert kept["reference_version"] == ["8.19.7"] and kept["setup_version"] == ["7.17.29"] and kept["full_size"]
    assert [round(c / b, 6) for b, c in kept["pairs"]] == [1.2, 1.2, 1.2]
    stored.clear()  # the Rally home reset: the races are gone, the kept nights are not
    again = sources.nightly_sessions(["d1", "d2"], "posts", "bulk-1000")
    assert again[0] == first[0] and all(
        math.isclose(x, y) for s1, s2 in zip(first[2], again[2]) for p1, p2 in zip(s1, s2) for x, y in zip(p1, p2)
    )
    assert sources.nightly_kind(["d1", "d2"], "posts") == ("7.17.29 (full size)", True, "8.19.7")
