"""fastbg.analyse (docs/analysis.md): move losses and luck against the slow reference
(tests/reference/analysis.py), the batched cube formula against the scalar one, the totals'
definitions, the Results interface. GNU Backgammon's own analysis is compared in
tests/test_gnubg_analysis.py."""
import numpy as np
import pytest

import fastbg
from fastbg.cube import formulas
from reference.analysis import reference_moves

LIMIT = 6       # moves per game checked against the reference (it is slow)


@pytest.fixture(scope="module")
def match():
    res = fastbg.play_matches(1, 5, ("pubeval", "random"), cube=("race", "race"), seed=3,
                              record=True)
    return res.records[0]


@pytest.fixture(scope="module")
def analysis(match):
    return fastbg.analyse(match)


def test_janowski_rows_equal_the_scalar_formula():
    rng = np.random.default_rng(7)
    w = rng.uniform(0, 1, 200)
    w[:3] = (0.0, 1.0, 0.5)
    wg = w * rng.uniform(0, 0.5, 200)
    lg = (1 - w) * rng.uniform(0, 0.5, 200)
    p = np.stack([w, wg, wg * 0.1, lg, lg * 0.1], 1)
    x = rng.uniform(0.5, 0.9, 200)
    for a0, a1, cube, crawford in [(5, 5, 1, False), (7, 3, 2, False), (1, 4, 1, True),
                                   (4, 1, 1, False), (2, 2, 1, False), (9, 9, 4, False)]:
        for owner in ("centred", "owned", "unavailable"):
            rows = formulas.janowski_mwc_rows(p, a0, a1, x, cube, owner, crawford)
            one = [formulas.janowski_mwc(q, a0, a1, xq, cube, owner, crawford)
                   for q, xq in zip(p, x)]
            assert np.allclose(rows, one, rtol=0, atol=1e-12)


def test_moves_match_the_reference(match, analysis):
    net = fastbg.gnubg_net()
    ref = reference_moves(match, net, LIMIT)
    ours = []
    for gi, g in enumerate(match.games):
        ours += [m for m in analysis.moves if m.game == gi][:LIMIT]
    assert len(ours) == len(ref) > 0
    for m, (loss, luck, forced) in zip(ours, ref):
        assert m.equity_loss == pytest.approx(loss, abs=1e-9)
        assert m.luck == pytest.approx(luck, abs=1e-9)
        assert m.forced == forced


def test_every_move_action_in_match_order(match, analysis):
    want = [(gi, a.player, tuple(a.dice), a.move) for gi, g in enumerate(match.games)
            for a in g.actions if a.kind == "move"]
    assert [(m.game, m.player, m.dice, m.move) for m in analysis.moves] == want
    assert all(m.equity_loss >= 0 for m in analysis.moves)
    assert all(m.equity_loss == 0 for m in analysis.moves if m.forced)
    assert any(m.move == "" for m in analysis.moves)          # dances are there


def test_totals_follow_their_definitions(analysis):
    for p, pl in enumerate(analysis.players):
        mine = [m for m in analysis.moves if m.player == p]
        cubes = [c for c in analysis.cube if c.player == p]
        n = pl.unforced_moves + pl.close_cube_decisions
        total = sum(m.equity_loss for m in mine) + sum(c.error for c in cubes)
        assert pl.error_total_emg == pytest.approx(total)
        assert pl.error_rate_memg == pytest.approx(1000 * total / n)
        assert pl.pr == pytest.approx(500 * total / n)
        assert pl.luck_total_emg == pytest.approx(sum(m.luck for m in mine))
        assert pl.unforced_moves == sum(not m.forced for m in mine)
    a, b = analysis.players
    assert a.actual_result == pytest.approx(-b.actual_result)
    assert a.luck_adjusted_result == pytest.approx(-b.luck_adjusted_result)
    assert analysis.players[1].error_total_emg > analysis.players[0].error_total_emg


def test_results_interface(analysis, tmp_path):
    text = analysis.table()
    assert "Error total EMG" in text and "Worst decisions" in text
    assert analysis.summary()["moves"] == len(analysis.moves)
    path = tmp_path / "a.json"
    analysis.save(path)
    back = fastbg.Analysis.load(path)
    assert back == analysis and back.moves == analysis.moves


