"""The vector kernels of the networks' layers (fastbg.evaluators.simd) against plain loops.

Both must give the plain loops' float32 results bit for bit: gnubg's table sigmoid jumps
at every 0.1 step of its argument, so a sum rounded differently can move a probability by
far more than a last bit (6e-4 was seen with a pairwise output sum).
"""
import numpy as np
import pytest

from fastbg.evaluators import net_kernels as kg
from fastbg.evaluators import simd

HID = simd.FAST_HIDDEN


def plain_hidden(w, b, inp):
    """Thresholds, then every non-zero input in order, float32 rounding after each step."""
    h = b.copy()
    for i in np.flatnonzero(inp):
        h = (h + (w[i] * inp[i]).astype(np.float32)).astype(np.float32)
    return h


def plain_outputs(h, scale, wo, bias):
    """The scalar sigmoid of each hidden unit, then each output summed one by one."""
    s = np.array([kg.sigmoid(np.float32(scale * x)) for x in h], np.float32)
    out = np.empty(len(bias), np.float32)
    for o in range(len(bias)):
        r = bias[o]
        for j in range(len(s)):
            r = np.float32(r + np.float32(s[j] * wo[o, j]))
        out[o] = r
    return s, out


def random_net(rng, n_in=250, hid=HID):
    w = rng.normal(0, 1, (n_in, hid)).astype(np.float32)
    b = rng.normal(0, 1, hid).astype(np.float32)
    wo = rng.normal(0, 0.3, (5, hid)).astype(np.float32)
    bias = rng.normal(0, 1, 5).astype(np.float32)
    return w, b, wo, bias


def random_inputs(rng, n_in=250):
    """Sparse inputs mixing exact ones (added without a multiply by gnubg) and fractions."""
    inp = np.zeros(n_in, np.float32)
    idx = rng.choice(n_in, rng.integers(0, 80), replace=False)
    inp[idx] = np.where(rng.random(len(idx)) < 0.4, 1.0, rng.random(len(idx)) * 3)
    return inp


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("hid", [HID, 40])          # the vector path and the plain fallback
def test_hidden_sums_bit_for_bit(seed, hid):
    rng = np.random.default_rng(seed)
    w, b, _, _ = random_net(rng, hid=hid)
    for _ in range(20):
        inp = random_inputs(rng)
        nz = np.flatnonzero(inp).astype(np.int64)
        out = np.full(hid, np.nan, np.float32)
        simd.hidden_sums(w, b, inp, nz, len(nz), out)
        np.testing.assert_array_equal(out.view(np.int32), plain_hidden(w, b, inp).view(np.int32))


@pytest.mark.parametrize("seed", range(5))
def test_hidden_sums_with_adds_bit_for_bit(seed):
    """Rows added as they are, then products: the plain loop's sums over the inputs those
    stand for (an input of 1 where a row is added), in that order."""
    rng = np.random.default_rng(seed)
    w, b, _, _ = random_net(rng, n_in=400)
    for _ in range(20):
        adds = np.sort(rng.choice(150, rng.integers(0, 60), replace=False)).astype(np.int64)
        inp = np.zeros(400, np.float32)
        tail = rng.choice(np.arange(150, 400), rng.integers(0, 50), replace=False)
        inp[tail] = rng.random(len(tail)) * 3
        nz = np.sort(tail).astype(np.int64)
        want_inp = inp.copy()
        want_inp[adds] = 1.0
        want = plain_hidden(w, b, want_inp)
        for fn in (simd.hidden_sums_adds_128, simd.hidden_sums_adds_reference):
            out = np.full(HID, np.nan, np.float32)
            fn(w, b, adds, len(adds), inp, nz, len(nz), out)
            np.testing.assert_array_equal(out.view(np.int32), want.view(np.int32))


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("hid", [HID, 40])
def test_outputs_bit_for_bit(seed, hid):
    rng = np.random.default_rng(seed)
    _, _, wo, bias = random_net(rng, hid=hid)
    scale = np.float32(-0.1)
    for _ in range(20):
        # Hidden sums spread over the sigmoid's range, its saturation (|x| >= 10) and -0.0.
        h = (rng.normal(0, 60, hid)).astype(np.float32)
        h[:3] = (np.float32(-0.0), np.float32(100.0), np.float32(-100.0))
        s_ref, out_ref = plain_outputs(h, scale, wo, bias)
        out = np.full(5, np.nan, np.float32)
        simd.outputs(h, scale, kg.SIG_E, kg.SIG_LO, kg.SIG_HI, wo, bias, out)
        np.testing.assert_array_equal(h.view(np.int32), s_ref.view(np.int32))
        np.testing.assert_array_equal(out.view(np.int32), out_ref.view(np.int32))


