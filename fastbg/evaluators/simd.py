"""Vector code for the networks' hidden layer, written as LLVM vector operations.

numba's loop ``hidden[j] += row[j] * x`` re-loads and re-stores the 128 hidden sums for every
non-zero input (LLVM cannot keep an array in registers across the outer loop). Here the 128
sums live in eight 16-lane float32 vectors for the whole pass, so each non-zero input costs
eight vector loads of its weight row, eight multiplies and eight adds. The arithmetic per
hidden unit is the same (bias, then ``+ w * x`` input by input, multiply and add rounded
separately), so the sums are bit for bit those of the plain loop
(:func:`hidden_sums_reference`, compared in the tests). On the contact positions of the
benchmark: 0.56 -> 0.10 us a position (measured, one thread).

Under ``NUMBA_DISABLE_JIT=1`` (a test mode) the plain loop is used.
"""
import numpy as np
from llvmlite import ir
from numba import config, njit, types
from numba.core import cgutils
from numba.core.extending import intrinsic

from fastbg.evaluators.cpu_variants import HAS_AVX512, HIDDEN_PASSES
from fastbg.jit import HOT

LANES = 16                 # float32 lanes of one vector (512 bits; AVX2 splits it in two)
FAST_HIDDEN = 128          # hidden units of the vector path: every gnubg net has 128
N_VEC = FAST_HIDDEN // LANES


