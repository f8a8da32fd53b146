"""Game play (``fastbg.play``): the kernel against the slow reference game player
(tests/reference/game.py), reproducibility over threads, chunks and shards, the statistics of
known matchups, results bookkeeping, plug-in bots and bad input.

About the reference comparison: the kernel plays the first highest-scoring candidate in its
own candidate order. pubeval almost never ties, so pubeval-vs-pubeval games are compared with
the reference on its own. The greedy heuristic ties between different results in nearly every
game (few, coarse features), so games with greedy or random bots are replayed with the
candidates in the kernel's order, taken from ``fastbg.legal_moves``; the reference checks at
every ply that they are exactly the set ``legal_moves_ref`` finds, and computes dice, scores,
choices, turns and win kinds itself.
"""
import dataclasses
import json
import math

import numba
import numpy as np
import pytest

import fastbg
from fastbg import BotError, EvaluatorBot, GameResults, JanowskiCube, MoneyRules, ScorerBot
from fastbg.sim import game_kernels as _kplay
from fastbg.sim import policy_kernels as _kpol
from reference import game as ref
from reference.game import play_game_ref
from reference.movegen import make_board

FIELDS = ("winner", "kind", "points", "plies", "first")
DTYPES = {"winner": np.int8, "kind": np.int8, "points": np.int32, "plies": np.int16,
          "first": np.int8, "cube": np.int32, "dropped": np.bool_}
MAX_AMBIGUOUS = 0.03          # share of games the reference may give up on (exact ties)

# A middle-game position, the mover (the side on roll) to play; mover's numbering.
#   mover:     24:1  13:4  8:3  6:5  5:2
#   opponent:   1:2  12:4 17:3 19:5 20:1
MIDGAME = np.array(make_board(mine={24: 1, 13: 4, 8: 3, 6: 5, 5: 2},
                              theirs={1: 2, 12: 4, 17: 3, 19: 5, 20: 1}), np.int8)
# A bear-off the mover wins in one or two rolls, the opponent with nothing off and one checker
# still in the mover's home board: a backgammon if it stays there, else a gammon. A race.
#   mover:      1:1   2:1   3:1      (12 borne off)
#   opponent:   6:1  10:14
BEAROFF = np.array(make_board(mine={1: 1, 2: 1, 3: 1}, theirs={6: 1, 10: 14}), np.int8)


def kernel_order(board, dice):
    """The candidates of (board, dice) in the kernel's order (the reference checks the set)."""
    return fastbg.legal_moves(np.array(board, np.int8), dice)


def row(res, i):
    return tuple(int(getattr(res, f)[i]) for f in ("winner", "kind", "plies", "first"))


def compare_with_reference(res, bots, opening="use", start=None, order=None, n=None):
    """(mismatches, ambiguous count) of the first ``n`` games of ``res`` against the reference."""
    mismatches, ambiguous = [], 0
    n = res.n_games if n is None else n
    for i in range(n):
        game = res.game_offset + i
        r = play_game_ref(res.seed, game, bots, opening=opening, start=start, order=order)
        if r["ambiguous"]:
            ambiguous += 1
            continue
        want = (r["winner"], r["kind"], r["plies"], r["first"])
        if row(res, i) != want:
            mismatches.append((game, row(res, i), want))
    return mismatches, ambiguous


def assert_matches_reference(res, bots, n=None, **kw):
    n = res.n_games if n is None else n
    mismatches, ambiguous = compare_with_reference(res, bots, n=n, **kw)
    assert not mismatches, f"(game, kernel, reference) winner/kind/plies/first: {mismatches[:5]}"
    assert ambiguous <= MAX_AMBIGUOUS * n, f"{ambiguous} of {n} games ambiguous"


def assert_same(a, b):
    for f in FIELDS:
        x, y = getattr(a, f), getattr(b, f)
        assert x.dtype == y.dtype and np.array_equal(x, y), f
    assert (a.bots, a.seed, a.game_offset, a.n_games) == (b.bots, b.seed, b.game_offset, b.n_games)


# ---- the kernel against the reference -------------------------------------------------