def test_references_are_the_plain_loops():
    """The numba references used by NUMBA_DISABLE_JIT agree with the numpy loops above."""
    rng = np.random.default_rng(9)
    w, b, wo, bias = random_net(rng)
    inp = random_inputs(rng)
    nz = np.flatnonzero(inp).astype(np.int64)
    h = np.empty(HID, np.float32)
    simd.hidden_sums_reference(w, b, inp, nz, len(nz), h)
    np.testing.assert_array_equal(h, plain_hidden(w, b, inp))
    out = np.empty(5, np.float32)
    s_ref, out_ref = plain_outputs(h, np.float32(-0.1), wo, bias)
    simd.outputs_reference(h, np.float32(-0.1), kg.SIG_E, kg.SIG_LO, kg.SIG_HI, wo, bias, out)
    np.testing.assert_array_equal(h, s_ref)
    np.testing.assert_array_equal(out, out_ref)


@pytest.mark.parametrize("seed", range(3))
def test_row_block_bit_for_bit(seed):
    """A block of positions: sigmoids stored as rows, output sums of all rows side by side
    (through the in-register transpose), equal to one position at a time."""
    rng = np.random.default_rng(seed)
    _, _, wo, bias = random_net(rng)
    scale = np.float32(-0.1)
    hs = np.full((simd.LANES, HID), np.nan, np.float32)
    want = np.empty((5, simd.LANES), np.float32)
    for p in range(simd.LANES):
        h = rng.normal(0, 60, HID).astype(np.float32)
        h[p % HID] = np.float32(-0.0)
        simd.sigmoids_to_row(h, scale, kg.SIG_E, kg.SIG_LO, kg.SIG_HI, hs, p)
        s_ref, want[:, p] = plain_outputs(h, scale, wo, bias)
        np.testing.assert_array_equal(hs[p].view(np.int32), s_ref.view(np.int32))
    out = np.empty((5, simd.LANES), np.float32)
    simd.outputs_rows(hs, wo, bias, out)
    np.testing.assert_array_equal(out.view(np.int32), want.view(np.int32))
    ref = np.empty_like(out)
    simd.outputs_rows_reference(hs, wo, bias, ref)
    np.testing.assert_array_equal(ref, want)


def test_sigmoid_rows_bit_for_bit():
    """The output sigmoids of a block, a vector per output, equal the scalar sigmoid."""
    rng = np.random.default_rng(4)
    a = rng.normal(0, 8, (5, simd.LANES)).astype(np.float32)
    a[0, :4] = (np.float32(-0.0), np.float32(0.0), np.float32(10.0), np.float32(-10.0))
    scale = np.float32(-1.0)
    want = np.array([[kg.sigmoid(np.float32(scale * x)) for x in row] for row in a], np.float32)
    got = a.copy()
    simd.sigmoid_rows(got, scale, kg.SIG_E, kg.SIG_LO, kg.SIG_HI)
    np.testing.assert_array_equal(got.view(np.int32), want.view(np.int32))
    ref = a.copy()
    simd.sigmoid_rows_reference(ref, scale, kg.SIG_E, kg.SIG_LO, kg.SIG_HI)
    np.testing.assert_array_equal(ref, want)


def test_sigmoid_every_table_step():
    """Every step of gnubg's sigmoid table, both signs, at, just below and just above each
    step of 0.1 (the vector lookup reads the table by permutes on AVX-512 machines,
    lane by lane elsewhere): equal to the scalar sigmoid bit for bit."""
    steps = np.arange(0, 101, dtype=np.float64) / 10.0
    x = np.concatenate([steps, np.nextafter(steps.astype(np.float32), np.float32(0)),
                        np.nextafter(steps.astype(np.float32), np.float32(20)),
                        steps + 0.05]).astype(np.float32)
    x = np.concatenate([x, -x])
    x = np.concatenate([x, np.zeros((-len(x)) % simd.LANES, np.float32)])
    a = x.reshape(-1, simd.LANES)
    scale = np.float32(1.0)
    want = np.array([[kg.sigmoid(np.float32(scale * v)) for v in row] for row in a], np.float32)
    got = a.copy()
    simd.sigmoid_rows(got, scale, kg.SIG_E, kg.SIG_LO, kg.SIG_HI)
    np.testing.assert_array_equal(got.view(np.int32), want.view(np.int32))



def test_sigmoid_table_padded_for_vector_reads():
    """The vector lookup reads TABLE_PAD entries: gnubg's 101 steps, then zeros."""
    assert len(kg.SIG_E) == simd.TABLE_PAD >= 101
    want = np.array([np.exp(k / 10.0) / 10.0 for k in range(100)] + [np.exp(9.9) / 10.0],
                    np.float32)
    np.testing.assert_array_equal(kg.SIG_E[:101], want)
    assert not kg.SIG_E[101:].any()
