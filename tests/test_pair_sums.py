"""Two positions' hidden sums at once (fastbg/evaluators/pair_sum_kernels.py) are each
position's own sums, bit for bit, and the batch kernel gives the same probabilities either
way (NetScratch.mode: both ways are compiled and tested on every CPU; AMD Zen 4 runs
pairs, the others one position at a time).

The pair list is checked against a plain merge of the two positions' own lists, and the
sums against the plain loops, on pairs of every kind: the same position twice (every row
shared), siblings (the results of one roll), unrelated positions, bars and piles.
"""
import numpy as np
import pytest
from numba import njit

import fastbg
from fastbg.constants import ROLLS
from fastbg.evaluators import add_row_kernels as A
from fastbg.evaluators import cpu_variants as V
from fastbg.evaluators import net_kernels as kg
from fastbg.evaluators import pair_sum_kernels as P
from fastbg.evaluators.input_tables import BASE_INPUTS, MORE_INPUTS
from fastbg.evaluators.net_tables import MAX_INPUTS
from fastbg.evaluators.simd import hidden_sums_adds_reference
from fastbg.position.moves import legal_moves_rows
from strategies import selfplay_positions

SLOTS = P.row_slots()


def random_pairs(n, seed):
    """n pairs of gnubg boards (2, 25) and feature inputs: a third the same position twice,
    a third one point (or one feature) apart, a third unrelated."""
    rng = np.random.default_rng(seed)

    def boards(m):
        fill = rng.random((m, 1, 1))
        return (rng.integers(0, 16, (m, 2, 25)) * (rng.random((m, 2, 25)) < fill)).astype(
            np.int64)

    def features(m):
        inp = np.zeros((m, MAX_INPUTS), np.float32)
        # values on the features' own grids (so that product rows are met) and off them
        grid = rng.integers(0, 37, (m, 2 * MORE_INPUTS)) / np.float32(36)
        off = rng.random((m, 2 * MORE_INPUTS)).astype(np.float32)
        vals = np.where(rng.random((m, 2 * MORE_INPUTS)) < 0.5, grid, off)
        inp[:, BASE_INPUTS:] = np.where(rng.random(vals.shape) < rng.random((m, 1)), vals, 0)
        return inp

    ga, fa = boards(n), features(n)
    gb, fb = ga.copy(), fa.copy()
    third = n // 3
    for r in range(third, 2 * third):                 # one point or one feature apart
        if r % 2:
            side, point = rng.integers(0, 2), rng.integers(0, 25)
            gb[r, side, point] = (gb[r, side, point] + rng.integers(1, 15)) % 16
        else:
            j = BASE_INPUTS + rng.integers(0, 2 * MORE_INPUTS)
            fb[r, j] = np.float32(rng.integers(0, 37) / 36)
    gb[2 * third:], fb[2 * third:] = boards(n - 2 * third), features(n - 2 * third)
    return ga, fa, gb, fb


@njit
def _pair_lists(ga, fa, gb, fb, contact250, out, counts):
    inp = np.zeros(P.PAIR_INPUTS, np.float32)
    for r in range(ga.shape[0]):
        inp[:MAX_INPUTS] = fa[r]
        inp[P.B_INPUTS:P.B_INPUTS + MAX_INPUTS] = fb[r]
        nb = P.pair_base_adds(ga[r], gb[r], out[r])
        counts[r, 0] = nb
        counts[r, 1] = P.pair_feature_entries(inp, out[r], nb, contact250)


def single_list(g, f, contact250):
    """One position's rows as the single path lists them: base rows, then features."""
    adds = np.zeros(A.MAX_ADDS, np.int64)
    nz = np.zeros(MAX_INPUTS, np.int64)
    na = A.base_adds(g, adds)
    nn = A.feature_entries_loop(f, nz, contact250)
    return list(adds[:na]) + list(nz[:nn]), na