@pytest.mark.parametrize("opening", ["use", "reroll"])
def test_pubeval_vs_pubeval_matches_reference(opening):
    res = fastbg.play(100, ("pubeval", "pubeval"), seed=101, opening=opening)
    assert_matches_reference(res, ("pubeval", "pubeval"), opening=opening)


@pytest.mark.parametrize("opening", ["use", "reroll"])
@pytest.mark.parametrize("bots", [("pubeval", "greedy"), ("greedy", "pubeval")])
def test_pubeval_greedy_matches_reference(bots, opening):
    res = fastbg.play(100, bots, seed=202, opening=opening, game_offset=5000)
    assert_matches_reference(res, bots, opening=opening, order=kernel_order)


def test_greedy_ties_are_why_the_kernel_order_is_needed():
    # Without the kernel's candidate order the reference cannot replay greedy games: they
    # tie between different results almost at once. (If this stops holding, the comparison
    # above could drop ``order``.)
    _, ambiguous = compare_with_reference(fastbg.play(10, ("greedy", "greedy"), seed=3),
                                          ("greedy", "greedy"))
    assert ambiguous >= 8


@pytest.mark.parametrize("bots", [("random", "random"), ("random", "pubeval")])
def test_random_bot_matches_reference(bots):
    res = fastbg.play(40, bots, seed=303, opening="reroll")
    assert_matches_reference(res, bots, order=kernel_order, opening="reroll")


@pytest.mark.parametrize("start, side", [(MIDGAME, 0), (MIDGAME, 1), (BEAROFF, 0), (BEAROFF, 1)])
def test_start_position_matches_reference(start, side):
    bots = ("pubeval", "greedy")
    res = fastbg.play(50, bots, seed=404, start=(start, side))
    assert np.all(res.first == side)
    assert_matches_reference(res, bots, start=(start, side), order=kernel_order)
    if start is BEAROFF and side == 0:
        assert 3 in res.kind and 1 not in res.kind    # backgammons; no singles from here


def test_start_board_alone_means_bot0_on_roll():
    a = fastbg.play(30, ("greedy", "pubeval"), seed=9, start=MIDGAME)
    b = fastbg.play(30, ("greedy", "pubeval"), seed=9, start=(MIDGAME, 0))
    assert_same(a, b)
    assert np.all(a.first == 0)


def test_large_game_offset_matches_reference():
    res = fastbg.play(30, ("pubeval", "pubeval"), seed=7, game_offset=2**63 - 1 - 30)
    assert_matches_reference(res, ("pubeval", "pubeval"))


def test_largest_seed_matches_reference():
    fastbg.play(2, ("pubeval", "pubeval"), seed=0)          # an int64 seed compiles first
    res = fastbg.play(30, ("pubeval", "pubeval"), seed=2**64 - 1, game_offset=2**63 - 1 - 30)
    assert res.seed == 2**64 - 1
    assert_matches_reference(res, ("pubeval", "pubeval"))


def test_first_player_is_the_opening_roll():
    res = fastbg.play(300, ("random", "random"), seed=55)
    want = [ref.opening_roll(55, g)[0] for g in range(300)]
    assert res.first.tolist() == want
    assert ref.START == tuple(int(x) for x in fastbg.START)


def test_win_kind_kernel_equals_reference():
    # The mover has just borne off his last checker.
    cases = [
        (make_board(theirs={3: 14}), 1),                       # the loser has one off
        (make_board(theirs={7: 15}), 2),                       # none off, none in home: gammon
        (make_board(theirs={24: 10, 12: 5}), 2),
        (make_board(theirs={6: 1, 20: 14}), 3),                # one in the winner's home board
        (make_board(theirs={1: 15}), 3),
        (make_board(theirs={20: 14}, opp_bar=1), 3),           # one on the bar
        (make_board(theirs={5: 13}), 1),                       # in home but some off: single
    ]
    for board, kind in cases:
        assert ref.win_kind(board) == kind, board
        assert _kplay.win_kind(np.array(board, np.int8)) == kind, board


