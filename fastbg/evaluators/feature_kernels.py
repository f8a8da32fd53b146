"""Kernel: a side's 25 hand-made features (gnubg's CalculateHalfInputs).

Inputs 200..249 of the contact and crashed nets, 25 a side: borne-off checkers, break
contact, free pips, timing, the back checker and anchors, pip loss and shots
(:mod:`fastbg.evaluators.pip_loss_kernels`), escapes, containment, mobility, entering,
backbone and back game. Each is the same float32 as gnubg's, computed from a side's
summary (:func:`fastbg.evaluators.input_bit_kernels._side_summary`) and tables
(:mod:`fastbg.evaluators.input_tables`) with few data-dependent branches.
"""
import numpy as np
from llvmlite import ir
from numba import config, njit, types
from numba.core import cgutils
from numba.core.extending import intrinsic

from fastbg.constants import CHECKERS
from fastbg.evaluators.input_bit_kernels import _low, _popcount, _rev24, _side_summary, _top
from fastbg.evaluators.input_tables import (
    BACKBONE_W, DIV_SMALL, ENTER_LOSS, ESC, ESC1, ESC8, ESC18, ESC_WIDTH, INV_6, INV_24,
    INV_36, INV_100, INV_400, INV_3600, INV_BREAK, INV_ENTER, INV_PIPLOSS, I_ACONTAIN,
    I_ACONTAIN2, I_BACK_ANCHOR, I_BACK_CHEQUER, I_BACKBONE, I_BACKESCAPES, I_BACKG, I_BACKG1,
    I_BACKRESCAPES, I_BREAK_CONTACT, I_CONTAIN, I_CONTAIN2, I_ENTER, I_ENTER2,
    I_FORWARD_ANCHOR, I_FREEPIP, I_MOBILITY, I_MOMENT2, I_OFF1, I_P1, I_P2, I_PIPLOSS,
    I_TIMING)
from fastbg.evaluators.pip_loss_kernels import _pip_loss
from fastbg.jit import HOT, INLINED, INNER


@njit(**INNER)
def _div_small(x, d):
    """x // d for 0 <= x < DIV_SMALL_LIMIT, 1 <= d <= 15, by a multiply (DIV_SMALL)."""
    return (x * DIV_SMALL[d]) >> 32


@njit(**INNER)
def _escape_pattern(mask, n):
    """gnubg's Escapes pattern: bit i = point 24 - n + i made, for i < min(12, n)."""
    return (mask >> (24 - n)) & ((1 << min(12, n)) - 1)


@njit(**INNER)
def _escapes(mask, n):
    return ESC[_escape_pattern(mask, n)]


@njit(**INNER)
def _escapes_r(mask, n):
    return ESC1[_escape_pattern(mask, n)]


@njit(**INNER)
def _timing_sums(board, nob, mean):
    """The point sums of gnubg's timing features for ``board`` (points 0..24), its
    opponent's rearmost checker at ``nob`` (our numbering) and its mean point ``mean``:
    (break-contact, free pips, checkers beyond the mean, their second moment, the timing
    checkers and their pips from point 6 up). Every sum is below 10,000: int32 holds them.
    The kernels run :func:`timing_sums_lanes`, the same operations on 32-bit lanes; this
    is its reference."""
    zero = np.int32(0)
    nob = np.int32(nob)
    mean = np.int32(mean)
    brk = zero
    free = zero
    j2 = zero
    k2 = zero
    t = zero
    no = zero
    for ii in range(25):
        i = np.int32(ii)
        b = np.int32(board[ii])
        brk += (i + np.int32(1) - nob) * b if i > nob else zero
        free += (i + np.int32(1)) * b if i < nob else zero
        g = i > mean
        dm = i - mean
        j2 += b if g else zero
        k2 += b * dm * dm if g else zero
        full = (ii < 12) | (i <= nob) | (ii == 24)
        k = b if full else (np.int32(1) if b == 1 else (b - np.int32(2) if b > 2 else zero))
        k = k if ii >= 6 else zero
        no += k
        t += i * k
    return (np.int64(brk), np.int64(free), np.int64(j2), np.int64(k2), np.int64(no),
            np.int64(t))


# Lanes of :func:`timing_sums_lanes`: the 25 points and 7 empty lanes.
_TIMING_LANES = 32


