"""GNU Backgammon's move notation, both ways: ``move_notation`` writes a move ("24/18 13/11",
"bar/22*", "13/8*/7", "6/off(2)") and ``parse_move`` reads it back (docs/notation.md).

A move is identified by the position it produces (docs/rules.md section 3), so
``move_notation`` takes that result and finds the single-die steps that lead to it, in the
order GNU Backgammon's move generator (``GenerateMoves`` in its ``eval.c``) finds them
first; ``move_steps`` returns those steps. They are then written as gnubg's ``FormatMove``
(``drawboard.c``) writes them: sorted by source point, steps of one checker joined, repeats
counted. docs/notation.md section 2 states these rules, section 3 what parse_move reads,
and section 4 how the steps are chosen and when the dice change the text.

Plain Python: notation is for people and files, not for the inner loops.
"""
import re
from itertools import pairwise

import numpy as np

from fastbg.constants import BAR, BOARD_DTYPE, BOARD_SIZE, HOME_TOP, LAST_POINT, OPP_BAR, ROLLS
from fastbg.position.board import validate
from fastbg.position.moves import legal_moves

# Numbers of the notation (gnubg's too): points 1..24 in the mover's numbering, the bar 25
# (= BAR) and borne off 0.
OFF = 0
# gnubg's own wording for a roll that cannot be played (its text and HTML exports);
# FormatMove itself writes the empty string, which move_notation returns.
CANNOT_MOVE = "Cannot move"
MAX_STEPS = 4           # single-die steps in one move (a double)


def _point_text(n):
    """gnubg's FormatPoint: 0 is "off", 25 is "bar", others their number."""
    return "off" if n == OFF else "bar" if n == BAR else str(n)


def _after_step(pos, src, dest):
    """A copy of ``pos`` (a list of 26 ints) with one mover checker moved from ``src`` to
    ``dest`` (OFF: borne off), hitting a blot on ``dest``."""
    new = list(pos)
    new[src] -= 1
    if dest != OFF:
        if new[dest] == -1:             # a blot: it goes to the opponent's bar
            new[dest] = 0
            new[OPP_BAR] -= 1
        new[dest] += 1
    return new


def _step_is_legal(pos, src, die):
    """gnubg's LegalMove for a mover checker on ``src`` (1..24) and ``die``."""
    dest = src - die
    if dest >= 1:
        return pos[dest] >= -1
    highest = max(p for p in range(1, BAR + 1) if pos[p] > 0)     # the bar counts (25)
    return highest <= HOME_TOP and (src == highest or dest == 0)


def _gnubg_move_list(board, d1, d2):
    """Every legal result of ``board`` with the roll (d1, d2) and the steps gnubg records
    for it: a dict ``{tuple(result): ((from, to), ...)}`` in gnubg's numbering.

    A port of gnubg's GenerateMovesSub/SaveMoves: the dice in the order (d1, d2), then
    (d2, d1) for a non-double; sources from the highest point down (for a double never
    above the previous step's source); only sequences using the most dice (and, among
    one-die plays, the most pips) count; the first sequence found for a result is kept.
    A roll that cannot be played gives ``{}``.
    """
    found = {}
    best = [0, 0]                                # most steps, most pips seen so far
    steps = [None] * MAX_STEPS
    dice = [d1, d2] + [d1, d1] * (d1 == d2) + [0, 0] * (d1 != d2)
    double = d1 == d2

    def save(pos, n, pips):
        if n < best[0] or pips < best[1]:
            return
        if n > best[0] or pips > best[1]:
            found.clear()
            best[:] = n, pips
        found.setdefault(tuple(pos), tuple(steps[:n]))

    def search(pos, depth, top, pips):
        """Play dice[depth] every legal way; True when it cannot be played (or none is left)."""
        if depth == MAX_STEPS or not dice[depth]:
            return True
        die = dice[depth]
        if pos[BAR] > 0:                         # a checker on the bar must enter first
            dest = BAR - die
            if pos[dest] <= -2:
                return True
            steps[depth] = (BAR, dest)
            new = _after_step(pos, BAR, dest)
            if search(new, depth + 1, LAST_POINT, pips + die):
                save(new, depth + 1, pips + die)
            return False
        used = False
        for src in range(top, 0, -1):
            if pos[src] > 0 and _step_is_legal(pos, src, die):
                dest = max(src - die, OFF)
                steps[depth] = (src, dest)
                new = _after_step(pos, src, dest)
                if search(new, depth + 1, src if double else LAST_POINT, pips + die):
                    save(new, depth + 1, pips + die)
                used = True
        return not used

    start = [int(x) for x in board]
    search(start, 0, LAST_POINT, 0)
    if not double:
        dice[0], dice[1] = d2, d1
        search(start, 0, LAST_POINT, 0)
    return found


