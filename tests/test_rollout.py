"""fastbg.jobs.rollouts: exactness, quasi-random dice, variance reduction, truncation, resume, CLI.

* Exactness: positions certified policy-independent by the exact DP (tests/reference/exact.py)
  have one value whatever the bots play, so every rollout must land within 3 standard errors
  of it: all five probabilities and the equity, rotate on and off, with and without variance
  reduction (race evaluator). Where the first roll (or the first two) decide the game, the
  quasi-random dice make the estimate EXACT over aligned blocks of 36 (or 1,296) trials.
* Stratification: the first two rolls of the trials read straight from the kernel helper
  ``turn_dice`` with the rollout's permutations (``fastbg.sim.setup.dice_rotation(seed)``).
* Reproducible and thread-independent; chunk sizes change no game; resume after a crash or
  Ctrl-C gives ``to_dict()`` bit-identical to an uninterrupted run.
* Truncation, cubeful money and match estimates checked against the cubeless figures of the
  same trials where the cube cannot move; bad input; the ``fastbg rollout`` command.
"""
import json
import math
from fractions import Fraction as F

import numba
import numpy as np
import pytest

import fastbg
from fastbg.sim import setup as _setup
from fastbg import dice as _dice
from fastbg.sim import game_kernels as _play
from fastbg.evaluators.race import race_evaluator, race_probabilities
from fastbg.position.ids import xgid
from fastbg.cube.met import mwc_after
from fastbg.jobs.rollouts import OUTPUTS
from reference.exact import exact_probabilities
from reference.movegen import make_board

START_ID = "4HPwATDgc/ABMA"


def rollout(position, **kw):
    """fastbg.rollout with the bot these tests were written for, pubeval, unless another is
    named (the default is the strongest installed bot, gnubg with the gnubg extra)."""
    kw.setdefault("bot", "pubeval")
    return fastbg.rollout(position, **kw)


def board(mine, theirs):
    """int8 board from {point: count}: the mover's in his numbering, the opponent's in HIS own
    (``board({6: 1}, {1: 1})``: the mover on his 6-point, the opponent on his ace)."""
    return np.array(make_board(mine, {25 - p: n for p, n in theirs.items()}), np.int8)


def assert_within_3se(res, exact, what=""):
    """Every probability and the equity within 3 reported standard errors of ``exact``."""
    p = [float(x) for x in exact]
    eq = 2 * p[0] - 1 + p[1] - p[3] + p[2] - p[4]
    for name, got, se, want in zip(OUTPUTS + ("equity",), res.probabilities + [res.equity],
                                   res.probabilities_se + [res.equity_se], p + [eq]):
        assert abs(got - want) <= 3 * se + 1e-12, (what, name, got, want, se)


# ---- exactness against the DP ---------------------------------------------------------------

# Certified by tests/test_exact.py (every legal play of every roll has the same value).
EXACT_CASES = [
    ({12: 1}, {12: 1}),            # a few rolls each, win 420769891/544195584
    ({15: 1}, {9: 1}),
    ({2: 2}, {2: 2}),              # 259/324
    ({1: 3}, {1: 3}),              # 31/36
    ({6: 1}, {1: 15}),             # gammon 3/4
    ({12: 15}, {1: 1}),            # lost gammon for sure
    ({2: 1}, {22: 1, 13: 14}),     # backgammon for sure
]


@pytest.fixture(scope="module")
def race():
    return race_evaluator()


@pytest.mark.parametrize("vr", [False, True], ids=["plain", "vr"])
@pytest.mark.parametrize("rotate", [True, False], ids=["rotate", "norotate"])
@pytest.mark.parametrize("mine, theirs", EXACT_CASES)
def test_rollout_matches_exact_dp(mine, theirs, rotate, vr):
    b = board(mine, theirs)
    exact = exact_probabilities(b)
    res = rollout(b, trials=5184, seed=21, rotate=rotate, variance_reduction=vr,
                         evaluator="race" if vr else None)
    assert res.trials == 5184 and not res.partial
    assert_within_3se(res, exact, (mine, theirs, rotate, vr))
    if not vr:                  # luck-adjusted values may leave [0, 1]; indicators may not
        w, wg, wbg, lg, lbg = res.probabilities
        assert 0 <= wbg <= wg <= w <= 1 and 0 <= lbg <= lg <= 1 - w