def _hidden_sums_intrinsic(n_vec, adds=False, passes=1):
    """The intrinsic ``(w, b, inp, nz, n, out)``: out[:16 n_vec] = b + the sum over q < n of
    w[nz[q]] * inp[nz[q]] (input order, per lane), the sums held in n_vec vectors, in
    ``passes`` passes over the rows (each for n_vec / passes of the vectors).

    With ``adds`` the intrinsic ``(w, b, adds, n_adds, inp, nz, n, out)``: first the rows
    w[adds[q]] for q < n_adds are added as they are (inputs of 1, or products computed
    beforehand: :func:`fastbg.evaluators.add_row_kernels.extended_weights`), then the
    entries of nz[:n] in turn: an input's product as above, or for an entry past the
    inputs (>= len(inp)) the row w[entry] as it is: 8 vector operations instead of 16."""
    if passes < 1 or n_vec % passes:
        raise ValueError(f"{n_vec} vectors do not split into {passes} passes")

    def typed(sig_args):
        """The signature for these argument types, or None."""
        def vec(a, dtype):
            return (isinstance(a, types.Array) and a.ndim == 1 and a.layout == "C"
                    and a.dtype == dtype)
        if adds:
            w, b, add_rows, n_adds, inp, nz, n, out = sig_args
            if not (vec(add_rows, types.int64) and isinstance(n_adds, types.Integer)):
                return None
        else:
            w, b, inp, nz, n, out = sig_args
        if not (isinstance(w, types.Array) and w.ndim == 2 and w.layout == "C"
                and w.dtype == types.float32 and vec(b, types.float32)
                and vec(inp, types.float32) and vec(nz, types.int64) and vec(out, types.float32)
                and isinstance(n, types.Integer)):
            return None
        return types.void(*sig_args)

    def codegen(context, builder, signature, args):
        if adds:
            w_ty, b_ty, a_ty, na_ty, inp_ty, nz_ty, n_ty, out_ty = signature.args
            w_a, b_a, a_a, na_a, inp_a, nz_a, n_a, out_a = args
        else:
            w_ty, b_ty, inp_ty, nz_ty, n_ty, out_ty = signature.args
            w_a, b_a, inp_a, nz_a, n_a, out_a = args
        w_arr = context.make_array(w_ty)(context, builder, w_a)
        b_arr = context.make_array(b_ty)(context, builder, b_a)
        inp_arr = context.make_array(inp_ty)(context, builder, inp_a)
        nz_arr = context.make_array(nz_ty)(context, builder, nz_a)
        out_arr = context.make_array(out_ty)(context, builder, out_a)
        n_val = context.cast(builder, n_a, n_ty, types.intp)

        i64 = ir.IntType(64)
        i32 = ir.IntType(32)
        f32 = ir.FloatType()
        vty = ir.VectorType(f32, LANES)
        vptr = vty.as_pointer()
        bptr = ir.IntType(8).as_pointer()
        row_stride = cgutils.unpack_tuple(builder, w_arr.strides, 2)[0]   # bytes

        def vec_at(base, k):
            """Pointer to the k-th 16-float vector from float* ``base``."""
            return builder.bitcast(builder.gep(base, [ir.Constant(i64, k * LANES)]), vptr)

        zero_mask = ir.Constant(ir.VectorType(i32, LANES), [0] * LANES)
        w_bytes = builder.bitcast(w_arr.data, bptr)

        def row_of(i):
            return builder.bitcast(builder.gep(w_bytes, [builder.mul(i, row_stride)]),
                                   f32.as_pointer())

        def add_row(row, accs):
            for k, acc in accs:
                wv = builder.load(vec_at(row, k), align=4)
                builder.store(builder.fadd(builder.load(acc), wv), acc)

        def add_product(i, row, accs):
            x = builder.load(builder.gep(inp_arr.data, [i]))
            xv = builder.insert_element(ir.Constant(vty, ir.Undefined), x, ir.Constant(i32, 0))
            xv = builder.shuffle_vector(xv, ir.Constant(vty, ir.Undefined), zero_mask)
            for k, acc in accs:
                wv = builder.load(vec_at(row, k), align=4)
                builder.store(builder.fadd(builder.load(acc), builder.fmul(wv, xv)), acc)

        if adds:
            add_arr = context.make_array(a_ty)(context, builder, a_a)
            n_add_rows = context.cast(builder, na_a, na_ty, types.intp)
            n_inputs = cgutils.unpack_tuple(builder, inp_arr.shape, 1)[0]
        # One pass over the rows for each group of hidden units: a group's sums stay in
        # registers (AVX2 has 16 vector registers: the 16 halves of eight 16-lane sums
        # would fill them all and spill on every row). Each unit's sum is the same
        # sequence of operations whichever group it is in, so the bits do not change.
        per = n_vec // passes
        for first in range(0, n_vec, per):
            accs = [(k, cgutils.alloca_once(builder, vty)) for k in range(first, first + per)]
            for k, acc in accs:
                builder.store(builder.load(vec_at(b_arr.data, k), align=4), acc)
            if adds:
                with cgutils.for_range(builder, n_add_rows) as loop:
                    add_row(row_of(builder.load(builder.gep(add_arr.data, [loop.index]))),
                            accs)
            with cgutils.for_range(builder, n_val) as loop:
                i = builder.load(builder.gep(nz_arr.data, [loop.index]))
                row = row_of(i)
                if adds:
                    # an entry past the inputs: a product row, added as it is
                    with builder.if_else(builder.icmp_signed(">=", i, n_inputs)) as (past,
                                                                                    inside):
                        with past:
                            add_row(row, accs)
                        with inside:
                            add_product(i, row, accs)
                else:
                    add_product(i, row, accs)
            for k, acc in accs:
                builder.store(builder.load(acc), vec_at(out_arr.data, k), align=4)
        return context.get_dummy_value()

    if adds:
        @intrinsic
        def sums(typingctx, w, b, add_rows, n_adds, inp, nz, n, out):
            sig = typed((w, b, add_rows, n_adds, inp, nz, n, out))
            return None if sig is None else (sig, codegen)
    else:
        @intrinsic
        def sums(typingctx, w, b, inp, nz, n, out):
            sig = typed((w, b, inp, nz, n, out))
            return None if sig is None else (sig, codegen)
    return sums


_hidden_sums_128 = _hidden_sums_intrinsic(N_VEC, passes=HIDDEN_PASSES)
_hidden_sums_adds_128 = _hidden_sums_intrinsic(N_VEC, adds=True, passes=HIDDEN_PASSES)
_hidden_sums_16 = _hidden_sums_intrinsic(1)


