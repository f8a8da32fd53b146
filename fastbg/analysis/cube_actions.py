"""The engine's cube decisions: :func:`cube_decision`, :func:`cube_decisions` and
:class:`CubeDecision` (docs/engine.md section 2).

"Should the player on roll double, and should the opponent take?" answered as GNU
Backgammon's evaluation answers it: the n-ply cubeless probabilities of the position
(``net.probabilities(board, ply)``, docs/engine.md section 1) are turned into cubeful
values by Janowski's model with the cube efficiency of the position's class (gnubg
``EvalEfficiency``, :func:`cube_efficiency`): money play by
:func:`fastbg.cube.cube_decision_money`, match play by
:func:`fastbg.cube.cube_decision_match` with the match equity table (docs/cube.md
sections 2 and 3). This module adds the reading of the position and its cube state, the
beaver rule, and GNU Backgammon's names of the cube actions; the cube maths are those
functions'.

>>> import fastbg
>>> d = fastbg.cube_decision(fastbg.START)                        # doctest: +SKIP
>>> d.action, d.double, d.take                                    # doctest: +SKIP
('no double, take', False, True)
"""
import dataclasses

import numpy as np

from fastbg.constants import BOARD_SIZE
from fastbg.cube import formulas
from fastbg.cube.rules import MatchRules, MoneyRules
from fastbg.evaluators import bearoff_kernels as _bo
from fastbg.evaluators import net_kernels as _nk
from fastbg.evaluators.own_nets import default_net
from fastbg.evaluators.search import check_ply
from fastbg.position.board import pip_counts, validate
from fastbg.position.ids import BOTTOM, ON_ROLL, OPPONENT, read_position
from fastbg.validation import check_choice, check_int

# gnubg's EvalEfficiency (eval.c) and its parameters: rOSCubeX and rTSCubeX for the
# one- and two-sided bear-off, rRaceFactorX, rRaceCoefficientX, rRaceMin, rRaceMax for
# races (x = pips of the player on roll x factor + coefficient, clamped), rCrashedX and
# rContactX. A finished game has a dead cube.
X_BEAROFF = 0.6
X_RACE_FACTOR = 0.00125
X_RACE_COEFFICIENT = 0.55
X_RACE_MIN = 0.6
X_RACE_MAX = 0.7
X_CRASHED = 0.68
X_CONTACT = 0.68
# Cube efficiencies by source: "eval.c" the defaults above (GNU Backgammon's eval.c as
# published, what cube_decision uses); "gnubg-1.1" those GNU Backgammon 1.1.0a16 (the PyPI
# package) evaluates with, measured from its 0-ply cube analyses of 400 positions
# (docs/analysis.md section 4): contact and crashed 0.76, race 0.6 + 0.0025 x pips
# (0.6 at the least; the largest race seen, 79 pips, gave 0.7975, the cap of 0.8 assumed),
# one-sided bear-off 0.6. (contact, crashed, race coefficient, race factor, race min, race
# max, bear-off)
EFFICIENCIES = {"eval.c": (X_CONTACT, X_CRASHED, X_RACE_COEFFICIENT, X_RACE_FACTOR,
                           X_RACE_MIN, X_RACE_MAX, X_BEAROFF),
                "gnubg-1.1": (0.76, 0.76, 0.6, 0.0025, 0.6, 0.8, 0.6)}

# gnubg isOptional: a double that gains at most this much is "optional".
OPTIONAL = 1e-5

CENTRED = "centred"
_OWNERS = {
    "centred": CENTRED, "centered": CENTRED, "centre": CENTRED, "center": CENTRED,
    ON_ROLL: ON_ROLL, "me": ON_ROLL, "mine": ON_ROLL, "owned": ON_ROLL,
    OPPONENT: OPPONENT, "unavailable": OPPONENT,
}
_FORMULA_OWNER = {CENTRED: formulas.CENTRED, ON_ROLL: formulas.OWNED}


# ------------------------------------------------------------------ cube efficiency

def _class_of(board, gb):
    _nk.to_gnubg(board, gb)
    return int(_nk.classify(gb, _bo.BINOM))


