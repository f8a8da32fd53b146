"""Game records inside the game loop: a few bytes per ply (docs/records.md section 5).

A run with ``record=True`` gives the game kernels a :class:`RecordBuffers`; without it they
get None, and numba prunes every ``if rec is not None`` branch below, so runs that do not
record compile and run exactly as before.

Rows are ``int8[ROW_WIDTH]``: ``head`` = kind | player << 4, ``dice`` = d1 * 8 + d2, then
four bytes ``a b c d`` whose meaning depends on the kind:

* ``K_TIE``     a tied opening throw (dice: the die both showed); the automatic double it
                may bring is derived from the rules (fastbg.cube.CubeGame.opening_tie).
* ``K_OPENING`` the opening throw that decided who starts: player = the first player, dice
                = (his die, the other's die).
* ``K_MOVE``    a roll and its move: the move as up to two (from, to) pairs in a b c d,
                the mover's numbering (25 the bar, 0 off), -1 when unused. A move of three
                or four pairs continues in a ``K_MORE`` row. Pairs are the net movement
                of the mover's checkers (sources and destinations each in decreasing
                order, paired in that order), a pair split at every point where a blot
                was hit in passing: played in order, landing on a blot hits it, the pairs
                give exactly the position the bot chose. They are not the move's single-die
                steps; :mod:`fastbg.sim.records` turns them into notation.
* ``K_DOUBLE`` ``K_TAKE`` ``K_DROP`` ``K_BEAVER`` ``K_RACCOON``: cube actions, player =
                who acted. The values follow from the actions.

Each game (or match) owns a region of ``rows`` (its first axis); ``used[i, 0]`` counts the
rows written, ``used[i, 1]`` is 0, or FULL when the region ran out (the wrapper plays that
game again alone with room enough: games are pure functions of their index).
"""
from collections import namedtuple

import numpy as np
from numba import njit, types
from numba.extending import overload

from fastbg import dice as _dice
from fastbg.constants import BAR
from fastbg.jit import HOT, INNER

ROW_WIDTH = 6
R_HEAD, R_DICE, R_A = 0, 1, 2
K_TIE, K_OPENING, K_MOVE, K_MORE, K_DOUBLE, K_TAKE, K_DROP, K_BEAVER, K_RACCOON = range(1, 10)
MAX_PAIRS = 4
FULL = 1            # used[i, 1]: the region of rows ran out
BAD_MOVE = 2        # used[i, 1]: a move needed more than MAX_PAIRS pairs (never seen)

# Per-game heads of a match (heads[m, j, H_*]), written by the match kernel.
(H_ROW0, H_ROWS, H_SCORE0, H_SCORE1, H_CRAWFORD, H_WINNER, H_KIND, H_PLIES, H_FIRST,
 H_CUBE, H_DROPPED, H_POINTS, H_SIZE) = range(13)

RecordBuffers = namedtuple("RecordBuffers", "rows used heads")
RecordBuffers.__doc__ = """Where a recording run writes (None when not recording).

rows  int8 (n, cap, ROW_WIDTH): game (or match) i's rows; used int64 (n, 2): rows written,
full flag; heads int32 (n, g, H_SIZE): a match's games (g = 2 * length - 1), (0, 0, H_SIZE)
for runs of single games."""

Recorder = namedtuple("Recorder", "rows at")
Recorder.__doc__ = """One game's (match's) view of :class:`RecordBuffers`: rows (cap, ROW_WIDTH)
int8 and at int64[2] (its ``used`` row)."""


def recorder_for(rec, i):
    """The :class:`Recorder` of game (match) ``i`` with its count reset; None without
    records (chosen by type when compiling, so the None case has no record code)."""
    if rec is None:
        return None
    rec.used[i, 0] = 0
    rec.used[i, 1] = 0
    return Recorder(rec.rows[i], rec.used[i])


@overload(recorder_for)
def _recorder_for_impl(rec, i):
    if isinstance(rec, types.NoneType):
        return lambda rec, i: None

    def impl(rec, i):
        rec.used[i, 0] = 0
        rec.used[i, 1] = 0
        return Recorder(rec.rows[i], rec.used[i])
    return impl


def recorder_at(rec, i):
    """The :class:`Recorder` of game ``i``, its count kept: the lock-step kernels write a
    game's rows over many calls, one ply per round (its count was reset by
    :func:`recorder_for` when the game was set up). None without records."""
    if rec is None:
        return None
    return Recorder(rec.rows[i], rec.used[i])


@overload(recorder_at)
def _recorder_at_impl(rec, i):
    if isinstance(rec, types.NoneType):
        return lambda rec, i: None
    return lambda rec, i: Recorder(rec.rows[i], rec.used[i])


@njit(**INNER)
def _row(r, kind, player, d1, d2):
    """Start a row; its index, or -1 (and the full flag) when the region is full."""
    i = r.at[0]
    if i >= r.rows.shape[0]:
        r.at[1] = FULL
        return -1
    r.rows[i, R_HEAD] = kind | (player << 4)
    r.rows[i, R_DICE] = d1 * 8 + d2
    for c in range(R_A, ROW_WIDTH):
        r.rows[i, c] = -1
    r.at[0] = i + 1
    return i


