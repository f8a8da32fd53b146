"""Slow cubeful reference game player: the cubeless reference of ``reference/game.py`` plus
the doubling cube, made of fastbg's slow Python tools.

A game is replayed exactly as the kernel plays it (same seed and game key, so the same dice
and moves: :func:`reference.game.play_game_ref` does the moving). The cube is added through
that function's ``order`` hook, which is called once per ply with the board of the player
on roll, before his move is chosen: the hook first plays the cube phase of that turn, then
returns the candidates in the kernel's order (given by the caller). The cube phase happens
at the start of the turn, before the roll (docs/rules.md section 6); with the usual opening
(``opening="use"``, no ``start``) the first player has already rolled, so he has no cube
decision on his first turn.

The cube decisions of the strategies (fastbg/cube/strategies.py, the kernel docstring of
fastbg/cube/decision_kernels.py) are made with the slow tools:

* ``"never"``: never doubles, takes every double.
* ``"race"``: :func:`fastbg.cube.keith_decision` in a race (double, or redouble when he owns
  the cube; the opponent's take); in contact no double and a take. Never beavers.
* :class:`~fastbg.JanowskiCube`, money play: :func:`fastbg.cube.cube_decision_money` (no
  double / double-take / double-pass from the Janowski equities; the Jacoby rule while the
  cube has not been turned) for the double and the take; a beaver when the take is worth
  more than 0 to the taker (the doubler's equity with the cube unavailable is below 0); after
  a beaver a Janowski doubler drops when his equity holding no cube is below -1/2 per unit
  (taking would cost more than dropping), raccoons when it is above 0, and the beaverer
  (the taker) answers the raccoon like a double. Each answer is judged with the answering
  player's own probabilities of the doubler's board (the doubler on roll).
* :class:`~fastbg.JanowskiCube`, match play: the docstring's dead-cube comparison in
  match-winning chances: no double = cubeless MWC at the current stake, double/take = at
  twice the stake, double/pass = the MWC after winning the current stake
  (:func:`fastbg.cube.mwc_cubeless` and :func:`fastbg.met.mwc_after` under the Crawford
  rule; without it the small formula :func:`mwc_after_no_crawford`, a 1-away score being
  played with the post-Crawford table). Double if min(double/take, double/pass) > no
  double; take if double/take <= double/pass.

The actions drive a :class:`fastbg.CubeGame` (``opening_tie`` for each tied opening throw,
``start_turn``, ``offer``/``take``/``drop``/``beaver``/``raccoon``, ``rolled``, ``finish``),
so every action is checked against the rules and the points come from CubeGame's
settlement; in match play they are capped at what the winner needs (docs/rules.md section 9:
points beyond the match length do not matter).

Decisions compare floats computed in another order than the kernel's. A comparison whose
two sides differ by less than a rounding tolerance (but are not equal) cannot be replayed:
the game is reported ``ambiguous``, like a tied move choice in ``reference/game.py``.
"""
from dataclasses import dataclass, field

import numpy as np

from fastbg import CubeGame, GnubgNet, JanowskiCube, MatchRules, MoneyRules
from fastbg.cube import formulas as fcube
from fastbg.cube import met as fmet

from . import game as ref

# Two values closer than this (relative) but not equal count as a tie the reference
# cannot break the way the kernel's arithmetic does.
CUBE_TIE_TOL = 1e-9

_NAMES = ("never", "race")


class _Stop(Exception):
    """Raised inside the ``order`` hook to end the replay (a drop or an ambiguous decision)."""

    def __init__(self, reason):
        super().__init__(reason)
        self.reason = reason


@dataclass
class CubefulResult:
    """One replayed game. ``points`` are what the winner scores (>= 1); ``cube`` is the
    final stake multiplier (for a dropped double: the stake before it); ``kind`` is 1 for a
    dropped double. ``events`` counts the cube actions; ``start_stake`` is the stake after
    the automatic doubles. When ``ambiguous`` the other fields are None."""
    winner: object
    kind: object
    points: object
    cube: object
    dropped: object
    plies: object
    first: int
    ambiguous: bool = False
    start_stake: int = 1
    events: dict = field(default_factory=dict)

    def key(self):
        """(winner, kind, points from the winner's side, final cube value, dropped)."""
        return (self.winner, self.kind, self.points, self.cube, self.dropped)