def _outputs_intrinsic(n_vec, ordered=True):
    """The intrinsic ``(hidden, scale, table, lo, hi, wo, bias, out)`` of a net of 16 n_vec
    hidden units (``_outputs_128``: 128). ``ordered=False``: each vector's 16 products are
    summed pairwise (four vector adds) before they join the output's sum, not one by one
    in gnubg's order: the last bits differ, a chain of 16 dependent adds less (for the
    pruning nets, whose outputs only rank candidates)."""
    @intrinsic
    def outs(typingctx, hidden, scale, table, lo, hi, wo, bias, out):
        """The hidden units' sigmoids and the output sums of a 128-hidden net, as vectors.

        hidden f32[128] (the hidden sums) gets sigmoid(scale * h) (gnubg's table sigmoid, the
        float32 operations of :func:`fastbg.evaluators.net_tables.sigmoid`, without branches); out f32[5]
        gets each output's sum bias[o] + h_0 wo[o, 0] + h_1 wo[o, 1] + ..., added one by one
        in that order as gnubg does. The order matters beyond the last bit: gnubg's sigmoid
        table is linear between steps of 0.1 and jumps by up to 0.5% at each step, so an
        output sum rounded across a step moves a probability by up to 6e-4 (measured with a
        pairwise sum, which this replaced). The products and sigmoids are vectors; the five
        sums are five independent chains.
        """
        def vec(a, dtype):
            return (isinstance(a, types.Array) and a.ndim == 1 and a.layout == "C"
                    and a.dtype == dtype)
        if not (vec(hidden, types.float32) and vec(table, types.float32)
                and vec(out, types.float32) and vec(bias, types.float32)
                and isinstance(wo, types.Array) and wo.ndim == 2
                and wo.layout == "C" and wo.dtype == types.float32
                and scale == types.float32 and lo == types.float32 and hi == types.float32):
            return None
        sig = types.void(hidden, scale, table, lo, hi, wo, bias, out)

        def codegen(context, builder, signature, args):
            h_ty, _, t_ty, _, _, wo_ty, b_ty, out_ty = signature.args
            h_arr = context.make_array(h_ty)(context, builder, args[0])
            t_arr = context.make_array(t_ty)(context, builder, args[2])
            wo_arr = context.make_array(wo_ty)(context, builder, args[5])
            b_arr = context.make_array(b_ty)(context, builder, args[6])
            out_arr = context.make_array(out_ty)(context, builder, args[7])
            i64 = ir.IntType(64)
            i32 = ir.IntType(32)
            f32 = ir.FloatType()
            vty = ir.VectorType(f32, LANES)
            ivty = ir.VectorType(i32, LANES)
            vptr = vty.as_pointer()

            def splat(x):
                v = builder.insert_element(ir.Constant(vty, ir.Undefined), x, ir.Constant(i32, 0))
                return builder.shuffle_vector(v, ir.Constant(vty, ir.Undefined),
                                              ir.Constant(ivty, [0] * LANES))

            scale_v = splat(args[1])
            lo_v, hi_v = splat(args[3]), splat(args[4])
            row_stride = cgutils.unpack_tuple(builder, wo_arr.strides, 2)[0]
            wo_bytes = builder.bitcast(wo_arr.data, ir.IntType(8).as_pointer())
            rows = [builder.bitcast(builder.gep(wo_bytes, [builder.mul(ir.Constant(i64, o),
                                                                         row_stride)]),
                                    f32.as_pointer()) for o in range(5)]
            accs = [cgutils.alloca_once(builder, f32) for _ in range(5)]
            for o, acc in enumerate(accs):
                builder.store(builder.load(builder.gep(b_arr.data, [ir.Constant(i64, o)])), acc)
            # A loop over the eight vectors (the same operations in the same order as eight
            # copies of its body, an eighth of the code to compile).
            with cgutils.for_range(builder, ir.Constant(i64, n_vec)) as loop:
                first = builder.mul(loop.index, ir.Constant(i64, LANES))

                def vec_at(base):
                    return builder.bitcast(builder.gep(base, [first]), vptr)

                x = builder.fmul(scale_v, builder.load(vec_at(h_arr.data), align=4))
                v = _vector_sigmoid(builder, x, t_arr.data, lo_v, hi_v)
                builder.store(v, vec_at(h_arr.data), align=4)
                for o, acc in enumerate(accs):
                    p = builder.fmul(v, builder.load(vec_at(rows[o]), align=4))
                    total = builder.load(acc)
                    if ordered:
                        for lane in range(LANES):
                            total = builder.fadd(
                                total, builder.extract_element(p, ir.Constant(i32, lane)))
                    else:
                        total = builder.fadd(total, _lane_sum(builder, p))
                    builder.store(total, acc)
            for o in range(5):
                builder.store(builder.load(accs[o]), builder.gep(out_arr.data, [ir.Constant(i64, o)]))
            return context.get_dummy_value()

        return sig, codegen

    return outs


