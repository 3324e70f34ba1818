"""Every race of the pack's tracks says what its documents are (user tags set while Rally loads the track), so a
race of the pack's generated geonames never passes for one of rally-tracks' real corpus."""
import pytest
from esrally import config
from esrally.track import loader

from ingestlab import paths
from ingestlab.rally import trackinfo
from ingestlab.runners.track_processors.corpora import CorpusProcessor, corpus_tags


def rally_track(name: str, params: dict | None = None):
    """The track as Rally's own reader builds it from the rendered track.json."""
    rendered = trackinfo.load(paths.TRACKS_DIR / name, params).rendered
    return loader.TrackSpecificationReader(track_params=params or {})(name, rendered, str(paths.TRACKS_DIR / name))


@pytest.mark.parametrize("name,generator,seed", [("posts", "posts", "2017"), ("refresh", "posts", "2017"), ("dvf", "dvf", "2020"),
                                                 ("wikipedia", "wikipedia", "2016"), ("geonames", "geonames", "0"),
                                                 ("pmc", "pmc", "2017"), ("eventdata", "eventdata", "1")])
def test_each_track_names_its_generator_and_seed(name, generator, seed):
    assert corpus_tags(rally_track(name)) == {"corpus": "generated", "generator": generator, "seed": seed}


def test_a_supplied_file_is_tagged_as_such(tmp_path):
    assert corpus_tags(rally_track("geonames", {"corpus_file": "documents.json"})) == {"corpus": "supplied"}


def test_the_tags_reach_the_race_record_and_the_users_own_win():
    cfg = config.Config()
    cfg.add(config.Scope.applicationOverride, "race", "user.tags", {"seed": "mine", "study": "x"})
    cfg.add(config.Scope.applicationOverride, "track", "test.mode.enabled", False)
    processor = CorpusProcessor()
    processor.cfg = cfg
    processor.on_after_load_track(rally_track("geonames"))
    assert cfg.opts("race", "user.tags") == {"corpus": "generated", "generator": "geonames", "seed": "mine", "study": "x"}
