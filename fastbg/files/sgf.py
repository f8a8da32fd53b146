"""GNU Backgammon's .sgf match files: :func:`write_sgf`, :func:`read_sgf` (docs/records.md
section 6).

The layout, as GNU Backgammon's ``save match`` writes it (its sgf.c) and its ``load
match`` reads it: one SGF game tree per game, ``(;FF[4]GM[6]CA[UTF-8]AP[..]`` then the
root's properties ``MI[length:L][game:k][ws:s0][bs:s1]`` (match length, 0 for money; the
game's index from 0; the score before it, White's and Black's), ``PW``/``PB`` (the
players' names: White is player 0, Black player 1), ``RU[..]`` (``Crawford``: the match
uses the Crawford rule, ``CrawfordGame``: this is the Crawford game, ``Jacoby``: money
under the Jacoby rule), ``CV[n]`` (the stake after automatic doubles) and ``RE[W+n]`` /
``RE[B+nR]`` (the winner, the points the game won, uncapped, and R for a resignation).
Then one node per action: ``;W[52mhrp]`` (the dice as rolled, then each single-die step
as two letters, in GNU Backgammon's order (source points, then destinations, decreasing), from the mover's side: ``a``..``x`` its points 1..24 for White, ``x``..``a``
for Black, ``y`` the bar, ``z`` off), ``;B[double]``, ``;W[take]``, ``;W[drop]``. A beaver is
a ``double`` by the doubled player while the double waits (then the doubler takes, or
drops, or doubles again: a raccoon), as GNU Backgammon's play records it; a resignation
has no node, only the ``R`` of the result.

What the format has no place for, the opening ties and the opening throw when it is not
what the first move implies, fastbg writes as the root's comment
``C[fastbg opening: ties 3 5; throw 0 5-3]`` (GNU Backgammon ignores a root comment).
The money rules other than Jacoby (beavers, raccoons, automatic doubles) are not in the
file: :func:`read_sgf` takes them as ``rules``.

Reading checks every move against the rules and its dice, every cube action (no double
in the Crawford game), the turn order, each game's score against the games before it,
its Crawford flag against the score, and its result against the game; the first fault
raises :class:`fastbg.RecordError` naming the game and the move number (the node's
index in the game, counted from 1).
"""
from fastbg.constants import VERSION
from fastbg.cube.rules import MatchRules, MoneyRules
from fastbg.files.common import opening_note, parse_opening_note, resigned_kind, start_game
from fastbg.position.notation import move_steps
from fastbg.sim.records import GameBuilder, GameRecord, MatchRecord, RecordError

_NOTE_HEAD = "fastbg opening:"


# ---- writing -------------------------------------------------------------------------

def _escape(text):
    """GNU Backgammon's WriteEscapedString (colons left as they are)."""
    return str(text).replace("\\", "\\\\").replace("]", "\\]")


def _letter(point, player):
    """The letter of fastbg point ``point`` (the mover's 1..24, 25 the bar, 0 off) for
    ``player`` (0 White, 1 Black)."""
    if point == 25:
        return "y"
    if point == 0:
        return "z"
    return chr(ord("a") + point - 1) if player == 0 else chr(ord("x") - point + 1)


def _point(letter, player):
    """The fastbg point of a move letter (inverse of :func:`_letter`; GNU Backgammon's
    Point(): anything past ``y`` is off)."""
    if letter == "y":
        return 25
    if "a" <= letter <= "x":
        return ord(letter) - ord("a") + 1 if player == 0 else ord("x") - ord(letter) + 1
    return 0


def points_won(g):
    """The points GNU Backgammon's RE[] gives a game: the stake times what was won
    (Jacoby applied in money play, a resignation what was resigned), not capped at what
    the winner needed in a match."""
    if g.result == "drop":
        return g.cube
    if g.result == "resign":
        return g.cube * g.kind
    if isinstance(g.rules, MatchRules) or g.rules is None:
        return g.cube * g.kind
    return abs(g.points)


def _as_match(record):
    if isinstance(record, GameRecord):
        length = record.rules.length if isinstance(record.rules, MatchRules) else 0
        return MatchRecord(record.players, length, (record,), record.rules, record.score,
                           None)
    if isinstance(record, MatchRecord):
        return record
    raise TypeError(f"write_sgf takes a GameRecord or a MatchRecord, got "
                    f"{type(record).__name__}")


def _rules_text(rules, crawford):
    words = []
    if rules is None:
        words.append("NoCube")
    elif rules.is_match:
        if rules.crawford and rules.length > 1:
            words.append("Crawford")
        if crawford:
            words.append("CrawfordGame")
    elif rules.jacoby:
        words.append("Jacoby")
    return f"RU[{':'.join(words)}]" if words else ""