_outputs_128 = _outputs_intrinsic(N_VEC)
_outputs_16_pairwise = _outputs_intrinsic(1, ordered=False)


def _lane_sum(builder, v):
    """The sum of the 16 lanes of float32 vector ``v``, pairwise: lanes i and i + 8 first,
    then i and i + 4, i + 2, i + 1."""
    i32 = ir.IntType(32)
    width = LANES
    while width > 1:
        width //= 2
        mask = ir.Constant(ir.VectorType(i32, LANES),
                           [(k + width) % LANES for k in range(LANES)])
        v = builder.fadd(v, builder.shuffle_vector(v, ir.Constant(v.type, ir.Undefined), mask))
    return builder.extract_element(v, ir.Constant(i32, 0))


# AVX-512's two-source permutes, where numba compiles for a CPU that has them
# (fastbg.evaluators.cpu_variants: the choice is part of numba's cache key)
TABLE_BY_PERMUTES = HAS_AVX512
TABLE_PAD = 7 * LANES       # the sigmoid table padded for seven whole-vector loads


def _table_by_permutes(builder, table_data, idx):
    """table[idx] lane by lane, for 0 <= idx < 112 (the table padded to TABLE_PAD), from
    seven vectors of the table and four two-source permutes (AVX-512 vpermi2ps: each
    picks from 32 entries by the low five bits), the right one chosen by idx >> 5."""
    f32 = ir.FloatType()
    i32 = ir.IntType(32)
    vty = ir.VectorType(f32, LANES)
    ivty = ir.VectorType(i32, LANES)
    fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(vty, [vty, ivty, vty]),
                                        "llvm.x86.avx512.vpermi2var.ps.512")
    vecs = [builder.load(builder.bitcast(builder.gep(table_data, [ir.Constant(ir.IntType(64),
                                                                              k * LANES)]),
                                         vty.as_pointer()), align=4) for k in range(7)]
    parts = [builder.call(fn, [vecs[2 * k], idx, vecs[min(2 * k + 1, 6)]]) for k in range(4)]
    block = builder.ashr(idx, ir.Constant(ivty, [5] * LANES))
    e = parts[0]
    for k in range(1, 4):
        e = builder.select(builder.icmp_signed("==", block, ir.Constant(ivty, [k] * LANES)),
                           parts[k], e)
    return e


def _vector_sigmoid(builder, x, table_data, lo_v, hi_v):
    """gnubg's table sigmoid of a float32 vector ``x``, lane by lane as
    :func:`fastbg.evaluators.net_tables.sigmoid` (the table read by permutes on AVX-512
    hosts, :func:`_table_by_permutes`, which reads TABLE_PAD entries: every caller passes
    ``net_tables.SIG_E``, padded to that length; else lane by lane)."""
    i32 = ir.IntType(32)
    i64 = ir.IntType(64)
    f32 = ir.FloatType()
    vty = ir.VectorType(f32, LANES)
    ivty = ir.VectorType(i32, LANES)
    one = ir.Constant(vty, [1.0] * LANES)
    ten = ir.Constant(vty, [10.0] * LANES)
    zero = ir.Constant(vty, [0.0] * LANES)
    neg = builder.icmp_signed("<", builder.bitcast(x, ivty), ir.Constant(ivty, [0] * LANES))
    ax = builder.select(neg, builder.fneg(x), x)
    big = builder.fcmp_ordered(">=", ax, ten)
    x1 = builder.fmul(ten, builder.select(big, zero, ax))
    idx = builder.fptosi(x1, ivty)
    if TABLE_BY_PERMUTES:
        e = _table_by_permutes(builder, table_data, idx)
    else:
        e = ir.Constant(vty, ir.Undefined)
        for lane in range(LANES):
            li = builder.sext(builder.extract_element(idx, ir.Constant(i32, lane)), i64)
            e = builder.insert_element(e, builder.load(builder.gep(table_data, [li])),
                                       ir.Constant(i32, lane))
    ten_minus = builder.sitofp(builder.sub(ir.Constant(ivty, [10] * LANES), idx), vty)
    v = builder.fdiv(one, builder.fadd(one, builder.fmul(e, builder.fadd(ten_minus, x1))))
    v = builder.select(neg, builder.fsub(one, v), v)
    return builder.select(big, builder.select(neg, lo_v, hi_v), v)


