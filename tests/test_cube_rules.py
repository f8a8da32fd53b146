"""The doubling cube, scoring, money options and match play (docs/rules.md sections 6-9).

An independent check of ``fastbg.cube.rules``, ``fastbg.cube.cube_game`` and ``fastbg.cube.match`` against the
rule book:

* one scenario table per rule: a short sequence of actions and the expected cube state after
  it, each row also replayed on the slow model ``tests/reference/cube_model.py`` (written
  from docs/rules.md, it imports nothing from fastbg);
* a table of illegal actions: each raises :class:`IllegalCubeAction` whose message says why,
  and leaves the state exactly as it was;
* validation of the rule objects;
* whole matches and money sessions;
* hypothesis: random action sequences (legal or not) keep the state consistent and agree
  with the model step by step.

Actions are tuples naming a :class:`CubeGame` method and its arguments:
``("start_turn", p)``, ``("rolled",)``, ``("offer",)``, ``("take", p)``, ``("finish", winner, kind)``...
"""
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fastbg import CubeGame, IllegalCubeAction, Match, MatchRules, MoneyRules, Session
from reference import cube_model as cm

# ---- building blocks ---------------------------------------------------------------------

OFFER, TAKE, DROP, BEAVER, RACCOON, ROLL = (
    ("offer",), ("take",), ("drop",), ("beaver",), ("raccoon",), ("rolled",))
TIE, TIE_66 = ("opening_tie", False), ("opening_tie", True)


def start(p):
    return ("start_turn", p)


def finish(winner, kind):
    return ("finish", winner, kind)


def turn(p, *cube_actions):
    """A whole turn of player ``p``: start, the cube actions, then the roll."""
    return [start(p), *cube_actions, ROLL]


def doubles(n, first=0):
    """``n`` doubles, each offered at the start of a turn and taken; the players alternate,
    ``first`` doubling first (from a centred cube the taker always doubles next)."""
    out = []
    for i in range(n):
        out += turn((first + i) % 2, OFFER, TAKE)
    return out


MONEY = MoneyRules()
NO_JACOBY = MoneyRules(jacoby=False)
BEAVERS = MoneyRules(beavers=True)
RACCOONS = MoneyRules(beavers=True, raccoons=True)
AUTO = MoneyRules(auto_doubles=True)
TRIPLE = MoneyRules(auto_doubles=True, triple_on_66=True)
MATCH5 = MatchRules(5)


def model_rules(rules, crawford_game=False):
    """The model's plain description of a fastbg rule object."""
    if isinstance(rules, MatchRules):
        return cm.Rules(match=True, max_cube=rules.max_cube, crawford_game=crawford_game)
    return cm.Rules(jacoby=rules.jacoby, beavers=rules.beavers, raccoons=rules.raccoons,
                    auto_doubles=rules.auto_doubles, auto_double_limit=rules.auto_double_limit,
                    triple_on_66=rules.triple_on_66, max_cube=rules.max_cube)


def apply(game, action):
    getattr(game, action[0])(*action[1:])


def run(rules, actions, crawford_game=False):
    g = CubeGame(rules, crawford_game=crawford_game)
    for a in actions:
        apply(g, a)
    return g


STATE_FIELDS = ("value", "owner", "turned", "over", "result", "pending")


def snapshot(g):
    """Everything observable about a game's cube state."""
    return dict(value=g.value, owner=g.owner, turned=g.turned, over=g.over, result=g.result,
                pending=g.pending, dropped=g.dropped, on_turn=g.on_turn, to_act=g.to_act,
                can_double=g.can_double(), can_double0=g.can_double(0),
                can_double1=g.can_double(1))


def model_can_double(mrules, s, who=None):
    try:
        cm.step(mrules, s, ("offer",) if who is None else ("offer", who))
    except cm.Illegal:
        return False
    return True


def model_snapshot(mrules, s):
    return dict(value=s.value, owner=s.owner, turned=s.turned, over=s.over, result=s.result,
                pending=s.stage, dropped=s.dropped, on_turn=s.on_turn, to_act=s.answerer,
                can_double=model_can_double(mrules, s),
                can_double0=model_can_double(mrules, s, 0),
                can_double1=model_can_double(mrules, s, 1))


# ---- 1. scenario tables, one per rule ----------------------------------------------------

def S(sid, rules, actions, value, owner=None, turned=None, over=False, result=None,
      pending="none", crawford_game=False):
    """A scenario row; ``turned`` defaults to "the cube has an owner"."""
    expected = dict(value=value, owner=owner, turned=owner is not None if turned is None else turned,
                    over=over, result=result, pending=pending)
    return pytest.param(rules, crawford_game, actions, expected, id=sid)


CUBE_S6 = [
    S("start-centred-at-1", MONEY, [], 1),
    S("p0-doubles-p1-takes-and-owns", MONEY, turn(0, OFFER, TAKE), 2, owner=1),
    S("double-pending-changes-nothing-yet", MONEY, [start(0), OFFER], 1, pending="doubled"),
    S("centred-p1-may-double-first", MONEY, turn(0) + turn(1, OFFER, TAKE), 2, owner=0),
    S("explicit-players", MONEY, [start(1), ("offer", 1), ("take", 0)], 2, owner=0),
    S("drop-pays-stake-before-double", MONEY, [start(0), OFFER, DROP], 1, over=True, result=1),
    S("p1-doubles-p0-drops", MONEY, turn(0) + [start(1), OFFER, DROP], 1, over=True, result=-1),
    S("owner-redoubles-taken-4", MONEY, doubles(2), 4, owner=0),
    S("redouble-dropped-pays-2", MONEY, doubles(1) + [start(1), OFFER, DROP], 2, owner=1,
      over=True, result=-2),
    S("third-double-8", MONEY, doubles(3), 8, owner=1),
    S("redouble-at-4-dropped-pays-4", MONEY, doubles(2) + [start(0), OFFER, DROP], 4, owner=0,
      over=True, result=4),
    S("owner-may-skip-doubling", MONEY, doubles(1) + turn(1) + turn(0) + turn(1, OFFER, TAKE),
      4, owner=0),
    S("max-cube-default-64-reached", MONEY, doubles(6), 64, owner=0),
    S("max-cube-none-1024", MoneyRules(max_cube=None), doubles(10), 1024, owner=0),
    S("max-cube-custom-8-reached", MoneyRules(max_cube=8), doubles(3), 8, owner=1),
    S("max-cube-custom-10-reaches-8", MoneyRules(max_cube=10), doubles(3), 8, owner=1),
    S("match-max-cube-4-reached", MatchRules(5, max_cube=4), doubles(2), 4, owner=0),
    S("match-max-cube-none", MatchRules(9, max_cube=None), doubles(7), 128, owner=1),
]

