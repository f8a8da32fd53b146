"""Cube math: money equities and take points, match equities at a score, race formulas.

Pure Python and numpy, no fastmath (fastmath stays off where equities are computed); the race formulas run the numba kernels of
:mod:`fastbg.cube.keith_kernels`, so the game kernel and this module share one implementation.
Sources are cited per function; the worked numbers are in docs/cube.md.

Probabilities ``p`` are the five cumulative outputs of gnubg-style evaluators, seen from one
player: ``(win, win_gammon, win_backgammon, lose_gammon, lose_backgammon)``, where a gammon
includes backgammons (``win_gammon >= win_backgammon``) and ``lose = 1 - win``. Money
functions take one 5-vector or an array ``(..., 5)``; match functions take one 5-vector.

Cube ownership is said relative to that same player: ``"centred"`` (either may double),
``"owned"`` (he owns it) or ``"unavailable"`` (the opponent owns it); ``"centered"``,
``"mine"`` and ``"opponent"`` are accepted too.

Money equities are per unit of stake ("normalised", as gnubg computes them) unless a
``cube`` argument says otherwise. Match functions work in match-winning chances (MWC) of
the player whose ``p`` and ``away0`` are given ("player 0"); his opponent needs ``away1``.
"""
import collections
import math

import numpy as np

from fastbg.cube import met as _met_module
from fastbg.cube import decision_kernels as _kcube
from fastbg.cube import keith_kernels as _race
from fastbg.position.board_kernels import is_race as _is_race
from fastbg.position.board import validate
from fastbg.validation import check_int

CENTRED = "centred"
OWNED = "owned"
UNAVAILABLE = "unavailable"
# The cube states of the game kernel's money_cubeful (decision_kernels).
_KERNEL_STATE = {CENTRED: 0, OWNED: 1, UNAVAILABLE: 2}
_OWNER_NAMES = {
    "centred": CENTRED, "centered": CENTRED, "center": CENTRED, "centre": CENTRED,
    "owned": OWNED, "mine": OWNED, "own": OWNED,
    "unavailable": UNAVAILABLE, "opponent": UNAVAILABLE,
}

# Tolerance for evaluator output that is consistent up to float32 rounding.
_PROB_TOL = 1e-6

GammonValues = collections.namedtuple(
    "GammonValues", ["win_gammon", "lose_gammon", "win_backgammon", "lose_backgammon"])
GammonValues.__doc__ = """Gammon and backgammon values at a score, per (MWC(win) - MWC(lose)).

win_gammon = (MWC(win gammon) - MWC(win)) / (MWC(win) - MWC(lose)); lose_gammon =
(MWC(lose) - MWC(lose gammon)) / (...); the backgammon values are what a backgammon adds to a
gammon. gnubg's "gammon prices" are twice these. Money play: 0.5 each.
"""


# ------------------------------------------------------------------ input checks

