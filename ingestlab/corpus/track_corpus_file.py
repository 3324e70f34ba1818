"""A generated corpus for a Rally track that reads ``documents.json``: the file, its -1k file, and the
``corpus-documents.json`` entry (exact count and bytes) that the track's track.json includes. A user's
real Rally corpus file of the same name (same document format) can be registered instead."""
from __future__ import annotations

import bz2
import json
from pathlib import Path
from typing import Iterable

from ingestlab.corpus.files import write_corpus


def entry(path: Path, documents: int) -> dict:
    return {"source-file": path.name, "document-count": documents, "uncompressed-bytes": path.stat().st_size}


def write_entry(track_dir: Path, documents_entry: dict, meta: dict) -> None:
    """``corpus-documents.json`` (what track.json includes) and ``corpus-meta.json`` (where the corpus came from)."""
    (track_dir / "corpus-documents.json").write_text(json.dumps(documents_entry, indent=2) + "\n")
    (track_dir / "corpus-meta.json").write_text(json.dumps(meta, indent=2) + "\n")


def is_current(track_dir: Path, corpus_file: str, wanted: dict) -> bool:
    """The corpus is there with its entry, and was either converted from a real file or generated as ``wanted``."""
    meta_file = track_dir / "corpus-meta.json"
    if not (meta_file.is_file() and (track_dir / corpus_file).is_file() and (track_dir / "corpus-documents.json").is_file()):
        return False
    return json.loads(meta_file.read_text()).get("generated") in (None, wanted)


def write_generated(track_dir: Path, lines: Iterable[bytes], meta: dict) -> dict:
    corpus = write_corpus(track_dir / "documents.json", lines)
    doc = entry(corpus.path, corpus.documents)
    write_entry(track_dir, doc, meta)
    return doc


def register_real(track_dir: Path, source: Path) -> dict:
    """Use a real Rally corpus file (``documents.json`` or ``.json.bz2``): streamed in, counted, its -1k made."""
    opener = bz2.open if source.suffix == ".bz2" else open

    def lines():
        with opener(source, "rb") as f:
            for line in f:
                yield line if line.endswith(b"\n") else line + b"\n"

    return write_generated(track_dir, lines(), {"converted-from": str(source), "generated": None})
