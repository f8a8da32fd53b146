"""The built-in race evaluator (fastbg.evaluators.race; its kernels in
fastbg/evaluators/race_kernels.py).

* A plain-Python reference of the formula, written from the kernel module's docstring, is
  compared with the kernel (single and batch) on hypothesis positions.
* Properties: probabilities in [0, 1] and ordered (win >= wg >= wbg, 1 - win >= lg >= lbg);
  monotone in pips (moving a checker back never helps its side); the flip identity of
  race_win and "being on roll is worth something" under flip; finished positions exact.
* Input validation, thread-count independence, and a money session of pubeval games with the
  race Janowski cube on both sides (doubles happen; the run is reproducible).
"""
import json
import math
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastbg
from fastbg.evaluators import race_kernels as ev
from fastbg.evaluators.race import (RaceEvaluator, race_cube, race_evaluator,
                               race_probabilities, race_probabilities_kernel)
from strategies import positions

WIN, WG, WBG, LG, LBG = range(5)
TOL = 1e-12


# ---- a slow, obviously-correct reference ------------------------------------------------

def ref_race_win(a, b):
    """Kleinman's normal model with S = a + b: Phi(D / sqrt(2 S)), D = b - a + 4."""
    if a <= 0:
        return 1.0
    if b <= 0:
        return 0.0
    d = b - a + 4.0
    z = d / math.sqrt(2.0 * (a + b))
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


def ref_side(board, side):
    """{own point: count} of side 0 (mover) or 1 (opponent); point 25 is the bar."""
    b = [int(x) for x in board]
    if side == 0:
        return {p: b[p] for p in range(1, 26) if b[p] > 0}
    return {25 - i: -b[i] for i in range(0, 25) if b[i] < 0}


def ref_counts(checkers):
    on = sum(checkers.values())
    pips = sum(p * n for p, n in checkers.items())
    if not on:
        return on, pips, 0, 0
    gammon = sum((p - 6) * n for p, n in checkers.items() if p > 6) + min(min(checkers), 6)
    bg = sum((p - 18) * n for p, n in checkers.items() if p > 18)
    return on, pips, gammon, bg


def ref_probs(board):
    on_m, pm, gm, bm = ref_counts(ref_side(board, 0))
    on_o, po, go, bo = ref_counts(ref_side(board, 1))
    out = [0.0] * 5
    out[WIN] = ref_race_win(pm, po)
    if on_m == 0:
        out[WG] = float(on_o == 15)
        out[WBG] = float(on_o == 15 and bo > 0)
        return out
    if on_o == 0:
        out[LG] = float(on_m == 15)
        out[LBG] = float(on_m == 15 and bm > 0)
        return out
    if on_o == 15:
        out[WG] = ref_race_win(pm, go)
        out[WBG] = ref_race_win(pm, bo) if bo > 0 else 0.0
    if on_m == 15:
        out[LG] = 1.0 - ref_race_win(gm, po)
        out[LBG] = 1.0 - ref_race_win(bm, po) if bm > 0 else 0.0
    return out


def board_of(mine, theirs, bar=0, opp_bar=0):
    """Board from {point: count} dicts, both in the MOVER's numbering."""
    b = np.zeros(26, np.int8)
    for p, n in mine.items():
        b[p] += n
    for p, n in theirs.items():
        assert b[p] == 0
        b[p] -= n
    b[25], b[0] = bar, -opp_bar
    return b


def single(board):
    out = np.full(5, np.nan)
    race_probabilities_kernel(np.ascontiguousarray(board, np.int8), out)
    return out


def check_ranges(p):
    assert np.all(p >= 0.0) and np.all(p <= 1.0), p
    assert p[WIN] + TOL >= p[WG] and p[WG] + TOL >= p[WBG], p
    assert 1.0 - p[WIN] + TOL >= p[LG] and p[LG] + TOL >= p[LBG], p


# ---- the formula ------------------------------------------------------------------------

