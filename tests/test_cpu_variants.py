"""The CPU variants of the kernels (fastbg/evaluators/cpu_variants.py) give the same bits.

The hidden sums in one pass over the weight rows and in two (AVX2's) are both compiled
here, on every CPU, and compared with the plain loop bit for bit.

Each variant of the compressing store is compiled here into the two intrinsics that use it
(the points' add rows and the features' entries) and compared with the plain loops on
positions of every shape; the variant this CPU cannot run (AVX-512 code without AVX-512) is
skipped with that reason. The chosen variant follows the features numba compiles for.

The highest set bit of vector lanes (the pip loss's hitters) is compiled both ways, as
``vplzcntd`` where AVX-512 CD runs and from the float32 exponent everywhere, and compared
with the integers' own top bit over every lane value the kernels may give it.
"""
import functools
import os
import subprocess
import sys

import numpy as np
import pytest
from numba import njit

from llvmlite import ir
from numba import types
from numba.core.extending import intrinsic

from fastbg.evaluators import add_row_kernels as A
from fastbg.evaluators import pip_loss_kernels as P
from fastbg.evaluators import cpu_variants as V
from fastbg.evaluators import simd
from fastbg.evaluators.input_tables import BASE_INPUTS
from fastbg.evaluators.net_tables import MAX_INPUTS

RUNNABLE = {"avx512-register": V.HAS_AVX512, "avx2-permute": V.HAS_AVX2, "scalar": True}
NEEDS = {"avx512-register": "AVX-512", "avx2-permute": "AVX2", "scalar": None}


def variants():
    return [pytest.param(v, marks=pytest.mark.skipif(
        not RUNNABLE[v], reason=f"{v} needs {NEEDS[v]}, which this CPU lacks"))
        for v in V.COMPRESS_VARIANTS]


def point_adds_runner(variant):
    return both_sides_runner(A._make_point_adds(variant))


def both_sides_runner(lanes):
    """A kernel listing each board's points' add rows, both sides, by ``lanes(gb, s, adds,
    c) -> c`` and by the loop, for :func:`check_point_adds`."""
    @njit
    def run(gbs, fast, slow, counts):
        for r in range(gbs.shape[0]):
            c = np.uint64(3)                      # after some rows already listed
            d = np.uint64(3)
            for s in range(2):
                c = lanes(gbs[r], s, fast[r], c)
                d = A._point_adds(gbs[r], s, slow[r], d)
            counts[r, 0] = c
            counts[r, 1] = d
    return run


LAYOUTS = {"products": A.PRODUCTS_LAYOUT, "multiplied": A.MULTIPLIED_LAYOUT}


@functools.lru_cache(maxsize=None)
def feature_entries_runner(variant, layout=None):
    """A kernel listing each row's feature entries by the ``variant`` intrinsic in the
    layout named ``layout`` (None: the default): made once per variant and layout, so the
    two contact250 cases of a test share one compile."""
    entries = A._make_feature_entries(variant, LAYOUTS.get(layout))

    @njit
    def run(inps, nzs, counts, contact250):
        for r in range(inps.shape[0]):
            counts[r] = entries(inps[r], nzs[r], contact250)
    return run


def check_point_adds(run, seed):
    """``run(gbs, fast, slow, counts)`` lists each board's points' add rows two ways (into
    fast and slow, their counts into counts[:, 0] and [:, 1]); they must agree, in order
    and number, for 0..15 checkers on any point (the bar too) of either side."""
    rng = np.random.default_rng(seed)
    n = 4_000
    gbs = (rng.integers(0, 16, (n, 2, 25)) * (rng.random((n, 2, 25)) < rng.random((n, 1, 1))))
    gbs = gbs.astype(np.int64)
    assert (gbs[:, :, 24] > 0).any()
    fast = np.full((n, A.MAX_ADDS), -1, np.int64)
    slow = np.full((n, A.MAX_ADDS), -1, np.int64)
    counts = np.zeros((n, 2), np.int64)
    run(gbs, fast, slow, counts)
    assert (counts[:, 1] > 60).any() and (counts[:, 1] < 10).any()
    np.testing.assert_array_equal(counts[:, 0], counts[:, 1])
    for r in range(n):                       # rows past the count are scratch
        np.testing.assert_array_equal(fast[r, :counts[r, 0]], slow[r, :counts[r, 1]])