def _game_text(k, g, length, names):
    where = f"game {k + 1}"
    note = opening_note(g, where)
    out = ["(;FF[4]GM[6]CA[UTF-8]", f"AP[fastbg:{VERSION}]",
           f"MI[length:{length}][game:{k}][ws:{g.score[0]}][bs:{g.score[1]}]",
           f"PW[{_escape(names[0])}]PB[{_escape(names[1])}]", _rules_text(g.rules, g.crawford)]
    ties = sum(a.kind == "opening_tie" for a in g.actions)
    auto = next((a.cube for a in reversed(g.actions) if a.kind == "opening_tie"), 1)
    if ties and auto > 1:
        out.append(f"CV[{auto}]")
    if g.winner is not None:
        out.append(f"RE[{'WB'[g.winner]}+{points_won(g)}{'R' if g.result == 'resign' else ''}]")
    if note is not None:
        out.append(f"C[{_escape(_NOTE_HEAD + ' ' + note)}]")
    for a, before, result in g.replay():
        side = "WB"[a.player] if a.player is not None else None
        if a.kind == "move":
            # GNU Backgammon's CanonicalMoveOrder (drawboard.c): steps by source point
            # then destination, both decreasing (a checker's steps stay in order)
            steps = sorted(move_steps(before, result, a.dice), key=lambda st: (-st[0], -st[1]))
            move = "".join(_letter(s, a.player) + _letter(t, a.player) for s, t in steps)
            out.append(f"\n;{side}[{a.dice[0]}{a.dice[1]}{move}]")
        elif a.kind in ("double", "beaver", "raccoon"):
            out.append(f"\n;{side}[double]")
        elif a.kind in ("take", "drop"):
            out.append(f"\n;{side}[{a.kind}]")
    out.append(")\n")
    return "".join(out)


def sgf_text(record, names=None):
    """The .sgf text of a :class:`GameRecord` or :class:`MatchRecord`."""
    m = _as_match(record)
    names = m.players if names is None else names
    return "".join(_game_text(k, g, m.length, names) for k, g in enumerate(m.games))


def write_sgf(record, path):
    """Write a :class:`GameRecord` or :class:`MatchRecord` to ``path`` as GNU Backgammon's
    .sgf (one game tree per game; a money game has match length 0).

    >>> import fastbg, os, tempfile
    >>> res = fastbg.play_matches(1, 3, ("pubeval", "pubeval"), seed=7, record=True)
    >>> path = os.path.join(tempfile.mkdtemp(), "m.sgf")
    >>> fastbg.write_sgf(res.records[0], path)
    >>> fastbg.read_sgf(path) == res.records[0]
    True
    """
    text = sgf_text(record)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


# ---- the SGF syntax ------------------------------------------------------------------

def _trees(text):
    """The game trees of an SGF collection: per tree, its nodes in order, each node a
    list of (property id, [values]). Variations are refused (GNU Backgammon writes
    none)."""
    trees = []
    i, n = 0, len(text)
    depth = 0
    node = None
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif c == "(":
            if depth:
                raise RecordError(f"game {len(trees)}: a variation (nested game tree); "
                                  "only the main line can be read")
            depth = 1
            trees.append([])
            node = None
            i += 1
        elif c == ")":
            if not depth:
                raise RecordError("an unbalanced ')' in the SGF file")
            depth = 0
            i += 1
        elif c == ";":
            if not depth:
                raise RecordError("a node outside a game tree")
            node = []
            trees[-1].append(node)
            i += 1
        elif c.isalpha():
            j = i
            while j < n and text[j].isalpha():
                j += 1
            ident = "".join(ch for ch in text[i:j] if ch.isupper())
            values = []
            i = j
            while True:
                while i < n and text[i].isspace():
                    i += 1
                if i >= n or text[i] != "[":
                    break
                value, i = _value(text, i + 1, len(trees))
                values.append(value)
            if node is None or not values:
                raise RecordError(f"game {len(trees)}: property {ident} "
                                  f"{'outside a node' if node is None else 'without a value'}")
            node.append((ident, values))
        else:
            raise RecordError(f"game {len(trees)}: unexpected {c!r} in the SGF file")
    if depth:
        raise RecordError(f"game {len(trees)}: the game tree is not closed")
    return trees


def _value(text, i, game):
    out = []
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n:
            out.append(text[i + 1])
            i += 2
        elif c == "]":
            return "".join(out), i + 1
        else:
            out.append(c)
            i += 1
    raise RecordError(f"game {game}: a property value is not closed")


def _props(node):
    d = {}
    for ident, values in node:
        d.setdefault(ident, values)
    return d


# ---- reading -------------------------------------------------------------------------

