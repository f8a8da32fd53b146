"""Kernel: the hidden sums without multiplies: a net's extended weights and the rows of
them a position adds.

An input of 1 adds its weight row to the hidden sums; an input with few values (a point's
(n - 3) / 2, the race's crossings / 10, most hand-made features) adds a product row that
:func:`extended_weights` computes once, when the weights are loaded. :func:`base_adds`,
:func:`race_adds` and :func:`feature_entries` list the rows a position adds (the section
comment below has the details); the batch kernel (:mod:`fastbg.evaluators.net_kernels`)
sums them.
"""
from typing import NamedTuple

import numpy as np
from llvmlite import ir
from numba import config, njit, types
from numba.core.extending import intrinsic

from fastbg.constants import CHECKERS
from fastbg.evaluators.cpu_variants import FEATURE_PRODUCTS, POINT_ADDS, compress_store
from fastbg.evaluators.input_tables import (
    BASE_INPUTS, INV_6, INV_24, INV_36, I_ACONTAIN, I_ACONTAIN2, I_BACK_ANCHOR,
    I_BACK_CHEQUER, I_BACKESCAPES, I_BACKG, I_BACKG1, I_BACKRESCAPES, I_CONTAIN, I_CONTAIN2,
    I_ENTER2, I_FORWARD_ANCHOR, I_OFF1, I_OFF2, I_OFF3, I_P1, I_P2, LOW24, MORE_INPUTS,
    NZ_COUNT, NZ_FIRST, POINT_ENC, RACE_HALF, RI_NCROSS, RI_OFF)
from fastbg.evaluators.input_bit_kernels import _low
from fastbg.jit import HOT, INLINED, INNER


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
# before every feature in gnubg's order, and the features' list keeps theirs. Without
# AVX-512 no feature has product rows (:data:`LAYOUT`; measured in
# :mod:`fastbg.evaluators.cpu_variants`): the weights are then about half the size.
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
FEATURE_PRODUCT_CODES = {
    I_OFF1: (16, None, 0, 0), I_OFF2: (16, None, 0, 0), I_OFF3: (16, None, 0, 0),
    I_BACK_CHEQUER: (25, 24, 0, 0), I_BACK_ANCHOR: (26, 24, 1, 0),
    I_FORWARD_ANCHOR: (25, 6, 0, 0), I_P1: (37, 36, 0, 0), I_P2: (37, 36, 0, 0),
    I_BACKESCAPES: (37, 36, 0, 0), I_ACONTAIN: (37, 36, 0, 0), I_ACONTAIN2: (37, 36, 0, 1),
    I_CONTAIN: (37, 36, 0, 0), I_CONTAIN2: (37, 36, 0, 1), I_ENTER2: (37, 36, 0, 0),
    I_BACKG: (16, 4, 0, 0), I_BACKG1: (16, 8, 0, 0), I_BACKRESCAPES: (37, 36, 0, 0)}
MAX_ADDS = 128                                        # adds of a position: at most 104


class FeatureLayout(NamedTuple):
    """Which features have product rows in a net's extended weights, and where.

    ``codes``: feature -> (codes, scale, offset, source), as :data:`FEATURE_PRODUCT_CODES`
    (empty: every feature multiplied); per feature input j (0..49, input 200 + j):
    ``row`` its first product row (-1: multiplied), ``src`` the input its code is read
    from (relative), ``scale`` its scale by contact250 (2, 50) and ``offset``;
    ``weight_rows`` the extended weights' rows."""
    codes: dict
    row: np.ndarray
    src: np.ndarray
    scale: np.ndarray
    offset: np.ndarray
    weight_rows: int


