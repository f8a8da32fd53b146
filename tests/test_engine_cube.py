"""Engines' own cube action as cube strategies (cube="gnubg-app", "bgsage" ...;
fastbg/sim/engines.py, docs/tournaments.md section 3).

The oracle is the engine itself, asked directly and apart from fastbg's plumbing:
bgsage through its public ``bgsage.batch_cube_action``, GNU Backgammon through its
``hint`` command in a child process of its own (the GPL package is never imported here).
On hand-built positions with known answers the engines' decisions are checked, and the
strategies' decisions must equal the engines' own; in short money sessions and games of a
match, every turn where a double could come is rebuilt from the records and the engine's
own answer there must be what was played. Every record replays legally and a run is
reproducible for its seed. Each test skips only when its engine cannot be imported.
"""
import importlib.util
import json
import subprocess
import sys

import numpy as np
import pytest

import fastbg
from fastbg.constants import START
from fastbg.cube.decision_kernels import BEAVER, DROP, E_ANSWER, E_DOUBLE, TAKE
from fastbg.position.ids import GAME_PLAYING, MatchState, match_id, position_id
from fastbg.sim import engines
from fastbg.sim.records import check_game
from test_records import _check_against

needs_gnubg = pytest.mark.skipif(importlib.util.find_spec("gnubg") is None,
                                 reason="GNU Backgammon's gnubg package is not installed")
needs_bgsage = pytest.mark.skipif(importlib.util.find_spec("bgsage") is None,
                                  reason="the bgsage package is not installed")

# A last roll the player on roll wins 31 times in 36 (one checker on his 5-point; the
# opponent bears her last checker off from her ace point next roll):
#
#    opponent  . . . . . . | . . . . . o      o on her 1-point (our 24)
#    on roll   . . . . . . | . x . . . .      x on our 5-point
#
# no gammons, a taker with 5/36 < 25%: double, pass in money play and at any score.
LAST_ROLL = np.zeros(26, np.int8)
LAST_ROLL[5], LAST_ROLL[24] = 1, -1
ANSWER = {"take": TAKE, "drop": DROP, "pass": DROP, "beaver": BEAVER}
MONEY = fastbg.MoneyRules(beavers=True)


# ----------------------------------------------------------------------------- oracles

def gnubg_id(board, value, owner, length=0, away=(0, 0), crawford=False, jacoby=True):
    """GNUbg ID of a position before the roll (player on roll is gnubg's player 0)."""
    state = MatchState(cube_value=value, cube_owner=None if owner < 0 else 0,
                       player_on_roll=0, crawford=crawford, game_state=GAME_PLAYING,
                       match_length=length,
                       score=(length - away[0], length - away[1]) if length else (0, 0),
                       jacoby=None if length else jacoby)
    return f"{position_id(board)}:{match_id(state)}"


# GNU Backgammon's hint, alone in a child process: each answer follows a marker line.
_GNUBG_HINTS = r"""
import ctypes, json, sys
import gnubg
libc = ctypes.CDLL(None)
ply, items = json.loads(sys.stdin.read())
gnubg.command("set threads 1")
for s in (f"plies {ply}", "cubeful on", "deterministic on", "noise 0", "prune off"):
    gnubg.command("set evaluation cubedecision evaluation " + s)
for gid, beavers in items:
    gnubg.command(f"set beavers {beavers}")
    gnubg.setgnubgid(gid)
    libc.fflush(None)
    print("@@@", gid, flush=True)
    gnubg.command("hint")
    libc.fflush(None)
"""


def gnubg_direct(ply, items):
    """GNU Backgammon's own "Proper cube action" for each (GNUbg ID, beavers 0/1): the
    text, or None where its hint says nothing (the cube unavailable to the player)."""
    out = subprocess.run([sys.executable, "-c", _GNUBG_HINTS], input=json.dumps([ply, items]),
                         capture_output=True, text=True, timeout=300).stdout
    answers = []
    for block in out.split("@@@ ")[1:]:
        lines = [ln for ln in block.splitlines() if ln.startswith("Proper cube action:")]
        answers.append(lines[0].split(":", 1)[1].strip() if lines else None)
    assert len(answers) == len(items), out[-2000:]
    return answers