def _name(strategy):
    if isinstance(strategy, str):
        key = strategy.strip().lower()
        if key in _NAMES:
            return key
        raise ValueError(f"unknown cube strategy {strategy!r}")
    if isinstance(strategy, JanowskiCube):
        return "janowski"
    raise TypeError(f"a cube strategy is a name or a JanowskiCube, got {strategy!r}")


def _gt(a, b):
    """a > b, or :class:`_Stop` when the two are within rounding of each other but unequal."""
    a, b = float(a), float(b)
    if a != b and abs(a - b) <= CUBE_TIE_TOL * max(1.0, abs(a), abs(b)):
        raise _Stop("ambiguous")
    return a > b


def _probs(strategy, board):
    b = np.array(board, np.int8)
    if isinstance(strategy.probs, GnubgNet):              # its own batch evaluation
        return np.asarray(strategy.probs(b), np.float64)
    if hasattr(strategy.probs, "batch_probabilities"):    # e.g. the n-ply networks
        return np.asarray(strategy.probs.batch_probabilities(b[None]), np.float64)[0]
    out = np.zeros(5)
    strategy.probs(b, out)
    return out


def _within(rules, value):
    return rules.max_cube is None or value <= rules.max_cube


def mwc_after_no_crawford(away0, away1, points, met=None):
    """MWC of player 0 after a game worth ``points`` to him (< 0: to player 1) in a match
    without the Crawford rule: a score with a side at 1-away is played with the cube, read
    from the post-Crawford table; otherwise the pre-Crawford table."""
    n0, n1 = (away0 - points, away1) if points > 0 else (away0, away1 + points)
    if n0 <= 0:
        return 1.0
    if n1 <= 0:
        return 0.0
    one = n0 == 1 or n1 == 1
    return fmet.equity(n0, n1, post_crawford=one, met=met)


def _match_mwcs(p, away_me, away_opp, value, crawford_rule):
    """(no double, double/take, double/pass) for the doubler (on roll, probabilities ``p``),
    a dead cube: cubeless MWCs at the current and the doubled stake, and the pass."""
    if crawford_rule:
        nd = fcube.mwc_cubeless(p, away_me, away_opp, cube=value)
        dt = fcube.mwc_cubeless(p, away_me, away_opp, cube=2 * value)
        dp = fmet.mwc_after(away_me, away_opp, value)
        return nd, dt, dp
    w, wg, wbg, lg, lbg = (float(v) for v in p)
    outcomes = ((w - wg, 1), (wg - wbg, 2), (wbg, 3), (1.0 - w - lg, -1), (lg - lbg, -2),
                (lbg, -3))

    def cubeless(stake):
        return sum(q * mwc_after_no_crawford(away_me, away_opp, k * stake) for q, k in outcomes)

    return cubeless(value), cubeless(2 * value), mwc_after_no_crawford(away_me, away_opp, value)


