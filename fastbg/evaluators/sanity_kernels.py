"""The sanity checks: gnubg's SanityCheck (:func:`sanity_check`, from board counts
:func:`side_counts` and :func:`sanity_of_counts`) and GNU Backgammon 1.x's
(:func:`_sanity_check_1x`, with its crossings and longest bear-off), which put every
evaluation's five probabilities in order.

Split from :mod:`fastbg.evaluators.net_kernels` (which re-exports the names others
import): the seam is the last step of every evaluation, after a net, a race refinement or
a bear-off table, shared by the networks' kernels and the pruning nets
(:mod:`fastbg.evaluators.prune_kernels`).
"""
import numpy as np
from numba import njit

from fastbg.constants import BAR, CHECKERS, OPP_BAR
from fastbg.evaluators import bearoff_kernels as _bo
from fastbg.evaluators.gnubg_board_kernels import bearoff_index
from fastbg.evaluators.net_tables import OUT_LBG, OUT_LG, OUT_WBG, OUT_WG, OUT_WIN
from fastbg.jit import HOT, INNER


@njit(**INNER)
def _nest_outcomes(out, lose):
    """Gammons at most the wins (win gammons at most the win, lose gammons at most ``lose``,
    the chance of losing), backgammons at most the gammons: the sanity checks' last step
    (the win chance is not changed by it, so ``lose`` may be taken first)."""
    if out[OUT_WG] > out[OUT_WIN]:
        out[OUT_WG] = out[OUT_WIN]
    if out[OUT_LG] > lose:
        out[OUT_LG] = lose
    if out[OUT_WBG] > out[OUT_WG]:
        out[OUT_WBG] = out[OUT_WG]
    if out[OUT_LBG] > out[OUT_LG]:
        out[OUT_LBG] = out[OUT_LG]


@njit(**HOT)
def sanity_check(gb, out):
    """gnubg's SanityCheck, in float32 as gnubg."""
    ac0 = 0
    ac1 = 0
    back0 = 0
    back1 = 0
    for i in range(25):
        if gb[0, i]:
            back0 = i
            ac0 += gb[0, i]
        if gb[1, i]:
            back1 = i
            ac1 += gb[1, i]
    sanity_of_counts(out, ac0, ac1, back0, back1)


@njit(**INNER)
def side_counts(b, swapped, counts):
    """From interchange board ``b``: counts[0..3] = on-board checkers and back point of
    gnubg's side 0 and side 1 (the side on roll is side 1, or side 0 with ``swapped``;
    -1: none), counts[4..7] = their checkers on points 0 and 1 (side 0's then side 1's):
    what :func:`fastbg.evaluators.gnubg_board_kernels.classify` and the sanity check read.
    Without branches on the board (they cost 0.1 us a position, measured)."""
    tm = 0
    to = 0
    km = -1
    ko = -1
    for idx in range(1, 25):
        v = np.int64(b[idx])
        pos = max(v, 0)
        neg = max(-v, 0)
        tm += pos
        to += neg
        km = max(km, idx - 1 if pos > 0 else -1)
        ko = max(ko, 24 - idx if neg > 0 else -1)
    bar = np.int64(b[BAR])
    obar = -np.int64(b[OPP_BAR])
    tm += bar
    to += obar
    km = 24 if bar > 0 else km
    ko = 24 if obar > 0 else ko
    m = 0 if swapped else 1
    counts[2 * m] = tm
    counts[2 * m + 1] = km
    counts[2 * (1 - m)] = to
    counts[2 * (1 - m) + 1] = ko
    counts[4 + 2 * m] = max(np.int64(b[1]), 0)
    counts[5 + 2 * m] = max(np.int64(b[2]), 0)
    counts[4 + 2 * (1 - m)] = max(-np.int64(b[24]), 0)
    counts[5 + 2 * (1 - m)] = max(-np.int64(b[23]), 0)