def feature_layout(codes):
    """The :class:`FeatureLayout` giving product rows to the features of ``codes``."""
    row = np.full(2 * MORE_INPUTS, -1, np.int64)
    src = np.zeros(2 * MORE_INPUTS, np.int64)
    scale = np.zeros((2, 2 * MORE_INPUTS), np.float32)
    offset = np.zeros(2 * MORE_INPUTS, np.float32)
    r = FEATURE_ROW0
    for half in range(2):
        for f, (n_codes, sc, off, back) in codes.items():
            j = MORE_INPUTS * half + f
            row[j] = r
            src[j] = -back
            scale[:, j] = (5, 3) if sc is None else (sc, sc)
            offset[j] = off + 0.5
            r += n_codes
    return FeatureLayout(dict(codes), row, src, scale, offset, r)


#: Both layouts: the features' product rows (:data:`FEATURE_PRODUCT_CODES`), and none.
PRODUCTS_LAYOUT = feature_layout(FEATURE_PRODUCT_CODES)
MULTIPLIED_LAYOUT = feature_layout({})
#: The layout compiled here (:data:`fastbg.evaluators.cpu_variants.FEATURE_PRODUCTS`).
LAYOUT = PRODUCTS_LAYOUT if FEATURE_PRODUCTS else MULTIPLIED_LAYOUT
FEATURE_CODES, FEATURE_ROW, FEATURE_SRC = LAYOUT.codes, LAYOUT.row, LAYOUT.src
FEATURE_SCALE, FEATURE_OFFSET = LAYOUT.scale, LAYOUT.offset
WEIGHT_ROWS = LAYOUT.weight_rows                      # rows of a net's extended weights


# The features' list in four 16-lane chunks (the last one overlaps the third: its first 14
# lanes are left out), so that every load stays inside the 250 inputs.
_CHUNKS = ((0, 0), (16, 0), (32, 0), (34, 14))      # (first feature, first lane kept)
FEATURE_LANES = 16


def _make_feature_entries(variant=None, layout=None):
    """The intrinsic ``entries(inp, nz, contact250) -> n`` of :func:`feature_entries`: per
    16-lane chunk of the 50 features, each entry computed as the scalar loop does (the
    code's float32 multiply and add, then the conversion), the non-zero features' entries
    packed into nz by one compressing store (:func:`compress_store`, the CPU's
    ``variant``) and counted: no loop over features, no branch. ``layout``: the
    :class:`FeatureLayout` (default :data:`LAYOUT`)."""
    lay = layout or LAYOUT

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
            i1, i32, i64 = (ir.IntType(n) for n in (1, 32, 64))
            f32 = ir.FloatType()
            fv, iv, lv, bv = (ir.VectorType(t, lanes) for t in (f32, i32, i64, i1))
            u = ir.Constant(i64, 0)
            for first, keep_from in _CHUNKS:
                js = [first + q for q in range(lanes)]
                start = BASE_INPUTS + first

                def load(offset):
                    ptr = builder.gep(inp_arr.data, [ir.Constant(i64, start + offset)])
                    return builder.load(builder.bitcast(ptr, fv.as_pointer()), align=4)
                x = load(0)
                xs = builder.select(ir.Constant(bv, [int(lay.src[j] != 0) for j in js]),
                                    load(-1), x)
                scale = builder.select(
                    flag, ir.Constant(fv, [float(lay.scale[1, j]) for j in js]),
                    ir.Constant(fv, [float(lay.scale[0, j]) for j in js]))
                v = builder.fadd(builder.fmul(xs, scale),
                                 ir.Constant(fv, [float(lay.offset[j]) for j in js]))
                code = builder.fptosi(v, iv)
                rows = [int(lay.row[j]) for j in js]
                entry = builder.select(ir.Constant(bv, [int(r >= 0) for r in rows]),
                                       builder.add(ir.Constant(iv, [max(r, 0) for r in rows]),
                                                   code),
                                       ir.Constant(iv, [BASE_INPUTS + j for j in js]))
                mask = builder.fcmp_unordered("!=", x, ir.Constant(fv, [0.0] * lanes))
                mask = builder.and_(mask, ir.Constant(bv, [int(q >= keep_from)
                                                           for q in range(lanes)]))
                n = compress_store(builder, builder.sext(entry, lv),
                                   builder.gep(nz_arr.data, [u]), mask, variant)
                u = builder.add(u, n)
            return u

        return sig, codegen

    return entries