@intrinsic
def _timing_sums_intrinsic(typingctx, board, nob, mean):
    """:func:`_timing_sums` on one <32 x i16> vector of the points (lanes 25..31 zero),
    its six sums reduced. numba widens the loop to int64 (its second moment by int64
    multiplies, three micro-ops each on these hosts): 4-lane passes, here one register of
    AVX-512 or two of AVX2. 16-bit lanes hold every sum of a real side (at most 15
    checkers: the largest, the second moment, is at most 15 x 24^2 = 8,640); 32-bit lanes
    took twice the registers and instructions."""
    if not (isinstance(board, types.Array) and board.ndim == 1 and board.dtype == types.int64
            and isinstance(nob, types.Integer) and isinstance(mean, types.Integer)):
        return None
    sig = types.UniTuple(types.int64, 6)(board, nob, mean)

    def codegen(context, builder, signature, args):
        i16, i32, i64 = ir.IntType(16), ir.IntType(32), ir.IntType(64)
        n = _TIMING_LANES
        iv = ir.VectorType(i16, n)
        arr = context.make_array(signature.args[0])(context, builder, args[0])
        reduce = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(i16, [iv]), f"llvm.vector.reduce.add.v{n}i16")

        def c(v):
            return ir.Constant(iv, v if isinstance(v, list) else [v] * n)

        def lanes_of(v):
            return ir.Constant(ir.VectorType(i32, n), v)

        def splat(x):
            v = builder.insert_element(ir.Constant(iv, ir.Undefined), x, ir.Constant(i32, 0))
            return builder.shuffle_vector(v, ir.Constant(iv, ir.Undefined), lanes_of([0] * n))

        # the points: three 8-lane loads and the bar, narrowed to 16 bits
        v8 = ir.VectorType(i64, 8)
        stride = builder.extract_value(arr.strides, 0)
        parts = []
        if signature.args[0].layout == "C":
            for q in range(3):
                ptr = builder.gep(arr.data, [ir.Constant(i64, 8 * q)])
                parts.append(builder.trunc(builder.load(builder.bitcast(ptr, v8.as_pointer()),
                                                        align=8), ir.VectorType(i16, 8)))
            lanes = [24]
        else:
            lanes = list(range(25))
        last = ir.Constant(ir.VectorType(i16, 8), [0] * 8)
        pts = ir.Constant(iv, [0] * n) if lanes != [24] else None
        for k in lanes:
            addr = builder.add(builder.ptrtoint(arr.data, i64),
                               builder.mul(stride, ir.Constant(i64, k)))
            x = builder.trunc(builder.load(builder.inttoptr(addr, i64.as_pointer())), i16)
            if pts is None:
                last = builder.insert_element(last, x, ir.Constant(i32, 0))
            else:
                pts = builder.insert_element(pts, x, ir.Constant(i32, k))
        if pts is None:
            i8x16 = ir.Constant(ir.VectorType(i32, 16), list(range(16)))
            lo = builder.shuffle_vector(parts[0], parts[1], i8x16)
            hi = builder.shuffle_vector(parts[2], last, i8x16)
            b = builder.shuffle_vector(lo, hi, lanes_of(list(range(32))))
        else:
            b = pts
        nob_v = splat(builder.trunc(context.cast(builder, args[1], signature.args[1],
                                                 types.int64), i16))
        mean_v = splat(builder.trunc(context.cast(builder, args[2], signature.args[2],
                                                  types.int64), i16))
        i = c(list(range(n)))
        zero, one = c(0), c(1)
        add, sub, mul, sel = builder.add, builder.sub, builder.mul, builder.select

        def cmp(op, x, y):
            return builder.icmp_signed(op, x, y)
        brk = sel(cmp(">", i, nob_v), mul(sub(add(i, one), nob_v), b), zero)
        free = sel(cmp("<", i, nob_v), mul(add(i, one), b), zero)
        g = cmp(">", i, mean_v)
        dm = sub(i, mean_v)
        j2 = sel(g, b, zero)
        k2 = sel(g, mul(mul(b, dm), dm), zero)
        full = builder.or_(builder.or_(cmp("<", i, c(12)), cmp("<=", i, nob_v)),
                           cmp("==", i, c(24)))
        spare = sel(cmp("==", b, one), one, sel(cmp(">", b, c(2)), sub(b, c(2)), zero))
        k = sel(cmp(">=", i, c(6)), sel(full, b, spare), zero)
        t = mul(i, k)
        out = [builder.sext(builder.call(reduce, [v]), i64) for v in (brk, free, j2, k2, k, t)]
        return context.make_tuple(builder, signature.return_type, out)

    return sig, codegen


if config.DISABLE_JIT:
    timing_sums_lanes = _timing_sums        # the loop: no intrinsics without the JIT
else:
    timing_sums_lanes = _timing_sums_intrinsic