def test_reference_scores_equal_kernel_scores():
    # pubeval dense (122 inputs) against the folded tables, greedy against the kernel's,
    # on the positions of a few random games; the race/contact switch on both.
    point, extra = fastbg.sim.bots.pubeval_tables()
    rng = np.random.default_rng(5)
    seen_race = seen_contact = 0
    for game in range(6):
        board = ref.START
        for ply in range(400):
            cands = ref.legal_moves_ref(board, ref.roll(17, game, ply))
            race = ref.is_race(board)
            seen_race += race
            seen_contact += not race
            assert race == _kpol.is_race(np.array(board, np.int8))
            rows, _ = ref.pubeval_inputs_rows(cands)
            assert rows.tolist() == [ref.pubeval_inputs(c) for c in cands]
            assert np.allclose(ref.pubeval_scores(cands, race),
                               [ref.pubeval_score(c, race) for c in cands], rtol=1e-12, atol=0)
            for c in cands:
                arr = np.array(c, np.int8)
                got = _kpol.pubeval_score(arr, point, extra, 0 if race else 1)
                assert math.isclose(got, ref.pubeval_score(c, race), rel_tol=1e-12, abs_tol=1e-12)
                assert math.isclose(_kpol.greedy_score(arr), ref.greedy_score(c),
                                    rel_tol=1e-12, abs_tol=1e-12)
            board = cands[int(rng.integers(len(cands)))]
            if ref.mover_count(board) == 0:
                break
            board = ref.flip(board)
    assert seen_race > 10 and seen_contact > 100


# ---- reproducibility -----------------------------------------------------------------

REPRO_BOTS = [("random", "random"), ("pubeval", "greedy"), ("greedy", "random")]


@pytest.mark.parametrize("bots", REPRO_BOTS)
def test_thread_count_independent(bots):
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("numba runs on one thread here")
    one = fastbg.play(800, bots, seed=61, threads=1)
    two = fastbg.play(800, bots, seed=61, threads=2)
    assert_same(one, two)


@pytest.mark.parametrize("bots", REPRO_BOTS)
def test_chunk_size_independent(bots):
    default = fastbg.play(150, bots, seed=62, game_offset=10)
    for chunk in (1, 7, 149, 150, 1000):
        assert_same(default, fastbg.play(150, bots, seed=62, game_offset=10, chunk_size=chunk))


@pytest.mark.parametrize("bots", REPRO_BOTS)
def test_shards_independent(bots):
    whole = fastbg.play(600, bots, seed=63, game_offset=1000)
    parts = [fastbg.play(n, bots, seed=63, game_offset=off, threads=t)
             for n, off, t in ((250, 1000, 1), (1, 1250, None), (349, 1251, None))]
    joined = GameResults.concat(parts)
    assert_same(whole, joined)
    assert joined.game_offset == 1000 and not joined.partial


def test_seed_changes_games():
    a = fastbg.play(200, ("pubeval", "greedy"), seed=1)
    b = fastbg.play(200, ("pubeval", "greedy"), seed=2)
    assert not np.array_equal(a.plies, b.plies)


# ---- debug mode ------------------------------------------------------------------------

@pytest.mark.parametrize("bots", [("random", "pubeval"), ("greedy", "random"),
                                  ("pubeval", "greedy")])
def test_debug_mode_clean(bots):
    plain = fastbg.play(400, bots, seed=71)
    checked = fastbg.play(400, bots, seed=71, debug=True)
    assert_same(plain, checked)
    start = fastbg.play(100, bots, seed=71, start=(MIDGAME, 1), debug=True)
    assert len(start) == 100


# ---- statistics --------------------------------------------------------------------------

def test_random_play_statistics():
    res = fastbg.play(20_000, ("random", "random"), seed=2026)
    s = res.summary()
    assert 94 <= s["mean_plies"] <= 98, s
    assert s["gammon_rate"] > 0.10 and s["backgammon_rate"] > 0.10, s
    assert abs(s["points_per_game"]) < 0.1, s
    first_view = np.where(res.first == 0, res.points, -res.points).astype(float)
    assert abs(first_view.mean()) < 0.1, first_view.mean()
    assert 0.47 < np.mean(res.winner == res.first) < 0.55
    assert abs(np.mean(res.first == 0) - 0.5) < 0.02


