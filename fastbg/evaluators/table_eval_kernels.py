"""The positions evaluated without a net: finished games (gnubg's EvalOver,
:func:`eval_over`) and bear-offs from the databases, two-sided (:func:`eval_bearoff2`) or
one-sided, as gnubg-nn (:func:`eval_bearoff1`, with its C ``int`` overflow,
:func:`_one_sided_win`) or as GNU Backgammon 1.x (:func:`_eval_bearoff1_1x`, its float32
sums :func:`_os_sum`); :func:`_evaluate_table` picks one by class and evaluation.

Split from :mod:`fastbg.evaluators.net_kernels`: the seam is the class test that sends a
position to the tables instead of a net (classes up to C_BEAROFF1); these kernels read
the bear-off tables (:class:`fastbg.evaluators.net_tables.Bearoff`), never the weights.
"""
import numpy as np
from numba import njit

from fastbg.constants import CHECKERS
from fastbg.evaluators import bearoff_kernels as _bo
from fastbg.evaluators.gnubg_board_kernels import bearoff_index
from fastbg.evaluators.net_tables import (C_BEAROFF2, C_OVER, EVAL_GNUBG, N_OUT, OUT_LBG,
                                          OUT_LG, OUT_WBG, OUT_WG, OUT_WIN)
from fastbg.evaluators.sanity_kernels import sanity_check
from fastbg.jit import HOT, INNER


@njit(**INNER)
def _loser_kind(gb, loser):
    """(gammon, backgammon) as 0/1 for ``loser`` (gnubg row) of a finished game."""
    c = 0
    for i in range(25):
        c += gb[loser, i]
    if c <= 14:
        return 0.0, 0.0        # he bore off a checker: a single game
    for i in range(18, 25):
        if gb[loser, i]:
            return 1.0, 1.0    # still in the winner's home board or on the bar
    return 1.0, 0.0


@njit(**INNER)
def _has_checkers(gb, side):
    for i in range(25):
        if gb[side, i]:
            return True
    return False


@njit(**HOT)
def eval_over(gb, out):
    """gnubg's EvalOver: the game is finished (row 0 is the side not on roll)."""
    if not _has_checkers(gb, np.int64(0)):          # the side not on roll bore off all: roller lost
        g, bg = _loser_kind(gb, np.int64(1))
        out[OUT_WIN] = 0.0
        out[OUT_WG] = 0.0
        out[OUT_WBG] = 0.0
        out[OUT_LG] = g
        out[OUT_LBG] = bg
    elif not _has_checkers(gb, np.int64(1)):        # the roller bore off all
        g, bg = _loser_kind(gb, np.int64(0))
        out[OUT_WIN] = 1.0
        out[OUT_WG] = g
        out[OUT_WBG] = bg
        out[OUT_LG] = 0.0
        out[OUT_LBG] = 0.0


@njit(**HOT)
def eval_bearoff2(gb, bo, out):
    """Two-sided table: win probability only."""
    binom, ts = bo.binom, bo.two_sided
    n_us = bearoff_index(gb[1], binom)
    n_them = bearoff_index(gb[0], binom)
    us = np.float32(ts[n_us, n_them])
    eq = us / np.float32(32767.5) - np.float32(1.0)
    for i in range(N_OUT):
        out[i] = 0.0
    out[OUT_WIN] = np.float64(eq / np.float32(2.0)) + 0.5


