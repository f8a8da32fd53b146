"""GNU Backgammon's 0-ply player as a bot, and board conversion to and from ``gnubg_nn``.

Optional extra: ``pip install 'fastbg[gnubg]'`` (the package ``gnubg-nn``, GNU Backgammon's
neural networks, bear-off databases and evaluation code as a Python module).

``gnubg_nn`` holds a position as two lists of 25 counts, ``[[not on roll], [on roll]]``:
each side counts its own points, index ``j`` holding its point ``j + 1`` and index 24 its
bar. The side not on roll's point ``q`` is the mover's point ``25 - q`` (docs/rules.md section 1),
so for an interchange board ``b`` (tests/test_ids.py documents the same mapping):

* on roll:     ``gb[1][j] = max(b[j + 1], 0)`` for j < 24, ``gb[1][24] = b[25]``;
* not on roll: ``gb[0][j] = max(-b[24 - j], 0)`` for j < 24, ``gb[0][24] = -b[0]``.

Seen from the other side the two rows simply swap, which is how the bot turns a candidate
result (still seen from the player who moved) into the position GNU Backgammon evaluates:
the opponent on roll.

The bot, ``"gnubg-nn"`` in :func:`fastbg.play` (or :func:`fastbg.sim.games.bots.gnubg_nn_bot`; ``"gnubg"`` is the
faster numba port in :mod:`fastbg.evaluators.nets`, kept equal to this one), plays GNU Backgammon's
0-ply cubeless money choice: each candidate is scored by the mover's cubeless equity,
minus the equity of the opponent on roll from ``gnubg_nn.probabilities(board, 0)``
(neural nets for contact, crashed and race positions, the bear-off databases where they
apply), the same numbers ``gnubg_nn.best_move(board, d1, d2, n=0)`` ranks its moves by.
``gnubg_nn`` has no batched evaluation, so candidates are evaluated one call each
(a few microseconds; gnubg's own evaluation cache serves repeated positions).
"""
import numpy as np

from fastbg.cube.formulas import equity_of
from fastbg.position.board import validate
from fastbg.constants import BAR, BOARD_DTYPE, BOARD_SIZE, CHECKERS, OPP_BAR
from fastbg.extras import MissingPackage

INSTALL_HINT = ("the gnubg bot needs GNU Backgammon's networks: "
                "pip install 'fastbg[gnubg]' (package gnubg-nn)")

# Score of a candidate that bears off the mover's last checker: the game is won, better
# than any equity (cubeless equities lie in -3..3). Every such result of one roll is the
# same position (the opponent's checkers do not move), so its size never decides a choice.
WIN_SCORE = 1e9

_SLOTS = 25                                             # 24 points and the bar, each side
# Interchange entries read by each gnubg slot: on roll, slot j <- b[j + 1] (25 = bar);
# not on roll, slot j <- -b[24 - j] (slot 24 <- -b[0], the opponent's bar).
_ON_ROLL_SRC = np.arange(1, BAR + 1)                    # 1..25
_NOT_ON_ROLL_SRC = np.arange(24, OPP_BAR - 1, -1)       # 24..0


def require():
    """``gnubg_nn``, or ImportError with the install hint."""
    try:
        import gnubg_nn
    except ImportError as exc:
        raise MissingPackage(INSTALL_HINT, "gnubg") from exc
    return gnubg_nn


def _gnubg_rows(boards):
    """int8 (m, 26) interchange boards -> int8 (m, 2, 25) gnubg boards (no validation)."""
    out = np.empty((boards.shape[0], 2, _SLOTS), np.int8)
    np.maximum(-boards[:, _NOT_ON_ROLL_SRC], 0, out=out[:, 0])
    np.maximum(boards[:, _ON_ROLL_SRC], 0, out=out[:, 1])
    return out


def to_gnubg_batch(boards):
    """Interchange boards ``(m, 26)`` -> an int8 array ``(m, 2, 25)`` in gnubg_nn's layout.

    ``arr.tolist()`` gives the nested lists gnubg_nn's functions take.
    """
    b = validate(boards)
    if b.ndim != 2:
        raise ValueError(f"to_gnubg_batch takes a batch of shape (m, {BOARD_SIZE}); got {b.shape}")
    return _gnubg_rows(b)


