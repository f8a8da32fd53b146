"""GNU Backgammon's network inputs: the 4-per-point encodings and the hand-made features.

Split from :mod:`fastbg.evaluators.net_kernels` (which dispatches on the position class and runs
the networks) so that the input code, the bulk of an evaluation's time, sits on its own.
Everything works on gnubg's board ``gb`` int64[2, 25] (row 1 the side on roll, row 0 the
other, each in its own numbering, index 24 the bar). Inputs are float32 in gnubg's order;
functions that fill them also list the non-zero ones (indices in increasing order), which
is all the hidden layer reads.
"""
import numpy as np
from llvmlite import ir
from numba import config, njit, types
from numba.core import cgutils
from numba.core.extending import intrinsic

from fastbg.position.bits import bitrev32 as _bitrev32
from fastbg.position.bits import ctlz64 as _ctlz64
from fastbg.position.bits import ctpop64 as _ctpop64
from fastbg.position.bits import cttz64 as _cttz64
from fastbg.jit import HOT, INNER
from fastbg.constants import BOARD_SIZE, CHECKERS


# Half-input features (gnubg's inputs.c enum order), 25 per side after the 200 base inputs.
(I_OFF1, I_OFF2, I_OFF3, I_BREAK_CONTACT, I_BACK_CHEQUER, I_BACK_ANCHOR, I_FORWARD_ANCHOR,
 I_PIPLOSS, I_P1, I_P2, I_BACKESCAPES, I_ACONTAIN, I_ACONTAIN2, I_CONTAIN, I_CONTAIN2,
 I_MOBILITY, I_MOMENT2, I_ENTER, I_ENTER2, I_TIMING, I_BACKBONE, I_BACKG, I_BACKG1,
 I_FREEPIP, I_BACKRESCAPES, MORE_INPUTS) = range(26)
BASE_INPUTS = 200
RACE_HALF = 107            # race inputs per side
RI_OFF = 92                # race: 14 one-hot borne-off inputs
RI_NCROSS = 106            # race: crossings / 10


def _escape_tables():
    """gnubg's anEscapes / anEscapes1: rolls (of 36) that escape past a 12-point pattern."""
    esc = np.zeros(0x1000, np.int64)
    esc1 = np.zeros(0x1000, np.int64)
    for i in range(0x1000):
        c = 0
        c1 = 0
        low = 0
        while i and not (i & (1 << low)):
            low += 1
        for n0 in range(6):
            for n1 in range(n0 + 1):
                free = not (i & (1 << (n0 + n1 + 1))) and not ((i & (1 << n0)) and (i & (1 << n1)))
                w = 1 if n0 == n1 else 2
                if free:
                    c += w
                    if i and n0 + n1 + 1 > low:
                        c1 += w
        esc[i] = c
        esc1[i] = c1
    return esc, esc1


ESC, ESC1 = _escape_tables()

# Shots at a blot n pips away (n = 1..24): indices into the ways to hit below (-1: none).
HIT_WAYS = np.array([
    [0, -1, -1, -1, -1], [1, 2, -1, -1, -1], [3, 4, 5, -1, -1], [6, 7, 8, 9, -1],
    [10, 11, 12, -1, -1], [13, 14, 15, 16, 17], [18, 19, 20, -1, -1], [21, 22, 23, 24, -1],
    [25, 26, 27, -1, -1], [28, 29, -1, -1, -1], [30, -1, -1, -1, -1], [31, 32, 33, -1, -1],
    [-1] * 5, [-1] * 5, [34, -1, -1, -1, -1], [35, -1, -1, -1, -1], [-1] * 5,
    [36, -1, -1, -1, -1], [-1] * 5, [37, -1, -1, -1, -1], [-1] * 5, [-1] * 5, [-1] * 5,
    [38, -1, -1, -1, -1]], np.int64)
# Each way to hit: (all intermediate points needed?, intermediate points x3, faces, pips).
HIT_WAY = np.array([
    [1, 0, 0, 0, 1, 1], [1, 0, 0, 0, 1, 2], [1, 1, 0, 0, 2, 2], [1, 0, 0, 0, 1, 3],
    [0, 1, 2, 0, 2, 3], [1, 1, 2, 0, 3, 3], [1, 0, 0, 0, 1, 4], [0, 1, 3, 0, 2, 4],
    [1, 2, 0, 0, 2, 4], [1, 1, 2, 3, 4, 4], [1, 0, 0, 0, 1, 5], [0, 1, 4, 0, 2, 5],
    [0, 2, 3, 0, 2, 5], [1, 0, 0, 0, 1, 6], [0, 1, 5, 0, 2, 6], [0, 2, 4, 0, 2, 6],
    [1, 3, 0, 0, 2, 6], [1, 2, 4, 0, 3, 6], [0, 1, 6, 0, 2, 7], [0, 2, 5, 0, 2, 7],
    [0, 3, 4, 0, 2, 7], [0, 2, 6, 0, 2, 8], [0, 3, 5, 0, 2, 8], [1, 4, 0, 0, 2, 8],
    [1, 2, 4, 6, 4, 8], [0, 3, 6, 0, 2, 9], [0, 4, 5, 0, 2, 9], [1, 3, 6, 0, 3, 9],
    [0, 4, 6, 0, 2, 10], [1, 5, 0, 0, 2, 10], [0, 5, 6, 0, 2, 11], [1, 6, 0, 0, 2, 12],
    [1, 4, 8, 0, 3, 12], [1, 3, 6, 9, 4, 12], [1, 5, 10, 0, 3, 15], [1, 4, 8, 12, 4, 16],
    [1, 6, 12, 0, 3, 18], [1, 5, 10, 15, 4, 20], [1, 6, 12, 18, 4, 24]], np.int64)
W_ALL, W_INTER, W_FACES, W_PIPS = 0, 1, 4, 5
# The ways each of the 21 rolls hits (11, 21, 22, 31, 32, 33, 41, ...).
ROLL_WAYS = np.array([
    [0, 2, 5, 9], [0, 1, 4, -1], [1, 8, 17, 24], [0, 3, 7, -1], [1, 3, 12, -1],
    [3, 16, 27, 33], [0, 6, 11, -1], [1, 6, 15, -1], [3, 6, 20, -1], [6, 23, 32, 35],
    [0, 10, 14, -1], [1, 10, 19, -1], [3, 10, 22, -1], [6, 10, 26, -1], [10, 29, 34, 37],
    [0, 13, 18, -1], [1, 13, 21, -1], [3, 13, 25, -1], [6, 13, 28, -1], [10, 13, 30, -1],
    [13, 31, 36, 38]], np.int64)


def _enter_loss_table():
    """gnubg's I_ENTER loss (before scaling) by the opponent's made home points (6 bits)
    and whether two or more of ours are on the bar: the loop of CalculateHalfInputs."""
    t = np.zeros((2, 64), np.int64)
    for two in range(2):
        for m in range(64):
            loss = 0
            for i in range(6):
                if m >> i & 1:
                    loss += 4 * (i + 1)
                    for j in range(i + 1, 6):
                        if m >> j & 1:
                            loss += 2 * (i + j + 2)
                        elif two:
                            loss += 2 * (i + 1)
                elif two:
                    for j in range(i + 1, 6):
                        if m >> j & 1:
                            loss += 2 * (j + 1)
            t[two, m] = loss
    return t


def _backbone_table():
    """Sum of gnubg's backbone weights over the made points 1..11 pips below the front one:
    bit t of the index is the point 11 - t pips below (11 within 6 pips, 13 - d up to 11)."""
    t = np.zeros(1 << 11, np.int64)
    for x in range(1 << 11):
        for b in range(11):
            if x >> b & 1:
                d = 11 - b
                t[x] += 11 if d <= 6 else 13 - d
    return t


