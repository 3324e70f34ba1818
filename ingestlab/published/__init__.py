"""Published figures of the studies, as data files beside this module (one per study)."""

import json
from importlib import resources


def load(study: str) -> dict:
    return json.loads(resources.files(__package__).joinpath(f"{study}.json").read_text())
