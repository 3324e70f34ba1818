"""``ingestlab redline``: the highest indexing rate a cluster sustains while its indexing latency keeps a target:
:mod:`target` reads the target, :mod:`search` decides which step to probe next, :mod:`probe` races and judges one,
:mod:`run` warms the cluster and drives the search, :mod:`report` prints and draws the result."""
