"""Argument checks shared by every public wrapper: one implementation each.

Integers are Python or numpy integers, never ``bool`` (``True`` is an ``int`` to Python,
but ``games=True`` is a mistake, not one game). A value that is not an integer raises
:class:`NotAnInteger`, which is both a ``TypeError`` and a ``ValueError`` so that callers
may catch either; a value out of range raises ``ValueError``.
"""
import operator


class NotAnInteger(TypeError, ValueError):
    """An argument that must be an integer is not one."""


def check_int(name, value, lo=None, hi=None, *, none=False):
    """``value`` as a Python int, checked to lie in ``[lo, hi]`` (either bound may be None).

    With ``none=True`` a ``None`` passes through unchanged (an optional limit).

    >>> check_int("games", 5, 1)
    5
    >>> check_int("max_cube", None, 1, none=True) is None
    True
    """
    if value is None and none:
        return None
    if isinstance(value, bool):
        raise NotAnInteger(f"{name} must be an integer{' or None' if none else ''}, "
                           f"got {value!r}")
    try:
        value = operator.index(value)
    except TypeError:
        raise NotAnInteger(f"{name} must be an integer{' or None' if none else ''}, "
                           f"got {value!r}") from None
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        span = f"[{'-inf' if lo is None else lo}, {'inf' if hi is None else hi}]"
        raise ValueError(f"{name} must be in {span}{' or None' if none else ''}, got {value}")
    return value


def check_flag(name, value):
    """``value`` when it is ``True`` or ``False`` (not 0/1, not a string)."""
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return value


def check_choice(name, value, choices):
    """``value`` when it is one of ``choices``."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {sorted(choices, key=repr)}, got {value!r}")
    return value
