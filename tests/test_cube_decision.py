"""Tests of fastbg.cube_decision, the engine's cube decisions (docs/engine.md section 2).

* Arithmetic: a net of fixed probabilities, and the decisions checked against Janowski's
  formulas as docs/cube.md section 2 states them, computed here from scratch (take points
  25% dead and 20% live, the worked example, random probabilities), and against match
  arithmetic with a dead cube (x = 0) summed here from the match equity table.
* Input: boards, Position IDs, XGIDs with cube, owner and score, the precedence of
  explicit arguments, and the ValueErrors for what cannot be decided.
* gnubg-nn's ``evaluate_cube_decision`` (match play only; Joseph Heled's cube model, not
  Janowski's, and its own match equity table): the double/pass MWC equal with gnubg-nn's
  table, and decisions and MWCs agreeing as measured (docs/engine.md section 2).
"""
import numpy as np
import pytest

import fastbg
from fastbg.analysis.cube_actions import cube_efficiency
from fastbg.cube import met as metmod
from fastbg.evaluators import net_kernels as kg
from strategies import selfplay_positions


class FixedNet:
    """A net whose every position has the probabilities ``p``; it records its calls."""

    def __init__(self, p):
        self.p = np.asarray(p, np.float64)
        self.calls = []

    def probabilities(self, boards, ply=0):
        boards = np.asarray(boards)
        self.calls.append((boards.shape, ply))
        return np.tile(self.p, (boards.shape[0], 1))


def gammonless(win):
    return (win, 0.0, 0.0, 0.0, 0.0)


MONEY_NJ = fastbg.MoneyRules(jacoby=False)


# ================================================================= the formulas, from scratch

def janowski_money(p, owner, x, jacoby=False):
    """docs/cube.md section 2: E = E_dead (1 - x) + E_live x, E_live through the points of
    the table (centred, owned, unavailable), Jacoby: E_dead = 2 P(win) - 1 and the outer
    live segments flat at -1 and +1 (centred cube only)."""
    w, wg, wbg, lg, lbg = p
    big_w = 1.0 + (wg + wbg) / w if w > 0 else 1.0
    big_l = 1.0 + (lg + lbg) / (1.0 - w) if w < 1 else 1.0
    tp = (big_l - 0.5) / (big_w + big_l + 0.5)
    cp = (big_l + 1.0) / (big_w + big_l + 0.5)
    jac = jacoby and owner == "centred"
    dead = 2 * w - 1 if jac else 2 * w - 1 + wg - lg + wbg - lbg
    low, high = (-1.0, 1.0) if jac else (-big_l, big_w)
    points = {"centred": [(0, low), (tp, -1), (cp, 1), (1, high)],
              "owned": [(0, -big_l), (cp, 1), (1, big_w)],
              "unavailable": [(0, -big_l), (tp, -1), (1, big_w)]}[owner]
    xs, ys = zip(*points)
    return dead * (1 - x) + float(np.interp(w, xs, ys)) * x


def money_reference(p, owner, x, jacoby):
    """(no double, double/take, double/pass) per unit of the current cube."""
    nd = janowski_money(p, owner, x, jacoby)
    return nd, 2 * janowski_money(p, "unavailable", x), 1.0


def cubeless_mwc(p, a0, a1, cube, met=None):
    """Six outcomes times the MWC after each, the game worth cube x 1, 2, 3."""
    w, wg, wbg, lg, lbg = p
    parts = ((w - wg, 1), (wg - wbg, 2), (wbg, 3), (1 - w - lg, -1), (lg - lbg, -2),
             (lbg, -3))
    return sum(q * metmod.mwc_after(a0, a1, k * cube, met=met) for q, k in parts if q)


# ================================================================= money arithmetic

@pytest.mark.parametrize("taker", [0.10, 0.20, 0.24, 0.25, 0.251, 0.26, 0.35])
def test_dead_cube_take_point_is_25_percent(taker):
    d = fastbg.cube_decision(fastbg.START, rules=MONEY_NJ, x=0.0,
                             net=FixedNet(gammonless(1 - taker)))
    assert d.take == (taker >= 0.25)
    nd, dt, dp = money_reference(gammonless(1 - taker), "centred", 0.0, False)
    assert (d.no_double, d.double_take, d.double_pass) == pytest.approx((nd, dt, dp), abs=1e-12)
    assert d.double and d.action == ("double, take" if d.take else "double, pass")