def test_pubeval_beats_random():
    s = fastbg.play(3000, ("pubeval", "random"), seed=81).summary()
    assert s["points_per_game"] > 1.5 and s["win_rate"][0] > 0.9, s
    s = fastbg.play(3000, ("random", "pubeval"), seed=82).summary()
    assert s["points_per_game"] < -1.5, s


def test_greedy_beats_random():
    s = fastbg.play(3000, ("greedy", "random"), seed=83).summary()
    assert s["points_per_game"] > 0.5 and s["points_per_game_ci95"][0] > 0, s


def test_pubeval_vs_itself_is_even():
    s = fastbg.play(4000, ("pubeval", "pubeval"), seed=84).summary()
    lo, hi = s["points_per_game_ci95"]
    assert lo <= 0 <= hi or abs(s["points_per_game"]) < 0.1, s


# ---- results bookkeeping -----------------------------------------------------------------

@pytest.fixture(scope="module")
def mixed():
    return fastbg.play(3000, ("pubeval", "random"), seed=91, game_offset=17)


def test_points_and_fields_consistent(mixed):
    res = mixed
    for f, dt in DTYPES.items():
        assert getattr(res, f).dtype == dt and getattr(res, f).shape == (3000,), f
    assert set(np.unique(res.kind).tolist()) == {1, 2, 3}
    assert set(np.unique(res.winner).tolist()) <= {0, 1}
    assert set(np.unique(res.first).tolist()) == {0, 1}
    sign = np.where(res.winner == 0, 1, -1)
    assert np.array_equal(res.points, sign * res.kind)
    assert np.all(res.plies >= 1)
    # sides alternate from the first mover and the winner made the last move
    assert np.array_equal(res.winner == res.first, res.plies % 2 == 1)
    assert res.bots == ("pubeval", "random") and res.seed == 91 and res.game_offset == 17
    assert not res.partial and len(res) == res.n_games == 3000


def test_summary_consistent(mixed):
    res = mixed
    s = res.summary()
    pts = res.points.astype(float)
    assert s["games"] == 3000 and s["bots"] == ["pubeval", "random"] and s["seed"] == 91
    assert s["win_rate"][0] == pytest.approx(np.mean(res.winner == 0))
    assert s["win_rate"][0] + s["win_rate"][1] == pytest.approx(1.0)
    assert s["points_per_game"] == pytest.approx(pts.mean())
    lo, hi = s["points_per_game_ci95"]
    half = 1.96 * pts.std(ddof=1) / math.sqrt(3000)
    assert lo == pytest.approx(pts.mean() - half) and hi == pytest.approx(pts.mean() + half)
    assert s["gammon_rate"] == pytest.approx(np.mean(res.kind == 2))
    assert s["backgammon_rate"] == pytest.approx(np.mean(res.kind == 3))
    assert s["mean_plies"] == pytest.approx(res.plies.mean())
    assert s["partial"] is False
    assert "pubeval (0) vs random (1)" in res.table() and str(res) == res.table()


def test_save_load_round_trip(mixed, tmp_path):
    for res in (mixed, dataclasses.replace(mixed, seed=2**64 - 1, partial=True)):
        path = tmp_path / "games.npz"
        res.save(path)
        back = GameResults.load(path)
        assert_same(res, back)
        assert back.partial == res.partial and back.seed == res.seed


def test_concat_rejects_bad_shards():
    a = fastbg.play(10, ("random", "random"), seed=5)
    gap = fastbg.play(10, ("random", "random"), seed=5, game_offset=11)
    overlap = fastbg.play(10, ("random", "random"), seed=5, game_offset=9)
    other_seed = fastbg.play(10, ("random", "random"), seed=6, game_offset=10)
    other_bots = fastbg.play(10, ("random", "greedy"), seed=5, game_offset=10)
    for b in (gap, overlap, other_seed, other_bots):
        with pytest.raises(ValueError):
            GameResults.concat([a, b])
    with pytest.raises(ValueError):
        GameResults.concat([gap, a])                          # out of order
    with pytest.raises(ValueError):
        GameResults.concat([])
    good = fastbg.play(10, ("random", "random"), seed=5, game_offset=10)
    assert_same(GameResults.concat([a, good]), fastbg.play(20, ("random", "random"), seed=5))