def gnubg_decision(text):
    """(double, answer) as GNU Backgammon's computer player acts on its hint's text."""
    if text is None:
        return False, TAKE
    head, tail = text.split(", ", 1)
    return head in ("Double", "Redouble"), ANSWER[tail.split(" (")[0]]


def bgsage_direct(level, items):
    """bgsage's own (double, answer) for each item (board, value, owner, length, away,
    crawford, jacoby, beavers), by its public batch_cube_action (one call per Jacoby and
    beaver setting: each call loads its networks)."""
    import bgsage
    out = [None] * len(items)
    groups = {}
    for k, (board, value, owner, length, away, crawford, jacoby, beavers) in enumerate(items):
        p = {"board": engines.to_bgsage(board).tolist(), "cube_value": value,
             "cube_owner": "centered" if owner < 0 else "player"}
        if length:
            p.update(away1=away[0], away2=away[1], is_crawford=crawford)
        groups.setdefault((bool(jacoby), bool(beavers)), []).append((k, p))
    for (jacoby, beavers), group in groups.items():
        res = bgsage.batch_cube_action([p for _, p in group], eval_level=level, n_threads=1,
                                       jacoby=jacoby, beaver=beavers)
        for (k, _), r in zip(group, res):
            out[k] = (r.should_double, BEAVER if r.is_beaver else TAKE if r.should_take else DROP)
    return out


def direct(name, items):
    """The engine's own decisions for items as :func:`bgsage_direct` takes them."""
    if name in engines.BGSAGE_LEVELS:
        return bgsage_direct(engines.BGSAGE_LEVELS[name], items)
    texts = gnubg_direct(engines.GNUBG_APP_PLIES[name],
                         [[gnubg_id(b, v, o, n, a, c, j), int(bv)]
                          for b, v, o, n, a, c, j, bv in items])
    return [gnubg_decision(t) for t in texts]


def strategy(name, items):
    """The cube strategy's decisions (the rows the game kernels read) for the items, one
    call per match length and Crawford flag (a run has one of each)."""
    out = [None] * len(items)
    groups = {}
    for k, it in enumerate(items):
        groups.setdefault((it[3], it[5]), []).append(k)
    for (length, crawford), ks in groups.items():
        its = [items[k] for k in ks]
        q = engines.CubeQuery(value=np.array([it[1] for it in its], np.int64),
                              owner=np.array([it[2] for it in its], np.int64),
                              jacoby=np.array([it[6] for it in its], bool),
                              beavers=np.array([it[7] for it in its], bool),
                              away=np.array([it[4] for it in its], np.int64).reshape(-1, 2),
                              length=length, crawford=crawford)
        rows = engines.engine_cube(name).cube_rows(np.array([it[0] for it in its], np.int8), q)
        for k, r in zip(ks, rows):
            out[k] = (bool(r[E_DOUBLE]), int(r[E_ANSWER]))
    return out


# --------------------------------------------------------------- hand-built positions

MONEY_ITEMS = [  # board, cube, owner, match length, away, Crawford, Jacoby, beavers
    (LAST_ROLL, 1, -1, 0, (0, 0), False, True, True),
    (LAST_ROLL, 2, 0, 0, (0, 0), False, False, True),        # a redouble
    (START, 1, -1, 0, (0, 0), False, True, False),
    (START, 1, -1, 0, (0, 0), False, True, True),
]
MATCH_ITEMS = [
    (LAST_ROLL, 1, -1, 5, (3, 3), False, False, False),
    (START, 1, -1, 5, (3, 3), False, False, False),
    (START, 1, -1, 7, (4, 2), False, False, False),
]
KNOWN = [(True, DROP), (True, DROP), (False, TAKE), None,   # START beavered or taken
         (True, DROP), (False, TAKE), None]