def _format_move(board, steps):
    """gnubg's FormatMove: the text of the single-die ``steps`` ((from, to) pairs, gnubg's
    numbering) played from ``board`` (the position before the move)."""
    opp_had = [int(x) < 0 for x in board]        # points the opponent held before the move
    # Sources in decreasing order, equal sources by decreasing destination.
    chains = [[src, dest] for src, dest in sorted(steps, reverse=True)]
    alive = [True] * len(chains)
    # Join the steps of one checker: a chain absorbs each later step that starts where it
    # ends; the joining point stays written (with "*") only when a blot was hit there.
    for i, chain in enumerate(chains):
        for j in range(i + 1, len(chains)):
            if alive[i] and alive[j] and chain[-1] == chains[j][0]:
                if opp_had[chain[-1]]:
                    chain.append(chains[j][1])
                else:
                    chain[-1] = chains[j][1]
                alive[j] = False
    chains = [c for c, keep in zip(chains, alive) if keep]
    # Identical chains are written once with their count: "6/5(2)".
    counts = [1] * len(chains)
    for i in range(len(chains)):
        for j in range(i + 1, len(chains)):
            if counts[i] and counts[j] and chains[i] == chains[j]:
                counts[i] += 1
                counts[j] = 0
    starred = set()                              # a hit is marked once, where first written
    parts = []
    for chain, count in zip(chains, counts):
        if not count:
            continue
        text = _point_text(chain[0])
        for point in chain[1:-1]:
            text += f"/{_point_text(point)}*"
            starred.add(point)
        dest = chain[-1]
        text += f"/{_point_text(dest)}"
        if dest != OFF and opp_had[dest] and dest not in starred:
            text += "*"
            starred.add(dest)
        if count > 1:
            text += f"({count})"
        parts.append(text)
    return " ".join(parts)


def _one_board(board, what):
    b = validate(board)
    if b.ndim != 1:
        raise ValueError(f"{what} is one board of shape ({BOARD_SIZE},), got {b.shape}")
    return b


def _check_dice(board, dice):
    """``dice`` as a pair of ints, checked by legal_moves (which raises for a bad roll)."""
    legal_moves(board, dice)
    return int(dice[0]), int(dice[1])


def notation_table(board, roll, legal):
    """The notations of a checked board (valid int8 (26,)) whose roll (a pair of ints,
    checked) has its legal results ``legal`` already generated (``legal_moves(board,
    roll)``, not generated again): ``table.notation(result, roll)`` is
    ``move_notation(board, result, roll)`` of a legal result, the move list of the roll
    built once for all of them."""
    table = _Notations(board)
    table.legal[roll] = {r.tobytes() for r in legal}
    return table


class _Notations:
    """The legal results, steps and texts of one board, roll by roll, computed when first
    asked. Rolls are pairs of ints already checked."""

    def __init__(self, board):
        self.board = board
        self.legal = {}                          # roll -> set of result bytes
        self.moves = {}                          # roll -> {tuple(result): steps}

    def is_legal(self, result, roll):
        if roll not in self.legal:
            self.legal[roll] = {r.tobytes() for r in legal_moves(self.board, roll)}
        return result.tobytes() in self.legal[roll]

    def steps(self, result, roll):
        """gnubg's steps for ``result`` with ``roll``; ValueError when it is not legal."""
        if not self.is_legal(result, roll):
            raise ValueError(f"result is not a legal move of the board with {roll[0]}-{roll[1]} "
                             "(not among legal_moves(board, dice))")
        if roll not in self.moves:
            self.moves[roll] = _gnubg_move_list(self.board, *roll)
        if not self.moves[roll]:
            return ()                            # no move: the board itself
        key = tuple(int(x) for x in result)
        if key not in self.moves[roll]:          # legal_moves and gnubg's generator disagree
            raise RuntimeError(f"no step sequence found for a legal result with {roll}")
        return self.moves[roll][key]

    def notation(self, result, roll):
        """The text of ``result`` with ``roll``, or (roll None) with the roll chosen as
        docs/notation.md section 4 says: of the rolls that play it, the one with the fewest
        steps, then the first in ROLLS order."""
        if roll is None:
            rolls = [r for r in map(tuple, ROLLS.tolist()) if self.is_legal(result, r)]
            if not rolls:
                raise ValueError("result cannot be reached from the board with any roll")
            roll = min(rolls, key=lambda r: len(self.steps(result, r)))
        return _format_move(self.board, self.steps(result, roll))