def test_zero_games():
    res = fastbg.play(0, ("pubeval", "greedy"), seed=3)
    assert len(res) == 0
    for f, dt in DTYPES.items():
        assert getattr(res, f).shape == (0,) and getattr(res, f).dtype == dt
    s = res.summary()
    assert s["games"] == 0 and math.isnan(s["points_per_game"])
    res = fastbg.play(0, (EvaluatorBot(lambda x: np.zeros(len(x)), "zero"), "random"))
    assert len(res) == 0


# ---- plug-in bots ----------------------------------------------------------------------

# Integer weights: every score is an exact sum, so the numba and numpy scorers agree to the
# bit and choose the same candidate, ties included (the first in the candidate order).
W = np.random.default_rng(12).integers(-40, 41, 26).astype(np.float64)


@numba.njit
def linear_scorer(before, cands, out):
    for i in range(cands.shape[0]):
        s = 0.0
        for p in range(26):
            s += W[p] * cands[i, p]
        out[i] = s


def linear_evaluator(positions):
    return positions.astype(np.float64) @ W


def linear_ref(before, cands):
    return [sum(float(w) * x for w, x in zip(W, c)) for c in cands]


@numba.njit
def greedy_scorer(before, cands, out):
    for i in range(cands.shape[0]):
        out[i] = _kpol.greedy_score(cands[i])


@numba.njit
def nan_scorer(before, cands, out):
    for i in range(cands.shape[0]):
        out[i] = np.nan


def test_scorer_and_evaluator_play_identical_games():
    scorer = fastbg.play(300, (ScorerBot(linear_scorer, "lin"), "greedy"), seed=111)
    evaluator = fastbg.play(300, (EvaluatorBot(linear_evaluator, "lin"), "greedy"), seed=111)
    assert_same(scorer, evaluator)
    assert scorer.bots == ("lin", "greedy")
    # and both are the games the reference plays with that scoring
    assert_matches_reference(scorer, (linear_ref, "greedy"), n=40, order=kernel_order)


def test_evaluator_reproducible_over_threads_chunks_and_debug():
    bots = (EvaluatorBot(linear_evaluator, "lin"), "random")
    base = fastbg.play(200, bots, seed=112)
    assert_same(base, fastbg.play(200, bots, seed=112, threads=1, chunk_size=37))
    assert_same(base, fastbg.play(200, bots, seed=112, debug=True))
    assert_same(base, GameResults.concat([fastbg.play(120, bots, seed=112),
                                          fastbg.play(80, bots, seed=112, game_offset=120)]))


def test_scorer_bot_wrapping_greedy_equals_builtin_greedy():
    plug = fastbg.play(300, (ScorerBot(greedy_scorer, "g"), "pubeval"), seed=113)
    builtin = fastbg.play(300, ("greedy", "pubeval"), seed=113)
    for f in FIELDS:
        assert np.array_equal(getattr(plug, f), getattr(builtin, f)), f


def test_scorers_share_one_compiled_game_kernel():
    """A ScorerBot reaches the game kernels as a C callback of one type: a second new
    scorer plays without compiling the kernels again, and a scorer that allocates (which
    the kernels, compiled without reference counting, could not hold) plays too."""
    @numba.njit
    def most_home(before, cands, out):
        for i in range(cands.shape[0]):
            out[i] = cands[i, 1:7].clip(0, 15).sum()

    @numba.njit
    def fewest_home(before, cands, out):
        for i in range(cands.shape[0]):
            out[i] = -cands[i, 1:7].clip(0, 15).sum()

    a = fastbg.play(100, (ScorerBot(most_home, "most"), "random"), seed=115)
    kernels = len(_kplay.play_games.signatures)
    b = fastbg.play(100, (ScorerBot(fewest_home, "fewest"), "random"), seed=115)
    assert len(_kplay.play_games.signatures) == kernels
    assert not np.array_equal(a.plies, b.plies)  # each scorer chose its own moves
    same = fastbg.play(100, (ScorerBot(most_home, "most"), "random"), seed=115)
    assert np.array_equal(same.points, a.points)