SCORING_S7 = [
    S("single-cube-1", MONEY, turn(0) + turn(1) + [finish(1, 1)], 1, over=True, result=-1),
    S("gammon-cube-1", NO_JACOBY, turn(0) + [finish(0, 2)], 1, over=True, result=2),
    S("backgammon-cube-1", NO_JACOBY, turn(0) + [finish(0, 3)], 1, over=True, result=3),
    S("single-cube-2", MONEY, doubles(1) + turn(1) + [finish(0, 1)], 2, owner=1, over=True,
      result=2),
    S("gammon-cube-2", MONEY, doubles(1) + [finish(1, 2)], 2, owner=1, over=True, result=-4),
    S("backgammon-cube-4", MONEY, doubles(2) + [finish(0, 3)], 4, owner=0, over=True, result=12),
    S("backgammon-cube-64", MONEY, doubles(6) + [finish(1, 3)], 64, owner=0, over=True,
      result=-192),
    S("gammon-cube-8-no-jacoby", NO_JACOBY, doubles(3) + [finish(0, 2)], 8, owner=1, over=True,
      result=16),
    S("drop-no-gammon-even-without-jacoby", NO_JACOBY, [start(0), OFFER, DROP], 1, over=True,
      result=1),
    S("drop-no-gammon-at-cube-4", NO_JACOBY, doubles(2) + [start(0), OFFER, DROP], 4, owner=0,
      over=True, result=4),
]

JACOBY_S8 = [
    S("centred-gammon-counts-single", MONEY, turn(0) + [finish(0, 2)], 1, over=True, result=1),
    S("centred-backgammon-counts-single", MONEY, turn(0) + turn(1) + [finish(1, 3)], 1,
      over=True, result=-1),
    S("turned-cube-gammon-counts", MONEY, doubles(1) + [finish(0, 2)], 2, owner=1, over=True,
      result=4),
    S("turned-cube-backgammon-counts", MONEY, doubles(1) + [finish(1, 3)], 2, owner=1,
      over=True, result=-6),
    S("off-centred-gammon-counts", NO_JACOBY, turn(0) + [finish(1, 2)], 1, over=True, result=-2),
    S("auto-double-does-not-turn-cube", AUTO, [TIE] + turn(0) + [finish(0, 2)], 2, turned=False,
      over=True, result=2),
    S("auto-double-backgammon-single", AUTO, [TIE] + turn(0) + [finish(1, 3)], 2, turned=False,
      over=True, result=-2),
    S("off-with-auto-double-gammon", MoneyRules(auto_doubles=True, jacoby=False),
      [TIE] + turn(0) + [finish(0, 2)], 2, turned=False, over=True, result=4),
    S("auto-double-then-turned", AUTO, [TIE] + turn(0, OFFER, TAKE) + [finish(1, 3)], 4, owner=1,
      over=True, result=-12),
    S("beaver-turns-the-cube", BEAVERS, [start(0), OFFER, BEAVER, TAKE, ROLL, finish(0, 2)], 4,
      owner=1, over=True, result=8),
    S("triple-auto-gammon-single", TRIPLE, [TIE_66] + turn(0) + [finish(0, 2)], 3, turned=False,
      over=True, result=3),
]

BEAVERS_S8 = [
    S("beaver-pending-accepts-the-double", BEAVERS, [start(0), OFFER, BEAVER], 2, owner=1,
      pending="beavered"),
    S("beaver-taken-stake-4-beaverer-owns", BEAVERS, [start(0), OFFER, BEAVER, TAKE], 4, owner=1),
    S("beaver-dropped-pays-2", BEAVERS, [start(0), OFFER, BEAVER, DROP], 2, owner=1, over=True,
      result=-2),
    S("p0-beavers-p1", BEAVERS, turn(0) + [start(1), OFFER, BEAVER, TAKE], 4, owner=0),
    S("p0-beaver-dropped-by-p1", BEAVERS, turn(0) + [start(1), OFFER, BEAVER, DROP], 2, owner=0,
      over=True, result=2),
    S("explicit-players", BEAVERS, [start(0), ("offer", 0), ("beaver", 1), ("take", 0)], 4,
      owner=1),
    S("beaver-of-a-redouble-16", BEAVERS, doubles(2) + [start(0), OFFER, BEAVER, TAKE], 16,
      owner=1),
    S("beaverer-redoubles-later", BEAVERS,
      [start(0), OFFER, BEAVER, TAKE, ROLL] + turn(1, OFFER, TAKE), 8, owner=0),
    S("beaver-up-to-max-cube", MoneyRules(beavers=True, max_cube=4),
      [start(0), OFFER, BEAVER, TAKE], 4, owner=1),
    S("plain-take-still-allowed", BEAVERS, turn(0, OFFER, TAKE), 2, owner=1),
    S("plain-drop-still-allowed", BEAVERS, [start(0), OFFER, DROP], 1, over=True, result=1),
]