def read_sgf(path, rules=None):
    """Read GNU Backgammon's .sgf (its own or fastbg's) into a :class:`MatchRecord`.

    Every move is checked against the rules and its dice, every cube action against the
    cube's state (no double in the Crawford game), every game's score against the results
    before it and its result against the game; a fault raises
    :class:`fastbg.RecordError` (a ValueError) naming the game and the move number.
    ``rules``: the match's :class:`MatchRules` (default ``MatchRules(L)`` with the
    Crawford rule if the file's RU says so), or for money (length 0) the
    :class:`MoneyRules` (default ``MoneyRules(jacoby=...)`` as RU says; beavers,
    raccoons and automatic doubles are not in the file). Records read compare equal to
    those written.
    """
    with open(path, encoding="utf-8-sig") as f:
        text = f.read()
    return parse_sgf(text, rules)


def _rules_of(root, rules):
    mi = dict(v.split(":", 1) for v in root.get("MI", []) if ":" in v)
    try:
        length = int(mi.get("length", 0))
    except ValueError:
        raise RecordError(f"game 1: cannot read MI[length:{mi.get('length')}]") from None
    words = set(root.get("RU", [""])[0].split(":"))
    if rules is None:
        if "NoCube" in words:
            return length, None
        if length:
            return length, MatchRules(length, crawford="Crawford" in words or length == 1)
        return length, MoneyRules(jacoby="Jacoby" in words)
    if (length > 0) != rules.is_match or (length and rules.length != length):
        raise ValueError(f"the file holds a {length} point match, the rules say {rules!r}")
    if length > 1 and ("Crawford" in words) != rules.crawford:
        raise ValueError(f"the file says the match is {'with' if 'Crawford' in words else 'without'}"
                         f" the Crawford rule, the rules say {rules!r}")
    if not length and ("Jacoby" in words) != rules.jacoby:
        raise ValueError(f"the file says money {'with' if 'Jacoby' in words else 'without'} the"
                         f" Jacoby rule, the rules say {rules!r}")
    return length, rules


def parse_sgf(text, rules=None):
    """:func:`read_sgf` of the text of a .sgf file."""
    trees = _trees(text)
    if not trees or not trees[0]:
        raise RecordError("not an SGF file: no game tree")
    length, rules = _rules_of(_props(trees[0][0]), rules)
    games = []
    players = None
    score = None
    crawford_done = False
    for n, tree in enumerate(trees, 1):
        where = f"game {n}"
        if not tree:
            raise RecordError(f"{where}: an empty game tree")
        root = _props(tree[0])
        if root.get("GM", ["6"])[0] != "6":
            raise RecordError(f"{where}: GM[{root['GM'][0]}] is not a backgammon game")
        mi = dict(v.split(":", 1) for v in root.get("MI", []) if ":" in v)
        try:
            got = [int(mi.get("ws", 0)), int(mi.get("bs", 0))]
            index = int(mi.get("game", n - 1))
            glen = int(mi.get("length", 0))
        except ValueError:
            raise RecordError(f"{where}: cannot read MI{root.get('MI')}") from None
        if glen != length:
            raise RecordError(f"{where}: a {glen} point match, the first game says {length}")
        names = (root.get("PW", [""])[0], root.get("PB", [""])[0])
        if players is None:
            players = names
        elif names != players:
            raise RecordError(f"{where}: players {names}, earlier games {players}")
        words = set(root.get("RU", [""])[0].split(":"))
        flag = "CrawfordGame" in words
        if score is None:               # the first game: its score and Crawford flag as read
            score, first_index = list(got), index
            crawford = bool(length and rules is not None and rules.crawford and flag
                            and length - 1 in score)
            if flag and not crawford:
                raise RecordError(f"{where}: RU says the Crawford game, at {got[0]}-{got[1]} it "
                                  "cannot be")
            crawford_done = crawford or bool(length and max(score) == length - 1 and not flag)
        else:
            if got != score:
                raise RecordError(f"{where}: MI says the score is {got[0]}-{got[1]}, the games "
                                  f"before it make {score[0]}-{score[1]}")
            if index != first_index + n - 1:
                raise RecordError(f"{where}: MI says game {index}, it is game "
                                  f"{first_index + n - 1}")
            crawford = bool(length and rules is not None and rules.crawford
                            and not crawford_done and length - 1 in score)
            if flag != crawford:
                raise RecordError(f"{where}: RU {'says' if flag else 'does not say'} the Crawford "
                                  f"game, at {score[0]}-{score[1]} it {'is' if crawford else 'is not'}")
        crawford_done = crawford_done or crawford
        if length and max(score) >= length:
            raise RecordError(f"{where}: a game after the end of the match")
        g = _read_game(tree, where, players, rules, tuple(score), crawford)
        games.append(g)
        if g.winner is not None:
            score[g.winner] += abs(g.points)
            if length:
                score[g.winner] = min(score[g.winner], length)
    winner = None
    if length and max(score) >= length:
        winner = 0 if score[0] >= length else 1
    return MatchRecord(players, length, tuple(games), rules, tuple(score), winner)