def _encoding_tables():
    """A point's 4 inputs and the bar's 4 inputs by checker count (0..15), float32; the
    race's 14 borne-off inputs by the number off (0..15)."""
    pt = np.zeros((16, 4), np.float32)
    bt = np.zeros((16, 4), np.float32)
    off = np.zeros((16, 14), np.float32)
    for m in range(16):
        for k in range(14):
            off[m, k] = 1.0 if m == k + 1 else 0.0
    for nc in range(16):
        pt[nc] = (1.0 if nc == 1 else 0.0, 1.0 if nc == 2 else 0.0, 1.0 if nc >= 3 else 0.0,
                  (nc - 3) / 2.0 if nc > 3 else 0.0)
        bt[nc] = (1.0 if nc >= 1 else 0.0, 1.0 if nc >= 2 else 0.0, 1.0 if nc >= 3 else 0.0,
                  (nc - 3) / 2.0 if nc > 3 else 0.0)
    return pt, bt, off


# The features' divisors, each as the reciprocal it is multiplied by: a multiply instead of a
# division (about 30 a contact position, each a long-latency instruction). The float32
# inputs stay gnubg's bit for bit: an integer over one of these divisors is never so near a
# float32 rounding midpoint that the product's last-bit error in float64 could move it
# (tests/test_gnubginputs.py checks every numerator from -20,000 to 200,000).
D_PIPLOSS = 12.0 * 36.0
D_BREAK = 15 + 152.0
D_ENTER = 36.0 * (49.0 / 6.0)
INV_PIPLOSS = 1.0 / D_PIPLOSS
INV_BREAK = 1.0 / D_BREAK
INV_ENTER = 1.0 / D_ENTER
INV_36 = 1.0 / 36.0
INV_100 = 1.0 / 100.0
INV_400 = 1.0 / 400.0
INV_24 = 1.0 / 24.0
INV_6 = 1.0 / 6.0
INV_3600 = 1.0 / 3600.0
# (divisor, the reciprocal used for it), for the test
FEATURE_RECIPROCALS = ((D_PIPLOSS, INV_PIPLOSS), (D_BREAK, INV_BREAK), (D_ENTER, INV_ENTER),
                       (36.0, INV_36), (100.0, INV_100), (400.0, INV_400), (24.0, INV_24),
                       (6.0, INV_6), (3600.0, INV_3600))