def test_scorer_pointer_pickles_as_its_function():
    """A scorer's C callback pickles as its Python function and signature (for Ray): the
    copy scores as the original."""
    import pickle
    from fastbg.plugin_pointers import scorer_pointer

    @numba.njit
    def apply(f, before, cands, out):
        f(before, cands, out)

    ptr = scorer_pointer(linear_scorer)
    assert scorer_pointer(linear_scorer) is ptr            # made once per process
    copy = pickle.loads(pickle.dumps(ptr))
    cands = np.random.default_rng(5).integers(-3, 4, (7, 26)).astype(np.int8)
    out, out2 = np.zeros(7), np.zeros(7)
    apply(ptr, cands[0], cands, out)
    apply(copy, cands[0], cands, out2)
    np.testing.assert_array_equal(out2, out)
    np.testing.assert_array_equal(out, linear_ref(None, cands))
    foreign = numba.cfunc(ptr._sig)(linear_scorer.py_func)     # not made by fastbg
    with pytest.raises(TypeError, match="did not make"):
        pickle.dumps(foreign)


def test_empty_plugin_slots_have_the_plugins_type():
    """A bot that is not a plug-in, and a cube strategy that takes no probabilities, fill
    their slots with placeholders of the plug-ins' numba type (fastbg.plugin_pointers):
    the built-in bots, a scorer against one, two scorers, and each with or without a
    Janowski plug-in share one compiled game kernel (a None slot was a type of its own)."""
    from numba import typeof
    from fastbg.sim.setup import job_setup

    @numba.njit
    def even(board, out):
        out[0] = 0.5
        for k in range(1, 5):
            out[k] = 0.0

    pairs = [("pubeval", "random"), (ScorerBot(linear_scorer), "random"),
             ("pubeval", ScorerBot(linear_scorer)),
             (ScorerBot(linear_scorer), ScorerBot(linear_scorer))]
    setups = [job_setup(bots=b) for b in pairs]
    assert len({typeof(st.bots) for st in setups}) == 1
    assert [st.has_plugins for st in setups] == [False, True, True, True]
    cubes = [("never", "never"), (JanowskiCube(even), "never"),
             (JanowskiCube(even), JanowskiCube(even))]
    setups = [job_setup(bots=pairs[i % 2], rules=MoneyRules(), cube=c)
              for i, c in enumerate(cubes)]
    assert len({typeof(st.cubes) for st in setups}) == 1
    assert len({typeof(st.bots) for st in setups}) == 1
    assert [st.has_plugins for st in setups] == [False, True, True]
    # lock-step games keep None: their kernels, called every round, type it in C
    st = job_setup(bots=(EvaluatorBot(linear_evaluator), "pubeval"), rules=MoneyRules(),
                   cube=("race", "never"))
    assert st.lockstep and st.bots.plugin0 is None and st.cubes.plugin1 is None


def test_placeholders_write_nan_and_pickle_as_themselves():
    """The placeholders are never called by the kernels; one called by mistake writes NaN
    (a bot's NaN is reported as its error), and each pickles as itself (for Ray)."""
    import pickle
    from fastbg.plugin_pointers import is_placeholder, no_probs, no_scorer, scorer_pointer

    @numba.njit
    def score(f, before, cands, out):
        f(before, cands, out)

    @numba.njit
    def probs(f, board, out):
        f(board, out)

    cands = np.zeros((3, 26), np.int8)
    out = np.zeros(3)
    score(no_scorer(), cands[0], cands, out)
    assert np.isnan(out).all()
    out = np.zeros(5)
    probs(no_probs(), cands[0], out)
    assert np.isnan(out).all()
    assert no_scorer() is no_scorer() and no_probs() is no_probs()
    assert pickle.loads(pickle.dumps(no_scorer())) is no_scorer()
    assert pickle.loads(pickle.dumps(no_probs())) is no_probs()
    assert is_placeholder(no_scorer()) and is_placeholder(no_probs())
    assert not is_placeholder(scorer_pointer(linear_scorer))


