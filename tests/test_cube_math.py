"""Tests of fastbg.cube: money take points and Janowski equities, match take points and
gammon values, cubeful MWCs, and the race formulas (Keith, Thorp, 8-9-12) with their kernels.

Worked numbers come from docs/cube.md (sections 2-4) and the sources it cites.
"""
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastbg import START, cube
from fastbg.cube import keith_kernels as cuberace
from fastbg.position.board import flip, render
from fastbg.cube.met import MET, equity, mwc_after
from strategies import positions

GAMMONLESS = (1.0, 1.0)


def probs(win, gammon_share=0.0, bg_share=0.0, lose_gammon_share=0.0, lose_bg_share=0.0):
    """Cumulative probabilities from P(win) and the shares of wins / losses that are gammons
    (backgammons included) and backgammons."""
    lose = 1.0 - win
    return np.array([win, win * gammon_share, win * bg_share,
                     lose * lose_gammon_share, lose * lose_bg_share])


# ================================================================= money play

def test_cubeless_equity_counts_gammons_and_backgammons_once_more_each():
    # W=0.6 of which 0.2 gammons (0.05 backgammons); L=0.4 of which 0.1 gammons (0.01 bg)
    p = [0.6, 0.2, 0.05, 0.1, 0.01]
    singles = (0.6 - 0.2) - (0.4 - 0.1)
    gammons = 2 * (0.2 - 0.05) - 2 * (0.1 - 0.01)
    bgs = 3 * 0.05 - 3 * 0.01
    assert cube.cubeless_equity(p) == pytest.approx(singles + gammons + bgs)
    assert cube.cubeless_equity([0.5, 0, 0, 0, 0]) == 0.0
    out = cube.cubeless_equity(np.array([p, [1, 1, 1, 0, 0], [0, 0, 0, 1, 1]]))
    np.testing.assert_allclose(out, [0.34, 3.0, -3.0])


@pytest.mark.parametrize("p", [
    [0.5, 0.6, 0, 0, 0],       # more gammons than wins
    [0.5, 0.1, 0.2, 0, 0],     # more backgammons than gammons
    [0.7, 0, 0, 0.4, 0],       # more losing gammons than losses
    [1.2, 0, 0, 0, 0],
    [0.5, 0, 0, 0],            # four values
    [np.nan, 0, 0, 0, 0],
])
def test_inconsistent_probabilities_are_refused(p):
    with pytest.raises(ValueError):
        cube.cubeless_equity(p)


def test_average_win_and_loss():
    assert cube.average_win_loss([0.7, 0.2, 0.0, 0.1, 0.0]) == pytest.approx((9 / 7, 4 / 3))
    assert cube.average_win_loss([0.5, 0, 0, 0, 0]) == (1.0, 1.0)
    assert cube.average_win_loss([0.0, 0, 0, 0.3, 0.1]) == pytest.approx((1.0, 1.4))
    assert cube.average_win_loss([1.0, 0.5, 0.5, 0, 0]) == pytest.approx((2.0, 1.0))


def test_money_take_and_cash_points_gammon_free():
    assert cube.take_point_money(GAMMONLESS) == 0.25                 # dead cube
    assert cube.take_point_money(GAMMONLESS, x=1.0) == 0.2           # live cube
    assert cube.take_point_money([0.3, 0, 0, 0, 0], x=1.0) == 0.2    # from probabilities
    assert cube.cash_point_money(GAMMONLESS, x=1.0) == pytest.approx(0.8)
    assert cube.cash_point_money(GAMMONLESS) == pytest.approx(0.75)
    # x in between: TP(x) = 1 / (4 + x)
    assert cube.take_point_money(GAMMONLESS, x=0.68) == pytest.approx(1 / 4.68)


