"""Track processor ``ingestlab-corpora``: a track brings its corpus itself, with plain esrally too.

A document set's ``meta`` says where its documents come from: ``{"ingestlab.generator": …, "ingestlab.seed": …}``,
made on first use (:mod:`ingestlab.corpus.makers`) where Rally looks for it (:func:`generated_target`); or
``{"ingestlab.supplied": "<how to make it>"}``, a file the user made, read from its entry (with
``"ingestlab.converter"``, also the publisher's file as it comes, converted on first use). In ``--test-mode``, what a
track makes on the fly is cut to the 1,000 documents of a ``-1k`` corpus, as Rally cuts every corpus file.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from ingestlab.corpus import makers
from ingestlab.corpus.files import TEST_MODE_DOCS, one_k_path, read_meta
from ingestlab.corpus.makers import declared as spec
from ingestlab.errors import IngestlabError
from ingestlab.runners import compat

LOG = logging.getLogger(__name__)


def find_supplied(file_name: str, data_dirs: list[str]) -> Path | None:
    """The supplied file where Rally would look for it (an absolute name is taken as it is)."""
    for root in data_dirs or ["."]:
        candidate = Path(root) / file_name
        if candidate.is_file():
            return candidate
    return None


def apply_supplied(document_set, found: Path, test_mode: bool) -> None:
    """Count and sizes from the file's entry; in test mode its -1k file, as Rally does for any corpus."""
    entry = read_meta(found)
    if entry is None:
        raise compat.data_error(
            f"{found} has no entry {found.stem}.meta.json beside it (its document count); "
            f"make the corpus again with the command that made it"
        )
    document_set.number_of_documents = entry["document-count"]
    document_set.uncompressed_size_in_bytes = entry.get("uncompressed-bytes")
    document_set.document_file = str(found)
    if getattr(document_set, "document_archive", None):  # Rally read a .gz/.bz2 name as an archive of the file: the file it is
        document_set.document_archive = None
        document_set.compressed_size_in_bytes = None
    if test_mode and entry["document-count"] > TEST_MODE_DOCS:
        document_set.number_of_documents = TEST_MODE_DOCS
        document_set.document_file = str(one_k_path(found))
        document_set.uncompressed_size_in_bytes = None


def convert_supplied(found: Path, converter: str, data_dirs: list[str]) -> Path:
    """A supplied publisher's file, converted on first use (:func:`ingestlab.corpus.makers.convert_supplied`) where a
    generated corpus would go; what cannot be read stops the race with the converter's one line."""
    target = generated_target(data_dirs or [str(found.parent)], makers.converted_name(found))
    try:
        return makers.convert_supplied(found, converter, target, log=_log)
    except IngestlabError as e:
        raise compat.data_error(str(e)) from None


def make_document_set(data_dirs: list[str], file_name: str, docs: int, spec: dict) -> None:
    """Run by Rally's track preparation (on every load-driver host): make the file unless it is there."""
    target = generated_target(data_dirs, file_name)
    if compat.engine() == "osb" and not target.is_file():  # OSB's environment has other generator versions (mimesis 11)
        raise compat.data_error(
            f"{target} is not there: the pack makes its generated corpora in its own environment; run "
            f"`ingestlab osb export DIR --corpora{' --test-mode' if target.name.endswith('-1k.json') else ''}` "
            f"first (`ingestlab race --engine opensearch` makes them itself)"
        )
    makers.make_as_declared(target, docs, spec, log=_log)


def generated_target(data_dirs: list[str], file_name: str) -> Path:
    """Where a generated corpus file goes: where Rally finds it already (its data directories in order), else into
    Rally's data cache (the last), kept there for every later race, or the track's directory when that is not writable."""
    for root in data_dirs:
        if (Path(root) / file_name).is_file():
            return Path(root) / file_name
    for root in reversed(data_dirs):
        if root == data_dirs[-1]:
            try:
                os.makedirs(root, exist_ok=True)  # Rally's data cache for the corpus: made as Rally would
            except OSError:
                continue
        if os.path.isdir(root) and os.access(root, os.W_OK | os.X_OK):
            return Path(root) / file_name
    raise compat.data_error(f"none of {', '.join(data_dirs)} is writable for the generated corpus")