@njit(**HOT)
def half_inputs(board, opp, inp, o):
    """gnubg's CalculateHalfInputs: 25 features of ``board`` (against ``opp``) at inp[o:];
    see :func:`_half_inputs`
    (inlined by numba here and in :func:`contact_inputs`: 0.228 -> 0.205 us for both
    half_inputs, 0.33 -> 0.29 us for contact_inputs against a call)."""
    _half_inputs(board, opp, inp, o)


@njit(**INNER)
def _half_inputs(board, opp, inp, o):
    """gnubg's CalculateHalfInputs: 25 features of ``board`` (against ``opp``) at inp[o:].

    Computed from a few passes over the points without data-dependent branches and from
    bitmasks of occupied / made points (highest and lowest bit, popcount, tables), the
    same integers as gnubg's loops, so the same float inputs bit for bit.
    """
    _half_from(board, _side_summary(board), _side_summary(opp), inp, o, False)


@njit(**INNER)
def _men_off5(men_off, inp, o):
    """gnubg's I_OFF1..3: ``men_off`` borne off on a scale for up to fifteen."""
    if men_off > 10:
        inp[o] = 1.0
        inp[o + 1] = 1.0
        inp[o + 2] = (men_off - 10) / 5.0
    elif men_off > 5:
        inp[o] = 1.0
        inp[o + 1] = (men_off - 5) / 5.0
        inp[o + 2] = 0.0
    else:
        inp[o] = men_off / 5.0 if men_off else 0.0
        inp[o + 1] = 0.0
        inp[o + 2] = 0.0


@njit(**INNER)
def _men_off3(m, inp, o):
    """menOffNonCrashed: ``m`` borne off on a scale for at most eight off."""
    if m > 5:
        inp[o] = 1.0
        inp[o + 1] = 1.0
        inp[o + 2] = (m - 6) / 3.0
    elif m > 2:
        inp[o] = 1.0
        inp[o + 1] = (m - 3) / 3.0
        inp[o + 2] = 0.0
    else:
        inp[o] = m / 3.0 if m else 0.0
        inp[o + 1] = 0.0
        inp[o + 2] = 0.0


def _men_off_table(fill):
    """The three borne-off inputs of every count 0..15 as ``fill`` (:func:`_men_off5` or
    :func:`_men_off3`, run as Python) stores them: the same float32 values, read from a
    table instead of computed (a division by 3 or 5 a half: 4.7% of the halves' time was
    spent waiting for it, Zen 3)."""
    table = np.zeros((CHECKERS + 1, 3), np.float32)
    for m in range(CHECKERS + 1):
        getattr(fill, "py_func", fill)(m, table[m], 0)
    return table


@njit(**INNER)
def _men_off_from(table, m, inp, o):
    """inp[o:o + 3] = the borne-off inputs of count ``m`` (a row of :func:`_men_off_table`)."""
    inp[o] = table[m, 0]
    inp[o + 1] = table[m, 1]
    inp[o + 2] = table[m, 2]


