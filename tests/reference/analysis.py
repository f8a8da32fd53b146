"""Slow, obviously correct reference of :func:`fastbg.analyse`'s move figures in match
play: one position at a time, plain Python over ``fastbg.legal_moves``, the network and
the scalar cube formulas (GNU Backgammon's analysis.c and eval.c, as docs/analysis.md
states them).

``reference_moves(match, net, limit)`` -> [(equity_loss, luck, forced)] per move action
(the first ``limit`` of each game).
"""
import numpy as np

import fastbg
from fastbg.analysis.cube_actions import cube_efficiency
from fastbg.cube import formulas
from fastbg.cube.met import mwc_after

ROLLS = [(a, b) for a in range(6, 0, -1) for b in range(a, 0, -1)]


def _emg(mwc, away, opp_away, cube):
    win, lose = mwc_after(away, opp_away, cube), mwc_after(away, opp_away, -cube)
    return 2.0 * (mwc - lose) / (win - lose) - 1.0


def _on_roll_mwc(p, board, away, opp_away, cube, owner, crawford):
    """MWC of the player on roll: no double, or his best cube action when he may double."""
    x = cube_efficiency(board, "gnubg-1.1")
    nd = formulas.janowski_mwc(p, away, opp_away, x, cube, owner, crawford)
    if crawford or away <= cube or owner == "unavailable":
        return nd
    dt = formulas.janowski_mwc(p, away, opp_away, x, 2 * cube, "unavailable", crawford)
    dp = mwc_after(away, opp_away, cube)
    if dt >= nd and dp >= nd:
        return min(dt, dp)
    return nd


def _value(net, board, result, state):
    """The mover's normalised value after ``result`` (the opponent on roll)."""
    away, opp_away, cube, owner, crawford = state
    opp_owner = {"centred": "centred", "owned": "unavailable", "unavailable": "owned"}[owner]
    opp_board = fastbg.flip(result)
    p = net.probabilities(opp_board[None])[0]
    theirs = _on_roll_mwc(p, opp_board, opp_away, away, cube, opp_owner, crawford)
    if (result == board).all():                 # no move: the opponent's normalisation
        return -_emg(theirs, opp_away, away, cube)
    return _emg(1.0 - theirs, away, opp_away, cube)


def _best(net, board, roll, state):
    return max(_value(net, board, r, state) for r in fastbg.legal_moves(board, roll))


def reference_moves(match, net, limit=None):
    out = []
    for g in match.games:
        cube, owner, n = 1, None, 0
        for a, board, result in g.replay():
            if a.kind == "take":
                cube, owner = a.cube, a.player
            if a.kind != "move":
                continue
            n += 1
            if limit is not None and n > limit:
                break
            me = a.player
            rel = "centred" if owner is None else "owned" if owner == me else "unavailable"
            state = (match.length - g.score[me], match.length - g.score[1 - me], cube, rel,
                     g.crawford)
            moves = fastbg.legal_moves(board, a.dice)
            values = [_value(net, board, r, state) for r in moves]
            dance = len(moves) == 1 and (moves[0] == board).all()
            played = values[[i for i, r in enumerate(moves) if (r == result).all()][0]]
            loss = max(values) - played if len(moves) > 1 else 0.0
            rolled = _best(net, board, a.dice, state)
            if (board == fastbg.START).all() and a.dice[0] != a.dice[1]:
                theirs = (state[1], state[0], cube, rel, g.crawford)
                mine = [_best(net, board, r, state) for r in ROLLS if r[0] != r[1]]
                other = [-_best(net, board, r, theirs) for r in ROLLS if r[0] != r[1]]
                mean = (sum(mine) + sum(other)) / 30.0
            else:
                mean = sum((1 if r[0] == r[1] else 2) * _best(net, board, r, state)
                           for r in ROLLS) / 36.0
            out.append((loss, rolled - mean, len(moves) <= 1 or dance))
    return out