RACCOONS_S8 = [
    S("raccoon-pending-accepts-the-beaver", RACCOONS, [start(0), OFFER, BEAVER, RACCOON], 4,
      owner=1, pending="raccooned"),
    S("raccoon-taken-stake-8-beaverer-keeps-cube", RACCOONS,
      [start(0), OFFER, BEAVER, RACCOON, TAKE], 8, owner=1),
    S("raccoon-dropped-pays-4", RACCOONS, [start(0), OFFER, BEAVER, RACCOON, DROP], 4, owner=1,
      over=True, result=4),
    S("explicit-players", RACCOONS,
      [start(1), ("offer", 1), ("beaver", 0), ("raccoon", 1), ("take", 0)], 8, owner=0),
    S("raccoon-then-gammon-16", RACCOONS,
      [start(0), OFFER, BEAVER, RACCOON, TAKE, ROLL] + turn(1) + [finish(0, 2)], 8, owner=1,
      over=True, result=16),
    S("beaver-taken-without-raccoon", RACCOONS, [start(0), OFFER, BEAVER, TAKE], 4, owner=1),
    S("raccoon-up-to-max-cube", MoneyRules(beavers=True, raccoons=True, max_cube=8),
      [start(0), OFFER, BEAVER, RACCOON, TAKE], 8, owner=1),
]

AUTO_S8 = [
    S("one-tie-doubles-cube-centred", AUTO, [TIE], 2, turned=False),
    S("default-limit-is-1", AUTO, [TIE, TIE, TIE], 2, turned=False),
    S("limit-3", MoneyRules(auto_doubles=True, auto_double_limit=3), [TIE] * 4, 8, turned=False),
    S("no-cap-7-ties-128", MoneyRules(auto_doubles=True, auto_double_limit=None, max_cube=None),
      [TIE] * 7, 128, turned=False),
    S("no-cap-stops-at-max-cube-64", MoneyRules(auto_doubles=True, auto_double_limit=None),
      [TIE] * 8, 64, turned=False),
    S("no-cap-stops-at-custom-max-8",
      MoneyRules(auto_doubles=True, auto_double_limit=None, max_cube=8), [TIE] * 5, 8,
      turned=False),
    S("p0-may-double-after-tie", AUTO, [TIE] + turn(0, OFFER, TAKE), 4, owner=1),
    S("p1-may-double-after-tie", AUTO, [TIE] + turn(0) + turn(1, OFFER, TAKE), 4, owner=0),
    S("drop-pays-auto-doubled-stake", AUTO, [TIE, start(0), OFFER, DROP], 2, turned=False,
      over=True, result=2),
    S("66-tie-triples", TRIPLE, [TIE_66], 3, turned=False),
    S("66-tie-doubles-without-variant", AUTO, [TIE_66], 2, turned=False),
    S("other-tie-doubles-with-variant", TRIPLE, [TIE], 2, turned=False),
    S("triple-then-double-limit-2",
      MoneyRules(auto_doubles=True, triple_on_66=True, auto_double_limit=2), [TIE_66, TIE], 6,
      turned=False),
    S("triple-then-cube-6", TRIPLE, [TIE_66] + turn(0, OFFER, TAKE) + [finish(0, 2)], 6, owner=1,
      over=True, result=12),
    S("auto-doubles-up-to-max-cube", MoneyRules(auto_doubles=True, max_cube=4),
      [TIE] + turn(0, OFFER, TAKE), 4, owner=1),
]

MATCH_S9 = [
    S("no-jacoby-centred-gammon", MATCH5, turn(0) + [finish(0, 2)], 1, over=True, result=2),
    S("no-jacoby-centred-backgammon", MATCH5, turn(0) + turn(1) + [finish(1, 3)], 1, over=True,
      result=-3),
    S("double-take", MATCH5, turn(0, OFFER, TAKE), 2, owner=1),
    S("double-drop", MATCH5, [start(0), OFFER, DROP], 1, over=True, result=1),
    S("redouble-gammon", MATCH5, doubles(2) + [finish(0, 2)], 4, owner=0, over=True, result=8),
    S("crawford-game-played-without-cube", MATCH5, turn(0) + turn(1) + [finish(1, 2)], 1,
      over=True, result=-2, crawford_game=True),
    S("non-crawford-game-p1-doubles", MATCH5, turn(0) + turn(1, OFFER, TAKE), 2, owner=0),
    S("crawford-off-game-doubles", MatchRules(5, crawford=False), turn(0, OFFER, TAKE), 2,
      owner=1),
]

TABLES = {"s6-cube": CUBE_S6, "s7-scoring": SCORING_S7, "s8-jacoby": JACOBY_S8,
          "s8-beavers": BEAVERS_S8, "s8-raccoons": RACCOONS_S8, "s8-auto": AUTO_S8,
          "s9-match": MATCH_S9}
SCENARIOS = [pytest.param(*p.values, id=f"{table}/{p.id}")
             for table, rows in TABLES.items() for p in rows]


@pytest.mark.parametrize("rules,crawford_game,actions,expected", SCENARIOS)
def test_scenario(rules, crawford_game, actions, expected):
    g = run(rules, actions, crawford_game)
    got = {k: getattr(g, k) for k in STATE_FIELDS}
    assert got == expected, f"after {actions}"
    assert g.dropped == (expected["over"] and DROP in actions)
    # the slow model reaches the same state (checks the model as much as the engine)
    mrules = model_rules(rules, crawford_game)
    s = cm.run(mrules, actions)
    assert {k: v for k, v in model_snapshot(mrules, s).items() if k in STATE_FIELDS} == expected
    assert snapshot(g) == model_snapshot(mrules, s)


# ---- 2. illegal actions ----------------------------------------------------------------------

WHY = {   # model reason -> a key phrase the engine's message must contain (regex)
    cm.OVER: r"(?i)game is over",
    cm.NO_TURN: r"(?i)no turn has started",
    cm.PENDING: r"(?i)must first answer",
    cm.OUT_OF_TURN: r"(?i)out of turn",
    cm.ROLLED: r"(?i)after rolling",
    cm.CRAWFORD: r"(?i)crawford game",
    cm.NOT_OWNER: r"(?i)owns the cube",
    cm.LIMIT: r"(?i)limit",
    cm.NOTHING_TO_ANSWER: r"(?i)no double is pending",
    cm.WRONG_ANSWERER: r"(?i)must answer",
    cm.MATCH_PLAY: r"(?i)match play",
    cm.BEAVERS_OFF: r"(?i)beavers are off",
    cm.RACCOONS_OFF: r"(?i)raccoons are off",
    cm.NOT_A_DOUBLE: r"(?i)beaver answers a double",
    cm.NOT_A_BEAVER: r"(?i)raccoon answers a beaver",
    cm.AUTO_OFF: r"(?i)automatic doubles are off",
    cm.NOT_OPENING: r"(?i)opening roll",
}