@njit(**HOT)
def opening(r, seed, game, side, d1, d2, ties):
    """The opening throws: ``ties`` tied throws, then the one that decided (the first
    player ``side`` showed ``d1``, the other ``d2``). A no-op without records."""
    if r is not None:
        for t in range(ties):
            bits = _dice.rand64(seed, game, t, _dice.STREAM_OPENING)
            die = _dice.die_from_bits(bits >> np.uint64(32))
            _row(r, K_TIE, 0, die, die)
        _row(r, K_OPENING, side, d1, d2)


@njit(**HOT)
def doubling(r, side, before, after, over, winner):
    """The cube actions of a cube phase of ``side`` (doubler) that took the stake from
    ``before`` to ``after``, ``over`` when a drop ended the game (``winner`` then who won):
    the outcomes of fastbg.cube.decision_kernels.cube_phase. A no-op without records."""
    if r is None:
        return
    taker = 1 - side
    if not over and after == before:
        return
    _row(r, K_DOUBLE, side, 0, 0)
    if over and winner == side and after == before:
        _row(r, K_DROP, taker, 0, 0)
        return
    if not over and after == 2 * before:
        _row(r, K_TAKE, taker, 0, 0)
        return
    _row(r, K_BEAVER, taker, 0, 0)
    if over and winner == taker:                  # the doubler drops the beaver
        _row(r, K_DROP, side, 0, 0)
        return
    if not over and after == 4 * before:          # the beaver is taken
        _row(r, K_TAKE, side, 0, 0)
        return
    _row(r, K_RACCOON, side, 0, 0)
    _row(r, K_DROP if over else K_TAKE, taker, 0, 0)


@njit(**INNER)
def _mover(x):
    return x if x > 0 else 0


@njit(**INNER)
def _pair_at(r, i0, j, c):
    return r.rows[i0 + j // 2, R_A + 2 * (j % 2) + c]


@njit(**INNER)
def _set_pair(r, i0, j, src, dst):
    r.rows[i0 + j // 2, R_A + 2 * (j % 2)] = src
    r.rows[i0 + j // 2, R_A + 2 * (j % 2) + 1] = dst


@njit(**HOT)
def move(r, side, d1, d2, before, after):
    """The roll (d1, d2) of ``side`` and the move from ``before`` to ``after`` (both seen
    from the mover) as (from, to) pairs, in one row or two. A no-op without records."""
    if r is None:
        return
    i0 = _row(r, K_MOVE, side, d1, d2)
    if i0 < 0:
        return
    if _row(r, K_MORE, side, d1, d2) < 0:
        r.at[0] = i0                               # no room for a second row: full
        return
    n = 0
    for p in range(BAR, 0, -1):                    # sources, highest first (the bar is 25)
        lost = _mover(before[p]) - _mover(after[p])
        for _ in range(lost):
            if n < MAX_PAIRS:
                _set_pair(r, i0, n, p, -1)
            n += 1
    m = 0
    for p in range(BAR - 1, 0, -1):                # destinations, highest first, then off
        gained = _mover(after[p]) - _mover(before[p])
        for _ in range(gained):
            if m < MAX_PAIRS:
                r.rows[i0 + m // 2, R_A + 2 * (m % 2) + 1] = p
            m += 1
    borne = 0
    for p in range(BAR, 0, -1):
        borne += _mover(before[p])
    for p in range(BAR, 0, -1):
        borne -= _mover(after[p])
    for _ in range(borne):
        if m < MAX_PAIRS:
            r.rows[i0 + m // 2, R_A + 2 * (m % 2) + 1] = 0
        m += 1
    if n > MAX_PAIRS or m != n:
        r.at[1] = BAD_MOVE
        return
    for h in range(BAR - 1, 0, -1):                # blots hit in passing split a pair
        if before[h] == -1 and after[h] == 0:
            for j in range(n):
                if _pair_at(r, i0, j, 0) > h > _pair_at(r, i0, j, 1):
                    if n == MAX_PAIRS:
                        r.at[1] = BAD_MOVE
                        return
                    for k in range(n, j + 1, -1):
                        _set_pair(r, i0, k, _pair_at(r, i0, k - 1, 0), _pair_at(r, i0, k - 1, 1))
                    _set_pair(r, i0, j + 1, h, _pair_at(r, i0, j, 1))
                    _set_pair(r, i0, j, _pair_at(r, i0, j, 0), h)
                    n += 1
                    break
    if n <= 2:
        r.at[0] = i0 + 1                           # one row is enough: drop the K_MORE row


@njit(**HOT)
def game_head(rec, m, j, row0, s0, s1, crawford, result):
    """heads[m, j] of game ``j`` of match ``m``: its first row, score before it, Crawford
    flag, and ``result`` = play_one's (winner, kind, plies, first, error, gen, value,
    dropped, points). A no-op without records."""
    if rec is None:
        return
    h = rec.heads[m, j]
    h[H_ROW0] = row0
    h[H_ROWS] = rec.used[m, 0] - row0
    h[H_SCORE0] = s0
    h[H_SCORE1] = s1
    h[H_CRAWFORD] = crawford
    h[H_WINNER] = result[0]
    h[H_KIND] = result[1]
    h[H_PLIES] = result[2]
    h[H_FIRST] = result[3]
    h[H_CUBE] = result[6]
    h[H_DROPPED] = result[7]
    h[H_POINTS] = result[8]


@njit(**HOT)
def rows_used(rec, m):
    """Rows written so far for match (game) ``m`` (0 without records)."""
    if rec is None:
        return 0
    return rec.used[m, 0]
