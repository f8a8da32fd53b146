"""Analysis of played games: :func:`analyse` (docs/analysis.md).

Every decision of a recorded game or match is looked at as GNU Backgammon's ``analyse
match`` does (its analysis.c), at ``ply`` with the network ``net``:

* **moves**: the equity lost against the best move for the roll (GNU Backgammon's
  ``rChequerSkill``): cubeful values at the match score with the cube as it was, in
  normalised money equity (EMG: ``mwc2eq`` of the mover's cubeful match-winning chance for
  the current cube; money play: cubeful equity per unit of the cube);
* **luck** of every roll (its ``LuckNormal``): the value of the best move for the roll
  that came minus the average of the best moves of all 36 rolls; for the opening roll
  (the starting position, no doubles: ``LuckFirst``) the average is over the 15 rolls of
  either player that start a game. A roll that cannot be played is worth the opponent's
  cubeful value then, in his normalisation (as GNU Backgammon writes it);
* **cube decisions**: every turn where the player on roll could double (not the opening
  position): a missed double when doubling was right; every double, take and pass against
  the proper action (``updateStatcontext``);
* **per player**: the totals GNU Backgammon's ``show statistics match`` prints.

The work is batched: all (position, roll) pairs of a record go through the move generator
and the network at once, and the cubeful values are computed per cube state on arrays
(:func:`fastbg.cube.janowski_mwc_rows`).
"""
import dataclasses
import json
import math
import os

import numpy as np

from fastbg.analysis.cube_actions import EFFICIENCIES, cube_decisions, cube_efficiency
from fastbg.analysis.hints import deep_rows, check_filter
from fastbg.constants import ROLLS, START
from fastbg.cube import formulas
from fastbg.cube import met as met_module
from fastbg.cube.rules import MatchRules, MoneyRules
from fastbg.evaluators.own_nets import default_net
from fastbg.evaluators.search import MAX_PLY, check_ply, nply_probabilities
from fastbg.files.mat import read_mat
from fastbg.parallel import resolve_threads
from fastbg.position.moves import legal_moves_rows
from fastbg.position.notation import move_notation
from fastbg.sim.records import GameRecord, MatchRecord
from fastbg.sim.results import Results
from fastbg.validation import check_choice, check_flag, check_int

# GNU Backgammon's isCloseCubedecision: a cube decision counts in the error rate when
# doubling costs less than this (normalised equity) against the proper action.
CLOSE_CUBE = 0.16
# GNU Backgammon's rErrorRateFactor: error rates in thousandths (mEMG).
RATE_FACTOR = 1000.0
# XG's performance rating: mean error per decision times 500.
PR_FACTOR = 500.0
_ROLL_INDEX = {(int(a), int(b)): i for i, (a, b) in enumerate(ROLLS)}
# The 36 dice combinations: a double once, other rolls twice.
_ROLL_WEIGHT = np.array([1.0 if a == b else 2.0 for a, b in ROLLS])
_NON_DOUBLES = np.array([i for i, (a, b) in enumerate(ROLLS) if a != b])
_FLIP_OWNER = {"centred": "centred", "owned": "unavailable", "unavailable": "owned"}


@dataclasses.dataclass(frozen=True)
class MoveAnalysis:
    """One move action (dances and forced moves included), in match order.

    game: the game's index in the record (0-based); number: the action's index in its
    game (from 1, as :class:`fastbg.RecordError` counts); player 0 or 1; dice as rolled;
    move: the move played and best: the best move (GNU Backgammon's notation, "" when the
    roll cannot be played); equity_loss: best minus played, normalised money equity
    (>= 0); luck: the roll's luck in the same units; loss_mwc, luck_mwc: the same as
    match-winning chance (money play: points, times the cube); forced: at most one legal
    move; candidates: the number of legal moves; position_id: before the move, mover's view.
    """
    game: int
    number: int
    player: int
    dice: tuple
    move: str
    best: str
    equity_loss: float
    luck: float
    loss_mwc: float
    luck_mwc: float
    forced: bool
    candidates: int
    position_id: str


