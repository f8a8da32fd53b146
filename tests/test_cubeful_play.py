"""Cubeful play (``fastbg.play`` with ``rules``/``cube``, ``fastbg.play_matches``) against the
rule book (docs/rules.md sections 6-9).

* Sampled games replayed by the cubeful reference player (tests/reference/cubeful_game.py:
  the same dice and moves, the cube decided by the slow tools of fastbg.cube / fastbg.met
  and settled by fastbg.CubeGame) must end exactly as the kernel says: winner, kind, final
  cube, dropped, points (signed from bot 0's view), plies, first player.
* Rule effects in bulk: Jacoby, automatic doubles, max_cube, match points capped at what
  the winner needs, the Crawford game without doubling, whole matches.
* Reproducibility over threads, chunks and shards; bad input.

Cube strategies: the built-in ``"never"`` and ``"race"`` (Keith count) and JanowskiCube
plug-ins built from a pip-count formula below. Two plug-ins that see positions differently
(one optimistic about the player on roll, one pessimistic, each with its own deterministic
"noise" from a hash of the board) make doubles, takes, drops, beavers and raccoons happen.
The optimistic one also thinks the starting position a 80% favourite for the player on
roll, so it doubles at once when allowed.
"""
import math

import numba
import numpy as np
import pytest

import fastbg
from fastbg import CubeGame, GameResults, JanowskiCube, MatchRules, MoneyRules
from reference.cubeful_game import opening_tie_dice, play_cubeful_ref, play_match_ref

MAX_AMBIGUOUS = 0.05      # share of games the reference may not replay (float near-ties)
FIELDS = ("winner", "kind", "points", "plies", "first", "cube", "dropped")
BOTS = ("pubeval", "pubeval")


def kernel_order(board, dice):
    """The candidates of (board, dice) in the kernel's order (the reference checks the set)."""
    return fastbg.legal_moves(np.array(board, np.int8), dice)


# ---- JanowskiCube plug-ins ------------------------------------------------------------------

@numba.njit
def pip_probs(board, out, bias, salt, opening_win):
    """A pip-count race formula for the player on roll of ``board``, into ``out``.

    P(win) is a logistic function of the pip lead (plus 8 pips for being on roll, ``bias``,
    and -8..+8 pips of "noise" from a hash of the board salted with ``salt``), clamped to
    2%..98%; a side with nothing borne off is gammoned in a share of its losses growing with
    its pip count, a tenth of them backgammons. ``opening_win`` > 0: the starting position
    (167 pips each) is given that P(win), without gammons.
    """
    me = 0.0
    opp = 0.0
    my_on = 0
    opp_on = 0
    h = 0
    for i in range(26):
        x = np.int64(board[i])
        h = (h * 31 + (x + 16) * (i + salt)) % 1009
        if x > 0:
            me += i * x
            my_on += x
        elif x < 0:
            opp -= (25 - i) * x
            opp_on -= x
    for k in range(5):
        out[k] = 0.0
    if opening_win > 0.0 and me == 167.0 and opp == 167.0:
        out[0] = opening_win
        return
    noise = (h % 17) - 8.0
    d = (opp - me + 8.0 + bias + noise) / (4.0 + 0.1 * (me + opp))
    w = min(0.98, max(0.02, 1.0 / (1.0 + math.exp(-2.0 * d))))
    g_me = 0.0
    if opp_on == 15:
        g_me = min(0.6, max(0.0, (opp - 50.0) / 150.0))
    g_opp = 0.0
    if my_on == 15:
        g_opp = min(0.6, max(0.0, (me - 50.0) / 150.0))
    out[0] = w
    out[1] = w * g_me
    out[2] = 0.1 * w * g_me
    out[3] = (1.0 - w) * g_opp
    out[4] = 0.1 * (1.0 - w) * g_opp


@numba.njit
def optimist_probs(board, out):
    """Six pips better for the player on roll, who is an 80% favourite at the start."""
    pip_probs(board, out, 6.0, 3, 0.8)


@numba.njit
def pessimist_probs(board, out):
    """Six pips worse for the player on roll, with other noise."""
    pip_probs(board, out, -6.0, 7, 0.0)


@numba.njit
def eager_probs(board, out):
    """Every position a 75% favourite for the player on roll, no gammons: each side doubles
    (and redoubles) whenever it may and takes every double."""
    out[0] = 0.75
    for k in range(1, 5):
        out[k] = 0.0