def test_money_take_point_with_gammons():
    # W = 9/7, L = 4/3: TP0 = (5/6) / (55/21) = 7/22, TP1 = (5/6) / (131/42) = 35/131
    p = [0.7, 0.2, 0.0, 0.1, 0.0]
    assert cube.take_point_money(p) == pytest.approx(7 / 22)
    assert cube.take_point_money(p, x=1) == pytest.approx(35 / 131)
    assert cube.take_point_money((9 / 7, 4 / 3), x=1) == pytest.approx(35 / 131)
    # gnubg's live cash point (L + 1) / (W + L + 1/2)
    live_cp = (4 / 3 + 1) / (9 / 7 + 4 / 3 + 0.5)
    assert cube.cash_point_money((9 / 7, 4 / 3), x=1) == pytest.approx(live_cp)
    with pytest.raises(ValueError, match="at least 1"):
        cube.take_point_money((0.5, 1.0))
    with pytest.raises(ValueError, match="0..1"):
        cube.take_point_money(GAMMONLESS, x=1.5)


@pytest.mark.parametrize("owner", ["centred", "owned", "unavailable"])
def test_janowski_dead_cube_is_cubeless(owner):
    p = [0.62, 0.15, 0.01, 0.08, 0.004]
    assert cube.janowski_equity(p, owner, 0.0) == pytest.approx(cube.cubeless_equity(p))


def test_janowski_live_cube_hits_the_corner_points():
    """E_live passes through (0, -L), (TP, -1), (CP, +1), (1, +W) (gnubg MoneyLive)."""
    w, l = 1.3, 1.2             # gammon shares 0.3 of wins, 0.2 of losses
    tp = (l - 0.5) / (w + l + 0.5)
    cp = (l + 1.0) / (w + l + 0.5)

    def eq(pw, owner, jacoby=False):
        return cube.janowski_equity(probs(pw, 0.3, 0, 0.2, 0), owner, 1.0, jacoby=jacoby)

    assert eq(tp, "centred") == pytest.approx(-1.0)
    assert eq(cp, "centred") == pytest.approx(1.0)
    assert eq(cp, "owned") == pytest.approx(1.0)
    assert eq(tp, "unavailable") == pytest.approx(-1.0)
    # near the ends, the equity tends to -L and +W (exactly 0 and 1 give the dead equity)
    assert eq(1e-6, "centred") == pytest.approx(-l, abs=1e-4)
    assert eq(1 - 1e-6, "unavailable") == pytest.approx(w, abs=1e-4)
    # Jacoby, centred cube: flat at -1 below the take point and +1 above the cash point
    assert eq(tp / 2, "centred", jacoby=True) == -1.0
    assert eq((cp + 1) / 2, "centred", jacoby=True) == 1.0
    assert eq(tp / 2, "owned", jacoby=True) == eq(tp / 2, "owned")     # no effect when owned


def test_janowski_mixes_dead_and_live_with_x():
    # gammon-free, centred, P(win) = 0.65: E_dead = 0.3, E_live = -1 + 2 (0.45) / 0.6 = 0.5
    p = [0.65, 0, 0, 0, 0]
    assert cube.janowski_equity(p, "centred", 1.0) == pytest.approx(0.5)
    assert cube.janowski_equity(p, "centred", 0.68) == pytest.approx(0.3 * 0.32 + 0.5 * 0.68)
    assert cube.janowski_equity(p, "centre", 0.68, cube=4) == pytest.approx(4 * 0.436)
    batch = cube.janowski_equity(np.array([p, p]), "owned", 0.5)
    assert batch.shape == (2,)
    with pytest.raises(ValueError, match="cube owner"):
        cube.janowski_equity(p, "nobody", 0.5)


@pytest.mark.parametrize("pw, double, take", [
    (0.45, False, True),       # ND 2p-1 beats DT 2(2p-1) below 50%
    (0.6, True, True),
    (0.75, True, True),        # exactly the dead take point: a take
    (0.8, True, False),
])
def test_money_decision_dead_cube(pw, double, take):
    d = cube.cube_decision_money([pw, 0, 0, 0, 0], 0.0)
    assert d["no_double"] == pytest.approx(2 * pw - 1)
    assert d["double_take"] == pytest.approx(2 * (2 * pw - 1))
    assert d["double_pass"] == 1.0
    assert (d["double"], d["take"]) == (double, take)