@dataclasses.dataclass(frozen=True)
class CubeAnalysis:
    """One cube decision: a turn where ``player`` could double (``kind`` "no_double" when
    he rolled instead, "double"), or his answer to a double ("take", "drop").

    proper: GNU Backgammon's proper action of the doubler's position (lower case, e.g.
    "double, take"); error: the equity the decision lost (normalised, >= 0), error_mwc the
    same as match-winning chance (money: points); close: it counts in the error rate
    (doubling costs less than 0.16 against the proper action; answers always count);
    no_double, double_take, double_pass: the doubler's normalised values.
    """
    game: int
    number: int
    player: int
    kind: str
    proper: str
    error: float
    error_mwc: float
    close: bool
    no_double: float
    double_take: float
    double_pass: float
    position_id: str


@dataclasses.dataclass(frozen=True)
class PlayerAnalysis:
    """A player's totals, as GNU Backgammon's ``show statistics match`` prints them.

    error_total_emg: chequer and cube errors, normalised equity (GNU Backgammon's "Error
    total EMG"), error_total_mwc the same in match-winning chance (money: points);
    error_rate_memg: thousandths of the total per decision (unforced moves and close cube
    decisions, "Error rate mEMG"); pr: 500 x the mean error per such decision (XG's
    convention); luck_total_emg / luck_total_mwc: the sum of his rolls' luck, luck_rate_memg
    per move; actual_result: match-winning chance won in the games (money: points);
    luck_adjusted_result: the same minus his luck plus the opponent's (in MWC or points).
    """
    name: str
    moves: int
    unforced_moves: int
    chequer_error_emg: float
    chequer_error_mwc: float
    cube_decisions: int
    close_cube_decisions: int
    cube_error_emg: float
    cube_error_mwc: float
    missed_doubles: int
    wrong_doubles: int
    wrong_takes: int
    wrong_passes: int
    error_total_emg: float
    error_total_mwc: float
    error_rate_memg: float
    pr: float
    luck_total_emg: float
    luck_total_mwc: float
    luck_rate_memg: float
    actual_result: float
    luck_adjusted_result: float

    @property
    def decisions(self):
        """Unforced moves and close cube decisions: what the error rate divides by."""
        return self.unforced_moves + self.close_cube_decisions


