"""Hypothesis strategies for valid interchange boards (docs/rules.md section 1), and seeded
self-play positions (:func:`selfplay_positions`).

Every board drawn here passes ``fastbg.position.board.validate``: at most 15 checkers a side, bars with
the right sign, and no point held by both sides. Both sides keep at least one checker on the
board (a game that is over has no position to play). Boards are ``np.int8`` arrays of 26.
"""
import numpy as np
from hypothesis import strategies as st

import fastbg

BAR, OPP_BAR, CHECKERS, HOME_TOP = 25, 0, 15, 6
POINTS = list(range(1, 25))

# The shapes of position drawn, so that each kind of rule case turns up often:
# contact (checkers anywhere), bar (mover and maybe opponent on the bar), race (no contact),
# bearoff (mover all home), few (one to three checkers a side, anywhere).
KINDS = ("contact", "bar", "race", "bearoff", "few")


def _place(draw, board, sign, places, n):
    """Put ``n`` checkers of one side (``sign`` +1 mover, -1 opponent) on places drawn from
    ``places``; returns the board."""
    for p in draw(st.lists(st.sampled_from(places), min_size=n, max_size=n)):
        board[p] += sign
    return board


def _opponent_places(board, allowed, bar=True):
    """The allowed points the mover does not hold, and the opponent's bar if ``bar``."""
    return [OPP_BAR] * bar + [p for p in allowed if board[p] <= 0]


def _count(draw):
    """How many checkers a side has left on board and bar: often all 15, else 1..15."""
    return draw(st.one_of(st.just(CHECKERS), st.integers(1, CHECKERS)))


@st.composite
def positions(draw, kinds=KINDS):
    """Valid boards of every shape: contact, checkers on the bar, races, bear-offs, endings."""
    kind = draw(st.sampled_from(kinds))
    board = np.zeros(26, dtype=np.int8)
    if kind == "race":
        split = draw(st.integers(1, 23))     # mover below the split, opponent above it
        _place(draw, board, 1, POINTS[:split], _count(draw))
        _place(draw, board, -1, POINTS[split:], _count(draw))
        return board
    if kind == "bearoff":
        return draw(bearoff_positions())
    if kind == "few":
        n_mover, n_opp = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    else:
        n_mover, n_opp = _count(draw), _count(draw)
    if kind == "bar":
        on_bar = draw(st.integers(1, min(4, n_mover)))
        board[BAR] = on_bar
        n_mover -= on_bar
        opp_on_bar = draw(st.integers(0, min(2, n_opp - 1)))
        board[OPP_BAR] = -opp_on_bar
        n_opp -= opp_on_bar
    _place(draw, board, 1, POINTS + [BAR], n_mover)
    _place(draw, board, -1, _opponent_places(board, POINTS), n_opp)
    return board


@st.composite
def bearoff_positions(draw):
    """The mover has all his checkers in his home board (points 1..6), some possibly borne off;
    the opponent is either all home too (a pure bear-off race) or anywhere the mover is not."""
    board = np.zeros(26, dtype=np.int8)
    _place(draw, board, 1, POINTS[:HOME_TOP], draw(st.integers(1, CHECKERS)))
    if draw(st.booleans()):
        places = _opponent_places(board, POINTS[-HOME_TOP:], bar=False)
    else:
        places = _opponent_places(board, POINTS)
    _place(draw, board, -1, places, _count(draw))
    return board


def selfplay_positions(n, seed):
    """Every position (player on roll) of seeded random self-play games, uniform over the
    legal results: ``n`` boards, int8 (n, 26), all classes from contact to bear-off."""
    rng = np.random.default_rng(seed)
    out = []
    b = np.array(fastbg.START)
    while len(out) < n:
        d = rng.integers(1, 7, 2)
        res = fastbg.legal_moves(b, (int(d[0]), int(d[1])))
        nb = res[rng.integers(len(res))] if len(res) else b
        if not (nb[1:] > 0).any():
            b = np.array(fastbg.START)
            continue
        b = fastbg.flip(nb)
        out.append(b.copy())
    return np.array(out, np.int8)