@pytest.mark.parametrize("taker", [0.15, 0.19, 0.1999, 0.2001, 0.22])
def test_live_cube_take_point_is_20_percent(taker):
    d = fastbg.cube_decision(fastbg.START, rules=MONEY_NJ, x=1.0,
                             net=FixedNet(gammonless(1 - taker)))
    assert d.take == (taker > 0.2)
    assert d.double_take == pytest.approx(2 * janowski_money(gammonless(1 - taker),
                                                             "unavailable", 1.0), abs=1e-12)


def test_worked_example_of_the_docs():
    p = (0.70, 0.20, 0.01, 0.05, 0.002)        # docs/cube.md section 2
    net = FixedNet(p)
    d = fastbg.cube_decision(fastbg.START, rules=MONEY_NJ, x=0.68, net=net)
    assert round(d.no_double, 3) == 0.775 and round(d.double_take, 3) == 0.912
    assert (d.no_double, d.double_take) == pytest.approx(
        money_reference(p, "centred", 0.68, False)[:2], abs=1e-12)
    assert d.double and d.take and not d.beaver and d.action == "double, take"
    assert d.optimal == d.double_take and d.probabilities == p
    assert d.cubeless_equity == pytest.approx(0.558) and d.no_double_emg is None
    jac = fastbg.cube_decision(fastbg.START, x=0.68, net=net)      # MoneyRules(): Jacoby
    assert jac.no_double < d.no_double and jac.double_take == d.double_take
    assert jac.no_double == pytest.approx(janowski_money(p, "centred", 0.68, True), abs=1e-12)


def test_random_probabilities_follow_janowski():
    rng = np.random.default_rng(20240611)
    actions = set()
    for _ in range(400):
        w = rng.uniform(0.02, 0.98)
        wg = w * rng.uniform(0, 0.6)
        wbg = wg * rng.uniform(0, 0.3)
        lg = (1 - w) * rng.uniform(0, 0.6)
        lbg = lg * rng.uniform(0, 0.3)
        p = (w, wg, wbg, lg, lbg)
        x = float(rng.uniform(0, 1))
        owned = rng.random() < 0.3
        jacoby = bool(rng.random() < 0.5)
        kw = dict(cube=2, owner="on_roll") if owned else {}
        d = fastbg.cube_decision(fastbg.START, rules=fastbg.MoneyRules(jacoby=jacoby), x=x,
                                 net=FixedNet(p), **kw)
        nd, dt, dp = money_reference(p, "owned" if owned else "centred", x, jacoby)
        assert (d.no_double, d.double_take, d.double_pass) == pytest.approx((nd, dt, dp),
                                                                           abs=1e-9)
        if min(abs(min(dt, dp) - nd), abs(dt - dp)) < 1e-9:
            continue                        # a tie within rounding: either flag is right
        assert d.double == (min(dt, dp) >= nd) and d.take == (dt <= dp)
        verb = "redouble" if owned else "double"
        if d.double:
            assert d.action == f"{verb}, {'take' if d.take else 'pass'}"
        elif nd > dp:
            assert d.action == f"too good to {verb}, {'take' if d.take else 'pass'}"
        else:
            assert d.action == f"no {verb}, take" and d.take
        actions.add(d.action.replace("redouble", "double"))
    assert {"double, take", "double, pass", "no double, take",
            "too good to double, pass"} <= actions


def test_too_good_and_won_positions():
    d = fastbg.cube_decision(fastbg.START, rules=MONEY_NJ, x=0.68,
                             net=FixedNet((0.9, 0.6, 0.05, 0, 0)))
    assert d.no_double > 1 and d.double_take > 1
    assert (not d.double and not d.take and d.action == "too good to double, pass"
            and d.optimal == d.no_double)
    # Certain to win, no gammon: no double and double/pass are both worth 1, and a
    # tie doubles (GNU Backgammon's rule): double, pass.
    d = fastbg.cube_decision(fastbg.START, x=0.68, net=FixedNet(gammonless(1.0)))
    assert (d.no_double, d.double_take, d.double_pass) == (1.0, 2.0, 1.0)
    assert d.double and not d.take and d.action == "double, pass"