class _Player:
    """The cube side of one game: a CubeGame driven by the two strategies."""

    def __init__(self, rules, cube, aways, crawford_game):
        self.rules = rules
        self.cube = tuple(cube)
        self.names = tuple(_name(c) for c in cube)
        self.aways = aways
        self.cg = CubeGame(rules, crawford_game=crawford_game)
        self.events = dict(doubles=0, takes=0, drops=0, beavers=0, raccoons=0)

    # ---- decisions (board seen from the doubler, who is on roll) ------------------------
    def wants_double(self, side, board):
        name, strat, cg = self.names[side], self.cube[side], self.cg
        if name == "never":
            return False
        if name == "race":
            if not ref.is_race(board):
                return False
            return fcube.keith_decision(np.array(board, np.int8), cube_owned=cg.owner == side)[0]
        p = _probs(strat, board)
        if self.rules.is_match:
            nd, dt, dp = _match_mwcs(p, self.aways[side], self.aways[1 - side], cg.value,
                                     self.rules.crawford)
        else:
            d = fcube.cube_decision_money(
                p, strat.x, owner="owned" if cg.owner == side else "centred",
                jacoby=self.rules.jacoby and not cg.turned)
            nd, dt, dp = d["no_double"], d["double_take"], d["double_pass"]
        return _gt(min(dt, dp), nd)

    def answer(self, doubler, board):
        """The taker's answer to a double: 'take', 'drop' or 'beaver'."""
        taker = 1 - doubler
        name, strat, cg = self.names[taker], self.cube[taker], self.cg
        if name == "never":
            return "take"
        if name == "race":
            if not ref.is_race(board):
                return "take"
            return "take" if fcube.keith_decision(np.array(board, np.int8))[1] else "drop"
        p = _probs(strat, board)         # the taker's evaluator, the doubler on roll
        if self.rules.is_match:
            _, dt, dp = _match_mwcs(p, self.aways[doubler], self.aways[taker], cg.value,
                                    self.rules.crawford)
            return "drop" if _gt(dt, dp) else "take"
        d = fcube.cube_decision_money(p, strat.x)
        if _gt(d["double_take"], d["double_pass"]):
            return "drop"
        e_unavailable = fcube.janowski_equity(p, "unavailable", strat.x)
        if (self.rules.beavers and _within(self.rules, 4 * cg.value)
                and _gt(0.0, e_unavailable)):
            return "beaver"
        return "take"

    def _doubler_equity_no_cube(self, player, board):
        """Janowski equity per unit of the doubler (on roll), the cube unavailable to him,
        as judged by ``player``'s evaluator."""
        strat = self.cube[player]
        return fcube.janowski_equity(_probs(strat, board), "unavailable", strat.x)

    # ---- one turn ----------------------------------------------------------------------
    def turn(self, side, board, may_double):
        """The cube phase of ``side``'s turn; :class:`_Stop` ('drop') when a drop ends the game."""
        cg = self.cg
        cg.start_turn(side)
        if may_double and cg.can_double(side) and self.wants_double(side, board):
            self._double(side, board)
        cg.rolled()

    def _double(self, side, board):
        cg, ev = self.cg, self.events
        taker = 1 - side
        cg.offer(side)
        ev["doubles"] += 1
        answer = self.answer(side, board)
        if answer == "drop":
            cg.drop(taker)
            ev["drops"] += 1
            raise _Stop("drop")
        if answer == "take":
            cg.take(taker)
            ev["takes"] += 1
            return
        cg.beaver(taker)
        ev["beavers"] += 1
        if self.names[side] != "janowski":
            cg.take(side)                  # the race strategy takes every beaver
            ev["takes"] += 1
            return
        e_me = self._doubler_equity_no_cube(side, board)
        if _gt(-1.0, 2.0 * e_me):
            cg.drop(side)
            ev["drops"] += 1
            raise _Stop("drop")
        if self.rules.raccoons and _within(self.rules, 4 * cg.value) and _gt(e_me, 0.0):
            cg.raccoon(side)
            ev["raccoons"] += 1
            # Only a Janowski taker beavers; he answers the raccoon with his evaluator.
            if _gt(2.0 * self._doubler_equity_no_cube(taker, board), 1.0):
                cg.drop(taker)
                ev["drops"] += 1
                raise _Stop("drop")
            cg.take(taker)
            ev["takes"] += 1
            return
        cg.take(side)
        ev["takes"] += 1


def _aways(rules, score, crawford_game):
    if not rules.is_match:
        if score is not None or crawford_game:
            raise ValueError("score and crawford_game belong to match play")
        return None
    s0, s1 = (0, 0) if score is None else score
    a = (rules.length - s0, rules.length - s1)
    if min(a) < 1:
        raise ValueError(f"score {score} is at or past the match length {rules.length}")
    return a


def opening_tie_dice(seed, game):
    """The die both players showed on each tied opening throw of ``game``, in order."""
    _, _, _, ties = ref.opening_roll(seed, game)
    return [ref.die(ref.rand64(seed, game, t, ref.STREAM_OPENING) >> 32) for t in range(ties)]