@njit(**INNER)
def sanity_of_counts(out, ac0, ac1, back0, back1):
    """:func:`sanity_check` from the sides' checkers on the board (ac0: the side not on
    roll's) and back points, without the board (the pruning nets' kernel has no board)."""
    contact = back0 + back1 >= 24
    if ac0 < CHECKERS:
        out[OUT_WG] = 0.0
        out[OUT_WBG] = 0.0
    elif not contact and back0 < 18:
        out[OUT_WBG] = 0.0
    if ac1 < CHECKERS:
        out[OUT_LG] = 0.0
        out[OUT_LBG] = 0.0
    elif not contact and back1 < 18:
        out[OUT_LBG] = 0.0
    if out[OUT_WIN] < 0.0:
        out[OUT_WIN] = 0.0
    elif out[OUT_WIN] > 1.0:
        out[OUT_WIN] = 1.0
    _nest_outcomes(out, np.float32(1.0 - out[OUT_WIN]))
    noise = np.float32(1 / 10000.0)
    for i in range(1, 5):
        if out[i] < noise:
            out[i] = 0.0


@njit(**INNER)
def _crossings(gb, side):
    """GNU Backgammon 1.x's SanityCheck counts of ``side``: (checkers, back point, home
    board crossings left, 1 + crossings left to its home board's edge); a checker in
    quarter q (points 1-6 q = 0 ... bar q = 4) counts q + 1 and q."""
    n = 0
    back = 0
    cross = 0
    gcross = 1
    for i in range(25):
        c = gb[side, i]
        if c:
            back = i
            n += c
            q = min(i // 6, 4)
            cross += (q + 1) * c
            gcross += q * c
    return n, back, cross, gcross


@njit(**INNER)
def _max_turns(gb, side, binom, os_):
    """GNU Backgammon 1.x's MaxTurns: the most rolls the bear-off of ``side`` (all on
    points 1..6) can take, the last non-zero roll of its distribution (-1: none)."""
    k = bearoff_index(gb[side], binom)
    for i in range(_bo.MAX_ROLLS - 1, -1, -1):
        if os_[k, i]:
            return i
    return -1


@njit(**INNER)
def _sanity_check_1x(gb, out, binom, os_):
    """GNU Backgammon 1.x's SanityCheck, in float32 as there. Outside contact it adds to
    :func:`sanity_check`'s rules: a certain win when the side on roll's crossings fit in
    four a turn before the other's longest bear-off (a side not yet home: two turns a
    crossing), a certain loss the other way, certain gammon and "gammon impossible" rules
    from the crossings to the home board's edge; and it keeps gammon chances below 1e-4
    (it zeroes them in contact only)."""
    if out[OUT_WIN] < 0.0:
        out[OUT_WIN] = 0.0
    elif out[OUT_WIN] > 1.0:
        out[OUT_WIN] = 1.0
    ac0, back0, cross0, gcross0 = _crossings(gb, np.int64(0))
    ac1, back1, cross1, gcross1 = _crossings(gb, np.int64(1))
    contact = back0 + back1 >= 24
    turns0 = 0
    turns1 = 0
    if not contact:
        turns0 = _max_turns(gb, np.int64(0), binom, os_) if back0 < 6 else 2 * cross0
        turns1 = _max_turns(gb, np.int64(1), binom, os_) if back1 < 6 else 2 * cross1
        if turns1 == 0:
            turns1 = 1
        if cross0 > 4 * (turns1 - 1):
            out[OUT_WIN] = 1.0                          # certain win
    if ac0 < CHECKERS:
        out[OUT_WG] = 0.0
        out[OUT_WBG] = 0.0
    elif not contact:
        if cross1 > 8 * gcross0:
            out[OUT_WG] = 0.0                           # gammon impossible
        elif gcross0 > 4 * (turns1 - 1):
            out[OUT_WG] = 1.0                           # certain gammon
        if back0 < 18:
            out[OUT_WBG] = 0.0
    if not contact and cross1 > 4 * turns0:
        out[OUT_WIN] = 0.0                              # certain loss
    if ac1 < CHECKERS:
        out[OUT_LG] = 0.0
        out[OUT_LBG] = 0.0
    elif not contact:
        if cross0 > 8 * gcross1 - 4:
            out[OUT_LG] = 0.0
        elif gcross1 > 4 * turns0:
            out[OUT_LG] = 1.0
        if back1 < 18:
            out[OUT_LBG] = 0.0
    # 1.x subtracts in float32 (gnubg-nn rounds a wider difference): the same in all but
    # the last bit, kept as each engine does it
    _nest_outcomes(out, np.float32(1.0) - np.float32(out[OUT_WIN]))
    if contact:
        noise = np.float32(1 / 10000.0)
        for i in range(1, 5):
            if out[i] < noise:
                out[i] = 0.0
