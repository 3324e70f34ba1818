"""The pack's developers' tools: the ledger of the pack's measured runs (``devtools.ledger``), the docs renderer
(``devtools.docs``) and the pack's measurements of itself (``devtools.bench``: its overhead beside a minimal client,
its load side alone, the redline search against a dense scan, simulations of the nightly's rules, dose and summed
calibrations).

Run from a checkout by the pack's developers and its CI (``make docs``, ``python -m devtools.ledger …``,
``python -m devtools.bench …``); it is not installed, and nothing in ``ingestlab/`` or ``runners/`` imports it: it
imports them."""