class Analysis(Results):
    """What :func:`analyse` found: ``moves`` (:class:`MoveAnalysis`, one per move action in
    match order), ``cube`` (:class:`CubeAnalysis`), ``players`` (two
    :class:`PlayerAnalysis`), and the settings (``ply``, ``length``: the match length, 0
    for money play).

    The Results interface: ``summary()``, ``table()`` (a readable report), ``to_dict()``,
    ``to_json()``, ``save(path)`` / ``load(path)`` (JSON, read back exactly).
    """

    def __init__(self, moves, cube, players, ply, length, names):
        self.moves, self.cube, self.players = list(moves), list(cube), list(players)
        self.ply, self.length, self.names = ply, length, tuple(names)

    def summary(self):
        return {"ply": self.ply, "length": self.length, "players": list(self.names),
                "moves": len(self.moves), "cube_decisions": len(self.cube),
                "totals": [dataclasses.asdict(p) for p in self.players]}

    def worst(self, n=10):
        """The ``n`` costliest decisions (moves and cube), worst first, as
        :class:`MoveAnalysis` / :class:`CubeAnalysis`."""
        items = [(m.equity_loss, m) for m in self.moves if m.equity_loss > 0] + \
                [(c.error, c) for c in self.cube if c.error > 0]
        items.sort(key=lambda t: -t[0])
        return [x for _, x in items[:n]]

    def table(self, worst=10):
        """The report: per-player totals and the worst decisions with their Position IDs."""
        match = self.length > 0
        unit = "MWC" if match else "points"
        what = f"{self.length}-point match" if match else "money play"
        lines = [f"Analysis at {self.ply}-ply, {what}: {len(self.moves)} moves, "
                 f"{len(self.cube)} cube decisions", ""]
        head = f"{'':34}{self.names[0][:22]:>22}  {self.names[1][:22]:>22}"
        lines.append(head)

        def row(label, f):
            lines.append(f"{label:34}{f(self.players[0]):>22}  {f(self.players[1]):>22}")

        def both(emg, other):
            return lambda p: (f"{getattr(p, emg):+.3f} ({100 * getattr(p, other):+.2f}%)"
                              if match else f"{getattr(p, emg):+.3f} ({getattr(p, other):+.3f})")
        row("Moves (unforced)", lambda p: f"{p.moves} ({p.unforced_moves})")
        row(f"Chequer errors EMG ({unit})", both("chequer_error_emg", "chequer_error_mwc"))
        row("Cube decisions (close)", lambda p: f"{p.cube_decisions} ({p.close_cube_decisions})")
        row("Missed / wrong doubles", lambda p: f"{p.missed_doubles} / {p.wrong_doubles}")
        row("Wrong takes / passes", lambda p: f"{p.wrong_takes} / {p.wrong_passes}")
        row(f"Cube errors EMG ({unit})", both("cube_error_emg", "cube_error_mwc"))
        row(f"Error total EMG ({unit})", both("error_total_emg", "error_total_mwc"))
        row("Error rate mEMG", lambda p: f"{p.error_rate_memg:.1f}")
        row("PR (XG: 500 x mean error)", lambda p: f"{p.pr:.2f}")
        row(f"Luck total EMG ({unit})", both("luck_total_emg", "luck_total_mwc"))
        row("Luck rate mEMG", lambda p: f"{p.luck_rate_memg:+.1f}")
        if match:
            row("Actual result", lambda p: f"{100 * p.actual_result:+.2f}%")
            row("Luck adjusted result", lambda p: f"{100 * p.luck_adjusted_result:+.2f}%")
        else:
            row("Actual result", lambda p: f"{p.actual_result:+.3f}")
            row("Luck adjusted result", lambda p: f"{p.luck_adjusted_result:+.3f}")
        bad = self.worst(worst)
        if bad:
            lines += ["", f"Worst decisions (equity lost, normalised):"]
            for d in bad:
                where = f"game {d.game + 1} move {d.number:>3}  {self.names[d.player][:16]:<16}"
                if isinstance(d, MoveAnalysis):
                    lines.append(f"  {where} {d.equity_loss:6.3f}  {d.dice[0]}{d.dice[1]}: "
                                 f"{d.move or '(no move)'}  best {d.best}  "
                                 f"[{d.position_id}]")
                else:
                    lines.append(f"  {where} {d.error:6.3f}  {d.kind.replace('_', ' ')}; "
                                 f"proper: {d.proper}  [{d.position_id}]")
        return "\n".join(lines)

    def to_dict(self):
        d = super().to_dict()
        d["move_list"] = [dataclasses.asdict(m) for m in self.moves]
        d["cube_list"] = [dataclasses.asdict(c) for c in self.cube]
        return d

    def save(self, path):
        """Write the analysis as JSON (:meth:`load` reads it back)."""
        with open(path, "w") as f:
            json.dump(self.to_dict(), f, indent=1)

    @classmethod
    def load(cls, path):
        with open(path) as f:
            d = json.load(f)
        moves = [MoveAnalysis(**{**m, "dice": tuple(m["dice"])}) for m in d["move_list"]]
        cube = [CubeAnalysis(**c) for c in d["cube_list"]]
        players = [PlayerAnalysis(**p) for p in d["totals"]]
        return cls(moves, cube, players, d["ply"], d["length"], d["players"])

    def __eq__(self, other):
        return (isinstance(other, Analysis) and self.to_dict() == other.to_dict())


# ------------------------------------------------------------------ walking the record

@dataclasses.dataclass
class _Turn:
    """A move action to analyse, with the cube state it was played in (mover's view)."""
    game: int
    number: int
    action: object
    board: np.ndarray
    result: np.ndarray
    state: tuple
    opening: bool
    pair: int = 0           # index of its first (position, roll) pair


def _state(rules, score, length, crawford, cube, owner, player):
    """The cube state of ``player`` on roll: a hashable tuple.

    ("cubeless",), ("money", cube, owner, jacoby) or ("match", away, opp away, cube,
    owner, crawford); owner seen from the player: centred, owned, unavailable."""
    rel = "centred" if owner is None else "owned" if owner == player else "unavailable"
    if rules is None:
        return ("cubeless",)
    if not rules.is_match:
        return ("money", cube, rel, bool(rules.jacoby) and cube == 1 and rel == "centred")
    return ("match", length - score[player], length - score[1 - player], cube, rel,
            bool(crawford))


