"""Which side of a race was at its limit, from per-second CPU shares (the races: tests/integration/test_redline.py)."""

import os

from ingestlab.rally import load_side, side_words


def worker(p90, limit=1.0):
    return {"pid": 1, "cores": p90, "limit_cores": limit}


def node(p90, available, limit=2.0):
    return {"name": "n1", "cores": p90, "limit_cores": limit, "available_cores": available, "on_this_machine": True}


def test_a_worker_at_its_quota_while_the_node_has_headroom_is_load_driver_bound():
    v = load_side.verdict([worker(0.19, 0.2)], [node(0.4, 1.8)])
    assert v["verdict"] == "load driver bound" and "0.19 of 0.20 cores" in v["why"]


def test_a_node_at_its_limit_is_cluster_bound_whatever_the_driver():
    assert load_side.verdict([worker(0.3)], [node(0.29, 0.3, limit=0.3)])["verdict"] == "cluster bound"
    assert load_side.verdict([worker(0.95)], [node(0.9, 1.0)])["verdict"] == "cluster bound"


def test_a_paced_race_is_neither_and_an_unseen_side_gives_no_verdict():
    assert load_side.verdict([worker(0.2)], [node(0.3, 1.8)])["verdict"] == "neither at its limit"
    v = load_side.verdict([], [node(0.3, 1.8)])
    assert v["verdict"] is None and "no load-driver worker" in v["why"]


def test_each_side_is_judged_over_the_seconds_the_workers_ran():
    worker = load_side._series([(2.0, 0.0), (3.0, 0.9), (4.0, 1.8), (5.0, 2.7), (6.0, 2.8)])
    window = set(worker)
    assert window == {3.0, 4.0, 5.0, 6.0} and load_side.during(worker, window) == 0.9
    node = load_side._series([(0.0, 0.0), (1.0, 1.9), (2.0, 2.2), (3.0, 2.5), (4.0, 2.8), (5.0, 3.1), (6.0, 3.4), (7.0, 5.3)])
    assert abs(load_side.during(node, window) - 0.3) < 1e-9  # busy before the workers and after them: not counted
    assert load_side.during(node, set()) is None


def test_this_process_cpu_time_is_read():
    before = load_side.cpu_seconds(os.getpid())
    sum(i * i for i in range(2_000_000))
    assert load_side.cpu_seconds(os.getpid()) > before
    assert load_side.cpu_seconds(2**22 + 12345) is None


def test_a_report_names_the_longest_tasks_verdict_and_every_task_the_driver_bound():
    from ingestlab.report.common import footprint_line

    side = {
        "task": "bulk",
        "verdict": "cluster bound",
        "why": "busiest node n1 1.80 of 1.90 cores it could use",
        "tasks": {"bulk": {"verdict": "cluster bound"}, "index-api": {"verdict": "load driver bound"}},
    }
    line = footprint_line({"seconds": 12.0, "load_side": side})
    assert "the load side in bulk: cluster bound (busiest node n1 1.80 of 1.90 cores it could use)" in line
    assert "load driver bound also in index-api: those figures measure the load driver" in line
    assert "load side" not in footprint_line({"seconds": 12.0, "load_side": {"verdict": None, "why": "not seen"}})


def test_compare_names_the_tasks_a_sides_races_were_load_driver_bound_in():
    from ingestlab.cli.verdict_cmd import _driver_bound_notes

    def race(verdict):
        return {
            "ingestlab-footprint": {
                "load_side": {"tasks": {"index-append": {"verdict": verdict}, "refresh": {"verdict": "neither at its limit"}}}
            }
        }

    side = [race("load driver bound"), race("cluster bound"), {"race-id": "no footprint"}]
    assert side_words.driver_bound(side) == {"index-append": (1, 2)}
    assert _driver_bound_notes([("run:a", side), ("run:b", [race("cluster bound")])]) == [
        "run:a: load driver bound in index-append (1 of 2 races): its figures there measure the load driver, not the cluster"
    ]