ALL_ACTIONS = [start(0), start(1), ROLL, OFFER, TAKE, DROP, BEAVER, RACCOON, finish(0, 1), TIE]
EVERYTHING_ON = MoneyRules(beavers=True, raccoons=True, auto_doubles=True)


def I(sid, rules, setup, action, reason, crawford_game=False):
    return pytest.param(rules, crawford_game, setup, action, reason, id=sid)


ILLEGAL = [
    # section 6: only at the start of his own turn, before rolling; only the owner redoubles
    I("double-after-rolling", MONEY, [start(0), ROLL], OFFER, cm.ROLLED),
    I("double-after-rolling-p1", MONEY, turn(0) + [start(1), ROLL], OFFER, cm.ROLLED),
    I("double-after-rolling-as-owner", MONEY, doubles(1) + [start(1), ROLL], OFFER, cm.ROLLED),
    I("double-out-of-turn", MONEY, [start(0)], ("offer", 1), cm.OUT_OF_TURN),
    I("double-out-of-turn-as-owner", MONEY, doubles(1) + [start(0)], ("offer", 1),
      cm.OUT_OF_TURN),
    I("double-before-any-turn", MONEY, [], OFFER, cm.NO_TURN),
    I("double-without-owning-cube", MONEY, doubles(1) + turn(1) + [start(0)], OFFER,
      cm.NOT_OWNER),
    I("double-again-after-own-double-taken", MONEY, [start(0), OFFER, TAKE], OFFER, cm.NOT_OWNER),
    I("redouble-by-non-owner-at-4", MONEY, doubles(2) + [start(1)], OFFER, cm.NOT_OWNER),
    I("doubler-cannot-redouble-a-beaverers-cube", BEAVERS,
      [start(0), OFFER, BEAVER, TAKE, ROLL] + turn(1) + [start(0)], OFFER, cm.NOT_OWNER),
    I("raccooner-does-not-own-cube", RACCOONS,
      [start(0), OFFER, BEAVER, RACCOON, TAKE, ROLL] + turn(1) + [start(0)], OFFER, cm.NOT_OWNER),
    I("auto-doubled-cube-is-not-owned", AUTO, [TIE, start(0), OFFER, TAKE], OFFER, cm.NOT_OWNER),
    I("roll-before-any-turn", MONEY, [], ROLL, cm.NO_TURN),
    # section 9: the Crawford game
    I("crawford-game-p0", MATCH5, [start(0)], OFFER, cm.CRAWFORD, crawford_game=True),
    I("crawford-game-p1", MATCH5, turn(0) + [start(1)], OFFER, cm.CRAWFORD, crawford_game=True),
    I("crawford-game-later-turn", MATCH5, turn(0) + turn(1) + [start(0)], OFFER, cm.CRAWFORD,
      crawford_game=True),
    # section 6: max_cube
    I("past-default-max-64", MONEY, doubles(6) + [start(0)], OFFER, cm.LIMIT),
    I("past-custom-max-8", MoneyRules(max_cube=8), doubles(3) + [start(1)], OFFER, cm.LIMIT),
    I("past-custom-max-10", MoneyRules(max_cube=10), doubles(3) + [start(1)], OFFER, cm.LIMIT),
    I("max-cube-1-no-doubling", MoneyRules(max_cube=1), [start(0)], OFFER, cm.LIMIT),
    I("match-past-max-4", MatchRules(5, max_cube=4), doubles(2) + [start(0)], OFFER, cm.LIMIT),
    I("match-past-default-max-64", MatchRules(25), doubles(6) + [start(0)], OFFER, cm.LIMIT),
    I("auto-double-counts-toward-max", MoneyRules(auto_doubles=True, max_cube=2),
      [TIE, start(0)], OFFER, cm.LIMIT),
    I("auto-double-then-double-to-max", MoneyRules(auto_doubles=True, max_cube=4),
      [TIE] + turn(0, OFFER, TAKE) + [start(1)], OFFER, cm.LIMIT),
    I("triple-then-doubles-past-64", MoneyRules(auto_doubles=True, triple_on_66=True),
      [TIE_66] + doubles(4) + [start(0)], OFFER, cm.LIMIT),
    I("beaver-past-max", MoneyRules(beavers=True, max_cube=2), [start(0), OFFER], BEAVER,
      cm.LIMIT),
    I("beaver-past-max-64", BEAVERS, doubles(5) + [start(1), OFFER], BEAVER, cm.LIMIT),
    I("raccoon-past-max", MoneyRules(beavers=True, raccoons=True, max_cube=4),
      [start(0), OFFER, BEAVER], RACCOON, cm.LIMIT),
    # sections 8-9: beavers and raccoons
    I("beaver-in-match-play", MATCH5, [start(0), OFFER], BEAVER, cm.MATCH_PLAY),
    I("raccoon-in-match-play", MATCH5, [start(0), OFFER], RACCOON, cm.MATCH_PLAY),
    I("beaver-with-beavers-off", MONEY, [start(0), OFFER], BEAVER, cm.BEAVERS_OFF),
    I("beaver-with-only-auto-doubles-on", AUTO, [start(0), OFFER], BEAVER, cm.BEAVERS_OFF),
    I("raccoon-without-beavers", MONEY, [start(0), OFFER], RACCOON, cm.RACCOONS_OFF),
    I("raccoon-with-raccoons-off", BEAVERS, [start(0), OFFER, BEAVER], RACCOON, cm.RACCOONS_OFF),
    I("raccoon-answering-a-plain-double", RACCOONS, [start(0), OFFER], RACCOON, cm.NOT_A_BEAVER),
    I("doubler-beavers-a-beaver", BEAVERS, [start(0), OFFER, BEAVER], BEAVER, cm.NOT_A_DOUBLE),
    I("beaverer-beavers-a-raccoon", RACCOONS, [start(0), OFFER, BEAVER, RACCOON], BEAVER,
      cm.NOT_A_DOUBLE),
    # sections 8-9: automatic doubles
    I("auto-double-in-match-play", MATCH5, [], TIE, cm.MATCH_PLAY),
    I("auto-doubles-off-by-default", MONEY, [], TIE, cm.AUTO_OFF),
    I("auto-double-after-first-turn", AUTO, [start(0)], TIE, cm.NOT_OPENING),
    I("auto-double-after-a-double", AUTO, [TIE] + turn(0, OFFER, TAKE), TIE, cm.NOT_OPENING),
    # answering: nothing pending, or the wrong player answers
    I("take-nothing-pending", MONEY, [start(0)], TAKE, cm.NOTHING_TO_ANSWER),
    I("drop-nothing-pending", MONEY, [start(0)], DROP, cm.NOTHING_TO_ANSWER),
    I("take-before-any-turn", MONEY, [], TAKE, cm.NOTHING_TO_ANSWER),
    I("take-twice", MONEY, [start(0), OFFER, TAKE], TAKE, cm.NOTHING_TO_ANSWER),
    I("beaver-nothing-pending", BEAVERS, [start(0)], BEAVER, cm.NOTHING_TO_ANSWER),
    I("beaver-after-take", BEAVERS, [start(0), OFFER, TAKE], BEAVER, cm.NOTHING_TO_ANSWER),
    I("raccoon-nothing-pending", RACCOONS, [start(0), ROLL], RACCOON, cm.NOTHING_TO_ANSWER),
    I("doubler-takes-own-double", MONEY, [start(0), OFFER], ("take", 0), cm.WRONG_ANSWERER),
    I("doubler-drops-own-double", MONEY, [start(0), OFFER], ("drop", 0), cm.WRONG_ANSWERER),
    I("doubler-beavers-own-double", BEAVERS, [start(0), OFFER], ("beaver", 0),
      cm.WRONG_ANSWERER),
    I("beaverer-takes-own-beaver", BEAVERS, [start(0), OFFER, BEAVER], ("take", 1),
      cm.WRONG_ANSWERER),
    I("raccooner-takes-own-raccoon", RACCOONS, [start(0), OFFER, BEAVER, RACCOON], ("take", 0),
      cm.WRONG_ANSWERER),
    I("beaverer-raccoons", RACCOONS, [start(0), OFFER, BEAVER], ("raccoon", 1),
      cm.WRONG_ANSWERER),
    # a double waits for its answer
    I("start-turn-while-double-pending", MONEY, [start(0), OFFER], start(1), cm.PENDING),
    I("restart-turn-while-double-pending", MONEY, [start(0), OFFER], start(0), cm.PENDING),
    I("roll-while-double-pending", MONEY, [start(0), OFFER], ROLL, cm.PENDING),
    I("double-while-double-pending", MONEY, [start(0), OFFER], OFFER, cm.PENDING),
    I("finish-while-double-pending", MONEY, [start(0), OFFER], finish(0, 1), cm.PENDING),
    I("start-turn-while-beaver-pending", BEAVERS, [start(0), OFFER, BEAVER], start(1),
      cm.PENDING),
    I("finish-while-raccoon-pending", RACCOONS, [start(0), OFFER, BEAVER, RACCOON], finish(1, 2),
      cm.PENDING),
] + [
    # any action after the game is over, whichever way it ended
    I(f"after-{how}/{a[0]}{'-' + '-'.join(map(str, a[1:])) if len(a) > 1 else ''}",
      EVERYTHING_ON, setup, a, cm.OVER)
    for how, setup in (("drop", [start(0), OFFER, DROP]),
                       ("finish", [TIE] + turn(0) + [finish(1, 2)]),
                       ("beaver-drop", [start(0), OFFER, BEAVER, DROP]),
                       ("raccoon-drop", [start(0), OFFER, BEAVER, RACCOON, DROP]))
    for a in ALL_ACTIONS
] + [
    I("after-finish-in-match/offer", MATCH5, turn(0) + [finish(0, 1)], OFFER, cm.OVER),
    I("after-finish-in-crawford/start", MATCH5, turn(0) + [finish(0, 1)], start(1), cm.OVER,
      crawford_game=True),
]