def move_steps(board, result, dice):
    """The single-die steps that take ``board`` to ``result`` with ``dice``, as GNU
    Backgammon records them: a tuple of ``(from, to)`` pairs, points in the mover's
    numbering, 25 the bar and 0 off, in the order GNU Backgammon's move generator plays
    them (the dice as given first). ``gnubg_nn.moves(board, d1, d2, 1)`` gives the same
    steps, though its older generator may list a non-double's two steps the other way
    round (docs/notation.md section 5). ``()`` when the roll cannot be played. ValueError
    when ``result`` is not legal.

    >>> import fastbg
    >>> r = fastbg.parse_move(fastbg.START, "24/20", (3, 1))
    >>> move_steps(fastbg.START, r, (3, 1))
    ((24, 21), (21, 20))
    """
    b = _one_board(board, "board")
    r = _one_board(result, "result")
    return _Notations(b).steps(r, _check_dice(b, dice))


def move_notation(board, result, dice=None):
    """The move from ``board`` (player on roll) to ``result`` (one of its legal results,
    seen from the same player) in GNU Backgammon's notation, e.g. ``"24/18 13/11"``,
    ``"bar/22*"``, ``"13/8*/7"``, ``"8/5(2) 6/5(2)"`` (docs/notation.md section 2).

    ``dice``: the roll; the result must then be in ``legal_moves(board, dice)``. Pass it
    when it is known: the text can depend on it (from the start, 6/5 6/3 with 3-1 is
    written 6/3 6/5 with 1-1). Without dice the roll is chosen among those that play the
    result: the one with the fewest steps, then the first in ``fastbg.ROLLS`` order
    (docs/notation.md section 4). A roll that cannot be played (``result`` equal to
    ``board``) gives ``""``, as gnubg's FormatMove writes it. ValueError when the result
    is not legal with the dice (or, without, with any roll).

    >>> import fastbg
    >>> r = fastbg.START.copy()
    >>> r[8] -= 1; r[6] -= 1; r[5] += 2
    >>> move_notation(fastbg.START, r, (3, 1))
    '8/5 6/5'
    """
    b = _one_board(board, "board")
    r = _one_board(result, "result")
    roll = None if dice is None else _check_dice(b, dice)
    return _Notations(b).notation(r, roll)


def move_notations(board, results, dice=None):
    """:func:`move_notation` of each row of ``results`` (shape (k, 26), e.g.
    ``legal_moves(board, dice)``): a list of k strings. The move list of the roll is built
    once for all rows."""
    b = _one_board(board, "board")
    rs = validate(results)
    if rs.ndim != 2:
        raise ValueError(f"results has shape (k, {BOARD_SIZE}), got {rs.shape}")
    roll = None if dice is None else _check_dice(b, dice)
    table = _Notations(b)
    return [table.notation(r, roll) for r in rs]


# One token of a move: a chain of points joined by "/", each point optionally marked "*"
# (a hit), then an optional repeat count "(n)".
_POINT = r"(?:\d+|bar|b|off|o)"
_TOKEN = re.compile(rf"({_POINT}\*?(?:/{_POINT}\*?)+)(?:\((\d+)\))?")


def _point_number(word, text):
    if word in ("bar", "b"):
        return BAR
    if word in ("off", "o"):
        return OFF
    n = int(word)
    if not OFF <= n <= BAR:
        raise ValueError(f"{text!r}: point {n} is not 1..24 (25 is the bar, 0 off)")
    return n