@pytest.mark.parametrize("name,known_level", [
    pytest.param("gnubg-app", "gnubg-app", marks=needs_gnubg),
    pytest.param("bgsage", "bgsage-2ply", marks=needs_bgsage)])
def test_decisions_on_hand_built_positions_are_the_engines_own(name, known_level):
    """Known answers (double/pass on the last roll, no double at the start) from the
    engine at a level that knows them (bgsage's raw network misjudges lone checkers; its
    2-ply does not), and at the strategy's level exactly the engine's own answers."""
    items = MONEY_ITEMS + MATCH_ITEMS
    got = strategy(name, items)
    assert got == direct(name, items)
    known = strategy(known_level, items) if known_level != name else got
    for k, (want, have) in enumerate(zip(KNOWN, known)):
        if want is not None:
            assert have == want, (k, items[k][1:])
    assert not known[3][0] and known[3][1] in (TAKE, BEAVER)


@pytest.mark.parametrize("name", [pytest.param("gnubg-app", marks=needs_gnubg),
                                  pytest.param("bgsage-2ply", marks=needs_bgsage)])
def test_the_game_kernels_play_the_engines_decision(name):
    """From the last roll the engine doubles and the opponent's engine passes, in money
    play and at 3-away/3-away; from the start nobody doubles before the first move."""
    for rules, kw in [(MONEY, {}), (fastbg.MatchRules(5), dict(score=(2, 2)))]:
        res = fastbg.play(1, ("pubeval", "pubeval"), seed=4, start=LAST_ROLL, rules=rules,
                          cube=(name, name), record=True, **kw)
        kinds = [a.kind for a in res.records[0].actions]
        assert kinds == ["double", "drop"] and res.points[0] == 1 and res.dropped[0]
    res = fastbg.play(1, ("pubeval", "pubeval"), seed=4, start=START, rules=MONEY,
                      cube=(name, "never"), record=True)
    assert res.records[0].actions[0].kind == "move"


@needs_gnubg
def test_a_beaver_and_two_strategies_of_different_engines():
    """A stand-in engine that always doubles against GNU Backgammon, which beavers at the
    start in money play with beavers (its own answer, checked directly): double, beaver,
    take, the cube at 4 on the beaverer's side; without beavers it takes."""
    always = engines.EngineCube("always", lambda boards, q: [(True, TAKE)] * len(boards))
    item = (START, 1, -1, 0, (0, 0), False, True, True)
    assert direct("gnubg-app", [item]) == [(False, BEAVER)]
    for rules, kinds, cube in [(MONEY, ["double", "beaver", "take"], 4),
                               (fastbg.MoneyRules(), ["double", "take"], 2)]:
        res = fastbg.play(1, ("pubeval", "pubeval"), seed=2, start=START, rules=rules,
                          cube=(always, "gnubg-app"), record=True)
        acts = res.records[0].actions
        assert [a.kind for a in acts[:len(kinds)]] == kinds
        assert [a.player for a in acts[:len(kinds)]] == [0, 1, 0][:len(kinds)]
        assert acts[len(kinds)].kind == "move" and acts[len(kinds) - 1].cube == cube
        _check_against(res)


# ------------------------------------------------------------------ sessions, matches

