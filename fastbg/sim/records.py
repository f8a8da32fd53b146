"""Records of games and matches: :class:`GameRecord`, :class:`MatchRecord` (docs/records.md).

A run with ``record=True`` keeps every game's actions in compact arrays (the rows of
:mod:`fastbg.sim.record_kernels`, a few bytes a ply); ``res.records`` is a
:class:`Records` sequence over them that builds a :class:`GameRecord` (or
:class:`MatchRecord`) only when one is asked for: then the game is replayed from its
rows, every move checked against the legal moves of its dice and every cube action
against :class:`fastbg.CubeGame`, and written in GNU Backgammon's notation.

Records read from files (:mod:`fastbg.files`) are the same classes, so a record written
and read back compares equal to the original.
"""
from collections import namedtuple
from dataclasses import dataclass, field, replace

import numpy as np

from fastbg.constants import START
from fastbg.cube.cube_game import CubeGame, IllegalCubeAction
from fastbg.cube.rules import MatchRules
from fastbg.position.board import flip
from fastbg.position.ids import board_from_position_id, position_id
from fastbg.position.notation import move_notation, parse_move
from fastbg.sim import record_kernels as _rk
from fastbg.sim.game_kernels import win_kind as _win_kind

Action = namedtuple("Action", "player kind dice move position_id cube")
Action.__doc__ = """One action of a game.

player      : 0 or 1 (None for a tied opening throw, which both players make)
kind        : "opening_tie", "opening", "move", "double", "take", "drop", "beaver",
              "raccoon" or "resign"
dice        : (d1, d2) of a move as rolled; the opening throw's (first player's die, the
              other's); a tie's (die, die); None for cube actions
move        : the move in GNU Backgammon's notation ("24/18 13/11", "" when the roll
              cannot be played); for "resign" the points offered (1, 2 or 3 times the
              cube) as text; else None
position_id : the Position ID before the action, from the side of the player on roll
cube        : the stake after the action (a double's offered value; a drop's the stake
              the game ended at); None for moves"""

KINDS = ("opening_tie", "opening", "move", "double", "take", "drop", "beaver", "raccoon",
         "resign")
_ROW_KIND = {_rk.K_DOUBLE: "double", _rk.K_TAKE: "take", _rk.K_DROP: "drop",
             _rk.K_BEAVER: "beaver", _rk.K_RACCOON: "raccoon"}
RESULTS = ("played", "drop", "resign", "truncated")
_KIND_WORD = {1: "single game", 2: "gammon", 3: "backgammon"}


class RecordError(ValueError):
    """A record (from the kernels or from a file) that does not follow the rules; the
    message names the game and the move number."""


@dataclass(frozen=True)
class GameRecord:
    """One game: who played, under which rules, every action, and how it ended.

    players  : the two players' names
    actions  : tuple of :class:`Action` in order
    rules    : MoneyRules, MatchRules or None (cubeless)
    score    : (points of player 0, of player 1) before the game (match play; money play
               the running totals, (0, 0) for a single game)
    crawford : this is the Crawford game
    winner   : 0 or 1; None when the game was stopped before its end
    result   : "played" (borne off), "drop", "resign" or "truncated"
    kind     : 1 single, 2 gammon, 3 backgammon (1 for a drop; for a resignation what
               was resigned)
    cube     : the final stake
    points   : points won by player 0 (negative when player 1 won): the stake times the
               kind under the rules (Jacoby), capped at what the winner needed in a match
    game     : the game's index in its run (its dice key), None when read from a file;
               not part of equality
    """
    players: tuple
    actions: tuple
    rules: object = None
    score: tuple = (0, 0)
    crawford: bool = False
    winner: object = None
    result: str = "played"
    kind: int = 1
    cube: int = 1
    points: int = 0
    game: object = field(default=None, compare=False)

    def __len__(self):
        return len(self.actions)

    @property
    def moves(self):
        """The actions of kind "move"."""
        return [a for a in self.actions if a.kind == "move"]

    def replay(self):
        """Each action with the board before it (seen from the player on roll) and,
        for a move, the result (from the mover's view; else None). Checks the game
        again (:func:`check_game`)."""
        return check_game(self)

    def text(self, number=None):
        """The game as text: one line per action, with its Position ID."""
        return game_text(self, number)

    def __str__(self):
        return self.text()


