"""n-ply evaluation (fastbg.evaluators.search, GnubgNet.probabilities(ply=)) against the
slow reference (tests/reference/nply.py) and against gnubg-nn's own n-ply.

gnubg-nn breaks exact ties between moves' 0-ply scores by its C library's sort, which
fastbg does not follow (docs/engine.md section 1): positions whose search met such a tie
are counted and held to a looser bound; every other one must agree within 1e-5.
"""
import numpy as np
import pytest

import fastbg
from fastbg.evaluators.search import nply_probabilities, MAX_PLY
from fastbg.evaluators.race_kernels import race_probabilities
from reference.nply import gnubg_nply, nply, swap
from strategies import selfplay_positions
from test_gnubgnet import bearoff_positions, crashed_positions, race_positions

gnubg_nn = pytest.importorskip("gnubg_nn", reason="gnubg-nn (the gnubg extra) is not installed")
from fastbg.evaluators.gnubg_nn import _gnubg_rows  # noqa: E402

TOL = 1e-5


@pytest.fixture(scope="module")
def net():
    return fastbg.gnubg_net()


def mixed_positions(n, seed):
    """n positions of every class: self-play (contact), crashed, race and both bear-offs."""
    k = n // 5
    parts = [selfplay_positions(n - 4 * k, seed), crashed_positions(k, seed + 1),
             race_positions(k, seed + 2), bearoff_positions(k, seed + 3),
             bearoff_positions(k, seed + 4, most=6)]
    return np.concatenate(parts)


def oracle(boards, ply):
    rows = _gnubg_rows(np.asarray(boards, np.int8)).tolist()
    return np.array([gnubg_nn.probabilities(r, ply) for r in rows], np.float64)


def check_against_gnubg(net, boards, ply, max_tie_share):
    probs, ties = nply_probabilities(net, boards, ply, return_ties=True)
    err = np.abs(probs - oracle(boards, ply)).max(axis=1)
    clean = ties == 0
    assert clean.mean() >= 1 - max_tie_share, f"{(~clean).sum()} of {len(boards)} had ties"
    assert err[clean].max() < TOL, f"worst {err[clean].max():.2e} at {np.argmax(err * clean)}"
    # a tie changes which of two equally scored moves is looked into, by little
    assert (err > TOL).mean() <= 0.05
    assert err.max() < 1e-3
    return net.classes(boards)


def test_one_ply_every_class(net):
    boards = mixed_positions(2500, seed=21)
    classes = check_against_gnubg(net, boards, 1, max_tie_share=0.15)
    assert set(np.unique(classes)) == {1, 2, 3, 4, 5}


def test_two_ply_every_class(net):
    boards = mixed_positions(150, seed=22)
    classes = check_against_gnubg(net, boards, 2, max_tie_share=0.3)
    assert set(np.unique(classes)) == {1, 2, 3, 4, 5}


def test_kernel_equals_reference(net):
    boards = mixed_positions(15, seed=23)
    for ply in (1, 2):
        got, ties = nply_probabilities(net, boards[:15 if ply == 1 else 3], ply,
                                       return_ties=True)
        for i, b in enumerate(boards[:len(got)]):
            want, want_ties = gnubg_nply(net, b, ply)
            np.testing.assert_allclose(got[i], want, rtol=0, atol=1e-12)
            assert ties[i] == want_ties


def test_three_ply_is_the_mean_of_two_ply_children(net):
    """3-ply = the rolls' weighted mean of the best 0-ply child's 2-ply value, sides
    swapped (the definition one level down; 2-ply itself is checked against the reference
    and gnubg-nn above)."""
    from fastbg.evaluators.search import mover_scores
    b = selfplay_positions(1, seed=24)[0]
    children = []
    for d1, d2 in fastbg.ROLLS:
        res = fastbg.legal_moves(b, (int(d1), int(d2)))
        flipped = np.ascontiguousarray(-res[:, ::-1])
        children.append(flipped[int(np.argmax(mover_scores(net.probabilities(flipped))))])
    p2 = net.probabilities(np.stack(children), ply=2)
    w = np.array([1.0 if d1 == d2 else 2.0 for d1, d2 in fastbg.ROLLS])
    want = (w[:, None] * np.stack([swap(p) for p in p2])).sum(axis=0) / 36.0
    np.testing.assert_allclose(net.probabilities(b, ply=3), want, rtol=0, atol=1e-12)


