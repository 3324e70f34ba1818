"""Keep elastic-transport's per-request log from costing CPU in Rally's workers when nothing logs it: Rally 2.13's
re-created actor loggers lose the library's ``propagate = False`` on ``elastic_transport.node``, so every body is
decoded and formatted only to be dropped. :func:`restore` puts it back unless DEBUG is asked for."""

from __future__ import annotations

import logging

LOGGER = "elastic_transport.node"


def restore(logger: logging.Logger | None = None) -> None:
    logger = logger or logging.getLogger(LOGGER)
    if not logger.isEnabledFor(logging.DEBUG):
        logger.propagate = False
