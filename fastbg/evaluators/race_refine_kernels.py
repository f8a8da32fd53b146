"""gnubg's raceImprovement of the race net's outputs: exact backgammon chances from the
race-backgammon table and the one-sided distributions (:func:`race_bg_prob`) and, in
gnubg-nn's evaluation, certain gammons (:func:`race_improvement`,
:func:`_race_improvement`).

Split from :mod:`fastbg.evaluators.net_kernels` (which re-exports the names others
import): the seam is the step that follows the race net alone, before the sanity check
(:mod:`fastbg.evaluators.sanity_kernels`); it reads the bear-off tables and the one-sided
win of :mod:`fastbg.evaluators.table_eval_kernels`, never the weights.
"""
import numpy as np
from numba import njit

from fastbg.constants import CHECKERS
from fastbg.evaluators import bearoff_kernels as _bo
from fastbg.evaluators.gnubg_board_kernels import bearoff_index
from fastbg.evaluators.input_bit_kernels import _top
from fastbg.evaluators.net_tables import (EVAL_GNUBG, OUT_LBG, OUT_LG, OUT_WBG, OUT_WG, OUT_WIN,
                                          REC_AC0, REC_AC1, REC_BACK0, REC_BACK1, REC_BG,
                                          REC_GAMMON)
from fastbg.evaluators.sanity_kernels import sanity_of_counts
from fastbg.evaluators.table_eval_kernels import _one_sided_win
from fastbg.jit import HOT, INLINED, INNER


@njit(**HOT)
def race_bg_prob(gb, side, binom, os_, rbg, dummy, mode):
    """gnubg's raceBGprob: P(``side`` wins a backgammon) in a race (float32). The bear-off
    arrays come one by one (binomials, one-sided distributions, race-backgammon table):
    passing the whole tuple of tables cost 0.05 us a race position in reference counting.
    More than six checkers to save: a one-sided race, its win chance gnubg-nn's or (mode
    EVAL_GNUBG) without its overflow: GNU Backgammon 1.x's float sum, within its float32
    rounding (:func:`fastbg.evaluators.table_eval_kernels._os_sum` there cost a second
    copy of it in the kernels' compile)."""
    men_home = 0
    for i in range(6):
        men_home += gb[side, i]
    pips_op = 0
    for i in range(22, 17, -1):
        pips_op += gb[1 - side, i] * (i - 17)
    if pips_op == 0:
        return np.float32(0.0)
    lhs = _cdiv(men_home + 3, np.int64(4)) - (1 if side == 1 else 0)
    if not lhs <= _cdiv(pips_op + 2, np.int64(3)):
        return np.float32(0.0)
    for i in range(25):
        dummy[side, i] = gb[side, i]
        dummy[1 - side, i] = 0
    for i in range(6):
        dummy[1 - side, i] = gb[1 - side, 18 + i]
    tot = 0
    for i in range(5):
        tot += dummy[1 - side, i]
    if tot <= 6:
        zone = bearoff_index(dummy[1 - side], binom)
        k = bearoff_index(gb[side], binom)
        p = np.float32(0.0)
        scale = np.uint64(36) if side == 0 else np.uint64(1)
        for j in range(1 - side, _bo.RBG_ROLLS):
            s = np.uint64(0)
            scale *= np.uint64(36)
            for i in range(1, j + side + 1):
                s += np.uint64(os_[k, i])
            p += np.float32(rbg[zone, j]) / np.float32(scale) * np.float32(s)
        return np.float32(np.float64(p) / 65535.0)
    # More than six checkers to save: the escape as a one-sided bear-off race.
    n_opp = bearoff_index(dummy[0], binom)
    n = bearoff_index(dummy[1], binom)
    win = np.float32(_one_sided_win(n, n_opp, os_, mode != EVAL_GNUBG))
    return win if side == 1 else np.float32(np.float64(1.0) - win)


@njit(**INNER)
def _cdiv(a, b):
    """C integer division (truncates toward zero)."""
    q = abs(a) // b
    return q if a >= 0 else -q


@njit(**HOT)
def race_improvement(gb, out, bo, dummy, mode):
    """gnubg's raceImprovement: exact race backgammons, certain gammons (mode EVAL_GNUBG:
    GNU Backgammon 1.x's EvalRaceBG, the backgammons alone)."""
    _race_improvement(gb, out, bo.binom, bo.one_sided, bo.race_bg, dummy, mode)


@njit(**INNER)
def _race_improvement(gb, out, binom, os_, rbg, dummy, mode):
    """gnubg's raceImprovement: exact race backgammons, certain gammons (mode EVAL_GNUBG:
    GNU Backgammon 1.x's EvalRaceBG, the backgammons alone)."""
    men0 = 0
    men1 = 0
    for i in range(22, -1, -1):
        men0 += gb[0, i]
        men1 += gb[1, i]
    g_possible = men0 == CHECKERS       # the side on roll can win a gammon
    og_possible = men1 == CHECKERS      # ... or lose one
    bg_possible = False
    obg_possible = False
    if og_possible:
        for i in range(23, 17, -1):
            if gb[1, i] > 0:
                obg_possible = True
                break
    if g_possible:
        for i in range(23, 17, -1):
            if gb[0, i] > 0:
                bg_possible = True
                break
    if bg_possible or obg_possible:
        side = 1 if bg_possible else 0
        pr = race_bg_prob(gb, side, binom, os_, rbg, dummy, mode)
        _exact_backgammons(out, side, pr)
    if (g_possible or og_possible) and mode != EVAL_GNUBG:
        side = 1 if g_possible else 0
        tot_pip = 0
        for i in range(23):
            tot_pip += (i + 1) * gb[side, i]
        n_cross = 0
        for k in range(3, 0, -1):
            p = 6 * k + 5
            for i in range(6):
                n_cross += k * gb[1 - side, p - i]
        if _gammon_certain(side, men1 if side else men0, tot_pip, n_cross):
            _set_certain_gammon(out, side)


