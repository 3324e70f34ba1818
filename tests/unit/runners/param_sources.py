"""Helpers for unit tests of parameter sources."""


def drain(source) -> list:
    """Every params() a (finite) parameter source yields until it raises StopIteration."""
    out = []
    while True:
        try:
            out.append(source.params())
        except StopIteration:
            return out
