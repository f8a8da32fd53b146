"""Records of lock-step games (EvaluatorBot, the n-ply bots and cube strategies):
record=True must play exactly the games of the same run without records, every record
must replay legally (test_records.py's checks), and a lock-step bot that chooses exactly
as an in-kernel bot must give exactly the in-kernel records (docs/records.md section 1).
"""

import numpy as np
import pytest

import fastbg
from fastbg import EvaluatorBot, ScorerBot
from fastbg.sim import games as _games
from fastbg.sim.records import check_game
from test_play import linear_evaluator, linear_scorer
from test_records import MONEY, _check_against, _same_games
from test_tournament_records import cli_money_session

# A linear scorer twice (test_play.py's): in numba (ScorerBot, the game kernel) and in
# numpy (EvaluatorBot, lock-step). Integer weights: both sums are exact, so both bots
# choose the same candidate, ties included, and play the same games.
LOCKSTEP = (EvaluatorBot(linear_evaluator, "lin"), "random")
IN_KERNEL = (ScorerBot(linear_scorer, "lin"), "random")

# name: (games, play's keywords). The match game is played at 3-2 to 5 points; the
# Crawford one at 4-2.
RUNS = {
    "cubeless": (200, dict(seed=31, game_offset=7)),
    "money": (250, dict(seed=32, rules=MONEY, cube=("race", "race"))),
    "match": (150, dict(seed=33, rules=fastbg.MatchRules(5), cube=("race", "race"),
                        score=(3, 2))),
    "crawford": (40, dict(seed=34, rules=fastbg.MatchRules(5), cube=("race", "race"),
                          score=(4, 2), crawford_game=True)),
}


@pytest.fixture(scope="module", params=list(RUNS))
def runs(request):
    """(lock-step recorded, lock-step unrecorded, in-kernel recorded) of one run."""
    n, kw = RUNS[request.param]
    return (request.param, fastbg.play(n, LOCKSTEP, record=True, **kw),
            fastbg.play(n, LOCKSTEP, **kw), fastbg.play(n, IN_KERNEL, record=True, **kw))


def test_lockstep_records_are_the_games_played(runs):
    name, rec, plain, _ = runs
    _same_games(rec, plain)
    _check_against(rec)
    g = rec.records[0]
    assert g.players == ("lin", "random") and g.actions[0].kind in ("opening", "opening_tie")
    if name == "money":
        kinds = {a.kind for g in rec.records[:200] for a in g.actions}
        assert {"opening_tie", "double", "take", "drop"} <= kinds
        assert rec.dropped.any() and (rec.cube > 1).any()
    if name in ("match", "crawford"):
        score = RUNS[name][1]["score"]
        for i in range(10):
            g = rec.records[i]
            assert g.score == score and g.crawford == (name == "crawford")
            assert isinstance(g.rules, fastbg.MatchRules)


def test_lockstep_records_equal_the_in_kernel_records(runs):
    _, rec, _, kernel = runs
    for name in rec._ARRAYS:                    # the same games: the bots choose alike
        assert np.array_equal(getattr(rec, name), getattr(kernel, name)), name
    for part in ("rows", "row_off", "heads", "game_off"):
        assert np.array_equal(getattr(rec.records.arrays, part),
                              getattr(kernel.records.arrays, part)), part
    assert list(rec.records[:30]) == list(kernel.records[:30])


def test_lockstep_games_outgrowing_their_rows_are_played_again(monkeypatch):
    # 16 rows: most games overflow and are replayed alone in lock-step, with room enough
    n, kw = RUNS["money"]
    whole = fastbg.play(60, LOCKSTEP, record=True, **kw)
    monkeypatch.setattr(_games, "RECORD_ROWS", 16)
    small = fastbg.play(60, LOCKSTEP, record=True, **kw)
    assert (whole.plies > 10).sum() > 30
    for part in ("rows", "row_off", "heads", "game_off"):
        assert np.array_equal(getattr(small.records.arrays, part),
                              getattr(whole.records.arrays, part)), part


def test_lockstep_records_survive_mat_files(tmp_path):
    n, kw = RUNS["money"]
    res = fastbg.play(12, LOCKSTEP, record=True, **kw)
    session = fastbg.money_session(res.records)
    path = tmp_path / "lin-vs-random.mat"
    fastbg.write_mat(session, path)
    assert fastbg.read_mat(path, rules=MONEY) == session


