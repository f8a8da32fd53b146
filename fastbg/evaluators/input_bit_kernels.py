"""Kernel: the input kernels' bit helpers and a side's one-pass summary.

Highest and lowest set bit, popcount and 24-bit reversal (:mod:`fastbg.position.bits`'
intrinsics, or plain Python under ``NUMBA_DISABLE_JIT=1``), fixed-size copies of the
encoding tables' rows, and :func:`_side_summary`: a side's points as bitmasks and counts,
which the pip loss, the hand-made features and the classification of a position all
start from.
"""
import numpy as np
from numba import config, njit, types
from numba.core import cgutils
from numba.core.extending import intrinsic

from fastbg.evaluators.input_tables import LOW24
from fastbg.jit import HOT, INNER
from fastbg.position.bits import bitrev32 as _bitrev32
from fastbg.position.bits import ctlz64 as _ctlz64
from fastbg.position.bits import ctpop64 as _ctpop64
from fastbg.position.bits import cttz64 as _cttz64


# ---- bit helpers ------------------------------------------------------------------------

def _make_copy(n):
    """An intrinsic ``copy(dst, k, src, row)``: src[row, 0:n] -> dst[k:k + n] as one
    fixed-size memcpy (float32 arrays, both C-contiguous: the input arrays must be). numba's
    element loop (index checks for negative indices) does not merge the stores:
    base_inputs' 200 encodings took 0.060 us that way, 0.020 us with these copies."""
    @intrinsic
    def copy(typingctx, dst, k, src, row):
        if not (isinstance(dst, types.Array) and dst.ndim == 1 and dst.layout == "C"
                and isinstance(src, types.Array)
                and src.ndim == 2 and src.layout == "C" and dst.dtype == types.float32
                and src.dtype == types.float32 and isinstance(k, types.Integer)
                and isinstance(row, types.Integer)):
            return None
        sig = types.void(dst, k, src, row)

        def codegen(context, builder, signature, args):
            dst_ty, k_ty, src_ty, row_ty = signature.args
            d = context.make_array(dst_ty)(context, builder, args[0])
            a = context.make_array(src_ty)(context, builder, args[2])
            kk = context.cast(builder, args[1], k_ty, types.intp)
            r = context.cast(builder, args[3], row_ty, types.intp)
            dp = cgutils.get_item_pointer(context, builder, dst_ty, d, [kk])
            sp = cgutils.get_item_pointer(context, builder, src_ty, a,
                                          [r, context.get_constant(types.intp, 0)])
            cgutils.raw_memcpy(builder, dp, sp, context.get_constant(types.intp, 4 * n), 1)
            return context.get_dummy_value()

        return sig, codegen

    return copy

if config.DISABLE_JIT:
    # Pure-Python mode (NUMBA_DISABLE_JIT=1, a test mode): no intrinsics there.
    def _top(x):
        """Index of the highest set bit of x >= 0; -1 for 0."""
        return int(x).bit_length() - 1

    def _low(x):
        """Index of the lowest set bit of x > 0."""
        x = int(x)
        return (x & -x).bit_length() - 1

    def _popcount(x):
        """Number of set bits of x >= 0."""
        return bin(int(x)).count("1")

    def _rev24(x):
        """Bits 0..23 of x in reverse order (bit i -> bit 23 - i)."""
        return int(format(int(x) & LOW24, "024b")[::-1], 2)

    def _copy4(dst, k, src, row):
        """src[row, 0:4] -> dst[k:k + 4]."""
        dst[k:k + 4] = src[row, :4]

    def _copy14(dst, k, src, row):
        """src[row, 0:14] -> dst[k:k + 14]."""
        dst[k:k + 14] = src[row, :14]
else:
    _copy4 = _make_copy(4)
    _copy14 = _make_copy(14)

    @njit(**INNER)
    def _top(x):
        """Index of the highest set bit of x >= 0; -1 for 0."""
        return 63 - _ctlz64(x)

    @njit(**INNER)
    def _low(x):
        """Index of the lowest set bit of x > 0."""
        return _cttz64(x)

    @njit(**INNER)
    def _popcount(x):
        """Number of set bits of x >= 0."""
        return _ctpop64(x)

    @njit(**INNER)
    def _rev24(x):
        """Bits 0..23 of x in reverse order (bit i -> bit 23 - i)."""
        return _bitrev32(x & LOW24) >> 8


@njit(**HOT)
def made_mask(board):
    """Bit i set when board[i] holds two or more checkers (i = 0..24)."""
    m = 0
    for i in range(25):
        m |= np.int64(board[i] > 1) << i
    return m


@njit(**INNER)
def _top_bit(x):
    """Index of the highest set bit of 0 < x < 2^32."""
    return _top(x)


@njit(**INNER)
def _side_summary(board):
    """One pass over a side's points: (occupied, made (2+), blots, exactly two) bitmasks,
    checkers, sum of index x checkers, checkers on points 18..23."""
    occ = 0
    made = 0
    one = 0
    two = 0
    tot = 0
    isum = 0
    n_bc = 0
    for i in range(25):
        b = board[i]
        occ |= np.int64(b > 0) << i
        made |= np.int64(b > 1) << i
        one |= np.int64(b == 1) << i
        two |= np.int64(b == 2) << i
        tot += b
        isum += i * b
        n_bc += b * ((i >= 18) & (i < 24))
    return occ, made, one, two, tot, isum, n_bc
