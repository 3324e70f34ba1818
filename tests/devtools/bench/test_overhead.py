from devtools.bench import overhead


def test_a_node_counter_that_did_not_move_is_missing_not_zero():
    assert overhead._node_us_per_doc(0.0, 30000) is None  # process stats are refreshed about once a second
    assert overhead._node_us_per_doc(120.0, 30000) == 4.0
    assert overhead._node_us_per_doc(120.0, 0) is None


def test_the_report_shows_a_missing_node_figure_as_missing():
    task = overhead.tasks(runs=1, scale=0.01)[2]
    history = [overhead.Round(pack={task.name: overhead.Side(80000.0, 0.4, 37.0)}, minimal={task.name: overhead.Side(72000.0, 2.1, None)})]
    text, data = overhead.report([task], history, rounds=1, runs=1)
    row = next(line for line in text.splitlines() if line.startswith(f"| {task.name} "))
    assert row.rstrip(" |").endswith("37.0 (37.0–37.0) | —") and "0.0" not in row
    assert data[task.name]["minimal_node_us"] == (None, None, None)
    assert f"{task.name}: pack/minimal = 1.11x" in text


def test_the_bench_node_keeps_its_data_in_memory_only_where_there_is_room(tmp_path):
    assert overhead.in_memory_data_dir(shm=tmp_path / "missing") is None
    assert overhead.in_memory_data_dir(need_bytes=1 << 62, shm=tmp_path) is None  # no filesystem has 4 EiB free
    chosen = overhead.in_memory_data_dir(need_bytes=1, shm=tmp_path)
    assert chosen is not None and chosen.parent == tmp_path


def test_the_report_says_where_the_node_kept_its_data():
    task = overhead.tasks(1)[0]
    side = overhead.Side(100.0, 1.0, 2.0)
    text, _ = overhead.report(
        [task],
        [overhead.Round(pack={task.name: side}, minimal={task.name: side})],
        1,
        1,
        data_note="The node kept its data in memory (/dev/shm/x, a tmpfs).",
    )
    assert "The node kept its data in memory (/dev/shm/x, a tmpfs)." in text


def test_the_refresh_task_alone_has_the_posts_corpus_its_minimal_client_reads_made():
    """`bench overhead --tasks refresh --scale 5` failed: the minimal client read posts-50000.json, which only a posts
    task's race had made. Every writing task names the posts corpus its minimal side reads, and the bench makes it."""
    chosen = [t for t in overhead.tasks(runs=1, scale=5) if t.key == "refresh"]
    assert overhead.posts_corpora(chosen) == [50000]
    assert chosen[0].minimal[chosen[0].minimal.index("--corpus") + 1].endswith("posts-50000.json")
    everything = overhead.tasks(runs=1)
    assert overhead.posts_corpora(everything) == [10000, 50000]
    assert all(t.posts_corpus for t in everything if t.minimal[0] == "write")


def test_a_bulk_run_is_more_than_one_request_and_both_sides_read_the_same_corpus():
    """A bulk-10000 run of the study's 10,000 documents was one 0.2 s request: its rounds spread 0.77-1.07x."""
    for task in (t for t in overhead.tasks(runs=1) if t.key.startswith("posts-bulk")):
        bulk = int(task.minimal[task.minimal.index("--bulk-size") + 1])
        assert task.params["posts_docs"] == task.corpus_docs == task.posts_corpus >= 5 * bulk
        assert task.minimal[task.minimal.index("--corpus") + 1].endswith(f"posts-{task.corpus_docs}.json")
        assert task.minimal[task.minimal.index("--docs") + 1] == str(task.corpus_docs)


def test_node_cpu_is_asked_again_until_every_node_measured_it_after_the_side():
    # Elasticsearch answers its copy of the process stats, up to a second old: the side's end must be in it
    answers = iter([{"n1": (1000, 500), "n2": (1700, 400)}, {"n1": (1900, 560), "n2": (1700, 400)}, {"n1": (1900, 560), "n2": (2100, 470)}])
    asked, slept = [], []

    def fetch(url):
        asked.append(url)
        return {"nodes": {k: {"process": {"timestamp": ts, "cpu": {"total_in_millis": ms}}} for k, (ts, ms) in next(answers).items()}}

    assert overhead._node_cpu_ms("http://n:9200", 1800, fetch=fetch, clock=lambda: 0.0, sleep=slept.append) == 1030
    assert len(asked) == 3 and slept == [0.2, 0.2] and "process.timestamp" in asked[0]


def test_a_node_whose_copy_never_catches_up_gives_what_it_has_after_the_wait():
    clock = iter([0.0, 1.0, 2.0, 3.5])
    fetch = lambda url: {"nodes": {"n1": {"process": {"timestamp": 10, "cpu": {"total_in_millis": 700}}}}}  # noqa: E731
    assert overhead._node_cpu_ms("http://n:9200", 1e12, wait_s=3.0, fetch=fetch, clock=lambda: next(clock), sleep=lambda s: None) == 700