def feature_entries_loop(inp, nz, contact250, layout=None):
    """:func:`contact_features`' list: the non-zero features of inp[200:250] in input
    order, each as its index (multiplied) or its product row (added, by ``layout``,
    default :data:`LAYOUT`); returns how many. The loop the vector code replaces: its
    reference, and the code without the JIT."""
    lay = layout or LAYOUT
    u = 0
    scale = lay.scale[int(contact250)]
    for j in range(2 * MORE_INPUTS):
        i = BASE_INPUTS + j
        code = int(np.float32(np.float32(inp[i + lay.src[j]] * scale[j]) + lay.offset[j]))
        r = lay.row[j]
        if inp[i] != 0.0:
            nz[u] = i if r < 0 else r + code
            u += 1
    return u


if config.DISABLE_JIT:
    feature_entries = feature_entries_loop
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


def extended_weights(w, race, contact250=False, layout=None):
    """The extended input weights (WEIGHT_ROWS, H) float32 of a net's input weights ``w``
    (inputs, H): its own rows, then each point's (n - 3) / 2 input times its row for n =
    4..15 (rows :func:`_product_row`), then for the race net each side's crossings / 10
    times that input's row (row CROSS_ROW0 + 46 side + crossings), else each feature of
    the ``layout``'s codes (default :data:`LAYOUT`) times its row for every code (rows
    row[j] + code; the borne-off features on the contact250 scale with ``contact250``;
    the layout's weight_rows rows in all). The same float32 multiply as the kernels'
    (numpy rounds a float32 product the same way)."""
    lay = layout or LAYOUT
    w = np.asarray(w, np.float32)
    out = np.zeros((lay.weight_rows, w.shape[1]), np.float32)
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
        for j in np.flatnonzero(lay.row >= 0):
            f = j % MORE_INPUTS
            for code in range(lay.codes[f][0]):
                out[lay.row[j] + code] = w[BASE_INPUTS + j] * feature_value(f, code,
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


def _make_point_adds(variant=None):
    """The intrinsic ``point_adds(gb, s, adds, c) -> c`` of :func:`point_adds_lanes`, with
    the compressing store of ``variant`` (:func:`compress_store`)."""
    @intrinsic
    def point_adds(typingctx, gb, s, adds, c):
        return _point_adds_typed(gb, s, adds, c, variant)
    return point_adds


def _point_adds_typed(gb, s, adds, c, variant):
    """:func:`_point_adds` as three chunks of 8 points: each point's two rows computed
    in vector lanes, interleaved, and the ones its count keeps packed into adds by one
    compressing store (:func:`compress_store`), counted: no loop, no table, no chain
    through the count from point to point. Returns (signature, codegen) or None."""
    if not (isinstance(gb, types.Array) and gb.ndim == 2 and gb.layout == "C"
            and gb.dtype == types.int64 and isinstance(adds, types.Array) and adds.ndim == 1
            and adds.layout == "C" and adds.dtype == types.int64
            and isinstance(s, types.Integer) and isinstance(c, types.Integer)):
        return None
    sig = types.uint64(gb, s, adds, c)

    def codegen(context, builder, signature, args):
        gb_arr = context.make_array(signature.args[0])(context, builder, args[0])
        add_arr = context.make_array(signature.args[2])(context, builder, args[2])
        i64 = ir.IntType(64)
        n = _POINT_CHUNK
        v8 = ir.VectorType(i64, n)
        side = context.cast(builder, args[1], signature.args[1], types.int64)
        u = context.cast(builder, args[3], signature.args[3], types.int64)

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
            u = builder.add(u, compress_store(builder, rows, builder.gep(add_arr.data, [u]),
                                              mask, variant))
        return u

    return sig, codegen


if config.DISABLE_JIT:
    point_adds_lanes = _point_adds          # the loop: no intrinsics without the JIT
else:
    point_adds_lanes = _make_point_adds()
# A constant of the compiled code, fixed by the CPU features (part of numba's cache key).
_POINT_ADDS_BY_LANES = POINT_ADDS == "lanes"


@njit(**INNER)
def _point_adds_occupied(gb, s, occ, adds, c):
    """:func:`_point_adds` from the side's occupied points ``occ`` (bit i set where its
    point i holds checkers; bit 24, the bar, is left out): a pass over those points alone,
    about eight, instead of all 24 (the ``"occupied-bits"`` variant of
    :data:`fastbg.evaluators.cpu_variants.POINT_ADDS`)."""
    o = s * 100
    m = occ & LOW24
    while m:
        i = _low(m)
        m &= m - 1
        nc = gb[s, i]
        adds[c] = o + 4 * i + NZ_FIRST[nc]
        adds[c + np.uint64(1)] = PRODUCT_ROW0 + N_COUNTS * (25 * s + i) + nc
        c += np.uint64(1) + np.uint64(nc > 3)
    return c


@njit(**HOT)
def base_adds(gb, occ0, occ1, adds):
    """The extended weight rows (:func:`extended_weights`) that :func:`base_inputs`'s
    non-zero inputs add, in input order, into ``adds``; returns how many. ``occ0``,
    ``occ1``: the occupied points of gb's rows 0 and 1 as bitmasks (the first item of
    their :func:`fastbg.evaluators.input_bit_kernels._side_summary`). The points by
    vector lanes (:func:`point_adds_lanes`: 40 -> 22-25 ns a contact position on Zen 4)
    with AVX-512, else by their occupied points (:func:`_point_adds_occupied`; the
    choice: :data:`fastbg.evaluators.cpu_variants.POINT_ADDS`)."""
    c = np.uint64(0)
    for s in range(2):
        o = s * 100
        if _POINT_ADDS_BY_LANES:
            c = point_adds_lanes(gb, s, adds, c)
        else:
            c = _point_adds_occupied(gb, s, occ0 if s == 0 else occ1, adds, c)
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
    10: no multiply at all); returns how many. The batch kernel runs
    :func:`race_adds_occupied`, the same rows; this is its reference."""
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
        c = _race_side_tail(gb, s, men_off, cross, adds, c)
    return np.int64(c)


@njit(**dict(HOT, forceinline=True))
def race_adds_occupied(gb, occ0, occ1, adds):
    """:func:`race_adds` from the sides' occupied points ``occ0``, ``occ1`` (bitmasks of
    gb's rows 0 and 1, as :func:`fastbg.evaluators.input_bit_kernels._side_summary` makes
    them): a pass over the occupied points 0..22 alone, about six a side in a race,
    instead of all 23 (an empty point adds no row and no crossing)."""
    c = np.uint64(0)
    for s in range(2):
        o = s * RACE_HALF
        on = 0
        cross = 0
        m = (occ0 if s == 0 else occ1) & LOW23
        while m:
            i = _low(m)
            m &= m - 1
            nc = gb[s, i]
            on += nc
            cross += nc * (i // 6)
            adds[c] = o + 4 * i + NZ_FIRST[nc]
            adds[c + np.uint64(1)] = PRODUCT_ROW0 + N_COUNTS * (25 * s + i) + nc
            c += NZ_COUNT[nc]
        c = _race_side_tail(gb, s, CHECKERS - on, cross, adds, c)
    return np.int64(c)


LOW23 = (1 << 23) - 1                                  # the race inputs' points 0..22


@njit(**INLINED)
def _race_side_tail(gb, s, men_off, cross, adds, c):
    """The rows that end side ``s``'s race inputs at adds[c:]: its borne-off count's
    (one of 14, none for 0 or 15 off) and its crossings' product row (``cross``, the
    crossings of points 0..22, plus three a checker on point 23); returns the new c."""
    o = s * RACE_HALF
    adds[c] = o + RI_OFF + men_off - 1
    c += np.uint64((men_off >= 1) & (men_off <= 14))
    cross += 3 * gb[s, 23]
    adds[c] = CROSS_ROW0 + (MAX_CROSSINGS + 1) * s + cross
    return c + np.uint64(cross != 0)