OPTIMIST = JanowskiCube(optimist_probs, x=0.68, name="optimist")
PESSIMIST = JanowskiCube(pessimist_probs, x=0.6, name="pessimist")
JANOWSKI = (OPTIMIST, PESSIMIST)
EAGER = JanowskiCube(eager_probs, x=0.68, name="eager")


# ---- comparison with the reference -----------------------------------------------------

def kernel_row(res, i):
    return tuple(int(getattr(res, f)[i]) if f != "dropped" else bool(res.dropped[i])
                 for f in FIELDS)


def reference_row(r):
    signed = r.points if r.winner == 0 else -r.points
    return (r.winner, r.kind, signed, r.plies, r.first, r.cube, r.dropped)


def compare_with_reference(res, bots, rules, cube, n=None, **kw):
    """(mismatches, ambiguous count, reference results) of the first ``n`` games of ``res``."""
    n = res.n_games if n is None else n
    mismatches, ambiguous, refs = [], 0, []
    for i in range(n):
        game = res.game_offset + i
        r = play_cubeful_ref(res.seed, game, bots, rules, cube, kernel_order, **kw)
        if r.ambiguous:
            ambiguous += 1
            continue
        refs.append(r)
        if kernel_row(res, i) != reference_row(r):
            mismatches.append((game, kernel_row(res, i), reference_row(r)))
    return mismatches, ambiguous, refs


def assert_matches_reference(n, rules, cube, bots=BOTS, seed=1, game_offset=0, **kw):
    """Play ``n`` games with the kernel, replay them with the reference; return both."""
    res = fastbg.play(n, bots, seed=seed, rules=rules, cube=cube, game_offset=game_offset, **kw)
    mismatches, ambiguous, refs = compare_with_reference(res, bots, rules, cube, **kw)
    assert not mismatches, (
        f"seed {seed}, {rules}, cube {cube}, {kw}: (game, kernel, reference) as "
        f"{FIELDS}: {mismatches[:4]} ({len(mismatches)} of {n} games differ)")
    assert ambiguous <= MAX_AMBIGUOUS * n, f"{ambiguous} of {n} games ambiguous"
    return res, refs


def events(refs, name):
    return sum(r.events[name] for r in refs)


def start_stake(rules, seed, game, ties=None):
    """The stake after the automatic doubles of ``game`` (its tied opening throws' dice
    ``ties``), by CubeGame (docs/rules.md section 8)."""
    cg = CubeGame(rules)
    if not rules.is_match and rules.auto_doubles:
        for d in opening_tie_dice(seed, game) if ties is None else ties:
            cg.opening_tie(six_six=d == 6)
    return cg.value


# ---- money play: built-in strategies ----------------------------------------------------------

@pytest.mark.parametrize("rules, cube", [
    (MoneyRules(), ("race", "race")),
    (MoneyRules(), ("race", "never")),
    (MoneyRules(jacoby=False), ("race", "never")),
    (MoneyRules(auto_doubles=True, auto_double_limit=None), ("race", "race")),
    (MoneyRules(auto_doubles=True, auto_double_limit=None, triple_on_66=True), ("never", "race")),
    (MoneyRules(max_cube=2), ("race", "race")),
    (MoneyRules(max_cube=None), ("race", "never")),
], ids=["default", "race-never", "no-jacoby", "auto", "auto-triple66", "max2", "no-max"])
def test_money_race_matches_reference(rules, cube):
    res, _ = assert_matches_reference(40, rules, cube, seed=11)
    assert np.any(res.dropped) or np.any(res.cube > 1)          # the cube was used
    assert np.all((res.kind == 1) | ~res.dropped)


def test_money_race_greedy_and_random_match_reference():
    rules = MoneyRules(auto_doubles=True)
    assert_matches_reference(30, rules, ("race", "never"), bots=("greedy", "random"), seed=12)
    assert_matches_reference(30, rules, ("never", "race"), bots=("random", "pubeval"), seed=13,
                             opening="reroll")


def test_race_strategy_from_a_start_position_matches_reference():
    # A race from the start: the side on roll may double at once (he has not rolled yet).
    race = np.zeros(26, np.int8)
    race[1:7] = (2, 2, 3, 3, 3, 2)            # mover: 15 checkers home
    race[19:25] = (-2, -3, -3, -3, -2, -2)    # opponent: 15 checkers in his home board
    for side in (0, 1):
        _, refs = assert_matches_reference(30, MoneyRules(), ("race", "race"), seed=14,
                                           start=(race, side))
        assert events(refs, "doubles") > 0