def cube_efficiency(board, source="eval.c"):
    """GNU Backgammon's cube efficiency ``x`` of a position, player on roll (its
    ``EvalEfficiency``, the x of its 0-ply cubeful evaluation).

    By gnubg's position class (:data:`fastbg.evaluators.nets.CLASS_NAMES`): a finished game
    0 (dead cube); one- or two-sided bear-off 0.6; race ``0.55 + 0.00125 x`` the pip count
    of the player on roll, clamped to 0.6..0.7 (40 pips or fewer give 0.6, 120 or more 0.7);
    crashed and contact 0.68. A float, or an array for a batch of boards.

    ``source`` picks the parameters (:data:`EFFICIENCIES`): "eval.c" (default, the values
    above) or "gnubg-1.1" (those GNU Backgammon 1.1 evaluates with).

    >>> import fastbg
    >>> cube_efficiency(fastbg.START)
    0.68
    """
    params = EFFICIENCIES[check_choice("source", source, tuple(EFFICIENCIES))]
    b = validate(board)
    rows = b.reshape(-1, BOARD_SIZE)
    gb = np.zeros((2, 25), np.int64)
    out = np.empty(rows.shape[0])
    for i, row in enumerate(rows):
        out[i] = _efficiency(row, _class_of(row, gb), params)
    return float(out[0]) if b.ndim == 1 else out


def _efficiency(board, pc, params=EFFICIENCIES["eval.c"]):
    contact, crashed, coefficient, factor, lo, hi, bearoff = params
    if pc == _nk.C_OVER:
        return 0.0
    if pc in (_nk.C_BEAROFF1, _nk.C_BEAROFF2):
        return bearoff
    if pc == _nk.C_RACE:
        pips = pip_counts(board)[0]
        return min(hi, max(lo, pips * factor + coefficient))
    return crashed if pc == _nk.C_CRASHED else contact


# ------------------------------------------------------------------ the result

_LABELS = {"nd": "No {verb}", "dt": "{Verb}, take", "dp": "{Verb}, pass"}