def _opponent_state(st):
    if st[0] == "cubeless":
        return st
    if st[0] == "money":
        return ("money", st[1], _FLIP_OWNER[st[2]], st[3])
    return ("match", st[2], st[1], st[3], _FLIP_OWNER[st[4]], st[5])


def _can_double(st, rules):
    """gnubg ``GetDPEq``: the player on roll may turn the cube."""
    if st[0] == "cubeless":
        return False
    if st[0] == "money":
        cube, rel = st[1], st[2]
        limit = rules.max_cube
        return rel != "unavailable" and (limit is None or 2 * cube <= limit)
    _, away, _, cube, rel, crawford = st
    limit = rules.max_cube
    return (not crawford and away > cube and rel != "unavailable"
            and (limit is None or 2 * cube <= limit))


def _games(record):
    """(games, length, names, rules) of a GameRecord, MatchRecord or a .mat path."""
    if isinstance(record, (str, os.PathLike)):
        record = read_mat(record)
    if isinstance(record, MatchRecord):
        return list(record.games), record.length, record.players, record.rules
    if isinstance(record, GameRecord):
        rules = record.rules
        length = rules.length if isinstance(rules, MatchRules) else 0
        return [record], length, record.players, rules
    raise TypeError(f"analyse takes a GameRecord, a MatchRecord or the path of a .mat file, "
                    f"got {type(record).__name__}")


def _walk(games, length):
    """The turns to analyse and the cube decisions to judge, in match order.

    Returns (turns, cube points): a cube point is (game, number, player, kind, board,
    doubler's state, position_id) with kind "no_double", "double", "take", "drop"."""
    turns, points = [], []
    for gi, g in enumerate(games):
        rules = g.rules
        cube, owner, pending = 1, None, None
        doubled_by = None           # a double this turn (the turn's cube point is the double)
        for number, (a, board, result) in enumerate(g.replay(), 1):
            if a.kind == "opening_tie":
                cube = a.cube or cube
                continue
            if a.kind == "move":
                st = _state(rules, g.score, length, g.crawford, cube, owner, a.player)
                opening = bool((board == START).all()) and a.dice[0] != a.dice[1]
                if doubled_by != a.player and not opening and _can_double(st, rules):
                    points.append((gi, number, a.player, "no_double", board, st,
                                   a.position_id))
                turns.append(_Turn(gi, number, a, board, result, st, opening))
                doubled_by = None
            elif a.kind == "double":
                st = _state(rules, g.score, length, g.crawford, cube, owner, a.player)
                # a double that cannot matter (a dead cube) is not judged, as in gnubg
                pending = (board, st) if _can_double(st, rules) else None
                doubled_by = a.player
                if pending is not None:
                    points.append((gi, number, a.player, "double", board, st, a.position_id))
            elif a.kind in ("take", "drop"):
                if pending is not None:
                    dboard, dst = pending
                    points.append((gi, number, a.player, a.kind, dboard, dst, a.position_id))
                if a.kind == "take":
                    cube, owner = a.cube, a.player
            elif a.kind in ("beaver", "raccoon"):
                cube, owner = a.cube, a.player      # not judged (GNU Backgammon skips them)
    return turns, points


# ------------------------------------------------------------------ values

def _emg_span(st, met):
    """(lose, win): the MWC of losing and winning the current cube (mwc2eq's ends)."""
    _, a, b, cube = st[:4]
    return (met_module.mwc_after(a, b, -cube, met=met), met_module.mwc_after(a, b, cube, met=met))


def _to_mwc(emg, st, met):
    """An equity difference in normalised units as MWC (match) or points (money)."""
    if st[0] == "match":
        lose, win = _emg_span(st, met)
        return emg * 0.5 * (win - lose)
    if st[0] == "money":
        return emg * st[1]
    return emg


def _may_double(st):
    """gnubg ``GetDPEq`` without a cube limit: the player on roll in state ``st`` may
    double."""
    if st[0] == "cubeless":
        return False
    if st[0] == "money":
        return st[2] != "unavailable"
    _, away, _, cube, rel, crawford = st
    return not crawford and away > cube and rel != "unavailable"


