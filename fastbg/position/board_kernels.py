"""Board kernels: the validity scan of a batch (the wrappers build the error message) and
the race test that the policies, the cube and the evaluators share."""
import numpy as np
from numba import njit

from fastbg.constants import BAR, CHECKERS
from fastbg.jit import HOT


@njit(cache=True)
def first_invalid_row(boards):
    """Index of the first row of ``boards`` (n, 26) int8 that is not a valid board, or -1.

    Checks the same rules as :func:`fastbg.position.board.validate`: bar signs, no entry above 15
    checkers, at most 15 checkers a side. One pass, no temporaries: the numpy form of these
    checks cost about 135 ns per board, more than generating its moves.
    """
    for r in range(boards.shape[0]):
        if boards[r, BAR] < 0 or boards[r, 0] > 0:
            return r
        mover = np.int64(boards[r, BAR])    # int64: sums of int8 could overflow
        opp = -np.int64(boards[r, 0])
        for p in range(1, BAR):
            v = np.int64(boards[r, p])
            if v > 0:
                mover += v
            else:
                opp -= v
        if mover > CHECKERS or opp > CHECKERS:
            return r
    return -1


@njit(**HOT)
def is_race(b):
    """True when every mover checker has passed every opponent checker (no contact).

    The mover's rearmost checker is on the highest occupied index (the bar is 25); the
    opponent's is on the lowest (its bar is 0).
    """
    back = 0
    for p in range(BAR, 0, -1):
        if b[p] > 0:
            back = p
            break
    for p in range(0, back):
        if b[p] < 0:
            return False
    return True