def test_beavers():
    p = (0.40, 0.35, 0.0, 0.0, 0.0)           # underdog with gammons: the take is good
    beavers = fastbg.MoneyRules(beavers=True)
    d = fastbg.cube_decision(fastbg.START, rules=beavers, x=0.68, net=FixedNet(p))
    assert d.double_take < 0 and d.beaver and d.take and not d.double
    assert d.action == "no double, beaver"
    r = fastbg.cube_decision(fastbg.START, rules=beavers, x=0.68, net=FixedNet(p), cube=2,
                             owner="me")
    assert r.action == "no redouble, beaver"
    # No beaver without the rule, nor when the beaver would pass the cube limit.
    for rules in (fastbg.MoneyRules(), fastbg.MoneyRules(beavers=True, max_cube=2)):
        d = fastbg.cube_decision(fastbg.START, rules=rules, x=0.68, net=FixedNet(p))
        assert not d.beaver and d.action == "no double, take"


def test_optional_double():
    # A dead cube at even chances: doubling changes nothing (GNU Backgammon: optional).
    d = fastbg.cube_decision(fastbg.START, rules=MONEY_NJ, x=0.0, net=FixedNet(gammonless(0.5)))
    assert d.no_double == 0.0 and d.double_take == 0.0 and d.double_pass == 1.0
    assert d.double and d.take and d.action == "optional double, take"
    d = fastbg.cube_decision(fastbg.START, rules=MONEY_NJ, x=0.0, net=FixedNet(gammonless(0.52)))
    assert d.action == "double, take"


def test_redouble_and_text():
    p = (0.70, 0.20, 0.01, 0.05, 0.002)
    d = fastbg.cube_decision(fastbg.START, rules=MONEY_NJ, cube=2, owner="on_roll", x=0.68,
                             net=FixedNet(p))
    assert d.owner == "on_roll" and d.cube == 2
    assert d.no_double == pytest.approx(janowski_money(p, "owned", 0.68), abs=1e-12)
    assert d.action in ("redouble, take", "no redouble, take")
    text = str(d)
    assert text == d.text()
    lines = text.splitlines()
    assert lines[-1] == "Proper cube action: " + d.action[0].upper() + d.action[1:]
    assert "70.0%" in lines[2] and "30.0%" in lines[2]
    labels = [line.split(". ", 1)[1][:20].strip() for line in lines
              if line[:2] in ("1.", "2.", "3.")]
    best = "Redouble, take" if d.double else "No redouble"
    assert labels[0] == best and sorted(labels) == ["No redouble", "Redouble, pass",
                                                    "Redouble, take"]
    assert f"{d.optimal:+.3f}" in lines[4]


@pytest.fixture(scope="module")
def gnubg(gnubg_net):
    """GNU Backgammon's networks (tests/conftest.py)."""
    return gnubg_net


def test_efficiency_by_class(gnubg):
    net = gnubg
    race = np.zeros(26, np.int8)
    race[[7, 8, 9]] = 5                     # 120 pips, no contact: x = 0.7
    race[[18, 19, 20]] = -5
    far = race.copy()
    far[[7, 8, 9]] = 0
    far[[13, 14, 15]] = 5                   # 210 pips: clamped to 0.7
    short = np.zeros(26, np.int8)
    short[[7, 2, 1]] = [1, 5, 4]            # 21 pips, a checker outside home: race, 0.6
    short[[20, 21, 22]] = -5
    mid = np.zeros(26, np.int8)
    mid[[10, 5, 4]] = [5, 5, 2]             # 83 pips: 0.55 + 0.00125 x 83
    mid[[20, 21, 22]] = -5
    bear = np.zeros(26, np.int8)
    bear[[1, 2, 3]] = 5
    bear[[22, 23, 24]] = -5
    cases = [(fastbg.START, kg.C_CONTACT, 0.68), (race, kg.C_RACE, 0.7),
             (far, kg.C_RACE, 0.7), (short, kg.C_RACE, 0.6),
             (mid, kg.C_RACE, 0.55 + 0.00125 * 83), (bear, kg.C_BEAROFF1, 0.6)]
    for board, cls, x in cases:
        assert net.classes(board) == cls
        assert cube_efficiency(board) == pytest.approx(x, abs=1e-12)
        assert fastbg.cube_decision(board, net=FixedNet(gammonless(0.6))).x == pytest.approx(x)
    np.testing.assert_allclose(cube_efficiency(np.stack([b for b, _, _ in cases])),
                               [x for _, _, x in cases])