@pytest.mark.parametrize("variant", variants())
def test_point_adds_equal_the_loop(variant):
    """Every variant lists the points' add rows of the loop, in order and number."""
    check_point_adds(point_adds_runner(variant), 31)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("contact250", [False, True])
@pytest.mark.parametrize("variant", variants())
def test_feature_entries_equal_the_loop(variant, contact250, layout):
    """Every variant lists the features' entries of the loop, for inputs with none, some
    and all of the 50 features non-zero, in both feature layouts (the features' product
    rows, as AVX-512 CPUs compile, and none)."""
    lay = LAYOUTS[layout]
    rng = np.random.default_rng(37)
    n = 2_000
    inps = np.zeros((n, MAX_INPUTS), np.float32)
    share = rng.random((n, 1))
    feats = rng.random((n, MAX_INPUTS - BASE_INPUTS)).astype(np.float32)
    inps[:, BASE_INPUTS:] = np.where(rng.random(feats.shape) < share, feats, 0)
    inps[0, BASE_INPUTS:] = 0
    inps[1, BASE_INPUTS:] = feats[1] + np.float32(0.01)
    nzs = np.full((n, MAX_INPUTS), -1, np.int64)
    counts = np.zeros(n, np.int64)
    feature_entries_runner(variant, layout)(inps, nzs, counts, contact250)
    assert counts[0] == 0 and counts[1] == MAX_INPUTS - BASE_INPUTS
    assert (nzs[1, :counts[1]] >= A.N_CONTACT_INPUTS).any() == (layout == "products")
    for r in range(n):
        want = np.full(MAX_INPUTS, -1, np.int64)
        k = A.feature_entries_loop(inps[r], want, contact250, lay)
        assert counts[r] == k
        np.testing.assert_array_equal(nzs[r, :k], want[:k])


@njit
def occupied_adds(gb, s, adds, c):
    """:func:`A._point_adds_occupied` with the side's occupied points made here."""
    occ = 0
    for i in range(25):
        occ |= np.int64(gb[s, i] > 0) << i
    return A._point_adds_occupied(gb, s, occ, adds, c)


def test_occupied_point_adds_equal_the_loop():
    """The "occupied-bits" variant of the points' add rows (a pass over the occupied
    points, the bar's bit left out) lists the loop's rows, in order and number."""
    check_point_adds(both_sides_runner(occupied_adds), 43)


def test_unknown_variant_is_refused():
    """A variant name that is not one is an error when the kernel is built, not code."""
    with pytest.raises(Exception, match="no compress variant"):
        feature_entries_runner("avx2-magic")(np.zeros((1, MAX_INPUTS), np.float32),
                                             np.zeros((1, MAX_INPUTS), np.int64),
                                             np.zeros(1, np.int64), False)


def test_variant_follows_the_compiled_features():
    """The variant is chosen from the features numba compiles for: NUMBA_CPU_FEATURES
    without AVX2 gives the portable one, with AVX2 but not AVX-512 the permutes (and
    numba's cache key changes with it)."""
    code = ("from fastbg.evaluators import cpu_variants as V, simd; "
            "print(V.COMPRESS, V.HAS_AVX512, simd.TABLE_BY_PERMUTES, V.HIDDEN_PASSES, V.TOP_BIT, "
            "V.POINT_ADDS)")
    env = dict(os.environ, NUMBA_CPU_FEATURES="+sse2,+sse4.2,+popcnt")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout.split()
    assert out == ["scalar", "False", "False", "2", "float-exponent", "occupied-bits"]
    env["NUMBA_CPU_FEATURES"] = "+sse2,+avx,+avx2,+fma"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout.split()
    assert out == ["avx2-permute", "False", "False", "2", "float-exponent", "occupied-bits"]
    env["NUMBA_CPU_FEATURES"] = "+sse2,+avx,+avx2,+fma,+avx512f,+avx512bw,+avx512vl"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout.split()
    assert out == ["avx512-register", "True", "True", "1", "float-exponent", "lanes"]
    env["NUMBA_CPU_FEATURES"] += ",+avx512cd"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout.split()
    assert out == ["avx512-register", "True", "True", "1", "lzcnt", "lanes"]


@pytest.mark.skipif(not V.HAS_AVX512, reason="the AVX-512 variant needs AVX-512, which this "
                    "CPU lacks")