@pytest.mark.parametrize("contact250", [False, True])
def test_pair_list_is_both_lists_sharing_every_common_row(contact250):
    """The pair list, read for either position, is that position's own list in order; and
    it is as short as a plain merge by input that lists every row both hold once (every
    row is shared that can be)."""
    ga, fa, gb, fb = random_pairs(900, 3 + contact250)
    ga[::7, :, 24] = np.arange(len(ga[::7]))[:, None] % 6      # checkers on the bar
    third = len(ga) // 3
    gb[:third:7, :, 24] = ga[:third:7, :, 24]                  # the same position twice
    out = np.zeros((len(ga), P.MAX_PAIR_ENTRIES), np.int64)
    counts = np.zeros((len(ga), 2), np.int64)
    _pair_lists(ga, fa, gb, fb, contact250, out, counts)
    shared = []
    for r in range(len(ga)):
        la, na = single_list(ga[r], fa[r], contact250)
        lb, nb = single_list(gb[r], fb[r], contact250)

        def value(f):
            return lambda row: float(f[row]) if BASE_INPUTS <= row < MAX_INPUTS else 1.0
        merged = (P.pair_entries_reference(la[:na], lb[:nb], SLOTS, value(fa[r]), value(fb[r]))
                  + P.pair_entries_reference(la[na:], lb[nb:], SLOTS, value(fa[r]),
                                             value(fb[r])))
        got = out[r, :counts[r, 1]]
        rows = (got & P.ROW_MASK).tolist()
        flags = (got >> P.FLAG_SHIFT).tolist()
        assert [row for row, f in zip(rows, flags) if f & P.FOR_A] == la
        assert [row for row, f in zip(rows, flags) if f & P.FOR_B] == lb
        assert all(f & 3 for f in flags)
        assert len(rows) == len(merged)
        n_base = counts[r, 0]
        assert all(SLOTS[row] < BASE_INPUTS for row in rows[:n_base])
        assert all(SLOTS[row] >= BASE_INPUTS for row in rows[n_base:])
        for row, f in zip(rows, flags):
            # multiplied: the features without product rows, their input read from the
            # second position's inputs where the entry is the second's alone
            assert bool(f & P.MULTIPLIED) == (BASE_INPUTS <= row < MAX_INPUTS)
            if f & P.MULTIPLIED:
                assert bool(f & P.X_FROM_B) == (f & 3 == P.FOR_B)
        both = sum(1 for f in flags if f & 3 == 3)
        shared.append(both / max(1, len(rows)))
    assert min(shared[:third]) == 1.0                   # the same position twice
    assert np.mean(shared[2 * third:]) < np.mean(shared[third:2 * third]) < 1.0


@njit
def _sums(w, b, ga, fa, gb, fb, contact250, pair_a, pair_b, one_a, one_b):
    inp = np.zeros(P.PAIR_INPUTS, np.float32)
    ent = np.zeros(P.MAX_PAIR_ENTRIES, np.int64)
    ones = np.ones(16, np.float32)
    adds = np.zeros(A.MAX_ADDS, np.int64)
    nz = np.zeros(MAX_INPUTS, np.int64)
    for r in range(ga.shape[0]):
        inp[:MAX_INPUTS] = fa[r]
        inp[P.B_INPUTS:P.B_INPUTS + MAX_INPUTS] = fb[r]
        nb = P.pair_base_adds(ga[r], gb[r], ent)
        n = P.pair_feature_entries(inp, ent, nb, contact250)
        P.pair_hidden_sums(w, b, ent, nb, n, inp, ones, pair_a[r], pair_b[r])
        for g, f, o in ((ga[r], fa[r], one_a[r]), (gb[r], fb[r], one_b[r])):
            na = A.base_adds(g, adds)
            nn = A.feature_entries(f, nz, contact250)
            hidden_sums_adds_reference(w, b, adds, na, f, nz, nn, o)