@pytest.mark.parametrize("bot", ["random", "greedy"])
@pytest.mark.parametrize("mine, theirs", [({12: 1}, {12: 1}), ({6: 1}, {1: 15})])
def test_any_bot_hits_the_exact_value_with_variance_reduction(mine, theirs, bot):
    """Certified positions: the bot does not matter, luck adjustment or not."""
    b = board(mine, theirs)
    exact = exact_probabilities(b)
    for vr in (False, True):
        res = rollout(b, trials=2592, seed=13, bot=bot, variance_reduction=vr,
                             evaluator="race")
        assert_within_3se(res, exact, (bot, vr))


def test_known_value_27_of_36():
    """One checker on the 6-point against one on the ace, mover to roll: 27/36."""
    b = board({6: 1}, {1: 1})
    assert exact_probabilities(b) == (F(27, 36), 0, 0, 0, 0)
    # The first roll decides the game, and every aligned 36 trials hold each first roll
    # once: with rotation the estimate is exact, whatever the seed and chunking.
    for seed, chunk in ((0, 1296), (5, 100), (2**64 - 1, 37)):
        res = rollout(b, trials=36 * 40, seed=seed, chunk_size=chunk)
        assert res.probabilities == [0.75, 0.0, 0.0, 0.0, 0.0], seed
        assert res.equity == 0.5
    res = rollout(b, trials=36 * 40, seed=3, rotate=False)
    assert_within_3se(res, (F(27, 36), 0, 0, 0, 0))
    assert res.probabilities[0] != 0.75          # plain dice are not stratified
    res = rollout(b, trials=36 * 40, seed=3, variance_reduction=True, evaluator="race")
    assert res.probabilities[0] == pytest.approx(0.75, abs=1e-12)


def test_first_two_rolls_stratified_in_rollout():
    """Two checkers on the 2-point each: the first two rolls decide the game (the mover
    fails with a non-double holding a 1, then the opponent fails the same way), so every
    aligned 1,296 trials give exactly 259/324 with rotation, not without."""
    b = board({2: 2}, {2: 2})
    assert exact_probabilities(b)[0] == F(259, 324)
    for seed, chunk in ((1, 1296), (9, 500)):
        res = rollout(b, trials=2592, seed=seed, chunk_size=chunk)
        assert res.probabilities[0] == 259 / 324
    res = rollout(b, trials=2592, seed=1, rotate=False)
    assert res.probabilities[0] != 259 / 324