def test_plugin_gets_nply():
    """Any numba probs(board, out) plug-in is searched the same way."""
    boards = race_positions(6, seed=25)

    def probs0(b):
        out = np.zeros(5)
        race_probabilities(b, out)
        return out

    def score(results):
        return [-fastbg.cube.formulas.equity_of(probs0(fastbg.flip(r))) for r in results]

    def searched(b):
        return (b[1:25] < 0).any() or b[0] < 0        # the opponent still has checkers

    got = nply_probabilities(race_probabilities, boards, 1)
    for i, b in enumerate(boards):
        want, _ = nply(b, 1, probs0, score, searched)
        np.testing.assert_allclose(got[i], want, rtol=0, atol=1e-12)


def test_a_plugins_search_comes_from_the_disk_cache(tmp_path):
    """Plug-ins reach the search as C callbacks of one type: after a search here (which
    compiles the search kernels, if need be, and saves them), a new process searching
    with another plug-in compiles none of them."""
    from compile_events import compiled_in_new_process
    boards = race_positions(2, seed=27)
    nply_probabilities(race_probabilities, boards, 1)
    body = """
        import numpy as np
        from fastbg.evaluators.race_kernels import race_probabilities
        from fastbg.evaluators.search import nply_probabilities
        @numba.njit
        def halved(board, out):
            race_probabilities(board, out)
            for k in range(1, 5):
                out[k] *= 0.5
        print(nply_probabilities(halved, np.load('boards.npy'), 1))
        """
    np.save(tmp_path / "boards.npy", boards)
    assert compiled_in_new_process(tmp_path, body, prefixes=(
        "probabilities_batch", "search_tree", "expand", "root_probs")) == []


def test_shapes_threads_and_equity(net):
    boards = selfplay_positions(12, seed=26)
    p = net.probabilities(boards, ply=1)
    assert p.shape == (12, 5)
    assert net.probabilities(boards[3], ply=1).shape == (5,)
    np.testing.assert_array_equal(nply_probabilities(net, boards, 1, threads=1), p)
    np.testing.assert_allclose(net.equity(boards, ply=1),
                               fastbg.cube.formulas.equity_of(p))
    assert net.probabilities(boards[:0], ply=2).shape == (0, 5)


@pytest.mark.parametrize("prune", [False, True])
def test_last_levels_whole_on_each_thread_give_the_same_values(net, monkeypatch, prune):
    """From _WHOLE_LEVEL_NODES nodes, the last level's spans go whole through every step
    on one thread each: the same values, ties included, as one thread."""
    import numba
    from fastbg.evaluators import search as search_mod
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("numba runs on one thread here: nothing runs side by side")
    boards = selfplay_positions(100, seed=27)
    one, one_ties = nply_probabilities(net, boards, 1, threads=1, return_ties=True,
                                       prune=prune)
    spans = []
    level = search_mod._expand_level

    def counted(net_, nodes, ply, n_threads, prune_):
        spans.append((len(nodes), n_threads))
        return level(net_, nodes, ply, n_threads, prune_)
    monkeypatch.setattr(search_mod, "_expand_level", counted)
    two, two_ties = nply_probabilities(net, boards, 1, threads=2, return_ties=True, prune=prune)
    assert len(spans) > 1 and all(t == 1 for _, t in spans)
    assert sum(k for k, _ in spans) == len(np.unique(boards, axis=0))
    np.testing.assert_array_equal(two, one)
    np.testing.assert_array_equal(two_ties, one_ties)
    # at 2 plies the second level goes that way too
    spans.clear()
    np.testing.assert_array_equal(nply_probabilities(net, boards[:4], 2, threads=2, prune=prune),
                                  nply_probabilities(net, boards[:4], 2, threads=1, prune=prune))
    assert any(t == 1 for _, t in spans)


@pytest.mark.parametrize("ply", [-1, MAX_PLY + 1, 1.5, True])
def test_bad_ply(net, ply):
    with pytest.raises(ValueError):
        net.probabilities(fastbg.START, ply=ply)