def test_a_scorers_game_kernel_comes_from_the_disk_cache(tmp_path):
    """In a new process a ScorerBot's game kernel is loaded from the disk cache: no
    game kernel compiles (numba's compile events), whichever scorer it is."""
    from compile_events import compiled_in_new_process
    body = """
        import sys, fastbg
        SIGN = int(sys.argv[1])
        @numba.njit
        def scorer(before, cands, out):
            for i in range(cands.shape[0]):
                out[i] = SIGN * cands[i, 6]
        fastbg.play(50, (fastbg.ScorerBot(scorer), 'random'), seed=1)
        """
    compiled_in_new_process(tmp_path, body, 1)    # compiles or loads: either is fine
    assert compiled_in_new_process(tmp_path, body, -1) == []


def test_evaluator_nan_names_the_game():
    def nan_eval(positions):
        return np.full(len(positions), np.nan)
    with pytest.raises(BotError, match=r"game 1000\b.*nanbot"):
        fastbg.play(5, (EvaluatorBot(nan_eval, "nanbot"), "random"), seed=4, game_offset=1000)


@pytest.mark.parametrize("bad", [lambda x: np.zeros(len(x) + 1), lambda x: np.zeros(1),
                                 lambda x: np.zeros((len(x), 2)), lambda x: 0.0])
def test_evaluator_wrong_number_of_scores(bad):
    with pytest.raises(BotError, match="one score per position"):
        fastbg.play(5, ("random", EvaluatorBot(bad, "bad")), seed=4)


def test_wrong_number_of_scores_names_the_game_or_the_match():
    bad = EvaluatorBot(lambda x: np.zeros(len(x) + 1), "bad")
    with pytest.raises(BotError, match=r"\(game 300 onwards\)"):
        fastbg.play(5, (bad, "random"), seed=4, game_offset=300)
    with pytest.raises(BotError, match=r"\(match 7, game 0 onwards\)"):
        fastbg.play_matches(3, 3, (bad, "random"), seed=4, match_offset=7)


def test_scorer_nan_names_the_game():
    with pytest.raises(BotError, match=r"game 77\b.*nan"):
        fastbg.play(5, (ScorerBot(nan_scorer, "nan"), "random"), seed=4, game_offset=77)


# ---- bad input ---------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs", [
    dict(bots=("random", "nosuchbot")),
    dict(bots=("random",)),
    dict(bots=("random", "random", "random")),
    dict(bots="random"),
    dict(bots=None),
    dict(n_games=-1),
    dict(n_games=2.5),
    dict(n_games=True),
    dict(seed=-1),
    dict(seed=2**64),
    dict(seed=1.0),
    dict(seed="1"),
    dict(game_offset=-1),
    dict(opening="roll"),
    dict(opening=None),
    dict(threads=0),
    dict(chunk_size=0),
    dict(start=np.where(np.arange(26) == 25, -1, MIDGAME).astype(np.int8)),  # bar sign wrong
    dict(start=np.where(np.arange(26) == 0, 1, MIDGAME).astype(np.int8)),    # opp. bar sign wrong
    dict(start=np.array(make_board(mine={6: 16}, theirs={19: 15}), np.int8)),
    dict(start=np.array(make_board(mine={}, theirs={19: 15}), np.int8)),     # mover is done
    dict(start=np.array(make_board(mine={6: 3}, theirs={}), np.int8)),       # opponent is done
    dict(start=(MIDGAME, 2)),
    dict(start=(MIDGAME, 0, 1)),
    dict(start=np.zeros((2, 26), np.int8)),
    dict(start=MIDGAME[:25]),
])
def test_bad_input_raises_value_error(kwargs):
    args = dict(n_games=3, bots=("random", "random"), seed=1) | kwargs
    n = args.pop("n_games")
    with pytest.raises(ValueError):
        fastbg.play(n, **args)