@pytest.mark.parametrize("rules,crawford_game,setup,action,reason", ILLEGAL)
def test_illegal_action(rules, crawford_game, setup, action, reason):
    g = run(rules, setup, crawford_game)
    before = snapshot(g)
    with pytest.raises(IllegalCubeAction, match=WHY[reason]):
        apply(g, action)
    assert snapshot(g) == before, "an illegal action changed the state"
    # the model forbids it too, for this reason
    mrules = model_rules(rules, crawford_game)
    s = cm.run(mrules, setup)
    with pytest.raises(cm.Illegal) as info:
        cm.step(mrules, s, action)
    assert reason in info.value.reasons
    if action == OFFER:
        assert not g.can_double()


@pytest.mark.parametrize("action", [("start_turn", 2), ("start_turn", -1), ("offer", 2),
                                    ("finish", 2, 1), ("finish", 0, 0), ("finish", 1, 4),
                                    ("finish", 0, "gammon")])
def test_bad_arguments_are_value_errors(action):
    g = run(MONEY, [start(0)])
    before = snapshot(g)
    with pytest.raises(ValueError):
        apply(g, action)
    assert snapshot(g) == before


def test_illegal_then_legal_continues():
    """A refused action leaves the game playable: the same game goes on normally."""
    g = run(MONEY, [start(0), ROLL])
    with pytest.raises(IllegalCubeAction):
        g.offer()
    for a in [start(1), OFFER, TAKE, ROLL, finish(1, 2)]:
        apply(g, a)
    assert (g.value, g.owner, g.result) == (2, 0, -4)


@pytest.mark.parametrize("rules,crawford", [(MoneyRules(), True),
                                            (MatchRules(5, crawford=False), True)])
