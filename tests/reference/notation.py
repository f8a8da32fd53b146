"""Slow, obviously-correct reference for GNU Backgammon's move notation (docs/notation.md).

Two independent pieces, neither importing fastbg:

* :func:`format_move_ref` is gnubg's ``FormatMove`` (``drawboard.c``) transcribed line by
  line: the 4x4 ``aanMove`` array is one flat list of 16 ints and ``pnSource``/``pnDest``
  are indices into it, so even its pointer arithmetic (a chain of four steps with three
  hits runs its destination pointer into the next row) is reproduced as written.
* :func:`step_multisets_ref` enumerates, with the reference generator's single-die
  :func:`reference.movegen.step`, every play of a roll that docs/rules.md section 3 allows,
  and gives for each result every multiset of single-die steps that reaches it.

Steps are ``(from, to)`` pairs in the mover's numbering, 25 the bar and 0 off.
"""
from functools import cmp_to_key

from reference.movegen import as_tuple, step

OFF = 0
BAR = 25


def _gnubg_opponent_row(b):
    """gnubg's ``anBoard[0]``: the opponent's checkers in his own numbering, index j his
    point j + 1 (the mover's point 24 - j), index 24 his bar."""
    return [max(-b[24 - j], 0) for j in range(24)] + [-b[0]]


def _format_point(n):
    """FormatPoint."""
    if n == 0:
        return "off"
    if n == 25:
        return "bar"
    return str(n)


def _compare_moves_simple(p0, p1):
    """CompareMovesSimple on two rows of four ints."""
    if p0[0] != p1[0]:
        return p1[0] - p0[0]
    return p1[1] - p0[1]


def format_move_ref(board, steps):
    """gnubg's FormatMove(sz, anBoard, anMove) for the position ``board`` (interchange
    layout, before the move) and ``steps``."""
    b = as_tuple(board)
    an_board0 = _gnubg_opponent_row(b)
    an_move = []
    for src, dest in steps:                     # gnubg's anMove: 0-based, bar 24, off -1
        an_move += [src - 1, dest - 1 if dest != OFF else -1]
    an_move += [-1] * (8 - len(an_move))

    aan = [0] * 16
    pn_source = [None] * 4
    pn_dest = [None] * 4
    i = 0
    while i < 4 and an_move[i << 1] >= 0:
        aan[4 * i] = an_move[i << 1] + 1
        aan[4 * i + 1] = an_move[(i << 1) | 1] + 1
        pn_source[i] = 4 * i
        pn_dest[i] = 4 * i + 1
        i += 1
    while i < 4:
        aan[4 * i] = aan[4 * i + 1] = -1
        pn_source[i] = None
        i += 1

    rows = sorted((aan[4 * k:4 * k + 4] for k in range(4)), key=cmp_to_key(_compare_moves_simple))
    aan = [x for row in rows for x in row]

    for i in range(4):
        for j in range(i, 4):
            if (pn_source[i] is not None and pn_source[j] is not None
                    and aan[pn_dest[i]] == aan[pn_source[j]]):
                if an_board0[24 - aan[pn_dest[i]]]:
                    pn_dest[i] += 1                        # *++pnDest[i] = *pnDest[j]
                    aan[pn_dest[i]] = aan[pn_dest[j]]
                else:
                    aan[pn_dest[i]] = aan[pn_dest[j]]      # *pnDest[i] = *pnDest[j]
                pn_source[j] = None

    i = 0
    for j in range(4):
        if pn_source[j] is not None:
            if j > i:
                pn_source[i] = pn_source[j]
                pn_dest[i] = pn_dest[j]
            i += 1
    while i < 4:
        pn_source[i] = None
        i += 1

    an_count = [1 if pn_source[i] is not None else 0 for i in range(4)]
    for i in range(3):
        if pn_source[i] is not None:
            n_moves = pn_dest[i] - pn_source[i]
            for j in range(i + 1, 4):
                if pn_source[j] is not None:
                    duplicate = True
                    if pn_dest[j] - pn_source[j] != n_moves:
                        duplicate = False
                    else:
                        k = 0
                        while k <= n_moves and duplicate:
                            if aan[pn_source[i] + k] != aan[pn_source[j] + k]:
                                duplicate = False
                            k += 1
                    if duplicate:
                        an_count[i] += 1
                        pn_source[j] = None

    i = 0
    for j in range(4):
        if pn_source[j] is not None:
            if j > i:
                pn_source[i] = pn_source[j]
                pn_dest[i] = pn_dest[j]
                an_count[i] = an_count[j]
            i += 1
    if i < 4:
        pn_source[i] = None

    out = ""
    fl = 0
    i = 0
    while i < 4 and pn_source[i] is not None:
        if i:
            out += " "
        out += _format_point(aan[pn_source[i]])
        j = 1
        while pn_source[i] + j < pn_dest[i]:
            out += "/" + _format_point(aan[pn_source[i] + j]) + "*"
            fl |= 1 << aan[pn_source[i] + j]
            j += 1
        out += "/" + _format_point(aan[pn_dest[i]])
        d = aan[pn_dest[i]]
        if d and an_board0[24 - d] and not (fl & (1 << d)):
            out += "*"
            fl |= 1 << d
        if an_count[i] > 1:
            out += "(" + chr(ord("0") + an_count[i]) + ")"
        i += 1
    return out


def _orders(d1, d2):
    return [(d1,) * 4] if d1 == d2 else [(d1, d2), (d2, d1)]


def _levels(board, order):
    """Level k: the set of (position, sorted steps) after the first k dice of ``order``;
    the list stops at the last non-empty level."""
    levels = [{(board, ())}]
    for die in order:
        nxt = set()
        for b, steps in levels[-1]:
            for src, nb in step(b, die):
                dest = max(src - die, OFF)
                nxt.add((nb, tuple(sorted(steps + ((src, dest),)))))
        if not nxt:
            break
        levels.append(nxt)
    return levels


def step_multisets_ref(board, dice):
    """``{result: {sorted steps, ...}}`` for every legal play of ``dice`` (docs/rules.md
    section 3: the most dice; of a non-double of which one die can be played, the higher
    when it can be). When nothing can be played: ``{board: {()}}``."""
    b = as_tuple(board)
    d1, d2 = int(dice[0]), int(dice[1])
    by_order = {order: _levels(b, order) for order in _orders(d1, d2)}
    most = max(len(levels) - 1 for levels in by_order.values())
    if most == 0:
        return {b: {()}}
    if d1 != d2 and most == 1:
        hi, lo = max(d1, d2), min(d1, d2)
        chosen = [(hi, lo)] if len(by_order[(hi, lo)]) > 1 else [(lo, hi)]
    else:
        chosen = [order for order, levels in by_order.items() if len(levels) - 1 == most]
    out = {}
    for order in chosen:
        for result, steps in by_order[order][most]:
            out.setdefault(result, set()).add(steps)
    return out


def notations_ref(board, dice):
    """``{result: {texts}}``: every text FormatMove writes for some step multiset of each
    legal result (one text each, if the text does not depend on the steps chosen)."""
    return {r: {format_move_ref(board, s) for s in sets}
            for r, sets in step_multisets_ref(board, dice).items()}
