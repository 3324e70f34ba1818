import logging

import pytest

from ingestlab.runners.utils import transport_log


@pytest.fixture
def loggers():
    """elastic_transport.node under elastic_transport under a root with a handler, as in a Rally actor (built apart
    from this process's logging, which other tests change)."""
    root = logging.RootLogger(logging.INFO)
    root.addHandler(logging.NullHandler())
    parent = logging.Logger("elastic_transport")
    parent.parent = root
    node = logging.Logger(transport_log.LOGGER)
    node.parent = parent
    return node, parent


def test_a_propagating_request_logger_at_warning_is_made_quiet_again(loggers):
    node, parent = loggers
    parent.setLevel(logging.WARNING)  # Rally's logging.json
    node.propagate = True  # what Rally's actor logging set-up leaves
    assert node.hasHandlers()  # elastic-transport would decode every body and response for it
    transport_log.restore(node)
    assert node.propagate is False and not node.hasHandlers()


def test_a_request_logger_someone_set_to_debug_keeps_logging(loggers):
    node, parent = loggers
    parent.setLevel(logging.DEBUG)
    node.propagate = True
    transport_log.restore(node)
    assert node.propagate and node.hasHandlers()