# ---- money play: JanowskiCube -------------------------------------------------------------

@pytest.mark.parametrize("jacoby", [False, True], ids=["no-jacoby", "jacoby"])
def test_janowski_money_beavers_raccoons_match_reference(jacoby):
    # opening="reroll": the first player rolls afresh, so he may double before his first
    # roll (the usual opening is checked in test_no_double_before_the_opening_move).
    rules = MoneyRules(jacoby=jacoby, beavers=True, raccoons=True)
    _, refs = assert_matches_reference(80, rules, JANOWSKI, seed=21, opening="reroll")
    assert events(refs, "beavers") > 0 and events(refs, "raccoons") > 0
    assert events(refs, "drops") > 0 and events(refs, "takes") > 0
    # A beaver makes the stake 4 x what it was before the double, a raccoon 8 x.
    beavered = [r for r in refs if r.events["beavers"]]
    assert beavered and all(r.cube >= 4 for r in beavered)
    assert any(r.cube >= 8 and not r.dropped for r in beavered)


def test_janowski_money_beaver_limits_match_reference():
    # max_cube 4: a beaver (stake 4) is allowed, a raccoon (8) is not.
    rules = MoneyRules(jacoby=False, beavers=True, raccoons=True, max_cube=4)
    res, refs = assert_matches_reference(60, rules, JANOWSKI, seed=22, opening="reroll")
    assert events(refs, "beavers") > 0 and events(refs, "raccoons") == 0
    assert res.cube.max() <= 4 and np.any(res.cube == 4)


def test_no_double_before_the_opening_move():
    """docs/rules.md sections 2 and 6: with the usual opening the first player plays the opening
    throw as his first roll, so he has rolled already and cannot double on that turn; the
    second player may double before his first roll."""
    rules = MoneyRules(jacoby=False, beavers=True, raccoons=True)
    res, refs = assert_matches_reference(60, rules, JANOWSKI, seed=24, opening="use")
    # The optimist doubles the starting position whenever he may: never on the opening turn
    # (so no game ends by a drop before the first move).
    assert events(refs, "doubles") > 0
    assert not np.any(res.dropped & (res.plies == 0))


def test_unlimited_cube_is_exact_or_an_error():
    """max_cube=None (docs/rules.md section 6): no limit. Two players who redouble every turn
    reach stakes past 2**31 and 2**63; the result must be exact or a clear error, never a
    silently wrapped stake (docs/rules.md section 10)."""
    rules = MoneyRules(max_cube=None)
    try:
        res = fastbg.play(6, ("random", "random"), seed=25, rules=rules, cube=(EAGER, EAGER),
                          opening="reroll")
    except (fastbg.BotError, OverflowError, ValueError) as e:
        assert str(e)
        return
    assert np.all(res.cube >= 1) and np.all(np.abs(res.points) >= res.cube), (
        f"cube {res.cube.tolist()}, points {res.points.tolist()}")
    mismatches, _, _ = compare_with_reference(res, ("random", "random"), rules, (EAGER, EAGER),
                                              opening="reroll")
    assert not mismatches, mismatches[:2]


# ---- match play -------------------------------------------------------------------------------

@pytest.mark.parametrize("score, crawford_game", [
    ((0, 0), False), ((4, 3), False), ((5, 5), False), ((6, 3), False), ((2, 6), False),
    ((6, 6), False), ((6, 4), True)])
def test_match_race_matches_reference(score, crawford_game):
    rules = MatchRules(7)
    res, _ = assert_matches_reference(30, rules, ("race", "race"), seed=31, score=score,
                                      crawford_game=crawford_game)
    if crawford_game:
        assert np.all(res.cube == 1) and not np.any(res.dropped)


def test_match_without_crawford_rule_matches_reference():
    rules = MatchRules(7, crawford=False, max_cube=None)
    assert_matches_reference(30, rules, ("race", "never"), seed=32, score=(6, 2))


@pytest.mark.parametrize("score, crawford_game", [
    ((0, 0), False), ((2, 4), False), ((5, 5), False), ((6, 3), False), ((3, 6), True)])
