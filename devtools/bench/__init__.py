"""The pack's measurements of itself, one command each: ``python -m devtools.bench {overhead,load,changepoints,redline,
dose,sessions,nightly} …`` (:mod:`devtools.bench.__main__`); each run writes its ledger entry (:mod:`devtools.ledger`)."""

from __future__ import annotations

import os
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[2]  # the repository: where ``python -m devtools…`` finds this package


def child_env(env: dict | None = None) -> dict:
    """``env`` (default: this process's) with the checkout first on PYTHONPATH: a child run as ``python -m devtools.bench…``
    finds it whatever its working directory."""
    env = dict(os.environ if env is None else env)
    env["PYTHONPATH"] = os.pathsep.join([str(CHECKOUT), *filter(None, [env.get("PYTHONPATH")])])
    return env