def _on_roll_values(probs, x, st, met):
    """The cubeful value of positions to the player on roll in state ``st`` (MWC in a
    match, normalised equity in money play), as GNU Backgammon's 0-ply leaf gives it
    (``EvaluatePositionCubeful4`` below the top, ``GetECF3``): Janowski's value with the
    cube as it is (no double) or, when he may double, of his best cube action: double/take
    (the cube doubled, owned by the other side) or double/pass where neither answer leaves
    him less than not doubling."""
    if st[0] == "money":
        owner, jac = st[2], st[3]
        nd, dt = np.empty(len(probs)), np.empty(len(probs))
        for xv in np.unique(x):
            sel = x == xv
            nd[sel] = formulas.janowski_equity(probs[sel], owner, float(xv), jacoby=jac)
            dt[sel] = 2.0 * np.asarray(formulas.janowski_equity(probs[sel], "unavailable",
                                                                float(xv)))
        dp = 1.0
    else:
        _, a, b, cube, rel, crawford = st
        nd = formulas.janowski_mwc_rows(probs, a, b, x, cube, rel, crawford, met=met)
        if not _may_double(st):
            return nd
        dt = formulas.janowski_mwc_rows(probs, a, b, x, 2 * cube, "unavailable", crawford,
                                        met=met)
        dp = met_module.mwc_after(a, b, cube, met=met)
    if not _may_double(st):
        return nd
    double = (dt >= nd) & (dp >= nd)
    return np.where(double, np.minimum(dt, dp), nd)


def _values(opp_probs, opp_boards, st, dance, met, source):
    """The mover's normalised cubeful value of each result (opponent on roll), state ``st``.

    The opponent's value is :func:`_on_roll_values` at his position's cube efficiency.
    Match: mwc2eq of one minus it; a roll that cannot be played is minus the opponent's
    value in his own normalisation (GNU Backgammon's LuckNormal). Money: minus it.
    Cubeless: the mover's cubeless money equity.
    """
    if st[0] == "cubeless":
        return -np.asarray(formulas.equity_of(opp_probs), np.float64)
    x = np.atleast_1d(cube_efficiency(opp_boards, source))
    theirs = _opponent_state(st)
    opp = _on_roll_values(opp_probs, x, theirs, met)
    if st[0] == "money":
        return -opp
    lose, win = _emg_span(st, met)
    mine = 2.0 * ((1.0 - opp) - lose) / (win - lose) - 1.0
    if dance.any():
        olose, owin = _emg_span(theirs, met)
        mine = np.where(dance, -(2.0 * (opp - olose) / (owin - olose) - 1.0), mine)
    return mine


def _evaluate(boards, res, off, states, ply, net, n_threads, must, met, source, deepen=None,
              filter="gnubg", prune=False):
    """The values of every legal move ``res`` (offsets ``off``) of every (board, roll)
    pair: returns (values, 0-ply values, dance per pair). ``states`` gives each pair's cube
    state; ``must`` (per row of the results, or None) marks rows to look at at ``ply``
    whatever the filter (the moves played); ``deepen`` (per pair, or None: all) the pairs
    whose moves are looked at at ``ply`` (the others keep their 0-ply values); ``filter``
    and ``prune`` as :func:`fastbg.hint`'s."""
    counts = np.diff(off)
    pair_of = np.repeat(np.arange(len(boards)), counts)
    dance = (counts == 1) & (res[off[:-1]] == boards).all(axis=1)
    opp = np.ascontiguousarray(-res[:, ::-1])
    probs = net.probabilities(opp)
    keys = [states[i] for i in range(len(boards))]
    groups = {}
    for i, k in enumerate(keys):
        groups.setdefault(k, []).append(i)
    row_state = np.empty(len(res), np.int64)
    uniq = list(groups)
    for gi, k in enumerate(uniq):
        row_state[np.isin(pair_of, groups[k])] = gi
    row_dance = dance[pair_of]

    def values_of(rows, p):
        v = np.empty(len(rows))
        for gi, k in enumerate(uniq):
            sel = row_state[rows] == gi
            if sel.any():
                r = rows[sel]
                v[sel] = _values(p[sel], opp[r], k, row_dance[r], met, source)
        return v

    all_rows = np.arange(len(res))
    values0 = values_of(all_rows, probs)
    values = values0.copy()
    if ply:
        deep = np.zeros(len(res), bool)
        deep[deep_rows(values0, off, ply, filter)] = True
        if deepen is not None:
            deep &= deepen[pair_of]
        if must is not None:
            deep |= must
            # the best 0-ply move of a pair with a move played is looked at too, whatever
            # the filter (GNU Backgammon evaluates the move played and the top move at the
            # deepest ply), so the loss never compares two depths
            first_best = off[:-1] + np.array([int(np.argmax(values0[off[i]:off[i + 1]]))
                                              if off[i + 1] > off[i] else 0
                                              for i in range(len(boards))], np.int64)
            with_played = np.bincount(pair_of[must], minlength=len(boards)) > 0
            deep[first_best[with_played]] = True
        rows = np.flatnonzero(deep)
        p = nply_probabilities(net, opp[rows], ply, n_threads, prune=prune)
        values[rows] = values_of(rows, p)
        # the deeper candidates rank first (as fastbg.hint): others can't be best
        values[~deep] -= 1e3
    return values, values0, dance