# ================================================================= match arithmetic

@pytest.mark.parametrize("score, cube, owner", [((0, 0), 1, None), ((3, 1), 1, None),
                                                ((2, 4), 2, "on_roll"), ((6, 4), 1, None)])
def test_match_dead_cube_is_cubeless_match_arithmetic(score, cube, owner):
    p = (0.62, 0.18, 0.01, 0.09, 0.004)
    rules = fastbg.MatchRules(11)
    d = fastbg.cube_decision(fastbg.START, rules=rules, score=score, cube=cube, owner=owner,
                             x=0.0, net=FixedNet(p))
    a0, a1 = 11 - score[0], 11 - score[1]
    assert d.away == (a0, a1) and d.is_match
    nd, dt = cubeless_mwc(p, a0, a1, cube), cubeless_mwc(p, a0, a1, 2 * cube)
    dp = metmod.mwc_after(a0, a1, cube)
    assert (d.no_double, d.double_take, d.double_pass) == pytest.approx((nd, dt, dp), abs=1e-12)
    win, lose = metmod.mwc_after(a0, a1, cube), metmod.mwc_after(a0, a1, -cube)
    for mwc, emg in ((nd, d.no_double_emg), (dt, d.double_take_emg), (dp, d.double_pass_emg)):
        assert emg == pytest.approx(2 * (mwc - lose) / (win - lose) - 1, abs=1e-12)
    assert d.double_pass_emg == pytest.approx(1.0)
    assert d.cubeless_mwc == pytest.approx(nd, abs=1e-12)
    assert d.double == (min(dt, dp) >= nd) and d.take == (dt <= dp)
    assert "MWC" in d.text() and "11-point match" in d.text()


def test_match_uses_the_given_table():
    base = metmod.load_default()
    shrunk = metmod.MET(0.5 + 0.9 * (base.pre_crawford - 0.5), base.post_crawford)
    p = (0.7, 0.2, 0.01, 0.1, 0.01)
    d = fastbg.cube_decision(fastbg.START, rules=fastbg.MatchRules(7), x=0.0, met=shrunk,
                             net=FixedNet(p))
    assert d.double_pass == pytest.approx(0.5 + 0.9 * (base.equity(6, 7) - 0.5), abs=1e-12)
    assert d.no_double == pytest.approx(cubeless_mwc(p, 7, 7, 1, met=shrunk), abs=1e-12)
    assert abs(d.no_double - cubeless_mwc(p, 7, 7, 1)) > 1e-3


# ================================================================= input

def test_board_position_id_and_xgid_agree():
    net = FixedNet((0.6, 0.2, 0.01, 0.1, 0.005))
    boards = selfplay_positions(6, seed=3)
    rules = fastbg.MoneyRules()
    for b in boards:
        by_board = fastbg.cube_decision(b, net=net)
        assert fastbg.cube_decision(fastbg.position_id(b), net=net) == by_board
        assert fastbg.cube_decision(fastbg.xgid(b), rules=rules, net=net) == by_board
        # the same position with the top player on roll
        assert fastbg.cube_decision(fastbg.xgid(b, turn="top"), rules=rules,
                                    net=net) == by_board
    assert net.calls[0] == ((1, 26), 0)