def test_avx512_variant_packs_in_a_register():
    """The AVX-512 variant compiles to vpcompressq into a register and a plain store, never
    vpcompressq with a memory destination (microcoded on AMD Zen 4: 16x slower)."""
    import re
    run = point_adds_runner("avx512-register")
    gbs = np.zeros((1, 2, 25), np.int64)
    run(gbs, np.zeros((1, A.MAX_ADDS), np.int64), np.zeros((1, A.MAX_ADDS), np.int64),
        np.zeros((1, 2), np.int64))
    asm = run.inspect_asm(run.signatures[0])
    assert re.search(r"vpcompressq\s+%zmm\d+,\s*%zmm\d+", asm)
    assert not re.search(r"vpcompressq\s+%zmm\d+,\s*-?\w*\(", asm)


def hidden_sums_runner(passes):
    sums = simd._hidden_sums_intrinsic(simd.N_VEC, adds=True, passes=passes)

    @njit
    def run(w, b, adds, n_adds, inp, nz, n, out):
        sums(w, b, adds, n_adds, inp, nz, n, out)
    return run


@pytest.mark.parametrize("passes", V.HIDDEN_PASS_VARIANTS)
def test_hidden_sums_in_passes_equal_the_loop(passes):
    """The hidden sums in any number of passes over the rows are the plain loop's bits:
    rows added as they are, then inputs multiplied and product rows (entries past the
    inputs) added, in list order; with no rows at all, the thresholds."""
    rng = np.random.default_rng(41 + passes)
    n_in, n_rows = 250, 700
    w = rng.normal(0, 1, (n_rows, simd.FAST_HIDDEN)).astype(np.float32)
    b = rng.normal(0, 1, simd.FAST_HIDDEN).astype(np.float32)
    run = hidden_sums_runner(passes)
    for trial in range(40):
        n_adds = 0 if trial == 0 else int(rng.integers(0, 60))
        adds = rng.integers(0, n_rows, n_adds + 8).astype(np.int64)
        inp = np.zeros(n_in, np.float32)
        feats = np.sort(rng.choice(n_in, int(rng.integers(0, 30)), replace=False))
        inp[feats] = rng.random(len(feats)).astype(np.float32) * 3
        products = rng.integers(n_in, n_rows, len(feats))
        nz = np.where(rng.random(len(feats)) < 0.5, feats, products).astype(np.int64)
        n = 0 if trial == 0 else len(nz)
        want = np.full(simd.FAST_HIDDEN, np.nan, np.float32)
        simd.hidden_sums_adds_reference(w, b, adds, n_adds, inp, nz, n, want)
        got = np.full(simd.FAST_HIDDEN, np.nan, np.float32)
        run(w, b, adds, n_adds, inp, nz, n, got)
        np.testing.assert_array_equal(got.view(np.int32), want.view(np.int32))
        if trial == 0:
            np.testing.assert_array_equal(got, b)


def test_hidden_sums_passes_follow_the_registers():
    """Two passes where the compiled code has no AVX-512 (16 vector registers), one with it."""
    assert V.HIDDEN_PASSES == (1 if V.HAS_AVX512 else 2)
    assert V.HIDDEN_PASSES in V.HIDDEN_PASS_VARIANTS


TOP_RUNNABLE = {"lzcnt": "avx512cd" in V.compiled_features(), "float-exponent": True}


def top_variants():
    return [pytest.param(v, marks=pytest.mark.skipif(
        not TOP_RUNNABLE[v], reason=f"{v} needs AVX-512 CD, which this CPU lacks"))
        for v in V.TOP_BIT_VARIANTS]


def top_bit_runner(variant):
    """A kernel replacing each int32 of an array (length a multiple of 8) by its
    :func:`V.top_bit`, eight lanes at a time."""
    @intrinsic
    def top8(typingctx, arr, i):
        def codegen(context, builder, signature, args):
            a = context.make_array(signature.args[0])(context, builder, args[0])
            iv = ir.VectorType(ir.IntType(32), 8)
            ptr = builder.bitcast(builder.gep(a.data, [args[1]]), iv.as_pointer())
            builder.store(V.top_bit(builder, builder.load(ptr, align=4), variant), ptr,
                          align=4)
            return context.get_dummy_value()
        return types.void(arr, i), codegen

    @njit
    def run(a):
        for i in range(0, a.size, 8):
            top8(a, i)
    return run