def test_bad_evaluator():
    with pytest.raises(TypeError, match="evaluator"):
        nply_probabilities(lambda b: b, fastbg.START, 1)


def test_mover_scores_equal_the_nets_scores(net):
    """The n-ply search scores moves from the batch kernel's probabilities; they must be
    GnubgNet.scores (the game kernel's choice) bit for bit."""
    from fastbg.evaluators.search import mover_scores
    res, _ = fastbg.legal_moves_batch(selfplay_positions(60, seed=27),
                                      np.tile([[3, 1], [6, 6], [5, 2]], (20, 1)))
    flipped = np.ascontiguousarray(-res[:, ::-1])
    np.testing.assert_array_equal(mover_scores(net.probabilities(flipped)), net.scores(res))


def test_row_words_and_flip_row():
    """The level kernels' row helpers: row_words reads a row's 26 bytes as little-endian
    words (the last row too), flip_row writes a row reversed and negated and nothing
    beside it (the rows around it keep their bytes)."""
    from numba import njit
    from fastbg.position.bits import flip_row, row_words

    @njit
    def run(src, dst, words):
        for r in range(src.shape[0]):
            words[r] = row_words(src, r)
            flip_row(src, r, dst, src.shape[0] - 1 - r)

    rng = np.random.default_rng(41)
    src = rng.integers(-15, 16, (300, 26)).astype(np.int8)
    dst = np.full((300, 26), 99, np.int8)
    words = np.zeros((300, 4), np.uint64)
    run(src, dst, words)
    raw = np.zeros((300, 32), np.uint8)
    raw[:, :26] = src.view(np.uint8)
    np.testing.assert_array_equal(words, raw.view("<u8"))
    np.testing.assert_array_equal(dst[::-1], -src[:, ::-1])


def level_moves(seed):
    """(nodes, results, offsets) of a level: 45 nodes (self-play and bear-off positions),
    each node's 21 rolls' moves by legal_moves_rows, in ROLL order."""
    from fastbg.position.moves import legal_moves_rows
    nodes = np.concatenate([selfplay_positions(40, seed=seed),
                            bearoff_positions(5, seed=seed + 1)])
    res, off = legal_moves_rows(np.repeat(nodes, 21, axis=0),
                                np.tile(fastbg.ROLLS.astype(np.int64), (len(nodes), 1)), 1)
    return nodes, res, off


def test_level_kernels_keep_each_nodes_distinct_results():
    """distinct_results: each node's results once, flipped, in order of first appearance,
    and every result row maps back to its own board; the same as numpy's unique."""
    from fastbg.evaluators import search_kernels as k
    nodes, res, off = level_moves(seed=28)
    n = len(nodes)
    flipped = np.empty_like(res)
    local = np.full(len(res), -1, np.int64)
    n_distinct = np.zeros(n, np.int64)
    k.distinct_results(res, off, 0, n, flipped, local, n_distinct, k.new_node_hash())
    base = np.zeros(n + 1, np.int64)
    np.cumsum(n_distinct, out=base[1:])
    uniq = np.empty((base[-1], 26), np.int8)
    k.gather_distinct(flipped, off, n_distinct, base, 0, n, uniq)
    repeats = 0
    packed = np.empty_like(res)
    local2 = np.full(len(res), -1, np.int64)
    n_distinct2 = np.zeros(n, np.int64)
    total = k.distinct_results(res, off, 0, n, packed, local2, n_distinct2, k.new_node_hash(),
                               True)
    assert total == base[-1]
    np.testing.assert_array_equal(packed[:total], uniq)      # packed: the gathered rows
    np.testing.assert_array_equal(local2, local)
    np.testing.assert_array_equal(n_distinct2, n_distinct)
    for j in range(n):
        mine = res[off[21 * j]:off[21 * j + 21]]
        _, first = np.unique(mine, axis=0, return_index=True)
        want = np.ascontiguousarray(-mine[np.sort(first)][:, ::-1])
        np.testing.assert_array_equal(uniq[base[j]:base[j + 1]], want)
        rows = uniq[base[j] + local[off[21 * j]:off[21 * j + 21]]]
        np.testing.assert_array_equal(-rows[:, ::-1], mine)
        repeats += len(mine) - len(first)
    assert repeats > 0                  # some results do come from two rolls