def test_xgid_carries_cube_owner_and_score():
    net = FixedNet((0.66, 0.2, 0.01, 0.08, 0.003))
    b = selfplay_positions(20, seed=5)[-1]
    for turn, owner_side in (("bottom", "bottom"), ("top", "top")):
        scores = dict(score_bottom=3, score_top=1) if turn == "bottom" else dict(
            score_bottom=1, score_top=3)
        text = fastbg.xgid(b, turn=turn, cube_value=2, cube_owner=owner_side,
                           match_length=7, **scores)
        d = fastbg.cube_decision(text, net=net, ply=1)
        explicit = fastbg.cube_decision(b, rules=fastbg.MatchRules(7, max_cube=1024),
                                        score=(3, 1), cube=2, owner="on_roll", net=net, ply=1)
        assert d == explicit
        assert d.away == (4, 6) and d.cube == 2 and d.owner == "on_roll" and d.ply == 1
        assert d.action.startswith(("redouble", "no redouble", "too good to redouble",
                                    "optional redouble"))
    # Money XGID: its Jacoby and beaver flags become the rules.
    d = fastbg.cube_decision(fastbg.xgid(b, jacoby=True, beaver=True), net=net)
    assert d.rules.jacoby and d.rules.beavers and d.away is None
    d = fastbg.cube_decision(fastbg.xgid(b), net=net)
    assert not d.rules.jacoby and not d.rules.beavers
    # A pending double is the same decision; rolled dice are not.
    d_offer = fastbg.cube_decision(fastbg.xgid(b, double_offered=True), net=net)
    assert d_offer == fastbg.cube_decision(fastbg.xgid(b), net=net)
    with pytest.raises(ValueError, match="before the roll"):
        fastbg.cube_decision(fastbg.xgid(b, dice=(3, 1)), net=net)


def test_explicit_arguments_win_over_the_xgid():
    net = FixedNet((0.66, 0.2, 0.01, 0.08, 0.003))
    b = selfplay_positions(20, seed=5)[-1]
    text = fastbg.xgid(b, cube_value=2, cube_owner="bottom", match_length=7, score_bottom=3,
                       score_top=1)
    d = fastbg.cube_decision(text, net=net, cube=1, owner="centred", score=(0, 5))
    assert d.cube == 1 and d.owner == "centred" and d.away == (7, 2)
    d = fastbg.cube_decision(text, net=net, rules=fastbg.MoneyRules())
    assert d.away is None and d.cube == 2 and d.owner == "on_roll"
    with pytest.raises(ValueError, match="XGID is a 7-point match .* pass score="):
        fastbg.cube_decision(text, net=net, rules=fastbg.MatchRules(5))
    with pytest.raises(TypeError, match="rules must be"):
        fastbg.cube_decision(text, net=net, rules="money")
    assert fastbg.cube_decision(text, net=net, rules=fastbg.MatchRules(5),
                                score=(1, 1)).away == (4, 4)


def test_batch_shares_one_call():
    boards = selfplay_positions(5, seed=9)
    net = FixedNet((0.55, 0.15, 0.01, 0.12, 0.005))
    ds = fastbg.cube_decisions(boards, rules=fastbg.MatchRules(9), score=(2, 5), net=net,
                               ply=2)
    assert net.calls == [((5, 26), 2)]
    assert [d.x for d in ds] == [cube_efficiency(b) for b in boards]
    assert ds == [fastbg.cube_decision(b, rules=fastbg.MatchRules(9), score=(2, 5), net=net,
                                       ply=2) for b in boards]
    assert fastbg.cube_decisions(np.zeros((0, 26), np.int8), net=net) == []
    xs = [0.1, 0.2, 0.3, 0.4, 0.5]
    assert [d.x for d in fastbg.cube_decisions(boards, net=net, x=xs)] == xs


def test_real_net_probabilities_at_each_ply(gnubg):
    net = gnubg
    b = selfplay_positions(30, seed=2)[-1]
    for ply in (0, 1):
        d = fastbg.cube_decision(b, ply=ply, net=net)
        np.testing.assert_array_equal(d.probabilities, net.probabilities(b, ply))
        assert d.ply == ply


over = np.zeros(26, np.int8)
over[1] = 2                                 # the opponent has borne off everything
sixteen = np.array(fastbg.START)
sixteen[6] += 1


