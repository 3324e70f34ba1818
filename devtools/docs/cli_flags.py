"""The CLI's every command and flag in the docs, read from its parser (:func:`ingestlab.cli.parser`): docs/cli.md
cannot leave out a flag the code has, nor name one it lacks."""

from __future__ import annotations

import argparse
import re


def _subparsers(parser: argparse.ArgumentParser):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            yield from action.choices.items()


def commands(parser: argparse.ArgumentParser | None = None, prefix: str = "ingestlab") -> list[tuple[str, list[str]]]:
    """(command, its flags) for every command and sub-command, in the parser's order."""
    from ingestlab.cli import parser as make_parser

    parser = parser or make_parser()
    out = []
    for name, sub in _subparsers(parser):
        flags = [max(a.option_strings, key=len) for a in sub._actions if a.option_strings and "--help" not in a.option_strings]
        nested = list(_subparsers(sub))
        if flags or not nested:
            positional = [a.dest for a in sub._actions if not a.option_strings and not isinstance(a, argparse._SubParsersAction)]
            out.append((f"{prefix} {name}" + "".join(f" <{p}>" for p in positional), flags))
        out += commands(sub, f"{prefix} {name}") if nested else []
    return out


def table(args: dict) -> str:
    lines = ["| command | flags |", "|---|---|"]
    for command, flags in commands():
        lines.append(f"| `{command}` | {', '.join(f'`{f}`' for f in flags) or '—'} |")
    return "\n".join(lines)


def flags_named(text: str) -> set[str]:
    """The long flags a piece of the docs names (``--flag``)."""
    return set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]+", text))


def by_command() -> dict[tuple[str, ...], set[str]]:
    """Each command's words (``("dvf", "convert")``) → its flags."""
    return {tuple(w for w in command.split()[1:] if not w.startswith("<")): set(flags) for command, flags in commands()}


COMMAND_LINE = re.compile(r"(?:^|`|\$ |&& )\s*(?:\.venv/bin/)?ingestlab ((?:[a-z][a-z0-9-]* ?)+)([^`\n]*)", re.M)


def unknown_flags(text: str) -> list[str]:
    """``ingestlab …`` command lines in ``text`` that give a command a flag it does not have: "command: --flag"."""
    known = by_command()
    found = []
    for m in COMMAND_LINE.finditer(text):
        words = m.group(1).split()
        command = next((tuple(words[:n]) for n in range(len(words), 0, -1) if tuple(words[:n]) in known), None)
        if command is None:
            continue
        rest = re.split(r"&&|;|, then", " ".join(words[len(command) :]) + " " + m.group(2))[0]
        for flag in sorted(flags_named(rest) - known[command] - {"--help"}):
            found.append(f"ingestlab {' '.join(command)}: {flag}")
    return found