def play_cubeful_ref(seed, game, bots, rules, cube=("never", "never"), order=None,
                     score=None, crawford_game=False, opening="use", start=None):
    """Replay game ``game`` (the kernel's game key) of ``seed`` with the cube.

    ``bots`` as for :func:`reference.game.play_game_ref`; ``rules`` a MoneyRules or
    MatchRules; ``cube`` two strategies; ``order(board, dice)`` gives the candidates in the
    kernel's order (required: the cube hook needs it, and it breaks exact move ties as the
    kernel does); ``score`` / ``crawford_game`` the match situation of the game (as in
    :func:`fastbg.play`). Returns a :class:`CubefulResult`.
    """
    if order is None:
        raise ValueError("the cubeful reference needs the kernel's candidate order")
    if not isinstance(rules, (MoneyRules, MatchRules)):
        raise TypeError("rules must be MoneyRules or MatchRules")
    aways = _aways(rules, score, crawford_game)
    player = _Player(rules, cube, aways, crawford_game)
    cg = player.cg
    if start is None:
        first = ref.opening_roll(seed, game)[0]
        if not rules.is_match and rules.auto_doubles:
            for d in opening_tie_dice(seed, game):
                cg.opening_tie(six_six=d == 6)
    elif isinstance(start, tuple) and len(start) == 2:
        first = int(start[1])
    else:
        first = 0
    start_stake = cg.value
    state = dict(ply=0, side=None)

    def hook(board, dice):
        ply = state["ply"]
        side = first ^ (ply & 1)
        state["side"] = side
        # With the usual opening the first player's roll is the opening throw: he has
        # rolled already and cannot double on that turn.
        opening_roll_used = ply == 0 and start is None and opening == "use"
        player.turn(side, board, may_double=not opening_roll_used)
        state["ply"] = ply + 1
        return order(board, dice)

    def result(**kw):
        return CubefulResult(first=first, start_stake=start_stake, events=player.events, **kw)

    try:
        r = ref.play_game_ref(seed, game, bots, opening=opening, start=start, order=hook)
    except _Stop as stop:
        if stop.reason == "ambiguous":
            return result(winner=None, kind=None, points=None, cube=None, dropped=None,
                          plies=None, ambiguous=True)
        assert cg.over and cg.dropped
        winner = 0 if cg.result > 0 else 1
        return result(winner=winner, kind=1, points=_capped(abs(cg.result), aways, winner),
                      cube=cg.value, dropped=True, plies=state["ply"])
    if r["ambiguous"]:
        return result(winner=None, kind=None, points=None, cube=None, dropped=None,
                      plies=None, ambiguous=True)
    assert r["first"] == first and r["winner"] == state["side"]
    cg.finish(r["winner"], r["kind"])
    return result(winner=r["winner"], kind=r["kind"],
                  points=_capped(abs(cg.result), aways, r["winner"]), cube=cg.value,
                  dropped=False, plies=r["plies"])


def _capped(points, aways, winner):
    """docs/rules.md section 9: points beyond what the winner needs do not matter."""
    return points if aways is None else min(points, aways[winner])


def play_match_ref(seed, match, length, bots, cube, order, crawford=True, max_cube=64,
                   opening="use"):
    """Replay match ``match`` of :func:`fastbg.play_matches`: game j takes the game key
    ``(match << 16) | j``; the Crawford game is the first after a player first reaches
    ``length - 1``. Returns ``(winner, games, score0, score1)``, or None when a game was
    ambiguous."""
    rules = MatchRules(length, crawford=crawford, max_cube=max_cube)
    score = [0, 0]
    crawford_done = False
    games = 0
    while max(score) < length:
        craw = crawford and not crawford_done and length - 1 in score
        r = play_cubeful_ref(seed, (match << 16) | games, bots, rules, cube, order,
                             score=tuple(score), crawford_game=craw, opening=opening)
        games += 1
        if r.ambiguous:
            return None
        crawford_done = crawford_done or craw
        score[r.winner] = min(length, score[r.winner] + r.points)
    return (0 if score[0] >= length else 1, games, score[0], score[1])
