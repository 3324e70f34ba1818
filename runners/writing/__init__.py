"""The write path every writing runner shares: documents read from a corpus file or a scroll page, built into
request bodies, sent (index API or bulk, 429s retried), every one acknowledged, the index recreated and counted."""