@dataclass(frozen=True)
class MatchRecord:
    """A match to ``length`` points: its games (:class:`GameRecord`) in order.

    score  : the final score, each capped at the length; winner 0 or 1 (None when the
             match was not finished)
    match  : the match's index in its run, None when read from a file (not compared)
    """
    players: tuple
    length: int
    games: tuple
    rules: object = None
    score: tuple = (0, 0)
    winner: object = None
    match: object = field(default=None, compare=False)

    def __len__(self):
        return len(self.games)

    def text(self):
        head = (f"Match to {self.length} points: {self.players[0]} (0) vs {self.players[1]} "
                f"(1), final score {self.score[0]}-{self.score[1]}")
        if self.winner is not None:
            head += f", won by {self.players[self.winner]}"
        return "\n\n".join([head] + [g.text(i + 1) for i, g in enumerate(self.games)])

    def __str__(self):
        return self.text()


# ---- replay and checks -------------------------------------------------------------------

def _err(where, text):
    raise RecordError(f"{where}: {text}")


def check_game(rec, where=None):
    """Replay ``rec`` (a :class:`GameRecord`): every move must be legal for its dice,
    every cube action allowed by the rules (:class:`fastbg.CubeGame`, incl. no double in
    the Crawford game), and the result must follow. Returns a list of (action, board
    before, result or None). RecordError names ``where`` (default "game") and the move
    number (the action's index, counted from 1)."""
    where = where or "game"
    board = (board_from_position_id(rec.actions[0].position_id) if rec.actions
             else np.array(START))
    cg = CubeGame(rec.rules, crawford_game=rec.crawford) if rec.rules is not None else None
    on_turn = None
    out = []
    bore_off = None
    for i, a in enumerate(rec.actions, 1):
        at = f"{where}, move {i}"
        if bore_off is not None:
            _err(at, f"an action after the game ended ({a.kind})")
        if a.kind not in KINDS:
            _err(at, f"unknown action {a.kind!r}")
        try:
            if a.kind == "opening_tie":
                if cg is not None and not cg.rules.is_match and cg.rules.auto_doubles:
                    cg.opening_tie(six_six=a.dice[0] == 6)
                out.append((a, board.copy(), None))
                continue
            if a.kind == "opening":
                out.append((a, board.copy(), None))
                continue
            if a.kind == "move":
                if on_turn != a.player:
                    if cg is not None:
                        cg.start_turn(a.player)
                    on_turn = a.player
                if cg is not None:
                    cg.rolled()
                try:
                    result = parse_move(board, a.move, a.dice)
                except ValueError as e:
                    _err(at, f"illegal move {a.move!r} with {a.dice[0]}{a.dice[1]} by player "
                             f"{a.player}: {e}")
                out.append((a, board.copy(), result))
                if not (result[1:] > 0).any():
                    bore_off = (a.player, result)
                board = flip(result)
                on_turn = None
                continue
            if a.kind == "resign":
                out.append((a, board.copy(), None))
                bore_off = ("resign", None)
                continue
            if cg is None:
                _err(at, f"a cube action ({a.kind}) in a game without the cube")
            if a.kind == "double":
                if on_turn != a.player:
                    cg.start_turn(a.player)
                    on_turn = a.player
                cg.offer(a.player)
            else:
                getattr(cg, a.kind)(a.player)
            out.append((a, board.copy(), None))
            if cg.over:
                bore_off = ("drop", None)
        except IllegalCubeAction as e:
            _err(at, f"{a.kind} by player {a.player} is not allowed: {e}")
    _check_end(rec, where, cg, bore_off)
    return out


