"""Custom Rally extensions of ingestlab (installed as ``ingestlab.runners``): :mod:`.registration` is what a track's
``track.py`` calls; :mod:`.compat` holds every touch of esrally's and opensearch-benchmark's internals and clients.
"""