def test_money_decision_live_cube_doubles_only_at_the_cash_point():
    """x = 1, gammon-free: DT > ND needs p > 0.8 = CP, where the opponent passes."""
    for pw in (0.6, 0.7, 0.79):
        d = cube.cube_decision_money([pw, 0, 0, 0, 0], 1.0)
        assert not d["double"] and d["take"]
    d = cube.cube_decision_money([0.85, 0, 0, 0, 0], 0.7)
    assert d["double"] and not d["take"]
    with pytest.raises(ValueError, match="opponent owns"):
        cube.cube_decision_money([0.85, 0, 0, 0, 0], 0.7, owner="unavailable")


@settings(max_examples=200, deadline=None)
@given(st.floats(0.0, 0.6), st.floats(0.0, 0.6), st.floats(0.0, 1.0))
def test_take_decision_boundary_is_janowskis_take_point(win_g, lose_g, x):
    """The doubler's P(win) at which DT = DP is 1 - TP(x) of the taker, TP(x) with the taker's
    W and L (the doubler's L and W): gnubg's piecewise model reproduces Janowski exactly."""
    w, l = 1 + win_g, 1 + lose_g
    boundary = 1.0 - cube.take_point_money((l, w), x=x)
    p = probs(boundary, win_g, 0, lose_g, 0)
    d = cube.cube_decision_money(p, x)
    assert d["double_take"] == pytest.approx(d["double_pass"], abs=1e-9)
    assert boundary == pytest.approx(cube.cash_point_money((w, l), x=x))


# ================================================================= match play

# docs/cube.md section 3: (taker away, doubler away): pass, take-lose, take-win, dead TP
ORACLE = [
    (5, 5, 0.4227, 0.3520, 0.6480, 0.2387),
    (3, 3, 0.4005, 0.2492, 0.7508, 0.3017),
    (2, 2, 0.3226, 0.0, 1.0, 0.3226),
    (7, 7, 0.4374, 0.3736, 0.6264, 0.2523),
    (2, 4, 0.5995, 0.5000, 1.0, 0.1989),
    (4, 2, 0.1856, 0.0, 0.5000, 0.3713),
]


@pytest.mark.parametrize("taker, doubler, pass_, take_lose, take_win, tp", ORACLE)
def test_dead_cube_take_points_oracle(taker, doubler, pass_, take_lose, take_win, tp):
    assert mwc_after(taker, doubler, -1) == pytest.approx(pass_, abs=5e-5)
    assert mwc_after(taker, doubler, -2) == pytest.approx(take_lose, abs=5e-5)
    assert mwc_after(taker, doubler, 2) == pytest.approx(take_win, abs=5e-5)
    assert cube.take_point_match(taker, doubler) == pytest.approx(tp, abs=5e-5)
    # the same with p = gammon-free probabilities
    assert cube.take_point_match(taker, doubler, p=[0.6, 0, 0, 0, 0]) == pytest.approx(tp, abs=5e-5)


@pytest.mark.parametrize("away, gv", [(5, 0.457), (7, 0.509), (9, 0.497), (4, 0.680),
                                      (3, 0.761), (2, 0.910)])
def test_gammon_values_oracle(away, gv):
    """docs/cube.md's values to within 1e-3 (its 3-3 value 0.761 is (0.75076 - 0.59947)
    / (0.59947 - 0.40053) = 0.76048 from the table, which rounds to 0.760)."""
    v = cube.gammon_values(away, away)
    assert v.win_gammon == pytest.approx(gv, abs=1e-3)
    assert v.lose_gammon == pytest.approx(gv, abs=1e-3)       # symmetric score


def test_gammon_value_3_3_from_the_table():
    assert cube.gammon_values(3, 3).win_gammon == pytest.approx(
        (0.75076 - 0.59947) / (0.59947 - 0.40053), abs=1e-12)


