"""Slow, obviously correct n-ply evaluation (docs/engine.md section 1), over fastbg's
legal_moves and any 0-ply evaluator: plain recursion, one position at a time.

``probs0(board)``: the 0-ply probabilities of the player on roll (5 floats);
``score(results)``: the 0-ply scores of a move's results (the mover's cubeless equity,
the opponent on roll), the best of which is played (the first best); ``searched(board)``:
whether a position is looked into (False: known exactly, evaluated at 0-ply).
"""
import numpy as np

import fastbg
from fastbg.constants import ROLLS


def swap(p):
    """Probabilities of the other side: 1 - win, and gammons / backgammons exchanged."""
    return np.array([1.0 - p[0], p[3], p[4], p[1], p[2]])


def nply(board, ply, probs0, score, searched):
    """(probabilities, ties): the ply-ply probabilities of ``board`` and how many move
    choices inside had an exact tie for the best score that can matter (on the last
    level: tied results with different probabilities)."""
    if ply == 0 or not searched(board):
        return np.asarray(probs0(board), np.float64), 0
    total = np.zeros(5)
    ties = 0
    for d1, d2 in ROLLS:
        results = fastbg.legal_moves(board, (int(d1), int(d2)))
        s = np.asarray(score(results), np.float64)
        best = int(np.argmax(s))          # the first best
        tied = [i for i in np.flatnonzero(s == s[best]) if i != best]
        if ply > 1:
            ties += bool(tied)                # any tie can change what is searched
        else:                                 # a leaf's value is its 0-ply probabilities
            mine = probs0(fastbg.flip(results[best]))
            ties += any((probs0(fastbg.flip(results[i])) != mine).any() for i in tied)
        p, t = nply(fastbg.flip(results[best]), ply - 1, probs0, score, searched)
        ties += t
        total += (1.0 if d1 == d2 else 2.0) * swap(p)
    return total / 36.0, ties


def gnubg_nply(net, board, ply):
    """:func:`nply` with the gnubg net: its scores, and no search of finished games and
    two-sided bear-offs (classes 0 and 1), which its tables know exactly."""
    return nply(board, ply, net.probabilities, net.scores, lambda b: net.classes(b) > 1)