def test_janowski_match_matches_reference(score, crawford_game):
    rules = MatchRules(7)
    res, refs = assert_matches_reference(40, rules, JANOWSKI, seed=33, score=score,
                                         crawford_game=crawford_game, opening="reroll")
    if crawford_game:
        assert np.all(res.cube == 1) and not np.any(res.dropped)
    else:
        assert events(refs, "doubles") > 0
    assert events(refs, "beavers") == 0                       # never in match play


def test_janowski_match_without_crawford_rule_matches_reference():
    rules = MatchRules(7, crawford=False)
    _, refs = assert_matches_reference(30, rules, JANOWSKI, seed=34, score=(6, 2),
                                       opening="reroll")
    assert events(refs, "doubles") > 0


def test_crawford_game_has_no_doubling():
    """docs/rules.md section 9: neither player may double in the Crawford game."""
    for cube in (("race", "race"), JANOWSKI):
        for score in ((6, 0), (3, 6), (6, 5)):
            res = fastbg.play(600, ("pubeval", "random"), seed=35, rules=MatchRules(7),
                              cube=cube, score=score, crawford_game=True)
            assert np.all(res.cube == 1) and not np.any(res.dropped), (cube, score)
            away = np.where(res.winner == 0, 7 - score[0], 7 - score[1])
            assert np.array_equal(np.abs(res.points), np.minimum(res.kind, away))


def test_match_points_never_exceed_the_winners_away():
    """docs/rules.md section 9: points beyond the match length do not matter; a game at a score
    is worth at most what its winner needs, played out or dropped."""
    rules = MatchRules(7)
    for score in ((6, 0), (5, 5), (4, 6), (3, 5)):
        res = fastbg.play(4000, ("pubeval", "pubeval"), seed=37, rules=rules,
                          cube=("race", "race"), score=score)
        away = np.where(res.winner == 0, 7 - score[0], 7 - score[1])
        over = np.flatnonzero(np.abs(res.points) > away)
        rows = [(int(g), kernel_row(res, g)) for g in over[:3]]
        assert over.size == 0, (
            f"seed 37, score {score}: {over.size} games pay more than the winner needs; "
            f"(game, {FIELDS}): {rows}")
        assert np.array_equal(np.abs(res.points)[~res.dropped],
                              np.minimum(res.cube * res.kind, away)[~res.dropped])


# ---- rule effects in bulk ---------------------------------------------------------------------

@pytest.mark.parametrize("rules", [MoneyRules(), MoneyRules(jacoby=False),
                                   MoneyRules(auto_doubles=True, auto_double_limit=None),
                                   MoneyRules(jacoby=False, auto_doubles=True)])
def test_jacoby_rule_in_bulk(rules):
    seed = 41
    res = fastbg.play(4000, ("pubeval", "random"), seed=seed, rules=rules,
                      cube=("race", "never"))
    stake = np.array([start_stake(rules, seed, g) for g in range(res.n_games)])
    pts = np.abs(res.points)
    played = ~res.dropped
    turned = res.cube > stake           # only a taken double raises the cube after the start
    assert np.all(res.cube >= stake)
    assert np.array_equal(pts[res.dropped], res.cube[res.dropped])
    assert np.all(res.kind[res.dropped] == 1)
    assert np.array_equal(pts[played & turned], (res.cube * res.kind)[played & turned])
    untouched = played & ~turned
    gammons = untouched & (res.kind > 1)
    assert gammons.sum() > 50 and (played & turned & (res.kind > 1)).sum() > 20
    if rules.jacoby:
        # gammons count as singles until the cube has been turned
        assert np.array_equal(pts[untouched], res.cube[untouched])
    else:
        assert np.array_equal(pts[untouched], (res.cube * res.kind)[untouched])
    if rules.auto_doubles:
        assert np.any(untouched & (stake > 1) & (res.kind > 1))


def _tie_law(rules, ties):
    """The stake after a sequence of tied throws' dice, as docs/rules.md section 8 reads."""
    v = 1
    used = 0
    for d in ties:
        if rules.auto_double_limit is not None and used >= rules.auto_double_limit:
            break
        f = 3 if (rules.triple_on_66 and d == 6) else 2
        if rules.max_cube is not None and v * f > rules.max_cube:
            continue                    # this tie cannot raise the stake; later ones may
        v *= f
        used += 1
    return v


