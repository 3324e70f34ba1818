"""The search over steps (offered rates, clients or bulk sizes): which step to probe next, and what the probes add up to.

1. **Bracket**: climb from the first step, doubling (on the grid of an ``anchor``: 1, 2, 4, … grid steps), to the first
   that fails; from a failed step, halve (or gallop down on the grid) to the first that passes.
2. **Bisect** the bracket until the failed step is within ``resolution`` of the passed one.
3. **Confirm**: the passed step needs ``probes`` passing probes, spread with other steps between them, so a node that
   drifts does not pass for a knee; a confirming probe that fails makes it the failed end and the search goes on below.

The result is the highest rate whose probes *all* met the target, the lowest step above it that failed, and why the
search stopped; a probe where the load driver was at its limit stops the search. :func:`search` only decides."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

PASS, FAIL, DRIVER_BOUND = "pass", "fail", "driver bound"


@dataclass(frozen=True)
class Probe:
    rate: float  # the step: offered documents per second (or clients, or a bulk size: ingestlab.redline.over)
    outcome: str  # PASS, FAIL or DRIVER_BOUND
    why: str  # e.g. "p99 812 ms > 200 ms"
    latency_ms: dict = field(default_factory=dict)  # Rally's latency percentiles of the bulk task ("p50", "p90", "p99", ...)
    throughput: float | None = None  # documents per second the task achieved (its mean)
    error_rate: float = 0.0
    race_id: str | None = None
    load_side: dict | None = None
    requests: int | None = None  # requests measured (a percentile of fewer than 100 is read by nearest rank)
    emulation: bool | None = None  # on emulated hosts: whether the emulation held over its race (the fidelity monitor's verdict)


@dataclass(frozen=True)
class Settings:
    start: float  # the first offered rate (documents per second)
    ceiling: float  # the climb stops above this rate: the target was met at every step to here
    floor: float  # the descent stops below this rate: the target cannot be met
    resolution: float = 0.05  # the bisection stops when the failed step is within this share above the passed one
    probes: int = 3  # probes every step of the answer needs, all passing
    most: int = 40  # probes at most, in all
    unit: str = "docs/s offered"  # what a step is, in the log and the sentences
    ceiling_is: str = "a multiple of the full-speed rate"  # where the ceiling comes from, in the sentence that names it
    whole: bool = False  # steps are whole numbers (clients, a bulk size): bisection stops at neighbours, halving rounds down
    anchor: float | None = None  # steps on the grid anchor × (1 + resolution)^k, the search starting at the anchor (module doc)


@dataclass
class Outcome:
    rate: float | None  # the highest rate whose probes all passed, with at least ``probes`` of them (None: not found)
    failed_above: float | None  # the lowest rate above it with a failing probe
    stopped: str  # why the search ended, in a sentence
    probes: list[Probe]

    def steps(self) -> dict[float, list[Probe]]:
        out: dict[float, list[Probe]] = {}
        for p in self.probes:
            out.setdefault(p.rate, []).append(p)
        return dict(sorted(out.items()))


class _Stop(Exception):
    pass


class Halt(_Stop):
    """Raised by a probe function when the search cannot go on (the cluster went red): the search ends with what it
    has and this reason."""


class _Search:
    def __init__(self, probe: Callable[[float], Probe], s: Settings, log):
        self.probe, self.s, self.log = probe, s, log
        self.history: list[Probe] = []

    def ask(self, rate: float) -> Probe:
        if len(self.history) >= self.s.most:
            raise _Stop(f"the search spent its {self.s.most} probes")
        p = self.probe(rate)
        self.history.append(p)
        self.log(f"[ingestlab] redline probe {len(self.history)}: {rate:,.0f} {self.s.unit}: {p.outcome} ({p.why})")
        if p.outcome == DRIVER_BOUND:
            raise _Stop(
                f"the load driver was at its limit at {rate:,.0f} {self.s.unit} ({p.why}): what lies above it was not "
                f"measured; give the load driver more (load-driver hosts, cores) and search again"
            )
        return p

    def of(self, rate: float) -> list[Probe]:
        return [p for p in self.history if p.rate == rate]

    def all_passed(self, rate: float) -> bool:
        seen = self.of(rate)
        return bool(seen) and all(p.outcome == PASS for p in seen)

    def at(self, k: int) -> float:
        """The grid's step ``k`` (0: the anchor; negative: below it), computed below it as the dense scan computes its
        steps (``steps`` in devtools/bench/redline_scan.py), so the two share each float."""
        return self.s.anchor * (1 + self.s.resolution) ** k if k >= 0 else self.s.anchor / (1 + self.s.resolution) ** -k

    def index(self, rate: float) -> int:
        return round(math.log(rate / self.s.anchor) / math.log(1 + self.s.resolution))

    def climb(self) -> tuple[float, float]:
        """On the grid: the anchor, then 1, 2, 4, … steps above the last that passed, to the first that fails; a failing
        anchor gallops down instead."""
        k = 0
        if self.ask(self.at(k)).outcome != PASS:
            return self.down(self.at(k), None)
        jump = 1
        while True:
            if self.at(k + jump) > self.s.ceiling:
                raise _Stop(
                    f"the target was met at every step up to {self.at(k):,.0f} {self.s.unit}, the highest the search "
                    f"offers below {self.s.ceiling:,.0f} ({self.s.ceiling_is})"
                )
            if self.ask(self.at(k + jump)).outcome != PASS:
                return self.at(k), self.at(k + jump)
            k, jump = k + jump, jump * 2

    def down(self, failed: float, passed: float | None) -> tuple[float, float]:
        """From the ``failed`` step, 1, 2, 4, … grid steps down to the first that passes, or to ``passed`` (a step below
        that passed already, not probed again): the bracket."""
        top, hi, jump = self.index(failed), failed, 1
        while True:
            rate = self.at(top - jump)
            if passed is not None and rate <= passed * (1 + 1e-9):
                return passed, hi
            if rate < self.s.floor:
                worst = self.of(hi)[-1]
                raise _Stop(f"the target cannot be met even at the lowest step, {hi:,.0f} {self.s.unit} ({worst.why})")
            failed_before = any(p.outcome != PASS for p in self.of(rate))  # a spreading probe (confirm) failed there
            if not failed_before and self.ask(rate).outcome == PASS:
                return rate, hi
            hi, jump = rate, jump * 2

    def bracket(self) -> tuple[float, float]:
        if self.s.anchor:
            return self.climb()
        rate = self.s.start
        if self.ask(rate).outcome == PASS:
            while True:
                if rate * 2 > self.s.ceiling:
                    raise _Stop(
                        f"the target was met at every step up to {rate:,.0f} {self.s.unit}, the highest the search "
                        f"offers ({self.s.ceiling:,.0f}: {self.s.ceiling_is})"
                    )
                lo, rate = rate, rate * 2
                if self.ask(rate).outcome != PASS:
                    return lo, rate
        while True:
            hi, rate = rate, self.half(rate)
            if rate < self.s.floor:
                worst = self.of(hi)[-1]
                raise _Stop(f"the target cannot be met even at the lowest step, {hi:,.0f} {self.s.unit} ({worst.why})")
            if self.ask(rate).outcome == PASS:
                return rate, hi

    def half(self, rate: float) -> float:
        return math.floor(rate / 2) if self.s.whole else rate / 2

    def between(self, lo: float, hi: float) -> float | None:
        """The next step to probe inside ``(lo, hi)``, the geometric midpoint (the nearest whole number strictly inside when
        steps are whole); None when the bracket is within the resolution (or, whole, the two are neighbours)."""
        if self.s.anchor:
            a, b = self.index(lo), self.index(hi)
            return self.at((a + b) // 2) if b - a > 1 else None
        if hi / lo <= 1 + self.s.resolution:
            return None
        if not self.s.whole:
            return math.sqrt(lo * hi)
        if hi - lo <= 1:
            return None
        return min(max(round(math.sqrt(lo * hi)), lo + 1), hi - 1)

    def narrow(self, lo: float, hi: float) -> tuple[float, float]:
        while (mid := self.between(lo, hi)) is not None:
            if self.ask(mid).outcome == PASS:
                lo = mid
            else:
                hi = mid
        return lo, hi

    def confirm(self, lo: float, hi: float) -> float | None:
        """None when ``lo`` kept passing to its last probe; else ``lo`` (a probe of it failed). Two of ``lo``'s probes are
        never back to back: the failed step ``hi`` or, on the grid, the step below ``lo`` is probed between them."""
        while len(self.of(lo)) < self.s.probes:
            if self.history[-1].rate == lo:
                below = self.at(self.index(lo) - 1) if self.s.anchor else None
                self.ask(below if below is not None and below >= self.s.floor else hi)
            if self.ask(lo).outcome != PASS:
                return lo
        return None if self.all_passed(lo) else lo

    def run(self) -> tuple[float | None, float | None, str]:
        lo, hi = self.bracket()
        while True:
            lo, hi = self.narrow(lo, hi)
            failed = self.confirm(lo, hi)
            if failed is None:
                within = "the next step up" if self.s.whole and hi - lo <= 1 else f"within {self.s.resolution:.0%} above it"
                probes = len(self.of(lo))
                return lo, hi, f"{lo:,.0f} {self.s.unit} met the target in all {probes} of its probes, and {hi:,.0f} ({within}) failed"
            hi = failed
            below = [p.rate for p in self.history if p.rate < hi and self.all_passed(p.rate)]
            if self.s.anchor:
                lo, hi = self.down(hi, max(below) if below else None)
                continue
            if below:
                lo = max(below)
                continue
            lo = hi
            while True:
                hi, lo = lo, self.half(lo)
                if lo < self.s.floor:
                    raise _Stop(f"the target cannot be met even at the lowest step, {hi:,.0f} {self.s.unit}")
                if self.ask(lo).outcome == PASS:
                    break


def search(probe: Callable[[float], Probe], settings: Settings, log=print) -> Outcome:
    """Search with ``probe`` (races one offered rate, documents per second, and judges it)."""
    state = _Search(probe, settings, log)
    try:
        rate, failed, stopped = state.run()
    except _Stop as e:
        confirmed = [p.rate for p in state.history if state.all_passed(p.rate) and len(state.of(p.rate)) >= settings.probes]
        rate = max(confirmed) if confirmed else None
        above = [p.rate for p in state.history if p.outcome == FAIL and (rate is None or p.rate > rate)]
        return Outcome(rate, min(above) if above else None, str(e), state.history)
    return Outcome(rate, failed, stopped, state.history)