def test_kleinman_examples():
    # Kleinman's examples (S = a + b here, a + b - 4 in his): 100 on roll vs 113 and 106.
    assert ev.race_win(100, 113) == pytest.approx(0.797, abs=0.003)
    assert ev.race_win(100, 106) == pytest.approx(0.688, abs=0.003)
    assert ev.race_win(100, 100) > 0.5          # the roll in hand
    assert ev.race_win(0, 5) == 1.0 and ev.race_win(5, 0) == 0.0


def test_race_win_flip_identity_and_monotone():
    for a in range(1, 200, 3):
        for b in range(1, 200, 7):
            w = ev.race_win(a, b)
            assert w == pytest.approx(ref_race_win(a, b), abs=TOL)
            if a > 4:
                assert w + ev.race_win(b + 4, a - 4) == pytest.approx(1.0, abs=TOL)
            assert ev.race_win(a + 1, b) <= w + TOL        # more pips to go: worse
            assert ev.race_win(a, b + 1) >= w - TOL        # opponent further back: better
            assert ev.race_win(a, b) + ev.race_win(b, a) >= 1.0 - TOL  # being on roll helps


def test_start_and_hand_positions():
    p = single(fastbg.START)
    assert 0.5 < p[WIN] < 0.6
    check_ranges(p)
    # A bear-off race at 69 pips each, all 15 checkers a side home: no gammons to speak of.
    b = board_of({6: 4, 5: 4, 4: 4, 3: 3}, {19: 4, 20: 4, 21: 4, 22: 3})
    p = single(b)
    assert p[WIN] > 0.5 and p[WG] < 1e-6 and p[LG] < 1e-6
    # Gammon chances: the opponent has 15 checkers on his 13-point (mover's 12) and the mover
    # one checker on his 6-point, 14 off: a near-certain gammon, no backgammon possible.
    p = single(board_of({6: 1}, {12: 15}))
    assert p[WIN] > 0.99 and p[WG] > 0.99 and p[WBG] == 0.0 and p[LG] == 0.0
    # Backgammon: an opponent checker still in the mover's home board (his 19-point).
    p = single(board_of({2: 1}, {3: 1, 12: 14}))
    assert p[WBG] > 0.9
    # The mover has borne off: he cannot lose a gammon; the opponent has: no gammon win.
    p = single(board_of({6: 3}, {19: 3}))
    assert p[WG] == p[WBG] == p[LG] == p[LBG] == 0.0


def test_finished_positions_are_exact():
    # The mover has no checker left: he has won; the kind follows docs/rules.md section 7.
    assert list(single(board_of({}, {12: 15}))) == [1, 1, 0, 0, 0]
    assert list(single(board_of({}, {3: 1, 12: 14}))) == [1, 1, 1, 0, 0]
    assert list(single(board_of({}, {12: 14}))) == [1, 0, 0, 0, 0]
    assert list(single(board_of({}, {12: 14}, opp_bar=1))) == [1, 1, 1, 0, 0]
    # The opponent has no checker left: the mover has lost.
    assert list(single(board_of({12: 15}, {}))) == [0, 0, 0, 1, 0]
    assert list(single(board_of({22: 1, 12: 14}, {}))) == [0, 0, 0, 1, 1]
    assert list(single(board_of({12: 14}, {}, bar=1))) == [0, 0, 0, 1, 1]
    assert list(single(board_of({12: 3}, {}))) == [0, 0, 0, 0, 0]


@settings(max_examples=400, deadline=None)
@given(positions())
def test_matches_reference_and_ranges(board):
    p = single(board)
    assert np.allclose(p, ref_probs(board), atol=1e-12, rtol=0), (board, p, ref_probs(board))
    check_ranges(p)


