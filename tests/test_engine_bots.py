"""Bots that call other engines (fastbg.sim.engines): board conventions round-tripped on
random positions, every engine move legal, agreement with fastbg's gnubg bot, the
illegal-move error, and the bots in play and tournaments; then the engines in whole matches
(Crawford game, their cube strategies, records written as .mat and .sgf and read back
equal), in rollouts, and the arena command (``fastbg tournament --bots
gnubg-app,bgsage,gnubg,pubeval``). bgsage comes with the peers extra, GNU Backgammon
(gnubg, run in a child process) with gnubg-app; each test skips only when its engine is
not installed. (On a Ray cluster: tests/test_ray.py.)"""
import importlib.util
import json
import pickle
import subprocess
import sys

import numpy as np
import pytest
from click.testing import CliRunner

import fastbg
from fastbg.constants import START
from fastbg.position.ids import board_from_position_id, position_id
from fastbg.position.moves import legal_moves_rows
from fastbg.sim import engines
from fastbg.sim.games import BotError  # noqa: F401  (EngineError is what a bad move raises)
from fastbg.sim.records import check_game

needs_gnubg = pytest.mark.skipif(not engines.gnubg_app_available(),
                                 reason="GNU Backgammon's gnubg package is not installed")
needs_bgsage = pytest.mark.skipif(importlib.util.find_spec("bgsage") is None,
                                  reason="the bgsage package is not installed")


@pytest.fixture(scope="module")
def positions():
    """(boards before a move, dice, fastbg's results, their offsets) of 300 positions from
    seeded random play: contact, hits, the bar, races and bear-offs."""
    rng = np.random.default_rng(14)
    boards, dice = [], []
    while len(boards) < 300:
        b = np.array(START, np.int8)
        for _ in range(200):
            d = rng.integers(1, 7, 2)
            res, _ = legal_moves_rows(b[None, :].copy(), d[None, :].astype(np.int64), 1)
            if len(res) > 1:
                boards.append(b.copy())
                dice.append(d)
            b = res[rng.integers(len(res))]
            if not (b[1:] > 0).any():
                break
            b = -b[::-1]
    before = np.array(boards, np.int8)
    d = np.array(dice, np.int64)
    res, off = legal_moves_rows(before, d, 1)
    return before, d, res, off


def _agreement(chooser, positions, net):
    before, dice, res, off = positions
    picked = chooser(res, off, before, dice)
    ours = np.zeros(len(before), np.int64)
    fastbg.sim.game_kernels.segment_best(np.ascontiguousarray(net.scores_rows(res)), off, ours)
    theirs = np.array([int(np.argmax(picked[off[i]:off[i + 1]])) for i in range(len(before))])
    return float((ours == theirs).mean())


# ----------------------------------------------------------------------------- bgsage

def test_bgsage_boards_round_trip_and_agree_on_the_rules(positions):
    bgsage = pytest.importorskip("bgsage")
    before, dice, res, off = positions
    assert (engines.from_bgsage(engines.to_bgsage(before)) == before).all()
    assert engines.to_bgsage(START).tolist() == list(bgsage.STARTING_BOARD)
    for i in range(0, len(before), 3):
        b = before[i]
        flipped = -b[::-1]
        assert bgsage.flip_board(engines.to_bgsage(b).tolist()) == engines.to_bgsage(flipped).tolist()
        theirs = {tuple(engines.from_bgsage(m).tolist())
                  for m in bgsage.possible_moves(engines.to_bgsage(b).tolist(), *dice[i].tolist())}
        ours = {tuple(r.tolist()) for r in res[off[i]:off[i + 1]]}
        assert theirs == ours, position_id(b)


def test_bgsage_moves_are_legal_and_mostly_gnubgs(positions, gnubg_net):
    pytest.importorskip("bgsage")
    bot = fastbg.sim.bots.resolve("bgsage")
    rate = _agreement(bot.evaluator, positions, gnubg_net)
    print(f"bgsage (raw net) picks fastbg gnubg's move in {rate:.1%} of {len(positions[0])}")
    assert rate > 0.5


def test_bgsage_levels_are_named_after_its_own():
    assert engines.BGSAGE_LEVELS["bgsage"] == "1ply"
    assert engines.BGSAGE_LEVELS["bgsage-3ply"] == "3ply"


# ----------------------------------------------------------------------------- gnubg

@needs_gnubg
def test_gnubg_position_ids_round_trip(positions):
    before = positions[0]
    ids = [position_id(b) for b in before]
    back = engines.gnubg_process(0).ask("ids", ids)
    assert back == ids
    assert all((board_from_position_id(p) == b).all() for p, b in zip(back, before))


