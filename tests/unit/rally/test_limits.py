"""What limited a task's rate, from made-up node counters and CPU shares (the races: tests/integration/test_limits.py)."""

from ingestlab.rally import costs, limits


def stats(cpu_ms=0, gc_ms=0, rejected=0, docs=0, merge_ms=0, refresh_ms=0, written_kb=0, store=0):
    return {
        "name": "n1",
        "process": {"cpu": {"total_in_millis": cpu_ms}},
        "jvm": {"gc": {"collectors": {"young": {"collection_time_in_millis": gc_ms}, "old": {"collection_time_in_millis": 0}}}},
        "thread_pool": {"write": {"queue": 0, "rejected": rejected}},
        "indices": {
            "indexing": {"index_total": docs},
            "merges": {"total_time_in_millis": merge_ms, "total_throttled_time_in_millis": 0},
            "refresh": {"total_time_in_millis": refresh_ms},
            "flush": {"total_time_in_millis": 0},
            "store": {"size_in_bytes": store},
        },
        "fs": {"io_stats": {"total": {"write_kilobytes": written_kb, "write_operations": written_kb // 4}}},
    }


def window(before: dict, after: dict, seconds=10.0):
    samples = [(100.0, limits.counters(before)), (100.0 + seconds, limits.counters(after))]
    return {"n1": limits.change(samples, 99.0, 200.0)}


def side(worker=0.2, node=0.3, available=1.8):
    return {
        "workers": [{"pid": 1, "cores": worker, "limit_cores": 1.0, "mean_cores": worker}],
        "nodes": [{"name": "n1", "cores": node, "limit_cores": 2.0, "available_cores": available}],
    }


def test_a_node_at_its_cores_is_node_cpu_with_its_numbers_and_the_costs_per_document():
    got = limits.judge(side(node=1.7), window(stats(), stats(cpu_ms=17_000, docs=10_000, written_kb=2_000, store=5_000_000)))
    assert got["resource"] == "node CPU"
    assert got["evidence"] == "n1 1.70 of the 1.80 cores it could use; of the window: GC 0%, merges 0%, refresh 0%"
    assert got["costs"] == {
        "documents": 10_000,
        "node_cpu_ms_per_doc": 1.7,
        "bytes_written_per_doc": 204.8,
        "window_ms_per_doc": 1.0,  # 10 s over 10,000 documents
        "driver_cpu_ms_per_doc": 0.2,  # 0.2 of a core over 10 s
        "store_bytes_at_end": 5_000_000,
    }


def test_a_busy_worker_beside_an_idle_node_is_the_load_driver():
    got = limits.judge(side(worker=0.97, node=0.4), window(stats(), stats(cpu_ms=4_000, docs=100)))
    assert got["resource"] == "load driver" and "0.97 of 1.00 cores" in got["evidence"]


def test_gc_a_third_of_the_window_is_gc_even_below_the_cpu_limit():
    got = limits.judge(side(node=1.0), window(stats(), stats(gc_ms=3_100, docs=10)))
    assert got["resource"] == "GC" and got["evidence"] == "n1 31% of the window in GC" and got["share"] == 0.31


def test_a_node_at_its_cores_that_spent_most_of_the_window_refreshing_is_held_by_refresh():
    got = limits.judge(side(node=1.7), window(stats(), stats(refresh_ms=8_000, docs=10)))
    assert got["resource"] == "refresh" and got["evidence"].endswith("of the window: GC 0%, merges 0%, refresh 80%")
    # a node with cores to spare was not held by its refreshing: the same time is evidence, not the verdict
    assert limits.judge(side(node=0.3), window(stats(), stats(refresh_ms=8_000, docs=10)))["resource"] == "no single resource"


def test_indexing_throttled_for_merges_is_merges_and_throttled_merge_time_is_not_work():
    before, after = stats(), stats(merge_ms=9_000, docs=10)
    after["indices"]["merges"]["total_throttled_time_in_millis"] = 8_000
    before["indices"]["indexing"]["throttle_time_in_millis"], after["indices"]["indexing"]["throttle_time_in_millis"] = 0, 3_000
    got = limits.judge(side(node=0.5), window(before, after))
    assert got["resource"] == "merges" and got["evidence"] == "n1's indexing throttled 30% of the window while merges caught up"
    assert limits.counters(after)["merge_ms"] == 1_000


def test_a_node_that_restarted_in_the_window_is_left_out_and_costs_count_nodes_that_report_both():
    samples = [(1.0, {"cpu_ms": 500.0, "docs": 10.0}), (2.0, {"cpu_ms": 20.0, "docs": 1.0}), (3.0, {"cpu_ms": 900.0, "docs": 90.0})]
    assert limits.change(samples, 0.0, 4.0) is None
    nodes = {"a": (1.0, {"cpu_ms": 10.0, "docs": 100.0}, {}), "b": (1.0, {"docs": 100.0}, {})}
    assert costs.costs(nodes) == {"documents": 200, "node_cpu_ms_per_doc": 0.1, "window_ms_per_doc": 5.0}


def test_a_load_driver_held_by_its_cgroup_is_named_so():
    held = {"workers": [{"group": "/g", "cores": 0.19, "limit_cores": 0.2}], "nodes": []}
    assert limits.judge(held, {})["evidence"] == "the load driver's cgroup /g 0.19 of 0.20 cores"


def test_any_rejection_is_named_before_the_rest():
    got = limits.judge(side(node=1.79), window(stats(rejected=3), stats(rejected=123, docs=10)))
    assert got["resource"] == "rejections" and got["evidence"] == "120 requests rejected (the write pool or indexing pressure)"


def test_nothing_at_its_limit_names_the_two_nearest():
    got = limits.judge(side(worker=0.5, node=0.9), window(stats(), stats(gc_ms=500, docs=10)))
    assert got["resource"] == "no single resource"
    assert got["evidence"].startswith(
        "the two nearest their limits: node CPU (n1 0.90 of the 1.80 cores it could use; of the window: GC 5%"
    )
    assert "); load driver (" in got["evidence"]


def test_with_nothing_at_its_limit_a_documents_time_is_split_between_the_node_the_driver_and_neither():
    # one client, 10 documents in 10 s: the node's CPU 0.9 s a document (its indexing threads 0.2 s), the driver's 0.5 s
    after = stats(cpu_ms=9_000, gc_ms=500, docs=10)
    after["indices"]["indexing"]["index_time_in_millis"] = 2_000
    before = stats()
    before["indices"]["indexing"]["index_time_in_millis"] = 0
    got = limits.judge(side(worker=0.5, node=0.9), window(before, after))
    assert "window" not in got["evidence"].split("; of the window")[0]  # the split is said from the costs, also of old races
    assert limits.words(got).startswith(
        "no single resource: " + got["evidence"] + ". Over the window (pauses between runs included), a document every "
        "1,000 ms: the node's CPU 900 ms, the load driver's CPU 500 ms; its shards spent 200 ms of wall-clock indexing it ("
    ), got  # CPU of both sides more than the window's time a document: no remainder to name
    stored = {**got, "evidence": got["evidence"] + ". Over the window (...), a document every 1 ms: as a race stored it"}
    assert limits.words(stored) == limits.words(got)
    # the driver's mean CPU over the window (its median share is what the verdict compares with its core), its cgroup's
    # where no worker process was measured
    quiet = costs.costs({"n1": (10.0, {"docs": 10.0, "cpu_ms": 3_000.0}, {})}, [{"pid": 1, "cores": 0.1, "mean_cores": 0.2}])
    assert costs.where_the_time_went(quiet) == (
        "over the window (pauses between runs included), a document every 1,000 ms: the node's CPU 300 ms, the load "
        "driver's CPU 200 ms, 500 ms in neither side's CPU (waits on the network and the disk, pauses between runs, other processes)"
    )
    held = costs.costs({"n1": (10.0, {"docs": 10.0}, {})}, [{"group": "/g", "cores": 0.04, "mean_cores": 0.05}])
    assert held["driver_cpu_ms_per_doc"] == 50.0
    assert "driver_cpu_ms_per_doc" not in costs.costs({"n1": (10.0, {"docs": 10.0}, {})}, [{"pid": 1, "cores": 0.3}])
    assert costs.where_the_time_went(costs.costs({"n1": (20.0, {"docs": 10.0}, {})})) is None  # neither side's CPU
    assert costs.where_the_time_went({"documents": None}) is None
    short = costs.costs({"n1": (9.0, {"docs": 10.0, "cpu_ms": 3_000.0}, {})}, [{"pid": 1, "cores": 0.2}])
    assert costs.where_the_time_went(short) is None  # under ten seconds: the sampler's edges weigh too much


def test_a_counter_the_node_does_not_report_is_missing_not_zero():
    bare = {"name": "n1", "process": {"cpu": {"total_in_millis": 5}}}
    assert limits.counters(bare) == {"cpu_ms": 5.0}
    got = limits.judge(side(node=1.7), window(bare, {"name": "n1", "process": {"cpu": {"total_in_millis": 900}}}))
    assert got["costs"] == {"documents": None}
    assert limits.judge({}, {})["resource"] is None


def test_a_window_needs_two_samples_inside_it():
    samples = [(1.0, {"docs": 0.0}), (2.0, {"docs": 5.0}), (9.0, {"docs": 50.0})]
    assert limits.change(samples, 1.5, 3.0) is None
    assert limits.change(samples, 0.5, 2.5) == (1.0, {"docs": 5.0}, {"docs": 5.0})


def test_the_report_words_name_the_resource_its_evidence_and_the_costs():
    limit = {"resource": "node CPU", "evidence": "n1 1.96 of the 2.00 cores it could use", "costs": {"node_cpu_ms_per_doc": 0.29}}
    assert limits.words(limit) == "node CPU: n1 1.96 of the 2.00 cores it could use (0.290 ms node CPU a document)"
    assert limits.words(None) is None
    # with the task's median rate, its CPU a document as cores while it indexed (the window's shares count its pauses)
    paused = {
        "resource": "no single resource",
        "evidence": "...",
        "costs": {"node_cpu_ms_per_doc": 0.0224, "driver_cpu_ms_per_doc": 0.0024},
    }
    assert limits.words(paused, 57_115.0) == (
        "no single resource: ... (0.0224 ms node CPU a document; at its median rate, 57,115 docs/s, up to 1.28 cores of node CPU "
        "and 0.14 cores of the load driver's (the window's CPU, its pauses' too, on the time its documents took))"
    )


def test_a_device_writing_at_its_throttle_is_the_disk_with_its_writes_a_document(monkeypatch):
    throttled = iter(
        [
            {"7:5": {"bps": 150_000_000, "iops": 150, "bytes": 0, "ios": 0}},
            {"7:5": {"bps": 150_000_000, "iops": 150, "bytes": 20_000_000, "ios": 1_460}},
        ]
    )
    monkeypatch.setattr(limits.cgroup_v1, "write_throttles", lambda: next(throttled))
    monkeypatch.setattr(limits, "_devices_under", lambda mount: ("7:5",) if mount == "/data (/dev/loop5)" else ())
    monkeypatch.setattr(limits, "_io_ticks", lambda: {})
    data = {"fs": {"data": [{"mount": "/data (/dev/loop5)"}]}}
    before, after = ({**stats(docs=n, cpu_ms=c), "fs": data["fs"]} for n, c in ((0, 0), (730, 3_000)))
    samples = [(100.0, limits.counters(before, local=True)), (110.0, limits.counters(after, local=True))]
    got = limits.judge(side(node=0.3), {"n1": limits.change(samples, 99.0, 200.0)})
    assert got["resource"] == "disk" and got["share"] == 0.973
    assert got["evidence"] == "n1's device 7:5 146.0 of the 150.0 writes a second its throttle allows, 2 writes a document"


def test_devices_under_a_mount_that_names_none_are_none():
    assert limits._devices_under("/data (rootfs)") == () and limits._devices_under("") == ()


def test_a_group_its_quota_held_back_most_of_the_time_is_at_its_limit_though_its_mean_is_below():
    group = {"group": "/lab/h1-driver", "cores": 0.04, "limit_cores": 0.05, "throttled": 0.8}
    got = limits.judge({"workers": [group], "nodes": side()["nodes"]}, window(stats(), stats(cpu_ms=3_000, docs=100)))
    assert got["resource"] == "load driver" and got["share"] == 0.8  # the measured share, not a stand-in
    assert got["evidence"] == "the load driver's cgroup /lab/h1-driver 0.04 of 0.05 cores, held back by its quota 80% of the time"
    # a group that used little of its quota, however often held back in bursts, was not held by it
    idle = {**group, "cores": 0.02}
    assert limits.judge({"workers": [idle], "nodes": side()["nodes"]}, window(stats(), stats(docs=100)))["resource"] != "load driver"


def test_nodes_whose_counters_were_not_read_give_no_verdict_unless_the_driver_was_at_its_limit():
    assert limits.judge(side(), {})["resource"] is None and "not read" in limits.judge(side(), {})["evidence"]
    assert limits.judge(side(worker=0.97), {})["resource"] == "load driver"
