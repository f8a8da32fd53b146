"""GNU Backgammon's pruning nets and the pruned look-ahead (fastbg.evaluators.prune_kernels,
nply_probabilities(prune=True)), GNU Backgammon's Normal move filter, and the bots that use
them, against slow references here and GNU Backgammon's own pruned 1-ply
(tests/test_gnubg_prune.py).
"""
import numpy as np
import pytest

import fastbg
from fastbg.constants import ROLLS
from fastbg.evaluators import nets as nets_mod
from fastbg.evaluators import net_kernels as kg
from fastbg.evaluators import search_kernels as ks
from fastbg.evaluators.search import mover_scores, nply_probabilities
from fastbg.evaluators.race_kernels import race_probabilities
from reference.gnubginputs_ref import base_inputs as ref_base_inputs
from reference.nply import swap
from strategies import selfplay_positions
from test_gnubgnet import bearoff_positions, crashed_positions, race_positions

pytest.importorskip("gnubg_nn", reason="gnubg-nn (the gnubg extra) is not installed")


@pytest.fixture(scope="module")
def net():
    return fastbg.gnubg_net()


def reference_prune(net, board):
    """The pruning net of ``board``'s class on its base inputs, written out in float32:
    hidden sums input by input, gnubg's table sigmoid, each output's sum in unit order
    (the kernel sums the 16 products pairwise: the last bits differ). (probabilities
    before the race and sanity rules, class), or (None, class) below race."""
    gb = np.zeros((2, 25), np.int64)
    kg.to_gnubg(board, gb)
    pc = int(kg.classify(gb, net.bearoff.binom))
    if pc < kg.C_RACE:
        return None, pc
    inp = np.zeros(200, np.float32)
    ref_base_inputs(gb, inp, np.zeros(200, np.int64))
    p = net.weights.prune
    k = pc - kg.C_RACE
    nh = int(p.n_hid[k])
    h = p.b1[k, :nh].copy()
    for i in np.flatnonzero(inp):
        h += p.w1[k, i, :nh] * inp[i]
    h = np.array([kg.sigmoid(np.float32(-p.beta[k, 0] * x)) for x in h], np.float32)
    out = np.zeros(5)
    for o in range(5):
        s = p.b2[k, o]
        for j in range(nh):
            s = np.float32(s + p.w2[k, o, j] * h[j])
        out[o] = kg.sigmoid(np.float32(-p.beta[k, 1] * s))
    return out, pc


def mixed(n, seed):
    k = n // 4
    return np.concatenate([selfplay_positions(n - 3 * k, seed), crashed_positions(k, seed + 1),
                           race_positions(k, seed + 2), bearoff_positions(k, seed + 3)])


def test_pruning_nets_load_from_every_weights_format(net):
    p = net.weights.prune
    assert p is not None and list(p.n_hid) == [8, 16, 16]      # race, crashed, contact
    data = nets_mod._package_data("gnubg")
    if data is None:
        pytest.skip("the gnubg package (extra gnubg-app) is not installed")
    for name in (nets_mod.WEIGHTS_NAME, nets_mod.BINARY_NAME):   # GNU Backgammon's own files
        q = nets_mod.load_weights(data / name).prune
        for a, b in zip(p, q):
            np.testing.assert_array_equal(a, b)


def test_prune_rows_equal_the_reference_forward_pass(net):
    boards = mixed(400, seed=51)
    probs, classes = net.prune_rows(np.ascontiguousarray(boards))
    np.testing.assert_array_equal(classes, net.classes(boards))
    checked = 0
    for b, p, c in zip(boards, probs, classes):
        ref, pc = reference_prune(net, b)
        assert pc == c
        if ref is None:
            assert not p.any()                    # left for the full evaluation
            continue
        if c == kg.C_RACE:
            continue                              # race rules change the gammon outputs
        assert abs(p[0] - ref[0]) < 1e-5, (b, p, ref)
        checked += 1
    assert checked > 100


def test_prune_rows_on_the_other_side(net):
    boards = np.ascontiguousarray(selfplay_positions(50, seed=52))
    p1, _ = net.prune_rows(np.ascontiguousarray(fastbg.flip(boards)))
    p2, _ = net.prune_rows(boards, swapped=True)
    np.testing.assert_array_equal(p1, p2)


def keep_count(n):
    """GNU Backgammon's candidates kept of a roll's n: 5 + floor(log2 n)."""
    return ks.MIN_PRUNE_MOVES + int(n).bit_length() - 1


def pruned_nply(net, board, ply):
    """Slow GNU Backgammon pruned look-ahead: per roll, a roll of n > keep_count(n)
    results of one class, race or above, keeps the keep_count(n) best by the pruning
    nets (the first on ties), and plays the best of those by the full network."""
    if ply == 0 or net.classes(board) <= kg.C_BEAROFF2:
        return net.probabilities(board)
    total = np.zeros(5)
    for d1, d2 in ROLLS:
        res = fastbg.legal_moves(board, (int(d1), int(d2)))
        opp = np.ascontiguousarray(fastbg.flip(res))
        full = mover_scores(net.probabilities(opp))
        rows = np.arange(len(res))
        classes = net.classes(opp)
        k = keep_count(len(res))
        if len(res) > k and classes[0] >= kg.C_RACE and (classes == classes[0]).all():
            ps = mover_scores(net.prune_rows(opp)[0])
            rows = np.sort(np.argsort(-ps, kind="stable")[:k])
        best = rows[np.argmax(full[rows])]
        total += (1.0 if d1 == d2 else 2.0) * swap(pruned_nply(net, opp[best], ply - 1))
    return total / 36.0