def test_a_comparison_row_names_each_sides_load_side_over_its_races():
    from ingestlab import compare
    from ingestlab.report import comparison

    def race(verdict, start, value=1000.0):
        r = {
            "race-id": start,
            "race-timestamp": start,
            "user-tags": {},
            "results": {
                "op_metrics": [
                    {
                        "task": "index-append",
                        "operation": "index-append",
                        "throughput": {"median": value, "min": value, "max": value, "unit": "docs/s"},
                        "service_time": {"50_0": 10.0},
                        "error_rate": 0.0,
                    }
                ]
            },
        }
        if verdict:
            r["ingestlab-footprint"] = {"load_side": {"tasks": {"index-append": {"verdict": verdict}}}}
        return r

    assert side_words.in_words([race("cluster bound", "1"), race("cluster bound", "2")]) == {"index-append": "cluster bound"}
    mixed = side_words.in_words([race("load driver bound", "1"), race("cluster bound", "2"), race(None, "3")])
    assert mixed == {"index-append": "load driver bound 1, cluster bound 1 (2 of 3 races)"}
    base = compare.aggregate([race("cluster bound", "1")])
    other = compare.aggregate([race(None, "2")])
    text = comparison.markdown("a", base, [("b", other)])
    assert "| load side |" in text and "| cluster bound → — |" in text
    assert comparison.rows("a", base, [("b", other)])[0]["baseline_load_side"] == "cluster bound"
    # a race on emulated hosts is judged whole (its tasks' spans not seen): its one rated task takes that judgement
    whole = race(None, "4")
    limit = {
        "resource": "disk",
        "evidence": "...",
        "costs": {"node_cpu_ms_per_doc": 0.5},
        "over": "the seconds the nodes indexed documents",
    }
    whole["ingestlab-footprint"] = {"load_side": {"verdict": "cluster bound", "tasks": {}, "limit": limit}}
    said = compare.aggregate([whole])["index-append"].load_side
    assert said == "cluster bound; limit: disk; 0.500 ms node CPU a document; judged over the whole race (its tasks' spans not seen)"
    mixed = compare.aggregate([whole, race("cluster bound", "5")])["index-append"].load_side
    assert mixed.endswith("; judged over the whole race (its tasks' spans not seen) in 1 of 2"), mixed
    assert side_words.in_words([whole]) == {}  # without the rated tasks, no task to give it to


class _Peaks:
    workers: list = []


def test_a_race_without_task_spans_is_judged_over_the_seconds_its_nodes_indexed():
    side = load_side.LoadSide(_Peaks(), None)
    side.off = False
    side.workers = {1: [(float(t), 0.5 * t) for t in range(10)]}
    side.nodes, side.node_facts = {"n": [(float(t), 1.9 * t) for t in range(10)]}, {"n": {"name": "n1", "local": True, "allocated": 2}}
    docs = [0, 0, 0, 100, 200, 300, 400, 400, 400, 400]  # indexing from second 2 to second 6
    side.counters = {"n": [(float(t), {"cpu_ms": 1900.0 * t, "docs": float(n)}) for t, n in enumerate(docs)]}
    got = side.summary()
    assert got["tasks"] == {} and got["limit"]["over"] == "the seconds the nodes indexed documents"
    assert got["limit"]["costs"]["documents"] == 400 and got["limit"]["costs"]["node_cpu_ms_per_doc"] == 19.0


def test_sampling_off_samples_nothing_and_says_so(monkeypatch):
    monkeypatch.setenv(load_side.VARIABLE, "off")
    with load_side.LoadSide(_Peaks(), "127.0.0.1:1") as side:
        pass
    assert side.summary() == {"verdict": None, "why": "not sampled (INGESTLAB_SAMPLING=off)", "tasks": {}}


def test_a_driver_group_its_quota_held_back_most_of_the_time_is_load_driver_bound():
    group = {"group": "/lab/h1-driver", "cores": 0.04, "limit_cores": 0.05, "throttled": 0.8}
    v = load_side.verdict([group], [node(0.9, 1.9)])
    assert v["verdict"] == "load driver bound" and "held back by its quota 80% of the time" in v["why"]
    assert load_side.verdict([{**group, "cores": 0.02}], [node(0.9, 1.9)])["verdict"] == "neither at its limit"