def analyse(record, ply=0, net=None, threads=None, met=None, efficiency="gnubg-1.1",
            luck_ply=0, filter="gnubg", prune=False):
    """Analyse every decision of a played game or match (docs/analysis.md).

    record: a :class:`fastbg.GameRecord`, a :class:`fastbg.MatchRecord` or the path of a
    Jellyfish .mat file (read with :func:`fastbg.read_mat`). ply: 0..3, the look-ahead of
    the move and cube evaluations (at ply >= 1 the best 0-ply candidates, 8 at 1-ply and 4
    deeper, and the move played are looked at at ``ply``, as :func:`fastbg.hint` does).
    net: the evaluator (default ``fastbg.default_net()``: GNU Backgammon's networks where
    installed, else fastbg's own; ``fastbg.gnubg_net(path=...)`` with GNU Backgammon's own
    weights file agrees with GNU Backgammon's analysis, docs/analysis.md).
    met: the match equity table (default Kazaross-XG2, as GNU Backgammon). efficiency:
    the cube efficiencies of the cubeful values (:data:`fastbg.analysis.cube_actions.
    EFFICIENCIES`): "gnubg-1.1" (default), those GNU Backgammon 1.1 analyses with, or
    "eval.c", those of :func:`fastbg.cube_decision` and :func:`fastbg.hint`. luck_ply: the
    look-ahead of the luck of each roll, 0..3, 0 by default as in GNU Backgammon (its
    "luck analysis" setting): at ``ply`` >= 1 only the rolls played are then looked at at
    ``ply``, about a twentieth of the work of ``luck_ply=ply``. filter, prune: the move
    filter and the pruning of the look-ahead, as :func:`fastbg.hint` takes them (GNU
    Backgammon analyses with filter "large" and prune=True; the cube decisions and the
    luck are not pruned).

    Returns an :class:`Analysis`: ``.moves`` (each with ``equity_loss`` >= 0 and
    ``luck``), ``.cube`` and ``.players[0/1]`` (``error_total_emg``,
    ``error_rate_memg``, ``luck_total_emg``, ``pr``, ...).
    """
    ply = check_ply(ply)
    filter = check_filter(filter, ply)
    prune = check_flag("prune", prune)
    luck_ply = check_int("luck_ply", luck_ply, 0, MAX_PLY)
    check_choice("efficiency", efficiency, tuple(EFFICIENCIES))
    games, length, names, _ = _games(record)
    net = default_net() if net is None else net
    n_threads = resolve_threads(threads)
    turns, points = _walk(games, length)

    # all (position, roll) pairs: each turn's 21 rolls, and for an opening the
    # opponent's 15 starting rolls from his side
    boards, dice, states = [], [], []
    for t in turns:
        t.pair = len(boards)
        boards += [t.board] * len(ROLLS)
        dice += [r for r in ROLLS]
        states += [t.state] * len(ROLLS)
        if t.opening:
            opp = _opponent_state(t.state)
            boards += [t.board] * len(_NON_DOUBLES)
            dice += [ROLLS[i] for i in _NON_DOUBLES]
            states += [opp] * len(_NON_DOUBLES)
    moves = []
    if turns:
        b = np.ascontiguousarray(np.array(boards, np.int8))
        d = np.ascontiguousarray(np.array(dice, np.int64))
        must = None
        played = {}
        res, off = legal_moves_rows(b, d, n_threads)
        for t in turns:
            a = t.action
            k = t.pair + _ROLL_INDEX[tuple(sorted(a.dice, reverse=True))]
            lo, hi = off[k], off[k + 1]
            hit = np.flatnonzero((res[lo:hi] == t.result).all(axis=1))
            played[id(t)] = (k, lo + int(hit[0]))
        deepen = None
        if ply:
            must = np.zeros(len(res), bool)
            for k, row in played.values():
                must[row] = True
            if luck_ply != ply:         # the other rolls only count for the luck
                deepen = np.zeros(len(b), bool)
                deepen[[k for k, _ in played.values()]] = True
        values, values0, dance = _evaluate(b, res, off, states, ply, net, n_threads, must,
                                           met, efficiency, deepen, filter, prune)
        if luck_ply == ply:
            lucky = values
        elif luck_ply == 0:
            lucky = values0
        else:
            lucky = _evaluate(b, res, off, states, luck_ply, net, n_threads, None, met,
                              efficiency)[0]
        best_row = _best_rows(values, off)
        best = values[best_row]
        luck_best = lucky[_best_rows(lucky, off)]
        for t in turns:
            a = t.action
            k, row = played[id(t)]
            n_moves = 0 if dance[k] else int(off[k + 1] - off[k])
            loss = max(0.0, float(best[k] - values[row])) if n_moves > 1 else 0.0
            rolls = luck_best[t.pair:t.pair + len(ROLLS)]
            if t.opening:
                theirs = luck_best[t.pair + len(ROLLS):t.pair + len(ROLLS) + len(_NON_DOUBLES)]
                mean = (rolls[_NON_DOUBLES].sum() - theirs.sum()) / (2 * len(_NON_DOUBLES))
            else:
                mean = float(np.dot(rolls, _ROLL_WEIGHT)) / 36.0
            luck = float(luck_best[k] - mean)
            best_move = (a.move if n_moves <= 1 or best_row[k] == row
                         else move_notation(t.board, res[best_row[k]], a.dice))
            moves.append(MoveAnalysis(
                t.game, t.number, a.player, tuple(a.dice), a.move, best_move, loss, luck,
                _to_mwc(loss, t.state, met), _to_mwc(luck, t.state, met), n_moves <= 1,
                n_moves, a.position_id))
    cube = _judge_cube(points, games, length, ply, net, met, efficiency)
    players = _totals(games, length, names, moves, cube, turns, met)
    return Analysis(moves, cube, players, ply, length, names)