def _fake_sides(monkeypatch, ratios: dict):
    """Each task's pack side answers the next of its ratios (the minimal side 100 docs/s); the events in order."""
    from devtools.bench import settle

    events, left = [], {k: iter(v) for k, v in ratios.items()}
    monkeypatch.setattr(overhead, "settle", lambda url, indices: settle.Settled(True, 0.0))
    monkeypatch.setattr(
        overhead, "_pack", lambda t, *a: events.append(("pack", t.key)) or overhead.Side(100.0 * next(left[t.key]), 1.0, 1.0)
    )
    monkeypatch.setattr(overhead, "_minimal", lambda t, *a: events.append(("minimal", t.key)) or overhead.Side(100.0, 1.0, 1.0))
    monkeypatch.setattr(overhead, "posts_corpora", lambda chosen: [])
    monkeypatch.setattr(overhead, "load_track", lambda *a, **k: None)
    return events


def test_a_task_whose_rounds_disagree_gets_more_rounds_until_its_interval_is_narrow_or_the_limit(monkeypatch):
    steady = [1.0, 1.01, 0.99, 1.0, 1.02, 0.98]
    noisy = [0.80, 1.20, 0.90, 1.10, 0.85, 1.15, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
    events, said = _fake_sides(monkeypatch, {"posts-index": steady, "refresh": noisy}), []
    text, data = overhead.run(
        "h:9200", "http://h:9200", rounds=6, tasks="posts-index,refresh", warmup_rounds=0, max_rounds=9, width=0.10, log=said.append
    )
    assert data["posts index API"]["rounds"] == 6 and data["refresh single+refresh"]["rounds"] == 9
    refresh_order = [side for side, key in events if key == "refresh"]
    assert refresh_order[12:] == ["pack", "minimal", "minimal", "pack", "pack", "minimal"]  # rounds 7-9 keep alternating
    assert "[ingestlab] overhead: refresh single+refresh: round 7 (95 % interval 0.80–1.20, wider than 0.10)" in said
    assert data["refresh single+refresh"]["interval"]["low"] == 0.85 and data["refresh single+refresh"]["ratios"] == noisy[:9]
    row = next(line for line in text.splitlines() if line.startswith("| refresh single+refresh |"))
    assert "| 0.85–1.15 | 9 |" in row and "up to 9" in text


def test_no_more_rounds_than_asked_without_a_limit_and_no_interval_under_six_rounds(monkeypatch):
    _fake_sides(monkeypatch, {"refresh": [0.8, 1.2, 0.9]})
    text, data = overhead.run("h:9200", "http://h:9200", rounds=3, tasks="refresh", warmup_rounds=0, log=lambda *a: None)
    assert data["refresh single+refresh"]["rounds"] == 3 and data["refresh single+refresh"]["interval"] is None
    row = next(line for line in text.splitlines() if line.startswith("| refresh single+refresh |"))
    assert "× | — | 3 |" in row and "refresh single+refresh: pack/minimal = 0.90x" in text


def test_a_run_goes_into_the_ledger_with_each_tasks_ratio_interval_and_cpu(tmp_path, monkeypatch):
    """bench overhead writes its figures to the ledger (it did not: issue 45); a missing interval stays missing."""
    import json

    from devtools import ledger
    from devtools.bench import overhead_report

    monkeypatch.setattr(ledger, "target", lambda: tmp_path)
    data = {
        "posts bulk 1000": {
            "ratio": [0.9, 1.05, 1.2],
            "rounds": 6,
            "interval": [0.98, 1.12],
            "pack_client_us": [1, 1.3, 2],
            "minimal_client_us": [3, 4.1, 5],
            "pack_node_us": [20, 22.7, 25],
            "minimal_node_us": [20, 22.1, 24],
        },
        "reindex raw sliced scroll": {
            "ratio": [0.9, 1.0, 1.1],
            "rounds": 2,
            "interval": None,
            "pack_client_us": [6, 6.3, 7],
            "minimal_client_us": [5, 5.9, 6],
            "pack_node_us": [None, None, None],
            "minimal_node_us": [160, 163.7, 170],
        },
    }
    overhead_report.to_ledger(data, "2026-11-27T160000", "python -m devtools.bench overhead", "in memory")
    entry = json.loads(next(tmp_path.glob("*.json")).read_text())
    assert entry["run"] == "2026-11-27T160000-overhead" and entry["kind"] == "bench overhead"
    got = entry["figures"]
    assert got["posts-bulk-1000-ratio"]["value"] == 1.05 and got["posts-bulk-1000-low"]["value"] == 0.98
    assert got["reindex-raw-sliced-scroll-low"]["value"] is None and got["reindex-raw-sliced-scroll-pack-node-us"]["value"] is None