def _check_end(rec, where, cg, ended):
    at = f"{where}, end"
    if rec.result == "truncated":
        if ended is not None:
            _err(at, "the game ended but is recorded as stopped before its end")
        return
    if ended is None:
        _err(at, f"the record says {rec.result!r} but the game did not end")
    how = ended[0]
    if rec.result == "played":
        if how not in (0, 1):
            _err(at, f"the game ended by a {how}, recorded as played out")
        winner = how
        kind = int(_win_kind(ended[1]))
        if kind != rec.kind:
            _err(at, f"the last move wins a {_KIND_WORD[kind]}, recorded as {rec.kind}")
        if cg is not None:
            cg.finish(winner, kind)
            pts = cg.result
        else:
            pts = kind if winner == 0 else -kind
    elif rec.result == "drop":
        if how != "drop":
            _err(at, "recorded as a dropped double but no double was dropped")
        pts = cg.result
        winner = 0 if pts > 0 else 1
    else:
        if how != "resign":
            _err(at, "recorded as a resignation but nobody resigned")
        winner = rec.winner
        mult = rec.kind
        if cg is not None and not rec.rules.is_match and rec.rules.jacoby and not cg.turned:
            mult = 1
        value = cg.value if cg is not None else 1
        pts = value * mult if winner == 0 else -value * mult
    if winner != rec.winner:
        _err(at, f"player {winner} won, recorded as a win of player {rec.winner}")
    if cg is not None and cg.value != rec.cube and rec.result != "resign":
        _err(at, f"the cube is {cg.value}, recorded as {rec.cube}")
    if isinstance(rec.rules, MatchRules):
        need = rec.rules.length - rec.score[winner]
        pts = max(-need, min(need, pts))
    if pts != rec.points:
        _err(at, f"the game is worth {pts:+d} points to player 0, recorded as {rec.points:+d}")


# ---- text ----------------------------------------------------------------------------------

def game_text(rec, number=None):
    """The text of a :class:`GameRecord` (``number`` heads it, as "Game 3")."""
    p = rec.players
    title = f"Game {number}" if number is not None else "Game"
    if rec.game is not None:
        title += f" (game key {rec.game})"
    head = [f"{title}: {p[0]} (0) vs {p[1]} (1)"]
    if isinstance(rec.rules, MatchRules):
        head.append(f"score {rec.score[0]}-{rec.score[1]} in a {rec.rules.length}-point match"
                    + (", Crawford game" if rec.crawford else ""))
    elif rec.rules is not None:
        head.append(f"money game, {rec.rules!r}")
    lines = [", ".join(head)]
    n = 0
    for a in rec.actions:
        who = "both" if a.player is None else p[a.player]
        if a.kind == "move":
            n += 1
            what = f"{n:3d}. {who:<12} {a.dice[0]}{a.dice[1]}: {a.move or '(no move)'}"
        elif a.kind == "opening_tie":
            what = f"     opening throws tie {a.dice[0]}-{a.dice[1]}, cube {a.cube}"
        elif a.kind == "opening":
            what = f"     opening: {who} throws {a.dice[0]}, the other {a.dice[1]}: {who} starts"
        elif a.kind == "resign":
            what = f"     {who} resigns ({a.move} points)"
        else:
            verb = {"double": "doubles to", "take": "takes at", "drop": "drops at",
                    "beaver": "beavers to", "raccoon": "raccoons to"}[a.kind]
            what = f"     {who} {verb} {a.cube}"
        lines.append(f"{what:<48} {a.position_id}")
    if rec.winner is None:
        lines.append("     stopped before the end")
    else:
        how = {"played": f"wins a {_KIND_WORD.get(rec.kind, '?')}", "drop": "wins (double dropped)",
               "resign": f"wins by resignation ({_KIND_WORD.get(rec.kind, '?')})"}[rec.result]
        lines.append(f"     {p[rec.winner]} {how}: {abs(rec.points)} point"
                     f"{'s' if abs(rec.points) != 1 else ''} (cube {rec.cube})")
    return "\n".join(lines)