@pytest.mark.parametrize("contact250", [False, True])
def test_pair_sums_are_each_positions_own(contact250):
    """Each position's sums from the pair kernel are the plain loop's over its own list,
    bit for bit (random weights of the extended layout, values of every size)."""
    rng = np.random.default_rng(11)
    w = (rng.standard_normal((A.WEIGHT_ROWS, 128)) * rng.choice([1e-3, 1, 30], (1, 128))
         ).astype(np.float32)
    b = rng.standard_normal(128).astype(np.float32)
    ga, fa, gb, fb = random_pairs(600, 7 + contact250)
    got = [np.zeros((len(ga), 128), np.float32) for _ in range(4)]
    _sums(w, b, ga, fa, gb, fb, contact250, *got)
    pair_a, pair_b, one_a, one_b = got
    np.testing.assert_array_equal(pair_a.view(np.int32), one_a.view(np.int32))
    np.testing.assert_array_equal(pair_b.view(np.int32), one_b.view(np.int32))


def siblings(n_nodes, seed):
    """The results of every roll of n_nodes game positions, in the search's order (moves
    of one roll side by side: the pairs of a 1-ply search), the opponent on roll."""
    nodes = selfplay_positions(n_nodes, seed)
    rolls = ROLLS.astype(np.int64)
    res, _ = legal_moves_rows(np.repeat(nodes, len(rolls), axis=0),
                              np.tile(rolls, (n_nodes, 1)), 1)
    return np.ascontiguousarray(-res[:, ::-1])


@pytest.fixture(scope="module", params=["fastbg", "gnubg"])
def net(request):
    if request.param == "gnubg":
        pytest.importorskip("gnubg_nn", reason="gnubg-nn (the gnubg extra) is not installed")
        return fastbg.gnubg_net()
    return fastbg.fastbg_net()


def test_batch_kernel_in_pairs_equals_one_at_a_time(net):
    """evaluate_rows gives the same bits summing in pairs as one position at a time, and
    as the plain one-position path: siblings, game positions of every class (contact,
    crashed, race, bear-off interleaved, so that pairs wait across other nets), an odd
    count (a position left waiting at the end), both ways round."""
    boards = np.concatenate([siblings(12, 3), selfplay_positions(1501, 4)])
    assert len(boards) % 2 == 1
    for swapped in (False, True):
        runs = {}
        for mode in V.HIDDEN_SUM_VARIANTS:
            probs = np.full((len(boards), 5), np.nan)
            cls = np.empty(len(boards), np.int8)
            kg.evaluate_rows(boards, 0, len(boards), np.bool_(swapped), net.arrays,
                             net.bearoff, kg.scratch(mode), probs, cls)
            runs[mode] = probs, cls
        plain = np.full((len(boards), 5), np.nan)
        plain_cls = np.empty(len(boards), np.int8)
        kg.evaluate_rows_plain(boards, 0, len(boards), np.bool_(swapped), net.arrays,
                               net.bearoff, kg.scratch(), plain, plain_cls)
        assert len(set(plain_cls.tolist()) & {kg.C_RACE, kg.C_CRASHED, kg.C_CONTACT}) == 3
        for probs, cls in runs.values():
            np.testing.assert_array_equal(cls, plain_cls)
            np.testing.assert_array_equal(probs.view(np.int64), plain.view(np.int64))


def test_unknown_mode_is_refused():
    with pytest.raises(ValueError, match="hidden_sums must be one of"):
        kg.scratch("triples")


def test_pairs_on_the_measured_cpus_only():
    """The choice follows the CPU name numba compiles for (in its cache key): AMD Zen 4 and
    5 sum in pairs, every other CPU one position at a time."""
    import os
    import subprocess
    import sys
    code = "from fastbg.evaluators import cpu_variants as V; print(V.HIDDEN_SUMS)"
    for name, want in (("znver4", "pairs"), ("skylake-avx512", "single"), ("znver3", "single")):
        env = dict(os.environ, NUMBA_CPU_NAME=name)
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, check=True).stdout.split()
        assert out == [want], name
