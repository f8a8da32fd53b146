"""Jellyfish .mat match files as GNU Backgammon writes them: :func:`write_mat`, :func:`read_mat`
(docs/records.md section 3).

Layout (what GNU Backgammon's ``export match mat`` writes, and what its importer reads):
optional ``;`` comment lines, `` N point match`` (0 for money), then per game
`` Game k``, the score line `` name0 : s0`` padded to 31 characters then ``name1 : s1``, and
numbered lines ``%3d) `` + player 0's cell padded to 27 characters + a space + player 1's
cell. A cell is a roll and its move (``52: 13/11 24/19*``, one part per single-die step,
25 the bar and 0 off, ``*`` on the first step that lands on a blot), ``Doubles => v``,
``Beavers => v``, ``Raccoons => v``, ``Takes``, ``Drops``; ``Wins n point(s)`` in the
winner's column ends a game (after a resignation, n says what was resigned).

GNU Backgammon's importer splits a line at the second ``NN:`` or else at the first
double space after character 15, so the left cell is padded to 27 characters as it
writes it. It checks moves against the position but not against the dice, and skips an
invalid move with only a warning; :func:`read_mat` checks every move against the rules
and its dice and raises on the first fault, naming the game and the move number.

Opening ties (and the opening throw, when it is not the first move's dice) have no place
in the format: fastbg writes them as ``; fastbg opening`` comment lines, which GNU
Backgammon keeps as the match's comment.
"""
import re

from fastbg.cube.rules import MatchRules, MoneyRules
from fastbg.files.common import opening_note, parse_opening_note, resigned_kind, start_game
from fastbg.position.moves import legal_moves
from fastbg.position.notation import move_notation, move_steps
from fastbg.sim.records import GameBuilder, GameRecord, MatchRecord, RecordError

LEFT_WIDTH = 27             # player 0's cell, padded (GNU Backgammon's "%-27s ")
RIGHT_COLUMN = 33           # where player 1's cell starts: "%3d) " + 27 + " "
_CELL = re.compile(r"(?<![\w/*])([1-6][1-6]:|doubles\b|beavers\b|raccoons\b|takes\b|drops\b"
                   r"|wins\b)", re.IGNORECASE)
_SCORE_LINE = re.compile(r"^\s*(.*?)\s*:\s*(-?\d+)\s+(.*?)\s*:\s*(-?\d+)\s*$")
_HEADER = re.compile(r"^\s*(\d+)\s+point\s+match\s*$", re.IGNORECASE)
_OPENING = re.compile(r"^;\s*fastbg opening game (\d+):(.*)$")


def _points(n):
    return f"Wins {n} point{'s' if n != 1 else ''}"


def _step_text(board, steps):
    """GNU Backgammon's FormatMovePlain: each single-die step "from/to" (25 the bar, 0
    off), "*" where the step lands on a point the opponent held before the move and no
    earlier step has landed; a space after each of the first three steps."""
    out = ""
    landed = set()
    for k, (src, dst) in enumerate(steps):
        out += f"{src}/{dst}"
        if dst > 0 and board[dst] < 0 and dst not in landed:
            out += "*"
        landed.add(dst)
        if k < 3:
            out += " "
    return out


def _as_match(record):
    if isinstance(record, GameRecord):
        length = record.rules.length if isinstance(record.rules, MatchRules) else 0
        return MatchRecord(record.players, length, (record,), record.rules, record.score,
                           None)
    if isinstance(record, MatchRecord):
        return record
    raise TypeError(f"write_mat takes a GameRecord or a MatchRecord, got {type(record).__name__}")


def _opening_comment(k, g):
    """The ``; fastbg opening`` line of game ``k`` when its ties or opening throw are not
    what the first move says, else None."""
    note = opening_note(g, f"game {k}")
    return None if note is None else f"; fastbg opening game {k}: {note}"


def mat_text(record, names=None):
    """The .mat text of a :class:`GameRecord` or :class:`MatchRecord`."""
    m = _as_match(record)
    names = m.players if names is None else names
    lines = []
    for k, g in enumerate(m.games, 1):
        c = _opening_comment(k, g)
        if c:
            lines.append(c + "\n")
    out = ["".join(lines), "\n", f" {m.length} point match\n\n"]
    for k, g in enumerate(m.games, 1):
        out.append(_game_text(k, g, names))
    return "".join(out)