@pytest.mark.parametrize("rules", [
    MoneyRules(auto_doubles=True),
    MoneyRules(auto_doubles=True, auto_double_limit=None),
    MoneyRules(auto_doubles=True, auto_double_limit=2, max_cube=None),
    MoneyRules(auto_doubles=True, auto_double_limit=None, triple_on_66=True),
    MoneyRules(auto_doubles=True, auto_double_limit=None, triple_on_66=True, max_cube=4),
    MoneyRules(auto_doubles=True, triple_on_66=True, max_cube=2),
], ids=["limit1", "nolimit", "limit2", "triple66", "triple66-max4", "triple66-max2"])
def test_automatic_doubles_stake(rules):
    seed, n = 42, 12_000
    res = fastbg.play(n, ("random", "random"), seed=seed, rules=rules, cube=("never", "never"))
    # With "never" nobody doubles: the final cube is the stake after the opening ties.
    ties = [opening_tie_dice(seed, g) for g in range(n)]
    want = np.array([start_stake(rules, seed, g, t) for g, t in enumerate(ties)])
    assert all(_tie_law(rules, t) == w for t, w in zip(ties, want))   # CubeGame = rule book
    bad = np.flatnonzero(res.cube != want)
    assert bad.size == 0, (
        f"seed {seed}, {rules}: {bad.size} games; (game, tie dice, kernel cube, CubeGame "
        f"stake): {[(int(g), ties[g], int(res.cube[g]), int(want[g])) for g in bad[:4]]}")
    # Jacoby stays in force: automatic doubles do not turn the cube.
    assert np.array_equal(np.abs(res.points), res.cube)
    # Tied opening throws: probability 1/6 each.
    n_ties = np.array([len(t) for t in ties])
    p_tie = 1 / 6
    share = np.mean(n_ties >= 1)
    assert abs(share - p_tie) < 5 * math.sqrt(p_tie * (1 - p_tie) / n)
    expect = {}
    if rules.auto_double_limit == 1 and rules.max_cube == 64 and not rules.triple_on_66:
        expect = {1: 5 / 6, 2: 1 / 6}
    elif rules.auto_double_limit is None and not rules.triple_on_66:
        expect = {1: 5 / 6, 2: 5 / 36, 4: 5 / 216}
    elif rules.triple_on_66 and rules.max_cube == 64:
        expect = {1: 5 / 6, 2: 5 / 36 * 5 / 6, 3: 1 / 36 * 5 / 6}
    for value, p in expect.items():
        share = np.mean(res.cube == value)
        assert abs(share - p) < 5 * math.sqrt(p * (1 - p) / n) + 1e-9, (value, share, p)


@pytest.mark.parametrize("max_cube", [1, 2, 4, None])
def test_max_cube_respected(max_cube):
    seen = []
    for rules, cube, bots in [
            (MoneyRules(max_cube=max_cube), ("race", "never"), ("pubeval", "random")),
            (MoneyRules(max_cube=max_cube, auto_doubles=True, auto_double_limit=None),
             ("race", "race"), ("random", "random")),
            (MoneyRules(max_cube=max_cube, beavers=True, raccoons=True), JANOWSKI,
             ("pubeval", "pubeval")),
            (MatchRules(15, max_cube=max_cube), JANOWSKI, ("pubeval", "pubeval"))]:
        res = fastbg.play(1500, bots, seed=43, rules=rules, cube=cube)
        if max_cube is not None:
            assert res.cube.max() <= max_cube, (rules, cube)
        assert np.all(res.cube >= 1)
        seen.append(int(res.cube.max()))
    if max_cube == 1:
        assert seen == [1, 1, 1, 1]                     # no doubling at all
    elif max_cube is not None:
        assert max(seen) == max_cube
    else:
        assert max(seen) >= 64


# ---- play_matches -------------------------------------------------------------------------------

def test_play_matches_scores_and_games():
    for length, bots in ((1, ("random", "random")), (5, ("pubeval", "pubeval")),
                         (7, ("pubeval", "random"))):
        res = fastbg.play_matches(300, length, bots, seed=51)
        s = res.score.astype(int)
        assert res.n_matches == 300 and res.length == length
        assert np.all(s.max(axis=1) == length) and np.all(s.min(axis=1) < length)
        assert np.array_equal(res.winner, np.where(s[:, 0] == length, 0, 1))
        assert np.all(res.games >= 1) and np.all(res.games <= 2 * length - 1)
        mean = res.games.mean()
        if length == 1:
            assert np.all(res.games == 1)
        else:
            assert 1.2 < mean < length + 2, mean


