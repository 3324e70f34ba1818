"""Bulk bodies the runners have already built go to the wire as they are: elastic-transport's NDJSON serializer copies
a bytes body twice only to make sure it ends with a newline, which the pack's bodies always do. Anything else still
goes through the client's own serializer, so the bytes on the wire are the same either way.
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
    """Wrap the NDJSON serializers of ``es``'s transport, once (a client without elastic-transport's is left alone)."""
    collection = getattr(getattr(es, "transport", None), "serializers", None)
    serializers = getattr(collection, "serializers", None)
    if not isinstance(serializers, dict):
        return
    for mimetype, serializer in serializers.items():
        if "ndjson" in mimetype and not isinstance(serializer, BuiltBodies):
            serializers[mimetype] = BuiltBodies(serializer)
