"""Ranked moves (fastbg.hint, hint_batch) and the n-ply bots against gnubg-nn's best_move,
and against the definition: a candidate's p-ply value is its flipped result's p-ply value."""
import numpy as np
import pytest

import fastbg
from fastbg.analysis.hints import hint_batch, NplyScorer, CANDIDATES, DEEP_CANDIDATES
from fastbg.cube.formulas import equity_of, swap_sides
from strategies import selfplay_positions

gnubg_nn = pytest.importorskip("gnubg_nn", reason="gnubg-nn (the gnubg extra) is not installed")
from fastbg.evaluators.gnubg_nn import to_gnubg, from_gnubg  # noqa: E402


@pytest.fixture(scope="module")
def net():
    return fastbg.gnubg_net()


def pairs(n, seed):
    rng = np.random.default_rng(seed)
    return selfplay_positions(n, seed), rng.integers(1, 7, (n, 2))


def gnubg_choice(board, dice, ply):
    """The board gnubg-nn's best_move(n=ply) plays (mover's view)."""
    _, key = gnubg_nn.best_move(to_gnubg(board), int(dice[0]), int(dice[1]), n=ply, b=1)
    return fastbg.flip(from_gnubg(gnubg_nn.board_from_position_key(key)))


@pytest.mark.parametrize("ply,n", [(0, 150), (1, 60), (2, 12)])
def test_best_move_equals_gnubg(net, ply, n):
    """The same move, or (on an exact tie, which gnubg breaks by its C library's sort) a
    move of the same equity; ties must stay rare."""
    boards, dice = pairs(n, seed=50 + ply)
    ties = 0
    for b, d, h in zip(boards, dice, hint_batch(boards, dice, ply=ply, net=net)):
        g = gnubg_choice(b, d, ply)
        if (h[0].board == g).all():
            continue
        same = [c for c in h if (c.board == g).all()][0]
        assert same.ply == h[0].ply and same.equity == pytest.approx(h[0].equity, abs=1e-6), \
            fastbg.position_id(b)
        ties += 1
    assert ties <= 0.05 * n


def test_candidate_values_follow_the_definition(net):
    boards, dice = pairs(10, seed=60)
    for ply in (0, 1):
        for b, d, h in zip(boards, dice, hint_batch(boards, dice, ply=ply, net=net)):
            results = fastbg.legal_moves(b, tuple(int(x) for x in d))
            assert len(h) == len(results)
            assert {c.board.tobytes() for c in h} == {r.tobytes() for r in results}
            deep = [c for c in h if c.ply == ply]
            keep = len(results) if ply == 0 else CANDIDATES.get(ply, DEEP_CANDIDATES)
            assert len(deep) == min(keep, len(results))
            assert h[:len(deep)] == deep                       # the deeper ones first
            for c in h:
                want = swap_sides(net.probabilities(fastbg.flip(c.board), ply=c.ply))
                np.testing.assert_allclose(c.probabilities, want, atol=1e-12)
                assert c.equity == pytest.approx(float(equity_of(want)), abs=1e-12)
                assert c.diff == pytest.approx(c.equity - h[0].equity, abs=1e-12)
            eq = [c.equity for c in deep]
            assert eq == sorted(eq, reverse=True)


def test_gnubg_list_equities_at_one_ply(net):
    """gnubg-nn's own list at 1-ply: the same candidates, equities within 1e-5."""
    h = fastbg.hint(fastbg.START, (3, 1), ply=1, net=net)
    _, listed = gnubg_nn.best_move(to_gnubg(fastbg.START), 3, 1, n=1, list=1)
    assert len(listed) == 8
    for (key, _, _, eq), c in zip(listed, h):
        assert (fastbg.flip(from_gnubg(gnubg_nn.board_from_position_key(key))) == c.board).all()
        assert abs(eq - c.equity) < 1e-5
    assert h[0].move == "8/5 6/5"


def test_filter_none_evaluates_all(net):
    h = fastbg.hint(fastbg.START, (6, 2), ply=1, filter=None, net=net)
    assert {c.ply for c in h} == {1}


def test_position_id_and_xgid(net):
    pid = fastbg.position_id(fastbg.START)
    a = fastbg.hint(pid, (4, 2), net=net)
    b = fastbg.hint("XGID=-b----E-C---eE---c-e----B-:0:0:1:42:0:0:0:0:10", net=net)
    assert [c.move for c in a] == [c.move for c in b]
    assert a[0].move == "8/4 6/4"
    with pytest.raises(ValueError, match="dice"):
        fastbg.hint(pid)


@pytest.mark.parametrize("kwargs,match", [
    (dict(ply=5), "ply"), (dict(ply=-1), "ply"), (dict(filter="best"), "filter"),
    (dict(dice=(0, 3)), "die"), (dict(dice=(7, 1)), "die")])
def test_bad_input(net, kwargs, match):
    args = dict(dice=(3, 1))
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        fastbg.hint(fastbg.START, net=net, **args)


def test_bad_position(net):
    with pytest.raises(ValueError):
        fastbg.hint("not an id", (3, 1), net=net)
    bad = fastbg.START.copy()
    bad[6] = 9
    with pytest.raises(ValueError):
        fastbg.hint(bad, (3, 1), net=net)


def test_nply_bot_plays_hints_choice(net):
    """The n-ply bot's scores pick the move hint puts first, game by game."""
    boards, dice = pairs(8, seed=61)
    hints = hint_batch(boards, dice, ply=1, net=net)
    res, off = fastbg.legal_moves_batch(boards, dice)
    scores = NplyScorer(net, 1)(res, off)
    for i, h in enumerate(hints):
        best = off[i] + int(np.argmax(scores[off[i]:off[i + 1]]))
        assert (res[best] == h[0].board).all()


