"""Small argument checks shared by the formulas (errors are :class:`~course.errors.ParameterError`)."""

from __future__ import annotations

from numbers import Real
from typing import Any

from ..errors import ParameterError


def check_count(name: str, value: Any, *, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ParameterError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return value


def check_nonneg(name: str, value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, Real) or not value >= 0:
        raise ParameterError(f"{name} must be a number >= 0, got {value!r}")
    return value