def _splat(builder, x):
    i32 = ir.IntType(32)
    vty = ir.VectorType(x.type, LANES)
    v = builder.insert_element(ir.Constant(vty, ir.Undefined), x, ir.Constant(i32, 0))
    return builder.shuffle_vector(v, ir.Constant(vty, ir.Undefined),
                                  ir.Constant(ir.VectorType(i32, LANES), [0] * LANES))


@njit(**HOT)
def sigmoid_reference(x, table, lo, hi):
    """gnubg's table sigmoid of float32 ``x`` as the vector code computes it, lane by lane
    (the same value as :func:`fastbg.evaluators.net_tables.sigmoid`, without branches)."""
    ten = np.float32(10.0)
    one = np.float32(1.0)
    neg = np.signbit(x)
    ax = -x if neg else x
    big = ax >= ten
    x1 = ten * (np.float32(0.0) if big else ax)
    i = np.int64(x1)
    v = one / (one + table[i] * (np.float32(10 - i) + x1))
    v = (one - v) if neg else v
    return v if not big else (lo if neg else hi)


@njit(**HOT)
def outputs_reference(hidden, scale, table, lo, hi, wo, bias, out):
    """:func:`_outputs_128` as plain loops: the sigmoids, then each output's sum from its
    threshold, hidden unit by hidden unit."""
    nh = hidden.shape[0]
    for j in range(nh):
        hidden[j] = sigmoid_reference(scale * hidden[j], table, lo, hi)
    for o in range(wo.shape[0]):
        r = bias[o]
        for j in range(nh):
            r += hidden[j] * wo[o, j]
        out[o] = r


@intrinsic
def _sigmoid_rows(typingctx, a, scale, table, lo, hi):
    """a[r, :] = sigmoid(scale * a[r, :]) for every row of ``a`` (R, LANES): the output
    sigmoids of a block of positions, a vector per output."""
    if not (isinstance(a, types.Array) and a.ndim == 2 and a.layout == "C"
            and a.dtype == types.float32 and isinstance(table, types.Array)
            and table.ndim == 1 and table.layout == "C" and table.dtype == types.float32
            and scale == types.float32 and lo == types.float32 and hi == types.float32):
        return None
    sig = types.void(a, scale, table, lo, hi)

    def codegen(context, builder, signature, args):
        a_ty, _, t_ty, _, _ = signature.args
        a_arr = context.make_array(a_ty)(context, builder, args[0])
        t_arr = context.make_array(t_ty)(context, builder, args[2])
        vty = ir.VectorType(ir.FloatType(), LANES)
        scale_v = _splat(builder, args[1])
        lo_v, hi_v = _splat(builder, args[3]), _splat(builder, args[4])
        n_rows = cgutils.unpack_tuple(builder, a_arr.shape, 2)[0]
        row_stride = cgutils.unpack_tuple(builder, a_arr.strides, 2)[0]
        a_bytes = builder.bitcast(a_arr.data, ir.IntType(8).as_pointer())
        with cgutils.for_range(builder, n_rows) as loop:
            p = builder.bitcast(builder.gep(a_bytes, [builder.mul(loop.index, row_stride)]),
                                vty.as_pointer())
            v = builder.fmul(scale_v, builder.load(p, align=4))
            builder.store(_vector_sigmoid(builder, v, t_arr.data, lo_v, hi_v), p, align=4)
        return context.get_dummy_value()

    return sig, codegen