@njit(**INLINED)
def _half_from(board, mine, theirs_summary, inp, o, contact250):
    """:func:`_half_inputs` from the two sides' :func:`_side_summary` (computed once per
    side for both halves of a position: each summary served two halves). With
    ``contact250`` the first three are :func:`_men_off_contact` of the *opponent* (from
    its summary's count: two calls and two passes over the points less: contact_inputs
    0.300 -> 0.280 us a contact position, one thread)."""
    occ, made, _one, two, tot, isum, n_bc = mine
    ooc, theirs, oone = theirs_summary[0], theirs_summary[1], theirs_summary[2]
    omade = _rev24(theirs)            # the opponent's made points and blots, our numbering
    oblots = _rev24(oone)

    if contact250:
        _men_off_from(MEN_OFF3, CHECKERS - theirs_summary[4], inp, o + I_OFF1)
    else:
        _men_off_from(MEN_OFF5, CHECKERS - tot, inp, o + I_OFF1)
    n_opp_back = 23 - _top(ooc)       # opponent's rearmost checker, in our numbering
    mean = np.int32(_div_small(isum + tot - 1, tot)) if tot else np.int32(0)

    # Timing: checkers beyond the 12-point still in contact count only as spares. The
    # point sums as 32-bit vector lanes (:func:`timing_sums_lanes`; :func:`_timing_sums`
    # is its reference).
    brk, free, j2, k2, no, t = timing_sums_lanes(board, n_opp_back, mean)
    zero = np.int32(0)
    inp[o + I_BREAK_CONTACT] = brk * INV_BREAK
    inp[o + I_FREEPIP] = free * INV_100
    if j2:
        k2 = np.int32(_div_small(np.int64(k2) + j2 - 1, np.int64(j2)))
    inp[o + I_MOMENT2] = k2 * INV_400
    for ii in range(5, -1, -1):
        d = np.int32(board[ii]) - np.int32(2)   # spares (> 0) or holes filled from the spares (< 0)
        d = d if no + d >= 0 else zero
        t += np.int32(ii) * d
        no += d
    inp[o + I_TIMING] = max(t, zero) * INV_100

    back = _top(occ)
    inp[o + I_BACK_CHEQUER] = back * INV_24
    top_anchor = 23 if back == 24 else back
    anchor = _top(made & ((np.int64(1) << (top_anchor + 1)) - 1))
    inp[o + I_BACK_ANCHOR] = anchor * INV_24
    m = made & ((np.int64(1) << (anchor + 1)) - 1) & ~((1 << 18) - 1)
    if m:
        n = 24 - _low(m)
    else:
        m = made & (63 << 12)
        n = 24 - _top(m) if m else 0
    inp[o + I_FORWARD_ANCHOR] = 2.0 if n == 0 else n * INV_6

    pl, p1, p2 = _pip_loss(board[24], occ, made, two, omade, oblots)
    inp[o + I_PIPLOSS] = pl * INV_PIPLOSS
    inp[o + I_P1] = p1 * INV_36
    inp[o + I_P2] = p2 * INV_36

    pat = (made >> (n_opp_back + 1)) & ESC_WIDTH[23 - n_opp_back]
    inp[o + I_BACKESCAPES] = ESC8[pat] * INV_36
    inp[o + I_BACKRESCAPES] = ESC18[pat] * INV_36

    # ACONTAIN runs i = 15 .. 23 - n_opp_back, CONTAIN i = 15 .. 23: one pass for both.
    n_a = 36
    n_c = 36
    lim = 24 - n_opp_back
    for i in range(15, 24):
        j = np.int64(ESC8[(made >> (24 - i)) & 0xFFF])
        n_c = min(n_c, j)
        n_a = min(n_a, j if i < lim else 36)
    if lim > 24:
        n_a = min(n_a, np.int64(ESC8[made & 0xFFF]))
    inp[o + I_ACONTAIN] = (36 - n_a) * INV_36
    inp[o + I_ACONTAIN2] = inp[o + I_ACONTAIN] * inp[o + I_ACONTAIN]
    inp[o + I_CONTAIN] = (36 - n_c) * INV_36
    inp[o + I_CONTAIN2] = inp[o + I_CONTAIN] * inp[o + I_CONTAIN]

    n = 0
    m = occ & ~63
    while m:
        i = _low(m)
        m &= m - 1
        n += (i - 5) * board[i] * ESC8[(theirs >> (24 - i)) & ESC_WIDTH[i]]
    inp[o + I_MOBILITY] = n * INV_3600

    if board[24] > 0:
        loss = ENTER_LOSS[np.int64(board[24] > 1), theirs & 63]
        inp[o + I_ENTER] = loss * INV_ENTER
    else:
        inp[o + I_ENTER] = 0.0
    n = _popcount(theirs & 63)
    inp[o + I_ENTER2] = (36 - (n - 6) * (n - 6)) * INV_36

    m = made & 0xFFFFFE
    pa = _top(m)                      # the front made point; weights of those below it
    if pa > 0:
        below = m & ((np.int64(1) << pa) - 1)
        w = BACKBONE_W[((below << 11) >> pa) & 0x7FF] * board[pa]
        tot = _popcount(below) * board[pa]
    else:
        w = 0
        tot = 0
    inp[o + I_BACKBONE] = 1 - (w / (tot * 11.0)) if tot else 0.0

    n_ac = _popcount(made & (63 << 18))
    if n_ac > 1:
        inp[o + I_BACKG] = (n_bc + board[24] - 3) / 4.0
    else:
        inp[o + I_BACKG] = 0.0
    if n_ac == 1:
        inp[o + I_BACKG1] = (n_bc + board[24]) / 8.0
    else:
        inp[o + I_BACKG1] = 0.0


MEN_OFF5 = _men_off_table(_men_off5)
MEN_OFF3 = _men_off_table(_men_off3)


@njit(**INNER)
def _men_off_contact(board, inp, o):
    """menOffNonCrashed: borne-off count on a scale for at most eight off."""
    m = CHECKERS
    for i in range(25):
        m -= board[i]
    _men_off3(m, inp, o)