def test_gammon_values_definitions():
    v = cube.gammon_values(4, 7, cube=2)
    m = {k: mwc_after(4, 7, 2 * k) for k in (-3, -2, -1, 1, 2, 3)}
    span = m[1] - m[-1]
    assert v == pytest.approx(((m[2] - m[1]) / span, (m[-1] - m[-2]) / span,
                               (m[3] - m[2]) / span, (m[-2] - m[-3]) / span))
    # 2-2: a gammon wins the match, a backgammon adds nothing
    assert cube.gammon_values(2, 2).win_backgammon == 0.0


def test_live_take_point_3_3_matches_xg():
    """XG's live take point at 3-away/3-away: 22.65% = 30.17% x 75.08% (dead 1-cube TP times
    the taker's cash point of the 2-cube: 1 - Crawford MWC at 3-away vs 1-away)."""
    assert cube.take_point_match(3, 3, live=True) == pytest.approx(0.3017 * 0.7508, abs=1e-4)


def test_live_take_point_recursion():
    """TP_live(c) = TP_dead(c) x (1 - TP'_live(2c)) wherever both need more than 2c (gnubg
    GetPoints); at the last level the live and dead cubes agree unless a free redouble exists."""
    for taker in range(3, 13):
        for doubler in range(3, 13):
            for c in (1, 2):
                if min(taker, doubler) - 1 >= 2 * c:
                    expect = (cube.take_point_match(taker, doubler, cube=c)
                              * (1 - cube.take_point_match(doubler, taker, cube=2 * c, live=True)))
                    assert cube.take_point_match(taker, doubler, cube=c, live=True) == \
                        pytest.approx(expect, abs=1e-12)
    assert cube.take_point_match(2, 2, live=True) == pytest.approx(0.3226, abs=5e-5)
    assert cube.take_point_match(2, 4, live=True) == cube.take_point_match(2, 4)
    # 4-away taker against a 2-away doubler redoubles to 4 at once: the take risks nothing
    # more than the pass MWC (gnubg's automatic redouble), a 0.1856 take point
    assert cube.take_point_match(4, 2, live=True) == pytest.approx(equity(4, 1, crawford=True))


def test_take_point_with_gammons_for_the_doubler():
    # the doubler wins 30% of his games as gammons: the taker needs more (dead cube, 5-5)
    tp0 = cube.take_point_match(5, 5)
    tp_g = cube.take_point_match(5, 5, p=probs(0.7, 0.3))
    take_lose = 0.7 * mwc_after(5, 5, -2) + 0.3 * mwc_after(5, 5, -4)
    assert tp_g == pytest.approx((mwc_after(5, 5, -1) - take_lose)
                                 / (mwc_after(5, 5, 2) - take_lose))
    assert tp_g > tp0


def test_dead_cube_level():
    assert cube.dead_cube_level(5, 5) == 4
    assert cube.dead_cube_level(3, 3) == 2
    assert cube.dead_cube_level(2, 9) == 1
    assert cube.dead_cube_level(9, 9, cube=2) == 8
    assert cube.dead_cube_level(17, 17) == 16
    assert cube.dead_cube_level(16, 17) == 8
    with pytest.raises(ValueError, match="power of two"):
        cube.dead_cube_level(5, 5, cube=3)


def test_mwc_cubeless_and_normalised_equity():
    assert cube.mwc_cubeless([0.5, 0, 0, 0, 0], 5, 5) == pytest.approx(0.5)
    p = [0.6, 0.2, 0.05, 0.1, 0.01]
    expect = (0.4 * mwc_after(4, 6, 2) + 0.15 * mwc_after(4, 6, 4) + 0.05 * mwc_after(4, 6, 6)
              + 0.3 * mwc_after(4, 6, -2) + 0.09 * mwc_after(4, 6, -4)
              + 0.01 * mwc_after(4, 6, -6))
    assert cube.mwc_cubeless(p, 4, 6, cube=2) == pytest.approx(expect)
    # normalised money equity: win the cube = +1, lose it = -1, and back again
    assert cube.mwc_to_emg(mwc_after(4, 6, 2), 4, 6, cube=2) == pytest.approx(1.0)
    assert cube.mwc_to_emg(mwc_after(4, 6, -2), 4, 6, cube=2) == pytest.approx(-1.0)
    assert cube.emg_to_mwc(cube.mwc_to_emg(0.55, 4, 6), 4, 6) == pytest.approx(0.55)
    # gammon-free: normalised equity = cubeless money equity 2p - 1
    assert cube.mwc_to_emg(cube.mwc_cubeless([0.7, 0, 0, 0, 0], 4, 6), 4, 6) == \
        pytest.approx(0.4)