def to_gnubg(board):
    """One interchange board -> gnubg_nn's ``[[not on roll (25)], [on roll (25)]]`` lists.

    >>> import fastbg
    >>> gb = to_gnubg(fastbg.START)
    >>> gb[1][5], gb[1][23], gb[0][12]
    (5, 2, 5)
    """
    b = validate(board)
    if b.ndim != 1:
        raise ValueError(f"to_gnubg takes one board of shape ({BOARD_SIZE},); "
                         f"use to_gnubg_batch for {b.shape}")
    return _gnubg_rows(b[None])[0].tolist()


def from_gnubg(gb):
    """gnubg_nn's board(s) ``(2, 25)`` or ``(m, 2, 25)`` -> interchange board(s) ``(26,)`` or
    ``(m, 26)``, int8, seen from the side on roll (row 1).

    Raises ValueError for a wrong shape, negative counts, a point held by both sides or a
    side with more than 15 checkers.
    """
    a = np.asarray(gb)
    if a.ndim not in (2, 3) or a.shape[-2:] != (2, _SLOTS):
        raise ValueError(f"a gnubg board has shape (2, {_SLOTS}) and a batch (m, 2, {_SLOTS}); "
                         f"got {a.shape}")
    if a.size and a.dtype.kind not in "iu":
        raise ValueError(f"a gnubg board holds integers, got dtype {a.dtype}")
    rows = a.reshape(-1, 2, _SLOTS).astype(np.int64)
    if rows.size and rows.min() < 0:
        raise ValueError("gnubg board counts must be >= 0")
    if rows.size and (rows.sum(axis=2) > CHECKERS).any():
        r, side = np.argwhere(rows.sum(axis=2) > CHECKERS)[0]
        which = "not on roll" if side == 0 else "on roll"
        raise ValueError(("" if a.ndim == 2 else f"row {r}: ")
                         + f"the side {which} has {rows[r, side].sum()} checkers "
                         f"(at most {CHECKERS})")
    mover = np.zeros((rows.shape[0], BOARD_SIZE), np.int64)
    opp = np.zeros((rows.shape[0], BOARD_SIZE), np.int64)
    mover[:, _ON_ROLL_SRC] = rows[:, 1]
    opp[:, _NOT_ON_ROLL_SRC] = rows[:, 0]
    both = (mover[:, 1:BAR] > 0) & (opp[:, 1:BAR] > 0)
    if both.any():
        r, p = np.argwhere(both)[0]
        raise ValueError(("" if a.ndim == 2 else f"row {r}: ")
                         + f"the mover's point {p + 1} is held by both sides")
    out = (mover - opp).astype(BOARD_DTYPE)
    return out[0] if a.ndim == 2 else out


def evaluate(positions):
    """Scores of candidate results for the player who just moved (higher is better).

    ``positions``: int8 (m, 26), each seen from the player who moved. Each is flipped so
    the opponent is on roll, evaluated by ``gnubg_nn.probabilities(board, 0)`` and scored
    by minus the opponent's cubeless equity; a result where the mover has borne off all
    his checkers scores :data:`WIN_SCORE`. Returns float64 (m,).
    """
    gnubg_nn = require()
    pos = np.asarray(positions)
    if pos.ndim != 2 or pos.shape[1] != BOARD_SIZE:
        raise ValueError(f"evaluate takes a batch of shape (m, {BOARD_SIZE}); got {pos.shape}")
    pos = np.ascontiguousarray(pos, dtype=BOARD_DTYPE)
    m = pos.shape[0]
    scores = np.full(m, WIN_SCORE)
    live = np.flatnonzero((pos > 0).any(axis=1))        # the mover still has checkers
    if live.size:
        # The opponent's view: swap gnubg's rows ([[mover], [opponent on roll]]).
        boards = _gnubg_rows(pos[live])[:, ::-1].tolist()
        probabilities = gnubg_nn.probabilities
        probs = np.array([probabilities(b, 0) for b in boards], dtype=np.float64)
        scores[live] = -equity_of(probs)
    return scores


def probabilities(boards):
    """GNU Backgammon's 0-ply probabilities for the player on roll of each board.

    ``boards``: int8 (m, 26) interchange boards, player on roll. Returns float64 (m, 5):
    win, win gammon, win backgammon, lose gammon, lose backgammon (gammons include
    backgammons). Usable as the evaluator of rollouts and cube strategies.
    """
    gnubg_nn = require()
    b = validate(boards)
    if b.ndim != 2:
        raise ValueError(f"probabilities takes a batch of shape (m, {BOARD_SIZE}); got {b.shape}")
    rows = _gnubg_rows(b).tolist()
    prob = gnubg_nn.probabilities
    return np.array([prob(r, 0) for r in rows], dtype=np.float64).reshape(-1, 5)