def test_nply_bot_records(gnubg_net):
    """gnubg-1ply (an EvaluatorBot of n-ply scores) cubeless, and money with GNU
    Backgammon's 1-ply cube (its probabilities computed between lock-step rounds:
    lockstep_cube_rows)."""
    kw = dict(seed=3)
    rec = fastbg.play(4, ("gnubg-1ply", "pubeval"), record=True, **kw)
    _same_games(rec, fastbg.play(4, ("gnubg-1ply", "pubeval"), **kw))
    _check_against(rec)
    cube = gnubg_net.cube(0.68, ply=1)
    kw = dict(seed=27, rules=fastbg.MoneyRules(jacoby=False, beavers=True, raccoons=True),
              cube=(cube, cube), opening="reroll")
    rec = fastbg.play(6, ("pubeval", "pubeval"), record=True, **kw)
    _same_games(rec, fastbg.play(6, ("pubeval", "pubeval"), **kw))
    _check_against(rec)
    assert any(a.kind == "double" for g in rec.records for a in g.actions)


@pytest.mark.parametrize("cubeful", [False, True])
def test_lockstep_parts_side_by_side_play_the_same_games(gnubg_net, monkeypatch, cubeful):
    """With fastbg's own n-ply bots and cube only, a lock-step chunk of 16 games or more
    is played in one part per thread, each on its thread alone: the same games, records
    included, as one lock-step on one thread."""
    import numba
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("numba runs on one thread here: nothing runs side by side")
    kw = dict(seed=41, record=True)
    if cubeful:
        cube = gnubg_net.cube(0.68, ply=1)
        kw.update(rules=fastbg.MoneyRules(), cube=(cube, "race"))
    bots = ("gnubg-1ply-2x0.03", "pubeval")
    one = fastbg.play(20, bots, threads=1, **kw)
    parts = []
    real = _games._lockstep_parts
    monkeypatch.setattr(_games, "_lockstep_parts",
                        lambda st, game0, rows: parts.append(game0) or real(st, game0, rows))
    two = fastbg.play(20, bots, threads=2, **kw)
    assert parts, "the chunk was not shared out"
    for name in one._ARRAYS:
        assert np.array_equal(getattr(one, name), getattr(two, name)), name
    assert [g.moves for g in one.records] == [g.moves for g in two.records]
    assert [g.actions for g in one.records] == [g.actions for g in two.records]
    _check_against(two)
    # a Python bot of one's own is never called from two threads at once
    parts.clear()
    fastbg.play(20, (EvaluatorBot(linear_evaluator, "lin"), "pubeval"), threads=2, seed=3)
    assert not parts


def test_a_part_that_fails_stops_the_others_and_says_why(gnubg_net):
    """A side-by-side part whose bot raises (in the pool's thread, not the caller's): the
    caller's part stops at its next round and the error raised is the bot's own, not the
    caller's part's stop."""
    import itertools
    import threading
    import numba
    from fastbg.analysis.hints import NplyScorer
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("numba runs on one thread here: nothing runs side by side")
    calls = itertools.count()
    scorer = NplyScorer(gnubg_net, 1, filter=(2, 0.03))
    main_rounds = []

    class Failing:
        takes_segments = runs_side_by_side = True

        def __call__(self, rows, seg):
            if threading.current_thread() is threading.main_thread():
                main_rounds.append(1)
            elif next(calls) == 10:
                raise RuntimeError("the bot broke in the other part")
            return scorer(rows, seg)
    with pytest.raises(RuntimeError, match="other part"):
        fastbg.play(40, (EvaluatorBot(Failing(), "failing"), "pubeval"), threads=2, seed=1)
    assert main_rounds                  # both parts ran


def test_tournament_records_of_a_lockstep_pair():
    bots = [LOCKSTEP[0], "pubeval"]
    seed = fastbg.pair_seed(5, 0, 1)
    for speed in (False, True):          # speed: the pair is played by duels' lock-step loop
        res = fastbg.tournament(bots, games=6, seed=5, rules=fastbg.MoneyRules(),
                                record=True, speed=speed)
        first, second = res.records[(0, 1)]
        for seated, recs in (((bots[0], bots[1]), first), ((bots[1], bots[0]), second)):
            ref = fastbg.play(3, seated, seed=seed, rules=fastbg.MoneyRules(),
                              cube=("race", "race"), record=True)
            assert list(recs) == list(ref.records)
            assert len(recs) == 3
        # the records are the games the statistics count
        t = res._totals[(0, 1)]
        assert t["points"] == sum(g.points for g in first) - sum(g.points for g in second)
        assert t["plies"] == sum(len(g.moves) for g in first) + sum(len(g.moves)
                                                                    for g in second)


def test_cli_tournament_writes_lockstep_games(tmp_path, gnubg_net):
    pytest.importorskip("gnubg_nn", reason="gnubg-nn (the gnubg extra) is not installed")
    session = cli_money_session(tmp_path, "pubeval", "gnubg-nn", 2, 6)
    for g in session.games:
        check_game(g)
