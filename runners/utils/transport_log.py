"""Keep elastic-transport's per-request log from costing CPU in Rally's workers when nothing logs it.

elastic-transport builds its request log (every request body and response decoded to text) whenever its logger
``elastic_transport.node`` has handlers, and sets ``propagate = False`` on it so that it has none unless asked
for. Rally 2.13 re-creates its actors' loggers (``esrally.log.post_configure_actor_logging``) and that copy loses
``propagate = False``: the logger then reaches the actor's root handler, so each body and each response is
decoded, formatted and dropped at Rally's WARNING level. In the raw reindex runner that was a fifth of the
worker's CPU (py-spy). :func:`restore` puts back what the library intends; with Rally's logging.json set to
DEBUG for ``elastic_transport`` the requests are logged as before."""

from __future__ import annotations

import logging

LOGGER = "elastic_transport.node"


def restore(logger: logging.Logger | None = None) -> None:
    logger = logger or logging.getLogger(LOGGER)
    if not logger.isEnabledFor(logging.DEBUG):
        logger.propagate = False