def test_opening_style_first_roll_has_no_doubles(gnubg_net):
    """The mover bears off his checkers on the 6 and 5 points with 6-5 or 3-3 .. 6-6, else
    the opponent bears off his last one: 6/36 of any first roll, 2/30 of an opening roll
    (no doubles). Every aligned 30 trials hold each opening roll once with rotation, so 180
    trials (a multiple of 30 and 36) are exact in both modes."""
    b = board({6: 1, 5: 1}, {1: 1})
    wins = {(d1, d2) for d1 in range(1, 7) for d2 in range(1, 7)
            if any(r[1:].clip(0, None).sum() == 0 for r in fastbg.legal_moves(b, (d1, d2)))}
    assert len(wins) == 6 and len([d for d in wins if d[0] != d[1]]) == 2
    for seed, chunk in ((0, 1296), (7, 45)):
        res = rollout(b, trials=180, seed=seed, chunk_size=chunk, first_roll="opening")
        assert res.probabilities[0] * 180 == pytest.approx(12, abs=1e-9), seed
        assert res.settings["first_roll"] == "opening"
    assert rollout(b, trials=180, seed=3).probabilities[0] * 180 == pytest.approx(30, abs=1e-9)
    # luck adjustment averages the first roll over the 30 rolls too: exact on every trial
    # with an evaluator exact after the first roll (gnubg's bear-off tables)
    for first, p in (("opening", 1 / 15), ("any", 1 / 6)):
        res = rollout(b, trials=60, seed=3, first_roll=first, variance_reduction=True,
                      evaluator="gnubg", rotate=False)
        assert res.probabilities[0] == pytest.approx(p, abs=1e-12), first
    # without rotation the opening throw's dice: never a double, uniform over the 30
    rolls = _kernel_dice(5, np.arange(3000), 0, rotate=False, opening=_play.OPENING_NO_DOUBLES)
    assert not np.any(rolls // 6 == rolls % 6)
    counts = np.bincount(rolls, minlength=36)[[r for r in range(36) if r // 6 != r % 6]]
    assert counts.min() > 50 and counts.max() < 150            # 100 expected each
    rot = _kernel_dice(5, np.arange(60), 0, opening=_play.OPENING_NO_DOUBLES)
    assert sorted(rot[:30]) == sorted(rot[30:]) == [r for r in range(36) if r // 6 != r % 6]
    with pytest.raises(ValueError, match="first_roll"):
        rollout(b, trials=36, first_roll="no-doubles")


# ---- the quasi-random dice ------------------------------------------------------------------

def _kernel_dice(seed, games, ply, rotate=True, opening=_play.OPENING_REROLL):
    """Ordered roll codes (d1 - 1) * 6 + (d2 - 1) the kernel deals to ``games`` at ``ply``."""
    no_doubles = opening == _play.OPENING_NO_DOUBLES
    rot = (_setup.dice_rotation(seed, no_doubles_first=no_doubles) if rotate
           else np.zeros((0, 36), np.int64))
    useed = np.uint64(seed)
    out = np.empty(len(games), np.int64)
    for i, g in enumerate(games):
        d1, d2 = _play.turn_dice(useed, np.int64(g), np.int64(ply), np.int64(0), np.int64(0),
                                 np.int64(opening), rot)
        out[i] = (d1 - 1) * 6 + (d2 - 1)
    return out


@pytest.mark.parametrize("seed", [0, 12345, 2**64 - 1])
def test_stratification_of_first_two_rolls(seed):
    for base in (0, 1296 * 7):                  # two aligned blocks of 1,296 games
        games = np.arange(base, base + 1296)
        first = _kernel_dice(seed, games, 0)
        second = _kernel_dice(seed, games, 1)
        assert first.min() >= 0 and first.max() < 36 and second.max() < 36
        for q in range(36):                     # every aligned block of 36
            blk = slice(36 * q, 36 * q + 36)
            assert sorted(first[blk]) == list(range(36)), (base, q)
            assert sorted(second[blk]) == list(range(36)), (base, q)
        pairs = set(zip(first.tolist(), second.tolist()))
        assert len(pairs) == 1296, base
        # Deeper rolls stay counter-based random: the plain dice of the game.
        third = _kernel_dice(seed, games, 2)
        plain = [(d1 - 1) * 6 + (d2 - 1)
                 for d1, d2 in (_dice.roll(np.uint64(seed), np.int64(g), np.int64(2))
                                for g in games)]
        assert third.tolist() == plain
        assert len(set(third[:36].tolist())) < 36      # not stratified (fixed seeds)
    # Without rotation the first roll is the plain counter-based roll too.
    g = np.arange(36)
    assert _kernel_dice(seed, g, 0, rotate=False).tolist() == [
        (d1 - 1) * 6 + (d2 - 1)
        for d1, d2 in (_dice.roll(np.uint64(seed), np.int64(x), np.int64(0)) for x in g)]


def test_rotation_is_seeded():
    a, b = _setup.dice_rotation(1), _setup.dice_rotation(2)
    assert a.shape == (2, 36) and (np.sort(a, axis=1) == np.arange(36)).all()
    assert (a == _setup.dice_rotation(1)).all() and not (a == b).all()


# ---- reproducibility, threads, chunks -------------------------------------------------------

RACE = board({12: 2, 9: 2, 8: 3, 6: 4, 5: 2, 4: 2}, {12: 1, 10: 2, 8: 3, 7: 2, 6: 4, 5: 3})


@pytest.mark.parametrize("kw", [{}, {"variance_reduction": True, "evaluator": "race"},
                                {"truncate": 7, "evaluator": "race"}],
                         ids=["plain", "vr", "truncated"])
def test_reproducible_and_thread_independent(kw):
    runs = [rollout(RACE, trials=648, seed=4, threads=t, **kw).to_dict()
            for t in (1, 2, None)]
    assert runs[0] == runs[1] == runs[2]
    other = rollout(RACE, trials=648, seed=5, **kw)
    assert other.equity != runs[0]["equity"]


def test_chunk_size_changes_no_game():
    """The trials are the same whatever the chunks; sums are per chunk, so only float
    rounding may differ (integer outcomes: not even that)."""
    a = rollout(START_ID, trials=1296, seed=8)
    b = rollout(START_ID, trials=1296, seed=8, chunk_size=500)
    da, db = a.to_dict(), b.to_dict()
    assert da.pop("settings")["chunk_size"] == 1296 and db.pop("settings")["chunk_size"] == 500
    assert da == db
    kw = {"trials": 1296, "seed": 8, "variance_reduction": True, "evaluator": "race"}
    a = rollout(RACE, **kw)
    b = rollout(RACE, chunk_size=700, **kw)
    np.testing.assert_allclose(a.probabilities + [a.equity], b.probabilities + [b.equity],
                               rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(a.probabilities_se + [a.equity_se],
                               b.probabilities_se + [b.equity_se], rtol=1e-9, atol=1e-14)


# ---- resume ---------------------------------------------------------------------------------

def _lines(path):
    with open(path) as f:
        return f.read().split("\n")


@pytest.mark.parametrize("kw", [{}, {"variance_reduction": True, "evaluator": "race"}],
                         ids=["plain", "vr"])
def test_resume_after_crash_is_bit_identical(tmp_path, kw):
    args = dict(trials=648, seed=3, chunk_size=162, **kw)
    full = tmp_path / "full.jsonl"
    want = rollout(RACE, out=str(full), **args)
    lines = _lines(full)
    assert len(lines) == 1 + 4 + 1 and lines[-1] == ""      # header, 4 chunks, final newline
    assert json.loads(lines[0])["settings"] == want.settings
    for cut_chunks in (0, 2, 3):
        crashed = tmp_path / f"crash{cut_chunks}.jsonl"
        half = lines[1 + cut_chunks][: len(lines[1 + cut_chunks]) // 2]
        crashed.write_text("\n".join(lines[: 1 + cut_chunks]) + "\n" + half)
        got = rollout(RACE, out=str(crashed), resume=True, **args)
        assert got.to_dict() == want.to_dict(), cut_chunks
        assert crashed.read_text() == full.read_text()      # the file is whole again
    # A finished file resumes to the same figures, playing nothing.
    again = rollout(RACE, out=str(full), resume=True, **args)
    assert again.to_dict() == want.to_dict()
    # Resume of a file that does not exist yet simply starts it.
    fresh = tmp_path / "fresh.jsonl"
    assert rollout(RACE, out=str(fresh), resume=True, **args).to_dict() == want.to_dict()


def _interrupting(fail_at):
    """The race evaluator, raising KeyboardInterrupt (Ctrl-C) on call ``fail_at``."""
    race = race_evaluator()
    calls = [0]

    def race_or_ctrl_c(boards):
        calls[0] += 1
        if fail_at is not None and calls[0] == fail_at:
            raise KeyboardInterrupt
        return race(boards)
    return race_or_ctrl_c


def test_ctrl_c_leaves_a_valid_file_and_resume_finishes(tmp_path):
    # Truncated trials call the evaluator once per chunk: Ctrl-C in the third chunk.
    args = dict(trials=2000, seed=6, chunk_size=500, truncate=9)
    path = tmp_path / "r.jsonl"
    part = rollout(RACE, out=str(path), evaluator=_interrupting(3), **args)
    assert part.partial and part.trials == 1000
    recs = [json.loads(x) for x in _lines(path) if x]
    assert recs[0]["job"] == "rollout" and [r["lo"] for r in recs[1:]] == [0, 500]
    got = rollout(RACE, out=str(path), resume=True, evaluator=_interrupting(None), **args)
    want = rollout(RACE, evaluator=_interrupting(None), **args)
    assert not got.partial and got.to_dict() == want.to_dict()


@pytest.mark.parametrize("change, name", [
    ({"seed": 4}, "seed"), ({"trials": 1944}, "trials"), ({"rotate": False}, "rotate"),
    ({"chunk_size": 324}, "chunk_size"), ({"bot": "greedy"}, "bot"),
    ({"truncate": 5, "evaluator": "race"}, "truncate"),
])
def test_resume_with_other_settings_is_refused(tmp_path, change, name):
    path = tmp_path / "r.jsonl"
    base = dict(trials=1296, seed=3, chunk_size=648)
    rollout(RACE, out=str(path), **base)
    before = path.read_text()
    with pytest.raises(ValueError, match=name):
        rollout(RACE, out=str(path), resume=True, **{**base, **change})
    assert path.read_text() == before
    other = tmp_path / "junk.jsonl"
    other.write_text("not json\n")
    with pytest.raises(ValueError, match="not a fastbg rollout file"):
        rollout(RACE, out=str(other), resume=True, **base)


# ---- truncation and variance reduction ------------------------------------------------------

@pytest.mark.parametrize("vr", [False, True])
@pytest.mark.parametrize("position", [START_ID, RACE])
def test_truncate_zero_is_the_evaluator(position, vr):
    b = fastbg.position.ids.board_from_position_id(position) if isinstance(position, str) else position
    want = race_probabilities(b)
    res = rollout(position, trials=100, truncate=0, evaluator="race",
                         variance_reduction=vr)
    # The mean of equal values: exact up to the rounding of sum / n.
    np.testing.assert_allclose(res.probabilities, want, rtol=1e-14, atol=1e-16)
    np.testing.assert_allclose(res.probabilities_se + [res.equity_se], 0.0, atol=1e-9)
    # A function works as the evaluator too.
    res = rollout(position, trials=10, truncate=0, evaluator=race_evaluator())
    np.testing.assert_allclose(res.probabilities, want, rtol=1e-14, atol=1e-16)


@pytest.mark.parametrize("position", [START_ID, RACE])
def test_truncation_past_the_game_end_changes_nothing(position):
    plain = rollout(position, trials=1296, seed=2).to_dict()
    long = rollout(position, trials=1296, seed=2, truncate=10_000,
                          evaluator="race").to_dict()
    s1, s2 = plain.pop("settings"), long.pop("settings")
    assert plain == long
    assert {k for k in s1 if s1[k] != s2[k]} == {"truncate", "evaluator"}


def test_truncated_estimate_is_near_the_full_one_in_a_race():
    full = rollout(RACE, trials=2592, seed=2)
    cut = rollout(RACE, trials=2592, seed=2, truncate=8, evaluator="race")
    assert abs(full.equity - cut.equity) < 0.15
    assert cut.equity_se < full.equity_se        # a smooth evaluator ends part of the luck


def test_variance_reduction_lowers_the_error_in_a_race():
    plain = rollout(RACE, trials=2592, seed=11)
    vr = rollout(RACE, trials=2592, seed=11, variance_reduction=True, evaluator="race")
    assert vr.equity_se < 0.5 * plain.equity_se
    assert vr.probabilities_se[0] < 0.5 * plain.probabilities_se[0]
    # Both estimate the same thing (same bot): within 3 joint standard errors.
    assert abs(vr.equity - plain.equity) <= 3 * math.hypot(vr.equity_se, plain.equity_se)


# ---- positions in other notations -----------------------------------------------------------

def test_position_id_board_and_xgid_give_the_same_rollout():
    by_board = rollout(fastbg.START, trials=1296, seed=7).to_dict()
    by_id = rollout(START_ID, trials=1296, seed=7).to_dict()
    assert by_board == by_id
    for turn in ("bottom", "top"):
        x = xgid(fastbg.START, turn=turn)
        by_x = rollout(x, trials=1296, seed=7).to_dict()
        assert by_x.pop("settings")["position"] == x
        assert by_x == {k: v for k, v in by_id.items() if k != "settings"}
    # A race given as an XGID (top on roll) is the same board.
    x = xgid(RACE, turn="top")
    assert (rollout(x, trials=1296, seed=7).probabilities
            == rollout(RACE, trials=1296, seed=7).probabilities)


# ---- cubeful money and match ----------------------------------------------------------------

def test_cubeful_money_is_sane():
    res = rollout(START_ID, trials=2592, seed=1, rules=fastbg.MoneyRules())
    assert res.cubeful is not None and 0 < res.cubeful_se < 0.1
    assert abs(res.cubeful) < 0.5 and abs(res.cubeful - res.equity) < 0.3
    assert "cubeful equity" in res.table() and "cubeful" in res.ci95()


def test_cubeful_money_without_cube_action_is_the_cubeless_score():
    """With both cube strategies 'never', the cubeful trials are the cubeless ones scored in
    points: the equity itself without the Jacoby rule, wins minus losses with it."""
    kw = dict(trials=2592, seed=2, cube=("never", "never"))
    res = rollout(START_ID, rules=fastbg.MoneyRules(jacoby=False), **kw)
    assert res.cubeful == pytest.approx(res.equity, abs=1e-12)
    res = rollout(START_ID, rules=fastbg.MoneyRules(jacoby=True), **kw)
    assert res.cubeful == pytest.approx(2 * res.probabilities[0] - 1, abs=1e-12)
    # Per unit of the initial cube: a cube of 2 owned by the opponent (who never redoubles).
    x = xgid(fastbg.START, cube_value=2, cube_owner="top")
    res2 = rollout(x, rules=fastbg.MoneyRules(jacoby=False), **kw)
    assert res2.cubeful == pytest.approx(res2.equity, abs=1e-12)
    assert res2.settings["initial_cube"] == 2


def test_cubeful_money_in_a_decided_ending():
    """6-point against the ace with a cube of 2 the opponent owns: the mover cannot double,
    the first roll decides, and rotation makes the estimate exact: +1/2 per unit."""
    x = xgid(board({6: 1}, {1: 1}), cube_value=2, cube_owner="top")
    res = rollout(x, trials=1296, seed=4, rules=fastbg.MoneyRules())
    assert res.cubeful == 0.5 and res.equity == 0.5


def _mwc_from_probs(p, away0, away1):
    w, wg, wbg, lg, lbg = p
    return ((w - wg) * mwc_after(away0, away1, 1) + (wg - wbg) * mwc_after(away0, away1, 2)
            + wbg * mwc_after(away0, away1, 3) + (1 - w - lg) * mwc_after(away0, away1, -1)
            + (lg - lbg) * mwc_after(away0, away1, -2) + lbg * mwc_after(away0, away1, -3))


def test_match_rollout_at_a_score():
    # Bottom (on roll) has 2, top 3 in a 5-point match: 3-away, 2-away.
    x = xgid(fastbg.START, match_length=5, score_bottom=2, score_top=3)
    res = rollout(x, trials=2592, seed=1, rules=fastbg.MatchRules(5))
    assert 0 <= res.cubeful <= 1 and 0 < res.cubeful_se < 0.05
    assert abs(res.cubeful - fastbg.met.equity(3, 2)) < 0.1
    assert res.settings["match"] and "match-winning chance" in res.table()
    # Without cube action the winning chance follows from the five probabilities.
    nc = rollout(x, trials=2592, seed=1, rules=fastbg.MatchRules(5),
                        cube=("never", "never"))
    assert nc.cubeful == pytest.approx(_mwc_from_probs(nc.probabilities, 3, 2), abs=1e-12)
    # Top on roll: the scores are seen from the player on roll.
    xt = xgid(fastbg.START, match_length=5, score_bottom=2, score_top=3, turn="top")
    nt = rollout(xt, trials=2592, seed=1, rules=fastbg.MatchRules(5),
                        cube=("never", "never"))
    assert nt.cubeful == pytest.approx(_mwc_from_probs(nt.probabilities, 2, 3), abs=1e-12)
    with pytest.raises(ValueError, match="5"):
        rollout(x, trials=36, rules=fastbg.MatchRules(7))
    with pytest.raises(ValueError, match="money"):
        rollout(xgid(fastbg.START), trials=36, rules=fastbg.MatchRules(5))


def test_truncated_match_rollout_stays_a_probability():
    """The mover wins for sure, a gammon 3 times in 4, at 1-away (Crawford) against 3-away:
    every trial's match-winning chance, truncated or not, lies in [0, 1]."""
    x = xgid(board({6: 1}, {1: 15}), match_length=5, score_bottom=4, score_top=2,
             crawford=True)
    full = rollout(x, trials=1296, rules=fastbg.MatchRules(5))
    assert full.cubeful == 1.0
    for t in (0, 1):
        cut = rollout(x, trials=1296, rules=fastbg.MatchRules(5), truncate=t,
                             evaluator="race")
        assert 0.0 <= cut.cubeful <= 1.0, (t, cut.cubeful)


def test_match_rollout_of_a_position_id_plays_at_0_0():
    """A Position ID (or board) carries no score: the match rollout is at 0-0."""
    res = rollout(START_ID, trials=1296, seed=1, rules=fastbg.MatchRules(5),
                         cube=("never", "never"))
    assert res.cubeful == pytest.approx(_mwc_from_probs(res.probabilities, 5, 5), abs=1e-12)


# ---- bad input ------------------------------------------------------------------------------

@pytest.mark.parametrize("kw, fragment", [
    ({"truncate": 5}, "evaluator"),
    ({"variance_reduction": True}, "evaluator"),
    ({"truncate": 5, "evaluator": "nope"}, "unknown evaluator"),
    ({"trials": 0}, "trials"),
    ({"trials": 1.5}, "trials"),
    ({"chunk_size": 0}, "chunk_size"),
    ({"truncate": -1, "evaluator": "race"}, "truncate"),
    ({"seed": -1}, "seed"),
    ({"truncate": 0, "evaluator": lambda b: np.zeros((len(b), 4))}, "shape"),
    ({"truncate": 0, "evaluator": lambda b: np.full((len(b), 5), np.nan)}, "non-finite"),
])
def test_bad_arguments(kw, fragment):
    with pytest.raises(ValueError, match=fragment):
        rollout(START_ID, **{"trials": 36, **kw})


@pytest.mark.parametrize("position", [
    "not-an-id", "XGID=garbage", np.zeros(26, np.int8) + 1, np.stack([fastbg.START] * 2),
    np.zeros(25, np.int8),
])
def test_bad_positions(position):
    with pytest.raises(ValueError):
        rollout(position, trials=36)


def test_evaluator_must_be_callable():
    with pytest.raises(TypeError):
        rollout(START_ID, trials=36, truncate=3, evaluator=3)


# ---- the command line -----------------------------------------------------------------------

click_testing = pytest.importorskip("click.testing", reason="the CLI needs click")
from fastbg.cli import main  # noqa: E402


def cli(*args):
    bot = () if "--bot" in args else ("--bot", "pubeval")
    return click_testing.CliRunner().invoke(main, ["rollout", *map(str, args), *bot])


def test_cli_rollout_table_and_json(tmp_path):
    out = tmp_path / "r.json"
    res = cli(START_ID, "--trials", 1296, "--seed", 1, "--no-progress", "--json", out)
    assert res.exit_code == 0, res.output
    assert "cubeless equity" in res.output and "trials     1,296" in res.output
    d = json.loads(out.read_text())
    api = rollout(START_ID, trials=1296, seed=1).to_dict()
    assert {k: d[k] for k in api} == json.loads(json.dumps(api))
    res = cli(START_ID, "--trials", 1296, "--no-progress", "--money")
    assert res.exit_code == 0 and "cubeful equity" in res.output, res.output
    x = xgid(fastbg.START, match_length=5, score_bottom=2, score_top=3)
    res = cli(x, "--trials", 1296, "--no-progress", "--match", 5)
    assert res.exit_code == 0 and "match-winning chance" in res.output, res.output
    res = cli(xgid(RACE), "--trials", 1296, "--no-progress", "--vr", "--evaluator", "race",
              "--truncate", 6)
    assert res.exit_code == 0, res.output


def test_cli_out_and_resume(tmp_path):
    full, crashed = tmp_path / "full.jsonl", tmp_path / "crash.jsonl"
    ja, jb = tmp_path / "a.json", tmp_path / "b.json"
    common = (START_ID, "--trials", 3888, "--seed", 5, "--no-progress")
    res = cli(*common, "--out", full, "--json", ja)
    assert res.exit_code == 0, res.output
    lines = _lines(full)
    crashed.write_text("\n".join(lines[:2]) + "\n" + lines[2][:40])
    res = cli(*common, "--out", crashed, "--resume", "--json", jb)
    assert res.exit_code == 0, res.output
    a, b = json.loads(ja.read_text()), json.loads(jb.read_text())
    a.pop("seconds"), b.pop("seconds")
    assert a == b
    assert crashed.read_text() == full.read_text()
    res = cli(*common[:3], "--seed", 6, "--no-progress", "--out", crashed, "--resume")
    assert res.exit_code != 0 and "seed" in res.output


@pytest.mark.parametrize("args, fragment", [
    (("--resume",), "--out"),
    (("--vr",), "evaluator"),
    (("--evaluator", "nope"), "nope"),
    (("--money", "--match", "5"), "not both"),
    (("--trials", "0"), "trials"),
])
def test_cli_bad_input(args, fragment):
    res = cli(START_ID, "--no-progress", *args)
    assert res.exit_code != 0
    assert fragment in res.output, res.output


def test_xgid_with_dice_or_pending_double_is_refused():
    """A rollout starts with the player on roll still to roll."""
    from fastbg.position.ids import xgid
    with pytest.raises(ValueError, match="still to roll"):
        rollout(xgid(fastbg.START, dice=(3, 1)), trials=36)
    with pytest.raises(ValueError, match="MatchRules"):
        rollout(xgid(fastbg.START, match_length=5), trials=36, rules=fastbg.MoneyRules())


@numba.njit
def _fewest_pips(before, candidates, out):
    for i in range(candidates.shape[0]):
        pips = 0
        for p in range(1, 26):
            if candidates[i, p] > 0:
                pips += p * candidates[i, p]
        out[i] = -pips


def test_variance_reduction_refuses_plugins_but_not_the_built_in_markers():
    """A scorer plug-in is a numba function in a slot: variance reduction refuses it. The
    race Janowski cube is a built-in marker (RACE_PROBS), not a plug-in."""
    from fastbg.evaluators.race import race_cube
    from fastbg.sim.setup import job_setup
    bot = fastbg.ScorerBot(_fewest_pips, "fewest-pips")
    assert job_setup(bots=(bot, "pubeval")).has_plugins
    cubes = dict(rules=fastbg.MoneyRules(), cube=(race_cube(), race_cube()))
    assert not job_setup(bots=("pubeval", "pubeval"), **cubes).has_plugins
    with pytest.raises(ValueError, match="variance reduction supports the built-in bots"):
        rollout(RACE, trials=36, bot=bot, variance_reduction=True, evaluator="race")
