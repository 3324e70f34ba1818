"""What the whole suite shares: no test writes a ledger entry (ingestlab.ledger) into the checkout it runs from."""
import os


def pytest_configure(config):
    os.environ["INGESTLAB_LEDGER"] = "off"  # the commands the tests run inherit it