@dataclasses.dataclass(frozen=True)
class CubeDecision:
    """The cube decision of the player on roll (:func:`cube_decision`).

    Values are the player on roll's, the doubler's:

    * money play: ``no_double``, ``double_take`` and ``double_pass`` are cubeful equities
      per unit of the current cube (GNU Backgammon's normalised equities: double/pass is
      +1; multiply by ``cube`` for points), the ``*_emg`` fields are None;
    * match play: they are match-winning chances (MWC) and the ``*_emg`` fields the same
      as normalised money equities (:func:`fastbg.cube.mwc_to_emg` for the current cube,
      as GNU Backgammon compares them).

    ``double``: doubling is right: neither answer of the opponent leaves the doubler less
    than not doubling (a tie doubles, as in GNU Backgammon, where
    :func:`fastbg.cube.cube_decision_money` calls a tie no double: doubling then loses
    nothing, and a won position without gammons, no double = double/pass = 1, is a
    double/pass). ``take``: the opponent should take (``double_take <= double_pass``, a tie
    is a take). ``beaver``: money play with the
    beaver rule and the taker better off than even after taking (``double_take < 0``):
    he should beaver, which leaves the doubler twice ``double_take`` (the cube on
    4 x ``cube``, owned by the taker), and ``double`` weighs that. ``action``: GNU
    Backgammon's name of the proper action in lower case (see :func:`cube_decision`);
    ``optimal`` the value of that action. ``probabilities`` are the ``ply``-ply cubeless
    probabilities (win, win gammon, win backgammon, lose gammon, lose backgammon) of the
    player on roll; ``cubeless_equity`` their money equity and, in a match,
    ``cubeless_mwc`` their match-winning chance with the current cube. ``x`` is the cube
    efficiency used, ``owner`` ``"centred"`` or ``"on_roll"``, ``away`` the points the
    player on roll and his opponent still need (None for money play), ``rules`` the
    :class:`fastbg.MoneyRules` or :class:`fastbg.MatchRules` of the decision.
    """

    no_double: float
    double_take: float
    double_pass: float
    double: bool
    take: bool
    beaver: bool
    action: str
    optimal: float
    probabilities: tuple
    ply: int
    x: float
    cube: int
    owner: str
    rules: object
    away: tuple | None
    cubeless_equity: float
    cubeless_mwc: float | None
    no_double_emg: float | None
    double_take_emg: float | None
    double_pass_emg: float | None

    @property
    def is_match(self):
        return self.away is not None

    def text(self):
        """A GNU-Backgammon-like cube analysis: the probabilities, the three values from
        the best for the proper action down, and the proper cube action."""
        p = self.probabilities
        verb = "redouble" if self.owner == ON_ROLL else "double"
        owner = "centred" if self.owner == CENTRED else "owned by the player on roll"
        if self.is_match:
            where = (f"{self.rules.length}-point match, {self.away[0]}-away {self.away[1]}"
                     f"-away")
        else:
            rules = [name for name in ("jacoby", "beavers") if getattr(self.rules, name)]
            where = "money game" + (f" ({', '.join(rules)})" if rules else "")
        lines = [f"Cube analysis: {where}, cube {self.cube} {owner}, x = {self.x:.3f}"]
        if self.is_match:
            lines.append(f"{self.ply}-ply cubeless MWC {100 * self.cubeless_mwc:.2f}% "
                         f"(money equity {self.cubeless_equity:+.3f})")
        else:
            lines.append(f"{self.ply}-ply cubeless equity {self.cubeless_equity:+.3f}")
        pct = [f"{100 * v:5.1f}%" for v in (p[0], p[1], p[2], 1.0 - p[0], p[3], p[4])]
        lines.append("  " + " ".join(pct[:3]) + " - " + " ".join(pct[3:]))
        lines.append("Cubeful match-winning chances (EMG):" if self.is_match
                     else "Cubeful equities:")
        values = {"nd": (self.no_double, self.no_double_emg),
                  "dt": (self.double_take, self.double_take_emg),
                  "dp": (self.double_pass, self.double_pass_emg)}
        for i, key in enumerate(self._order()):
            label = _LABELS[key].format(verb=verb, Verb=verb.capitalize())
            v, emg = values[key]
            if self.is_match:
                row = f"{i + 1}. {label:<20} {100 * v:6.2f}% ({emg:+.3f})"
                diff = f"  ({100 * (v - self.optimal):+.2f}%)"
            else:
                row = f"{i + 1}. {label:<20} {v:+.3f}"
                diff = f"  ({v - self.optimal:+.3f})"
            lines.append(row + (diff if i else ""))
        lines.append(f"Proper cube action: {self.action[0].upper()}{self.action[1:]}")
        return "\n".join(lines)

    __str__ = text

    def _order(self):
        """gnubg ``getCubeDecisionOrdering``: the proper action first, then the better of
        the other two for the doubler."""
        if self.double:
            return ("dt", "dp", "nd") if self.take else ("dp", "dt", "nd")
        return ("nd", "dp", "dt") if self.take else ("nd", "dt", "dp")


def proper_cube_action(nd, taken, dp, take, beaver, redouble, optional_pass):
    """``(double, action)``: whether to double and GNU Backgammon's name of the proper cube
    action in lower case (its ``FindBestCubeDecision`` and ``GetCubeRecommendation``).

    ``taken`` is the doubler's value when the opponent takes (after a beaver, twice the
    double/take value). Doubling is right when neither answer leaves the doubler less than
    not doubling (a tie doubles, as in GNU Backgammon); "optional" when doubling gains less
    than :data:`OPTIONAL`, for a double/pass only with a gammon to play for
    (``optional_pass``).
    """
    verb = "redouble" if redouble else "double"
    if taken >= nd and dp >= nd:
        if take:
            word = "beaver" if beaver else "take"
            optional = abs(taken - nd) <= OPTIONAL
        else:
            word = "pass"
            optional = optional_pass and abs(dp - nd) <= OPTIONAL
        return True, ("optional " if optional else "") + f"{verb}, {word}"
    if nd > dp:
        return False, f"too good to {verb}, " + ("take" if take else "pass")
    return False, f"no {verb}, " + ("beaver" if beaver else "take")


# ------------------------------------------------------------------ reading the arguments

@dataclasses.dataclass(frozen=True)
class _State:
    """The checked cube state of a decision."""
    rules: object
    cube: int
    owner: str
    away: tuple | None
    met: object