def decision_turns(game, rules):
    """Every turn of a recorded game where the player on roll may double: the item
    (as :func:`bgsage_direct` takes it) and what was played (doubled, answer or None)."""
    value, owner, turned = 1, None, False
    match = isinstance(rules, fastbg.MatchRules)
    out = []
    acts = game.actions
    moved = False             # the first move plays the opening throw: no cube before it
    doubled = False           # this turn began with a double (taken)
    i = 0
    while i < len(acts):
        a = acts[i]
        if a.kind in ("opening", "opening_tie"):
            i += 1
            continue
        p = a.player
        may = (moved and not game.crawford and owner in (None, p)
               and (rules.max_cube is None or 2 * value <= rules.max_cube))
        board = fastbg.board_from_position_id(a.position_id)
        away = ((rules.length - game.score[p], rules.length - game.score[1 - p]) if match
                else (0, 0))
        item = (board, value, -1 if owner is None else 0, rules.length if match else 0,
                away, game.crawford, not match and rules.jacoby and not turned,
                not match and rules.beavers
                and (rules.max_cube is None or 4 * value <= rules.max_cube))
        if a.kind == "double":
            assert may
            answer = acts[i + 1].kind
            out.append((item, (True, ANSWER[answer])))
            if answer == "drop":
                break
            value *= 4 if answer == "beaver" else 2
            owner, turned, doubled = 1 - p, True, True
            i += 2 + (answer == "beaver")          # a beaver is taken by the doubler
            continue
        assert a.kind == "move"
        if may and not doubled:
            out.append((item, (False, None)))
        moved, doubled = True, False
        i += 1
    return out


def check_session(name, results, rules):
    """Every record replays legally, and at every turn where a double could come the
    engine's own answer is what was played."""
    turns = []
    for res in results:
        _check_against(res, n=len(res))          # check_game on each, outcomes equal
        for g in range(len(res)):
            turns += decision_turns(res.records[g], rules)
    return len(turns), engines_answer_alike(name, turns)


def engines_answer_alike(name, turns):
    """At each of ``turns`` (decision_turns' items with what was played) the engine ``name``
    asked directly doubles when the played double came, and answers as played; returns the
    number of doubles."""
    want = direct(name, [t[0] for t in turns])
    doubles = 0
    for (item, (doubled, answer)), (d, a) in zip(turns, want):
        assert doubled == d, (position_id(item[0]), item[1:])
        if doubled:
            doubles += 1
            assert answer == a, (position_id(item[0]), item[1:])
    return doubles


def _session(name, seed):
    return fastbg.play(4, ("pubeval", "pubeval"), seed=seed, rules=MONEY, cube=(name, name),
                       record=True)


def _match(name, seed, length=3):
    """A whole match played game by game at its running score (Crawford game included)."""
    rules = fastbg.MatchRules(length)
    score, crawford_done, games = [0, 0], False, []
    while max(score) < length:
        crawford = not crawford_done and length - 1 in score
        crawford_done |= crawford
        res = fastbg.play(1, ("pubeval", "pubeval"), seed=seed, game_offset=len(games),
                          rules=rules, cube=(name, name), score=tuple(score),
                          crawford_game=crawford, record=True)
        games.append(res)
        score[0 if res.points[0] > 0 else 1] += abs(int(res.points[0]))
    return games, score


@pytest.mark.parametrize("name", [pytest.param("gnubg-app", marks=needs_gnubg),
                                  pytest.param("bgsage", marks=needs_bgsage)])
def test_money_session_and_match_play_the_engines_own_cube(name):
    money = _session(name, seed=3)
    again = _session(name, seed=3)
    for k in ("points", "plies", "cube", "dropped", "winner"):
        assert np.array_equal(getattr(money, k), getattr(again, k)), k
    assert list(money.records) == list(again.records)
    turns, doubles = check_session(name, [money], MONEY)
    assert turns > 20 and doubles >= 1 and (money.cube > 1).any()

    games, score = _match(name, seed=5)
    assert max(score) >= 3 and len(games) >= 2
    turns, _ = check_session(name, games, fastbg.MatchRules(3))
    assert turns > 5
    replay, _ = _match(name, seed=5)
    assert [list(g.records) for g in games] == [list(g.records) for g in replay]


# ----------------------------------------------------------------- errors, tournaments

