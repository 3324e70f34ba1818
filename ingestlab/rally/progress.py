"""A line per finished task while Rally races, on a terminal and in a pipe alike: :class:`Progress` follows the file
the launcher's hook appends Rally's figures to, and prints each task as it ends."""

from __future__ import annotations

import json
import time
from pathlib import Path

from ingestlab.procs import Poller


def warmup_only(figure: dict) -> bool:
    return not figure.get("samples") and bool(figure.get("warmup_samples"))


def describe(figure: dict) -> str:
    name = figure["task"]
    if warmup_only(figure):
        return (
            f"{name}: no figure — all {figure['warmup_samples']} samples fell inside its warm-up "
            f"(raise the corpus size, or lower warmup-time-period)"
        )
    if figure.get("median") is None:
        return f"{name}: done"
    errors = f", {figure['error_rate']:.1%} errors" if figure.get("error_rate") else ""
    return f"{name}: {figure['median']:,.1f} {figure.get('unit') or ''} (median){errors}".replace("  ", " ")


def line(event: dict, started: float) -> str:
    elapsed = int(event["time"] - started)
    step = f"{event['step'] + 1}/{event['steps']}" if event.get("steps") else ""
    return f"[ingestlab] {elapsed // 60:02d}:{elapsed % 60:02d} {step} " + "; ".join(describe(f) for f in event["tasks"])


def per_task(events: list[dict], key: str) -> dict[str, list]:
    """Each finished task's ``key`` figures (``throughput_samples``, ``latency_samples``), where it has any."""
    return {f["task"]: f[key] for event in events for f in event["tasks"] if f.get(key)}


def read(path: Path) -> list[dict]:
    """Every event the hook wrote to ``path`` (none when it wrote nothing), read once a race has ended."""
    path = Path(path)
    return [json.loads(raw) for raw in path.read_text().splitlines() if raw.strip()] if path.is_file() else []


class Progress(Poller):
    """Follows ``path`` from a thread while a race runs; ``with Progress(path, log): ...``."""

    def __init__(self, path: Path, log=print, interval: float = 0.5):
        self.path, self.log, self.interval = Path(path), log, interval
        self.started = time.time()
        self.events: list[dict] = []
        self._offset = 0

    def look(self) -> None:
        if not self.path.is_file():
            return
        with open(self.path) as f:
            f.seek(self._offset)
            for raw in f:
                if not raw.endswith("\n"):
                    break  # a line still being written: read it next time
                self._offset += len(raw.encode())
                event = json.loads(raw)
                self.events.append(event)
                self.log(line(event, self.started))

    def __exit__(self, *exc) -> None:
        super().__exit__()
        self.look()