@pytest.mark.parametrize("kwargs, message", [
    (dict(position=sixteen), "16 checkers"),
    (dict(position="not a position id"), "Position ID"),
    (dict(position=np.stack([fastbg.START] * 2)), "one position"),
    (dict(position=over), "game is over"),
    (dict(ply=4), "ply"),
    (dict(ply=-1), "ply"),
    (dict(rules=fastbg.MatchRules(7), score=(7, 0)), "does not fit a 7-point match"),
    (dict(rules=fastbg.MatchRules(7), score=(3,)), "pair"),
    (dict(rules=fastbg.MatchRules(7), score=(-1, 2)), "does not fit"),
    (dict(score=(1, 2)), "match play"),
    (dict(owner="opponent"), "opponent owns the cube"),
    (dict(owner="nobody"), "owner must be"),
    (dict(owner="on_roll"), "cube on 1"),
    (dict(cube=3), "power of two"),
    (dict(cube=64, owner="me"), "max_cube"),
    (dict(rules=fastbg.MatchRules(7), score=(6, 3), crawford=True), "Crawford game has no cube"),
    (dict(rules=fastbg.MatchRules(7), score=(5, 3), crawford=True), "exactly one player"),
    (dict(rules=fastbg.MatchRules(7, crawford=False), score=(6, 3), crawford=True),
     "no Crawford game"),
    (dict(crawford=True), "money play has no Crawford"),
    (dict(rules=fastbg.MatchRules(7), score=(6, 3)), "1-away leader"),
    (dict(rules=fastbg.MatchRules(7), score=(5, 3), cube=2, owner="me"), "pointless"),
    (dict(x=1.5), "cube efficiency"),
    (dict(x=[0.5, 0.5]), "cube efficiency"),
])
def test_bad_input_is_a_value_error(kwargs, message):
    kwargs = dict(kwargs)
    position = kwargs.pop("position", fastbg.START)
    with pytest.raises(ValueError, match=message):
        fastbg.cube_decision(position, net=FixedNet(gammonless(0.6)), **kwargs)


def test_crawford_game_from_an_xgid():
    text = fastbg.xgid(fastbg.START, match_length=7, score_bottom=6, score_top=2, crawford=True)
    with pytest.raises(ValueError, match="Crawford game has no cube"):
        fastbg.cube_decision(text, net=FixedNet(gammonless(0.6)))
    # post-Crawford (the flag off): the trailer may double
    text = fastbg.xgid(fastbg.START, match_length=7, score_bottom=2, score_top=6)
    assert fastbg.cube_decision(text, net=FixedNet(gammonless(0.6))).away == (5, 1)


def test_bad_nets():
    with pytest.raises(TypeError, match="probabilities"):
        fastbg.cube_decision(fastbg.START, net=object())

    class Wrong:
        def probabilities(self, boards, ply=0):
            return np.zeros(4)

    with pytest.raises(ValueError, match="shape"):
        fastbg.cube_decision(fastbg.START, net=Wrong())
    with pytest.raises(ValueError, match="inconsistent"):
        fastbg.cube_decision(fastbg.START, net=FixedNet((0.5, 0.7, 0, 0, 0)))


# ================================================================= gnubg-nn

@pytest.fixture
def gnubg_nn():
    """gnubg-nn, with its global match state put back to money play afterwards."""
    module = pytest.importorskip("gnubg_nn", reason="gnubg-nn (the gnubg extra) is not installed")
    yield module
    module.set.score(0, 0)
    module.set.cube(1)


def gnubg_nn_decision(gnubg_nn, board, my_away, opp_away, cube=1):
    """gnubg-nn's (double, take, too good, MWC no double, double/take, double/pass) for the
    player on roll. Its board is 26 counts with the side to play ('X') negative on its own
    point numbers, i.e. minus fastbg's board; ``set.score`` takes the opponent's away
    first (its X needs the second number)."""
    gnubg_nn.set.score(opp_away, my_away, 0)
    if cube > 1:
        gnubg_nn.set.cube(cube, b"X")
    else:
        gnubg_nn.set.cube(1)
    return gnubg_nn.evaluate_cube_decision((-board).astype(int).tolist(), 0, 0, b"X", 1)


def gnubg_nn_met(gnubg_nn):
    """gnubg-nn's own pre-Crawford table (``equities.value``, equities in -1..1) as a MET;
    the post-Crawford row is Kazaross-XG2's (these tests start no game post-Crawford)."""
    n = 25
    value = gnubg_nn.equities.value
    pre = [[(value(i + 1, j + 1) + 1) / 2 for j in range(n)] for i in range(n)]
    return metmod.MET(pre, metmod.load_default().post_crawford, name="gnubg-nn")