def test_nply_bot_by_name_plays():
    r = fastbg.play(4, ("gnubg-1ply", "pubeval"), seed=3)
    assert r.summary()["games"] == 4
    assert r.summary()["bots"] == ["gnubg-1ply", "pubeval"]


def test_chunks_give_the_same_lists(net, monkeypatch):
    from fastbg.analysis import hints
    boards, dice = pairs(7, seed=62)
    whole = hint_batch(boards, dice, ply=1, net=net)
    monkeypatch.setattr(hints, "PAIRS_PER_CHUNK", 3)
    parts = hint_batch(boards, dice, ply=1, net=net)
    for a, b in zip(whole, parts):
        assert [c.board.tobytes() for c in a] == [c.board.tobytes() for c in b]
        assert [c.equity for c in a] == [c.equity for c in b]


def test_cubeful_ranking_follows_janowski(net):
    """With rules, each candidate's equity is minus the opponent's Janowski value of his
    probabilities after the move (money), or one minus his cubeful MWC (match)."""
    from fastbg.analysis.cube_actions import cube_efficiency
    from fastbg.cube import formulas
    boards, dice = pairs(4, seed=63)
    for b, d in zip(boards, dice):
        d = tuple(int(v) for v in d)
        money = fastbg.hint(b, d, rules=fastbg.MoneyRules(), cube=2, owner="on_roll", net=net)
        match = fastbg.hint(b, d, ply=1, rules=fastbg.MatchRules(7), score=(2, 5), net=net)
        for c in money:
            opp = fastbg.flip(c.board)
            q = net.probabilities(opp)
            want = -formulas.janowski_equity(q, "unavailable", cube_efficiency(opp))
            assert c.equity == pytest.approx(float(want), abs=1e-12)
            assert c.cubeless_equity == pytest.approx(float(equity_of(swap_sides(q))))
        for c in match:
            opp = fastbg.flip(c.board)
            q = net.probabilities(opp, ply=c.ply)
            want = 1 - formulas.janowski_mwc(q, 2, 5, cube_efficiency(opp), 1, "centred")
            assert c.equity == pytest.approx(float(want), abs=1e-12)
        assert [c.equity for c in money] == sorted((c.equity for c in money), reverse=True)


def test_cubeful_from_xgid(net):
    xg = "XGID=-b----E-C---eE---c-e----B-:1:1:1:31:2:4:0:7:10"   # 7-point match, 2-4
    a = fastbg.hint(xg, net=net)
    b = fastbg.hint(fastbg.START, (3, 1), rules=fastbg.MatchRules(7), score=(2, 4), cube=2,
                    owner="on_roll", net=net)
    assert [c.equity for c in a] == [c.equity for c in b]


@pytest.mark.parametrize("kwargs,match", [
    (dict(score=(1, 2)), "rules"), (dict(rules=fastbg.MoneyRules(), score=(1, 2)), "match"),
    (dict(rules=fastbg.MatchRules(5), score=(5, 0)), "score"),
    (dict(rules=fastbg.MoneyRules(), cube=3), "power of two"),
    (dict(rules=fastbg.MoneyRules(), owner="him"), "owner")])
def test_bad_cube_arguments(net, kwargs, match):
    with pytest.raises(ValueError, match=match):
        fastbg.hint(fastbg.START, (3, 1), net=net, **kwargs)


def test_hint_candidates_hold_python_numbers_and_own_rows():
    """Candidates built in bulk: Python numbers (JSON-ready), and rows that are each
    candidate's own (writing one leaves the others and the next hint alone)."""
    hints = fastbg.hint_batch(np.stack([fastbg.START, fastbg.START]), [(3, 1), (6, 5)], ply=0)
    c0, c1 = hints[0][0], hints[0][1]
    assert all(type(v) is float for v in (c0.equity, c0.diff, c0.cubeless_equity))
    assert type(c0.ply) is int and c0.diff == 0.0 and c1.diff <= 0.0
    assert c0.board.shape == (26,) and c0.probabilities.shape == (5,)
    before = c1.board.copy()
    c0.board[:] = 0
    np.testing.assert_array_equal(c1.board, before)
    assert hints[1][0].board.any()


@pytest.mark.parametrize("ply", [0, 1, 2])
@pytest.mark.parametrize("filter", ["gnubg", None, "normal", "tiny", (2, 0.03), (1, 0.5)])
def test_deep_rows_equal_the_pair_by_pair_loop(ply, filter):
    """The candidates looked at more deeply, every pair at once, are the loop's: scores
    with ties, pairs of one and of no candidates, float32 and float64 scores."""
    from fastbg.analysis.hints import check_filter, deep_rows, deep_rows_loop
    rng = np.random.default_rng(ply * 7 + len(str(filter)))
    counts = rng.integers(0, 30, 400)
    counts[:5] = [0, 1, 2, 0, 40]
    off = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    f = check_filter(filter, 1 if isinstance(filter, tuple) else ply)
    for dtype in (np.float64, np.float32):
        scores = (rng.integers(-40, 40, off[-1]) / 64).astype(dtype)   # many ties
        want = deep_rows_loop(scores, off, ply, f)
        got = deep_rows(scores, off, ply, f)
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got, want)
    if ply and filter != (1, 0.5):                      # (1, t) keeps none: the best alone
        assert len(want) > 0
