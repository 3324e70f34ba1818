"""Blocks of the docs rendered from data: in a Markdown file, the text between ``<!-- ingestlab:KIND ARGS -->`` and
``<!-- /ingestlab:KIND -->`` is what ``KIND``'s renderer makes of its arguments (``key=value`` words). Everything
outside the markers is hand-written."""

from __future__ import annotations

import re
from typing import Callable

from ingestlab.errors import IngestlabError

BLOCK = re.compile(r"<!-- ingestlab:(?P<kind>[a-z-]+)(?P<args>[^>]*?) -->(?P<body>.*?)<!-- /ingestlab:(?P=kind) -->", re.S)


def _args(text: str, where: str) -> dict:
    args = {}
    for word in text.split():
        key, sep, value = word.partition("=")
        if not sep:
            raise IngestlabError(f"{where}: a block argument {word!r} is not key=value")
        args[key] = value
    return args


def render_text(text: str, where: str, renderers: dict[str, Callable[[dict], str]]) -> str:
    """``text`` with every block rendered anew. A block renders inline (``<!-- … -->value<!-- /… -->``) when its
    marker and end are on one line, else as lines of their own."""

    def one(match: re.Match) -> str:
        kind = match.group("kind")
        if kind not in renderers:
            raise IngestlabError(f"{where}: no renderer for block ingestlab:{kind} (there are {', '.join(sorted(renderers))})")
        made = renderers[kind]({**_args(match.group("args"), where), "_page": where}).strip("\n")
        inline = "\n" not in match.group("body")
        opening = f"<!-- ingestlab:{kind}{match.group('args')} -->"
        return f"{opening}{made}<!-- /ingestlab:{kind} -->" if inline else f"{opening}\n{made}\n<!-- /ingestlab:{kind} -->"

    return BLOCK.sub(one, text)
