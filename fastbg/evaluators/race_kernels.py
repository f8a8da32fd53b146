"""Built-in probability evaluators as kernels: a pip-count race formula.

An evaluator fills ``out[0..4]`` (float64) with the cubeless probabilities of the player on
roll of ``b`` (int8[26], interchange layout): win, win gammon, win backgammon, lose gammon,
lose backgammon, cumulative (a gammon includes a backgammon), the order of
:mod:`fastbg.cube.decision_kernels` (P_WIN .. P_LBG). :func:`race_probabilities` has the signature
``probs(board, out)`` that :class:`fastbg.JanowskiCube` compiles into the game kernel.

The race formula (Kleinman's normal model of the race, R. Kleinman via O. Johansen,
rec.games.backgammon 2001): the player on roll with ``a`` pips to go beats one with ``b``
pips with probability

    race_win(a, b) = Phi(D / sqrt(2 S)) = erfc(-D / (2 sqrt(S))) / 2,
    D = b - a + 4   (the roll in hand is worth about half an average roll, 8.17 / 2 pips),
    S = a + b.

Kleinman takes ``S = a + b - 4``; this one keeps ``a + b`` so that S > 0 for every position
and ``race_win`` is monotone everywhere (decreasing in ``a``: the derivative of
D / sqrt(S) in a has the sign of -(a + 3b + 4); increasing in ``b``: sign of 3a + b - 4,
>= 0 for a, b >= 1). Kleinman's examples, 100 pips on roll against 113 and 106: 0.795 and
0.689 (his 0.797 and 0.688).
Exact flip identity: ``race_win(a, b) + race_win(b + 4, a - 4) == 1`` (same S, opposite D).

Gammons and backgammons reuse ``race_win`` against a shorter target, and only while the
side at risk has borne off nothing (docs/rules.md section 7):

* gammon: the loser must bring every checker home and bear one off, counted as
  G = sum over checkers outside his home of (point - 6) + min(lowest occupied point, 6);
* backgammon: the loser must get every checker out of the winner's home board and off the
  bar, B = sum over checkers on his points 19..25 of (point - 18); none there: no backgammon.

``win = race_win(Pm, Po)``, ``wg = race_win(Pm, Go)``, ``wbg = race_win(Pm, Bo)``,
``lg = 1 - race_win(Gm, Po)``, ``lbg = 1 - race_win(Bm, Po)`` (m the mover, o the opponent).
Since B <= G <= pips, monotonicity gives 1 >= win >= wg >= wbg >= 0 and
1 - win >= lg >= lbg >= 0. It only sees pips: in contact it is a crude guess (no hits,
no primes), and even in races it ignores wastage. Sane, cheap and smooth, not strong; worst
in the last rolls of a bear-off, where the number of rolls, not pips, decides (one checker on
the 6-point against one on the ace: 0.39 here, exactly 0.75 by tests/reference/exact.py).
"""
import math
from collections import namedtuple

import numpy as np
from numba import njit, prange, types
from numba.extending import overload

from fastbg.cube.decision_kernels import probs_call
from fastbg.jit import HOT
from fastbg.constants import BAR, CHECKERS, HOME_TOP

MOVER = 0
OPPONENT = 1

# The roll in hand: about half an average roll (49/6 = 8.17 pips) ahead.
ON_ROLL_PIPS = 4.0
# Kleinman: the pip difference at the finish is normal with variance 2 x (pip sum).
SPREAD = 2.0
# A loser's checkers on his points above this are in the winner's home board (or on the bar).
BACKGAMMON_LINE = 18

P_WIN, P_WG, P_WBG, P_LG, P_LBG = 0, 1, 2, 3, 4
N_PROBS = 5


@njit(**HOT)
def race_win(a, b):
    """P(the player on roll with ``a`` pips to go finishes first against ``b`` pips).

    1 when ``a`` <= 0 (he has finished), 0 when ``b`` <= 0 (the other has); else the
    normal model of the module docstring.
    """
    if a <= 0:
        return 1.0
    if b <= 0:
        return 0.0
    d = b - a + ON_ROLL_PIPS
    return 0.5 * math.erfc(-d / math.sqrt(2.0 * SPREAD * (a + b)))


