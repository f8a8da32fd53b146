"""The exact no-contact DP (tests/reference/exact.py), and rollouts checked against it.

* Hand-derived values (the derivation beside each) for small endings, gammons and backgammons.
* Certification: on the listed positions every legal result of every roll has the same value
  (else PolicyDependent); positions where a choice matters are rejected.
* Symmetry and consistency: one step of the recursion rebuilt through the public function,
  mirrored positions, the value not depending on how the board is given or which move
  generator (reference or fastbg) lists the results.
* Rollouts: fastbg.play from certified positions, with any bots, lands on the exact values.
"""
from fractions import Fraction as F

import numpy as np
import pytest

import fastbg
from reference.exact import (ROLLS, ExactRace, PolicyDependent, TooLarge, exact_probabilities,
                             flip, on_board, side_key, swap, terminal_value)
from reference.movegen import legal_moves_ref, make_board

ONE, ZERO = F(1), F(0)


def board(mine, theirs):
    """Board from {point: count}: the mover's in his numbering, the opponent's in HIS own."""
    return make_board(mine, {25 - p: n for p, n in theirs.items()})


# (mover, opponent, exact (win, wg, wbg, lg, lbg)), derived by hand.
HAND = [
    # One checker on the 6-point against one on the ace: the mover bears off at once unless
    # the roll moves him less than 6 pips: 2-1, 3-1, 4-1, 3-2 (two ways each) and 1-1;
    # 9/36 fail, then the opponent bears off with any roll.
    ({6: 1}, {1: 1}, (F(27, 36), ZERO, ZERO, ZERO, ZERO)),
    # Same against one checker on the opponent's 6-point: the mover wins 27/36 at once; after
    # failing he stands on his 3-, 2- or 1-point and the opponent too fails with 9/36, and
    # the mover then bears off with any roll: 3/4 + (1/4)(1/4) = 13/16.
    ({6: 1}, {6: 1}, (F(13, 16), ZERO, ZERO, ZERO, ZERO)),
    # Two on the 6-point against the ace: only 3-3, 4-4, 5-5, 6-6 bear both off: 4/36.
    ({6: 2}, {1: 1}, (F(1, 9), ZERO, ZERO, ZERO, ZERO)),
    # 7- and 1-point: the 7 needs both dice of a non-double, so only doubles 3-3..6-6 do it.
    ({7: 1, 1: 1}, {1: 2}, (F(1, 9), ZERO, ZERO, ZERO, ZERO)),
    # Two on the 2-point against two on the ace: every roll bears both off except a
    # non-double with a 1 (10/36; 1-1 plays four ones): 26/36.
    ({2: 2}, {1: 2}, (F(13, 18), ZERO, ZERO, ZERO, ZERO)),
    # Two on the 3-point: both dice >= 3 (16/36) or 2-2: 17/36.
    ({3: 2}, {1: 2}, (F(17, 36), ZERO, ZERO, ZERO, ZERO)),
    # Two on the 2-point each: 26/36, else the opponent fails with 10/36 and the mover, left
    # with one checker on his ace, wins: 26/36 + (10/36)^2 = 259/324.
    ({2: 2}, {2: 2}, (F(259, 324), ZERO, ZERO, ZERO, ZERO)),
    # Three on the ace each: doubles finish (6/36), non-doubles leave one checker; then the
    # opponent likewise, and the mover finishes: 1/6 + (5/6)^2 = 31/36.
    ({1: 3}, {1: 3}, (F(31, 36), ZERO, ZERO, ZERO, ZERO)),
    # Gammon: 15 opposing checkers on the opponent's ace; the mover (one checker on his 6,
    # 14 off) finishes within two rolls, before the opponent can; it is a gammon when he
    # finishes at once (27/36), else the opponent has borne off two or four.
    ({6: 1}, {1: 15}, (ONE, F(3, 4), ZERO, ZERO, ZERO)),
    # Gammon for sure: 15 opposing checkers on his 13-point cannot bear off in two rolls;
    # none is in the mover's home board, so no backgammon.
    ({6: 1}, {13: 15}, (ONE, ONE, ZERO, ZERO, ZERO)),
    # Backgammon: the mover bears off his 2-point checker with any roll while an opposing
    # checker sits on the opponent's 22-point (the mover's 3-point, his home board).
    ({2: 1}, {22: 1, 13: 14}, (ONE, ONE, ONE, ZERO, ZERO)),
    # Lost gammon: the mover moves his 15 checkers from his 12-point once (none can get home),
    # then the opponent bears off his last checker, on his ace, with any roll.
    ({12: 15}, {1: 1}, (ZERO, ZERO, ZERO, ONE, ZERO)),
    # Lost backgammon: from the mover's 19-point (the opponent's home board) at most four of
    # the 15 checkers leave in one roll.
    ({19: 15}, {1: 1}, (ZERO, ZERO, ZERO, ONE, ONE)),
]

# Certified by the DP (values not derived by hand): single checkers, longer races.
CERTIFIED = [(m, o) for m, o, _ in HAND] + [
    ({8: 1}, {5: 1}), ({9: 1}, {6: 1}), ({12: 1}, {12: 1}), ({10: 1}, {10: 1}),
    ({15: 1}, {9: 1}), ({1: 3}, {2: 2}),
]

# A legal choice somewhere changes the value: these must be rejected.
POLICY_DEPENDENT = [
    # 6-1 (and others) from the 7- and 1-points: bear off one checker or none; the gammon
    # the mover can still lose depends on it.
    ({1: 14, 7: 1}, {6: 1}),
    # The opponent's 15 checkers on his 6-point: with 5-1 he may bear one off (saving the
    # gammon) or not.
    ({6: 1}, {6: 15}),
    # A wasteful play exists: from the 4- and 1-points, 6-3 bears both off, but 3-then-6
    # (4/1, 1/off) leaves one.
    ({6: 1, 5: 1, 4: 1}, {6: 1, 5: 1, 4: 1}),
    # Even two checkers: 6-1 from the 2- and 1-points bears both off, or (2/1, 1/off) one.
    ({2: 1, 1: 1}, {2: 1, 1: 1}),
]