def test_crawford_game_needs_a_crawford_match(rules, crawford):
    with pytest.raises(ValueError):
        CubeGame(rules, crawford_game=crawford)


# ---- 3. rule objects -------------------------------------------------------------------------

def test_defaults_follow_the_rule_book():
    m = MoneyRules()
    assert (m.jacoby, m.beavers, m.raccoons, m.auto_doubles, m.auto_double_limit,
            m.triple_on_66, m.max_cube) == (True, False, False, False, 1, False, 64)
    assert not m.is_match
    r = MatchRules(7)
    assert (r.length, r.crawford, r.max_cube, r.is_match) == (7, True, 64, True)
    assert CubeGame().rules == MoneyRules()


@pytest.mark.parametrize("kwargs", [
    dict(raccoons=True), dict(beavers=False, raccoons=True),
    dict(triple_on_66=True), dict(auto_doubles=False, triple_on_66=True),
    dict(max_cube=0), dict(max_cube=-64), dict(max_cube=64.0), dict(max_cube="64"),
    dict(max_cube=True),
    dict(auto_doubles=True, auto_double_limit=-1), dict(auto_doubles=True, auto_double_limit=1.5),
    dict(auto_doubles=True, auto_double_limit="1"), dict(auto_doubles=True, auto_double_limit=True),
    dict(jacoby="yes"), dict(beavers=1),
], ids=repr)
def test_money_rules_reject(kwargs):
    with pytest.raises(ValueError):
        MoneyRules(**kwargs)


@pytest.mark.parametrize("args,kwargs", [
    ((0,), {}), ((-3,), {}), ((2.5,), {}), (("5",), {}), ((True,), {}),
    ((5,), dict(max_cube=0)), ((5,), dict(max_cube=-2)), ((5,), dict(max_cube=8.0)),
    ((5,), dict(crawford="no")),
], ids=repr)
def test_match_rules_reject(args, kwargs):
    with pytest.raises(ValueError):
        MatchRules(*args, **kwargs)
    with pytest.raises(ValueError):
        Match(*args, **kwargs)


@pytest.mark.parametrize("option", ["jacoby", "beavers", "raccoons", "auto_doubles"])
def test_match_rules_have_no_money_options(option):
    """Section 9: match play never uses the Jacoby rule, beavers or automatic doubles."""
    with pytest.raises((TypeError, ValueError)):
        MatchRules(5, **{option: True})


@pytest.mark.parametrize("kwargs", [
    dict(max_cube=None), dict(max_cube=1), dict(max_cube=10), dict(beavers=True, raccoons=True),
    dict(auto_doubles=True, auto_double_limit=None), dict(auto_doubles=True, triple_on_66=True),
    dict(jacoby=False),
], ids=repr)
def test_money_rules_accept(kwargs):
    r = MoneyRules(**kwargs)
    assert all(getattr(r, k) == v for k, v in kwargs.items())


# ---- 4. whole matches and money sessions -----------------------------------------------------

def play_game(m, winner, kind=1, n_doubles=0, drop=False):
    """One game of match ``m``: ``n_doubles`` doubles taken, then ``winner`` wins it, by a
    dropped double when ``drop`` (``kind`` is then unused) or played out with ``kind``.
    The Crawford game must refuse every double. Returns the game."""
    g = m.new_game()
    assert g.crawford_game == m.is_crawford_game
    if m.is_crawford_game:
        assert n_doubles == 0 and not drop
        for p in (0, 1):
            g.start_turn(p)
            assert not g.can_double()
            with pytest.raises(IllegalCubeAction, match=WHY[cm.CRAWFORD]):
                g.offer()
            g.rolled()
    # the first doubler is chosen so that a final drop is offered by the winner
    first = (winner + n_doubles) % 2 if drop else 0
    actions = doubles(n_doubles, first)
    if drop:
        actions += [start(winner), OFFER, DROP]
    else:
        actions += turn(winner) + [finish(winner, kind)]
    for a in actions:
        apply(g, a)
    points = 2 ** n_doubles * (1 if drop else kind)
    assert g.result == (points if winner == 0 else -points)
    m.record(g)
    return g


def M(sid, length, games, crawford=True):
    return pytest.param(length, crawford, games, id=sid)


def G(winner, kind=1, n=0, *, expect):
    """A played-out game and the match state expected after it:
    ``expect = (score, is_crawford_game, post_crawford)``."""
    return (dict(winner=winner, kind=kind, n_doubles=n), expect)


def Dr(winner, n=0, *, expect):
    """A game won by ``winner`` when the other drops his double (after ``n`` taken doubles)."""
    return (dict(winner=winner, n_doubles=n, drop=True), expect)