@settings(max_examples=300, deadline=None)
@given(positions())
def test_on_roll_is_worth_something_under_flip(board):
    p, q = single(board), single(fastbg.flip(board))
    assert p[WIN] + q[WIN] >= 1.0 - TOL
    assert p[WG] + TOL >= q[LG] and q[WG] + TOL >= p[LG]
    assert p[WBG] + TOL >= q[LBG] and q[WBG] + TOL >= p[LBG]


@settings(max_examples=300, deadline=None)
@given(positions(), st.data())
def test_monotone_in_pips(board, data):
    """Moving one checker a point further back never helps the side that owns it."""
    p = single(board)
    mine = [q for q in range(1, 25) if board[q] > 0 and board[q + 1] >= 0]
    theirs = [q for q in range(1, 25) if board[q] < 0 and board[q - 1] <= 0]
    if mine:
        q = data.draw(st.sampled_from(mine))
        b = board.copy()
        b[q] -= 1
        b[q + 1] += 1                                   # the mover's checker one pip back
        r = single(b)
        assert r[WIN] <= p[WIN] + TOL and r[WG] <= p[WG] + TOL and r[WBG] <= p[WBG] + TOL
        assert r[LG] + TOL >= p[LG] and r[LBG] + TOL >= p[LBG]
    if theirs:
        q = data.draw(st.sampled_from(theirs))
        b = board.copy()
        b[q] += 1
        b[q - 1] -= 1                                   # the opponent's checker one pip back
        r = single(b)
        assert r[WIN] + TOL >= p[WIN] and r[WG] + TOL >= p[WG] and r[WBG] + TOL >= p[WBG]
        assert r[LG] <= p[LG] + TOL and r[LBG] <= p[LBG] + TOL


def test_monotone_in_pip_difference_one_checker_each():
    opp = board_of({}, {19: 1})
    wins = []
    for q in range(1, 19):
        b = opp.copy()
        b[q] = 1
        wins.append(single(b)[WIN])
    assert all(x >= y for x, y in zip(wins, wins[1:]))
    assert wins[0] > 0.5 > wins[-1]


# ---- the public wrappers ----------------------------------------------------------------

def _sample_boards(n, seed=7):
    """Boards from self-play: positions of real games, every shape from opening to bear-off."""
    rng = np.random.default_rng(seed)
    boards = [fastbg.START.copy()]
    b = fastbg.START.copy()
    while len(boards) < n:
        moves = fastbg.legal_moves(b, tuple(int(x) for x in rng.integers(1, 7, 2)))
        b = moves[rng.integers(len(moves))]
        if (b[1:26] > 0).sum() == 0:
            b = fastbg.START.copy()
            continue
        b = fastbg.flip(b)
        boards.append(b)
    return np.stack(boards)


def test_batch_equals_single_and_threads():
    boards = _sample_boards(400)
    want = np.stack([single(b) for b in boards])
    got = race_probabilities(boards)
    assert got.shape == (400, 5) and got.dtype == np.float64
    assert np.array_equal(got, want)
    assert np.array_equal(race_evaluator()(boards), want)
    assert np.array_equal(race_evaluator(threads=1)(boards), want)
    assert np.array_equal(race_probabilities(boards[3]), want[3])
    assert race_probabilities(boards[:0]).shape == (0, 5)
    # Accepts other integer dtypes and lists.
    assert np.array_equal(race_probabilities(boards.astype(np.int64)), want)
    assert np.array_equal(race_probabilities(boards[5].tolist()), want[5])


@pytest.mark.parametrize("bad, match", [
    (np.zeros(25, np.int8), "shape"),
    (np.zeros((2, 3, 26), np.int8), "shape"),
    (np.zeros(26, np.float64), "integers"),
    (np.where(np.arange(26) == 25, -1, 0).astype(np.int8), "bar"),
    (np.where(np.arange(26) == 6, 16, 0).astype(np.int8), "15"),
])
def test_validation(bad, match):
    with pytest.raises(ValueError, match=match):
        race_probabilities(bad)
    with pytest.raises(ValueError, match=match):
        race_evaluator()(bad)