def _owner(owner):
    try:
        return _OWNERS[owner.lower()]
    except (AttributeError, KeyError):
        raise ValueError(f"owner must be None (centred), 'centred', 'on_roll' (or 'me') or "
                         f"'opponent', got {owner!r}") from None


def _score(score, length):
    try:
        mine, theirs = score
    except (TypeError, ValueError):
        raise ValueError(f"score is a pair (points of the player on roll, points of the "
                         f"opponent), got {score!r}") from None
    pair = (check_int("score", mine), check_int("score", theirs))
    if not all(0 <= s < length for s in pair):
        raise ValueError(f"score {pair} does not fit a {length}-point match: each player "
                         f"has 0..{length - 1} points")
    return pair


def _from_xgid(info, rules, score, cube, owner, crawford):
    """Fill the arguments not given from an XGID (explicit arguments win)."""
    if info.dice is not None:
        raise ValueError(f"a cube decision comes before the roll: this XGID has the dice "
                         f"{info.dice[0]}{info.dice[1]} rolled")
    if info.beavered or info.raccooned:
        raise ValueError("this XGID has a beaver or raccoon pending: the cube decision has "
                         "been made")
    if rules is None:
        limit = 1 << info.max_cube
        rules = (MatchRules(info.match_length, max_cube=limit) if info.match_length else
                 MoneyRules(jacoby=info.jacoby, beavers=info.beaver, max_cube=limit))
    if rules.is_match and score is None:
        if info.match_length != rules.length:
            kind = (f"{info.match_length}-point match" if info.match_length
                    else "money game")
            raise ValueError(f"the XGID is a {kind} but rules play a {rules.length}-point "
                             f"match: pass score= too")
        on_roll_bottom = info.turn == BOTTOM
        score = ((info.score_bottom, info.score_top) if on_roll_bottom
                 else (info.score_top, info.score_bottom))
        if crawford is None:
            crawford = info.crawford
    if cube is None:
        cube = info.cube_value
    if owner is None:
        owner = info.cube_owner_relative or CENTRED
    return rules, score, cube, owner, crawford


def _state(info, rules, score, cube, owner, crawford, met):
    if rules is not None and not isinstance(rules, (MoneyRules, MatchRules)):
        raise TypeError(f"rules must be fastbg.MoneyRules(...) or fastbg.MatchRules(length), "
                        f"got {type(rules).__name__}")
    if info is not None:
        rules, score, cube, owner, crawford = _from_xgid(info, rules, score, cube, owner,
                                                         crawford)
    rules = MoneyRules() if rules is None else rules
    cube = check_int("cube", 1 if cube is None else cube, 1)
    if cube & (cube - 1):
        raise ValueError(f"the cube shows a power of two (1, 2, 4, ...), got {cube}")
    owner = CENTRED if owner is None else _owner(owner)
    if owner == OPPONENT:
        raise ValueError("the opponent owns the cube: the player on roll cannot double")
    if owner == ON_ROLL and cube == 1:
        raise ValueError("a cube on 1 has not been turned, so nobody owns it: pass "
                         "owner=None (centred)")
    if rules.max_cube is not None and 2 * cube > rules.max_cube:
        raise ValueError(f"the cube is at {cube} and max_cube is {rules.max_cube}: no "
                         f"double is possible")
    crawford = bool(crawford)
    if not rules.is_match:
        if score is not None:
            raise ValueError("score applies to match play (rules=fastbg.MatchRules(...))")
        if crawford:
            raise ValueError("money play has no Crawford game")
        return _State(rules, cube, owner, None, None)
    mine, theirs = _score((0, 0) if score is None else score, rules.length)
    away = (rules.length - mine, rules.length - theirs)
    if crawford:
        if not rules.crawford:
            raise ValueError("crawford=True but the rules have no Crawford game "
                             "(MatchRules(crawford=False))")
        if (away[0] == 1) == (away[1] == 1):
            raise ValueError(f"the Crawford game needs exactly one player 1-away, got "
                             f"{away[0]}-away, {away[1]}-away")
        raise ValueError("the Crawford game has no cube: no double is possible")
    return _State(rules, cube, owner, away, met)


