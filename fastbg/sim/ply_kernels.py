"""The per-ply board and dice helpers of the game loop and the lock-step driver: a board
turned to the other player's view (:func:`flip_inplace`), the mover's checkers left and
the kind of a win (:func:`mover_checkers`, :func:`win_kind`), a game's first position and
opening roll (:func:`start_game`), the dice of each ply (:func:`turn_dice`) and the debug
check of a move (:func:`step_ok`).

Split from :mod:`fastbg.sim.game_kernels` (which re-exports the names others import from
it): the seam is the rules of one ply, which know nothing of the bots or the cube; both
drivers and the records (:mod:`fastbg.sim.records`, ``win_kind``) share them.
"""
import numpy as np
from numba import njit

from fastbg import dice as _dice
from fastbg.constants import BAR, BOARD_SIZE, CHECKERS, HOME_TOP, OPP_BAR
from fastbg.jit import HOT
from fastbg.sim.game_tables import OPENING_NO_DOUBLES, OPENING_USE


@njit(**HOT)
def flip_inplace(b):
    """Turn ``b`` to the other player's view: new[i] = -old[25 - i]."""
    for i in range(BOARD_SIZE // 2):
        j = BAR - i
        x = b[i]
        b[i] = -b[j]
        b[j] = -x


@njit(**HOT)
def mover_checkers(b):
    """The mover's checkers still on the board or the bar."""
    n = 0
    for p in range(1, BAR + 1):
        if b[p] > 0:
            n += b[p]
    return n


@njit(**HOT)
def win_kind(b):
    """Kind of the win just completed by the mover of ``b`` (all 15 borne off).

    1 single if the opponent has borne off a checker; else 3 backgammon if the opponent
    still has a checker on the bar or in the mover's home board, else 2 gammon.
    """
    opp = -b[OPP_BAR]
    for p in range(1, BAR):
        if b[p] < 0:
            opp -= b[p]
    if opp < CHECKERS:
        return 1
    if b[OPP_BAR] < 0:
        return 3
    for p in range(1, HOME_TOP + 1):
        if b[p] < 0:
            return 3
    return 2


@njit(**HOT)
def start_game(seed, game, start_board, start_side, use_start, board):
    """Set ``board`` to the first position of ``game``; returns (side, d1, d2, ties).

    Without a start position this is the opening roll of docs/rules.md section 2: the higher
    single die moves first and plays both dice shown (d1 = its own die). With one, the
    given side rolls for ply 0.
    """
    for i in range(BOARD_SIZE):
        board[i] = start_board[i]
    if use_start:
        d1, d2 = _dice.roll(seed, game, np.int64(0))
        return start_side, d1, d2, 0
    side, a, b, ties = _dice.opening_roll(seed, game)
    if side == 0:
        return side, a, b, ties
    return side, b, a, ties


@njit(**HOT)
def turn_dice(seed, game, ply, d1, d2, opening, rot):
    """The dice of ``ply``.

    Quasi-random plies first (``ply < len(rot)``): game g takes ordered roll
    ``rot[0, g % 36]`` on ply 0 and ``rot[1, (g // 36 + g) % 36]`` on ply 1, so each
    aligned block of 36 games has every first roll (and every second roll) once and each
    aligned block of 1,296 games every pair of first two rolls once. Then the opening
    dice stand for ply 0 unless the opening is re-rolled; later plies are counter-based.
    OPENING_NO_DOUBLES: ply 0 takes ``rot[0, g % 30]`` (the setup puts the 30 ordered
    rolls without doubles first, :func:`fastbg.sim.setup.dice_rotation`), so each aligned
    block of 30 games has every one of them once; without rotation the opening throw's
    dice (uniform over the 30, from their own stream).
    """
    if ply < rot.shape[0]:
        if ply == 0:
            o = rot[0, game % (30 if opening == OPENING_NO_DOUBLES else 36)]
        else:
            o = rot[1, (game // 36 + game) % 36]
        return o // 6 + 1, o % 6 + 1
    if ply == 0 and opening == OPENING_USE:
        return d1, d2
    if ply == 0 and opening == OPENING_NO_DOUBLES:
        _, a, b, _ = _dice.opening_roll(seed, game)
        return a, b
    return _dice.roll(seed, game, ply)


@njit(**HOT)
def step_ok(before, after, d1, d2):
    """Debug check of one move: checker counts and the direction of travel.

    The opponent keeps all its checkers on board and bar (a hit only moves one to the
    bar) and its pips never fall; the mover never gains checkers and its pips fall by at
    most the dice total (less when bearing off with a high die).
    """
    mb = 0
    ma = 0
    ob = 0
    oa = 0
    pip_b = 0
    pip_a = 0
    opip_b = 0
    opip_a = 0
    for p in range(BOARD_SIZE):
        x = np.int64(before[p])     # int64: int8 products overflow when run as plain Python
        y = np.int64(after[p])
        if x > 0:
            mb += x
            pip_b += p * x
        elif x < 0:
            ob -= x
            opip_b -= (BAR - p) * x
        if y > 0:
            ma += y
            pip_a += p * y
        elif y < 0:
            oa -= y
            opip_a -= (BAR - p) * y
    top = d1 + d2 if d1 != d2 else 4 * d1
    if mb > CHECKERS or ob > CHECKERS or ma > mb or oa != ob:
        return False
    if opip_a < opip_b or pip_a > pip_b or pip_b - pip_a > top:
        return False
    return True