def live_positions(net, n, seed):
    """Seeded self-play positions whose game is not decided: gnubg-nn returns fixed
    placeholder MWCs when the win chance is 0 or 1."""
    boards = selfplay_positions(n, seed)
    w = net.probabilities(boards)[:, 0]
    return boards[(w > 1e-3) & (w < 1 - 1e-3)]


# Pre-Crawford scores (my away, opponent's away), leaving out 2-away/2-away (GNU Backgammon
# and fastbg take it cubeless, gnubg-nn does not); cube 1 and owned 2-cubes.
SCORES = [(a, b, 1) for a in (2, 3, 4, 5, 7, 9) for b in (2, 3, 4, 6, 9) if (a, b) != (2, 2)]
SCORES += [(a, b, 2) for a in (3, 5, 7) for b in (2, 4, 7)]


def test_double_pass_is_gnubg_nn_s_with_its_table(gnubg_nn, gnubg):
    """Scores, sides and cube levels line up: with gnubg-nn's table the double/pass MWC is
    gnubg-nn's own to its rounding (gnubg-nn rounds equities to 1e-4, MWC 5e-5), at every
    score and also reaching 1-away (the Crawford game next)."""
    net = gnubg
    table = gnubg_nn_met(gnubg_nn)
    b = live_positions(net, 40, seed=21)[-1]
    for a0, a1, cube in SCORES + [(2, 2, 1)]:
        d = fastbg.cube_decision(b, rules=fastbg.MatchRules(15), score=(15 - a0, 15 - a1),
                                 cube=cube, owner="me" if cube > 1 else None, net=net,
                                 met=table)
        g = gnubg_nn_decision(gnubg_nn, b, a0, a1, cube)
        assert abs(d.double_pass - g[5]) <= 6e-5, (a0, a1, cube)
    # and gnubg-nn's X is the player on roll: the opponent's double/pass is not this one
    g = gnubg_nn_decision(gnubg_nn, b, 4, 9)
    assert abs(g[5] - metmod.mwc_after(4, 9, 1, met=table)) < 6e-5
    assert abs(g[5] - metmod.mwc_after(9, 4, 1, met=table)) > 0.1


def test_decisions_agree_with_gnubg_nn(gnubg_nn, gnubg):
    """gnubg-nn's cube model is Heled's (gammon ratios only, backgammons not counted; its
    own cube-life weights), so the two are compared by measurement (docs/engine.md
    section 2): at 0-ply, with gnubg-nn's table, on undecided self-play and race positions."""
    from test_gnubgnet import race_positions
    net = gnubg
    table = gnubg_nn_met(gnubg_nn)
    races = race_positions(300, seed=8)
    w = net.probabilities(races)[:, 0]
    boards = np.concatenate([live_positions(net, 150, seed=7),
                             races[(w > 1e-3) & (w < 1 - 1e-3)][:30]])
    rows = []
    for a0, a1, cube in SCORES:
        ds = fastbg.cube_decisions(boards, rules=fastbg.MatchRules(15),
                                   score=(15 - a0, 15 - a1), cube=cube,
                                   owner="me" if cube > 1 else None, net=net, met=table)
        for b, d in zip(boards, ds):
            g = gnubg_nn_decision(gnubg_nn, b, a0, a1, cube)
            margin = min(d.double_take, d.double_pass) - d.no_double
            rows.append((d.double, d.take, g[0], g[1], margin, d.double_take - d.double_pass,
                         d.no_double - g[3], d.double_take - g[4]))
    r = np.array(rows, np.float64)
    double_same, take_same = r[:, 0] == r[:, 2], r[:, 1] == r[:, 3]
    assert len(r) > 5000
    assert double_same.mean() >= 0.93 and take_same.mean() >= 0.975
    # disagreements are close calls: where fastbg decides by more than 0.02 MWC, they agree
    clear = np.abs(r[:, 4]) > 0.02
    assert clear.mean() > 0.4 and (~double_same[clear]).mean() <= 0.005
    clear_take = np.abs(r[:, 5]) > 0.02
    assert clear_take.mean() > 0.8 and (~take_same[clear_take]).mean() <= 0.005
    nd, dt = np.abs(r[:, 6]), np.abs(r[:, 7])
    assert np.median(nd) <= 0.003 and np.quantile(nd, 0.95) <= 0.012
    assert np.median(dt) <= 0.003 and np.quantile(dt, 0.95) <= 0.05
