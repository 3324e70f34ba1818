"""Check track parameters against the types of their defaults before anything runs.

A track's templates declare each parameter with a literal default, ``{{ bulk_size | default(1000) }}``;
that literal says what a value must look like. A value of the wrong kind (``bulk_sizes=abc``) would
otherwise surface as a Jinja or runner traceback from deep inside Rally. Parameters whose defaults
are expressions, or that the track does not declare, are left to Rally.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from ingestlab.errors import IngestlabError

_DEFAULT = re.compile(r"\b([a-z_][a-z0-9_]*)\s*\|\s*default\((.*?)\)\s*(?:\}\}|%\}|\|)")
_TEMPLATE_SUFFIXES = (".json", ".j2")


def _literal(text: str):
    try:
        return json.loads(text.strip().replace("'", '"'))
    except ValueError:
        return None  # an expression such as ``p_corpus_docs``: no type to check against


def declared_defaults(track_dir: Path, shared_dirs: tuple[Path, ...] = ()) -> dict:
    """``{name: default}`` for every parameter with a literal default in the track's templates."""
    found: dict = {}
    for directory in (Path(track_dir), *shared_dirs):
        for path in sorted(directory.rglob("*")):
            if path.suffix not in _TEMPLATE_SUFFIXES or not path.is_file():
                continue
            for name, default in _DEFAULT.findall(path.read_text(encoding="utf-8")):
                value = _literal(default)
                if value is not None:
                    found.setdefault(name, value)
    return found


def _kind(value) -> str:
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, list):
        inner = {_kind(v) for v in value}
        return f"a JSON list of {inner.pop().split(' ', 1)[1]}s" if len(inner) == 1 else "a JSON list"
    return "a string"


def _fits(value, default) -> bool:
    if isinstance(default, bool):
        return isinstance(value, bool)
    if isinstance(default, int):
        return isinstance(value, int) and not isinstance(value, bool)
    if isinstance(default, float):
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if isinstance(default, list):
        return isinstance(value, list) and all(any(_fits(v, d) for d in default) for v in value) if default else isinstance(value, list)
    return isinstance(value, (str, int, float)) and not isinstance(value, bool)


def check(track_dir: Path, params: dict, shared_dirs: tuple[Path, ...] = ()) -> None:
    """Raise naming the first parameter whose value is not of its default's kind."""
    defaults = declared_defaults(track_dir, shared_dirs)
    for name, value in params.items():
        if name in defaults and not _fits(value, defaults[name]):
            default = json.dumps(defaults[name])
            raise IngestlabError(
                f"track parameter {name!r} of {Path(track_dir).name} must be {_kind(defaults[name])} (default {default}), "
                f"got {json.dumps(value)}"
            )