def _probabilities(net, boards, ply):
    net = default_net() if net is None else net
    if not callable(getattr(net, "probabilities", None)):
        raise TypeError(f"net must have a probabilities(boards, ply) method (a "
                        f"fastbg.GnubgNet), got {type(net).__name__}")
    p = np.asarray(net.probabilities(boards, ply), dtype=np.float64)
    if p.shape != boards.shape[:-1] + (5,):
        raise ValueError(f"net.probabilities returned shape {p.shape} for boards of shape "
                         f"{boards.shape}")
    return p


# ------------------------------------------------------------------ the decisions

def _decide(p, x, ply, st):
    """One :class:`CubeDecision` from the probabilities ``p`` (5,) and efficiency ``x``."""
    own = _FORMULA_OWNER[st.owner]
    rules, c = st.rules, st.cube
    emg = (None, None, None)
    cubeless_mwc = None
    if st.away is None:
        d = formulas.cube_decision_money(p, x, owner=own, jacoby=rules.jacoby)
        nd, dt, dp = float(d["no_double"]), float(d["double_take"]), float(d["double_pass"])
        fits = rules.max_cube is None or 4 * c <= rules.max_cube
        beaver = bool(rules.beavers and fits and dt < 0.0)
    else:
        a0, a1 = st.away
        d = formulas.cube_decision_match(p, a0, a1, x, c, own, met=st.met)
        nd, dt, dp = float(d["no_double"]), float(d["double_take"]), float(d["double_pass"])
        emg = tuple(formulas.mwc_to_emg(v, a0, a1, c, met=st.met) for v in (nd, dt, dp))
        cubeless_mwc = formulas.mwc_cubeless(p, a0, a1, c, met=st.met)
        beaver = False
    # The doubler's result of a take: after a beaver the cube is on 4c, owned by the
    # taker, worth twice the double/take equity per unit of c (gnubg FindBestCubeDecision).
    taken = 2.0 * dt if beaver else dt
    take = bool(d["take"])
    # gnubg: a double/pass is optional only with a gammon to play for and the gammon
    # counting (match play, a cube already owned, or no Jacoby rule).
    gammons_count = st.away is not None or st.owner == ON_ROLL or not rules.jacoby
    double, action = proper_cube_action(nd, taken, dp, take, beaver, st.owner == ON_ROLL,
                             p[1] > 0.0 and gammons_count)
    optimal = (taken if take else dp) if double else nd
    return CubeDecision(
        no_double=nd, double_take=dt, double_pass=dp, double=double, take=take,
        beaver=beaver, action=action,
        optimal=float(optimal), probabilities=tuple(float(v) for v in p), ply=ply,
        x=float(x), cube=c, owner=st.owner, rules=rules, away=st.away,
        cubeless_equity=float(formulas.cubeless_equity(p)), cubeless_mwc=cubeless_mwc,
        no_double_emg=emg[0], double_take_emg=emg[1], double_pass_emg=emg[2])


def _efficiencies(rows, x):
    """Per-row cube efficiency: gnubg's by class when ``x`` is None; ValueError for a
    finished game."""
    gb = np.zeros((2, 25), np.int64)
    classes = [_class_of(row, gb) for row in rows]
    over = [i for i, pc in enumerate(classes) if pc == _nk.C_OVER]
    if over:
        where = "" if len(rows) == 1 else f" (board {over[0]})"
        raise ValueError(f"the game is over{where}: a side has no checkers left, so there "
                         f"is no cube decision")
    if x is None:
        return [_efficiency(row, pc) for row, pc in zip(rows, classes)]
    try:
        xs = np.broadcast_to(np.asarray(x, dtype=np.float64), (len(rows),))
    except (TypeError, ValueError):
        raise ValueError(f"x is a cube efficiency in 0..1 (one, or one per board), got "
                         f"{x!r}") from None
    if isinstance(x, bool) or not np.all((xs >= 0.0) & (xs <= 1.0)):
        raise ValueError(f"x is a cube efficiency in 0..1, got {x!r}")
    return xs.tolist()


