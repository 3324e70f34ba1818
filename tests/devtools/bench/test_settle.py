"""Before each side of the overhead bench: both sides' indices deleted, the nodes quiet."""

from devtools.bench import overhead, settle


def _nodes(**nodes):
    return {"nodes": {k: {"process": {"timestamp": ts, "cpu": {"total_in_millis": ms}}} for k, (ts, ms) in nodes.items()}}


def test_the_nodes_busy_cores_need_a_new_measurement_from_every_node():
    before = {"a": (1000, 500), "b": (1000, 900)}
    assert settle.node_cores(before, {"a": (2000, 700), "b": (1000, 900)}) is None  # b's copy is the old one
    assert settle.node_cores(before, {"a": (2000, 700), "b": (1500, 1000)}) == 0.2 + 0.2


class Node:
    """A node whose CPU counter moves by the given ms per (1,000 ms) measurement."""

    def __init__(self, steps):
        self.steps, self.asked, self.ts, self.cpu = list(steps), [], 0, 0

    def __call__(self, url, method=None):
        self.asked.append((method, url))
        if method == "DELETE":
            return {"acknowledged": True}
        if self.asked[-2:-1] and self.asked[-2][0] is None and self.steps:  # a second ask: the node measured anew
            self.ts, self.cpu = self.ts + 1000, self.cpu + self.steps.pop(0)
        return _nodes(n1=(self.ts, self.cpu))


def test_it_deletes_both_sides_indices_then_waits_for_a_quiet_second():
    node, clock = Node([900, 400, 30]), iter(range(100))
    done = settle.settle(
        "http://n:9200", ["overhead-pack", "overhead-minimal"], fetch=node, clock=lambda: next(clock), sleep=lambda s: None
    )
    assert node.asked[0] == ("DELETE", "http://n:9200/overhead-pack,overhead-minimal?ignore_unavailable=true")
    assert done.quiet and node.steps == []  # 0.9 and 0.4 cores were busy; 0.03 is quiet


def test_a_busy_node_keeps_it_waiting_until_the_wait_runs_out():
    node, clock = Node([500] * 50), iter(range(100))
    done = settle.settle("http://n:9200", ["x"], wait_s=5.0, fetch=node, clock=lambda: next(clock), sleep=lambda s: None)
    assert not done.quiet and done.waited_s >= 5.0


def test_every_side_of_every_round_starts_settled(monkeypatch):
    events = []
    monkeypatch.setattr(overhead, "settle", lambda url, indices: events.append(("settle", tuple(indices))) or settle.Settled(True, 1.0))
    monkeypatch.setattr(overhead, "_pack", lambda t, *a: events.append(("pack", t.key)) or overhead.Side(100.0, 1.0, 1.0))
    monkeypatch.setattr(overhead, "_minimal", lambda t, *a: events.append(("minimal", t.key)) or overhead.Side(100.0, 1.0, 1.0))
    monkeypatch.setattr(overhead, "posts_corpora", lambda chosen: [])
    monkeypatch.setattr(overhead, "load_track", lambda *a, **k: None)
    text, _ = overhead.run("h:9200", "http://h:9200", rounds=2, tasks="posts-index", warmup_rounds=1, log=lambda *a: None)
    sides = [e for e in events if e[0] != "settle"]
    assert len(sides) == 6 and all(events[2 * i] == ("settle", ("overhead-pack", "overhead-minimal")) for i in range(6))
    assert [e[0] for e in sides] == ["pack", "minimal", "pack", "minimal", "minimal", "pack"]
    assert "median wait 1.0 s; 0 of 6 waits ran out first" in text
