"""The nightly run: the studies raced small on one or more cluster setups, their figures kept in a history,
compared with the previous nights (noise margin from the history's own spread) and with the published
studies, drawn as trends with annotations; exit 1 on a regression beyond the margin or a task missing tonight."""
from ingestlab.nightly.history import (HEADLINE, NIGHTLY_DEFAULT_MARGIN, NIGHTLY_MIN_MARGIN, NIGHTS_COMPARED, annotate,
                                       history_path, open_history, previous, regressions)
from ingestlab.nightly.run import DEFAULT_STUDIES, Setup, run

__all__ = ["HEADLINE", "NIGHTLY_DEFAULT_MARGIN", "NIGHTLY_MIN_MARGIN", "NIGHTS_COMPARED", "annotate", "history_path", "open_history",
           "previous", "regressions", "DEFAULT_STUDIES", "Setup", "run"]
