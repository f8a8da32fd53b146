"""gnubg's board and its class: the interchange board turned into gnubg's ``gb``
int64[2, 25] (:func:`to_gnubg`, :func:`to_gnubg_swapped`, a row of a batch by
:func:`_load_gb`, with both sides' summaries by :func:`board_and_summaries`), a side's
bear-off index (:func:`bearoff_index`) and gnubg's ClassifyPosition (:func:`classify`,
:func:`classify_from`).

Split from :mod:`fastbg.evaluators.net_kernels` (which re-exports the names others
import): the seam is what happens before any evaluation, the board every later step
reads and the class that picks a net or a table; the networks' evaluation, the pruning
nets (:mod:`fastbg.evaluators.prune_kernels`) and the sanity checks all start here.
"""
from numba import config, njit

from fastbg.constants import BAR
from fastbg.evaluators import bearoff_kernels as _bo
from fastbg.evaluators.input_bit_kernels import _side_summary, _top
from fastbg.evaluators.input_kernels import _board_and_summaries_intrinsic
from fastbg.evaluators.net_tables import (C_BEAROFF1, C_BEAROFF2, C_CONTACT, C_CRASHED,
                                          C_OVER, C_RACE)
from fastbg.jit import HOT, INNER


@njit(cache=True, inline="always")
def _fill_gnubg(b, gb, mover_row):
    """gnubg rows from interchange board ``b``: its mover's checkers into row ``mover_row``,
    the opponent's into the other, each in its own numbering (index 24 the bar)."""
    other = 1 - mover_row
    for j in range(24):
        v = b[j + 1]
        gb[mover_row, j] = v if v > 0 else 0
        w = -b[24 - j]
        gb[other, j] = w if w > 0 else 0
    gb[mover_row, 24] = b[BAR]
    gb[other, 24] = -b[0]


@njit(**HOT)
def to_gnubg(b, gb):
    """Interchange board (player on roll) -> gnubg's gb[2, 25] (row 1 on roll)."""
    _fill_gnubg(b, gb, 1)


@njit(**HOT)
def to_gnubg_swapped(b, gb):
    """Interchange board seen from the mover -> gnubg's board with the *other* side on roll."""
    _fill_gnubg(b, gb, 0)


@njit(**HOT)
def bearoff_index(row, binom):
    """gnubg's PositionBearoff of points 1..6 of one side (row[0..5])."""
    return _bo.position_index(row, binom)


@njit(**HOT)
def classify(gb, binom):
    """gnubg's ClassifyPosition."""
    n_opp_back = -1
    for i in range(24, -1, -1):
        if gb[0, i]:
            n_opp_back = i
            break
    n_back = -1
    for i in range(24, -1, -1):
        if gb[1, i]:
            n_back = i
            break
    if n_back < 0 or n_opp_back < 0:
        return C_OVER
    if n_back + n_opp_back > 22:
        for side in range(2):
            tot = 0
            for i in range(25):
                tot += gb[side, i]
            if _crashed_side(gb, side, tot):
                return C_CRASHED
        return C_CONTACT
    return _class_without_contact(gb, n_back, n_opp_back, binom)


@njit(**HOT)
def classify_from(gb, s0, s1, binom):
    """:func:`classify` from the sides' :func:`_side_summary` ``s0`` and ``s1`` (rows 0
    and 1 of ``gb``): the rearmost checkers are their occupied masks' top bits and the
    checker counts their totals, no pass over the points."""
    n_opp_back = _top(s0[0])
    n_back = _top(s1[0])
    if n_back < 0 or n_opp_back < 0:
        return C_OVER
    if n_back + n_opp_back > 22:
        if _crashed_side(gb, 0, s0[4]) or _crashed_side(gb, 1, s1[4]):
            return C_CRASHED
        return C_CONTACT
    return _class_without_contact(gb, n_back, n_opp_back, binom)


@njit(**INNER)
def _class_without_contact(gb, n_back, n_opp_back, binom):
    """The class of a position whose sides have passed each other, from their rearmost
    checkers: a race while either has a checker beyond its home board, else a bear-off
    (the two-sided database's class while both sides are among its 924 positions of up
    to six checkers on six points, the one-sided database's otherwise)."""
    if n_back > 5 or n_opp_back > 5:
        return C_RACE
    if (bearoff_index(gb[0], binom) >= _bo.N_TWO_SIDED
            or bearoff_index(gb[1], binom) >= _bo.N_TWO_SIDED):
        return C_BEAROFF1
    return C_BEAROFF2


@njit(**INNER)
def _crashed_side(gb, side, tot):
    """gnubg's ClassifyPosition test of one side of ``tot`` checkers: True when it has
    crashed (at most six checkers left, not counting a made 1-point, or a made 1- and
    2-point but one checker, or the 2-point's checkers but one)."""
    if tot <= 6:
        return True
    if gb[side, 0] > 1:
        if tot - gb[side, 0] <= 6:
            return True
        return gb[side, 1] > 1 and 1 + tot - (gb[side, 0] + gb[side, 1]) <= 6
    return tot - (gb[side, 1] - 1) <= 6


@njit(**INNER)
def _load_gb(rows, i, swapped, gb):
    if swapped:
        to_gnubg_swapped(rows[i], gb)
    else:
        to_gnubg(rows[i], gb)


@njit(**INNER)
def _board_and_summaries(rows, i, swapped, gb):
    """:func:`_load_gb` of rows[i] and both rows' :func:`_side_summary` (row 0's, row
    1's). The kernels run :func:`board_and_summaries`, the same by vector lanes from
    one load of the row; this is its reference. With :func:`classify_from`: the load,
    class and summaries of a contact position 25.8 -> 14.9 ns alone (one thread), and
    in the batch kernel, whose later vector reads of the board no longer wait on its
    scalar stores, 1-ply searches 7%, 2-ply 10% and hints 8% faster (paired processes
    in turn, two threads)."""
    _load_gb(rows, i, swapped, gb)
    return _side_summary(gb[0]), _side_summary(gb[1])


if config.DISABLE_JIT:
    board_and_summaries = _board_and_summaries      # no intrinsics without the JIT
else:
    board_and_summaries = _board_and_summaries_intrinsic
