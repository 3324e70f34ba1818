"""``ingestlab redline``: the highest indexing rate a cluster sustains while its indexing latency keeps a target.

A search over the offered rate (Rally's ``target-throughput`` on the bulk task of a track's ``redline`` challenge):
:mod:`target` reads the latency target, :mod:`search` decides which rate to probe next and what the probes add up
to, :mod:`probe` races one step and judges it, :mod:`run` provisions or finds the cluster, warms it and drives the
search, and :mod:`report` prints the result and draws latency against offered rate."""
