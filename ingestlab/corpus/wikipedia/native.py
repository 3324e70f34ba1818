"""The Wikipedia converter's compiled part (``native/``, Rust), built on first use (:mod:`ingestlab.corpus.native_build`)
and loaded with ctypes: a page's two corpus lines, the same bytes as ``pages.lines(page_id, pages.page_document(...))``.
Without cargo, or with ``INGESTLAB_WIKIPEDIA_CONVERTER=python``, Python makes every page.
"""

from __future__ import annotations

import ctypes
from pathlib import Path
from typing import Callable

from ingestlab.corpus import native_build

SOURCE = Path(__file__).parent / "native"
VARIABLE = "INGESTLAB_WIKIPEDIA_CONVERTER"
_loaded: dict[Path, Callable] = {}


def library() -> Path | None:
    """The built library, building it first if its sources changed; None: the pages are made in Python."""
    if not native_build.wanted(VARIABLE):
        return None
    return native_build.build(
        SOURCE, "wiki-text", "libwiki_text.so", "Wikipedia pages are converted in Python (about two thirds of the compiled part's speed)"
    )


def page_lines() -> Callable[[str, str, str, str, bool], bytes | None] | None:
    """(page id, title, ns, wikitext, redirect) → the page's corpus lines, or None (a panic caught in the library, or
    fields that are not UTF-8: Python makes that page); None: no library."""
    path = library()
    if path is None:
        return None
    if path not in _loaded:
        _loaded[path] = _bind(ctypes.CDLL(str(path)).wiki_page_lines)
    return _loaded[path]


def _bind(function) -> Callable[[str, str, str, str, bool], bytes | None]:
    size_t, text = ctypes.c_size_t, ctypes.c_char_p
    function.argtypes = [text, size_t, text, size_t, text, size_t, ctypes.c_int, ctypes.c_int, ctypes.c_void_p, size_t]
    function.restype = ctypes.c_int64
    out = [ctypes.create_string_buffer(4 << 20)]
    string_at = ctypes.string_at

    def lines(page_id: str, title: str, ns: str, wikitext: str, redirect: bool) -> bytes | None:
        try:
            i, t, w = page_id.encode(), title.encode(), wikitext.encode()
        except UnicodeEncodeError:
            return None
        special = ns not in ("0", "")
        while True:
            buffer = out[0]
            size = function(i, len(i), t, len(t), w, len(w), redirect, special, buffer, len(buffer))
            if size >= 0:
                return string_at(buffer, size)
            if size == -1:
                return None
            out[0] = ctypes.create_string_buffer(-size - 2)  # too small: the length it needs

    return lines