def _read_game(tree, where, players, rules, score, crawford):
    root = _props(tree[0])
    b = GameBuilder(players, rules, score, crawford)
    note = None
    for c in root.get("C", []):
        if c.startswith(_NOTE_HEAD):
            note = parse_opening_note(c[len(_NOTE_HEAD):])
            if note is None:
                raise RecordError(f"{where}: cannot read the comment {c!r}")
    start_game(b, note, where)
    cv = int(root.get("CV", ["1"])[0]) if root.get("CV", ["1"])[0].isdigit() else None
    if cv is None or cv != b.stake:
        raise RecordError(f"{where}: CV[{root['CV'][0]}] says the stake after the opening, "
                          f"the opening ties make it {b.stake}")
    first_move = note is None
    dice_set = None                 # a PL[]DI[] node: dice rolled, the move to follow
    for number, node in enumerate(tree[1:], 1):
        at = f"{where}, move {number}"
        props = _props(node)
        if "DI" in props:
            d = props["DI"][0]
            if len(d) < 2 or not (d[0] in "123456" and d[1] in "123456"):
                raise RecordError(f"{at}: cannot read DI[{d}]")
            who = props.get("PL", ["W" if b.next in (None, 0) else "B"])[0]
            dice_set = ("WB".index(who[0].upper()) if who[:1].upper() in ("W", "B") else b.next,
                        (int(d[0]), int(d[1])))
        if not ("B" in props or "W" in props):
            continue
        side = "B" if "B" in props else "W"
        player = 1 if side == "B" else 0
        value = props[side][0].strip()
        if value in ("double", "take", "drop"):
            kind = value
            if value == "double" and b.cg is not None and b.cg.pending == "doubled":
                kind = "beaver"
            elif value == "double" and b.cg is not None and b.cg.pending == "beavered":
                kind = "raccoon"
            b.cube(kind, player, at)
            continue
        if len(value) < 2 or value[0] not in "123456" or value[1] not in "123456":
            raise RecordError(f"{at}: cannot read {side}[{value}]")
        dice = (int(value[0]), int(value[1]))
        if dice_set is not None and dice_set != (player, dice) and \
                dice_set != (player, dice[::-1]):
            raise RecordError(f"{at}: player {player} plays {dice[0]}{dice[1]}, the dice set "
                              f"before were {dice_set[1][0]}{dice_set[1][1]}")
        dice_set = None
        letters = value[2:]
        if len(letters) % 2 or len(letters) > 8:
            raise RecordError(f"{at}: cannot read the move {letters!r}")
        text = " ".join(f"{_point(letters[k], player)}/{_point(letters[k + 1], player)}"
                        for k in range(0, len(letters), 2))
        if first_move and dice[0] != dice[1]:
            b.opening(player, (max(dice), min(dice)))
        first_move = False
        b.move(player, dice, text, at)
    _check_result(b, root, where)
    return b.record(where)


def _check_result(b, root, where):
    at = f"{where}, end"
    re_ = root.get("RE", [""])[0].strip().upper()
    if not re_:
        if b.ended is not None:
            raise RecordError(f"{at}: the game is over but has no RE[] result")
        return
    if len(re_) < 3 or re_[0] not in "WB" or re_[1] != "+":
        raise RecordError(f"{at}: cannot read RE[{re_}]")
    winner = "WB".index(re_[0])
    digits = re_[2:].rstrip("R")
    if not digits.isdigit():
        raise RecordError(f"{at}: cannot read RE[{re_}]")
    n = int(digits)
    if re_.endswith("R"):
        if b.ended is not None:
            raise RecordError(f"{at}: RE[{re_}] says resigned, the game was over before")
        b.resign(1 - winner, resigned_kind(n, b.stake), at)
        return
    if b.ended is None:
        raise RecordError(f"{at}: RE[{re_}] but the game is not over")
    how, won_by, kind = b.ended
    if won_by != winner:
        raise RecordError(f"{at}: RE[{re_}] says player {winner} won, player {won_by} did")
    if how == "drop":
        want = b.stake
    else:
        rules = b.rules
        jacoby = (rules is not None and not rules.is_match and rules.jacoby
                  and not b.cg.turned)
        want = b.stake * (1 if jacoby else kind)
    if n != want:
        raise RecordError(f"{at}: RE[{re_}] says {n} points, the game is worth {want}")
