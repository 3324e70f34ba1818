"""The nightly run: the studies raced small on one or more cluster setups, their figures kept in a history,
compared with the previous nights (a prediction bound from their own spread, each night one figure) and with the
published studies, drawn as trends with annotations; exit 1 on a regression or a task missing tonight."""

from ingestlab.nightly.history import (
    DROP_LEVEL,
    HEADLINE,
    MIN_DROP,
    NIGHTS_COMPARED,
    NIGHTS_NEEDED,
    annotate,
    history_path,
    open_history,
    previous,
    regressions,
)
from ingestlab.nightly.run import DEFAULT_STUDIES, Setup, run

__all__ = [
    "DROP_LEVEL",
    "HEADLINE",
    "MIN_DROP",
    "NIGHTS_COMPARED",
    "NIGHTS_NEEDED",
    "annotate",
    "history_path",
    "open_history",
    "previous",
    "regressions",
    "DEFAULT_STUDIES",
    "Setup",
    "run",
]
