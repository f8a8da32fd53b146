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
from fastbg.evaluators.net_tables import EVAL_GNUBG, OUT_LBG, OUT_LG, OUT_WBG, OUT_WG, OUT_WIN
from fastbg.evaluators.table_eval_kernels import _one_sided_win
from fastbg.jit import HOT, INNER


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
        saver_at_most = 1 + n_cross // 4
        men = men1 if side else men0
        op_at_least = max((men + 1) // 2, (tot_pip + 2) // 3)
        if op_at_least < saver_at_most + side:
            out[OUT_WG if side else OUT_LG] = 1.0
            out[OUT_WIN] = 1.0 if side else 0.0