MATCHES = [
    M("5pt-crawford-then-post-crawford-to-the-end", 5, [
        G(0, 2, 1, expect=((4, 0), True, False)),         # gammon at 2 -> 4: Crawford next
        G(1, 1, expect=((4, 1), False, True)),             # the Crawford game itself
        G(1, 1, 1, expect=((4, 3), False, True)),          # post-Crawford: cube used again
        G(1, 1, expect=((4, 4), False, True)),             # both at N-1: no second Crawford
        G(0, 1, expect=((5, 4), False, False)),
    ]),
    M("5pt-trailer-reaches-N-1-after-crawford", 5, [
        G(1, 1, 2, expect=((0, 4), True, False)),
        G(0, 1, expect=((1, 4), False, True)),
        G(0, 1, 1, expect=((3, 4), False, True)),
        G(0, 1, expect=((4, 4), False, True)),
        G(1, 2, expect=((4, 5), False, False)),            # gammon: 6 points, capped at 5
    ]),
    M("5pt-leader-wins-crawford-game", 5, [
        G(0, 1, 2, expect=((4, 0), True, False)),
        G(0, 1, expect=((5, 0), False, False)),
    ]),
    M("5pt-jump-past-N-1-no-crawford", 5, [
        G(0, 1, 1, expect=((2, 0), False, False)),
        G(0, 3, 1, expect=((5, 0), False, False)),         # backgammon at 2: 6 points
    ]),
    M("3pt-points-past-length-only-a-win", 3, [
        G(0, 2, 1, expect=((3, 0), False, False)),
    ]),
    M("3pt-reach-N-1-by-drop", 3, [
        Dr(0, 1, expect=((2, 0), True, False)),
        G(1, 2, expect=((2, 2), False, True)),             # Crawford game: gammon, no cube
        Dr(1, expect=((2, 3), False, False)),
    ]),
    M("7pt-trailer-first-to-N-1", 7, [
        G(0, 2, 1, expect=((4, 0), False, False)),
        G(1, 3, 1, expect=((4, 6), True, False)),
        G(0, 1, expect=((5, 6), False, True)),
        G(0, 1, 1, expect=((7, 6), False, False)),
    ]),
    M("2pt-match", 2, [
        G(0, 1, expect=((1, 0), True, False)),
        G(1, 1, expect=((1, 1), False, True)),
        Dr(1, expect=((1, 2), False, False)),
    ]),
    M("1pt-match", 1, [G(1, 3, expect=((0, 1), False, False))]),
    M("5pt-crawford-off", 5, [
        G(0, 2, 1, expect=((4, 0), False, False)),         # no Crawford game: cube stays live
        G(1, 1, 1, expect=((4, 2), False, False)),
        Dr(0, 1, expect=((5, 2), False, False)),
    ], crawford=False),
    M("5pt-no-jacoby-gammon-centred", 5, [
        G(1, 2, expect=((0, 2), False, False)),
        G(1, 3, expect=((0, 5), False, False)),
    ]),
]


@pytest.mark.parametrize("length,crawford,games", MATCHES)
def test_match(length, crawford, games):
    m = Match(length, crawford=crawford)
    assert (m.score, m.away, m.over, m.winner) == ((0, 0), (length, length), False, None)
    assert (m.is_crawford_game, m.post_crawford) == (False, False)
    for spec, (score, crawford_next, post) in games:
        play_game(m, **spec)
        over = length in score
        assert m.score == score
        assert m.away == (length - score[0], length - score[1])
        assert m.over == over
        assert m.winner == (score.index(length) if over else None)
        assert (m.is_crawford_game, m.post_crawford) == (crawford_next, post), f"at {score}"
        if not over:
            g = m.new_game()
            g.start_turn(1)
            assert g.can_double() == (not crawford_next)
    assert m.over, "each table row plays a whole match"
    assert len(m.games) == len(games)
    with pytest.raises(ValueError):
        m.new_game()
    # the model replays the same results to the same states
    states = cm.match_states(length, crawford, m.games)
    for st_, (_, (score, crawford_next, post)) in zip(states[1:], games):
        assert (st_["score"], st_["crawford"], st_["post_crawford"]) == (score, crawford_next, post)


def test_match_record_refuses_wrong_games():
    m = Match(3)
    g = m.new_game()
    with pytest.raises(ValueError):
        m.record(g)                                        # not over
    with pytest.raises(ValueError):
        m.record(run(MONEY, [start(0), OFFER, DROP]))      # a money game
    play_game(m, 0, kind=2)                                # 2-0: Crawford next
    with pytest.raises(ValueError):
        m.record(run(m.rules, [start(0), OFFER, DROP]))    # not set up as the Crawford game
    play_game(m, 0)
    with pytest.raises(ValueError):
        m.record(run(m.rules, [start(0), finish(0, 1)]))   # match already over


@given(length=st.integers(1, 9), crawford=st.booleans(), data=st.data())
@settings(max_examples=150, derandomize=True, deadline=None)
def test_random_matches_match_the_model(length, crawford, data):
    """Whole random matches: after every game the score, away, over, winner, Crawford and
    post-Crawford flags are the model's (which replays the signed game results)."""
    m = Match(length, crawford=crawford, max_cube=None)
    while not m.over:
        crawford_game = m.is_crawford_game
        winner = data.draw(st.integers(0, 1))
        n = 0 if crawford_game else data.draw(st.integers(0, 3))
        drop = not crawford_game and data.draw(st.booleans())
        play_game(m, winner, kind=data.draw(st.integers(1, 3)), n_doubles=n, drop=drop)
        want = cm.match_states(length, crawford, m.games)[-1]
        assert (m.score, m.away, m.over, m.winner, m.is_crawford_game, m.post_crawford) == (
            want["score"], want["away"], want["over"], want["winner"], want["crawford"],
            want["post_crawford"]), f"after results {m.games}"
    assert m.winner in (0, 1) and m.score[m.winner] == length


def test_session_tallies_money_games():
    s = Session()
    assert (s.points, s.n_games, s.results) == ((0, 0), 0, [])
    games = [
        [start(0), OFFER, DROP],                           # +1
        turn(0) + [finish(1, 2)],                          # Jacoby: -1
        doubles(1) + [finish(0, 2)],                       # +4
        doubles(2) + [start(0), OFFER, DROP],              # +4
        doubles(1) + [finish(1, 3)],                       # -6
    ]
    for actions in games:
        g = s.new_game()
        assert g.rules == s.rules
        for a in actions:
            apply(g, a)
        s.record(g)
    assert s.results == [1, -1, 4, 4, -6]
    assert (s.points, s.n_games) == ((2, -2), 5)


def test_session_options_apply_to_every_game():
    s = Session(MoneyRules(jacoby=False, beavers=True))
    for actions in (turn(0) + [finish(0, 2)],                     # no Jacoby: +2
                    [start(1), OFFER, BEAVER, DROP]):             # beaver dropped: p1 pays 2
        g = s.new_game()
        for a in actions:
            apply(g, a)
        s.record(g)
    assert s.results == [2, 2] and s.points == (4, -4)


def test_session_refuses_match_rules_and_unfinished_games():
    with pytest.raises(TypeError):
        Session(MatchRules(5))
    s = Session()
    with pytest.raises(ValueError):
        s.record(s.new_game())
    with pytest.raises(ValueError):
        s.record(run(NO_JACOBY, [start(0), OFFER, DROP]))  # other rules
    assert s.n_games == 0


# ---- 5. hypothesis: random action sequences -----------------------------------------------

