"""What a Rally track declares, read by rendering it with Rally's own template loader: every parameter its templates
read (with its literal ``| default(…)``), and its challenges and their schedules for the parameters a race was given.
Studies, sweeps and reports take task names and defaults from here; a wrong path, unknown parameter, value of the
wrong kind or unknown challenge is an error naming it, before Rally starts."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import jinja2
from jinja2 import meta, nodes

from ingestlab.errors import IngestlabError

NO_LITERAL = object()  # a parameter whose default is an expression (e.g. ``default(p_corpus_docs)``)
_RALLY_GLOBALS = {"build_flavor", "serverless_operator", "now", "glob"}


@dataclass(frozen=True)
class Task:
    name: str
    operation: dict  # the rendered operation: name, operation-type and its parameters
    clients: int = 1
    iterations: int | None = None
    warmup_iterations: int | None = None
    time_period: float | None = None
    warmup_time_period: float | None = None
    tags: tuple[str, ...] = ()
    target_throughput: float | str | None = None  # the task's "target-throughput" (operations per second)

    @property
    def operation_type(self) -> str | None:
        return self.operation.get("operation-type")

    def param(self, key: str, default=None):
        return self.operation.get(key, default)


@dataclass(frozen=True)
class Challenge:
    name: str
    description: str
    default: bool
    schedule: tuple[Task, ...]

    def task(self, name: str) -> Task | None:
        return next((t for t in self.schedule if t.name == name), None)


def _assembled(directory: Path, file_name: str) -> str:
    from ingestlab.runners import compat  # heavy: loads the client (elasticsearch, ~0.3 s); the CLI starts without it

    return compat.assembled_template(str(directory), file_name)


def _parse(text: str):
    from ingestlab.runners import compat  # heavy: loads the client (elasticsearch, ~0.3 s); the CLI starts without it

    env = jinja2.Environment()
    for kind, values in compat.template_globals().items():
        getattr(env, kind).update(values)
    return env.parse(text)


def _literal(node):
    try:
        return node.as_const()
    except (nodes.Impossible, TypeError):
        return NO_LITERAL


def declared(texts: list[str]) -> dict:
    """``{parameter: literal default or NO_LITERAL}`` for every name the templates read and do not set themselves."""
    found: dict = {}
    for text in texts:
        ast = _parse(text)
        for name in sorted(n for n in meta.find_undeclared_variables(ast) - _RALLY_GLOBALS if not n.startswith("_")):
            found.setdefault(name, NO_LITERAL)
        for f in ast.find_all(nodes.Filter):
            if f.name == "default" and isinstance(f.node, nodes.Name) and f.args and f.node.name in found:
                value = _literal(f.args[0])
                if found[f.node.name] is NO_LITERAL and value is not NO_LITERAL:
                    found[f.node.name] = value
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


def fits(value, default) -> bool:
    """Whether ``value`` is of the kind its literal ``default`` declares (anything fits an expression or none)."""
    if default is NO_LITERAL or default is None:
        return True
    if isinstance(default, bool):
        return isinstance(value, bool)
    if isinstance(default, int):
        return isinstance(value, int) and not isinstance(value, bool)
    if isinstance(default, float):
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if isinstance(default, list):
        return isinstance(value, list) and all(any(fits(v, d) for d in default) for v in value) if default else isinstance(value, list)
    return isinstance(value, (str, int, float)) and not isinstance(value, bool)


def _task(entry: dict, operations: dict) -> list[Task]:
    if "parallel" in entry:
        return [t for sub in entry["parallel"].get("tasks", []) for t in _task(sub, operations)]
    op = entry.get("operation")
    operation = op if isinstance(op, dict) else operations.get(op, {"name": op})
    tags = entry.get("tags", ())
    return [
        Task(
            name=entry.get("name", operation.get("name")),
            operation=operation,
            clients=int(entry.get("clients", 1)),
            iterations=entry.get("iterations"),
            warmup_iterations=entry.get("warmup-iterations"),
            time_period=entry.get("time-period"),
            warmup_time_period=entry.get("warmup-time-period"),
            tags=tuple([tags] if isinstance(tags, str) else tags),
            target_throughput=entry.get("target-throughput"),
        )
    ]


@dataclass(frozen=True)
class TrackInfo:
    path: Path
    given: dict = field(default_factory=dict)  # the parameters a race was given

    @property
    def name(self) -> str:
        return self.path.name

    def _require_track_json(self) -> None:
        if not (self.path / "track.json").is_file():
            raise IngestlabError(f"{self.path} is not a Rally track: it has no track.json")

    @cached_property
    def _sources(self) -> list[str]:
        self._require_track_json()
        return [_assembled(self.path, "track.json")]

    @cached_property
    def rendered(self) -> dict:
        from ingestlab.runners import compat  # heavy: loads the client (elasticsearch, ~0.3 s); the CLI starts without it

        self._require_track_json()
        try:
            text = compat.rendered_track(str(self.path / "track.json"), self.given)
            return json.loads(text)
        except Exception as e:
            raise IngestlabError(f"track {self.path} does not render with {json.dumps(self.given)}: {e}") from None

    @cached_property
    def _index_sources(self) -> list[str]:
        """The index bodies and templates the track names (none while the track does not render)."""
        try:
            rendered = self.rendered
        except IngestlabError:
            return []
        bodies = [i.get("body") for i in rendered.get("indices", []) if i.get("body")]
        bodies += [
            t.get("template")
            for key in ("templates", "composable-templates", "component-templates")
            for t in rendered.get(key, [])
            if t.get("template")
        ]
        return [_assembled(self.path, b) for b in bodies if (self.path / b).is_file()]

    @cached_property
    def defaults(self) -> dict:
        """Every parameter the templates read, with its literal default (or NO_LITERAL)."""
        found = declared(self._sources)
        for name, value in declared(self._index_sources).items():
            if found.get(name, NO_LITERAL) is NO_LITERAL:
                found[name] = value
        return found

    @property
    def literal_defaults(self) -> dict:
        return {k: v for k, v in self.defaults.items() if v is not NO_LITERAL}

    @property
    def params(self) -> dict:
        """The effective parameters: the literal defaults overlaid with the given ones."""
        return {**self.literal_defaults, **self.given}

    def check(self, params: dict | None = None, unknown: bool = False) -> None:
        """Raise naming the first parameter the templates never read (``unknown``) or of the wrong kind."""
        params = self.given if params is None else params
        for name, value in params.items():
            if name not in self.defaults:
                if unknown:
                    close = sorted(n for n in self.defaults if name.replace("-", "_") in n or n in name)
                    raise IngestlabError(
                        f"track {self.name} never reads a parameter {name!r}"
                        + (f"; did you mean {', '.join(close)}?" if close else f"; it reads: {', '.join(sorted(self.defaults))}")
                    )
                continue
            default = self.defaults[name]
            if not fits(value, default):
                raise IngestlabError(
                    f"track parameter {name!r} of {self.name} must be {_kind(default)} "
                    f"(default {json.dumps(default)}), got {json.dumps(value)}"
                )

    @cached_property
    def challenges(self) -> dict[str, Challenge]:
        track = self.rendered
        operations = {o["name"]: o for o in track.get("operations", [])}
        raw = track.get("challenges") or ([track["challenge"]] if "challenge" in track else [])
        if not raw and "schedule" in track:
            raw = [{"name": "default", "default": True, "schedule": track["schedule"]}]
        return {
            c["name"]: Challenge(
                c["name"],
                c.get("description", ""),
                bool(c.get("default", len(raw) == 1)),
                tuple(t for e in c.get("schedule", []) for t in _task(e, operations)),
            )
            for c in raw
        }

    @property
    def default_challenge(self) -> str:
        return next((c.name for c in self.challenges.values() if c.default), next(iter(self.challenges), ""))

    def challenge(self, name: str | None = None) -> Challenge:
        wanted = name or self.default_challenge
        if wanted not in self.challenges:
            raise IngestlabError(f"track {self.name} has no challenge {wanted!r}; it has {', '.join(self.challenges)}")
        return self.challenges[wanted]

    def with_params(self, given: dict) -> "TrackInfo":
        return TrackInfo(self.path, dict(given))


def load(path: Path, given: dict | None = None) -> TrackInfo:
    return TrackInfo(Path(path).resolve(), dict(given or {}))