def _game_text(k, g, names):
    where = f"game {k}"
    out = [f" Game {k}\n", f" {names[0] + ' : ' + str(g.score[0]):<31s}{names[1]} : {g.score[1]}\n"]
    replay = g.replay()
    i = 0
    prev_kind = None
    for a, before, result in replay:
        if a.kind in ("opening", "opening_tie"):
            continue
        if a.kind == "take" and prev_kind == "beaver":
            prev_kind = a.kind
            continue               # a beaver is taken by rolling (GNU Backgammon's reading)
        if a.kind == "resign":
            n = g.cube * int(a.move)
            winner = 1 - a.player
            if winner == 0:
                out.append(("\n" if i & 1 else "") + f"      {_points(n)}\n\n")
            elif i & 1:
                out.append(f" {_points(n)}\n\n")
            else:
                out.append(" " * 34 + f"{_points(n)}\n\n")
            break
        if a.kind == "move":
            steps = move_steps(before, result, a.dice)
            cell = f"{a.dice[0]}{a.dice[1]}: " + _step_text(before, steps)
        elif a.kind == "double":
            cell = f" Doubles => {a.cube}"
        elif a.kind == "beaver":
            cell = f" Beavers => {a.cube}"
        elif a.kind == "raccoon":
            cell = f" Raccoons => {a.cube}"
        elif a.kind == "take":
            cell = " Takes"
        else:
            cell = " Drops" + ("\n      " if i & 1 else " " * 23) + _points(a.cube)
        prev_kind = a.kind
        if i == 0 and a.player == 1:
            out.append("  1)" + " " * 29)
            i = 1
        if a.player != i & 1:
            raise ValueError(f"{where}: the actions do not alternate between the players as "
                             f"the .mat columns need ({a.kind} by player {a.player})")
        if i & 1:
            out.append(cell + "\n")
        else:
            out.append(f"{(i >> 1) + 1:3d}) {cell:<{LEFT_WIDTH}s} ")
        if a.kind == "drop":
            out.append("\n" if i & 1 else "\n\n")
        if a.kind == "move" and not (result[1:] > 0).any():
            n = g.cube * g.kind
            out.append((" " * 34 if i & 1 else "\n      ") + f"{_points(n)}\n\n")
        i += 1
    else:
        if g.result == "truncated" and i & 1:
            out.append("\n")
    return "".join(out)


def write_mat(record, path):
    """Write a :class:`GameRecord` or :class:`MatchRecord` to ``path`` as a Jellyfish .mat
    file in GNU Backgammon's layout (a money game as a "0 point match").

    >>> import fastbg, os, tempfile
    >>> res = fastbg.play_matches(1, 3, ("pubeval", "pubeval"), seed=7, record=True)
    >>> path = os.path.join(tempfile.mkdtemp(), "m.mat")
    >>> fastbg.write_mat(res.records[0], path)
    >>> fastbg.read_mat(path) == res.records[0]
    True
    """
    text = mat_text(record)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def _cells(line):
    """The cells of one move line: [(column, text)], column 0 or 1."""
    body = line
    m = re.match(r"^\s*\d+\)", line)
    start = m.end() if m else 0
    found = list(_CELL.finditer(body, start))
    cells = []
    for n, c in enumerate(found):
        end = found[n + 1].start() if n + 1 < len(found) else len(body)
        col = 1 if n > 0 or c.start() >= RIGHT_COLUMN else 0
        cells.append((col, body[c.start():end].strip()))
    rest = body[start:found[0].start() if found else len(body)].strip()
    if rest:
        raise RecordError(f"cannot read {rest!r}")
    return cells


def read_mat(path, rules=None, names=None):
    """Read a Jellyfish .mat file (as GNU Backgammon writes it) into a :class:`MatchRecord`.

    Every move is checked against the rules and its dice, every cube action against the
    cube's state (no double in the Crawford game) and every game's score against the
    results before it; a fault raises :class:`fastbg.RecordError` (a ValueError) naming
    the game and the move number. ``rules``: the match's :class:`MatchRules` (default
    ``MatchRules(N)`` for an N point match, with the Crawford rule, as the format
    assumes) or, for a "0 point match", the money rules (default ``MoneyRules()``).
    Records read compare equal to those written (fastbg's record with its actions).
    """
    with open(path, encoding="utf-8-sig") as f:
        text = f.read()
    return parse_mat(text, rules)