def _best_rows(values, off):
    """The row of the best value of each pair (the first on ties)."""
    return np.array([off[i] + int(np.argmax(values[off[i]:off[i + 1]]))
                     for i in range(len(off) - 1)], np.int64)


# ------------------------------------------------------------------ cube decisions

def _judge_cube(points, games, length, ply, net, met, source):
    """The :class:`CubeAnalysis` of every cube point: the doubler's decision at ``ply``
    (:func:`fastbg.cube_decisions`, one batch per cube state) judged as GNU Backgammon's
    updateStatcontext does."""
    groups = {}
    for i, p in enumerate(points):
        groups.setdefault((p[0], p[5]), []).append(i)
    decisions = [None] * len(points)
    for (gi, st), idx in groups.items():
        g = games[gi]
        boards = np.array([points[i][4] for i in idx], np.int8)
        x = np.atleast_1d(cube_efficiency(boards, source))
        if st[0] == "money":
            owner = "on_roll" if st[2] == "owned" else None
            out = cube_decisions(boards, rules=g.rules, cube=st[1], owner=owner, ply=ply,
                                 net=net, met=met, x=x)
        else:
            _, a, b, cube, rel, _ = st
            owner = "on_roll" if rel == "owned" else None
            out = cube_decisions(boards, rules=MatchRules(length),
                                 score=(length - a, length - b), cube=cube, owner=owner,
                                 ply=ply, net=net, met=met, x=x)
        for i, dec in zip(idx, out):
            decisions[i] = dec
    out = []
    for (gi, number, player, kind, board, st, pid), dec in zip(points, decisions):
        if st[0] == "match":
            nd, dt, dp = dec.no_double_emg, dec.double_take_emg, dec.double_pass_emg
            optimal = formulas.mwc_to_emg(dec.optimal, st[1], st[2], st[3], met=met)
        else:
            nd, dt, dp, optimal = dec.no_double, dec.double_take, dec.double_pass, dec.optimal
        if kind == "no_double":
            error = optimal - nd if nd < optimal else 0.0
            close = optimal - min(dt, 1.0) < CLOSE_CUBE
        elif kind == "double":
            error = max(0.0, optimal - min(dt, dp))
            close = True
        elif kind == "take":
            error = max(0.0, dt - dp)
            close = True
        else:
            error = max(0.0, dp - dt)
            close = True
        out.append(CubeAnalysis(gi, number, player, kind, dec.action, float(error),
                                float(_to_mwc(error, st, met)), bool(close), float(nd),
                                float(dt), float(dp), pid))
    return out