@needs_bgsage
def test_tournament_with_an_engines_cube():
    t = fastbg.tournament(["pubeval", "greedy"], games=2, seed=1, rules=MONEY, cube="bgsage")
    assert t.config["cube"] == "bgsage" and len(t.pairs) == 1
    # whole matches play in lock-step rounds, the engine asked at each game's score
    t = fastbg.tournament(["pubeval", "greedy"], games=2, seed=1, match_length=3,
                          cube="bgsage")
    assert t.config["cube"] == "bgsage" and t.config["match_length"] == 3
    m = fastbg.play_matches(2, 3, ("pubeval", "greedy"), cube=("bgsage", "bgsage"), seed=2,
                            record=True)
    again = fastbg.play_matches(2, 3, ("pubeval", "greedy"), cube=("bgsage", "bgsage"),
                                seed=2)
    assert m.winner.tolist() == again.winner.tolist()
    for rec in m.records:
        assert max(rec.score) >= 3
        for g in rec.games:
            check_game(g)


def test_unknown_answers_raise_engine_errors(monkeypatch):
    """A GNU Backgammon answer outside its vocabulary, a bgsage answer outside its own,
    and a beaver the rules do not allow: EngineError naming the engine and Position ID."""
    class Worker:
        def __init__(self, answer):
            self.answer = answer

        def ask(self, key, items):
            return [self.answer] * len(items)

    q = engines.CubeQuery(np.ones(1, np.int64), -np.ones(1, np.int64), np.ones(1, bool),
                          np.zeros(1, bool), np.zeros((1, 2), np.int64), 0, False)
    monkeypatch.setattr(engines, "gnubg_app_available", lambda: True)
    for answer in ("Double, maybe", "Setting GNUbg ID ...", 3):
        monkeypatch.setattr(engines, "gnubg_process", lambda ply, a=answer: Worker(a))
        cube = engines.EngineCube("gnubg-app", engines._gnubg_cube(0, "gnubg-app"))
        with pytest.raises(engines.EngineError, match="gnubg-app .*4HPwATDgc/ABMA"):
            cube.cube_rows(START[None, :].copy(), q)
    monkeypatch.setattr(engines, "gnubg_process", lambda ply: Worker("No double, beaver"))
    cube = engines.EngineCube("gnubg-app", engines._gnubg_cube(0, "gnubg-app"))
    with pytest.raises(engines.EngineError, match="beavered where the rules allow no beaver"):
        cube.cube_rows(START[None, :].copy(), q)
    assert cube.cube_rows(START[None, :].copy(), q._replace(beavers=np.ones(1, bool)))[
        0, E_ANSWER] == BEAVER

    if importlib.util.find_spec("bgsage") is not None:
        import bgbot_cpp
        monkeypatch.setattr(bgbot_cpp, "batch_evaluate_positions", lambda *a, **k: [
            {"should_double": True, "should_take": True, "optimal_action": "Double/Maybe"}])
        cube = engines.EngineCube("bgsage", engines._bgsage_cube("1ply", "bgsage"))
        with pytest.raises(engines.EngineError, match="bgsage .*4HPwATDgc/ABMA"):
            cube.cube_rows(START[None, :].copy(), q)


def test_missing_engines_raise_import_errors_with_the_install_hint(monkeypatch):
    with pytest.raises(ValueError, match="need rules"):
        fastbg.play(1, ("pubeval", "pubeval"), cube=("gnubg-app", "never"))
    monkeypatch.setattr(engines, "_ENGINE_CUBES", {})
    monkeypatch.setattr(engines, "gnubg_app_available", lambda: False)
    with pytest.raises(ImportError, match=r"pip install 'fastbg\[gnubg-app\]'"):
        fastbg.play(1, ("pubeval", "pubeval"), rules=MONEY, cube=("gnubg-app", "never"))
    monkeypatch.setitem(sys.modules, "bgsage", None)
    with pytest.raises(ImportError, match=r"pip install 'fastbg\[bgsage\]'"):
        fastbg.play(1, ("pubeval", "pubeval"), rules=MONEY, cube=("never", "bgsage-2ply"))
    with pytest.raises(ValueError, match="engine's"):
        fastbg.play(1, ("pubeval", "pubeval"), rules=MONEY, cube=("gnubg-app-9ply", "never"))