def test_bad_threads_and_cube_efficiency():
    with pytest.raises(ValueError, match="threads"):
        race_evaluator(threads=0)
    with pytest.raises(ValueError, match="threads"):
        race_probabilities(fastbg.START, threads=-1)
    with pytest.raises(ValueError, match="efficiency"):
        race_cube(x=1.5)
    cube = race_cube(0.5)
    assert isinstance(cube, fastbg.JanowskiCube) and cube.x == 0.5
    assert cube.probs is race_probabilities_kernel and cube.name == "race-janowski"
    assert isinstance(race_evaluator(), RaceEvaluator)


NOJIT_SCRIPT = """
import sys, numpy as np
from fastbg.evaluators import race_probabilities
from test_evaluators import _sample_boards
b = _sample_boards(300, seed=3)
np.save(sys.argv[1] + "/boards.npy", b)
np.save(sys.argv[1] + "/out.npy", race_probabilities(b))
"""


def test_kernels_run_as_plain_python(nojit):
    """Under NUMBA_DISABLE_JIT=1 (one subprocess, tests/conftest.py) the kernels give the
    jitted numbers."""
    assert nojit.returncode == 0, nojit.stdout[-3000:]
    boards = np.load(nojit.dir / "boards.npy")
    assert np.array_equal(boards, _sample_boards(300, seed=3))
    assert np.allclose(np.load(nojit.dir / "out.npy"), race_probabilities(boards),
                       atol=1e-15, rtol=0)


def test_money_session_with_race_cube():
    kw = dict(rules=fastbg.MoneyRules(beavers=True), cube=(race_cube(), race_cube()), seed=3)
    res = fastbg.play(2000, ("pubeval", "pubeval"), **kw)
    assert res.n_games == 2000
    assert np.any(res.cube > 1)                     # somebody doubled (and it was taken)
    assert np.any(res.dropped)                      # somebody dropped a double
    assert set(np.unique(res.cube)) <= {1, 2, 4, 8, 16, 32, 64}
    # A dropped double pays the stake before it; a game played out with the cube turned pays
    # cube x kind (Jacoby: with the cube never turned, a single).
    pts, drop = np.abs(res.points), res.dropped
    assert np.array_equal(pts[drop], res.cube[drop])
    turned = ~drop & (res.cube > 1)
    assert turned.any()
    assert np.array_equal(pts[turned], (res.cube * res.kind)[turned])
    assert np.all(pts[~drop & (res.cube == 1)] == 1)
    again = fastbg.play(2000, ("pubeval", "pubeval"), **kw)
    for name in ("winner", "kind", "points", "plies", "cube", "dropped"):
        assert np.array_equal(getattr(res, name), getattr(again, name)), name


def test_race_cube_game_kernel_loads_from_the_disk_cache():
    """The race formula's Janowski strategy is a marker type of the game kernels, not a
    numba function passed in (a type numba cannot cache across processes): a new process
    loads the kernel this one compiled instead of compiling it again."""
    kw = dict(rules=fastbg.MoneyRules(), cube=(race_cube(), race_cube()), seed=1)
    here = fastbg.play(50, ("pubeval", "pubeval"), **kw)
    code = ("import json, fastbg\n"
            "from fastbg.evaluators import race_cube\n"
            "from fastbg.sim import game_kernels\n"
            "r = fastbg.play(50, ('pubeval', 'pubeval'), rules=fastbg.MoneyRules(),\n"
            "                cube=(race_cube(), race_cube()), seed=1)\n"
            "s = game_kernels.play_games.stats\n"
            "print(json.dumps([sum(s.cache_misses.values()), sum(s.cache_hits.values()),\n"
            "                  r.points.tolist()]))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    misses, hits, points = json.loads(out.stdout.strip().splitlines()[-1])
    assert (misses, hits) == (0, 1)
    assert points == here.points.tolist()
