"""Small helpers to read operation parameters with errors that name the parameter."""

from __future__ import annotations


class ParameterError(ValueError):
    pass


def positive_int(params: dict, key: str, operation: str, default: int | None = None) -> int:
    value = params.get(key, default)
    if value is None:
        raise ParameterError(f"operation [{operation}] needs the parameter [{key}]")
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise ParameterError(f"operation [{operation}]: [{key}] must be a positive integer, got {value!r}")
    try:
        number = int(value)
    except ValueError:
        raise ParameterError(f"operation [{operation}]: [{key}] must be a positive integer, got {value!r}") from None
    if number < 1:
        raise ParameterError(f"operation [{operation}]: [{key}] must be a positive integer, got {value!r}")
    return number


def one_of(params: dict, key: str, operation: str, choices: tuple, default=None):
    value = params.get(key, default)
    if value not in choices:
        raise ParameterError(f"operation [{operation}]: [{key}] must be one of {', '.join(map(str, choices))}; got {value!r}")
    return value


def non_negative_number(params: dict, key: str, operation: str, default: float) -> float:
    value = params.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ParameterError(f"operation [{operation}]: [{key}] must be a number >= 0, got {value!r}")
    try:
        number = float(value)
    except ValueError:
        raise ParameterError(f"operation [{operation}]: [{key}] must be a number >= 0, got {value!r}") from None
    if not number >= 0:
        raise ParameterError(f"operation [{operation}]: [{key}] must be a number >= 0, got {value!r}")
    return number