@njit(**HOT)
def sigmoid_rows_reference(a, scale, table, lo, hi):
    """:func:`_sigmoid_rows` as plain loops."""
    for r in range(a.shape[0]):
        for j in range(a.shape[1]):
            a[r, j] = sigmoid_reference(scale * a[r, j], table, lo, hi)


@intrinsic
def _sigmoids_to_row(typingctx, hidden, scale, table, lo, hi, hs, row):
    """hs[row, :128] = sigmoid(scale * hidden[:128]): one position's hidden units, stored
    as a row of the block ``hs`` (LANES, 128) with eight vector stores."""
    def vec(a, dtype):
        return (isinstance(a, types.Array) and a.ndim == 1 and a.layout == "C"
                and a.dtype == dtype)
    if not (vec(hidden, types.float32) and vec(table, types.float32)
            and isinstance(hs, types.Array) and hs.ndim == 2 and hs.layout == "C"
            and hs.dtype == types.float32 and isinstance(row, types.Integer)
            and scale == types.float32 and lo == types.float32 and hi == types.float32):
        return None
    sig = types.void(hidden, scale, table, lo, hi, hs, row)

    def codegen(context, builder, signature, args):
        h_ty, _, t_ty, _, _, hs_ty, row_ty = signature.args
        h_arr = context.make_array(h_ty)(context, builder, args[0])
        t_arr = context.make_array(t_ty)(context, builder, args[2])
        hs_arr = context.make_array(hs_ty)(context, builder, args[5])
        r = context.cast(builder, args[6], row_ty, types.intp)
        i64 = ir.IntType(64)
        vty = ir.VectorType(ir.FloatType(), LANES)
        scale_v = _splat(builder, args[1])
        lo_v, hi_v = _splat(builder, args[3]), _splat(builder, args[4])
        row_stride = cgutils.unpack_tuple(builder, hs_arr.strides, 2)[0]
        base = builder.bitcast(builder.gep(builder.bitcast(hs_arr.data, ir.IntType(8).as_pointer()),
                                           [builder.mul(r, row_stride)]),
                               ir.FloatType().as_pointer())
        with cgutils.for_range(builder, ir.Constant(i64, N_VEC)) as loop:
            first = builder.mul(loop.index, ir.Constant(i64, LANES))
            src = builder.bitcast(builder.gep(h_arr.data, [first]), vty.as_pointer())
            v = _vector_sigmoid(builder, builder.fmul(scale_v, builder.load(src, align=4)),
                                t_arr.data, lo_v, hi_v)
            dst = builder.bitcast(builder.gep(base, [first]), vty.as_pointer())
            builder.store(v, dst, align=4)
        return context.get_dummy_value()

    return sig, codegen


def _transpose16(builder, rows):
    """The 16 x 16 transpose of ``rows`` (16 vectors of 16 lanes): out[i][j] = rows[j][i],
    in four stages of two-vector shuffles (blocks of 8, 4, 2, 1 swapped)."""
    i32 = ir.IntType(32)
    r = list(rows)
    for s in (8, 4, 2, 1):
        lo = [lane if (lane & s) == 0 else LANES + lane - s for lane in range(LANES)]
        hi = [lane + s if (lane & s) == 0 else LANES + lane for lane in range(LANES)]
        new = list(r)
        for i in range(LANES):
            if i & s:
                continue
            a, b = r[i], r[i + s]
            new[i] = builder.shuffle_vector(a, b, ir.Constant(ir.VectorType(i32, LANES), lo))
            new[i + s] = builder.shuffle_vector(a, b,
                                                ir.Constant(ir.VectorType(i32, LANES), hi))
        r = new
    return r