@njit(**INLINED)
def race_record(gb, s0, s1, binom, os_, rbg, dummy, mode, rec, bg_prob, slot):
    """What :func:`_race_improvement` (gnubg-nn's, mode EVAL_GNUBG_NN) and
    :func:`fastbg.evaluators.sanity_kernels.sanity_check` will do to the outputs of race
    board ``gb``, worked out from the board alone, before the net's outputs exist:
    rec[slot] = (checkers and back points of both sides for the sanity check, the side
    whose backgammon chance is exact plus one (0: none), the side with a certain gammon
    plus one (0: none)), bg_prob[slot] = that backgammon chance. :func:`apply_race_record`
    then finishes the outputs, the same bits as those two.

    The batch kernel calls it while the board is loaded and its sides' summaries ``s0``,
    ``s1`` (:func:`fastbg.evaluators.input_bit_kernels._side_summary`) are at hand: the
    counts come from them, not from passes over the points, and the board is not built
    again for the outputs."""
    rec[slot, REC_AC0] = s0[4]
    rec[slot, REC_AC1] = s1[4]
    rec[slot, REC_BACK0] = max(_top(s0[0]), 0)
    rec[slot, REC_BACK1] = max(_top(s1[0]), 0)
    # checkers on points 0..22 (raceImprovement's count), each side
    men0 = s0[4] - gb[0, 23] - gb[0, 24]
    men1 = s1[4] - gb[1, 23] - gb[1, 24]
    g_possible = men0 == CHECKERS
    og_possible = men1 == CHECKERS
    # a checker on points 18..23: the summaries' last count
    bg_possible = g_possible and s0[6] > 0
    obg_possible = og_possible and s1[6] > 0
    rec[slot, REC_BG] = 0
    if bg_possible or obg_possible:
        side = 1 if bg_possible else 0
        bg_prob[slot] = race_bg_prob(gb, side, binom, os_, rbg, dummy, mode)
        rec[slot, REC_BG] = side + 1
    rec[slot, REC_GAMMON] = 0
    if (g_possible or og_possible) and mode != EVAL_GNUBG:
        side = 1 if g_possible else 0
        sm = s1 if side else s0
        # pips of points 0..22: sum of (i + 1) x checkers over 0..24, less 23 and 24
        tot_pip = sm[5] + sm[4] - 24 * gb[side, 23] - 25 * gb[side, 24]
        n_cross = 0
        for i in range(6, 24):
            n_cross += (i // 6) * gb[1 - side, i]
        if _gammon_certain(side, men1 if side else men0, tot_pip, n_cross):
            rec[slot, REC_GAMMON] = side + 1


@njit(**INNER)
def apply_race_record(out, rec, bg_prob, slot):
    """:func:`_race_improvement` then :func:`fastbg.evaluators.sanity_kernels.sanity_check`
    of a race position's outputs ``out``, from its :func:`race_record`."""
    code = rec[slot, REC_BG]
    if code:
        side = code - 1
        pr = bg_prob[slot]
        _exact_backgammons(out, side, pr)
    code = rec[slot, REC_GAMMON]
    if code:
        _set_certain_gammon(out, code - 1)
    sanity_of_counts(out, rec[slot, REC_AC0], rec[slot, REC_AC1], rec[slot, REC_BACK0],
                     rec[slot, REC_BACK1])


@njit(**INLINED)
def _exact_backgammons(out, side, pr):
    """raceImprovement's backgammon chance ``pr`` of ``side`` (1: the side on roll wins
    it, 0: loses it) into ``out``: the backgammon set (0 when ``pr`` is not positive),
    the gammon raised to it."""
    if pr > 0.0:
        if side == 1:
            out[OUT_WBG] = pr
            if np.float32(out[OUT_WG]) < np.float32(out[OUT_WBG]):
                out[OUT_WG] = out[OUT_WBG]
        else:
            out[OUT_LBG] = pr
            if np.float32(out[OUT_LG]) < np.float32(out[OUT_LBG]):
                out[OUT_LG] = out[OUT_LBG]
    else:
        if side == 1:
            out[OUT_WBG] = 0.0
        else:
            out[OUT_LBG] = 0.0


@njit(**INLINED)
def _gammon_certain(side, men, tot_pip, n_cross):
    """raceImprovement's certain-gammon test for ``side``, from board row ``side``'s
    checkers ``men`` and pips ``tot_pip`` on points 0..22 and row ``1 - side``'s crossings
    ``n_cross`` (k a checker in the k-th quarter above the home board): the rolls the
    saver needs at most against those the other side needs at least. Shared by the
    reference (:func:`_race_improvement`) and the batch path (:func:`race_record`)."""
    saver_at_most = 1 + n_cross // 4
    op_at_least = max((men + 1) // 2, (tot_pip + 2) // 3)
    return op_at_least < saver_at_most + side


@njit(**INLINED)
def _set_certain_gammon(out, side):
    """A certain gammon for ``side`` (1: the side on roll wins it, 0: loses it) into
    ``out``: the gammon certain, the game's winner certain."""
    out[OUT_WG if side else OUT_LG] = 1.0
    out[OUT_WIN] = 1.0 if side else 0.0