def _parse_segments(text):
    """The (from, to) jumps of a move's text, in writing order, repeats expanded."""
    clean = text.strip().lower()
    clean = re.sub(r"\s*/\s*", "/", clean)
    clean = re.sub(r"\s*\*", "*", clean)
    clean = re.sub(r"\s*\(\s*(\d+)\s*\)", r"(\1)", clean)
    if clean in ("", CANNOT_MOVE.lower()):
        return []
    segments = []
    for token in re.split(r"[\s,]+", clean):
        m = _TOKEN.fullmatch(token)
        if not m:
            raise ValueError(f"{text!r}: cannot read {token!r}; a move looks like "
                             "'24/18 13/11', 'bar/22*', '13/8*/7' or '6/off(2)'")
        points = [_point_number(w, text) for w in m.group(1).replace("*", "").split("/")]
        if points[0] == OFF:
            raise ValueError(f"{text!r}: {token!r} starts off the board")
        for p in points[1:]:
            if p == BAR:
                raise ValueError(f"{text!r}: {token!r} moves onto the bar")
        for p in points[1:-1]:
            if p == OFF:
                raise ValueError(f"{text!r}: {token!r} continues after bearing off")
        repeat = int(m.group(2)) if m.group(2) else 1
        if not 1 <= repeat <= MAX_STEPS:
            raise ValueError(f"{text!r}: repeat count ({repeat}) must be 1..{MAX_STEPS}")
        parts = list(pairwise(points))
        for src, dest in parts:
            if dest >= src:
                raise ValueError(f"{text!r}: {_point_text(src)}/{_point_text(dest)} does not "
                                 "move forward (the mover moves from 24 down to 1, then off)")
        segments += parts * repeat
    if len(segments) > MAX_STEPS:
        raise ValueError(f"{text!r}: {len(segments)} moves; a roll plays at most {MAX_STEPS}")
    return segments


def parse_move(board, text, dice=None):
    """The result of playing ``text`` (GNU Backgammon's notation) from ``board``: an
    ``int8`` board of shape (26,), still seen from the player who moved.

    Read as gnubg reads a move (docs/notation.md section 3): points 1..24 in the mover's
    numbering, ``bar``/``b``/``25`` for the bar, ``off``/``o``/``0`` for bearing off,
    moves separated by spaces (or commas), ``/`` chains one checker's moves
    ("13/8/5"), ``(n)`` repeats a move n times in all, case and ``*`` do not matter (a
    checker hits whatever blot it lands on). Each part a/b moves one checker from a to b.
    ``""`` or ``"Cannot move"`` is no move.

    The result must be legal: in ``legal_moves(board, dice)`` when ``dice`` is given,
    else a legal result of some roll. Malformed text or an illegal move raises ValueError
    saying what is wrong.

    >>> import fastbg
    >>> r = parse_move(fastbg.START, "8/5 6/5", (3, 1))
    >>> int(r[5]), int(r[6]), int(r[8])
    (2, 4, 2)
    """
    b = _one_board(board, "board")
    if not isinstance(text, str):
        raise TypeError(f"a move's text is a str, got {type(text).__name__}")
    roll = None if dice is None else _check_dice(b, dice)
    return parse_move_checked(b, text, roll, _Notations(b))


def parse_move_checked(b, text, roll, table):
    """:func:`parse_move` of a board ``b`` and a roll (a pair of ints, or None) already
    checked, with the :class:`_Notations` ``table`` of ``b`` (from :func:`notation_table`:
    the roll's legal moves already generated, as a move rollout has them); ``text`` a str."""
    pos = [int(x) for x in b]
    for src, dest in sorted(_parse_segments(text), reverse=True):   # higher sources first
        if pos[src] <= 0:
            raise ValueError(f"{text!r}: no checker of the mover on {_point_text(src)} "
                             f"to play {_point_text(src)}/{_point_text(dest)}")
        if dest != OFF and pos[dest] <= -2:
            raise ValueError(f"{text!r}: point {dest} is held by the opponent")
        pos = _after_step(pos, src, dest)
    result = np.array(pos, dtype=BOARD_DTYPE)
    if roll is not None:
        if not table.is_legal(result, roll):
            raise ValueError(f"{text!r} is not a legal move with {roll[0]}-{roll[1]}")
        return result
    if not any(table.is_legal(result, roll) for roll in map(tuple, ROLLS.tolist())):
        raise ValueError(f"{text!r} is not a legal move with any roll")
    return result
