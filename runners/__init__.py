"""Custom Rally extensions of ingestlab, grouped by Rally's extension points (installed as ``ingestlab.runners``).

- :mod:`.registration`: what a track's ``track.py`` calls (one function per kind of track);
- :mod:`.operations`: the runners, one module per ``operation-type``;
- :mod:`.param_sources`: their parameter sources, one module of the same name each;
- :mod:`.track_processors`: what runs when a track loads (its corpus made or checked);
- :mod:`.writing`: the write path the runners share (corpus files and scroll pages into bodies, retries, counts);
- :mod:`.utils`: parameters, failures, runner statistics, timing, workers' names and logs;
- :mod:`.compat`: every touch of esrally's and opensearch-benchmark's internals and clients.
"""