def test_reads_mat_files_and_checks_arguments(match, analysis, tmp_path):
    path = tmp_path / "m.mat"
    fastbg.write_mat(match, path)
    assert fastbg.analyse(str(path)).moves == analysis.moves
    one = fastbg.analyse(match.games[0])
    assert one.moves == [m for m in analysis.moves if m.game == 0]
    with pytest.raises(TypeError):
        fastbg.analyse(42)
    with pytest.raises(ValueError):
        fastbg.analyse(match, ply=9)
    with pytest.raises(ValueError):
        fastbg.analyse(match, efficiency="nope")


def test_one_ply_runs(match, analysis):
    g = match.games[0]
    a = fastbg.analyse(g, ply=1)
    assert a.ply == 1 and len(a.moves) == len(g.moves)
    assert all(m.equity_loss >= 0 for m in a.moves)
    # the luck stays at 0-ply (GNU Backgammon's default luck analysis), bit for bit
    assert [m.luck for m in a.moves] == [m.luck for m in analysis.moves if m.game == 0]
    # luck at the analysis' ply looks at every roll at 1-ply: the same losses and best
    # moves (the rolls played are looked at either way), other luck
    deep = fastbg.analyse(g, ply=1, luck_ply=1)
    assert [(m.equity_loss, m.best) for m in deep.moves] == [(m.equity_loss, m.best)
                                                            for m in a.moves]
    unforced = [(m.luck, d.luck) for m, d in zip(a.moves, deep.moves) if not m.forced]
    assert unforced and any(x != y for x, y in unforced)
    with pytest.raises(ValueError, match="luck_ply"):
        fastbg.analyse(g, luck_ply=4)


def test_one_ply_with_gnubgs_filter_and_pruning(match):
    """filter="tiny" and prune=True: the move played and the best 0-ply move are always
    looked at at 1-ply (never a 0-ply value against a 1-ply one), so a move that is the
    0-ply best played loses nothing, and the pruned 1-ply values are the hint's."""
    g = fastbg.play(1, ("pubeval", "random"), seed=6, record=True).records[0]
    a = fastbg.analyse(g, ply=1, filter="tiny", prune=True)
    turns = [x for x in g.replay() if x[0].kind == "move"]
    checked = 0
    for m, (act, board, _) in zip(a.moves, turns):
        assert m.equity_loss >= 0
        if m.forced:
            continue
        h = fastbg.hint(board, tuple(act.dice), ply=1, filter=None, prune=True)
        h0 = fastbg.hint(board, tuple(act.dice), ply=0)
        played = next(c for c in h if c.move == act.move)
        top = next(c for c in h if c.move == h0[0].move)
        if m.best == act.move and act.move == h0[0].move:
            assert m.equity_loss == 0.0
        # the loss is at least the played move's deficit against the 0-ply best, at 1-ply
        assert m.equity_loss >= top.equity - played.equity - 1e-9
        checked += 1
    assert checked > 5
    with pytest.raises(ValueError, match="ply 1 or 2"):
        fastbg.analyse(g, ply=3, filter="large")


def test_luck_at_one_ply_is_the_rolls_mean_at_one_ply(match):
    """luck_ply=1: a roll's luck is the best move's 1-ply value (of the candidates the
    filter looks at) less the mean of the 21 rolls' best values, computed here from
    fastbg.hint at 1-ply (money play: a centred cube's cubeful value is not hint's, so a
    cubeless game)."""
    g = fastbg.play(1, ("pubeval", "random"), seed=4, record=True).records[0]
    a = fastbg.analyse(g, ply=1, luck_ply=1)
    weights = np.array([1.0 if d1 == d2 else 2.0 for d1, d2 in fastbg.ROLLS])
    checked = 0
    turns = [x for x in g.replay() if x[0].kind == "move"]
    # the opening's luck has its own rule (the opponent's rolls count too); a few turns do
    for m, (act, board, _) in list(zip(a.moves, turns))[1:5]:
        best = np.array([fastbg.hint(board, (int(d1), int(d2)), ply=1)[0].equity
                         for d1, d2 in fastbg.ROLLS])
        mine = fastbg.hint(board, tuple(act.dice), ply=1)[0].equity
        assert m.luck == pytest.approx(mine - best @ weights / 36.0, abs=1e-9)
        checked += 1
    assert checked >= 2
