"""What the nightly's rules were measured to do on this machine (``python -m devtools.bench changepoints``), quoted
where a night applies them: the simulation of the night's own configuration under today's rules drawn from real nights
on the most days (then the most nights, then the newest), never another configuration's rates."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from ingestlab import machine, paths
from ingestlab.nightly import changepoints, history
from ingestlab.verdicts.stats import clopper_pearson


@dataclass(frozen=True)
class Basis:
    """How a series of nights was raced: a simulation of such nights speaks for a night raced the same way."""

    track: str
    task: str
    setup: str  # the setup's name as its races were tagged (``nightly-setup``)
    reference: str  # the version of the reference raced beside it, race by race ("" for none): another version, or the same
    full_size: bool
    repeat: int  # races a night

    def what(self) -> str:
        return (
            f"{self.track}/{self.task} on {self.setup}, {'at its article size' if self.full_size else 'test mode'}, "
            f"{self.repeat} race(s) a night, " + (f"beside a reference of {self.reference}" if self.reference else "no reference")
        )


def rules() -> dict:
    """The change-point rule and the drop rule as they are now: a run of other rules speaks for none of tonight's."""
    return {
        "rule": {
            "max_pvalue": changepoints.MAX_PVALUE,
            "permutations": changepoints.PERMUTATIONS,
            "min_magnitude": changepoints.MIN_MAGNITUDE,
            "min_segment": changepoints.MIN_SEGMENT,
            "judged": "every night",  # as the nightly judges: a simulation that judged a finished series once speaks for no night
            "same_within": history.SAME_WITHIN,
        },
        "drop_rule": {
            "level": history.DROP_LEVEL,
            "min_drop": history.MIN_DROP,
            "nights": history.NIGHTS_COMPARED,
            "needed": history.NIGHTS_NEEDED,
        },
    }


def days_of(nights) -> list[str]:
    """The days the nights named ran on, in order: a night is named by its start (``2026-12-04T161926``)."""
    return sorted({night[:10] for night in nights})


def directory() -> Path:
    return paths.results_dir() / "changepoints"


def save(run: str, basis: Basis, data: dict, command: str, nights: list[str]) -> Path:
    """Keep a simulation drawn from ``nights`` (raced as ``basis`` says) for the nights that will quote it."""
    keep = (
        "series",
        "nights",
        "step",
        "after",
        "false_alarms",
        "false_per_night",
        "per_report",
        "report_false_per_night",
        "report_false",
        "found",
        "drop_false_alarms",
        "drop_found",
        "rule",
        "drop_rule",
    )
    path = directory() / f"{run}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps(
            {
                "run": run,
                "basis": asdict(basis),
                "machine": machine.describe(),
                "command": command,
                "drawn_from_nights": list(dict.fromkeys(nights)),
                **{k: data[k] for k in keep if k in data},
            },
            indent=2,
        )
    )
    return path


def find(basis: Basis, here: dict | None = None, where: Path | None = None) -> dict | None:
    """The kept simulation of ``basis`` on this machine under today's rules whose nights ran on the most days (then the
    most nights, then the newest), or None: a later quick check on fewer does not replace the better-founded run. To
    retire a kept run, remove its file from ``directory()``."""
    here, now = here or machine.describe(), rules()
    found = []
    for path in sorted((where or directory()).glob("*.json")):
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            continue  # not one of ours: a kept run is written whole by save()
        kept_on = data.get("machine") or {}
        if (
            data.get("basis") == asdict(basis)
            and all(kept_on.get(k) == here.get(k) for k in ("cpu", "cores"))
            and data.get("rule") == now["rule"]
            and data.get("drop_rule") == now["drop_rule"]
        ):
            found.append(data)
    return max(found, key=_founded) if found else None


def _founded(data: dict) -> tuple:
    """How much a kept simulation rests on: the days and the nights it drew from, then how new it is."""
    return len(days_of(data["drawn_from_nights"])), len(data["drawn_from_nights"]), data["run"]


def _rate(pair) -> str:
    k, n = pair
    low, high = clopper_pearson(k, n)
    return f"{k}/{n} ({k / n:.1%}; 95 % interval {low:.1%}–{high:.1%})"


def quote(basis: Basis, margin: float | None, tonight: str, judged: int, where: Path | None = None) -> str:
    """One line for a judged series: the measured rates of its configuration, or that they are not measured and how to.
    ``judged``: the series of this study on this setup that tonight judges (other studies' and setups' share the night's
    exit code too)."""
    data = find(basis, where=where)
    if data is None:
        command = (
            f"python -m devtools.bench changepoints --track {basis.track} --task {basis.task} --nightly {tonight} "
            f"--nightly NIGHT … --repeat {basis.repeat}" + ("" if basis.reference else " --unpaired")
        )
        return (
            f"{basis.task}: how often these rules cry wolf and how soon they find a step is **not measured** on this machine "
            f"for {basis.what()}; `{command}`, on two or more nights raced as tonight's, measures it."
        )
    nights_, step, after = data["nights"], data["step"], data["after"]
    days = days_of(data["drawn_from_nights"])
    on = ", ".join(days) if len(days) <= 3 else f"{days[0]} to {days[-1]}"
    report = f"of its nights (tonight this study judges {judged} series on this setup)"
    line = (
        f"{basis.task}: simulated from {len(data['drawn_from_nights'])} real nights of {len(days)} day{'s' if len(days) != 1 else ''} "
        f"({on}) raced here as {basis.what()} (run {data['run']}; `{data['command']}`), every series judged on every night in "
        f"turn as the nightly judges it: in series of {nights_} nights with no change, a false change point (up or down; only "
        f"a downward one turns the night red) on some night in {_rate(data['false_alarms'])} of series, on "
        f"{_rate(data['false_per_night'])} of nights judged; a report of {data['per_report']} such series raised one on "
        f"{_rate(data['report_false_per_night'])} {report}; a {step:.0%} drop found within {after} nights in {_rate(data['found'])}"
    )
    if (history.MIN_DROP if margin is None else margin) == data["drop_rule"]["min_drop"] and data.get("drop_found"):
        line += (
            f"; the drop rule called {_rate(data['drop_false_alarms'])} of nights with no change and "
            f"{_rate(data['drop_found'])} of the step's first nights"
        )
    else:
        line += f"; the drop rule's rates were measured at a margin of {data['drop_rule']['min_drop']:.0%}, not tonight's"
    return line + "."
