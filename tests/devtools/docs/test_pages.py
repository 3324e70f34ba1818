"""The hand-written pages stay pages a user reads: the README at most 120 lines as rendered, a page of docs/ at most 300,
markup at most a tenth of a page, the track READMEs in one skeleton (devtools/docs/pages.py)."""

from devtools.docs import pages


def test_every_hand_written_page_is_within_its_limits():
    assert pages.problems() == []