def test_janowski_mwc_limits():
    p = [0.62, 0.2, 0.01, 0.1, 0.004]
    dead = cube.mwc_cubeless(p, 5, 7)
    for owner in ("centred", "owned", "unavailable"):
        assert cube.janowski_mwc(p, 5, 7, 0.0, cube_owner=owner) == pytest.approx(dead)
    # Crawford game, 2-away/2-away and a cube dead for both: cubeless whatever x
    assert cube.janowski_mwc(p, 1, 4, 0.7, crawford=True) == cube.mwc_cubeless(p, 1, 4)
    assert cube.janowski_mwc(p, 2, 2, 0.7) == cube.mwc_cubeless(p, 2, 2)
    assert cube.janowski_mwc(p, 3, 2, 0.7, cube=4, cube_owner="owned") == \
        cube.mwc_cubeless(p, 3, 2, cube=4)
    with pytest.raises(ValueError, match="exactly one side at 1-away"):
        cube.janowski_mwc(p, 3, 4, 0.7, crawford=True)
    # fully live and certain: the ends of the live line
    assert cube.janowski_mwc([0, 0, 0, 0, 0], 5, 5, 1.0) == pytest.approx(mwc_after(5, 5, -1))
    assert cube.janowski_mwc([1, 0, 0, 0, 0], 5, 5, 1.0) == pytest.approx(mwc_after(5, 5, 1))


def test_janowski_mwc_is_monotone_and_owning_the_cube_helps():
    grid = np.linspace(0.0, 1.0, 41)
    curves = {o: [cube.janowski_mwc(probs(pw, 0.2, 0.01, 0.15), 5, 7, 0.7, cube_owner=o)
                  for pw in grid] for o in ("centred", "owned", "unavailable")}
    for values in curves.values():
        assert np.all(np.diff(values) >= -1e-12)
    assert np.all(np.array(curves["owned"]) >= np.array(curves["centred"]) - 1e-12)
    assert np.all(np.array(curves["centred"]) >= np.array(curves["unavailable"]) - 1e-12)


@pytest.mark.parametrize("doubler, taker", [(5, 5), (3, 3), (7, 4), (4, 7), (2, 4), (4, 2),
                                            (3, 1), (9, 9)])
def test_match_take_decision_agrees_with_take_points(doubler, taker):
    """x = 0: the take/pass boundary is 1 - dead TP; x = 1: 1 - live TP (gnubg GetPoints)."""
    for x, live in ((0.0, False), (1.0, True)):
        boundary = 1.0 - cube.take_point_match(taker, doubler, live=live)
        below = cube.cube_decision_match([boundary - 1e-7, 0, 0, 0, 0], doubler, taker, x)
        above = cube.cube_decision_match([boundary + 1e-7, 0, 0, 0, 0], doubler, taker, x)
        assert below["take"] and not above["take"]
        assert below["double_pass"] == mwc_after(doubler, taker, 1)


def test_match_decision_availability():
    p = [0.8, 0.1, 0, 0.05, 0]
    with pytest.raises(ValueError, match="opponent owns"):
        cube.cube_decision_match(p, 5, 5, 0.7, owner="unavailable")
    with pytest.raises(ValueError, match="pointless"):
        cube.cube_decision_match(p, 2, 5, 0.7, cube=2, owner="owned")
    with pytest.raises(ValueError, match="1-away leader"):
        cube.cube_decision_match(p, 1, 5, 0.7)
    d = cube.cube_decision_match(p, 3, 1, 0.7)            # post-Crawford trailer
    assert d["double"]                                    # the trailer should double at once


