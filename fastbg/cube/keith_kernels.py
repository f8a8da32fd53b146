"""Race cube formulas (money play) as kernels: Keith count, Thorp count, 8-9-12 rule.

Each kernel takes one interchange board ``b`` (int8[26], seen from the player on roll, who
is the one thinking of doubling) and returns plain ints. The rules are exactly those of
docs/cube.md section 4; :mod:`fastbg.cube` wraps them for Python callers.

The decision kernels return a bit set of ``RACE_DOUBLE`` (the player on roll should double
a centred cube), ``RACE_REDOUBLE`` (he should redouble a cube he owns) and ``RACE_TAKE`` (the
opponent should take). Integer arithmetic throughout: no rounding questions at the borders.
"""
import numpy as np
from numba import njit

from fastbg.jit import HOT
from fastbg.constants import BAR, HOME_TOP


MOVER = 0
OPPONENT = 1

RACE_DOUBLE = 1
RACE_REDOUBLE = 2
RACE_TAKE = 4

# Keith: the player on roll adds one seventh of his count, rounded down.
KEITH_ROLL_DIVISOR = 7
KEITH_DOUBLE_MAX = 4      # double if his count exceeds the opponent's by no more than 4
KEITH_REDOUBLE_MAX = 3    # redouble: by no more than 3
KEITH_TAKE_MIN = 2        # take if the doubler's count exceeds the taker's by at least 2

# Thorp, in tenths of a pip so that the leader's +10% stays exact.
THORP_BONUS_ABOVE = 30    # the leader adds 10% if his count is more than 30


# Inlined by numba: callers pass literal points and sides, and each literal argument type
# would otherwise compile a signature of its own (8 of them, 2.4 s of a fresh start).
@njit(cache=True, inline="always")
def side_count(b, side, point):
    """Checkers of ``side`` (MOVER or OPPONENT) on its own ``point`` (1..24; 25 = its bar)."""
    # int64 at once: int8 sums would wrap (numba widens anyway; plain Python would not).
    if side == MOVER:
        v = np.int64(b[point])
    else:
        v = -np.int64(b[BAR - point])    # opponent's point p is entry 25 - p; its bar is b[0]
    return v if v > 0 else np.int64(0)


@njit(**HOT)
def side_pips(b, side):
    """Pip count of ``side``: a checker on its point p needs p pips, on its bar 25."""
    total = 0
    for p in range(1, BAR + 1):
        total += p * side_count(b, side, p)
    return total


@njit(**HOT)
def keith_count(b, side):
    """Keith count of ``side``, before the player on roll's one-seventh.

    Pip count + 2 per checker beyond the first on the 1-point + 1 per checker beyond the first
    on the 2-point + 1 per checker beyond the third on the 3-point + 1 per empty 4-, 5- and
    6-point (Tom Keith, bgonline.org/keith.html).
    """
    c1 = side_count(b, side, 1)
    c2 = side_count(b, side, 2)
    c3 = side_count(b, side, 3)
    count = side_pips(b, side)
    if c1 > 1:
        count += 2 * (c1 - 1)
    if c2 > 1:
        count += c2 - 1
    if c3 > 3:
        count += c3 - 3
    for p in range(4, HOME_TOP + 1):
        if side_count(b, side, p) == 0:
            count += 1
    return count


@njit(**HOT)
def keith_counts(b):
    """``(mover, opponent)`` Keith counts, both before the on-roll adjustment."""
    return keith_count(b, MOVER), keith_count(b, OPPONENT)


@njit(**HOT)
def keith_decision(b):
    """Keith's cube advice for the player on roll: a bit set of RACE_DOUBLE/REDOUBLE/TAKE.

    The roller's count K goes up by K // 7; with d = roller's - opponent's count: double if
    d <= 4, redouble if d <= 3, the opponent takes if d >= 2.
    """
    roller = keith_count(b, MOVER)
    roller += roller // KEITH_ROLL_DIVISOR
    d = roller - keith_count(b, OPPONENT)
    flags = 0
    if d <= KEITH_DOUBLE_MAX:
        flags |= RACE_DOUBLE
    if d <= KEITH_REDOUBLE_MAX:
        flags |= RACE_REDOUBLE
    if d >= KEITH_TAKE_MIN:
        flags |= RACE_TAKE
    return flags


@njit(**HOT)
def thorp_count(b, side):
    """Thorp count of ``side``, before the leader's 10%.

    Pip count + 2 per checker still on the board (bar included) + 1 per checker on the
    1-point - 1 per occupied home-board point (E. O. Thorp; Woodhead, rgb 1991).
    """
    count = side_pips(b, side)
    for p in range(1, BAR + 1):
        count += 2 * side_count(b, side, p)
    count += side_count(b, side, 1)
    for p in range(1, HOME_TOP + 1):
        if side_count(b, side, p) > 0:
            count -= 1
    return count


@njit(**HOT)
def thorp_counts(b):
    """``(mover, opponent)`` Thorp counts, both before the leader's 10%."""
    return thorp_count(b, MOVER), thorp_count(b, OPPONENT)


@njit(**HOT)
def thorp_decision(b):
    """Thorp's advice for the player on roll (the "leader"): bit set of RACE_DOUBLE/REDOUBLE/TAKE.

    L = roller's count, plus 10% (not rounded) if it is more than 30; T = opponent's count.
    Double if T > L - 2, redouble if T > L - 1, the opponent passes if T > L + 2 (so takes
    at exactly L + 2). Compared in tenths of a pip: 10 T against 10 L or 11 L.
    """
    lead = thorp_count(b, MOVER)
    lead10 = 11 * lead if lead > THORP_BONUS_ABOVE else 10 * lead
    trail10 = 10 * thorp_count(b, OPPONENT)
    flags = 0
    if trail10 > lead10 - 20:
        flags |= RACE_DOUBLE
    if trail10 > lead10 - 10:
        flags |= RACE_REDOUBLE
    if trail10 <= lead10 + 20:
        flags |= RACE_TAKE
    return flags


@njit(**HOT)
def eight_nine_twelve_decision(b):
    """The 8-9-12 rule for the player on roll: bit set of RACE_DOUBLE/REDOUBLE/TAKE.

    Raw pip counts, lead = (opponent's - roller's) / roller's: double if lead >= 8%, redouble
    if lead >= 9%, the opponent takes if lead <= 12%. Compared as 100 (T - L) against k L.
    """
    lead = side_pips(b, MOVER)
    trail = side_pips(b, OPPONENT)
    gap100 = 100 * (trail - lead)
    flags = 0
    if gap100 >= 8 * lead:
        flags |= RACE_DOUBLE
    if gap100 >= 9 * lead:
        flags |= RACE_REDOUBLE
    if gap100 <= 12 * lead:
        flags |= RACE_TAKE
    return flags