@njit(**HOT)
def side_counts(b, side):
    """``(checkers on board and bar, pips, gammon count G, backgammon count B)`` of ``side``.

    ``side`` is MOVER or OPPONENT; points are in that side's own numbering (25 = its bar).
    G and B are the pips of the module docstring (0 when the side has no checkers).
    """
    on = 0
    pips = 0
    outside = 0
    lowest = 0
    bg = 0
    for p in range(1, BAR + 1):
        if side == MOVER:
            n = np.int64(b[p])
        else:
            n = -np.int64(b[BAR - p])     # the opponent's point p is entry 25 - p
        if n <= 0:
            continue
        if lowest == 0:
            lowest = p
        on += n
        pips += n * p
        if p > HOME_TOP:
            outside += n * (p - HOME_TOP)
        if p > BACKGAMMON_LINE:
            bg += n * (p - BACKGAMMON_LINE)
    gammon = 0
    if on > 0:
        gammon = outside + min(lowest, HOME_TOP)
    return on, pips, gammon, bg


@njit(**HOT)
def race_probabilities(b, out):
    """Fill ``out[0..4]`` (float64) with the race formula's probabilities for ``b`` (int8[26]).

    The player on roll's (win, win gammon, win backgammon, lose gammon, lose backgammon),
    cumulative. A side with no checker left has won (its win kind from docs/rules.md section 7);
    if both sides are empty the mover is taken to have won.
    """
    on_m, pips_m, g_m, bg_m = side_counts(b, MOVER)
    on_o, pips_o, g_o, bg_o = side_counts(b, OPPONENT)
    m_none_off = on_m == CHECKERS
    o_none_off = on_o == CHECKERS
    for i in range(N_PROBS):
        out[i] = 0.0
    out[P_WIN] = race_win(pips_m, pips_o)     # exactly 1 or 0 when a side has finished
    if on_m == 0:
        if o_none_off:
            out[P_WG] = 1.0
            if bg_o > 0:
                out[P_WBG] = 1.0
        return
    if on_o == 0:
        if m_none_off:
            out[P_LG] = 1.0
            if bg_m > 0:
                out[P_LBG] = 1.0
        return
    if o_none_off:
        out[P_WG] = race_win(pips_m, g_o)
        if bg_o > 0:
            out[P_WBG] = race_win(pips_m, bg_o)
    if m_none_off:
        out[P_LG] = 1.0 - race_win(g_m, pips_o)
        if bg_m > 0:
            out[P_LBG] = 1.0 - race_win(bg_m, pips_o)


@njit(parallel=True, cache=True)
def race_probabilities_batch(boards, out):
    """Row i of ``out`` (float64[m, 5]) = :func:`race_probabilities` of ``boards[i]`` (int8[m, 26]).

    Each prange iteration writes only its own row.
    """
    for i in prange(boards.shape[0]):
        race_probabilities(boards[i], out[i])


RaceProbs = namedtuple("RaceProbs", "tag")
RaceProbs.__doc__ = """The type of :data:`RACE_PROBS`: a Janowski strategy whose probabilities are
:func:`race_probabilities`, called directly by the game kernels. A numba function passed as an
argument is a type of its own, and a kernel compiled for it cannot be loaded from numba's
disk cache by another process: with the marker the kernel is cached like the built-in
strategies' (``fastbg.evaluators.race_cube()`` no longer compiles the game kernel again in
every process)."""
RACE_PROBS = RaceProbs(np.int64(0))


@overload(probs_call)
def _probs_call_race(plug, board, p):
    if isinstance(plug, types.BaseNamedTuple) and plug.instance_class is RaceProbs:
        def call(plug, board, p):
            race_probabilities(board, p)
        return call
    return None