def test_match_math_uses_the_given_table():
    toy = MET([[0.5, 0.7, 0.8], [0.3, 0.5, 0.6], [0.2, 0.4, 0.5]], [0.5, 0.45, 0.3])
    # 3-3: pass 0.4, take-lose 0.2 (doubler to 1-away, Crawford), take-win 0.8
    assert cube.take_point_match(3, 3, met=toy) == pytest.approx((0.4 - 0.2) / (0.8 - 0.2))
    # gammon value: (MWC(1-away Crawford) 0.8 - MWC(2-away) 0.6) / (0.6 - 0.4)
    assert cube.gammon_values(3, 3, met=toy).win_gammon == pytest.approx((0.8 - 0.6) / 0.2)


@pytest.mark.parametrize("bad, error", [((0, 5), ValueError), ((2.5, 5), TypeError)])
def test_match_functions_check_aways(bad, error):
    with pytest.raises(error):
        cube.take_point_match(*bad)
    with pytest.raises(error):
        cube.gammon_values(*bad)


# ================================================================= race formulas

def board_of(points=(), mover_bar=0, opp_bar=0):
    """A board from {point: count} (mover positive, opponent negative) and the two bar counts."""
    b = np.zeros(26, dtype=np.int8)
    for p, n in dict(points).items():
        b[p] = n
    b[25], b[0] = mover_bar, -opp_bar
    return b


# Stick Rice's Keith count lesson (bgonline.org forum, 9 Dec 2014):
# XGID=-----CFACA-Aaaa-abaeba----:0:0:1:00:0:0:3:0:10, Blue (X) on roll, 102 vs 112 pips:
# "Keith straight up we get 117 to 112 for a difference of 5 making it a no double".
STICK = board_of({5: 3, 6: 6, 7: 1, 8: 3, 9: 1, 11: 1, 12: -1, 13: -1, 14: -1, 16: -1, 17: -2,
                  18: -1, 19: -5, 20: -2, 21: -1})
STICK_PICTURE = """\
 O  bar 0  off 0  pips 112
 +13-14-15-16-17-18------19-20-21-22-23-24-+
 | O  O     O  O  O |   | O  O  O          |
 |             O    |   | O  O             |
 |                  |   | O                |
 |                  |   | O                |
 |                  |   | O                |
 |                  |BAR|                  |
 |                  |   | 6                |
 |                  |   | X                |
 |             X    |   | X  X             |
 |             X    |   | X  X             |
 | O  X     X  X  X |   | X  X             |
 +12-11-10--9--8--7-------6--5--4--3--2--1-+
 X  bar 0  off 0  pips 102  (on roll)"""

# Every Keith term at work: X stacks 4 on the 1-point (+6), 3 on the 2-point (+2), 5 on the
# 3-point (+2) and leaves his 4-, 5- and 6-points empty (+3).
STACKED = board_of({1: 4, 2: 3, 3: 5, 8: 3, 19: -5, 20: -5, 21: -3, 22: -2})
STACKED_PICTURE = """\
 O  bar 0  off 0  pips 73
 +13-14-15-16-17-18------19-20-21-22-23-24-+
 |                  |   | O  O  O  O       |
 |                  |   | O  O  O  O       |
 |                  |   | O  O  O          |
 |                  |   | O  O             |
 |                  |   | O  O             |
 |                  |BAR|                  |
 |                  |   |          X       |
 |                  |   |          X     X |
 |             X    |   |          X  X  X |
 |             X    |   |          X  X  X |
 |             X    |   |          X  X  X |
 +12-11-10--9--8--7-------6--5--4--3--2--1-+
 X  bar 0  off 0  pips 49  (on roll)"""


def test_pictures_match_the_boards():
    assert render(STICK) == STICK_PICTURE
    assert render(STACKED) == STACKED_PICTURE