def test_keep_counts_are_gnubgs():
    assert [keep_count(n) for n in (2, 8, 9, 16, 31, 32, 100)] == [6, 8, 8, 9, 9, 10, 11]
    assert keep_count(3060) <= ks.MAX_PRUNE_MOVES


def test_pruned_search_equals_the_slow_reference(net):
    boards = mixed(48, seed=53)
    fast = nply_probabilities(net, boards, 1, prune=True)
    for b, p in zip(boards, fast):
        np.testing.assert_allclose(p, pruned_nply(net, b, 1), atol=1e-12)
    few = boards[:4]
    fast2 = nply_probabilities(net, few, 2, prune=True)
    for b, p in zip(few, fast2):
        np.testing.assert_allclose(p, pruned_nply(net, b, 2), atol=1e-12)


def test_pruning_changes_some_choices_but_not_most(net):
    boards = selfplay_positions(300, seed=54)
    a = nply_probabilities(net, boards, 1)
    b = nply_probabilities(net, boards, 1, prune=True)
    same = np.abs(a - b).max(axis=1) < 1e-9
    assert 0.5 < same.mean() < 1.0
    assert np.abs(fastbg.cube.formulas.equity_of(a) - fastbg.cube.formulas.equity_of(b)).mean() < 0.01


def test_prune_select_keeps_the_best_as_gnubg_does():
    rng = np.random.default_rng(55)
    n_pairs = 21
    counts = rng.integers(1, 60, n_pairs)
    off = np.concatenate([[0], np.cumsum(counts)])
    local = np.arange(off[-1])
    base = np.zeros(1, np.int64)
    pscore = np.round(rng.normal(size=off[-1]), 1)               # many exact ties
    cls = np.full(off[-1], kg.C_CONTACT, np.int8)
    cls[off[3]:off[4]][-1] = kg.C_CRASHED                        # mixed classes: no pruning
    cls[off[5]:off[6]] = kg.C_BEAROFF1                           # below race: no pruning
    keep = np.zeros(off[-1], np.int8)
    need = np.zeros(off[-1], np.int8)
    ks.prune_select(pscore, cls, off, local, base, np.zeros(ks.MAX_PRUNE_MOVES, np.int64),
                    0, n_pairs, keep, need)
    for p in range(n_pairs):
        seg = np.arange(off[p], off[p + 1])
        k = keep_count(len(seg))
        if p in (3, 5) or len(seg) <= k:
            assert keep[seg].all()
            continue
        kept = seg[keep[seg] == 1]
        assert len(kept) == k
        dropped = seg[keep[seg] == 0]
        assert pscore[dropped].max() <= pscore[kept].min()     # none dropped is better
        assert set(kept - seg[0]) == gnubg_kept(pscore[seg], k)   # ties as GNU Backgammon
    np.testing.assert_array_equal(need, keep)


def gnubg_kept(scores, k):
    """eval.c's FindBestMoveInEval selection, transcribed: r the opponent's scores (lower
    is better for the mover), bm[0] the worst kept; the indices kept."""
    r = -np.asarray(scores)
    bm = [0] * k
    for i in range(len(r)):
        if i < k:
            bm[i] = i
            if r[i] > r[bm[0]]:
                bm[i], bm[0] = bm[0], i
        elif r[i] < r[bm[0]]:
            bm[0] = i
            m = 0
            for j in range(1, k):
                if r[bm[j]] > r[bm[m]]:
                    m = j
            bm[0], bm[m] = bm[m], i
    return set(bm)


def test_prune_errors(net):
    for bad in (1, "yes", None):
        with pytest.raises(ValueError, match="prune must be True or False"):
            nply_probabilities(net, selfplay_positions(2, 56), 1, prune=bad)
        with pytest.raises(ValueError, match="prune must be True or False"):
            fastbg.hint(fastbg.START, (3, 1), ply=1, prune=bad)
    with pytest.raises(ValueError, match="plug-in"):
        nply_probabilities(race_probabilities, selfplay_positions(2, 56), 1, prune=True)
    bare = fastbg.GnubgNet(nets_mod.Weights(net.weights.path, net.weights.version,
                                            net.weights.arrays, net.weights.format, None))
    with pytest.raises(ValueError, match="no pruning nets"):
        nply_probabilities(bare, selfplay_positions(2, 56), 1, prune=True)