@pytest.fixture(scope="module")
def dp():
    return ExactRace()


def test_known_value_six_point_against_ace():
    win, wg, wbg, lg, lbg = exact_probabilities(board({6: 1}, {1: 1}))
    assert win == F(27, 36) and (wg, wbg, lg, lbg) == (0, 0, 0, 0)


@pytest.mark.parametrize("mine, theirs, want", HAND)
def test_hand_derived(dp, mine, theirs, want):
    assert dp.value(board(mine, theirs)) == want


@pytest.mark.parametrize("mine, theirs", CERTIFIED)
def test_certified_and_consistent(dp, mine, theirs):
    """Certified (no error), in range, and equal to one step of the recursion rebuilt here."""
    b = board(mine, theirs)
    v = dp.value(b)
    win, wg, wbg, lg, lbg = v
    assert 0 <= wbg <= wg <= win <= 1 and 0 <= lbg <= lg <= 1 - win
    # One step: every result of every roll, each valued on its own.
    total = [ZERO] * 5
    for dice, prob in ROLLS:
        values = set()
        for r in legal_moves_ref(b, dice):
            values.add(terminal_value(r) if on_board(r)[0] == 0 else swap(dp.value(flip(r))))
        assert len(values) == 1, (dice, values)
        (rv,) = values
        total = [t + prob * x for t, x in zip(total, rv)]
    assert tuple(total) == v
    assert sum(p for _, p in ROLLS) == 1


@pytest.mark.parametrize("mine, theirs", POLICY_DEPENDENT)
def test_policy_dependent_positions_are_rejected(mine, theirs):
    with pytest.raises(PolicyDependent, match="roll"):
        exact_probabilities(board(mine, theirs))


@pytest.mark.parametrize("mine, theirs", CERTIFIED + POLICY_DEPENDENT)
def test_fastbg_move_generator_gives_the_same_answers(mine, theirs):
    b = board(mine, theirs)
    try:
        want = exact_probabilities(b)
    except PolicyDependent:
        with pytest.raises(PolicyDependent):
            exact_probabilities(b, moves=fastbg.legal_moves)
        return
    got = exact_probabilities(np.array(b, np.int8), moves=fastbg.legal_moves)
    assert got == want


def test_symmetries(dp):
    # Mirrored sides: the board is its own flip, and the roll in hand is worth something.
    for side in ({6: 1}, {2: 2}, {1: 3}, {12: 1}, {9: 1}):
        b = board(side, side)
        assert flip(b) == b
        win, wg, wbg, lg, lbg = dp.value(b)
        assert win > F(1, 2) and wg >= lg and wbg >= lbg
    # The memo key names each side in its own numbering: flipping swaps the two halves.
    b = board({6: 1, 2: 1}, {13: 14, 1: 1})
    mine, theirs = side_key(b)
    assert side_key(flip(b)) == (theirs, mine)
    assert mine == ((2, 1), (6, 1)) and theirs == ((1, 1), (13, 14))
    # The value does not depend on how the board is given.
    b = board({12: 1}, {12: 1})
    want = exact_probabilities(b)
    assert exact_probabilities(list(b)) == want
    assert exact_probabilities(np.array(b, np.int64)) == want
    # Swapping twice is the identity, and win + lose = 1 after a swap.
    v = dp.value(board({6: 1}, {1: 15}))
    assert swap(swap(v)) == v and swap(v)[0] == 1 - v[0]


def test_bad_input():
    with pytest.raises(ValueError, match="no-contact"):
        exact_probabilities(fastbg.START)
    with pytest.raises(ValueError, match="over"):
        exact_probabilities(make_board({}, {12: 3}))
    with pytest.raises(TooLarge):
        ExactRace(max_states=50, certify=False).value(board({6: 5, 5: 5, 4: 5}, {6: 5, 5: 5, 4: 5}))


# ---- rollouts against the exact values -----------------------------------------------------

ROLLOUT_CASES = [
    ({12: 1}, {12: 1}),          # win 420769891/544195584, a few rolls each
    ({2: 2}, {2: 2}),            # 259/324
    ({1: 3}, {1: 3}),            # 31/36
    ({6: 1}, {1: 15}),           # gammons 3/4
]


@pytest.mark.parametrize("bots", [("pubeval", "pubeval"), ("random", "greedy")])
@pytest.mark.parametrize("mine, theirs", ROLLOUT_CASES)
def test_rollouts_match_exact(mine, theirs, bots):
    """Certified positions have one value under every policy, so any bots must hit it."""
    b = board(mine, theirs)
    win, wg, wbg, lg, lbg = (float(x) for x in exact_probabilities(b))
    n = 20_000
    res = fastbg.play(n, bots, seed=11, start=np.array(b, np.int8))
    won = res.winner == 0
    observed = {
        "win": (won.mean(), win),
        "wg": ((won & (res.kind >= 2)).mean(), wg),
        "wbg": ((won & (res.kind == 3)).mean(), wbg),
        "lg": ((~won & (res.kind >= 2)).mean(), lg),
        "lbg": ((~won & (res.kind == 3)).mean(), lbg),
    }
    for name, (got, p) in observed.items():
        sd = np.sqrt(p * (1 - p) / n)
        assert abs(got - p) <= 5 * sd + 1e-12, (name, got, p)