@pytest.mark.parametrize("rows_per_pair", [32, 0])
def test_level_results_equal_the_move_generator_and_distinct_results(monkeypatch,
                                                                      rows_per_pair):
    """level_results (moves and distinct results in one call a span) gives what
    legal_moves_rows then distinct_results give: the same offsets, distinct rows and
    local rows; also when the results outgrow the room first given (rows_per_pair 0:
    one roll's worth, so nearly every node stops and runs again with twice the room)."""
    from fastbg.evaluators import search as search_mod
    from fastbg.evaluators import search_kernels as k
    monkeypatch.setattr(search_mod, "_LEVEL_ROWS_PER_PAIR", rows_per_pair)
    nodes, res, off = level_moves(seed=30)
    n = len(nodes)
    packed = np.empty_like(res)
    local = np.full(len(res), -1, np.int64)
    n_distinct = np.zeros(n, np.int64)
    total = k.distinct_results(res, off, 0, n, packed, local, n_distinct, k.new_node_hash(),
                               True)
    n_distinct2 = np.zeros(n, np.int64)
    off2, uniq2, local2 = search_mod._level_results("test_", nodes, n_distinct2)
    np.testing.assert_array_equal(off2, off)
    np.testing.assert_array_equal(uniq2, packed[:total])
    np.testing.assert_array_equal(local2[:len(res)], local)
    np.testing.assert_array_equal(n_distinct2, n_distinct)


def test_level_kernel_picks_the_first_best_with_its_ties(net):
    """pick_best against numpy on the same probabilities: the first result of the best
    mover's score of each roll, and a tie flag where another has that score exactly."""
    from fastbg.evaluators import search_kernels as k
    from fastbg.evaluators.search import mover_scores
    n = 30
    rng = np.random.default_rng(30)
    counts = rng.integers(1, 9, n * 21)
    off = np.concatenate([[0], np.cumsum(counts)])
    # scores from few distinct probability rows, so exact ties are common
    palette = net.probabilities(selfplay_positions(6, seed=31))
    q = palette[rng.integers(0, 6, off[-1])]
    q[rng.random(off[-1]) < 0.2, 1] += 1e-3      # equal scores, other probabilities
    local = np.concatenate([np.arange(c) for c in np.diff(off[::21])])
    base = off[::21].copy()
    for leaf in (True, False):
        child = np.empty(n * 21, np.int64)
        tied = np.empty(n * 21, np.int64)
        k.pick_best(q, off, local, base, np.ones(off[-1], np.int8), np.bool_(leaf), 0, n * 21,
                    child, tied, np.empty(off[-1]))
        s = mover_scores(q)
        for p in range(n * 21):
            seg = np.arange(off[p], off[p + 1])
            best = seg[np.argmax(s[seg])]
            assert child[p] == best
            others = [c for c in seg if c != best and s[c] == s[best]]
            if leaf:
                others = [c for c in others if (q[c] != q[best]).any()]
            assert tied[p] == (len(others) > 0)


def test_repeated_nodes_are_searched_once_with_the_same_values(net):
    """Roots given twice, and a position on the bar against a closed board (every roll
    dances: one child for all 21 rolls), equal their separate searches."""
    closed = np.zeros(26, np.int8)
    closed[25] = 2                              # two on the bar
    closed[6], closed[13] = 5, 8
    closed[19:25] = -2                          # the opponent's closed board
    closed[1] = -3
    boards = np.concatenate([selfplay_positions(4, seed=32), [closed]])
    twice = np.concatenate([boards, boards[::-1]])
    for ply in (1, 2):
        p, t = nply_probabilities(net, twice, ply, return_ties=True)
        for i, b in enumerate(twice):
            one, one_t = nply_probabilities(net, b, ply, return_ties=True)
            np.testing.assert_array_equal(p[i], one)
            assert t[i] == one_t
        np.testing.assert_array_equal(p[:5], p[5:][::-1])