@pytest.mark.parametrize("variant", top_variants())
def test_top_bit_of_every_lane_value(variant):
    """Every value below TOP_BIT_LIMIT (all 2**25 of them: the float32 conversion rounds
    from 2**24 on) gets its highest set bit, and 0 gets -1."""
    run = top_bit_runner(variant)
    step = 1 << 22
    for lo in range(0, V.TOP_BIT_LIMIT, step):
        x = np.arange(lo, lo + step, dtype=np.int32)
        with np.errstate(divide="ignore"):
            want = np.floor(np.log2(x.astype(np.float64)))
        want = np.where(x == 0, -1, want).astype(np.int32)
        got = x.copy()
        run(got)
        bad = np.flatnonzero(got != want)
        assert bad.size == 0, f"{variant}: top bit of {x[bad[:5]]} is {got[bad[:5]]}"


def test_unknown_top_bit_variant_is_refused():
    with pytest.raises(Exception, match="no top-bit variant"):
        top_bit_runner("bsr-magic")(np.zeros(8, np.int32))


@pytest.mark.parametrize("bar1", [False, True])
@pytest.mark.parametrize("variant", [v for v in top_variants() if v.values[0] != V.TOP_BIT])
def test_pip_loss_rolls_equal_the_loops_with_the_other_top_bit(variant, bar1):
    """The pip loss's roll lanes built with the top-bit variant this CPU does not choose
    give the loops' integers (hitters of 25 bits with the bar, the other masks 24), dense
    and sparse masks. The chosen one is what the kernels compile, checked by
    tests/test_gnubginputs.py::test_rolls_lanes_equal_the_loops."""
    lanes = P._make_rolls_lanes(bar1=bar1, top_variant=variant)
    loop = P._rolls_bar1 if bar1 else P._rolls_no_bar

    @njit
    def both(masks, fast, slow):
        for r in range(masks.shape[0]):
            h, b, o, ob, m = masks[r]
            fast[r] = lanes(h, b, o, ob, m)
            slow[r] = loop(h, b, o, ob, m)
    from test_gnubginputs import check_rolls
    check_rolls(both, 59 + bar1)


def test_both_feature_layouts_give_the_same_hidden_sums():
    """A contact net's hidden sums over real positions are the same bits whether the
    features with few values are added as product rows (AVX-512 CPUs) or multiplied
    (the others), and both are the plain loop's over every non-zero input."""
    import fastbg
    from fastbg.evaluators import input_kernels as G
    from fastbg.evaluators.net_kernels import NET_CONTACT, to_gnubg
    from strategies import selfplay_positions
    net = fastbg.gnubg_net()
    w1, b1 = net.arrays.w1[NET_CONTACT], net.arrays.b1[NET_CONTACT]
    raw = np.ascontiguousarray(w1[:A.N_CONTACT_INPUTS])
    hid = b1.shape[0]
    checked = 0
    for contact250 in (False, True):
        ext = {k: A.extended_weights(raw, False, contact250, layout=lay)
               for k, lay in LAYOUTS.items()}
        for board in selfplay_positions(300, 61 + contact250):
            gb = np.zeros((2, 25), np.int64)
            to_gnubg(np.asarray(board, np.int8), gb)
            if not (gb[0].sum() and gb[1].sum()):
                continue
            inp = np.zeros(MAX_INPUTS, np.float32)
            nz = np.zeros(MAX_INPUTS, np.int64)
            n_all = G.contact_inputs(gb, inp, nz, contact250)
            if not (inp[BASE_INPUTS:A.N_CONTACT_INPUTS] != 0).any():
                continue
            plain = np.zeros(hid, np.float32)
            simd.hidden_sums_reference(raw, b1, inp, nz, n_all, plain)
            occ = [int(sum(1 << i for i in range(25) if gb[s, i] > 0)) for s in range(2)]
            adds = np.zeros(A.MAX_ADDS, np.int64)
            n_adds = A.base_adds(gb, occ[0], occ[1], adds)
            for k, lay in LAYOUTS.items():
                entries = np.zeros(MAX_INPUTS, np.int64)
                n = A.feature_entries_loop(inp, entries, contact250, lay)
                got = np.zeros(hid, np.float32)
                simd.hidden_sums_adds_reference(ext[k], b1, adds, n_adds, inp, entries, n, got)
                np.testing.assert_array_equal(got.view(np.int32), plain.view(np.int32))
            checked += 1
    assert checked > 300
