"""Custom Rally runners and parameter sources of ingestlab, one module each.

Installed as ``ingestlab.runners`` so that every track's thin ``track.py`` imports the
same tested code.
"""
