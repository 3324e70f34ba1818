"""Bulk bodies the runners have already built go to the wire as they are.

elasticsearch-py's client (elastic-transport) serializes every request body by its content type, and its NDJSON
serializer copies a body given as bytes twice (into a ``bytearray``, then back into ``bytes``) only to make sure it
ends with a newline. The pack's bulk bodies always do (``runners/writing/bulk_bodies.py``), and are megabytes each: py-spy put
9 % of Rally's worker in those two copies during the raw reindex. :func:`pass_built_bodies` wraps the client's NDJSON
serializers so that such a body is handed on untouched; anything else (text, a list of lines, bytes without the final
newline) still goes through the client's own serializer, so the bytes on the wire are the same either way.
"""

from __future__ import annotations


class BuiltBodies:
    """A client serializer that passes bytes ending in a newline through and leaves everything else to ``inner``."""

    def __init__(self, inner):
        self.inner = inner
        self.mimetype = getattr(inner, "mimetype", None)

    def dumps(self, data):
        if type(data) is bytes and data.endswith(b"\n"):
            return data
        return self.inner.dumps(data)

    def loads(self, data):
        return self.inner.loads(data)


def pass_built_bodies(es) -> None:
    """Wrap the NDJSON serializers of ``es``'s transport (once; a client without elastic-transport's serializer
    collection, e.g. opensearch-py's, is left as it is)."""
    collection = getattr(getattr(es, "transport", None), "serializers", None)
    serializers = getattr(collection, "serializers", None)
    if not isinstance(serializers, dict):
        return
    for mimetype, serializer in serializers.items():
        if "ndjson" in mimetype and not isinstance(serializer, BuiltBodies):
            serializers[mimetype] = BuiltBodies(serializer)
