"""The converters' compiled parts (Rust crates), built on first use with cargo, offline, into
``INGESTLAB_HOME/native/<name>-<hash of the crate's sources>``; without cargo, or when the build fails, :func:`build`
says why once on stderr and returns None, and the converter works in Python.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

from ingestlab import paths
from ingestlab.errors import IngestlabError

_warned: set[str] = set()


def warn(message: str) -> None:
    if message not in _warned:
        _warned.add(message)
        print(f"[ingestlab] {message}", file=sys.stderr)


def wanted(variable: str) -> bool:
    """False when ``variable`` says ``python``; an other value than ``auto`` or ``python`` is an error naming it."""
    choice = os.environ.get(variable, "auto").strip() or "auto"
    if choice not in ("auto", "python"):
        raise IngestlabError(f"{variable}={choice!r}: 'auto' (the compiled fast path when cargo is here) or 'python'")
    return choice == "auto"


def _cargo() -> str | None:
    found = shutil.which("cargo")
    if found:
        return found
    home = Path(os.environ.get("CARGO_HOME") or Path.home() / ".cargo") / "bin" / "cargo"
    return str(home) if home.is_file() else None


SHARED = Path(__file__).parent  # Rust the crates share (``*.rs`` here), which they include by path


def build(crate: Path, name: str, artifact: str, what: str) -> Path | None:
    """The crate's ``artifact`` (its path under ``release/``), built first if the crate's sources changed; None: the
    caller does the work in Python (``what``, in the warning, says what that means)."""
    sources = [crate / "Cargo.toml", crate / "Cargo.lock", *sorted((crate / "src").glob("*.rs")), *sorted(SHARED.glob("*.rs"))]
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in sources)).hexdigest()[:12]
    target = paths.home() / "native" / f"{name}-{digest}"
    built = target / "release" / artifact
    if built.is_file():
        return built
    cargo = _cargo()
    if cargo is None:
        warn(f"no cargo here: {what}")
        return None
    try:
        target.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            [
                cargo,
                "build",
                "--release",
                "--offline",
                "--quiet",
                "--manifest-path",
                str(crate / "Cargo.toml"),
                "--target-dir",
                str(target),
            ],
            capture_output=True,
            text=True,
            timeout=600,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        warn(f"building {name} failed ({e}): {what}")
        return None
    if done.returncode != 0 or not built.is_file():
        warn(f"building {name} failed (cargo exit {done.returncode}: {done.stderr.strip()[-300:]}): {what}")
        return None
    for older in target.parent.glob(f"{name}-*"):  # builds of earlier sources: not used again
        if older != target:
            shutil.rmtree(older, ignore_errors=True)
    return built