def test_move_filters_look_at_the_moves_within_their_threshold(net):
    from fastbg.analysis.hints import MOVE_FILTERS
    assert MOVE_FILTERS["normal"] == (8, 0.16) and MOVE_FILTERS["large"] == (16, 0.32)
    # GNU Backgammon's presets, and pairs of one's own (bgsage's in-trial (2, 0.03))
    filters = dict(MOVE_FILTERS)
    filters.update({(2, 0.03): (2, 0.03), "3x0.1": (3, 0.1), (1, 1.0): (1, 1.0)})
    boards = selfplay_positions(24, seed=57)
    rng = np.random.default_rng(57)
    seen = set()
    for b in boards:
        dice = tuple(int(x) for x in rng.integers(1, 7, 2))
        h0 = fastbg.hint(b, dice, ply=0)
        for name, (most, threshold) in filters.items():
            h = fastbg.hint(b, dice, ply=1, filter=name)
            within = [c for c in h0 if c.equity >= h0[0].equity - threshold][:most]
            deep = {c.board.tobytes() for c in h if c.ply == 1}
            if len(within) > 1:
                assert deep == {c.board.tobytes() for c in within}
                seen.add(len(within))
            else:
                assert not deep and h[0].board.tobytes() == h0[0].board.tobytes()
    assert len(seen) > 3
    with pytest.raises(ValueError, match="ply 1 or 2"):
        fastbg.hint(boards[0], (3, 1), ply=3, filter="normal")
    with pytest.raises(ValueError, match="filter"):
        fastbg.hint(boards[0], (3, 1), ply=1, filter="widest")


@pytest.mark.parametrize("name, filter, prune", [
    ("gnubg-1ply-prune", "normal", True),
    ("gnubg-1ply-2x0.03", (2, 0.03), False),
    ("gnubg-1ply-tiny-prune", "tiny", True)])
def test_nply_bots_play_their_hints_choice(net, name, filter, prune):
    from fastbg.position.moves import legal_moves_rows
    from fastbg.sim.bots import resolve
    bot = resolve(name)
    assert bot.name == name and bot.evaluator.filter == filter and bot.evaluator.prune == prune
    boards = selfplay_positions(30, seed=58)
    rng = np.random.default_rng(58)
    dice = np.sort(rng.integers(1, 7, (30, 2)), axis=1)[:, ::-1].astype(np.int64)
    res, off = legal_moves_rows(boards, dice, 1)
    scores = bot.evaluator(res, off)
    looked = 0
    for i, b in enumerate(boards):
        if off[i + 1] == off[i]:
            continue
        pick = res[off[i] + int(np.argmax(scores[off[i]:off[i + 1]]))]
        h = fastbg.hint(b, tuple(int(x) for x in dice[i]), ply=1, filter=filter, prune=prune)
        np.testing.assert_array_equal(pick, h[0].board)
        looked += h[0].ply == 1
    assert looked > 0


def test_nply_bot_names():
    from fastbg.sim.bots import NplySpec, nply_bot, nply_spec
    assert nply_spec("gnubg-1ply") == NplySpec(1, "gnubg", False)
    assert nply_spec("gnubg-2ply-prune") == NplySpec(2, "normal", True)
    assert nply_spec(" GNUBG-1ply-2x0.03-prune ") == NplySpec(1, (2, 0.03), True)
    assert nply_spec("gnubg-2ply-large") == NplySpec(2, "large", False)
    for other in ("gnubg", "gnubg-4ply", "gnubg-1ply-wide", "gnubg-1ply-2x", "pubeval", None):
        assert nply_spec(other) is None
    with pytest.raises(ValueError, match="ply 1 or 2"):
        nply_spec("gnubg-3ply-tiny")
    with pytest.raises(ValueError, match="n >= 1"):
        nply_spec("gnubg-1ply-0x0.1")
    # a bot made in Python is named so that its name gives it back
    for ply, filter, prune in [(1, (2, 0.03), True), (2, "tiny", False), (1, None, True),
                               (1, None, False)]:
        bot = nply_bot(ply, filter=filter, prune=prune)
        spec = nply_spec(bot.name)
        assert (spec.ply, spec.prune) == (ply, prune)
        assert spec.filter == bot.evaluate.filter
    with pytest.raises(ValueError, match="filter"):
        nply_bot(1, filter="widest")


def test_filter_pairs_are_checked():
    from fastbg.analysis.hints import check_filter
    assert check_filter("2x0.03", 1) == (2, 0.03) == check_filter([2, 0.03], 2)
    assert check_filter(" 4 x .5 ", 1) == (4, 0.5)
    for bad in [(0, 0.1), (2, -0.1), (2.5, 0.1), (True, 0.1), (2, float("nan")), (1, 2, 3),
                ("a", 1), "2x", "x0.1", "widest", 3]:
        with pytest.raises(ValueError, match="filter"):
            check_filter(bad, 1)
    with pytest.raises(ValueError, match="ply 1 or 2"):
        check_filter((2, 0.03), 3)


def test_pruned_bot_plays_games():
    res = fastbg.play(6, ("gnubg-1ply-prune", "gnubg"), seed=5)
    assert res.winner.shape == (6,)
    assert set(np.unique(np.abs(res.points))) <= {1, 2, 3}