def _log(message: str) -> None:
    LOG.info(message)
    compat.console_info(message.removeprefix("[ingestlab] "))


ON_THE_FLY = {"eventdata": "docs"}  # param source → the parameter that says how many documents it makes


def cut_made_on_the_fly(track) -> None:
    """Test mode: at most 1,000 documents from sources that make them while racing, and their checks expect as many."""
    for challenge in compat.schedules(track):
        for task in challenge.schedule:
            for leaf in task:
                op = leaf.operation
                key = ON_THE_FLY.get(op.param_source) or (
                    "doc-count" if op.param_source == "check-doc-count" and not track.corpora else None
                )
                if key and isinstance(op.params.get(key), int) and op.params[key] > TEST_MODE_DOCS:
                    op.params[key] = TEST_MODE_DOCS


def corpus_tags(track) -> dict:
    """What the race's documents are, as tags on the race: ``corpus:generated`` with the pack's generator(s) and
    seed(s), or ``corpus:supplied``, so that a race of a generated corpus never passes for one of a real corpus."""
    generated, supplied = [], False
    for corpus in track.corpora:
        for document_set in corpus.documents:
            declared = spec(document_set.meta_data)
            if declared.get("generator"):
                generated.append((declared["generator"], declared.get("seed")))
            elif declared.get("supplied"):
                supplied = True
    for challenge in compat.schedules(track):  # documents made while racing
        for task in challenge.schedule:
            for leaf in task:
                if leaf.operation.param_source in ON_THE_FLY:
                    generated.append((leaf.operation.param_source, leaf.operation.params.get("seed", 1)))
    generated = list(dict.fromkeys(generated))
    if generated:
        return {
            "corpus": "generated",
            "generator": "+".join(dict.fromkeys(g for g, _ in generated)),
            "seed": "+".join(dict.fromkeys(str(s) for _, s in generated)),
        }
    return {"corpus": "supplied"} if supplied else {}


class CorpusProcessor(compat.processor_base()):
    def __init__(self):
        self.cfg = None  # Rally sets it when it registers the processor

    def on_after_load_track(self, track) -> None:
        if compat.test_mode(self.cfg):
            cut_made_on_the_fly(track)
        # test mode as a tag too, as `ingestlab race` tags it: a plain `esrally race --test-mode` never passes for a full one
        compat.add_user_tags(self.cfg, {**corpus_tags(track), **({"test-mode": "true"} if compat.test_mode(self.cfg) else {})})
        for corpus in track.corpora:
            for document_set in corpus.documents:
                how = spec(document_set.meta_data).get("supplied")
                if how is None:
                    continue
                data_dirs = compat.data_dirs(self.cfg, track.name, corpus.name)
                converter = spec(document_set.meta_data).get("converter")
                # Rally reads a source-file named .gz or .bz2 as an archive of the name without it: the user named the archive
                named = [
                    n for n in (getattr(document_set, "document_archive", None) if converter else None, document_set.document_file) if n
                ]
                found = next(filter(None, (find_supplied(n, data_dirs) for n in named)), None)
                if found is None:
                    raise compat.data_error(f"corpus file {named[0]} of track {track.name} does not exist; make it with: {how}")
                if converter and read_meta(found) is None:  # the publisher's file itself: converted once, kept
                    found = convert_supplied(found, converter, data_dirs)
                apply_supplied(document_set, found, compat.test_mode(self.cfg))

    def on_prepare_track(self, track, data_root_dir):
        for corpus in track.corpora:
            for document_set in corpus.documents:
                wanted = spec(document_set.meta_data)
                if wanted.get("generator"):
                    yield (
                        make_document_set,
                        {
                            "data_dirs": compat.data_dirs(self.cfg, track.name, corpus.name) or [os.path.join(data_root_dir, corpus.name)],
                            "file_name": document_set.document_file,
                            "docs": document_set.number_of_documents,
                            "spec": wanted,
                        },
                    )

    # opensearch-benchmark calls the same hooks by its own names
    def on_after_load_workload(self, workload, **kwargs):
        return self.on_after_load_track(workload)

    def on_prepare_workload(self, workload, data_root_dir):
        return self.on_prepare_track(workload, data_root_dir)