@njit(**INNER)
def _gammon_probs(gb, bp0, bp1, bo):
    """gnubg's setGammonProb: (lose gammon, win gammon) for all-home positions."""
    binom, os_, gam = bo.binom, bo.one_sided, bo.gammon
    tot0 = 0
    tot1 = 0
    for i in range(6):
        tot0 += gb[0, i]
        tot1 += gb[1, i]
    g0 = 0.0
    g1 = 0.0
    if tot0 == CHECKERS:
        gp = gam[bearoff_index(gb[0], binom)]
        prob = os_[bp1]
        m0 = gp[0] / 36.0
        m1 = m0 + gp[1] / (36.0 * 36.0)
        m2 = m1 + gp[2] / (36.0 * 36.0 * 36.0)
        g1 = ((prob[1] / 65535.0) + (1 - m0) * (prob[2] / 65535.0)
              + (1 - m1) * (prob[3] / 65535.0) + (1 - m2) * (prob[4] / 65535.0))
    if tot1 == CHECKERS:
        gp = gam[bearoff_index(gb[1], binom)]
        prob = os_[bp0]
        m0 = gp[0] / 36.0
        m1 = m0 + gp[1] / (36.0 * 36.0)
        m2 = m1 + gp[2] / (36.0 * 36.0 * 36.0)
        g0 = ((prob[1] / 65535.0) * (1 - m0) + (prob[2] / 65535.0) * (1 - m1)
              + (prob[3] / 65535.0) * (1 - m2))
    return g0, g1


INT32_LIMIT = 1 << 31


@njit(**INNER)
def _one_sided_win(n, n_opp, os_, wraps):
    """P(the side on roll, index n, finishes no later than the other, index n_opp), as
    gnubg's EvalBearoff1Full computes it: the sum over i <= j of 16-bit products
    p_n[i] p_opp[j], each a C ``int``, into an unsigned 64-bit total.

    A product of 2^31 or more wraps negative and, the true total being below 2^32, drives
    the total below zero, i.e. huge: gnubg then returns a value far above 1 (its sanity
    check clips it to a certain win). Here: suffix sums for the exact total, suffix
    maxima to detect a wrap, which returns 2.0 (every use of the value only compares it
    with 0 and 1, then clips it). Without ``wraps`` (GNU Backgammon 1.x, whose float sum
    does not overflow) the exact value."""
    x = np.int64(0)
    suffix = np.int64(0)
    top = np.int64(0)
    wrap = False
    for i in range(31, -1, -1):
        b = os_[n_opp, i]
        suffix += b
        if b > top:
            top = b
        a = os_[n, i]
        x += a * suffix
        if a * top >= INT32_LIMIT:
            wrap = True
    if wrap and wraps:
        return 2.0
    return np.float64(x) / (65535.0 * 65535.0)


@njit(**HOT)
def eval_bearoff1(gb, bo, out):
    """One-sided distributions, gammons from the first-checker-off table."""
    binom, os_ = bo.binom, bo.one_sided
    n_opp = bearoff_index(gb[0], binom)
    n = bearoff_index(gb[1], binom)
    if n > _bo.N_GAMMON_LIMIT or n_opp > _bo.N_GAMMON_LIMIT:
        lg, wg = _gammon_probs(gb, n_opp, n, bo)
        out[OUT_LG] = lg
        out[OUT_WG] = wg
    else:
        out[OUT_WG] = 0.0
        out[OUT_LG] = 0.0
    out[OUT_WBG] = 0.0
    out[OUT_LBG] = 0.0
    out[OUT_WIN] = _one_sided_win(n, n_opp, os_, True)


# GNU Backgammon 1.x's 1 / 65535 (its compiler multiplies by the float32 reciprocal).
INV_65535 = np.float32(1.0) / np.float32(65535.0)