@intrinsic
def _outputs_rows(typingctx, hs, wo, bias, out):
    """out[o, p] = bias[o] + hs[p, 0] wo[o, 0] + hs[p, 1] wo[o, 1] + ... for the LANES
    positions (rows) p of ``hs`` (LANES, 128): each position's sums in gnubg's order (unit
    by unit), the LANES positions side by side in the lanes of a vector, the block
    transposed 16 x 16 at a time in registers (against storing each position's units into
    the lanes one by one: 3% faster per candidate, A/B)."""
    def mat(a):
        return (isinstance(a, types.Array) and a.ndim == 2 and a.layout == "C"
                and a.dtype == types.float32)
    if not (mat(hs) and mat(wo) and mat(out) and isinstance(bias, types.Array)
            and bias.ndim == 1 and bias.layout == "C" and bias.dtype == types.float32):
        return None
    sig = types.void(hs, wo, bias, out)

    def codegen(context, builder, signature, args):
        hs_ty, wo_ty, b_ty, out_ty = signature.args
        hs_arr = context.make_array(hs_ty)(context, builder, args[0])
        wo_arr = context.make_array(wo_ty)(context, builder, args[1])
        b_arr = context.make_array(b_ty)(context, builder, args[2])
        out_arr = context.make_array(out_ty)(context, builder, args[3])
        i64 = ir.IntType(64)
        f32 = ir.FloatType()
        vty = ir.VectorType(f32, LANES)
        bptr = ir.IntType(8).as_pointer()

        def row_ptr(arr, r):
            stride = cgutils.unpack_tuple(builder, arr.strides, 2)[0]
            p = builder.gep(builder.bitcast(arr.data, bptr), [builder.mul(ir.Constant(i64, r),
                                                                          stride)])
            return builder.bitcast(p, f32.as_pointer())

        accs = [cgutils.alloca_once(builder, vty) for _ in range(5)]
        for o, acc in enumerate(accs):
            builder.store(_splat(builder, builder.load(builder.gep(b_arr.data,
                                                                   [ir.Constant(i64, o)]))),
                          acc)
        hrows = [row_ptr(hs_arr, p) for p in range(LANES)]
        wrows = [row_ptr(wo_arr, o) for o in range(5)]
        # A loop over the eight tiles, not eight copies of its body: the same operations
        # in the same order, an eighth of the code to optimise and compile.
        with cgutils.for_range(builder, ir.Constant(i64, N_VEC)) as loop:
            first = builder.mul(loop.index, ir.Constant(i64, LANES))
            tile = [builder.load(builder.bitcast(builder.gep(hrows[p], [first]),
                                                 vty.as_pointer()), align=4)
                    for p in range(LANES)]
            cols = _transpose16(builder, tile)        # cols[j][p] = hs[p, 16 t + j]
            sums = [builder.load(acc) for acc in accs]
            for j in range(LANES):
                at = builder.add(first, ir.Constant(i64, j))
                for o in range(5):
                    w = _splat(builder, builder.load(builder.gep(wrows[o], [at])))
                    sums[o] = builder.fadd(sums[o], builder.fmul(cols[j], w))
            for o, acc in enumerate(accs):
                builder.store(sums[o], acc)
        for o in range(5):
            builder.store(builder.load(accs[o]),
                          builder.bitcast(row_ptr(out_arr, o), vty.as_pointer()), align=4)
        return context.get_dummy_value()

    return sig, codegen


@njit(**HOT)
def sigmoids_to_row_reference(hidden, scale, table, lo, hi, hs, row):
    """:func:`_sigmoids_to_row` as a plain loop."""
    for j in range(hs.shape[1]):
        hs[row, j] = sigmoid_reference(scale * hidden[j], table, lo, hi)


@njit(**HOT)
def outputs_rows_reference(hs, wo, bias, out):
    """:func:`_outputs_rows` as plain loops."""
    for o in range(out.shape[0]):
        for p in range(hs.shape[0]):
            r = bias[o]
            for j in range(hs.shape[1]):
                r += hs[p, j] * wo[o, j]
            out[o, p] = r


@njit(**HOT)
def hidden_sums_reference(w, b, inp, nz, n, out):
    """The plain loop: out[j] = b[j] + sum over q < n of w[nz[q], j] * inp[nz[q]]."""
    nh = b.shape[0]
    for j in range(nh):
        out[j] = b[j]
    for q in range(n):
        i = nz[q]
        x = inp[i]
        row = w[i]
        for j in range(nh):
            out[j] += row[j] * x