def cube_decision(position, rules=None, score=None, cube=None, owner=None, ply=0, net=None,
                  x=None, crawford=None, met=None):
    """The cube decision of the player on roll at ``ply``: a :class:`CubeDecision`.

    position : a board ``int8[26]`` (player on roll, before his roll), a gnubg Position ID
               or an XGID (dice not rolled; a pending double "D" is accepted: the decision
               is the same one).
    rules    : ``fastbg.MoneyRules(...)`` (its ``jacoby``, ``beavers`` and ``max_cube``
               count) or ``fastbg.MatchRules(length)``; default money play with the
               Jacoby rule.
    score    : match play: ``(points of the player on roll, points of the opponent)``,
               each below the match length, as ``fastbg.play`` and ``fastbg.rollout`` take
               it (default ``(0, 0)``). Money play has none.
    cube     : the cube value, 1, 2, 4, ... (default 1).
    owner    : None or ``"centred"`` (either may double), ``"on_roll"`` (or ``"me"``: he
               owns it and may redouble); ``"opponent"`` is a ValueError: he cannot double.
    ply      : 0..3, the look-ahead of the cubeless probabilities (docs/engine.md
               section 1).
    net      : the evaluator, anything with ``probabilities(boards, ply)`` returning the
               five probabilities of the player on roll; default ``fastbg.default_net()``.
    x        : cube efficiency 0..1; default GNU Backgammon's by position class
               (:func:`cube_efficiency`).
    crawford : match play: True if this is the Crawford game, which has no cube (a
               ValueError); with a player 1-away and ``crawford`` false the game is
               post-Crawford.
    met      : match equity table (default Kazaross-XG2, :func:`fastbg.met.load_default`).

    An XGID supplies what is not passed: its cube value and owner, and, unless ``rules``
    are given, its rules (a ``MatchRules(length)`` for a match, else ``MoneyRules`` with
    its Jacoby and beaver flags), and its cube limit; its score and Crawford flag are used
    when the rules play a match of its length. Explicit arguments always win.

    The money figures come from :func:`fastbg.cube.cube_decision_money` (Jacoby rule per
    ``rules.jacoby``), the match figures from :func:`fastbg.cube.cube_decision_match`:
    Janowski's cubeful model applied to the n-ply cubeless probabilities (GNU Backgammon's
    own n-ply cube analysis averages cubeful values over the rolls instead; the two agree at
    0-ply; docs/engine.md section 2). ``action`` is GNU Backgammon's name of the proper
    cube action (eval.c ``GetCubeRecommendation``) in lower case: "no double, take",
    "double, take", "double, pass", "too good to double, take", "too good to double,
    pass", with beavers "no double, beaver" and "double, beaver"; "optional double, take"
    (or "pass", "beaver") when doubling gains at most 1e-5; and "redouble" for "double"
    when the player on roll owns the cube. ``text()`` (and ``str()``) prints them
    capitalised, as GNU Backgammon does.

    ValueError for an invalid position, a finished game, ply outside 0..3, a score that
    does not fit the match, a cube the player on roll cannot turn (the opponent owns it,
    the Crawford game, the cube limit, a match he wins with the cube as it is or as the
    1-away leader), and XGIDs with the dice rolled.
    """
    board, info = read_position(position, "cube_decision")
    return _decisions(board[None], info, rules, score, cube, owner, ply, net, x, crawford,
                      met)[0]


def cube_decisions(boards, rules=None, score=None, cube=None, owner=None, ply=0, net=None,
                   x=None, crawford=None, met=None):
    """:func:`cube_decision` for a batch of boards ``(n, 26)`` sharing one cube state: one
    call of ``net.probabilities(boards, ply)`` for all of them. ``x`` may be one number,
    ``n`` numbers, or None (each board's class). Returns a list of :class:`CubeDecision`.
    """
    b = validate(boards)
    if b.ndim != 2:
        raise ValueError(f"cube_decisions takes a batch of boards (n, {BOARD_SIZE}), got "
                         f"shape {b.shape}; cube_decision takes one")
    return _decisions(b, None, rules, score, cube, owner, ply, net, x, crawford, met)


def _decisions(rows, info, rules, score, cube, owner, ply, net, x, crawford, met):
    ply = check_ply(ply)
    st = _state(info, rules, score, cube, owner, crawford, met)
    xs = _efficiencies(rows, x)
    if not len(rows):
        return []
    p = _probabilities(net, np.ascontiguousarray(rows), ply)
    return [_decide(p[i], xs[i], ply, st) for i in range(len(rows))]