def test_bad_bot_types():
    with pytest.raises(TypeError):
        fastbg.play(3, (5, "random"))
    with pytest.raises(TypeError):
        ScorerBot(lambda b, c, o: None)                  # not a numba function
    with pytest.raises(TypeError):
        EvaluatorBot("pubeval")                          # not callable


def test_sixteen_checker_start_is_rejected():
    board = MIDGAME.copy()
    board[6] += 1                                        # 16 checkers for the mover
    with pytest.raises(ValueError):
        fastbg.play(1, ("random", "random"), start=board)


# ---- the kernels as plain Python ---------------------------------------------------------

_NOJIT_JOBS = r'''
import json
import numpy as np
import fastbg
from fastbg.sim import policy_kernels as policies

FIELDS = ("winner", "kind", "points", "plies", "first")
W = np.arange(26) % 7 - 3.0
MID = np.array([0, -2, 0, 0, 0, 2, 5, 0, 3, 0, 0, 0, -4, 4, 0, 0, 0, -3, 0, -5, -1, 0, 0, 0, 1, 0],
               np.int8)


def lin(positions):
    return positions.astype(np.float64) @ W


JOBS = {
    "pubeval-greedy": dict(n_games=4, bots=("pubeval", "greedy"), seed=3),
    "greedy-pubeval-reroll": dict(n_games=3, bots=("greedy", "pubeval"), seed=4, opening="reroll",
                                  game_offset=2**40),
    "random-random": dict(n_games=4, bots=("random", "random"), seed=5, game_offset=1000,
                          chunk_size=3),
    "start-side1": dict(n_games=3, bots=("pubeval", "random"), seed=6, start=(MID, 1)),
    "evaluator-lockstep": dict(n_games=3, bots=("lin", "greedy"), seed=7),
}
DEBUG_JOBS = {
    "debug": dict(n_games=3, bots=("pubeval", "greedy"), seed=8, debug=True),
    "debug-lockstep": dict(n_games=2, bots=("lin", "random"), seed=9, debug=True),
}


def run(jobs):
    out = {}
    for name, kw in jobs.items():
        kw = dict(kw)
        bots = tuple(fastbg.EvaluatorBot(lin, "lin") if b == "lin" else b for b in kw.pop("bots"))
        try:
            res = fastbg.play(kw.pop("n_games"), bots, **kw)
        except fastbg.BotError as e:
            out[name] = repr(e)
        else:
            out[name] = {f: getattr(res, f).tolist() for f in FIELDS}
    return out


def run_all():
    return {"jobs": run(JOBS), "debug": run(DEBUG_JOBS),
            "greedy_start": float(policies.greedy_score(np.array(fastbg.START)))}
'''


# The plain-Python run: tests/conftest.py runs it with the other modules' (one subprocess).
NOJIT_SCRIPT = _NOJIT_JOBS + "\nprint(json.dumps(run_all()))\n"


@pytest.fixture(scope="module")
def nojit_vs_jit(nojit_runs):
    """(results under NUMBA_DISABLE_JIT=1, the same jobs jitted here)."""
    run = nojit_runs["test_play"]
    assert run.returncode == 0, run.stdout[-3000:]
    plain = json.loads(run.stdout.strip().splitlines()[-1])
    scope = {}
    exec(_NOJIT_JOBS, scope)
    assert np.array_equal(scope["MID"], MIDGAME)
    return plain, scope["run_all"]()


def test_kernels_run_as_plain_python(nojit_vs_jit):
    """The game kernel under NUMBA_DISABLE_JIT=1 plays the same games as jitted."""
    plain, jitted = nojit_vs_jit
    assert all(isinstance(v, dict) for v in jitted["jobs"].values())
    assert plain["jobs"] == jitted["jobs"]


def test_debug_check_and_greedy_score_as_plain_python(nojit_vs_jit):
    plain, jitted = nojit_vs_jit
    assert jitted["greedy_start"] == pytest.approx(1.5 + 1.0 - 0.02 * 167)
    assert plain["greedy_start"] == jitted["greedy_start"]
    assert all(isinstance(v, dict) for v in jitted["debug"].values())
    assert plain["debug"] == jitted["debug"]