def _probs(p):
    """``p`` as float64 ``(..., 5)``, checked to be consistent cumulative probabilities."""
    a = np.asarray(p, dtype=np.float64)
    if a.ndim < 1 or a.shape[-1] != 5:
        raise ValueError("probabilities are 5 values (win, win_gammon, win_backgammon, "
                         f"lose_gammon, lose_backgammon); got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError("probabilities must be finite")
    w, wg, wbg, lg, lbg = np.moveaxis(a, -1, 0)
    t = _PROB_TOL
    bad = ((a < -t) | (a > 1 + t)).any(axis=-1)
    bad |= (wg > w + t) | (wbg > wg + t) | (lg > 1 - w + t) | (lbg > lg + t)
    if np.any(bad):
        raise ValueError(
            "inconsistent probabilities: need 0 <= win <= 1, win_backgammon <= win_gammon <= "
            "win and lose_backgammon <= lose_gammon <= 1 - win (gammons include backgammons)")
    return a


def _prob_vector(p):
    a = _probs(p)
    if a.shape != (5,):
        raise ValueError(f"match functions take one 5-vector of probabilities, got {a.shape}")
    return a


def _x(x):
    if isinstance(x, bool):
        raise TypeError(f"cube efficiency x must be a number in 0..1, got {x!r}")
    x = float(x)
    if not 0.0 <= x <= 1.0:
        raise ValueError(f"cube efficiency x must lie in 0..1, got {x}")
    return x


def _owner(owner):
    try:
        return _OWNER_NAMES[str(owner).lower()]
    except KeyError:
        raise ValueError(f"cube owner must be 'centred', 'owned' or 'unavailable', "
                         f"got {owner!r}") from None


def _cube(cube):
    c = check_int("cube", cube)
    if c < 1 or c & (c - 1):
        raise ValueError(f"the cube shows a power of two (1, 2, 4, ...), got {c}")
    return c


def _aways(away0, away1):
    a0, a1 = check_int("away0", away0), check_int("away1", away1)
    if a0 < 1 or a1 < 1:
        raise ValueError(f"both players must still need points, got {a0}-away, {a1}-away")
    return a0, a1


def _out(a):
    """Python float/bool for 0-d results, arrays otherwise."""
    a = np.asarray(a)
    return a.item() if a.ndim == 0 else a


# ------------------------------------------------------------------ money play

def equity_of(p):
    """:func:`cubeless_equity` without the checks, for arrays ``(..., 5)`` already known to
    hold probabilities (the drivers' hot paths): the one implementation of the formula.
    The terms are summed left to right in gnubg's order (its Utility), so the last bit
    agrees with what rollouts and the gnubg-nn bridge always computed."""
    return 2.0 * p[..., 0] - 1.0 + p[..., 1] - p[..., 3] + p[..., 2] - p[..., 4]


def swap_sides(p):
    """The same probabilities ``(..., 5)`` seen by the other player: (1 - W, LG, LBG, WG, WBG).

    >>> swap_sides(np.array([0.6, 0.2, 0.05, 0.1, 0.01])).round(12).tolist()
    [0.4, 0.1, 0.01, 0.2, 0.05]
    """
    q = np.asarray(p, dtype=np.float64)[..., [0, 3, 4, 1, 2]].copy()
    q[..., 0] = 1.0 - q[..., 0]
    return q


def swap_difference(d):
    """A difference of two probability vectors seen by the other player (the constant of
    :func:`swap_sides` cancels, so the win entry only changes sign)."""
    return d[..., [0, 3, 4, 1, 2]] * np.array([-1.0, 1.0, 1.0, 1.0, 1.0])


def cubeless_equity(p):
    """Cubeless money equity per unit stake: 2 W - 1 + (WG - LG) + (WBG - LBG).

    gnubg ``Utility`` with gammon price 1 (docs/cube.md section 2), where W, WG, ... are
    the cumulative outputs: a win counts 1, a gammon 2, a backgammon 3.

    >>> round(cubeless_equity([0.6, 0.2, 0.05, 0.1, 0.01]), 12)
    0.34
    """
    return _out(equity_of(_probs(p)))


def average_win_loss(p):
    """``(W, L)``: the average cubeless value of the games won and of the games lost.

    W = 1 + (WG + WBG) / P(win), L = 1 + (LG + LBG) / P(lose), each 1 when there is no such
    game (gnubg ``Cl2CfMoney``; docs/cube.md section 2). Gammon-free: W = L = 1.
    """
    a = _probs(p)
    w, wg, wbg, lg, lbg = np.moveaxis(a, -1, 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        big_w = np.where(w > 0.0, 1.0 + (wg + wbg) / np.where(w > 0.0, w, 1.0), 1.0)
        big_l = np.where(w < 1.0, 1.0 + (lg + lbg) / np.where(w < 1.0, 1.0 - w, 1.0), 1.0)
    return _out(big_w), _out(big_l)


def _win_loss(p_or_wl):
    a = np.asarray(p_or_wl, dtype=np.float64)
    if a.ndim >= 1 and a.shape[-1] == 2:
        big_w, big_l = np.moveaxis(a, -1, 0)
        if np.any(~np.isfinite(a)) or np.any(big_w < 1.0) or np.any(big_l < 1.0):
            raise ValueError(f"average win and loss (W, L) are each at least 1, got {p_or_wl!r}")
        return big_w, big_l
    big_w, big_l = average_win_loss(a)
    return np.asarray(big_w), np.asarray(big_l)


def take_point_money(p_or_wl, x=0.0):
    """Janowski's money take point: TP(x) = (L - 1/2) / (W + L + x/2).

    The taker's least winning chance for a take, from the TAKER's ``p`` or his ``(W, L)``.
    ``x`` is the cube efficiency: 0 dead cube (25% gammon-free), 1 fully live (20%)
    (Janowski 1993; docs/cube.md section 2).

    >>> take_point_money((1, 1)), take_point_money((1, 1), x=1)
    (0.25, 0.2)
    """
    x = _x(x)
    big_w, big_l = _win_loss(p_or_wl)
    return _out((big_l - 0.5) / (big_w + big_l + 0.5 * x))


def cash_point_money(p_or_wl, x=0.0):
    """The doubler's cash point: CP(x) = (L + 1/2 + x/2) / (W + L + x/2) = 1 - opponent's TP(x).

    From the DOUBLER's ``p`` or ``(W, L)``: his winning chance at which the opponent's take
    and pass are worth the same. x = 1 gives gnubg's live cash point (L + 1)/(W + L + 1/2),
    80% gammon-free; x = 0 the dead-cube one, 75%.

    >>> cash_point_money((1, 1), x=1)
    0.8
    """
    x = _x(x)
    big_w, big_l = _win_loss(p_or_wl)
    return _out((big_l + 0.5 + 0.5 * x) / (big_w + big_l + 0.5 * x))


def janowski_equity(p, cube_owner, x, jacoby=False, cube=1):
    """Cubeful money equity from cubeless probabilities: E = E_dead (1 - x) + E_live x.

    gnubg ``Cl2CfMoney`` / ``MoneyLive`` (docs/cube.md section 2). E_dead is the cubeless
    equity; E_live is piecewise linear in P(win) through the points
    centred (0, -L), (TP, -1), (CP, +1), (1, +W); owned (0, -L), (CP, +1), (1, +W);
    unavailable (0, -L), (TP, -1), (1, +W); with TP = (L - 1/2)/(W + L + 1/2) and
    CP = (L + 1)/(W + L + 1/2). ``jacoby`` (centred cube only) makes gammons count as singles:
    E_dead = 2 P(win) - 1 and the outer live segments flat at -1 and +1. Win chances within
    1e-7 of 0 or 1 give the dead equity (as gnubg). The result is multiplied by ``cube``.
    """
    a = _probs(p)
    owner, x, c = _owner(cube_owner), _x(x), _cube(cube)
    jac = bool(jacoby) and owner == CENTRED
    rows = np.ascontiguousarray(a.reshape(-1, 5))
    eq = np.empty(rows.shape[0])
    _kcube.money_cubeful_rows(rows, _KERNEL_STATE[owner], float(x), jac, eq)
    return _out(eq.reshape(a.shape[:-1]) * c)


def cube_decision_money(p, x, owner=CENTRED, jacoby=False):
    """Money cube decision for the player on roll, from his ``p``, by comparing cubeful equities.

    Returns ``dict(no_double, double_take, double_pass, double, take)``: the three equities
    are the doubler's, per unit of the current stake (gnubg ``FindCubeDecision``):
    no_double = :func:`janowski_equity` with the current ownership; double_take = 2 x the
    equity with the opponent owning the doubled cube (the Jacoby rule no longer applies:
    the cube has turned); double_pass = +1.
    ``double`` = min(double_take, double_pass) > no_double (the opponent picks whichever is
    worse for the doubler; a tie is no double); ``take`` = double_take <= double_pass (the
    doubler gains no more when the opponent takes; a tie counts as a take; gnubg calls a tie
    a pass, which is worth the same). ``owner`` is "centred" or "owned" (``ValueError`` when
    the opponent owns the cube: no double is possible).
    """
    own = _owner(owner)
    if own == UNAVAILABLE:
        raise ValueError("the player on roll cannot double: the opponent owns the cube")
    nd = np.asarray(janowski_equity(p, own, x, jacoby=jacoby))
    dt = 2.0 * np.asarray(janowski_equity(p, UNAVAILABLE, x))
    dp = np.ones_like(nd)
    return dict(no_double=_out(nd), double_take=_out(dt), double_pass=_out(dp),
                double=_out(np.minimum(dt, dp) > nd), take=_out(dt <= dp))


# ------------------------------------------------------------------ match play

def _mwc(away0, away1, points, met):
    return _met_module.mwc_after(away0, away1, points, met=met)


def mwc_cubeless(p, away0, away1, cube=1, met=None):
    """Cubeless match-winning chance of player 0: the outcome probabilities times the MWC of
    each resulting score, the game worth ``cube`` x 1, 2, 3 (gnubg manual, "Match Winning
    Chance"; resulting scores per :func:`fastbg.met.mwc_after`)."""
    a = _prob_vector(p)
    a0, a1 = _aways(away0, away1)
    c = _cube(cube)
    w, wg, wbg, lg, lbg = a.tolist()
    outcomes = ((w - wg, c), (wg - wbg, 2 * c), (wbg, 3 * c),
                (1.0 - w - lg, -c), (lg - lbg, -2 * c), (lbg, -3 * c))
    return math.fsum(q * _mwc(a0, a1, pts, met) for q, pts in outcomes if q != 0.0)


def mwc_to_emg(mwc, away0, away1, cube=1, met=None):
    """Normalised money equity of an MWC: 2 (MWC - MWC(lose)) / (MWC(win) - MWC(lose)) - 1.

    Win and lose are of the current cube (gnubg ``mwc2eq``; docs/cube.md section 3).
    """
    a0, a1 = _aways(away0, away1)
    c = _cube(cube)
    win, lose = _mwc(a0, a1, c, met), _mwc(a0, a1, -c, met)
    return 2.0 * (float(mwc) - lose) / (win - lose) - 1.0


def emg_to_mwc(emg, away0, away1, cube=1, met=None):
    """Inverse of :func:`mwc_to_emg` (gnubg ``eq2mwc``)."""
    a0, a1 = _aways(away0, away1)
    c = _cube(cube)
    win, lose = _mwc(a0, a1, c, met), _mwc(a0, a1, -c, met)
    return lose + (float(emg) + 1.0) * 0.5 * (win - lose)


def gammon_values(away0, away1, cube=1, met=None):
    """Gammon and backgammon values of player 0 at a score with ``cube`` (:class:`GammonValues`).

    GV = (MWC(win gammon) - MWC(win)) / (MWC(win) - MWC(lose)) and the like
    (docs/cube.md section 3). Kazaross-XG2, cube 1: 5-5 0.457, 3-3 0.760, 2-2 0.910.
    gnubg's gammon prices (``getGammonPrice``) are twice these, floored at 0.
    """
    a0, a1 = _aways(away0, away1)
    c = _cube(cube)
    m = {k: _mwc(a0, a1, k * c, met) for k in (-3, -2, -1, 1, 2, 3)}
    span = m[1] - m[-1]
    return GammonValues((m[2] - m[1]) / span, (m[-1] - m[-2]) / span,
                        (m[3] - m[2]) / span, (m[-2] - m[-3]) / span)


def dead_cube_level(away0, away1, cube=1):
    """The cube value from which a double is the last one that matters (gnubg ``nDead``).

    Starting at ``cube``, doubles while both players need more than twice the value
    (``while away0 - 1 >= 2 n and away1 - 1 >= 2 n: n *= 2``, gnubg ``GetPoints``): once the
    cube shows this value, whoever takes a double to 2 n owns a dead cube.

    >>> dead_cube_level(5, 5), dead_cube_level(3, 3), dead_cube_level(2, 9)
    (4, 2, 1)
    """
    a0, a1 = _aways(away0, away1)
    n = _cube(cube)
    while a0 - 1 >= 2 * n and a1 - 1 >= 2 * n:
        n *= 2
    return n


def _cube_prime(i, j, c):
    """gnubg ``GetCubePrimeValue``: 2c when the taker may redouble to 4c for free (the doubler,
    needing i+1 <= 2c, wins the match with the 2c cube anyway, the taker needs more)."""
    return 2 * c if i < 2 * c <= j else c


def _ratios(a):
    """gnubg gammon and backgammon ratios ``(g[2], bg[2])``: of player 0's wins and losses."""
    w, wg, wbg, lg, lbg = a.tolist()
    g0, b0 = ((wg - wbg) / w, wbg / w) if w > 0.0 else (0.0, 0.0)
    g1, b1 = ((lg - lbg) / (1.0 - w), lbg / (1.0 - w)) if w < 1.0 else (0.0, 0.0)
    return (g0, g1), (b0, b1)


class _Points:
    """Cash points at a score, gnubg ``GetPoints`` (matchequity.c), for players 0 and 1.

    ``m(k, pts)``: MWC of player k when player k wins ``pts`` (< 0: loses); player 1's
    values are 1 - player 0's, as in gnubg ``getMEMultiple``.
    """

    def __init__(self, a0, a1, cube, g, bg, met):
        self.a = (a0, a1)
        self.cube, self.g, self.bg, self.met = cube, g, bg, met
        self._memo = {}

    def m(self, k, pts):
        key = (k, pts)
        if key not in self._memo:
            v = _mwc(self.a[0], self.a[1], pts if k == 0 else -pts, self.met)
            self._memo[key] = v if k == 0 else 1.0 - v
        return self._memo[key]

    def weighted(self, k, winner, pts):
        """MWC of k after ``winner`` wins a game worth ``pts`` x (1, 2, 3) with his ratios."""
        s = 1 if winner == k else -1
        g, bg = self.g[winner], self.bg[winner]
        return ((1.0 - g - bg) * self.m(k, s * pts) + g * self.m(k, s * 2 * pts)
                + bg * self.m(k, s * 3 * pts))

    def dead_cp(self, k, c, prime):
        """Dead-cube cash point of player k doubling c -> 2c (gnubg: (DTL - DP)/(DTL - DTW)),
        the doubled cube worth 2 x ``prime`` (``prime = c``: no redouble at all)."""
        dtl = self.weighted(k, 1 - k, 2 * prime)
        dp = self.m(k, c)
        dtw = self.weighted(k, k, 2 * prime)
        return (dtl - dp) / (dtl - dtw)

    def live_cps(self):
        """``[cp0, cp1]``: live cash points at the current cube, recursing over cube levels."""
        i, j = self.a[0] - 1, self.a[1] - 1
        n_dead, n_max = self.cube, 0
        while i >= 2 * n_dead and j >= 2 * n_dead:
            n_max += 1
            n_dead *= 2
        live = {}
        c, n = n_dead, n_max
        while c >= self.cube:
            for k in (0, 1):
                if i < 2 * c or j < 2 * c:
                    prime = _cube_prime(i, j, c) if k == 0 else _cube_prime(j, i, c)
                    live[k, n] = self.dead_cp(k, c, prime)      # the doubled cube is dead
                else:
                    rdp = self.m(k, -2 * c)                      # redouble, pass
                    dp = self.m(k, c)
                    dtw = self.weighted(k, k, 2 * c)
                    live[k, n] = 1.0 - live[1 - k, n + 1] * (dp - dtw) / (rdp - dtw)
            c //= 2
            n -= 1
        return [live[0, 0], live[1, 0]]


def take_point_match(away_taker, away_doubler, cube=1, live=False, p=None, met=None):
    """The taker's take point (least winning chance) when doubled from ``cube`` to 2 ``cube``.

    ``live=False``: dead cube, no redoubles: risk / (risk + gain) =
    (MWC(pass) - MWC(take, lose)) / (MWC(take, win) - MWC(take, lose)), MWCs the taker's
    (docs/cube.md section 3; oracle: 5-5 0.2387, 4-2 0.3713).
    ``live=True``: gnubg ``GetPoints``: TP_live(c) = TP_dead(c) x (1 - TP'_live(2c)), TP' the
    doubler's take point of the taker's redouble, recursing up to the last cube level that
    matters (:func:`dead_cube_level`); there TP_live is the dead take point with gnubg's
    automatic redouble (a taker who may redouble to 4c for free is credited with it: 4-2
    gives 0.1856, the pass MWC). 3-3: 0.3017 x 0.7508 = 0.2265.
    ``p`` (optional) are the DOUBLER's probabilities, the player on roll, whose gammon and
    backgammon ratios weight the wins of each side as in gnubg; without it, gammonless.
    The game is pre-Crawford unless a side is 1-away (then post-Crawford: no cube in the
    Crawford game).
    """
    a_t, a_d = _aways(away_taker, away_doubler)
    c = _cube(cube)
    if p is None:
        g, bg = (0.0, 0.0), (0.0, 0.0)
    else:
        g, bg = _ratios(_prob_vector(p))
    pts = _Points(a_d, a_t, c, g, bg, met)           # player 0 = the doubler
    cp = pts.live_cps()[0] if live else pts.dead_cp(0, c, c)
    return 1.0 - cp


def _do_cubeful(a0, a1, cube, crawford):
    """gnubg ``fDoCubeful``: False (cubeless) when the cube is dead for both, at 2-away/2-away,
    and in the Crawford game."""
    if a0 <= cube and a1 <= cube:
        return False
    if a0 == 2 and a1 == 2:
        return False
    return not crawford


def _check_crawford(a0, a1, crawford):
    if crawford and not ((a0 == 1) != (a1 == 1)):
        raise ValueError(f"the Crawford game needs exactly one side at 1-away, "
                         f"got {a0}-away, {a1}-away")


def janowski_mwc(p, away0, away1, x, cube=1, cube_owner=CENTRED, crawford=False, met=None):
    """Cubeful match-winning chance of player 0 (on roll): MWC_dead (1 - x) + MWC_live x.

    gnubg ``Cl2CfMatch`` (eval.c): MWC_dead is :func:`mwc_cubeless`; MWC_live is piecewise
    linear in P(win) between the live cash points of both players (gnubg ``GetPoints``, see
    :func:`take_point_match`): through (0, MWC(lose with the loss ratios)),
    (opponent's take point, MWC(lose the cube)) when the opponent can double,
    (own cash point, MWC(win the cube)) when player 0 can, and (1, MWC(win with the win
    ratios)). Cubeless (gnubg ``fDoCubeful``) in the Crawford game, at 2-away/2-away with the
    cube at 1, and when the cube is dead for both sides.
    """
    a = _prob_vector(p)
    a0, a1 = _aways(away0, away1)
    x, c, owner = _x(x), _cube(cube), _owner(cube_owner)
    _check_crawford(a0, a1, crawford)
    dead = mwc_cubeless(a, a0, a1, c, met=met)
    if not _do_cubeful(a0, a1, c, crawford):
        return dead
    g, bg = _ratios(a)
    pts = _Points(a0, a1, c, g, bg, met)
    cp0, cp1 = pts.live_cps()
    pw = float(a[0])
    cash, opp_cash = pts.m(0, c), pts.m(0, -c)
    win_all = pts.weighted(0, 0, c)
    lose_all = pts.weighted(0, 1, c)
    tg, opp_tg = cp0, 1.0 - cp1
    if owner == OWNED:
        opp_tg = 0.0
    elif owner == UNAVAILABLE:
        tg = 1.0
    if owner != OWNED and pw <= opp_tg:                  # the opponent is too good to double
        live = lose_all + (opp_cash - lose_all) * pw / opp_tg if opp_tg > 0.0 else lose_all
    elif owner == CENTRED and pw < tg:                   # in the double window
        live = opp_cash + (cash - opp_cash) * (pw - opp_tg) / (tg - opp_tg)
    elif owner == OWNED and pw <= tg:
        live = lose_all + (cash - lose_all) * pw / tg if tg > 0.0 else lose_all
    elif owner == UNAVAILABLE:
        live = opp_cash + (win_all - opp_cash) * (pw - opp_tg) / (1.0 - opp_tg)
    else:                                                # too good to double
        live = cash + (win_all - cash) * (pw - tg) / (1.0 - tg) if tg < 1.0 else win_all
    return dead * (1.0 - x) + live * x


def janowski_mwc_rows(p, away0, away1, x, cube=1, cube_owner=CENTRED, crawford=False,
                      met=None):
    """:func:`janowski_mwc` of many probability rows at one score and cube state.

    p: ``(n, 5)`` probabilities of player 0 (on roll); x: one cube efficiency or ``n`` of
    them. Returns float64 ``(n,)``: the same numbers as :func:`janowski_mwc` row by row
    (the same operations on arrays: the gammon ratios are the only per-row inputs of the
    cash points), about 300 times faster on a thousand rows.
    """
    a = _probs(p)
    if a.ndim != 2:
        raise ValueError(f"janowski_mwc_rows takes probabilities of shape (n, 5), got {a.shape}")
    a0, a1 = _aways(away0, away1)
    c, owner = _cube(cube), _owner(cube_owner)
    _check_crawford(a0, a1, crawford)
    xs = np.broadcast_to(np.asarray(x, dtype=np.float64), (a.shape[0],))
    if not np.all((xs >= 0.0) & (xs <= 1.0)):
        raise ValueError("cube efficiency x must lie in 0..1")
    w, wg, wbg, lg, lbg = a.T
    outcomes = ((w - wg, c), (wg - wbg, 2 * c), (wbg, 3 * c),
                (1.0 - w - lg, -c), (lg - lbg, -2 * c), (lbg, -3 * c))
    dead = np.zeros(a.shape[0])
    for q, pts in outcomes:
        dead += np.where(q != 0.0, q, 0.0) * _mwc(a0, a1, pts, met)
    if not _do_cubeful(a0, a1, c, crawford):
        return dead
    with np.errstate(divide="ignore", invalid="ignore"):
        g0 = np.where(w > 0.0, (wg - wbg) / w, 0.0)
        b0 = np.where(w > 0.0, wbg / w, 0.0)
        g1 = np.where(w < 1.0, (lg - lbg) / (1.0 - w), 0.0)
        b1 = np.where(w < 1.0, lbg / (1.0 - w), 0.0)
        pts = _Points(a0, a1, c, (g0, g1), (b0, b1), met)
        cp0, cp1 = pts.live_cps()
        cash, opp_cash = pts.m(0, c), pts.m(0, -c)
        win_all = pts.weighted(0, 0, c)
        lose_all = pts.weighted(0, 1, c)
        tg = np.broadcast_to(cp0, w.shape).astype(np.float64)
        opp_tg = np.broadcast_to(1.0 - cp1, w.shape).astype(np.float64)
        if owner == OWNED:
            opp_tg = np.zeros_like(w)
        elif owner == UNAVAILABLE:
            tg = np.ones_like(w)
        pw = w
        # the branches of janowski_mwc, tried in its order
        conds, values = [], []
        if owner != OWNED:
            conds.append(pw <= opp_tg)
            values.append(np.where(opp_tg > 0.0,
                                   lose_all + (opp_cash - lose_all) * pw / opp_tg, lose_all))
        if owner == CENTRED:
            conds.append(pw < tg)
            values.append(opp_cash + (cash - opp_cash) * (pw - opp_tg) / (tg - opp_tg))
        if owner == OWNED:
            conds.append(pw <= tg)
            values.append(np.where(tg > 0.0, lose_all + (cash - lose_all) * pw / tg, lose_all))
        if owner == UNAVAILABLE:
            conds.append(np.ones(w.shape, bool))
            values.append(opp_cash + (win_all - opp_cash) * (pw - opp_tg) / (1.0 - opp_tg))
        other = np.where(tg < 1.0, cash + (win_all - cash) * (pw - tg) / (1.0 - tg), win_all)
        live = np.select(conds, values, other)
    return dead * (1.0 - xs) + live * xs


def cube_decision_match(p, away0, away1, x, cube=1, owner=CENTRED, met=None):
    """Match cube decision for player 0 (on roll), comparing cubeful MWCs (gnubg style).

    Returns ``dict(no_double, double_take, double_pass, double, take)``: MWCs of the doubler
    for no double (:func:`janowski_mwc`, current cube), double/take (cube 2 ``cube`` owned by
    the opponent) and double/pass (player 0 wins ``cube`` points); ``double`` and ``take``
    as in :func:`cube_decision_money`. ``ValueError`` when player 0 cannot double (gnubg
    ``GetDPEq``): the opponent owns the cube, player 0 needs no more than the cube already
    gives him, or he is the 1-away leader (post-Crawford). The Crawford game has no cube.
    """
    a = _prob_vector(p)
    a0, a1 = _aways(away0, away1)
    c, own = _cube(cube), _owner(owner)
    if own == UNAVAILABLE:
        raise ValueError("the player on roll cannot double: the opponent owns the cube")
    if a0 == 1:
        raise ValueError("the 1-away leader has no use for the cube (post-Crawford)")
    if a0 <= c:
        raise ValueError(f"a double is pointless: {a0}-away already wins the match with the "
                         f"{c}-cube")
    nd = janowski_mwc(a, a0, a1, x, c, own, met=met)
    dt = janowski_mwc(a, a0, a1, x, 2 * c, UNAVAILABLE, met=met)
    dp = _mwc(a0, a1, c, met)
    return dict(no_double=nd, double_take=dt, double_pass=dp,
                double=min(dt, dp) > nd, take=dt <= dp)


# ------------------------------------------------------------------ race formulas

def _race_board(board, need_race=True):
    b = validate(board)
    if b.ndim != 1:
        raise ValueError(f"race formulas take one board, got a batch of shape {b.shape}")
    if need_race and not _is_race(b):
        raise ValueError("race formulas are for races: this position still has contact")
    return b


def keith_count(board):
    """``(mover, opponent)`` Keith counts of one board, before the one-seventh for the roller.

    Pip count + 2 per checker beyond the first on the 1-point + 1 per checker beyond the first
    on the 2-point + 1 per checker beyond the third on the 3-point + 1 per empty 4-, 5- and
    6-point (Tom Keith; bgonline.org/keith.html; docs/cube.md section 4).

    >>> import fastbg
    >>> keith_count(fastbg.START)
    (169, 169)
    """
    b = _race_board(board, need_race=False)
    mover, opp = _race.keith_counts(b)
    return int(mover), int(opp)


def thorp_count(board):
    """``(mover, opponent)`` Thorp counts of one board, before the leader's 10%.

    Pip count + 2 per checker still on the board + 1 per checker on the 1-point - 1 per
    occupied home-board point (E. O. Thorp; Woodhead, rgb 1991; docs/cube.md section 4).
    """
    b = _race_board(board, need_race=False)
    mover, opp = _race.thorp_counts(b)
    return int(mover), int(opp)


def _decision(flags, cube_owned):
    double = flags & (_race.RACE_REDOUBLE if cube_owned else _race.RACE_DOUBLE)
    return bool(double), bool(flags & _race.RACE_TAKE)


def keith_decision(board, cube_owned=False):
    """``(double, take)`` by the Keith count for the player on roll in a race (money play).

    The roller adds one seventh of his count (rounded down); with d = his count - the
    opponent's: double if d <= 4, redouble (``cube_owned=True``) if d <= 3; the opponent takes
    if d >= 2 (Tom Keith, bgonline.org/keith.html). ``ValueError`` for a contact position.
    """
    return _decision(_race.keith_decision(_race_board(board)), cube_owned)


def thorp_decision(board, cube_owned=False):
    """``(double, take)`` by the Thorp count for the player on roll (the "leader") in a race.

    L = his count plus 10% (not rounded) if it is more than 30, T = the opponent's count:
    double if T > L - 2, redouble (``cube_owned=True``) if T > L - 1, the opponent passes if
    T > L + 2 and takes otherwise (Woodhead, rgb 1991, bkgm rgb view+772; exactly +2 is a
    take, as C. Bower suggests). FIBS states the double as T - L >= -2: the two differ only
    when T is exactly L - 2. ``ValueError`` for a contact position.
    """
    return _decision(_race.thorp_decision(_race_board(board)), cube_owned)


def eight_nine_twelve(board, cube_owned=False):
    """``(double, take)`` by the 8-9-12 rule for the player on roll in a race.

    Raw pip counts, lead = (opponent's - roller's) / roller's: double if lead >= 8%,
    redouble (``cube_owned=True``) if lead >= 9%, the opponent takes if lead <= 12%
    (Woodhead, rgb 1991; nextgammon glossary). ``ValueError`` for a contact position.
    """
    return _decision(_race.eight_nine_twelve_decision(_race_board(board)), cube_owned)