def test_play_matches_pubeval_beats_random():
    res = fastbg.play_matches(400, 5, ("pubeval", "random"), seed=52)
    s = res.summary()
    p, (lo, hi) = s["match_win_rate"][0], s["match_win_rate_ci95"]
    assert 0.0 <= lo <= p <= hi <= 1.0
    assert lo > 0.85, s
    assert s["match_win_rate"][0] + s["match_win_rate"][1] == pytest.approx(1.0)
    res = fastbg.play_matches(400, 5, ("random", "random"), seed=53)
    p, (lo, hi) = res.summary()["match_win_rate"][0], res.summary()["match_win_rate_ci95"]
    assert 0.0 <= lo <= p <= hi <= 1.0 and lo < 0.5 < hi


@pytest.mark.parametrize("crawford, cube", [(True, ("race", "race")),
                                            (False, ("race", "never")),
                                            (True, ("never", "race"))])
def test_play_matches_equal_reference(crawford, cube):
    length, n, seed = 3, 10, 54
    res = fastbg.play_matches(n, length, BOTS, cube=cube, seed=seed, crawford=crawford,
                              match_offset=7)
    checked = 0
    for i in range(n):
        want = play_match_ref(seed, 7 + i, length, BOTS, cube, kernel_order, crawford=crawford)
        if want is None:
            continue
        checked += 1
        got = (int(res.winner[i]), int(res.games[i]), int(res.score[i, 0]),
               int(res.score[i, 1]))
        assert got == want, f"match {7 + i}: kernel {got}, reference {want}"
    assert checked >= n - 1


# ---- reproducibility ---------------------------------------------------------------------------

def assert_same(a, b):
    for f in FIELDS:
        x, y = getattr(a, f), getattr(b, f)
        assert x.dtype == y.dtype and np.array_equal(x, y), f
    assert a.meta == b.meta


REPRO = [(MoneyRules(beavers=True, raccoons=True, auto_doubles=True), ("race", "race")),
         (MoneyRules(beavers=True, raccoons=True), JANOWSKI),
         (MatchRules(7), ("race", "never"))]


@pytest.mark.parametrize("rules, cube", REPRO, ids=["money-race", "money-janowski", "match"])
def test_cubeful_play_reproducible(rules, cube):
    kw = dict(seed=61, rules=rules, cube=cube)
    if rules.is_match:
        kw["score"] = (3, 5)
    bots = ("pubeval", "random")
    base = fastbg.play(300, bots, game_offset=100, **kw)
    assert np.any(base.dropped | (base.cube > 1))
    if numba.config.NUMBA_NUM_THREADS >= 2:
        assert_same(base, fastbg.play(300, bots, game_offset=100, threads=1, **kw))
        assert_same(base, fastbg.play(300, bots, game_offset=100, threads=2, **kw))
    for chunk in (1, 299):
        assert_same(base, fastbg.play(300, bots, game_offset=100, chunk_size=chunk, **kw))
    parts = [fastbg.play(k, bots, game_offset=off, threads=t, **kw)
             for k, off, t in ((120, 100, 1), (1, 220, None), (179, 221, None))]
    assert_same(base, GameResults.concat(parts))


def test_play_matches_reproducible():
    kw = dict(length=5, bots=("pubeval", "random"), seed=62)
    base = fastbg.play_matches(300, match_offset=20, **kw)

    def same(other):
        for f in ("winner", "games", "score"):
            assert np.array_equal(getattr(base, f), getattr(other, f)), f

    if numba.config.NUMBA_NUM_THREADS >= 2:
        same(fastbg.play_matches(300, match_offset=20, threads=1, **kw))
        same(fastbg.play_matches(300, match_offset=20, threads=2, **kw))
    for chunk in (1, 77):
        same(fastbg.play_matches(300, match_offset=20, chunk_size=chunk, **kw))
    parts = [fastbg.play_matches(k, match_offset=off, **kw)
             for k, off in ((120, 20), (1, 140), (179, 141))]
    for f in ("winner", "games", "score"):
        assert np.array_equal(getattr(base, f), np.concatenate([getattr(p, f) for p in parts]))
    other = fastbg.play_matches(300, match_offset=21, **kw)
    assert np.array_equal(base.games[1:], other.games[:-1])


