"""Peak memory of each streaming converter and generator, at 1× and 10× its input.

Each measurement runs in a child process of its own (``python -m ingestlab.bench.memory KIND N SOURCE OUT``), which
reports its peak resident set size as the kernel kept it (``VmHWM`` of its own address space: the parent's memory,
which ``wait4``'s ``ru_maxrss`` would carry over from the fork, and the making of the input files are not in it).
A flat peak (about the same at 10×) is what streaming means.
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

# kind: (what N counts, N at 1×)
KINDS = {
    "posts-generator": ("docs", 100_000),
    "eventdata-generator": ("docs", 200_000),
    "dvf-etalab-converter": ("rows", 100_000),
    "dvf-official-converter": ("rows", 100_000),
    "wikipedia-converter": ("pages", 20_000),
}


def _prepare(kind: str, n: int, tmp: Path) -> Path:
    """The input a converter reads (made in the parent, outside the measured child); generators read none."""
    from ingestlab.bench import loadbench

    if kind.startswith("dvf-"):
        from ingestlab.corpus.dvf import reference

        return loadbench.dvf_input(tmp, kind.split("-")[1], n, reference.load_communes())
    if kind == "wikipedia-converter":
        return loadbench.wikipedia_input(tmp / "jawiki.xml", n)
    return tmp / "none"


def _run(kind: str, n: int, source: Path, out: Path) -> int:
    """In the child: stream N documents of ``kind`` to ``out`` (generators) or convert ``source`` (converters)."""
    if kind == "posts-generator":
        from ingestlab.corpus.files import write_corpus
        from ingestlab.corpus.posts import PostsGenerator

        return write_corpus(out, PostsGenerator().lines(n)).documents
    if kind == "eventdata-generator":
        from ingestlab.runners.eventdata_source import EventdataGenerator

        generator, made = EventdataGenerator(1), 0
        with open(out, "wb") as f:
            while made < n:  # as the parameter source does: one bulk of documents at a time
                batch = generator.documents(min(1000, n - made))
                f.write(b"\n".join(batch) + b"\n")
                made += len(batch)
        return made
    if kind.startswith("dvf-"):
        from ingestlab.corpus.dvf import convert

        result = convert.convert([source], out, compress=False)
        return result.documents + result.skipped.count
    if kind == "wikipedia-converter":
        from ingestlab.corpus.wikipedia import convert

        return convert.convert(source, out / "wikipedia.json").documents
    raise ValueError(f"unknown kind {kind!r}; known: {', '.join(KINDS)}")


def peak_rss_mib(kind: str, n: int, tmp: Path) -> float:
    source = _prepare(kind, n, tmp)
    proc = subprocess.run([sys.executable, "-m", "ingestlab.bench.memory", kind, str(n), str(source), str(tmp / f"out-{n}")],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{kind} with {n} failed (exit {proc.returncode}): {proc.stderr[-1000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])["peak_rss_kib"] / 1024


def _own_peak_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise RuntimeError("no VmHWM in /proc/self/status (Linux only)")


def measure(kinds=None, scale: int = 10, base: int | None = None) -> dict:
    """Peak RSS in MiB at 1× and ``scale``× for each kind (default: all), 1× being ``base`` or the kind's own size."""
    figures = {}
    for kind in kinds or KINDS:
        unit, n = KINDS[kind]
        n = base or n
        row = {"unit": unit}
        for factor in (1, scale):
            with tempfile.TemporaryDirectory(prefix="ingestlab-memory-") as tmp:
                row[f"{factor}x"] = {unit: n * factor, "peak_rss_mib": round(peak_rss_mib(kind, n * factor, Path(tmp)), 1)}
        row["growth"] = round(row[f"{scale}x"]["peak_rss_mib"] / row["1x"]["peak_rss_mib"], 2)
        figures[kind] = row
    return figures


if __name__ == "__main__":
    kind, n, source, out = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4])
    made = _run(kind, n, source, out)
    if made != n and not kind.startswith("wikipedia"):
        sys.exit(f"{kind}: made {made} of {n}")
    print(json.dumps({"made": made, "peak_rss_kib": _own_peak_kib()}))