@njit(**INNER)
def _os_sum(ta, ka, tb, kb, strict):
    """GNU Backgammon 1.x's float32 sum over i and j >= i + strict of a[i] b[j], where
    a = ta[ka] / 65535 and b = tb[kb] / 65535 (distributions of 32 rolls), in the order of
    its compiled BearoffEvalOneSided: for each i, the products of the j from i + strict in
    blocks of four add up in four lanes, the lanes reduce as (l0 + l2) + (l1 + l3) into the
    total, then the last (32 - i - strict) % 4 products one by one (its loop vectorised
    with SSE; equal to gnubg.evaluate bit for bit, tests/test_gnubg_weights.py).

    Zero entries add exact zeros, so the loops stop at the non-zero spans of the rows (a
    distribution has about ten). Written with while loops and called from one place: a
    first version (range loops, a call for each of the three sums and one in the race
    backgammons) added about 2.3 s to the networks' first compile, this one about 1.3 s
    (user time, 2-core AMD EPYC)."""
    last = _bo.MAX_ROLLS - 1
    hi_a = last
    while hi_a > 0 and ta[ka, hi_a] == 0:
        hi_a -= 1
    lo_b = 0
    while lo_b < last and tb[kb, lo_b] == 0:
        lo_b += 1
    hi_b = last
    while hi_b > lo_b and tb[kb, hi_b] == 0:
        hi_b -= 1
    r = np.float32(0.0)
    i = 0
    while i <= hi_a:
        x = np.float32(ta[ka, i]) * INV_65535
        s = i + strict
        end = s + ((last + 1 - s) & ~3)                 # end of the vector blocks
        l0 = np.float32(0.0)
        l1 = np.float32(0.0)
        l2 = np.float32(0.0)
        l3 = np.float32(0.0)
        j = max(s, lo_b)
        while j <= hi_b:
            v = x * (np.float32(tb[kb, j]) * INV_65535)
            if j >= end:
                if j == end:
                    r += (l0 + l2) + (l1 + l3)
                r += v
            else:
                lane = (j - s) & 3
                if lane == 0:
                    l0 += v
                elif lane == 1:
                    l1 += v
                elif lane == 2:
                    l2 += v
                else:
                    l3 += v
            j += 1
        if end > s and j <= end:
            r += (l0 + l2) + (l1 + l3)
        i += 1
    return r


@njit(**INNER)
def _eval_bearoff1_1x(gb, bo, out):
    """GNU Backgammon 1.x's one-sided bear-off (BearoffEvalOneSided with the gammon
    distributions): the side on roll wins when it is off in no more rolls than the other,
    wins a gammon when it is off before the other's first checker, loses one when the
    other is off before its own first checker; no backgammons."""
    binom, os_, gd = bo.binom, bo.one_sided, bo.gammon_dist
    n_opp = bearoff_index(gb[0], binom)
    n = bearoff_index(gb[1], binom)
    on0 = 0
    on1 = 0
    for i in range(25):
        on0 += gb[0, i]
        on1 += gb[1, i]
    # A side with fewer than 15 checkers has its first checker off (roll 0): the other
    # side, which has checkers, cannot be off before it, so that gammon is 0.
    out[OUT_WG] = 0.0
    out[OUT_LG] = 0.0
    gammons = on0 == CHECKERS or on1 == CHECKERS
    lim = _bo.N_GAMMON_LIMIT
    # One call site for the three sums (each call site is optimised and compiled again in
    # every kernel above it: three cost 2 s more on the networks' first call)
    for q in range(3):
        ka, tb, kb = n, os_, n_opp                      # q 0: win
        if q == 1:                                      # win gammon
            if not gammons or n_opp < lim:
                continue
            tb, kb = gd, n_opp - lim
        elif q == 2:                                    # lose gammon
            if not gammons or n < lim:
                continue
            ka, tb, kb = n_opp, gd, n - lim
        out[q + (q == 2)] = _os_sum(os_, ka, tb, kb, q == 2)
    out[OUT_WBG] = 0.0
    out[OUT_LBG] = 0.0


@njit(**INNER)
def _evaluate_table(gb, pc, mode, bo, out):
    """Probabilities of a finished game or a bear-off position (class ``pc`` at most
    C_BEAROFF1) from the rules and the bear-off tables, then gnubg-nn's sanity check
    (GNU Backgammon 1.x, ``mode`` EVAL_GNUBG, checks none of these)."""
    if pc == C_OVER:
        for i in range(N_OUT):
            out[i] = 0.0
        eval_over(gb, out)
    elif pc == C_BEAROFF2:
        eval_bearoff2(gb, bo, out)
    elif mode == EVAL_GNUBG:
        _eval_bearoff1_1x(gb, bo, out)
    else:
        eval_bearoff1(gb, bo, out)
    if mode != EVAL_GNUBG:
        sanity_check(gb, out)