# ---- bad input ----------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs", [
    dict(cube=("race", "race")),                                  # cube strategies need rules
    dict(cube=("never", "race")),
    dict(rules=MoneyRules(), cube=("race", "sometimes")),         # unknown strategy
    dict(rules=MoneyRules(), cube=("race",)),
    dict(rules=MatchRules(7), score=(7, 0)),                      # at or past the length
    dict(rules=MatchRules(7), score=(3, 9)),
    dict(rules=MatchRules(7), score=(-1, 0)),
    dict(rules=MatchRules(7), score=(1, 2, 3)),
    dict(rules=MatchRules(7), score=(3, 3), crawford_game=True),  # nobody 1-away
    dict(rules=MatchRules(7, crawford=False), score=(6, 3), crawford_game=True),
    dict(rules=MoneyRules(), score=(1, 2)),                       # score with money rules
    dict(rules=MoneyRules(), crawford_game=True),
    dict(score=(1, 2)),                                           # score without rules
])
def test_bad_cubeful_input(kwargs):
    with pytest.raises(ValueError):
        fastbg.play(3, ("random", "random"), seed=1, **kwargs)


def test_bad_play_matches_input():
    with pytest.raises(ValueError):
        fastbg.play_matches(3, 5, cube=("race", "sometimes"))
    with pytest.raises(ValueError):
        fastbg.play_matches(3, 0)


def test_janowski_plugins_share_one_game_kernel():
    """Janowski plug-ins reach the game kernels as C callbacks of one type
    (fastbg.plugin_pointers): a new plug-in compiles no game kernel, and each plays
    with its own probabilities."""
    from fastbg.sim import game_kernels as _kplay

    @numba.njit
    def doubtful(board, out):
        out[0] = 0.5
        for k in range(1, 5):
            out[k] = 0.0

    kw = dict(seed=61, rules=MoneyRules(jacoby=False))
    eager = fastbg.play(300, ("pubeval", "pubeval"), cube=(EAGER, EAGER), **kw)
    kernels = len(_kplay.play_games.signatures)
    never = fastbg.play(300, ("pubeval", "pubeval"),
                        cube=(JanowskiCube(doubtful), JanowskiCube(doubtful)), **kw)
    assert len(_kplay.play_games.signatures) == kernels
    assert eager.cube.max() > 1 and never.cube.max() == 1    # at 50% no one doubles
    again = fastbg.play(300, ("pubeval", "pubeval"), cube=(EAGER, EAGER), **kw)
    assert np.array_equal(again.cube, eager.cube) and np.array_equal(again.points, eager.points)


def test_probs_pointer_pickles_as_its_function():
    """A Janowski plug-in's C callback pickles as its Python function and signature (for
    Ray): the copy gives the original's probabilities."""
    import pickle
    from fastbg.plugin_pointers import probs_pointer

    @numba.njit
    def apply(f, board, out):
        f(board, out)

    ptr = probs_pointer(optimist_probs)
    assert probs_pointer(optimist_probs) is ptr            # made once per process
    copy = pickle.loads(pickle.dumps(ptr))
    board = np.array(fastbg.START)
    out, out2, want = np.zeros(5), np.zeros(5), np.zeros(5)
    apply(ptr, board, out)
    apply(copy, board, out2)
    optimist_probs(board, want)
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(out2, want)


def test_a_janowski_plugins_game_kernel_comes_from_the_disk_cache(tmp_path):
    """In a new process the game kernel of a Janowski plug-in is loaded from the disk
    cache: no game or cube kernel compiles (numba's compile events), whichever plug-in.
    (Its games here first compile it, if need be, and save it to the cache.)"""
    from compile_events import compiled_in_new_process

    @numba.njit
    def doubtful(board, out):
        out[0] = 0.5
        for k in range(1, 5):
            out[k] = 0.0

    cube = JanowskiCube(doubtful)
    fastbg.play(50, ("pubeval", "pubeval"), seed=1, rules=MoneyRules(), cube=(cube, cube))
    body = """
        import sys, fastbg
        WIN = float(sys.argv[1])
        @numba.njit
        def probs(board, out):
            out[0] = WIN
            for k in range(1, 5):
                out[k] = 0.0
        cube = fastbg.JanowskiCube(probs)
        fastbg.play(50, ('pubeval', 'pubeval'), seed=1, rules=fastbg.MoneyRules(),
                    cube=(cube, cube))
        """
    assert compiled_in_new_process(tmp_path, body, 0.8,
                                   prefixes=("play", "cube", "_cube")) == []