# x // d for 0 <= x < DIV_SMALL_LIMIT and 1 <= d <= CHECKERS as (x * DIV_SMALL[d]) >> 32:
# a multiply for an integer division (a long-latency instruction; four a contact position);
# exact in that range (tests/test_gnubginputs.py checks all of it).
DIV_SMALL = np.array([0] + [-(-(1 << 32) // d) for d in range(1, CHECKERS + 1)], np.int64)
DIV_SMALL_LIMIT = 1 << 16

ESC8 = ESC.astype(np.int8)          # the same tables in 4 KiB each instead of 32
ESC18 = ESC1.astype(np.int8)
ENTER_LOSS = _enter_loss_table()
BACKBONE_W = _backbone_table().astype(np.int16)   # 4 KiB, not 16: L1 is shared with the weights
POINT_ENC, BAR_ENC, RACE_OFF_ENC = _encoding_tables()
# A point's non-zero inputs by its checkers (0..15): the first one's offset (1, 2, 3+; any
# value for none) and how many (the (n - 3) / 2 input above 3 the second).
NZ_FIRST = np.array([max(min(n, 3) - 1, 0) for n in range(16)], np.int64)
NZ_COUNT = np.array([(n > 0) + (n > 3) for n in range(16)], np.uint64)
# Escape pattern width mask by distance n (gnubg's Escapes looks at min(12, n) points).
ESC_WIDTH = np.array([(1 << min(12, n)) - 1 for n in range(25)], np.int64)
# Hitting ways as table rows for the bar case: pips, shift of each intermediate's "open"
# mask (-1: none), whether all intermediates must be open (else one of two suffices).
WAY_PIPS = HIT_WAY[:, W_PIPS].copy()
WAY_ALL = np.array([1 if (HIT_WAY[c, W_ALL] or HIT_WAY[c, W_FACES] == 1) else 0
                    for c in range(39)], np.int64)
WAY_SHIFT = np.array([[HIT_WAY[c, W_PIPS] - HIT_WAY[c, W_INTER + k]
                       if HIT_WAY[c, W_FACES] > 1 and HIT_WAY[c, W_INTER + k] > 0 else -1
                       for k in range(3)] for c in range(39)], np.int64)
LOW24 = 0xFFFFFF


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


# ---- inputs ---------------------------------------------------------------------------

@njit(**INNER)
def _point_inputs(nc, inp, o):
    """A point's 4 inputs: 1 checker, 2, 3 or more, (n - 3) / 2 above 3."""
    inp[o] = 1.0 if nc == 1 else 0.0
    inp[o + 1] = 1.0 if nc == 2 else 0.0
    inp[o + 2] = 1.0 if nc >= 3 else 0.0
    inp[o + 3] = (nc - 3) / 2.0 if nc > 3 else 0.0


@njit(**INNER)
def _point_nonzero(nc, o, nz, c):
    """Append the indices of a point's non-zero inputs to nz[c:] (without branches: the
    0..2 written entries are kept by the count); returns the new count."""
    nz[c] = o + min(nc, 3) - 1
    nz[c + 1] = o + 3
    return c + (nc > 0) + (nc > 3)


@njit(**INNER)
def _point_nonzero_u(nc, o, nz, c):
    """:func:`_point_nonzero` with an unsigned count ``c`` (no negative-index checks)."""
    nz[c] = o + min(nc, 3) - 1
    nz[c + np.uint64(1)] = o + 3
    return c + np.uint64(nc > 0) + np.uint64(nc > 3)


@njit(**HOT)
def base_inputs(gb, inp, nz):
    """200 inputs: per side (row 0 first), 4 per point and 4 for the bar. Returns the
    number of non-zero inputs, listed in increasing order in nz.

    The encodings are copied from tables of 0..15 checkers; the list index is unsigned so
    numba checks no negative index (0.075 -> 0.057 us with the copies). Each point's
    list entries come from tables too (NZ_FIRST, NZ_COUNT), in the pass of its copy:
    contact_inputs 0.284 -> 0.277 us a contact position (against min / compares in a
    second pass; one thread, the same process).
    """
    c = np.uint64(0)
    for s in range(2):
        o = s * 100
        for i in range(24):
            nc = gb[s, i]
            _copy4(inp, o + 4 * i, POINT_ENC, nc)
            nz[c] = o + 4 * i + NZ_FIRST[nc]
            nz[c + np.uint64(1)] = o + 4 * i + 3
            c += NZ_COUNT[nc]
        nc = gb[s, 24]
        _copy4(inp, o + 96, BAR_ENC, nc)
        for q in range(4):
            nz[c + np.uint64(q)] = o + 96 + q
        c += np.uint64(min(nc, 3)) + np.uint64(nc > 3)
    return np.int64(c)


# ---- hidden sums without multiplies ---------------------------------------------------
#
# gnubg adds an input's weight row times the input to the hidden sums, input by input in
# order, rounding to float32 after each step. Where the input is 1 the product is the row
# itself; where it is one of a few values (a point's (n - 3) / 2 above three checkers, the
# race's crossings / 10, most hand-made features: k / 36, k / 24, ...) the product row can
# be computed once, at load time, in the same float32 multiply: the sums are then the same
# bits with an add and no multiply for those inputs (on AVX-512 hosts with one 512-bit
# unit, an input's 8 multiplies are half its cost). ``evaluate_rows`` lists the base and
# race inputs as rows to add ("adds": rows of the net's extended weights, the inputs' own
# rows, then these products) and the features as a list that mixes product rows (codes
# of :data:`FEATURE_CODES`) and inputs still multiplied. The base and race inputs come
# before every feature in gnubg's order, and the features' list keeps theirs.
N_CONTACT_INPUTS = BASE_INPUTS + 2 * MORE_INPUTS     # 250: the contact and crashed nets
N_COUNTS = 16                                         # checkers on a point: 0..15
PRODUCT_ROW0 = N_CONTACT_INPUTS                       # product rows after the input rows
MAX_CROSSINGS = 3 * CHECKERS                          # the race's crossings: at most 45
CROSS_ROW0 = PRODUCT_ROW0 + 2 * 25 * N_COUNTS         # crossings' product rows, per side
FEATURE_ROW0 = CROSS_ROW0 + 2 * (MAX_CROSSINGS + 1)   # features' product rows, per half
# The features with few values: feature -> (codes, scale, offset, source). Its code is
# int(x * scale + offset + 0.5) of the input ``source`` places before it (the square of a
# containment takes its root's code), x the float32 input; None: the borne-off scale, 3 on
# the contact net's inputs (contact250), else 5. :func:`feature_value` is the value of a
# code, as :func:`_half_from` computes it. The others (pip loss, mobility, timing, ...)
# take too many values and keep their multiply.
FEATURE_CODES = {I_OFF1: (16, None, 0, 0), I_OFF2: (16, None, 0, 0), I_OFF3: (16, None, 0, 0),
                 I_BACK_CHEQUER: (25, 24, 0, 0), I_BACK_ANCHOR: (26, 24, 1, 0),
                 I_FORWARD_ANCHOR: (25, 6, 0, 0), I_P1: (37, 36, 0, 0), I_P2: (37, 36, 0, 0),
                 I_BACKESCAPES: (37, 36, 0, 0), I_ACONTAIN: (37, 36, 0, 0),
                 I_ACONTAIN2: (37, 36, 0, 1), I_CONTAIN: (37, 36, 0, 0),
                 I_CONTAIN2: (37, 36, 0, 1), I_ENTER2: (37, 36, 0, 0),
                 I_BACKG: (16, 4, 0, 0), I_BACKG1: (16, 8, 0, 0),
                 I_BACKRESCAPES: (37, 36, 0, 0)}
FEATURE_BLOCK = sum(v[0] for v in FEATURE_CODES.values())     # product rows of one half
WEIGHT_ROWS = FEATURE_ROW0 + 2 * FEATURE_BLOCK        # rows of a net's extended weights
MAX_ADDS = 128                                        # adds of a position: at most 104


def _feature_tables():
    """Per feature input j (0..49, input 200 + j): its first product row (-1: multiplied),
    the input its code is read from (relative), the scale by contact250 and the offset."""
    row = np.full(2 * MORE_INPUTS, -1, np.int64)
    src = np.zeros(2 * MORE_INPUTS, np.int64)
    scale = np.zeros((2, 2 * MORE_INPUTS), np.float32)
    offset = np.zeros(2 * MORE_INPUTS, np.float32)
    r = FEATURE_ROW0
    for half in range(2):
        for f, (codes, sc, off, back) in FEATURE_CODES.items():
            j = MORE_INPUTS * half + f
            row[j] = r
            src[j] = -back
            scale[:, j] = (5, 3) if sc is None else (sc, sc)
            offset[j] = off + 0.5
            r += codes
    return row, src, scale, offset


FEATURE_ROW, FEATURE_SRC, FEATURE_SCALE, FEATURE_OFFSET = _feature_tables()


# The features' list in four 16-lane chunks (the last one overlaps the third: its first 14
# lanes are left out), so that every load stays inside the 250 inputs.
_CHUNKS = ((0, 0), (16, 0), (32, 0), (34, 14))      # (first feature, first lane kept)
FEATURE_LANES = 16


def _make_feature_entries():
    """The intrinsic ``entries(inp, nz, contact250) -> n`` of :func:`feature_entries`: per
    16-lane chunk of the 50 features, each entry computed as the scalar loop does (the
    code's float32 multiply and add, then the conversion), the non-zero features' entries
    packed into nz by one compressing store (AVX-512 ``vpcompressq``; expanded elsewhere)
    and counted by a popcount of the mask: no loop over features, no branch."""
    @intrinsic
    def entries(typingctx, inp, nz, contact250):
        if not (isinstance(inp, types.Array) and inp.ndim == 1 and inp.layout == "C"
                and inp.dtype == types.float32 and isinstance(nz, types.Array)
                and nz.ndim == 1 and nz.layout == "C" and nz.dtype == types.int64
                and isinstance(contact250, types.Boolean)):
            return None
        sig = types.int64(inp, nz, contact250)

        def codegen(context, builder, signature, args):
            inp_arr = context.make_array(signature.args[0])(context, builder, args[0])
            nz_arr = context.make_array(signature.args[1])(context, builder, args[1])
            flag = context.cast(builder, args[2], signature.args[2], types.boolean)
            flag = builder.trunc(flag, ir.IntType(1)) if flag.type != ir.IntType(1) else flag
            lanes = FEATURE_LANES
            i1, i16, i32, i64 = (ir.IntType(n) for n in (1, 16, 32, 64))
            f32 = ir.FloatType()
            fv, iv, lv, bv = (ir.VectorType(t, lanes) for t in (f32, i32, i64, i1))
            compress = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(ir.VoidType(), [lv, i64.as_pointer(), bv]),
                "llvm.masked.compressstore.v16i64")
            ctpop = cgutils.get_or_insert_function(builder.module, ir.FunctionType(i16, [i16]),
                                                   "llvm.ctpop.i16")
            u = ir.Constant(i64, 0)
            for first, keep_from in _CHUNKS:
                js = [first + q for q in range(lanes)]
                start = BASE_INPUTS + first

                def load(offset):
                    ptr = builder.gep(inp_arr.data, [ir.Constant(i64, start + offset)])
                    return builder.load(builder.bitcast(ptr, fv.as_pointer()), align=4)
                x = load(0)
                xs = builder.select(ir.Constant(bv, [int(FEATURE_SRC[j] != 0) for j in js]),
                                    load(-1), x)
                scale = builder.select(
                    flag, ir.Constant(fv, [float(FEATURE_SCALE[1, j]) for j in js]),
                    ir.Constant(fv, [float(FEATURE_SCALE[0, j]) for j in js]))
                v = builder.fadd(builder.fmul(xs, scale),
                                 ir.Constant(fv, [float(FEATURE_OFFSET[j]) for j in js]))
                code = builder.fptosi(v, iv)
                rows = [int(FEATURE_ROW[j]) for j in js]
                entry = builder.select(ir.Constant(bv, [int(r >= 0) for r in rows]),
                                       builder.add(ir.Constant(iv, [max(r, 0) for r in rows]),
                                                   code),
                                       ir.Constant(iv, [BASE_INPUTS + j for j in js]))
                mask = builder.fcmp_unordered("!=", x, ir.Constant(fv, [0.0] * lanes))
                mask = builder.and_(mask, ir.Constant(bv, [int(q >= keep_from)
                                                           for q in range(lanes)]))
                dst = builder.gep(nz_arr.data, [u])
                builder.call(compress, [builder.sext(entry, lv), dst, mask])
                n = builder.call(ctpop, [builder.bitcast(mask, i16)])
                u = builder.add(u, builder.zext(n, i64))
            return u

        return sig, codegen

    return entries


if config.DISABLE_JIT:
    def feature_entries(inp, nz, contact250):
        """:func:`contact_features`' list: the non-zero features of inp[200:250] in input
        order, each as its index (multiplied) or its product row (added); returns how
        many (the loop the vector code replaces)."""
        u = 0
        scale = FEATURE_SCALE[int(contact250)]
        for j in range(2 * MORE_INPUTS):
            i = BASE_INPUTS + j
            code = int(np.float32(np.float32(inp[i + FEATURE_SRC[j]] * scale[j])
                                  + FEATURE_OFFSET[j]))
            r = FEATURE_ROW[j]
            if inp[i] != 0.0:
                nz[u] = i if r < 0 else r + code
                u += 1
        return u
else:
    feature_entries = _make_feature_entries()


def feature_value(f, code, contact250):
    """The float32 value of feature ``f`` (I_*, one of :data:`FEATURE_CODES`) whose code is
    ``code``, as :func:`_half_from` computes it."""
    if f in (I_OFF1, I_OFF2, I_OFF3):
        return np.float32(code / (3.0 if contact250 else 5.0))
    if f == I_BACK_CHEQUER:
        return np.float32(code * INV_24)
    if f == I_BACK_ANCHOR:
        return np.float32((code - 1) * INV_24)
    if f == I_FORWARD_ANCHOR:
        return np.float32(code * INV_6)
    if f in (I_ACONTAIN2, I_CONTAIN2):
        root = np.float32(code * INV_36)
        return root * root
    if f == I_BACKG:
        return np.float32(code / 4.0)
    if f == I_BACKG1:
        return np.float32(code / 8.0)
    return np.float32(code * INV_36)


def _product_row(side, point, n):
    """Extended weight row of the point's (n - 3) / 2 input times its weights (n > 3;
    gnubg's point 0..23 of ``side``, 24 the bar)."""
    return PRODUCT_ROW0 + N_COUNTS * (25 * side + point) + n


def extended_weights(w, race, contact250=False):
    """The extended input weights (WEIGHT_ROWS, H) float32 of a net's input weights ``w``
    (inputs, H): its own rows, then each point's (n - 3) / 2 input times its row for n =
    4..15 (rows :func:`_product_row`), then for the race net each side's crossings / 10
    times that input's row (row CROSS_ROW0 + 46 side + crossings), else each feature of
    :data:`FEATURE_CODES` times its row for every code (rows FEATURE_ROW[j] + code; the
    borne-off features on the contact250 scale with ``contact250``). The same float32
    multiply as the kernels' (numpy rounds a float32 product the same way)."""
    w = np.asarray(w, np.float32)
    out = np.zeros((WEIGHT_ROWS, w.shape[1]), np.float32)
    out[:w.shape[0]] = w
    half, points = (RACE_HALF, 23) if race else (BASE_INPUTS // 2, 25)
    for side in range(2):
        for point in range(points):
            row = w[half * side + 4 * point + 3]
            for n in range(4, N_COUNTS):
                out[_product_row(side, point, n)] = row * POINT_ENC[n, 3]
        if race:
            row = w[RACE_HALF * side + RI_NCROSS]
            for c in range(MAX_CROSSINGS + 1):
                out[CROSS_ROW0 + (MAX_CROSSINGS + 1) * side + c] = row * np.float32(c / 10.0)
    if not race:
        for j in np.flatnonzero(FEATURE_ROW >= 0):
            f = j % MORE_INPUTS
            for code in range(FEATURE_CODES[f][0]):
                out[FEATURE_ROW[j] + code] = w[BASE_INPUTS + j] * feature_value(f, code,
                                                                                 contact250)
    return out


@njit(**INNER)
def _point_adds(gb, s, adds, c):
    """The add rows of side ``s``'s points 0..23 (in input order: each point's input of 1,
    then its product row when it holds more than three) at adds[c:]; returns the new c.
    The kernels run :func:`point_adds_lanes`, the same rows by vector lanes; this is its
    reference."""
    o = s * 100
    for i in range(24):
        nc = gb[s, i]
        adds[c] = o + 4 * i + NZ_FIRST[nc]
        adds[c + np.uint64(1)] = PRODUCT_ROW0 + N_COUNTS * (25 * s + i) + nc
        c += NZ_COUNT[nc]
    return c


# Points of a side a chunk of :func:`point_adds_lanes` takes (two rows each: 16 lanes).
_POINT_CHUNK = 8


@intrinsic
def _point_adds_intrinsic(typingctx, gb, s, adds, c):
    """:func:`_point_adds` as three chunks of 8 points: each point's two rows computed
    in vector lanes, interleaved, and the ones its count keeps packed into adds by one
    compressing store (AVX-512 ``vpcompressq``), counted by a popcount: no loop, no
    table, no chain through the count from point to point."""
    if not (isinstance(gb, types.Array) and gb.ndim == 2 and gb.layout == "C"
            and gb.dtype == types.int64 and isinstance(adds, types.Array) and adds.ndim == 1
            and adds.layout == "C" and adds.dtype == types.int64
            and isinstance(s, types.Integer) and isinstance(c, types.Integer)):
        return None
    sig = types.uint64(gb, s, adds, c)

    def codegen(context, builder, signature, args):
        gb_arr = context.make_array(signature.args[0])(context, builder, args[0])
        add_arr = context.make_array(signature.args[2])(context, builder, args[2])
        i1, i16, i64 = ir.IntType(1), ir.IntType(16), ir.IntType(64)
        n = _POINT_CHUNK
        v8, v16 = ir.VectorType(i64, n), ir.VectorType(i64, 2 * n)
        b16 = ir.VectorType(i1, 2 * n)
        side = context.cast(builder, args[1], signature.args[1], types.int64)
        u = context.cast(builder, args[3], signature.args[3], types.int64)
        compress = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [v16, i64.as_pointer(), b16]),
            "llvm.masked.compressstore.v16i64")
        ctpop = cgutils.get_or_insert_function(builder.module, ir.FunctionType(i16, [i16]),
                                               "llvm.ctpop.i16")

        def c(v):
            return ir.Constant(v8, v if isinstance(v, list) else [v] * n)

        def splat(x):
            v = builder.insert_element(ir.Constant(v8, ir.Undefined), x, ir.Constant(i64, 0))
            return builder.shuffle_vector(v, ir.Constant(v8, ir.Undefined),
                                          ir.Constant(ir.VectorType(ir.IntType(32), n), [0] * n))
        first_base = splat(builder.mul(side, ir.Constant(i64, 100)))
        prod_base = splat(builder.add(ir.Constant(i64, PRODUCT_ROW0),
                                      builder.mul(side, ir.Constant(i64, N_COUNTS * 25))))
        row0 = builder.mul(side, ir.Constant(i64, 25))
        interleave = ir.Constant(ir.VectorType(ir.IntType(32), 2 * n),
                                 [k // 2 + (n if k % 2 else 0) for k in range(2 * n)])
        for chunk in range(24 // n):
            ptr = builder.gep(gb_arr.data, [builder.add(row0, ir.Constant(i64, chunk * n))])
            nc = builder.load(builder.bitcast(ptr, v8.as_pointer()), align=8)
            pts = c([chunk * n + k for k in range(n)])
            # o + 4 i + max(min(nc, 3) - 1, 0) and the product row o' + N_COUNTS i + nc
            m3 = builder.select(builder.icmp_signed("<", nc, c(3)), nc, c(3))
            lo = builder.sub(m3, c(1))
            lo = builder.select(builder.icmp_signed(">", lo, c(0)), lo, c(0))
            first = builder.add(builder.add(first_base, builder.mul(pts, c(4))), lo)
            second = builder.add(builder.add(prod_base, builder.mul(pts, c(N_COUNTS))), nc)
            keep1 = builder.icmp_signed(">", nc, c(0))
            keep2 = builder.icmp_signed(">", nc, c(3))
            rows = builder.shuffle_vector(first, second, interleave)
            mask = builder.shuffle_vector(keep1, keep2, interleave)
            builder.call(compress, [rows, builder.gep(add_arr.data, [u]), mask])
            k = builder.call(ctpop, [builder.bitcast(mask, i16)])
            u = builder.add(u, builder.zext(k, i64))
        return u

    return sig, codegen


if config.DISABLE_JIT:
    point_adds_lanes = _point_adds          # the loop: no intrinsics without the JIT
else:
    point_adds_lanes = _point_adds_intrinsic


@njit(**HOT)
def base_adds(gb, adds):
    """The extended weight rows (:func:`extended_weights`) that :func:`base_inputs`'s
    non-zero inputs add, in input order, into ``adds``; returns how many. (The points by
    vector lanes, :func:`point_adds_lanes`: 40 -> 22-25 ns a contact position, one thread.)"""
    c = np.uint64(0)
    for s in range(2):
        o = s * 100
        c = point_adds_lanes(gb, s, adds, c)
        nc = gb[s, 24]
        for q in range(3):
            adds[c + np.uint64(q)] = o + 96 + q
        m = np.uint64(min(nc, 3))
        adds[c + m] = PRODUCT_ROW0 + N_COUNTS * (25 * s + 24) + nc   # kept only when nc > 3
        c += m + np.uint64(nc > 3)
    return np.int64(c)


@njit(**HOT)
def race_adds(gb, adds):
    """The extended weight rows that :func:`race_inputs`'s non-zero inputs add, in input
    order, into ``adds`` (every race input is 1, a point's (n - 3) / 2 or the crossings /
    10: no multiply at all); returns how many."""
    c = np.uint64(0)
    for s in range(2):
        o = s * RACE_HALF
        men_off = CHECKERS
        cross = 0
        for i in range(23):
            nc = gb[s, i]
            men_off -= nc
            cross += nc * (i // 6)
            adds[c] = o + 4 * i + NZ_FIRST[nc]
            adds[c + np.uint64(1)] = PRODUCT_ROW0 + N_COUNTS * (25 * s + i) + nc
            c += NZ_COUNT[nc]
        adds[c] = o + RI_OFF + men_off - 1
        c += np.uint64((men_off >= 1) & (men_off <= 14))
        cross += 3 * gb[s, 23]
        adds[c] = CROSS_ROW0 + (MAX_CROSSINGS + 1) * s + cross
        c += np.uint64(cross != 0)
    return np.int64(c)


@njit(**HOT)
def made_mask(board):
    """Bit i set when board[i] holds two or more checkers (i = 0..24)."""
    m = 0
    for i in range(25):
        m |= np.int64(board[i] > 1) << i
    return m


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
def _top_bit(x):
    """Index of the highest set bit of 0 < x < 2^32."""
    return _top(x)


@njit(**INNER)
def _masks(board):
    """(occupied, made (2+), blots, exactly two) bitmasks of board[0..24] (one vectorised
    pass; a separate pass over the opponent's points in reverse order cost 25 ns)."""
    occ, made, one, two, _tot, _isum, _n_bc = _side_summary(board)
    return occ, made, one, two


@njit(**HOT)
def pip_loss(board, opp):
    """gnubg's pipLossP1P2: (pips lost / 432, P(hit one), P(hit two)) for ``board`` hitting
    (gnubg's hit / roll scratch arrays are not needed: the counts come from bitmasks)."""
    occ, made, one, two = _masks(board)
    ooc, theirs, oone, otwo = _masks(opp)
    npips, n1, n2 = _pip_loss(board[24], occ, made, two, _rev24(theirs), _rev24(oone))
    return npips / D_PIPLOSS, n1 / 36.0, n2 / 36.0


@njit(**INNER)
def _pip_loss(bar, occ, made, two, omade, oblots):
    """:func:`pip_loss` as its integers (pips lost, ways of 36 to hit one, two) from our
    checkers on the bar and bitmasks (ours: occupied, made,
    exactly two; the opponent's made points and blots in our numbering). No arrays: each
    array passed to a call costs numba an atomic reference count pair (passing gnubg's
    three scratch arrays here cost 0.063 us a contact position, both sides).

    Way c of HIT_WAY hits from our point j when we may hit from j, the blot is at j - pips
    and the intermediate points are open: for every j at once, hitters & (blots << pips)
    & (open << (pips - intermediate)) ... gnubg then looks only at the highest hitter of
    each way of a roll (and, with one checker on the bar, at the bar), so each roll's
    counts follow from a few highest bits, computed here without branches. The integer
    sums are gnubg's, so the three floats are too.
    """
    hitters = occ & ~(two & 63)       # a made 2-point in the home board does not hit
    n_board = _popcount(made & 63)
    blots = oblots if n_board > 2 else oblots & ~3    # gnubg: i <= 21 unless 3+ home points
    # No blot with a hitter above it: nothing to hit. (This branch pays: both half_inputs
    # 0.216 us with it, 0.235 us computing every roll always.)
    if blots == 0 or hitters < ((blots & -blots) << 1):
        return 0, 0, 0
    opn = ~omade & LOW24
    if bar == 0:
        npips, n1, n2 = rolls_no_bar_lanes(hitters, blots, opn, oblots, made)
    elif bar == 1:
        npips, n1, n2 = rolls_bar1_lanes(hitters, blots, opn, oblots, omade)
    else:
        npips, n1, n2 = _rolls_bar2(blots)
    return npips, n1, n2


# The 15 non-double rolls (a < b) and a 16th that never hits (shifts past the board), and
# the 6 doubles with two that never hit, as lanes of vector loops.
ND_A = np.array([1, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 4, 4, 5, 30], np.int64)
ND_B = np.array([2, 3, 4, 5, 6, 3, 4, 5, 6, 4, 5, 6, 5, 6, 6, 30], np.int64)
DB_D = np.array([1, 2, 3, 4, 5, 6, 0, 0], np.int64)
# Shifts of the blots for 1..4 dice of a double (past the board in the padding lanes).
DB_SHIFT = np.array([[m * d if d else 60 for d in DB_D] for m in range(5)], np.int64)


@njit(**INNER)
def _rolls_no_bar(hitters, blots, opn, oblots, made):
    """(pips, ways of 36 hitting once, twice) of gnubg's roll loop, nobody on our bar.

    Per roll gnubg counts: each die's highest hitter (the second die again only if it is a
    different checker or from a made point; a double's single die twice if it has two
    hitters), then a combined move (at least one, plus one if it passes over a blot).
    The rolls are independent lanes (vectorised loops: both half_inputs 0.32 -> 0.29 us a
    contact position against scalar loops over the rolls with branches). The kernels run
    :func:`rolls_no_bar_lanes`, the same operations on 32-bit lanes; this is its reference.
    """
    npips = 0
    n1 = 0
    n2 = 0
    for q in range(16):
        a = ND_A[q]
        b = ND_B[q]
        ka = _top(hitters & (blots << a))
        kb = _top(hitters & (blots << b))
        kc = _top(hitters & (blots << (a + b)) & ((opn << a) | (opn << b)))
        again = np.int64(ka != kb) | ((made >> max(kb, 0)) & 1)
        nrc = np.int64(ka >= 0) + np.int64(kb >= 0) * again
        hc = np.int64(kc >= 0)
        ks = max(kc, a + b)       # kc when it hits; shifts stay >= 0 otherwise
        nrc = max(nrc, hc) + (((oblots >> (ks - a)) | (oblots >> (ks - b))) & hc)
        nrp = max(max(ka - a, kb - b), kc - a - b) + 1
        npips += 2 * max(nrp, 0)
        n1 += 2 * np.int64(nrc > 0)
        n2 += 2 * np.int64(nrc > 1)
    for q in range(8):
        d = DB_D[q]
        h = hitters & (blots << DB_SHIFT[1, q])
        k = _top(h)
        two_hitters = np.int64((h & (h - 1)) != 0)
        c2 = opn << d
        c3 = c2 & (opn << (2 * d))
        k2 = _top(hitters & (blots << DB_SHIFT[2, q]) & c2)
        k3 = _top(hitters & (blots << DB_SHIFT[3, q]) & c3)
        k4 = _top(hitters & (blots << DB_SHIFT[4, q]) & c3 & (opn << (3 * d)))
        x2 = np.int64(k2 >= 0)
        x3 = np.int64(k3 >= 0)
        x4 = np.int64(k4 >= 0)
        s2 = max(k2, 2 * d)
        s3 = max(k3, 3 * d)
        s4 = max(k4, 4 * d)
        e = (((oblots >> (s2 - d)) & x2)
             + (((oblots >> (s3 - d)) | (oblots >> (s3 - 2 * d))) & x3)
             + (((oblots >> (s4 - d)) | (oblots >> (s4 - 2 * d)) | (oblots >> (s4 - 3 * d)))
                & x4))
        nrc = max(np.int64(k >= 0) + two_hitters, x2 | x3 | x4) + e
        nrp = max(max(k - d, k2 - 2 * d), max(k3 - 3 * d, k4 - 4 * d)) + 1
        npips += max(nrp, 0)
        n1 += np.int64(nrc > 0)
        n2 += np.int64(nrc > 1)
    return npips, n1, n2


# The rolls of _rolls_no_bar as lanes of 32-bit vectors: the 15 non-double rolls (and a
# 16th lane left out of the sums) in one vector, the 6 doubles (and 2) in another.
_ND_LANES = 16
_DB_LANES = 8


def _make_rolls_lanes(bar1=False):
    """The intrinsic ``(hitters, blots, opn, oblots, made) -> (pips, n1, n2)``,
    ``rolls_no_bar_lanes``: :func:`_rolls_no_bar`'s operations on <16 x i32> and <8 x i32>
    vectors (the masks fit 25 bits; no shift reaches 32), its sums reduced. numba's loops
    work in 4-lane int64 vectors: 6 passes of about 35 operations a half, here 2. Contact
    positions 0.518 -> 0.486 us (one thread, paired medians of 8 processes in turn, every
    pair faster; an earlier try of this, timed as two package copies in one process,
    showed no gain: that way of timing favours whichever copy loads first).

    With ``bar1`` the intrinsic ``(hitters, blots, opn, oblots, omade)``,
    ``rolls_bar1_lanes``: :func:`_rolls_bar1`'s operations the same way."""
    @intrinsic
    def lanes_kernel(typingctx, hitters, blots, opn, oblots, made):
        if not all(isinstance(a, types.Integer) for a in (hitters, blots, opn, oblots, made)):
            return None
        sig = types.UniTuple(types.int64, 3)(hitters, blots, opn, oblots, made)

        def codegen(context, builder, signature, args):
            i1, i32, i64 = ir.IntType(1), ir.IntType(32), ir.IntType(64)
            vals = [builder.trunc(context.cast(builder, a, t, types.int64), i32)
                    for a, t in zip(args, signature.args)]

            def run(n, a_list, b_list, double):
                iv = ir.VectorType(i32, n)
                ctlz = cgutils.get_or_insert_function(
                    builder.module, ir.FunctionType(iv, [iv, i1]), f"llvm.ctlz.v{n}i32")
                reduce = cgutils.get_or_insert_function(
                    builder.module, ir.FunctionType(i32, [iv]), f"llvm.vector.reduce.add.v{n}i32")

                def c(v):
                    return ir.Constant(iv, v if isinstance(v, list) else [v] * n)

                def splat(x):
                    v = builder.insert_element(ir.Constant(iv, ir.Undefined), x,
                                               ir.Constant(i32, 0))
                    return builder.shuffle_vector(v, ir.Constant(iv, ir.Undefined),
                                                  ir.Constant(iv, [0] * n))

                def top(x):
                    return builder.sub(c(31), builder.call(ctlz, [x, ir.Constant(i1, 0)]))

                def mx(x, y):
                    return builder.select(builder.icmp_signed(">", x, y), x, y)

                def flag(cond):
                    return builder.zext(cond, iv)

                def ge0(x):
                    return flag(builder.icmp_signed(">=", x, c(0)))

                sh, shr, band, bor, add, sub = (builder.shl, builder.lshr, builder.and_,
                                                builder.or_, builder.add, builder.sub)
                hitters, blots, opn, oblots, made = (splat(v) for v in vals)
                omade = made
                used = c([1 if q < len(a_list) else 0 for q in range(n)])
                pad = [1] * (n - len(a_list))
                low24, one = c(LOW24), c(1)

                def bit(x, shift):
                    return band(shr(x, shift), one)
                if bar1 and not double:
                    a = c(a_list + pad)
                    b = c(b_list + [2] * len(pad))
                    ab = add(a, b)
                    ha = band(hitters, sh(blots, a))
                    hb = band(hitters, sh(blots, b))
                    ba, bb = bit(ha, c(24)), bit(hb, c(24))
                    ka, kb = top(band(ha, low24)), top(band(hb, low24))
                    ok_a = band(ge0(ka), sub(one, bit(omade, sub(c(24), b))))
                    ok_b = band(band(ge0(kb), sub(one, ok_a)),
                                sub(one, bit(omade, sub(c(24), a))))
                    nrc = add(add(ba, ok_a), add(bb, ok_b))
                    mul = builder.mul
                    nrp = mx(mx(mul(ba, sub(c(25), a)), mul(ok_a, add(sub(ka, a), one))),
                             mx(mul(bb, sub(c(25), b)), mul(ok_b, add(sub(kb, b), one))))
                    hc = band(band(shr(blots, sub(c(24), ab)),
                                   bor(shr(opn, sub(c(24), a)), shr(opn, sub(c(24), b)))), one)
                    e = band(bor(shr(oblots, sub(c(22), a)), shr(oblots, sub(c(22), b))), hc)
                    nrc = add(mx(nrc, hc), e)
                    nrp = mx(nrp, mul(hc, sub(c(25), ab)))
                    weight = c(2)
                elif bar1:
                    d = c(a_list + pad)
                    mul = builder.mul
                    d2, d3, d4 = add(d, d), mul(d, c(3)), mul(d, c(4))
                    h = band(hitters, sh(blots, d))
                    bd = bit(h, c(24))
                    kd = top(band(h, low24))
                    ok = band(ge0(kd), sub(one, bit(omade, sub(c(24), d2))))
                    nrc = add(bd, ok)
                    nrp = mx(mul(bd, sub(c(25), d)), mul(ok, add(sub(kd, d), one)))
                    o1 = shr(opn, sub(c(24), d))
                    o2 = shr(opn, sub(c(24), d2))
                    o3 = shr(opn, sub(c(24), d3))
                    x2 = band(band(shr(blots, sub(c(24), d2)), o1), one)
                    x3 = band(band(band(shr(blots, sub(c(24), d3)), o1), o2), one)
                    x4 = band(band(band(band(shr(blots, sub(c(24), d4)), o1), o2), o3), one)
                    b1 = shr(oblots, sub(c(22), d))
                    b2 = bor(b1, shr(oblots, sub(c(22), d2)))
                    b3 = bor(b2, shr(oblots, sub(c(22), d3)))
                    e = add(add(band(b1, x2), band(b2, x3)), band(b3, x4))
                    nrc = add(mx(nrc, bor(bor(x2, x3), x4)), e)
                    nrp = mx(nrp, mx(mul(x2, sub(c(25), d2)),
                                     mx(mul(x3, sub(c(25), d3)), mul(x4, sub(c(25), d4)))))
                    weight = c(1)
                elif not double:
                    a = c(a_list + pad)
                    b = c(b_list + [2] * len(pad))
                    ab = add(a, b)
                    ka = top(band(hitters, sh(blots, a)))
                    kb = top(band(hitters, sh(blots, b)))
                    kc = top(band(band(hitters, sh(blots, ab)), bor(sh(opn, a), sh(opn, b))))
                    again = bor(flag(builder.icmp_signed("!=", ka, kb)),
                                band(shr(made, mx(kb, c(0))), c(1)))
                    nrc = add(ge0(ka), builder.mul(ge0(kb), again))
                    hc = ge0(kc)
                    ks = mx(kc, ab)
                    nrc = add(mx(nrc, hc), band(bor(shr(oblots, sub(ks, a)),
                                                    shr(oblots, sub(ks, b))), hc))
                    nrp = add(mx(mx(sub(ka, a), sub(kb, b)), sub(kc, ab)), c(1))
                    weight = c(2)
                else:
                    d = c(a_list + pad)
                    d2, d3, d4 = add(d, d), builder.mul(d, c(3)), builder.mul(d, c(4))
                    h = band(hitters, sh(blots, d))
                    k = top(h)
                    two_hitters = flag(builder.icmp_signed("!=", band(h, sub(h, c(1))), c(0)))
                    c2 = sh(opn, d)
                    c3 = band(c2, sh(opn, d2))
                    k2 = top(band(band(hitters, sh(blots, d2)), c2))
                    k3 = top(band(band(hitters, sh(blots, d3)), c3))
                    k4 = top(band(band(band(hitters, sh(blots, d4)), c3), sh(opn, d3)))
                    x2, x3, x4 = ge0(k2), ge0(k3), ge0(k4)
                    s2, s3, s4 = mx(k2, d2), mx(k3, d3), mx(k4, d4)
                    e = add(add(band(shr(oblots, sub(s2, d)), x2),
                                band(bor(shr(oblots, sub(s3, d)), shr(oblots, sub(s3, d2))), x3)),
                            band(bor(bor(shr(oblots, sub(s4, d)), shr(oblots, sub(s4, d2))),
                                     shr(oblots, sub(s4, d3))), x4))
                    nrc = add(mx(add(ge0(k), two_hitters), bor(bor(x2, x3), x4)), e)
                    nrp = add(mx(mx(sub(k, d), sub(k2, d2)), mx(sub(k3, d3), sub(k4, d4))), c(1))
                    weight = c(1)
                w = builder.mul(weight, used)
                sums = (builder.mul(mx(nrp, c(0)), w),
                        builder.mul(flag(builder.icmp_signed(">", nrc, c(0))), w),
                        builder.mul(flag(builder.icmp_signed(">", nrc, c(1))), w))
                return [builder.call(reduce, [v]) for v in sums]

            nd = run(_ND_LANES, [int(x) for x in ND_A[:15]], [int(x) for x in ND_B[:15]], False)
            db = run(_DB_LANES, list(range(1, 7)), None, True)
            out = [builder.sext(builder.add(x, y), i64) for x, y in zip(nd, db)]
            return context.make_tuple(builder, signature.return_type, out)

        return sig, codegen

    return lanes_kernel


if config.DISABLE_JIT:
    rolls_no_bar_lanes = _rolls_no_bar      # the loops: no intrinsics without the JIT
else:
    rolls_no_bar_lanes = _make_rolls_lanes()
    rolls_bar1_lanes = _make_rolls_lanes(bar1=True)


@njit(**INNER)
def _rolls_bar1(hitters, blots, opn, oblots, omade):
    """gnubg's roll loop with one checker of ours on the bar: a die hits from the bar, and
    its highest other hitter counts if the other die enters (for a double gnubg looks at
    the point of two dice) and no other die's hitter counted yet; combined moves only
    from the bar (plus one if the blot check of gnubg's, at opp[intermediate + 1], hits).
    """
    npips = 0
    n1 = 0
    n2 = 0
    for q in range(15):
        a = ND_A[q]
        b = ND_B[q]
        ha = hitters & (blots << a)
        hb = hitters & (blots << b)
        ba = (ha >> 24) & 1           # hits from the bar
        bb = (hb >> 24) & 1
        ka = _top(ha & LOW24)         # highest other hitter (-1: none)
        kb = _top(hb & LOW24)
        ok_a = np.int64(ka >= 0) & (1 - ((omade >> (24 - b)) & 1))
        ok_b = np.int64(kb >= 0) & (1 - ok_a) & (1 - ((omade >> (24 - a)) & 1))
        nrc = ba + ok_a + bb + ok_b
        nrp = max(max(ba * (25 - a), ok_a * (ka - a + 1)),
                  max(bb * (25 - b), ok_b * (kb - b + 1)))
        hc = ((blots >> (24 - a - b)) & ((opn >> (24 - a)) | (opn >> (24 - b)))) & 1
        e = ((oblots >> (22 - a)) | (oblots >> (22 - b))) & hc
        nrc = max(nrc, hc) + e
        nrp = max(nrp, hc * (25 - a - b))
        npips += 2 * nrp
        n1 += 2 * np.int64(nrc > 0)
        n2 += 2 * np.int64(nrc > 1)
    for d in range(1, 7):
        h = hitters & (blots << d)
        bd = (h >> 24) & 1
        kd = _top(h & LOW24)
        ok = np.int64(kd >= 0) & (1 - ((omade >> (24 - 2 * d)) & 1))
        nrc = bd + ok
        nrp = max(bd * (25 - d), ok * (kd - d + 1))
        x2 = (blots >> (24 - 2 * d)) & (opn >> (24 - d)) & 1
        x3 = (blots >> (24 - 3 * d)) & (opn >> (24 - d)) & (opn >> (24 - 2 * d)) & 1
        x4 = ((blots >> (24 - 4 * d)) & (opn >> (24 - d)) & (opn >> (24 - 2 * d))
              & (opn >> (24 - 3 * d)) & 1)
        b1 = oblots >> (22 - d)
        b2 = b1 | (oblots >> (22 - 2 * d))
        b3 = b2 | (oblots >> (22 - 3 * d))
        e = (b1 & x2) + (b2 & x3) + (b3 & x4)
        nrc = max(nrc, x2 | x3 | x4) + e
        nrp = max(nrp, max(x2 * (25 - 2 * d), max(x3 * (25 - 3 * d), x4 * (25 - 4 * d))))
        npips += nrp
        n1 += np.int64(nrc > 0)
        n2 += np.int64(nrc > 1)
    return npips, n1, n2


if config.DISABLE_JIT:
    rolls_bar1_lanes = _rolls_bar1          # the loops: no intrinsics without the JIT


@njit(**INNER)
def _rolls_bar2(blots):
    """gnubg's roll loop with two or more of ours on the bar: single dice from the bar."""
    npips = 0
    n1 = 0
    n2 = 0
    for a in range(1, 6):
        ba = (blots >> (24 - a)) & 1
        for b in range(a + 1, 7):
            bb = (blots >> (24 - b)) & 1
            npips += 2 * max(ba * (25 - a), bb * (25 - b))
            n1 += 2 * (ba | bb)
            n2 += 2 * (ba & bb)
    for d in range(1, 7):
        bd = (blots >> (24 - d)) & 1
        npips += bd * (25 - d)
        n1 += bd
    return npips, n1, n2


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
    """:func:`_timing_sums` on one <32 x i32> vector of the points (lanes 25..31 zero),
    its six sums reduced. numba widens the loop to int64 (its second moment by int64
    multiplies, three micro-ops each on these hosts): 4-lane passes, here 2 registers."""
    if not (isinstance(board, types.Array) and board.ndim == 1 and board.dtype == types.int64
            and isinstance(nob, types.Integer) and isinstance(mean, types.Integer)):
        return None
    sig = types.UniTuple(types.int64, 6)(board, nob, mean)

    def codegen(context, builder, signature, args):
        i1, i32, i64 = ir.IntType(1), ir.IntType(32), ir.IntType(64)
        n = _TIMING_LANES
        iv = ir.VectorType(i32, n)
        arr = context.make_array(signature.args[0])(context, builder, args[0])
        reduce = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(i32, [iv]), f"llvm.vector.reduce.add.v{n}i32")

        def c(v):
            return ir.Constant(iv, v if isinstance(v, list) else [v] * n)

        def splat(x):
            v = builder.insert_element(ir.Constant(iv, ir.Undefined), x, ir.Constant(i32, 0))
            return builder.shuffle_vector(v, ir.Constant(iv, ir.Undefined), c(0))

        # the points: three 8-lane loads and the bar, narrowed to 32 bits
        v8 = ir.VectorType(i64, 8)
        stride = builder.extract_value(arr.strides, 0)
        parts = []
        if signature.args[0].layout == "C":
            for q in range(3):
                ptr = builder.gep(arr.data, [ir.Constant(i64, 8 * q)])
                parts.append(builder.trunc(builder.load(builder.bitcast(ptr, v8.as_pointer()),
                                                        align=8), ir.VectorType(i32, 8)))
            lanes = [24]
        else:
            lanes = list(range(25))
        last = ir.Constant(ir.VectorType(i32, 8), [0] * 8)
        pts = ir.Constant(iv, [0] * n) if lanes != [24] else None
        for k in lanes:
            addr = builder.add(builder.ptrtoint(arr.data, i64),
                               builder.mul(stride, ir.Constant(i64, k)))
            x = builder.trunc(builder.load(builder.inttoptr(addr, i64.as_pointer())), i32)
            if pts is None:
                last = builder.insert_element(last, x, ir.Constant(i32, 0))
            else:
                pts = builder.insert_element(pts, x, ir.Constant(i32, k))
        if pts is None:
            i8x16 = ir.Constant(ir.VectorType(i32, 16), list(range(16)))
            lo = builder.shuffle_vector(parts[0], parts[1], i8x16)
            hi = builder.shuffle_vector(parts[2], last, i8x16)
            b = builder.shuffle_vector(lo, hi, c(list(range(32))))
        else:
            b = pts
        nob_v = splat(builder.trunc(context.cast(builder, args[1], signature.args[1],
                                                 types.int64), i32))
        mean_v = splat(builder.trunc(context.cast(builder, args[2], signature.args[2],
                                                  types.int64), i32))
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


@njit(**INNER)
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
        _men_off3(CHECKERS - theirs_summary[4], inp, o + I_OFF1)
    else:
        _men_off5(CHECKERS - tot, inp, o + I_OFF1)
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


@njit(**HOT)
def contact_inputs(gb, inp, nz, contact250):
    """All 250 inputs of the contact / crashed nets ("std250", or "contact250" when
    ``contact250``: each side's borne-off count overwritten on gnubg's smaller scale);
    returns the number of non-zero inputs, listed in
    increasing order in nz.

    One call for the whole contact input (few arrays passed: numba counts references
    for each) and the non-zero half inputs listed without a branch per input: 0.29 us a
    contact position, against 0.44 us for the composition it replaced (base_inputs, two
    half_inputs, the men-off inputs, a branch per half input), one thread.
    """
    c = base_inputs(gb, inp, nz)
    s0 = _side_summary(gb[0])
    s1 = _side_summary(gb[1])
    _half_from(gb[1], s1, s0, inp, np.int64(BASE_INPUTS), contact250)
    _half_from(gb[0], s0, s1, inp, BASE_INPUTS + MORE_INPUTS, contact250)
    u = np.uint64(c)
    for i in range(BASE_INPUTS, BASE_INPUTS + 2 * MORE_INPUTS):
        nz[u] = i
        u += np.uint64(inp[i] != 0.0)
    return np.int64(u)


@njit(**HOT)
def contact_features(gb, inp, nz, contact250):
    """The 50 hand-made inputs of :func:`contact_inputs` at inp[200:250] (the base inputs
    are left as they were: :func:`base_adds` lists their rows instead); returns the number
    of non-zero ones, listed in input order in nz: the input's index where it is
    multiplied, its product row (>= 250, :func:`extended_weights`) where it has one."""
    return contact_features_from(gb, _side_summary(gb[0]), _side_summary(gb[1]), inp, nz,
                                 contact250)


@njit(**HOT)
def contact_features_from(gb, s0, s1, inp, nz, contact250):
    """:func:`contact_features` given the sides' :func:`_side_summary` ``s0``, ``s1``
    (rows 0 and 1 of ``gb``), as :func:`board_and_summaries` makes them."""
    _half_from(gb[1], s1, s0, inp, np.int64(BASE_INPUTS), contact250)
    _half_from(gb[0], s0, s1, inp, BASE_INPUTS + MORE_INPUTS, contact250)
    return feature_entries(inp, nz, contact250)


# Lanes of :func:`board_and_summaries`: an interchange board's 26 bytes, and 6 empty.
_BOARD_LANES = 32


@intrinsic
def _board_and_summaries_intrinsic(typingctx, rows, i, swapped, gb):
    """gnubg's board of interchange row rows[i] into gb (row 1 the side on roll, or row 0
    with ``swapped``; as :func:`fastbg.evaluators.net_kernels.to_gnubg`) and both rows'
    :func:`_side_summary`, from one masked 32-byte load: each side's points as <32 x i8>
    lanes (the mover's shifted down a place, the other's reversed and negated), stored
    widened by masked stores, their bitmasks by compares and their sums by reductions."""
    if not (isinstance(rows, types.Array) and rows.ndim == 2 and rows.layout == "C"
            and rows.dtype == types.int8 and isinstance(i, types.Integer)
            and isinstance(swapped, types.Boolean) and isinstance(gb, types.Array)
            and gb.ndim == 2 and gb.layout == "C" and gb.dtype == types.int64):
        return None
    sig = types.UniTuple(types.UniTuple(types.int64, 7), 2)(rows, i, swapped, gb)

    def codegen(context, builder, signature, args):
        rows_ty, i_ty, sw_ty, gb_ty = signature.args
        i1, i8, i16, i32, i64 = (ir.IntType(n) for n in (1, 8, 16, 32, 64))
        n = _BOARD_LANES
        bv, mv = ir.VectorType(i8, n), ir.VectorType(i1, n)
        hv, lv = ir.VectorType(i16, n), ir.VectorType(i64, n)
        rows_arr = context.make_array(rows_ty)(context, builder, args[0])
        gb_arr = context.make_array(gb_ty)(context, builder, args[3])
        r = context.cast(builder, args[1], i_ty, types.intp)
        src = cgutils.get_item_pointer(context, builder, rows_ty, rows_arr,
                                       [r, context.get_constant(types.intp, 0)])
        sw = context.cast(builder, args[2], sw_ty, types.boolean)
        sw = builder.trunc(sw, i1) if sw.type != i1 else sw

        def fn(name, ret, params):
            return cgutils.get_or_insert_function(builder.module, ir.FunctionType(ret, params),
                                                  name)
        load = fn("llvm.masked.load.v32i8.p0", bv, [bv.as_pointer(), i32, mv, bv])
        store = fn("llvm.masked.store.v32i64.p0", ir.VoidType(),
                   [lv, lv.as_pointer(), i32, mv])
        red8 = fn("llvm.vector.reduce.add.v32i8", i8, [bv])
        red16 = fn("llvm.vector.reduce.add.v32i16", i16, [hv])

        def idx(v):
            return ir.Constant(ir.VectorType(i32, n), v)
        zero = ir.Constant(bv, [0] * n)
        x = builder.call(load, [builder.bitcast(src, bv.as_pointer()), ir.Constant(i32, 1),
                                ir.Constant(mv, [k < BOARD_SIZE for k in range(n)]), zero])
        # the mover's points 0..24 are row entries 1..25; the other's point j is -b[24 - j]
        mover = builder.shuffle_vector(x, zero, idx([k + 1 if k < 25 else n for k in range(n)]))
        other = builder.shuffle_vector(builder.sub(zero, x), zero,
                                       idx([24 - k if k < 25 else n for k in range(n)]))

        def positive(v):
            return builder.select(builder.icmp_signed(">", v, zero), v, zero)
        mover, other = positive(mover), positive(other)
        row0 = builder.select(sw, mover, other)
        row1 = builder.select(sw, other, mover)
        keep = ir.Constant(mv, [k < 25 for k in range(n)])
        out = []
        for q, v in enumerate((row0, row1)):
            dst = builder.gep(gb_arr.data, [ir.Constant(i64, 25 * q)])
            builder.call(store, [builder.sext(v, lv), builder.bitcast(dst, lv.as_pointer()),
                                 ir.Constant(i32, 8), keep])

            def bits(cond):
                return builder.zext(builder.bitcast(cond, i32), i64)
            occ = bits(builder.icmp_signed(">", v, zero))
            made = bits(builder.icmp_signed(">", v, ir.Constant(bv, [1] * n)))
            one = bits(builder.icmp_signed("==", v, ir.Constant(bv, [1] * n)))
            two = bits(builder.icmp_signed("==", v, ir.Constant(bv, [2] * n)))
            tot = builder.sext(builder.call(red8, [v]), i64)
            isum = builder.sext(builder.call(red16, [builder.mul(
                builder.zext(v, hv), ir.Constant(hv, list(range(n))))]), i64)
            home = ir.Constant(mv, [18 <= k < 24 for k in range(n)])
            n_bc = builder.sext(builder.call(red8, [builder.select(home, v, zero)]), i64)
            out.append(context.make_tuple(builder, signature.return_type.types[q],
                                          [occ, made, one, two, tot, isum, n_bc]))
        return context.make_tuple(builder, signature.return_type, out)

    return sig, codegen




@njit(**INNER)
def _men_off_contact(board, inp, o):
    """menOffNonCrashed: borne-off count on a scale for at most eight off."""
    m = CHECKERS
    for i in range(25):
        m -= board[i]
    _men_off3(m, inp, o)


@njit(**HOT)
def race_inputs(gb, inp, nz):
    """gnubg's CalculateRaceInputs: 107 per side (row 0 first). Returns the number of
    non-zero inputs, listed in increasing order in nz. (Encodings copied from tables.)"""
    c = np.uint64(0)
    for s in range(2):
        o = s * RACE_HALF
        men_off = CHECKERS
        cross = 0
        for i in range(23):
            nc = gb[s, i]
            men_off -= nc
            cross += nc * (i // 6)        # 1 for points 6..11, 2 for 12..17, 3 for 18..22
            _copy4(inp, o + 4 * i, POINT_ENC, nc)
        for i in range(23):
            c = _point_nonzero_u(gb[s, i], o + 4 * i, nz, c)
        _copy14(inp, o + RI_OFF, RACE_OFF_ENC, men_off)
        nz[c] = o + RI_OFF + men_off - 1
        c += np.uint64((men_off >= 1) & (men_off <= 14))
        cross += 3 * gb[s, 23]
        inp[o + RI_NCROSS] = cross / 10.0
        nz[c] = o + RI_NCROSS
        c += np.uint64(cross != 0)
    return np.int64(c)