# ---- compact arrays -> records ---------------------------------------------------------------

class RecordArrays:
    """The compact record arrays of units (games of :func:`fastbg.play`, or matches).

    rows    int8 (R, ROW_WIDTH): the rows of every unit, in order
    row_off int64 (n + 1,): unit i's rows are rows[row_off[i]:row_off[i + 1]]
    heads   int32 (G, H_SIZE): one head per game (record_kernels.H_*: first row within
            its unit, rows, score, Crawford flag, winner, kind, plies, first, cube,
            dropped, points)
    game_off int64 (n + 1,): unit i's games are heads[game_off[i]:game_off[i + 1]]
    """
    __slots__ = ("rows", "row_off", "heads", "game_off")

    def __init__(self, rows, row_off, heads, game_off):
        self.rows, self.row_off, self.heads, self.game_off = rows, row_off, heads, game_off

    def __len__(self):
        return self.row_off.shape[0] - 1

    @property
    def nbytes(self):
        return sum(a.nbytes for a in (self.rows, self.row_off, self.heads, self.game_off))

    @classmethod
    def empty(cls):
        return cls(np.zeros((0, _rk.ROW_WIDTH), np.int8), np.zeros(1, np.int64),
                   np.zeros((0, _rk.H_SIZE), np.int32), np.zeros(1, np.int64))

    @classmethod
    def from_buffers(cls, rows, counts, heads, games):
        """Compact a chunk's buffers: ``rows`` (n, cap, W) with ``counts`` (n,) used,
        ``heads`` (n, g, H) with ``games`` (n,) used."""
        n, cap = rows.shape[:2]
        used = np.arange(cap)[None, :] < counts[:, None]
        row_off = np.zeros(n + 1, np.int64)
        np.cumsum(counts, out=row_off[1:])
        game_off = np.zeros(n + 1, np.int64)
        np.cumsum(games, out=game_off[1:])
        g = np.arange(heads.shape[1])[None, :] < games[:, None]
        return cls(rows[used], row_off, np.ascontiguousarray(heads[g]), game_off)

    @classmethod
    def concat(cls, parts):
        parts = [p for p in parts if p is not None]
        if not parts:
            return cls.empty()
        rows = np.concatenate([p.rows for p in parts])
        heads = np.concatenate([p.heads for p in parts])
        row_off = [np.zeros(1, np.int64)]
        game_off = [np.zeros(1, np.int64)]
        r = g = 0
        for p in parts:
            row_off.append(p.row_off[1:] + r)
            game_off.append(p.game_off[1:] + g)
            r += int(p.row_off[-1])
            g += int(p.game_off[-1])
        return cls(rows, np.concatenate(row_off), heads, np.concatenate(game_off))