def test_gnubg_moves_apply_to_fastbg_boards():
    b = np.zeros(26, np.int8)
    b[25], b[6], b[20], b[5] = 1, 13, -1, 1          # X: bar, 6, 5; O: a blot on X's 20
    b[12] = -14
    after = engines.apply_gnubg_move(b, (25, 20, 5, 0))     # bar/20* 5/off
    want = b.copy()
    want[25], want[20], want[0], want[5] = 0, 1, -1, 0
    assert (after == want).all()


@needs_gnubg
def test_gnubg_app_moves_are_legal_and_gnubgs(positions, gnubg_net):
    bot = fastbg.sim.bots.resolve("gnubg-app")
    rate = _agreement(bot.evaluator, positions, gnubg_net)
    print(f"gnubg-app (0-ply) picks fastbg gnubg's move in {rate:.1%} of {len(positions[0])}")
    assert rate > 0.8
    proc = engines.gnubg_process(0).proc
    bot.evaluator(*_first(positions))
    assert engines.gnubg_process(0).proc is proc            # one child for the whole run


def _first(positions):
    before, dice, res, off = positions
    return res[off[0]:off[1]], off[:2] - off[0], before[:1], dice[:1]


def test_an_illegal_engine_move_names_engine_position_and_dice(positions):
    before, dice, res, off = positions
    liar = engines.EngineChooser("liar", lambda b, d, rows, seg: b)   # plays nothing
    with pytest.raises(engines.EngineError, match=r"liar .* position \S+ with dice \d-\d"):
        liar(*_first(positions))


@needs_gnubg
def test_engine_bots_play_and_duel():
    pytest.importorskip("bgsage")
    # one thread: rounds of a few games are several times faster so on shared cores
    res = fastbg.play(4, ("gnubg-app", "bgsage"), seed=3, threads=1)
    assert res.winner.shape == (4,)
    t = fastbg.tournament(["gnubg-app", "bgsage", "pubeval"], 2, seed=1, speed=True, threads=1)
    assert all(r["decisions_per_second"] > 0 for r in t.bots)


def test_bgsage_fast_batch_is_its_public_call(positions):
    bgsage = pytest.importorskip("bgsage")
    before, dice, _, _ = positions
    batch = engines._bgsage_batch("1ply")
    assert batch is not None, "this bgsage lacks the C++ batch the bot calls"
    pos = [{"board": engines.to_bgsage(b).tolist(), "die1": int(d[0]), "die2": int(d[1]),
            "cube_value": 1, "cube_owner": "centered"} for b, d in zip(before[:100], dice)]
    public = [r.moves[0].board for r in bgsage.batch_checker_play(pos, eval_level="1ply")]
    assert batch(pos, 1) == public


def test_engine_bots_pickle_by_name_and_say_what_is_missing(monkeypatch):
    """An engine bot is rebuilt from its name where it is unpickled (a Ray worker); where
    the engine is missing that is an ImportError with the extra to install."""
    monkeypatch.setattr(engines, "_ENGINE_CHOOSERS", {})
    monkeypatch.setattr(engines, "gnubg_app_available", lambda: False)
    with pytest.raises(ImportError, match=r"pip install 'fastbg\[gnubg-app\]'"):
        fastbg.play(1, ("gnubg-app-1ply", "pubeval"))
    monkeypatch.setitem(sys.modules, "bgsage", None)
    with pytest.raises(ImportError, match=r"pip install 'fastbg\[bgsage\]'"):
        engines.engine_chooser("bgsage-2ply")
    with pytest.raises(ValueError, match="not a bgsage bot"):
        engines.bgsage_bot("gnubg-app")
    liar = engines.EngineChooser("liar", len)             # not an engine: pickled as itself
    assert pickle.loads(pickle.dumps(liar)).choose is len


# ------------------------------------------------------------ whole matches, records

def _moves_are_the_engines(games, bots):
    """Every move of the recorded games whose player had a choice is the one the player's
    engine gives when asked again, position by position, outside the game loop (one
    request per engine); returns how many moves each engine made."""
    asked = {0: [], 1: []}
    for g in games:
        for a, before, result in g.replay():
            if a.kind == "move":
                asked[a.player].append((before, a.dice, result))
    counts = []
    for p, name in enumerate(bots):
        before = np.array([b for b, _, _ in asked[p]], np.int8)
        dice = np.array([d for _, d, _ in asked[p]], np.int64)
        played = np.array([r for _, _, r in asked[p]], np.int8)
        rows, off = legal_moves_rows(before, dice, 1)
        choice = np.diff(off) > 1
        again = engines.engine_chooser(name).choose(before[choice], dice[choice], *_segments(
            rows, off, choice))
        assert (again == played[choice]).all(), name
        counts.append(int(choice.sum()))
    return counts


