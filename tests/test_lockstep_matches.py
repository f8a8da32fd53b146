"""Whole matches in lock-step (fastbg/sim/lockstep_matches.py): play_matches and match
tournaments with EvaluatorBot, the n-ply bots and n-ply cube strategies.

The reference is the in-kernel match driver: a lock-step bot that chooses exactly as an
in-kernel bot (test_play.py's linear scorer, in numpy and in numba) must give the very
same matches and records on the same seed, since each game's dice are keyed by (seed,
match, game of the match, ply) in both drivers and the score, the Crawford rule and the
cube at that score come from the same helpers.
"""
import json
import os

import numba
import numpy as np
import pytest
from click.testing import CliRunner

import fastbg
from fastbg import EvaluatorBot, ScorerBot
from fastbg.cli import main
from fastbg.sim import matches as _matches
from fastbg.sim import record_kernels as rk
from fastbg.sim.records import check_game
from test_cubeful_play import JANOWSKI
from test_play import linear_evaluator, linear_scorer

LIN_NUMPY = EvaluatorBot(linear_evaluator, "lin")
LIN_NUMBA = ScorerBot(linear_scorer, "lin")

# name: (matches, length, play_matches' keywords). "random" as the other bot: its
# choices are keyed by the game too (lockstep_choose with per-match keys).
RUNS = {
    "cubeless-3": (200, 3, dict(seed=41, cube=("never", "never"), match_offset=9)),
    "race-5": (150, 5, dict(seed=42, cube=("race", "race"))),
    "janowski-3": (120, 3, dict(seed=43, cube=JANOWSKI)),
    "no-crawford-3": (80, 3, dict(seed=44, cube=("race", "never"), crawford=False)),
}


def _same_matches(a, b):
    for name in ("winner", "games", "score"):
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and np.array_equal(x, y), name


def _same_records(a, b):
    for part in ("rows", "row_off", "heads", "game_off"):
        assert np.array_equal(getattr(a.records.arrays, part),
                              getattr(b.records.arrays, part)), part


@pytest.fixture(scope="module", params=list(RUNS))
def runs(request):
    """(name, lock-step recorded, lock-step plain, in-kernel recorded) of one run."""
    n, length, kw = RUNS[request.param]
    kw = dict(kw, threads=1)
    return (request.param,
            fastbg.play_matches(n, length, (LIN_NUMPY, "random"), record=True, **kw),
            fastbg.play_matches(n, length, (LIN_NUMPY, "random"), **kw),
            fastbg.play_matches(n, length, (LIN_NUMBA, "random"), record=True, **kw))


def test_lockstep_matches_equal_the_in_kernel_matches(runs):
    name, rec, plain, kernel = runs
    _same_matches(rec, kernel)
    _same_matches(plain, kernel)           # recording changes nothing
    assert plain.records is None
    _same_records(rec, kernel)
    assert list(rec.records[:20]) == list(kernel.records[:20])
    n, length, kw = RUNS[name]
    assert rec.length == length and rec.match_offset == kw.get("match_offset", 0)
    # the runs reach what they are meant to test: several games a match, the Crawford
    # game, doubles at match scores
    assert rec.games.mean() > 1.5 and (rec.score.max(axis=1) == length).all()
    heads = rec.records.arrays.heads
    assert heads[:, rk.H_CRAWFORD].any() == kw.get("crawford", True)
    if kw["cube"] != ("never", "never"):
        assert (heads[:, rk.H_CUBE] > 1).any()
    if kw["cube"] in (("race", "race"), JANOWSKI):
        assert heads[:, rk.H_DROPPED].any()


def test_lockstep_match_records_replay_legally(runs):
    name, rec, _, _ = runs
    n, length, kw = RUNS[name]
    crawford_rule = kw.get("crawford", True)
    for i, m in enumerate(rec.records[:15]):
        assert m.score == tuple(rec.score[i]) and m.winner == rec.winner[i]
        assert len(m.games) == rec.games[i] and m.match == rec.match_offset + i
        assert m.players == ("lin", "random") and m.rules.length == length
        score, done = [0, 0], False
        for j, g in enumerate(m.games):
            check_game(g, f"match {i} game {j}")
            assert g.score == tuple(score) and g.game == ((rec.match_offset + i) << 16) | j
            assert g.crawford == (crawford_rule and not done and length - 1 in score)
            if g.crawford:
                done = True
                assert not any(a.kind == "double" for a in g.actions)
            score[g.winner] = min(length, score[g.winner] + abs(g.points))
        assert tuple(score) == m.score


def test_lockstep_matches_do_not_depend_on_chunks_or_threads():
    n, length, kw = RUNS["race-5"]
    base = fastbg.play_matches(40, length, (LIN_NUMBA, "random"), threads=1, **kw)
    runs = [(1, 1), (1, 9)] + ([(2, 7)] if numba.config.NUMBA_NUM_THREADS >= 2 else [])
    for threads, chunk in runs:
        got = fastbg.play_matches(40, length, (LIN_NUMPY, "random"), threads=threads,
                                  chunk_size=chunk, **kw)
        _same_matches(got, base)
    part = fastbg.play_matches(20, length, (LIN_NUMPY, "random"), match_offset=20, threads=1,
                               **kw)
    for name in ("winner", "games", "score"):
        assert np.array_equal(getattr(part, name), getattr(base, name)[20:]), name