def test_stick_example():
    assert cube.keith_count(STICK) == (103, 112)      # X: 102 + empty 4-point
    roller = 103 + 103 // 7
    assert roller == 117                              # "117 to 112"
    assert cube.keith_decision(STICK) == (False, True)                  # no double, take
    assert cube.keith_decision(STICK, cube_owned=True) == (False, True)
    # Thorp: X 102 + 30 - 2 = 130 -> L = 143; O 112 + 30 - 3 = 139: T > L - 2 fails
    assert cube.thorp_count(STICK) == (130, 139)
    assert cube.thorp_decision(STICK) == (False, True)
    # 8-9-12: lead 10 / 102 = 9.8%: double, redouble and take
    assert cube.eight_nine_twelve(STICK) == (True, True)
    assert cube.eight_nine_twelve(STICK, cube_owned=True) == (True, True)


def test_stacked_example():
    # X: 49 pips + 6 + 2 + 2 + 3 = 62; O: 73, all home on 6-5-4-3 with 2 on the 3-point
    assert cube.keith_count(STACKED) == (62, 73)
    # roller 62 + 8 = 70, 3 ahead of 73: double and redouble; O passes (needs d >= 2)
    assert cube.keith_decision(STACKED) == (True, False)
    # Thorp: X 49 + 30 + 4 - 3 = 80 -> 88; O 73 + 30 - 4 = 99 > 90: pass
    assert cube.thorp_count(STACKED) == (80, 99)
    assert cube.thorp_decision(STACKED, cube_owned=True) == (True, False)
    assert cube.eight_nine_twelve(STACKED) == (True, False)     # 49% lead


def family(q):
    """X: one checker on each of his 4-, 5-, 6- and 10-points (25 pips, Keith 25, Thorp 30:
    exactly 30 gets no 10%); O: the same on his 4-, 5-, 6- and q-points.

     +13-14-15-16-17-18------19-20-21-22-23-24-+
     |          O       |   | O  O  O          |      (q = 9: O's 9-point is entry 16)
     ...
     |       X          |   | X  X  X          |
     +12-11-10--9--8--7-------6--5--4--3--2--1-+
    """
    return board_of({4: 1, 5: 1, 6: 1, 10: 1, 19: -1, 20: -1, 21: -1, 25 - q: -1})


# Keith: roller 25 + 3 = 28, O = 15 + q, d = 13 - q.
@pytest.mark.parametrize("q, double, redouble, take", [
    (8, False, False, True),     # d = 5
    (9, True, False, True),      # d = 4: double, not redouble
    (10, True, True, True),      # d = 3
    (11, True, True, True),      # d = 2: still a take
    (12, True, True, False),     # d = 1: pass
])
def test_keith_borders(q, double, redouble, take):
    b = family(q)
    assert cube.keith_count(b) == (25, 15 + q)
    assert cube.keith_decision(b) == (double, take)
    assert cube.keith_decision(b, cube_owned=True) == (redouble, take)


# Thorp: L = 30 (not > 30: no 10%), T = 20 + q.
@pytest.mark.parametrize("q, double, redouble, take", [
    (8, False, False, True),     # T = 28 = L - 2: not more than L - 2
    (9, True, False, True),      # T = 29
    (10, True, True, True),
    (12, True, True, True),      # T = L + 2: a take
    (13, True, True, False),     # T = L + 3: pass
])
def test_thorp_borders(q, double, redouble, take):
    b = family(q)
    assert cube.thorp_count(b) == (30, 20 + q)
    assert cube.thorp_decision(b) == (double, take)
    assert cube.thorp_decision(b, cube_owned=True) == (redouble, take)


def test_thorp_ten_percent_is_not_rounded():
    """X: 2 on his 6-point, 1 on each of 4, 5, 7: 28 pips + 10 - 3 = 35 > 30, so L = 38.5.
    T = 37 doubles (L rounded up to 39 would not) and T = 41 passes (rounded up: a take).
    O: one on each of his 4-, 5-, 6-points and two more on his q1- and q2-points."""
    x = {6: 2, 5: 1, 4: 1, 7: 1}
    for q1, q2, double, take in ((7, 7, False, True), (8, 7, True, True), (10, 8, True, True),
                                 (10, 9, True, False)):
        o = {19: -1, 20: -1, 21: -1}
        o[25 - q1] = o.get(25 - q1, 0) - 1
        o[25 - q2] = o.get(25 - q2, 0) - 1
        b = board_of({**x, **o})
        t = 15 + q1 + q2 + 10 - 3
        assert cube.thorp_count(b) == (35, t)
        assert cube.thorp_decision(b) == (double, take), t


