"""Every track, as rendered, is valid against Rally's own track schema (what `esrally race` and `esrally info` check
first): an operation parameter Rally reserves (``clients`` is an object there) is caught here, not in a race."""
import json
from importlib import resources

import jsonschema
import pytest

from ingestlab import paths
from ingestlab.rally import trackinfo

TRACKS = ["posts", "refresh", "dvf", "wikipedia", "eventdata", "geonames", "pmc"]


@pytest.mark.parametrize("track", TRACKS)
def test_the_rendered_track_fits_rallys_schema(track):
    schema = json.loads(resources.files("esrally").joinpath("resources/track-schema.json").read_text())
    jsonschema.validate(trackinfo.load(paths.TRACKS_DIR / track).rendered, schema)