def test_lockstep_matches_outgrowing_their_rows_are_played_again(monkeypatch):
    n, length, kw = RUNS["race-5"]
    kw = dict(kw, threads=1)
    whole = fastbg.play_matches(30, length, (LIN_NUMPY, "random"), record=True, **kw)
    # 8 rows a point: nearly every match overflows its region and is played again alone
    monkeypatch.setattr(_matches, "RECORD_ROWS_PER_POINT", 8)
    small = fastbg.play_matches(30, length, (LIN_NUMPY, "random"), record=True, **kw)
    _same_matches(small, whole)
    _same_records(small, whole)


def test_lockstep_matches_interrupted_and_resumed(tmp_path):
    """Ctrl-C in an evaluator call keeps the finished chunks (in the journal); resume
    finishes the run as if it had not stopped."""
    n, length, kw = RUNS["cubeless-3"]
    kw = dict(kw, threads=1, chunk_size=10)
    whole = fastbg.play_matches(40, length, (LIN_NUMPY, "random"), **kw)
    calls = [0]

    def flaky(positions):
        calls[0] += 1
        if calls[0] == 400:
            raise KeyboardInterrupt
        return linear_evaluator(positions)

    path = tmp_path / "m.jsonl"
    part = fastbg.play_matches(40, length, (EvaluatorBot(flaky, "lin"), "random"), out=path,
                               **kw)
    assert part.partial and 0 < len(part) < 40 and len(part) % 10 == 0
    assert len(path.read_text().splitlines()) == 1 + len(part) // 10
    _same_matches(part, fastbg.play_matches(len(part), length, (LIN_NUMPY, "random"), **kw))
    done = fastbg.play_matches(40, length, (LIN_NUMPY, "random"), out=path, resume=True,
                               **kw)
    assert not done.partial
    _same_matches(done, whole)


def test_nply_bot_and_cube_in_matches(gnubg_net):
    """gnubg-1ply in 3-point matches, and GNU Backgammon's 1-ply cube (a batch cube
    strategy, evaluated between rounds per score) at match scores."""
    kw = dict(seed=3, threads=1)
    rec = fastbg.play_matches(2, 3, ("gnubg-1ply", "pubeval"), record=True, **kw)
    _same_matches(rec, fastbg.play_matches(2, 3, ("gnubg-1ply", "pubeval"), **kw))
    for i, m in enumerate(rec.records):
        assert m.players == ("gnubg-1ply", "pubeval") and m.score == tuple(rec.score[i])
        for g in m.games:
            check_game(g)
    cube = gnubg_net.cube(0.68, ply=1)
    kw = dict(seed=8, threads=1, cube=(cube, cube))
    rec = fastbg.play_matches(2, 3, ("pubeval", "pubeval"), record=True, **kw)
    _same_matches(rec, fastbg.play_matches(2, 3, ("pubeval", "pubeval"), **kw))
    games = [g for m in rec.records for g in m.games]
    for g in games:
        check_game(g)
    assert any(a.kind == "double" for g in games for a in g.actions)


def test_match_tournament_with_a_lockstep_bot():
    seed = fastbg.pair_seed(5, 0, 1)
    res = fastbg.tournament([LIN_NUMPY, "pubeval"], games=6, seed=5, match_length=3,
                            threads=1, record=True)
    kernel = fastbg.tournament([LIN_NUMBA, "pubeval"], games=6, seed=5, match_length=3,
                               threads=1)
    assert res.pairs == kernel.pairs and res.bots == kernel.bots
    first, second = res.records[(0, 1)]
    ref = fastbg.play_matches(3, 3, (LIN_NUMPY, "pubeval"), seed=seed, threads=1,
                              record=True)
    assert list(first) == list(ref.records) and len(second) == 3
    with pytest.raises(ValueError, match="not timed"):
        fastbg.tournament([LIN_NUMPY, "pubeval"], games=2, match_length=3, speed=True)


def test_cli_match_tournament_and_play_with_a_lockstep_bot(tmp_path, gnubg_net):
    out = tmp_path / "mat"
    r = CliRunner().invoke(main, ["tournament", "--bots", "gnubg-1ply,pubeval", "--games",
                                  "2", "--seed", "6", "--match", "3", "--no-progress",
                                  "--threads", "1", "--mat", str(out)])
    assert r.exit_code == 0, r.output
    assert sorted(os.listdir(out)) == ["gnubg-1ply-vs-pubeval-00001.mat",
                                       "pubeval-vs-gnubg-1ply-00001.mat"]
    ref = fastbg.play_matches(1, 3, ("gnubg-1ply", "pubeval"), seed=fastbg.pair_seed(6, 0, 1),
                              threads=1, record=True)
    assert fastbg.read_mat(out / "gnubg-1ply-vs-pubeval-00001.mat") == ref.records[0]
    path = tmp_path / "p.json"
    r = CliRunner().invoke(main, ["play", "--bots", "gnubg-1ply,pubeval", "--match", "3",
                                  "--games", "1", "--seed", "6", "--no-progress",
                                  "--threads", "1", "--json", str(path)])
    assert r.exit_code == 0, r.output
    got = json.loads(path.read_text())
    assert got["bots"] == ["gnubg-1ply", "pubeval"]