def parse_mat(text, rules=None):
    """:func:`read_mat` of the text of a .mat file."""
    lines = text.splitlines()
    length = None
    openings = {}
    k = 0
    while k < len(lines):
        line = lines[k]
        k += 1
        o = _OPENING.match(line.strip())
        if o and parse_opening_note(o.group(2)) is not None:
            openings[int(o.group(1))] = parse_opening_note(o.group(2))
            continue
        if line.lstrip().startswith((";", "#")) or not line.strip():
            continue
        h = _HEADER.match(line)
        if not h:
            raise RecordError(f"not a .mat file: expected ' N point match', got {line.strip()!r}")
        length = int(h.group(1))
        break
    if length is None:
        raise RecordError("not a .mat file: no ' N point match' line")
    if rules is None:
        rules = MatchRules(length) if length else MoneyRules()
    if (length > 0) != rules.is_match or (length and rules.length != length):
        raise ValueError(f"the file holds a {length} point match, the rules say {rules!r}")
    games = []
    blocks = []
    for line in lines[k:]:
        if re.match(r"^\s*Game\s+\d+\s*$", line):
            blocks.append([line])
        elif line.strip():
            if not blocks:
                raise RecordError(f"a line before the first game: {line.strip()!r}")
            blocks[-1].append(line)
    score = [0, 0]
    players = None
    crawford_done = False
    for n, block in enumerate(blocks, 1):
        where = f"game {n}"
        s = _SCORE_LINE.match(block[1]) if len(block) > 1 else None
        if not s:
            raise RecordError(f"{where}: no score line")
        names = (s.group(1), s.group(3))
        if players is None:
            players = names
        elif names != players:
            raise RecordError(f"{where}: players {names}, earlier games {players}")
        got = [int(s.group(2)), int(s.group(4))]
        if got != score:
            raise RecordError(f"{where}: the score line says {got[0]}-{got[1]}, the games "
                              f"before it make {score[0]}-{score[1]}")
        if length and max(score) >= length:
            raise RecordError(f"{where}: a game after the end of the match")
        crawford = bool(length and rules.crawford and not crawford_done
                        and length - 1 in score)
        crawford_done = crawford_done or crawford
        g = _read_game(block[2:], where, players, rules, tuple(score), crawford,
                       openings.get(n))
        games.append(g)
        if g.winner is not None:
            score[g.winner] += abs(g.points)
            if length:
                score[g.winner] = min(score[g.winner], length)
    winner = None
    if length and max(score) >= length:
        winner = 0 if score[0] >= length else 1
    return MatchRecord(players or ("", ""), length, tuple(games), rules, tuple(score), winner)


def _read_game(lines, where, players, rules, score, crawford, opening):
    b = GameBuilder(players, rules, score, crawford)
    start_game(b, opening, where)
    wins = None
    rolled = None                   # a roll written without its move: a resignation follows
    last_cube = None
    first_move = True
    number = 0
    for line in lines:
        m = re.match(r"^\s*(\d+)\)", line)
        if m:
            number = int(m.group(1))
        try:
            cells = _cells(line)
        except RecordError as e:
            raise RecordError(f"{where}, move {number}: {e}") from None
        for col, cell in cells:
            at = f"{where}, move {number}"
            word = cell.split()[0].lower()
            if wins is not None:
                raise RecordError(f"{at}: {cell!r} after the game's result")
            if rolled is not None and word != "wins":
                raise RecordError(f"{rolled}: a roll without its move")
            if word.endswith(":"):
                dice = (int(word[0]), int(word[1]))
                if last_cube == "beaver":
                    b.cube("take", col, at)             # a beaver is taken by rolling
                if first_move and opening is None and dice[0] != dice[1]:
                    b.opening(col, (max(dice), min(dice)))
                first_move = False
                text = cell[3:].strip()
                if not text:
                    results = legal_moves(b.board, dice)
                    if len(results) == 1:               # forced (or no move): play it
                        text = move_notation(b.board, results[0], dice)
                    else:
                        rolled = at
                        continue
                b.move(col, dice, text, at)
                last_cube = None
            elif word in ("doubles", "beavers", "raccoons"):
                v = re.search(r"=>\s*(\d+)", cell)
                kind = {"doubles": "double", "beavers": "beaver", "raccoons": "raccoon"}[word]
                if kind == "double" and b.cg is not None and b.cg.pending == "doubled":
                    kind = "beaver"                     # GNU Backgammon writes a beaver so
                b.cube(kind, col, at, int(v.group(1)) if v else None)
                last_cube = kind
            elif word in ("takes", "drops"):
                b.cube("take" if word == "takes" else "drop", col, at)
                last_cube = "take"
            else:
                v = re.search(r"wins\s+(\d+)", cell, re.IGNORECASE)
                if not v:
                    raise RecordError(f"{at}: cannot read {cell!r}")
                wins = (col, int(v.group(1)))
                if b.ended is None:                     # the loser resigned
                    b.resign(1 - col, resigned_kind(wins[1], b.stake), at)
    at = f"{where}, end"
    if b.ended is not None:
        how, winner, kind = b.ended
        if wins is None:
            raise RecordError(f"{at}: the game is over but no 'Wins' line says so")
        if wins[0] != winner:
            raise RecordError(f"{at}: 'Wins' is in player {wins[0]}'s column, player {winner} won")
        want = b.stake * (kind if how != "drop" else 1)
        if how != "resign" and wins[1] != want:
            raise RecordError(f"{at}: 'Wins {wins[1]}', the game is worth {want}")
    return b.record(where)