PLAYERS = st.sampled_from([0, 1])
MAX_CUBES = st.sampled_from([None, 1, 2, 3, 4, 8, 16, 64])


@st.composite
def money_rules(draw):
    beavers = draw(st.booleans())
    auto = draw(st.booleans())
    return MoneyRules(jacoby=draw(st.booleans()), beavers=beavers,
                      raccoons=beavers and draw(st.booleans()), auto_doubles=auto,
                      auto_double_limit=draw(st.sampled_from([None, 1, 2, 3])),
                      triple_on_66=auto and draw(st.booleans()), max_cube=draw(MAX_CUBES))


@st.composite
def rules_and_crawford(draw):
    if draw(st.booleans()):
        return draw(money_rules()), False
    r = MatchRules(draw(st.integers(1, 11)), crawford=draw(st.booleans()), max_cube=draw(MAX_CUBES))
    return r, r.crawford and draw(st.booleans())


ACTION = st.one_of(
    st.tuples(st.just("opening_tie"), st.booleans()),
    st.tuples(st.just("start_turn"), PLAYERS),
    st.just(ROLL), st.just(OFFER), st.tuples(st.just("offer"), PLAYERS),
    *[st.just((a,)) for a in ("take", "drop", "beaver", "raccoon")],
    *[st.tuples(st.just(a), PLAYERS) for a in ("take", "drop", "beaver", "raccoon")],
    st.tuples(st.just("finish"), PLAYERS, st.sampled_from([1, 2, 3])),
)


def check_invariants(rules, g):
    """What holds after any sequence of actions, legal or not."""
    money = isinstance(rules, MoneyRules)
    v = g.value
    assert isinstance(v, int) and v >= 1
    while v % 2 == 0:
        v //= 2
    while money and rules.triple_on_66 and v % 3 == 0:
        v //= 3
    assert v == 1, f"cube value {g.value}"
    if rules.max_cube is not None:
        assert g.value <= rules.max_cube
        if g.pending != "none":                    # the offered stake fits too
            assert 2 * g.value <= rules.max_cube
    assert g.owner in (None, 0, 1)
    assert (g.owner is None) == (not g.turned)
    assert g.over == (g.result is not None)
    assert g.pending in ("none", "doubled", "beavered", "raccooned")
    assert (g.to_act is None) == (g.pending == "none")
    if g.over:
        assert g.pending == "none" and not g.can_double()
        assert abs(g.result) in (g.value, 2 * g.value, 3 * g.value)
        if g.dropped:
            assert abs(g.result) == g.value       # the stake before the refused double
        if money and rules.jacoby and not g.turned:
            assert abs(g.result) == g.value       # Jacoby: gammons count single
    if not money:
        assert g.pending in ("none", "doubled")   # no beavers or raccoons in match play
        if g.crawford_game:
            assert g.value == 1 and g.owner is None
    if not (money and rules.auto_doubles) and not g.turned:
        assert g.value == 1


def replay_against_model(rules, crawford_game, actions):
    g = CubeGame(rules, crawford_game=crawford_game)
    mrules = model_rules(rules, crawford_game)
    s = cm.CubeState()
    for a in actions:
        before = snapshot(g)
        try:
            s_next = cm.step(mrules, s, a)
            why = None
        except cm.Illegal as e:
            why = e.reasons
        if why is None:
            apply(g, a)
            s = s_next
        else:
            with pytest.raises(IllegalCubeAction) as info:
                apply(g, a)
            msg = str(info.value)
            assert any(re.search(WHY[r], msg) for r in why), \
                f"{a}: message {msg!r} gives none of the reasons {sorted(why)}"
            assert snapshot(g) == before, f"illegal {a} changed the state"
        check_invariants(rules, g)
        assert snapshot(g) == model_snapshot(mrules, s), f"after {a}"
    return g


@given(rc=rules_and_crawford(), actions=st.lists(ACTION, max_size=40))
@settings(max_examples=400, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
def test_random_actions_agree_with_model(rc, actions):
    rules, crawford_game = rc
    replay_against_model(rules, crawford_game, actions)


@given(rc=rules_and_crawford(), data=st.data())
@settings(max_examples=300, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
def test_mostly_legal_games_agree_with_model(rc, data):
    """Games that go deep: each step is drawn from the model's legal actions (finishing
    rarely), with an occasional random, probably illegal, action."""
    rules, crawford_game = rc
    mrules = model_rules(rules, crawford_game)
    candidates = [("opening_tie", False), ("opening_tie", True), start(0), start(1), ROLL, OFFER,
                  TAKE, DROP, BEAVER, RACCOON, ("offer", 0), ("offer", 1)]
    s, actions = cm.CubeState(), []
    for _ in range(data.draw(st.integers(0, 60))):
        legal = []
        for a in candidates:
            try:
                cm.step(mrules, s, a)
                legal.append(a)
            except cm.Illegal:
                pass
        roll = data.draw(st.integers(0, 19))
        if roll == 0 or not legal:
            a = data.draw(ACTION)
        elif roll == 1 and s.stage == "none":
            a = finish(data.draw(PLAYERS), data.draw(st.sampled_from([1, 2, 3])))
        else:
            a = data.draw(st.sampled_from(legal))
        actions.append(a)
        try:
            s = cm.step(mrules, s, a)
        except cm.Illegal:
            pass
        if s.over:
            break
    replay_against_model(rules, crawford_game, actions)


def test_a_game_is_recorded_once():
    """Recording the same game twice, or a stale one, would corrupt the score (docs/rules.md 10)."""
    m = Match(5)
    g = m.new_game()
    g.start_turn(0)
    g.rolled()
    g.finish(0, 1)
    m.record(g)
    with pytest.raises(ValueError, match="once"):
        m.record(g)
    assert m.score == (1, 0)
    s = Session()
    old = s.new_game()
    new = s.new_game()
    for game in (old, new):
        game.start_turn(0)
        game.offer()
        game.drop()
    with pytest.raises(ValueError, match="latest"):
        s.record(old)
    s.record(new)
    assert s.points == (1, -1) and s.n_games == 1