@njit(**HOT)
def hidden_sums_adds_reference(w, b, adds, n_adds, inp, nz, n, out):
    """The plain loops: out[j] = b[j] + w[adds[q], j] for q < n_adds, then + w[nz[q], j] *
    inp[nz[q]] for q < n (+ w[nz[q], j] alone where nz[q] >= len(inp)), in that order."""
    nh = b.shape[0]
    for j in range(nh):
        out[j] = b[j]
    for q in range(n_adds):
        row = w[adds[q]]
        for j in range(nh):
            out[j] += row[j]
    for q in range(n):
        i = nz[q]
        row = w[i]
        if i >= inp.shape[0]:
            for j in range(nh):
                out[j] += row[j]
        else:
            x = inp[i]
            for j in range(nh):
                out[j] += row[j] * x


if config.DISABLE_JIT:
    hidden_sums_adds_128 = hidden_sums_adds_reference
    hidden_sums_16 = hidden_sums_reference
    outputs_16_pairwise = outputs_reference
    hidden_sums = hidden_sums_reference
    outputs = outputs_reference
    sigmoid_rows = sigmoid_rows_reference
    sigmoids_to_row = sigmoids_to_row_reference
    outputs_rows = outputs_rows_reference
else:
    @njit(**HOT)
    def hidden_sums_adds_128(w, b, adds, n_adds, inp, nz, n, out):
        """:func:`hidden_sums_adds_reference` of a net of 128 hidden units, in vectors:
        the rows w[adds[:n_adds]] added as they are, then the products of the inputs
        inp[nz[:n]] (``w`` at least 128 wide, ``b`` and ``out`` 128 long)."""
        _hidden_sums_adds_128(w, b, adds, n_adds, inp, nz, n, out)

    @njit(**HOT)
    def hidden_sums_16(w, b, inp, nz, n, out):
        """:func:`hidden_sums` of a net of 16 hidden units (``w`` at least 16 wide, ``b``
        and ``out`` 16 long; the pruning nets, narrower ones padded with zeros): the sums
        in one vector."""
        _hidden_sums_16(w, b, inp, nz, n, out)

    @njit(**HOT)
    def outputs_16_pairwise(hidden, scale, table, lo, hi, wo, bias, out):
        """:func:`outputs` of a net of 16 hidden units (``wo`` at least 16 wide), each
        output's 16 products summed pairwise (not in gnubg's order: the last bits differ)."""
        _outputs_16_pairwise(hidden, scale, table, lo, hi, wo, bias, out)

    @njit(**HOT)
    def hidden_sums(w, b, inp, nz, n, out):
        """Hidden-layer sums of one position: ``b`` the thresholds (their length is the
        number of hidden units), ``w`` (inputs, hidden) the weights, the non-zero inputs
        inp[nz[:n]]; the vector path when there are 128 hidden units."""
        if b.shape[0] == FAST_HIDDEN and w.shape[1] >= FAST_HIDDEN and out.shape[0] >= FAST_HIDDEN:
            _hidden_sums_128(w, b, inp, nz, n, out)
        else:
            hidden_sums_reference(w, b, inp, nz, n, out)

    @njit(**HOT)
    def outputs(hidden, scale, table, lo, hi, wo, bias, out):
        """Sigmoids of the hidden units (in place) and the five output sums from the
        thresholds ``bias``; the vector path when there are 128 hidden units."""
        if hidden.shape[0] == FAST_HIDDEN and wo.shape[1] >= FAST_HIDDEN:
            _outputs_128(hidden, scale, table, lo, hi, wo, bias, out)
        else:
            outputs_reference(hidden, scale, table, lo, hi, wo, bias, out)

    @njit(**HOT)
    def sigmoid_rows(a, scale, table, lo, hi):
        """a[r, :] = sigmoid(scale * a[r, :]) for the rows of ``a`` (R, LANES)."""
        _sigmoid_rows(a, scale, table, lo, hi)

    @njit(**HOT)
    def sigmoids_to_row(hidden, scale, table, lo, hi, hs, row):
        """hs[row, :] = the sigmoids of scale * hidden (``hs``: LANES rows of 128)."""
        _sigmoids_to_row(hidden, scale, table, lo, hi, hs, row)

    @njit(**HOT)
    def outputs_rows(hs, wo, bias, out):
        """out[o, p] = output sum ``o`` of the position in row ``p`` of ``hs``."""
        _outputs_rows(hs, wo, bias, out)