def _segments(rows, off, keep):
    """(rows, offsets) of the positions ``keep`` selects."""
    idx = np.flatnonzero(keep)
    parts = [rows[off[i]:off[i + 1]] for i in idx]
    return np.concatenate(parts), np.concatenate([[0], np.cumsum([len(x) for x in parts])])


@needs_gnubg
@needs_bgsage
@pytest.mark.parametrize("cube", ["bgsage", "gnubg-app"])
def test_engine_bots_play_whole_matches_with_their_cubes(cube, tmp_path):
    """gnubg-app against bgsage in 3-point matches, both doubling with one engine's cube:
    the matches are the same with and without records; each game replays legally; the
    Crawford games come and hold no cube action; every move is its engine's own and every
    turn where a double could come played as the engine answers it directly
    (tests/test_engine_cube.py's oracles); each match written as .mat and .sgf reads back
    equal, and GNU Backgammon imports the .mat files reading the same actions."""
    from test_engine_cube import decision_turns, engines_answer_alike
    bots = ("gnubg-app", "bgsage")
    res = fastbg.play_matches(3, 3, bots, cube=(cube, cube), seed=1, record=True, threads=1)
    plain = fastbg.play_matches(3, 3, bots, cube=(cube, cube), seed=1, threads=1)
    for k in ("winner", "score", "games"):
        assert np.array_equal(getattr(res, k), getattr(plain, k)), k
    assert len(res.records) == 3
    games = []
    for i, m in enumerate(res.records):
        assert m.players == bots and max(m.score) == 3 and m.winner == res.winner[i]
        for k, g in enumerate(m.games):
            check_game(g, f"match {i}, game {k}")
        games += m.games
    crawford = [g for g in games if g.crawford]
    assert len(crawford) >= 2
    assert all(a.kind in ("opening", "opening_tie", "move") for g in crawford for a in g.actions)

    assert min(_moves_are_the_engines(games, bots)) > 50
    turns = [t for g in games for t in decision_turns(g, g.rules)]
    doubles = engines_answer_alike(cube, turns)
    assert len(turns) > 20 and doubles >= 3

    for i, m in enumerate(res.records):
        fastbg.write_mat(m, tmp_path / f"m{i}.mat")
        fastbg.write_sgf(m, tmp_path / f"m{i}.sgf")
        assert fastbg.read_mat(tmp_path / f"m{i}.mat") == m
        assert fastbg.read_sgf(tmp_path / f"m{i}.sgf") == m
    if cube == "gnubg-app":              # GNU Backgammon imports them: the same actions
        from test_gnubg_files import CHILD, _gnubg_actions, _our_actions
        job, out = tmp_path / "job.json", tmp_path / "out.json"
        job.write_text(json.dumps({"import": [[str(tmp_path / f"m{i}.mat"), None]
                                              for i in range(len(res.records))]}))
        subprocess.run([sys.executable, CHILD, str(job), str(out)], timeout=120,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        theirs = json.loads(out.read_text())["imported"]
        assert len(theirs) == len(res.records)
        for m, t in zip(res.records, theirs):
            assert [_gnubg_actions(tg) for tg in t["games"]] == [_our_actions(g) for g in m.games]


@needs_gnubg
@needs_bgsage
def test_engine_tournament_records_are_the_games_played(tmp_path):
    """tournament(..., record=True) with engine bots: each pair's records are its games
    (replayed once when asked), and the points they add up to are the pair's."""
    t = fastbg.tournament(["gnubg-app", "bgsage"], 4, seed=2, rules=fastbg.MoneyRules(),
                          cube="bgsage", record=True, threads=1)
    seatings = t.records[(0, 1)]
    assert [len(r) for r in seatings] == [2, 2]
    for r in seatings:
        for k, g in enumerate(r):
            check_game(g, f"game {k}")
        fastbg.write_mat(r[0], tmp_path / "g.mat")
        assert fastbg.read_mat(tmp_path / "g.mat") == fastbg.money_session([r[0]])
    points = sum(g.points for g in seatings[0]) - sum(g.points for g in seatings[1])
    assert points == pytest.approx(t.pairs[0]["points_per_game"] * 4)   # bots (0, 1)'s view


# ------------------------------------------------------------------------- rollouts

def _board(mine, theirs):
    b = np.zeros(26, np.int8)
    for p, n in mine.items():
        b[p] = n
    for p, n in theirs.items():
        b[25 - p] = -n
    return b


ENGINES = [pytest.param("bgsage", marks=needs_bgsage),
           pytest.param("gnubg-app", marks=needs_gnubg)]


@pytest.mark.parametrize("name", ENGINES)
def test_engine_bots_roll_out(name, gnubg_net):
    """Rollouts played by an engine: exact where every first roll decides (one checker on
    the 6-point against one on the ace: 27/36, every roll once in 36 rotated trials), a
    pure race's bear-off equal to the optimal bear-off's probabilities within 3 standard
    errors for every move of rollout_moves, the same figures again for the same seed, and
    truncation, late evaluation and the engine's own cube as in any rollout."""
    from test_decision_rollouts import _win_optimal
    one = dict(bot=name, threads=1)    # lock-step rounds this small: one thread is faster
    r = fastbg.rollout(_board({6: 1}, {1: 1}), trials=72, seed=4, **one)
    assert r.probabilities == [0.75, 0.0, 0.0, 0.0, 0.0] and r.trials == 72

    b = _board({6: 1, 5: 1, 3: 1}, {6: 1, 4: 1})
    rows = fastbg.rollout_moves(b, (2, 1), trials=324, seed=7, **one)
    assert len(rows) >= 2 and all(row.trials == 324 for row in rows)
    for row in rows:
        after = np.array(row.board, np.int8)
        want = 1 - float(_win_optimal(tuple(int(x) for x in -after[::-1])))
        assert abs(row.probabilities[0] - want) <= 3 * row.probabilities_se[0] + 1e-12, row.move
    again = fastbg.rollout_moves(b, (2, 1), trials=324, seed=7, bot=name, threads=2)
    assert [x.probabilities for x in again] == [x.probabilities for x in rows]

    start = "4HPwATDgc/ABMA"
    cut = fastbg.rollout(start, trials=36, seed=1, truncate=4, evaluator="gnubg", **one)
    worst = fastbg.EvaluatorBot(lambda rows: -gnubg_net.scores(rows), name="worst")
    late = fastbg.rollout(start, trials=36, seed=1, truncate=4, evaluator="gnubg",
                          late=(2, worst), **one)
    assert cut.trials == late.trials == 36 and cut.probabilities != late.probabilities
    cubeful = fastbg.rollout(start, trials=12, seed=1, rules=fastbg.MoneyRules(),
                             cube=(name, name), truncate=4, evaluator="gnubg", **one)
    assert cubeful.trials == 12 and np.isfinite(cubeful.cubeful)
    with pytest.raises(ValueError, match="variance reduction supports the built-in bots"):
        fastbg.rollout(start, trials=36, bot=name, variance_reduction=True, evaluator="gnubg")


# ----------------------------------------------------------------------- the arena

@needs_gnubg
@needs_bgsage
def test_the_arena_command_prints_luck_adjusted_strength_and_speed(gnubg_net):
    """``fastbg tournament --bots gnubg-app,bgsage,gnubg,pubeval``: with another engine in
    the field the luck is measured by gnubg's networks unless told otherwise, so every bot's
    row has points per game, luck-adjusted points per game and decisions/s, and every pair
    its luck-adjusted interval; ``--luck-adjust none`` leaves it out."""
    from fastbg.cli import main
    names = ["gnubg-app", "bgsage", "gnubg", "pubeval"]
    r = CliRunner().invoke(main, ["tournament", "--bots", ",".join(names), "--games", "2",
                                  "--no-progress", "--threads", "1"])
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    head = next(k for k, ln in enumerate(lines) if ln.startswith("#  bot"))
    assert "points/game (95% CI)" in lines[head]
    assert "luck-adjusted (gnubg, 95% CI)" in lines[head] and lines[head].endswith("decisions/s")
    rows = {ln.split()[1]: ln for ln in lines[head + 1:head + 5]}
    assert sorted(rows) == sorted(names)
    luck = lines[head].index("luck-adjusted")
    for ln in rows.values():             # (2 games: one deal, no intervals yet)
        assert abs(float(ln[luck:].split()[0])) <= 3
        assert float(ln.split()[-1].replace(",", "")) > 0          # decisions/s
    top = next(k for k, ln in enumerate(lines) if ln.startswith("pair "))
    luck = lines[top].index("luck-adjusted")
    pairs = lines[top + 1:top + 7]
    assert all(abs(float(ln[luck:].split()[0])) <= 3 for ln in pairs), pairs

    r = CliRunner().invoke(main, ["tournament", "--bots", "gnubg-app,pubeval", "--games", "2",
                                  "--no-progress", "--threads", "1", "--luck-adjust", "none"])
    assert r.exit_code == 0, r.output
    assert "luck-adjusted" not in r.output and "decisions/s" in r.output