class Records:
    """``res.records``: the records of a run, one per game (:func:`fastbg.play`) or per
    match (:func:`fastbg.play_matches`), built from the compact arrays when asked for.

    ``len(records)``, ``records[i]`` (a :class:`GameRecord` or :class:`MatchRecord`),
    iteration, slices (lists), ``nbytes`` (memory of the arrays) and ``arrays`` (the
    :class:`RecordArrays`).
    """

    def __init__(self, arrays, *, players, rules, offset, length=None, start=None):
        self.arrays = arrays
        self.players = tuple(players)
        self.rules = rules
        self.offset = int(offset)
        self.length = length            # matches: the match length; None for games
        self.start = start              # (board, side) for games from a given position

    def __len__(self):
        return len(self.arrays)

    @property
    def nbytes(self):
        return self.arrays.nbytes

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        n = len(self)
        i = int(i)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"record {i} of {n}")
        a = self.arrays
        rows = a.rows[a.row_off[i]:a.row_off[i + 1]]
        heads = a.heads[a.game_off[i]:a.game_off[i + 1]]
        if self.length is None:
            return self._game(rows, heads[0], self.offset + i)
        games = tuple(self._game(rows[h[_rk.H_ROW0]:h[_rk.H_ROW0] + h[_rk.H_ROWS]], h,
                                 ((self.offset + i) << 16) | j)
                      for j, h in enumerate(heads))
        last = games[-1]
        score = list(last.score)
        w = last.winner
        score[w] = min(self.length, score[w] + abs(last.points))
        winner = w if score[w] >= self.length else None
        return MatchRecord(self.players, self.length, games, self.rules, tuple(score), winner,
                           match=self.offset + i)

    def _game(self, rows, head, key):
        """The :class:`GameRecord` of one game's rows and head, replayed and checked."""
        where = f"game {key}"
        start = self.start
        board = np.array(START) if start is None else np.array(start[0])
        cg = CubeGame(self.rules, crawford_game=bool(head[_rk.H_CRAWFORD])) \
            if self.rules is not None else None
        actions = []
        first = int(head[_rk.H_FIRST])
        i = 0
        on_turn = None
        while i < rows.shape[0]:
            kind = int(rows[i, _rk.R_HEAD]) & 15
            player = int(rows[i, _rk.R_HEAD]) >> 4
            d = int(rows[i, _rk.R_DICE])
            dice = (d // 8, d % 8)
            pid = position_id(board)
            if kind == _rk.K_TIE:
                if cg is not None and not cg.rules.is_match and cg.rules.auto_doubles:
                    cg.opening_tie(six_six=dice[0] == 6)
                actions.append(Action(None, "opening_tie", dice, None, pid,
                                      cg.value if cg is not None else 1))
            elif kind == _rk.K_OPENING:
                actions.append(Action(player, "opening", dice, None, pid, None))
            elif kind == _rk.K_MOVE:
                pairs = list(rows[i, _rk.R_A:])
                if i + 1 < rows.shape[0] and int(rows[i + 1, _rk.R_HEAD]) & 15 == _rk.K_MORE:
                    i += 1
                    pairs += list(rows[i, _rk.R_A:])
                result = _apply_pairs(board, pairs)
                try:
                    text = move_notation(board, result, dice)
                except ValueError as e:
                    raise RecordError(f"{where}, move {len(actions) + 1}: illegal move: {e}")
                if cg is not None:
                    if on_turn != player:
                        cg.start_turn(player)
                    cg.rolled()
                on_turn = None
                actions.append(Action(player, "move", dice, text, pid, None))
                board = flip(result)
            else:
                name = _ROW_KIND[kind]
                try:
                    if name == "double":
                        if on_turn != player:
                            cg.start_turn(player)
                            on_turn = player
                        cg.offer(player)
                        value = 2 * cg.value
                    else:
                        getattr(cg, name)(player)
                        value = cg.value * (2 if cg.pending != "none" else 1)
                except IllegalCubeAction as e:
                    raise RecordError(f"{where}, move {len(actions) + 1}: {e}")
                actions.append(Action(player, name, None, None, pid, value))
            i += 1
        winner, kind = int(head[_rk.H_WINNER]), int(head[_rk.H_KIND])
        pts = int(head[_rk.H_POINTS])
        if kind == 0:
            result, winner, pts = "truncated", None, 0
        elif head[_rk.H_DROPPED]:
            result = "drop"
        else:
            result = "played"
        return GameRecord(
            players=self.players, actions=tuple(actions), rules=self.rules,
            score=(int(head[_rk.H_SCORE0]), int(head[_rk.H_SCORE1])),
            crawford=bool(head[_rk.H_CRAWFORD]), winner=winner, result=result, kind=kind or 1,
            cube=int(head[_rk.H_CUBE]), points=pts if winner in (0, None) else -pts,
            game=key)


def _apply_pairs(board, pairs):
    """The board after moving one mover checker along each (from, to) pair in order
    (a checker landing on a blot hits it); ``pairs`` is a flat list, -1 ends it."""
    b = [int(x) for x in board]
    for k in range(0, len(pairs), 2):
        src, dst = int(pairs[k]), int(pairs[k + 1])
        if src < 0:
            break
        b[src] -= 1
        if dst > 0:
            if b[dst] == -1:
                b[dst] = 0
                b[0] -= 1
            b[dst] += 1
    return np.array(b, np.int8)


def buffers(n, cap, games_per_unit):
    """Fresh :class:`fastbg.sim.record_kernels.RecordBuffers` for ``n`` units of ``cap``
    rows each (``games_per_unit`` heads each; 0 for runs of single games)."""
    return _rk.RecordBuffers(np.zeros((n, cap, _rk.ROW_WIDTH), np.int8),
                             np.zeros((n, 2), np.int64),
                             np.zeros((n if games_per_unit else 0, games_per_unit, _rk.H_SIZE),
                                      np.int32))


def game_heads(outcome, cube_out, counts, score, crawford):
    """Heads (n, 1, H_SIZE) of single games from the kernel's outcome rows."""
    n = outcome.shape[0]
    h = np.zeros((n, 1, _rk.H_SIZE), np.int32)
    h[:, 0, _rk.H_ROWS] = counts
    h[:, 0, _rk.H_SCORE0], h[:, 0, _rk.H_SCORE1] = score
    h[:, 0, _rk.H_CRAWFORD] = crawford
    h[:, 0, _rk.H_WINNER] = outcome[:, 0]
    h[:, 0, _rk.H_KIND] = outcome[:, 1]
    h[:, 0, _rk.H_PLIES] = outcome[:, 2]
    h[:, 0, _rk.H_FIRST] = outcome[:, 3]
    h[:, 0, _rk.H_CUBE] = cube_out[:, 0]
    h[:, 0, _rk.H_DROPPED] = cube_out[:, 1]
    h[:, 0, _rk.H_POINTS] = cube_out[:, 2]
    return h



class GameBuilder:
    """Builds a :class:`GameRecord` action by action, checking each against the rules
    (for file readers): moves must be legal for their dice and played in turn, cube
    actions allowed by :class:`fastbg.CubeGame` (no double in the Crawford game). Every
    method takes ``where`` ("game 2, move 7 ...") for its RecordError."""

    def __init__(self, players, rules, score=(0, 0), crawford=False):
        self.players, self.rules, self.score, self.crawford = players, rules, score, crawford
        self.board = np.array(START)
        self.cg = CubeGame(rules, crawford_game=crawford) if rules is not None else None
        self.actions = []
        self.next = None            # the player to roll next (None before the first move)
        self.on_turn = None         # the player whose turn has started (a double)
        self.ended = None           # (how, winner, kind) once over

    def _live(self, where):
        if self.ended is not None:
            _err(where, "an action after the game ended")

    def _turn(self, player, where):
        if self.next is not None and player != self.next:
            _err(where, f"player {player} acts out of turn (player {self.next} is to roll)")
        if self.cg is not None and self.on_turn != player:
            self.cg.start_turn(player)
        self.on_turn = player

    def opening_tie(self, die, where):
        if self.cg is not None and not self.rules.is_match and self.rules.auto_doubles:
            self.cg.opening_tie(six_six=die == 6)
        self.actions.append(Action(None, "opening_tie", (die, die), None,
                                   position_id(self.board), self.cg.value if self.cg else 1))

    def opening(self, player, dice):
        self.actions.append(Action(player, "opening", tuple(dice), None,
                                   position_id(self.board), None))

    def move(self, player, dice, text, where):
        """A roll and its move (``text`` in gnubg's notation, one step or many per part)."""
        self._live(where)
        self._turn(player, where)
        if self.cg is not None and self.cg.pending != "none":
            _err(where, f"player {player} rolls while a {self.cg.pending} cube waits for an "
                        "answer")
        try:
            result = parse_move(self.board, text, dice)
        except ValueError as e:
            _err(where, f"illegal move {text.strip()!r} with {dice[0]}{dice[1]} by "
                        f"{self.players[player]}: {e}")
        if self.cg is not None:
            self.cg.rolled()
        self.actions.append(Action(player, "move", tuple(dice),
                                   move_notation(self.board, result, dice),
                                   position_id(self.board), None))
        if not (result[1:] > 0).any():
            self.ended = ("played", player, int(_win_kind(result)))
        self.board = flip(result)
        self.next = 1 - player
        self.on_turn = None
        return result

    def cube(self, kind, player, where, value=None):
        """A cube action (double, take, drop, beaver, raccoon) of ``player``; ``value``, if
        given, is the stake the file says it offers (checked)."""
        self._live(where)
        if self.cg is None:
            _err(where, f"a cube action ({kind}) in a game without the cube")
        pid = position_id(self.board)
        try:
            if kind == "double":
                self._turn(player, where)
                self.cg.offer(player)
                offered = 2 * self.cg.value
            else:
                getattr(self.cg, kind)(player)
                offered = self.cg.value * (2 if self.cg.pending != "none" else 1)
        except IllegalCubeAction as e:
            _err(where, f"{kind} by {self.players[player]} is not allowed: {e}")
        if value is not None and kind in ("double", "beaver", "raccoon") and value != offered:
            _err(where, f"{kind} to {value}, but the cube would be {offered}")
        self.actions.append(Action(player, kind, None, None, pid, offered))
        if self.cg.over:
            self.ended = ("drop", 0 if self.cg.result > 0 else 1, 1)

    def resign(self, player, kind, where):
        """``player`` resigns a game of ``kind`` (1 single, 2 gammon, 3 backgammon)."""
        self._live(where)
        self.actions.append(Action(player, "resign", None, str(kind), position_id(self.board),
                                   None))
        self.ended = ("resign", 1 - player, kind)

    @property
    def stake(self):
        return self.cg.value if self.cg is not None else 1

    def record(self, where):
        """The finished :class:`GameRecord` (checked once more by :func:`check_game`)."""
        if self.ended is None:
            result, winner, kind, pts = "truncated", None, 1, 0
        else:
            result, winner, kind = self.ended
            cg = self.cg
            if result == "drop":
                pts = cg.result
            else:
                mult = kind
                if (cg is not None and not self.rules.is_match and self.rules.jacoby
                        and not cg.turned):
                    mult = 1
                pts = self.stake * mult * (1 if winner == 0 else -1)
            if isinstance(self.rules, MatchRules):
                need = self.rules.length - self.score[winner]
                pts = max(-need, min(need, pts))
        rec = GameRecord(players=tuple(self.players), actions=tuple(self.actions),
                         rules=self.rules, score=tuple(self.score), crawford=self.crawford,
                         winner=winner, result=result, kind=kind, cube=self.stake, points=pts)
        check_game(rec, where)
        return rec


def money_session(games, players=None):
    """Several money (or cubeless) games as one session: a :class:`MatchRecord` of length
    0 whose games carry the running score before each (what a .mat "0 point match" or an
    .sgf session holds), ``score`` the totals after the last. ``games``: GameRecords of
    the same two players, as :func:`fastbg.play` records them.

    >>> import fastbg
    >>> res = fastbg.play(3, ("pubeval", "random"), seed=1, record=True)
    >>> s = fastbg.money_session(res.records)
    >>> s.score == tuple(sum(abs(g.points) for g in s.games if g.winner == p) for p in (0, 1))
    True
    """
    games = list(games)
    if not games or not all(isinstance(g, GameRecord) for g in games):
        raise TypeError("money_session takes one or more GameRecords")
    if any(isinstance(g.rules, MatchRules) for g in games):
        raise ValueError("money_session takes money or cubeless games, not match games")
    players = tuple(players) if players is not None else games[0].players
    score = [0, 0]
    out = []
    for g in games:
        out.append(replace(g, players=players, score=tuple(score)))
        if g.winner is not None:
            score[g.winner] += abs(g.points)
    return MatchRecord(players, 0, tuple(out), games[0].rules, tuple(score), None)
