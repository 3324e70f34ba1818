"""A large generated corpus made in parts, in parallel, then joined in order: the same file as one pass makes, since each
document is a function of its number and the seed. Each part runs as ``python -m ingestlab.corpus.parts GENERATOR SEED
START COUNT OUT`` (a fresh interpreter: nothing of the caller, a Rally actor say, is inherited), one per core at a time.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

from ingestlab.corpus import geonames
from ingestlab.corpus.files import CorpusFile, CorpusWriter
from ingestlab.errors import IngestlabError

JOIN_BLOCK = 8 << 20


def _wikipedia(out: Path, start: int, count: int, seed: int) -> int:
    from ingestlab.corpus.wikipedia import convert, generate  # heavy: lxml and mimesis, only for Wikipedia parts

    dump = out.with_suffix(".xml")
    generate.write(dump, generate.WikiGenerator(seed=seed).pages(count, first=start))
    try:
        return convert.write_documents(dump, out)
    finally:
        dump.unlink(missing_ok=True)


def _geonames(out: Path, start: int, count: int, seed: int) -> int:
    made = 0
    with open(out, "wb") as f:
        for line in geonames.documents(count, first=start):
            f.write(line)
            made += 1
    return made


PART = {"wikipedia": (_wikipedia, 250_000, True), "geonames": (_geonames, 2_000_000, False)}  # part maker, size, action lines


def parts_of(generator: str, docs: int, size: int | None = None) -> list[tuple[int, int]]:
    """(start, count) of each part of ``size`` (default: the generator's); one part where the corpus is small."""
    size = size or PART[generator][1]
    return [(start, min(size, docs - start)) for start in range(0, docs, size)] or [(0, 0)]


def make(
    target: Path,
    generator: str,
    docs: int,
    seed: int,
    source: dict,
    one_k: bool,
    log: Callable[[str], None],
    workers: int | None = None,
    part_docs: int | None = None,
) -> CorpusFile:
    """Make ``target`` from parts of ``part_docs`` (default: the generator's) made by up to ``workers`` processes."""
    parts = parts_of(generator, docs, part_docs)
    workers = max(1, min(workers or os.cpu_count() or 1, len(parts)))
    started = time.monotonic()
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f".{target.stem}-parts-", dir=target.parent) as tmp:
        outs = [Path(tmp) / f"part-{i:04d}.json" for i in range(len(parts))]
        pending = list(zip(range(len(parts)), parts, outs))
        running: list[tuple[int, subprocess.Popen]] = []
        done = 0
        try:
            while pending or running:
                while pending and len(running) < workers:
                    i, (start, count), out = pending.pop(0)
                    cmd = [sys.executable, "-m", "ingestlab.corpus.parts", generator, str(seed), str(start), str(count), str(out)]
                    running.append((i, subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)))
                i, proc = running.pop(0)
                stdout, stderr = proc.communicate()
                if proc.returncode != 0:
                    raise IngestlabError(
                        f"part {i + 1} of {len(parts)} of {target.name} failed (exit {proc.returncode}): "
                        f"{stderr.decode(errors='replace')[-800:]}"
                    )
                if int(stdout.split()[-1]) != parts[i][1]:
                    raise IngestlabError(f"part {i + 1} of {target.name} made {stdout.decode().strip()} documents, not {parts[i][1]}")
                done += parts[i][1]
                log(
                    f"[ingestlab] {target.name}: part {i + 1} of {len(parts)} made ({done:,} of {docs:,} documents, "
                    f"{time.monotonic() - started:,.0f} s, {workers} at a time)"
                )
        finally:
            for _, proc in running:
                proc.kill()
                proc.wait()
        with CorpusWriter(target, one_k=one_k, action_lines=PART[generator][2]) as writer:
            for (_, count), out in zip(parts, outs):
                _join(writer, out, count)
            return writer.commit(source)


def _join(writer: CorpusWriter, part: Path, docs: int) -> None:
    per_doc = 2 if writer.action_lines else 1
    with open(part, "rb") as f:
        written = 0
        rest = b""
        while block := f.read(JOIN_BLOCK):
            block = rest + block
            cut = block.rfind(b"\n") + 1
            lines = block[:cut].count(b"\n")
            whole = lines - lines % per_doc  # never split a document from its action line
            if whole < lines:
                cut = _after_line(block, whole)
            writer.write_block(block[:cut], whole // per_doc)
            written += whole // per_doc
            rest = block[cut:]
        if rest or written != docs:
            raise IngestlabError(f"{part}: {written:,} documents, not {docs:,}" + (" (it ends inside a line)" if rest else ""))


def _after_line(block: bytes, lines: int) -> int:
    position = -1
    for _ in range(lines):
        position = block.index(b"\n", position + 1)
    return position + 1


def main() -> int:
    generator, seed, start, count, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), Path(sys.argv[5])
    print(PART[generator][0](out, start, count, seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