# ------------------------------------------------------------------ totals

def _game_result(g, length, met):
    """The match-winning chance (money: points) player 0 won in game ``g``."""
    if g.winner is None:
        return 0.0
    if length == 0:
        return float(g.points)
    a0, a1 = length - g.score[0], length - g.score[1]
    one = a0 == 1 or a1 == 1
    before = met_module.equity(a0, a1, crawford=one and g.crawford,
                               post_crawford=one and not g.crawford, met=met)
    return met_module.mwc_after(a0, a1, g.points, met=met) - before


def _totals(games, length, names, moves, cube, turns, met):
    out = []
    luck_mwc = np.zeros((len(games), 2))
    for m in moves:
        luck_mwc[m.game, m.player] += m.luck_mwc
    result = np.array([_game_result(g, length, met) for g in games])
    for p in (0, 1):
        mine = [m for m in moves if m.player == p]
        cubes = [c for c in cube if c.player == p]
        unforced = sum(1 for m in mine if not m.forced)
        close = sum(1 for c in cubes if c.close)
        ch_emg = sum(m.equity_loss for m in mine)
        ch_mwc = sum(m.loss_mwc for m in mine)
        cu_emg = sum(c.error for c in cubes)
        cu_mwc = sum(c.error_mwc for c in cubes)
        total = ch_emg + cu_emg
        n = unforced + close
        luck = sum(m.luck for m in mine)
        sign = 1.0 if p == 0 else -1.0
        actual = float(sign * result.sum())
        adjusted = float(sign * result.sum() - luck_mwc[:, p].sum() + luck_mwc[:, 1 - p].sum())
        out.append(PlayerAnalysis(
            name=names[p], moves=len(mine), unforced_moves=unforced,
            chequer_error_emg=ch_emg, chequer_error_mwc=ch_mwc,
            cube_decisions=len(cubes), close_cube_decisions=close,
            cube_error_emg=cu_emg, cube_error_mwc=cu_mwc,
            missed_doubles=sum(1 for c in cubes if c.kind == "no_double" and c.error > 0),
            wrong_doubles=sum(1 for c in cubes if c.kind == "double" and c.error > 0),
            wrong_takes=sum(1 for c in cubes if c.kind == "take" and c.error > 0),
            wrong_passes=sum(1 for c in cubes if c.kind == "drop" and c.error > 0),
            error_total_emg=total, error_total_mwc=ch_mwc + cu_mwc,
            error_rate_memg=RATE_FACTOR * total / n if n else 0.0,
            pr=PR_FACTOR * total / n if n else 0.0,
            luck_total_emg=luck, luck_total_mwc=float(luck_mwc[:, p].sum()),
            luck_rate_memg=RATE_FACTOR * luck / len(mine) if mine else 0.0,
            actual_result=actual, luck_adjusted_result=adjusted))
    return out