# 8-9-12: L = 25 pips, T = 15 + q, lead = (q - 10) / 25.
@pytest.mark.parametrize("q, double, redouble, take", [
    (11, False, False, True),    # 4%
    (12, True, False, True),     # exactly 8%: double
    (13, True, True, True),      # exactly 12%: redouble and still a take
    (14, True, True, False),     # 16%: pass
])
def test_eight_nine_twelve_borders(q, double, redouble, take):
    b = family(q)
    assert cube.eight_nine_twelve(b) == (double, take)
    assert cube.eight_nine_twelve(b, cube_owned=True) == (redouble, take)


def test_race_decisions_refuse_contact_and_batches():
    for fn in (cube.keith_decision, cube.thorp_decision, cube.eight_nine_twelve):
        with pytest.raises(ValueError, match="contact"):
            fn(START)
        with pytest.raises(ValueError, match="one board"):
            fn(np.stack([STICK, STICK]))
    assert cube.keith_count(START) == (169, 169)       # counts work on any board
    with pytest.raises(ValueError):
        cube.keith_count(np.zeros(25, dtype=np.int8))


def reference_counts(board):
    """Slow obvious Keith and Thorp counts, reading each side from its own view (flip)."""
    out = []
    for view in (np.asarray(board, dtype=int), flip(board).astype(int)):
        on = {p: max(int(view[p]), 0) for p in range(1, 26)}
        pips = sum(p * n for p, n in on.items())
        keith = (pips + 2 * max(on[1] - 1, 0) + max(on[2] - 1, 0) + max(on[3] - 3, 0)
                 + sum(on[p] == 0 for p in (4, 5, 6)))
        thorp = pips + 2 * sum(on.values()) + on[1] - sum(on[p] > 0 for p in range(1, 7))
        out.append((keith, thorp, pips))
    return out


def reference_flags(board):
    (k_x, t_x, pip_x), (k_o, t_o, pip_o) = reference_counts(board)
    roller = k_x + k_x // 7
    keith = (roller - k_o <= 4, roller - k_o <= 3, roller - k_o >= 2)
    lead = Fraction(11 * t_x, 10) if t_x > 30 else Fraction(t_x)
    thorp = (t_o > lead - 2, t_o > lead - 1, not t_o > lead + 2)
    gap = Fraction(pip_o - pip_x, pip_x)
    ent = (gap >= Fraction(8, 100), gap >= Fraction(9, 100), gap <= Fraction(12, 100))
    return keith, thorp, ent


def unpack(flags):
    return (bool(flags & cuberace.RACE_DOUBLE), bool(flags & cuberace.RACE_REDOUBLE),
            bool(flags & cuberace.RACE_TAKE))


@settings(max_examples=300, deadline=None)
@given(positions(kinds=("race", "bearoff")))
def test_kernels_agree_with_the_reference(board):
    (k_x, t_x, pip_x), (k_o, t_o, pip_o) = reference_counts(board)
    assert cube.keith_count(board) == (k_x, k_o)
    assert cube.thorp_count(board) == (t_x, t_o)
    assert cuberace.keith_counts(board) == (k_x, k_o)
    keith, thorp, ent = reference_flags(board)
    assert unpack(cuberace.keith_decision(board)) == keith
    assert unpack(cuberace.thorp_decision(board)) == thorp
    assert unpack(cuberace.eight_nine_twelve_decision(board)) == ent


@settings(max_examples=100, deadline=None)
@given(positions(kinds=("race",)))
def test_python_decisions_are_the_kernel_flags(board):
    keith, thorp, ent = reference_flags(board)
    for fn, (double, redouble, take) in ((cube.keith_decision, keith),
                                         (cube.thorp_decision, thorp),
                                         (cube.eight_nine_twelve, ent)):
        assert fn(board) == (double, take)
        assert fn(board, cube_owned=True) == (redouble, take)
