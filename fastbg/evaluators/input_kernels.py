"""GNU Backgammon's network inputs: each net's inputs from a board.

:func:`base_inputs` (the 200 point encodings), :func:`contact_inputs` and
:func:`contact_features` (the contact and crashed nets' 250), :func:`race_inputs` (the race
net's 214), and the batch kernel's load of a board and its sides' summaries
(``_board_and_summaries_intrinsic``). They are built on the modules of their parts: the
layout and tables (:mod:`fastbg.evaluators.input_tables`), bit helpers
(:mod:`fastbg.evaluators.input_bit_kernels`), the pip loss
(:mod:`fastbg.evaluators.pip_loss_kernels`), the hand-made features
(:mod:`fastbg.evaluators.feature_kernels`) and the rows of the extended weights
(:mod:`fastbg.evaluators.add_row_kernels`).

Split from :mod:`fastbg.evaluators.net_kernels` (which dispatches on the position class and runs
the networks) so that the input code, the bulk of an evaluation's time, sits on its own.
Everything works on gnubg's board ``gb`` int64[2, 25] (row 1 the side on roll, row 0 the
other, each in its own numbering, index 24 the bar). Inputs are float32 in gnubg's order;
functions that fill them also list the non-zero ones (indices in increasing order), which
is all the hidden layer reads.
"""
import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.core.extending import intrinsic

from fastbg.constants import BOARD_SIZE, CHECKERS
from fastbg.evaluators.add_row_kernels import feature_entries
from fastbg.evaluators.feature_kernels import _half_from
from fastbg.evaluators.input_bit_kernels import _copy4, _copy14, _side_summary
from fastbg.evaluators.input_tables import (BAR_ENC, BASE_INPUTS, MORE_INPUTS, NZ_COUNT,
                                            NZ_FIRST, POINT_ENC, RACE_HALF, RACE_OFF_ENC,
                                            RI_NCROSS, RI_OFF)
from fastbg.jit import HOT, INNER
# Named here too: the tests compare this module with the reference inputs
# (tests/reference/gnubginputs_ref.py) function by function, and tools call them by name.
from fastbg.evaluators.feature_kernels import _men_off_contact, half_inputs  # noqa: F401
from fastbg.evaluators.input_bit_kernels import made_mask  # noqa: F401
from fastbg.evaluators.pip_loss_kernels import pip_loss  # noqa: F401


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
    # one call site in a loop, not two calls: :func:`_half_from` is compiled into its
    # caller (fastbg.jit.INLINED), and two sites would compile two copies of it
    for half in range(2):
        side = 1 - half
        _half_from(gb[side], s1 if side else s0, s0 if side else s1, inp,
                   np.int64(BASE_INPUTS + half * MORE_INPUTS), contact250)
    return feature_entries(inp, nz, contact250)


# Lanes of :func:`board_and_summaries`: an interchange board's 26 bytes, and 6 empty.
_BOARD_LANES = 32


@intrinsic
def _board_and_summaries_intrinsic(typingctx, rows, i, swapped, gb):
    """gnubg's board of interchange row rows[i] into gb (row 1 the side on roll, or row 0
    with ``swapped``; as :func:`fastbg.evaluators.gnubg_board_kernels.to_gnubg`) and both rows'
    :func:`_side_summary`, from the row's 26 bytes (two overlapping 16-byte loads): each
    side's points as <32 x i8> lanes (the mover's shifted down a place, the other's
    reversed and negated), stored widened (24 lanes and the bar), their bitmasks by
    compares and their sums by reductions."""
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
        red8 = fn("llvm.vector.reduce.add.v32i8", i8, [bv])
        red16 = fn("llvm.vector.reduce.add.v32i16", i16, [hv])

        def idx(v):
            return ir.Constant(ir.VectorType(i32, n), v)
        zero = ir.Constant(bv, [0] * n)
        # the row's 26 bytes as two overlapping 16-byte loads (bytes 0..15 and 10..25),
        # joined: no read past the row (AVX2 has no byte-masked load; LLVM's masked load
        # of bytes became a byte insert a lane there); lanes 26.. are never used
        b16 = ir.VectorType(i8, 16)
        head = builder.load(builder.bitcast(src, b16.as_pointer()), align=1)
        tail = builder.load(builder.bitcast(builder.gep(src, [ir.Constant(i64, BOARD_SIZE - 16)]),
                                            b16.as_pointer()), align=1)
        x = builder.shuffle_vector(head, tail, idx([k if k < 16 else
                                                    16 + k - (BOARD_SIZE - 16) if k < BOARD_SIZE
                                                    else 0 for k in range(n)]))
        # the mover's points 0..24 are row entries 1..25; the other's point j is -b[24 - j]
        mover = builder.shuffle_vector(x, zero, idx([k + 1 if k < 25 else n for k in range(n)]))
        other = builder.shuffle_vector(builder.sub(zero, x), zero,
                                       idx([24 - k if k < 25 else n for k in range(n)]))

        def positive(v):
            return builder.select(builder.icmp_signed(">", v, zero), v, zero)
        mover, other = positive(mover), positive(other)
        row0 = builder.select(sw, mover, other)
        row1 = builder.select(sw, other, mover)
        idx24 = ir.Constant(ir.VectorType(i32, 24), list(range(24)))
        out = []
        for q, v in enumerate((row0, row1)):
            # points 0..23 by one plain store of 24 lanes, the bar alone (a masked store
            # of the 25 is vpmaskmovq on AVX2 hosts, microcoded on AMD Zen 3)
            dst = builder.gep(gb_arr.data, [ir.Constant(i64, 25 * q)])
            wide = builder.sext(v, lv)
            v24 = ir.VectorType(i64, 24)
            builder.store(builder.shuffle_vector(wide, wide, idx24),
                          builder.bitcast(dst, v24.as_pointer()), align=8)
            builder.store(builder.extract_element(wide, ir.Constant(i32, 24)),
                          builder.gep(dst, [ir.Constant(i64, 24)]), align=8)

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
