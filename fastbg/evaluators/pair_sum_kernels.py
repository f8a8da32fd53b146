"""Kernel: the hidden sums of two positions of one net at once, each weight row read once.

On AMD Zen 4 the hidden sums are bound by the second-level cache: a contact position adds
about 54 weight rows of 512 bytes, and those arrive at about 32 bytes a cycle (16 cycles a
row, against 8 for the adds), half of an evaluation (docs/performance.md, "By CPU").
Two positions met one after the other in a search (moves of one roll, or of one position)
share about two thirds of their rows: the same points, the same feature values. Their
sums can share the reads and keep each position's own order (so gnubg's bits), because
each position's sums only need its own rows in input order: the rows of both go in one
list in input order, an input's row once when both positions hold the same value there
("shared", added to both), else the first position's row and then the second's.

* :func:`pair_base_adds` lists the base inputs' rows of both (the points by vector lanes,
  as :func:`fastbg.evaluators.add_row_kernels.point_adds_lanes` does for one).
* :func:`pair_feature_entries` lists the 50 features' entries of both (as
  :func:`fastbg.evaluators.add_row_kernels.feature_entries` does for one).
* :func:`pair_hidden_sums` adds the list to both positions' sums, held in 16 vector
  registers: each row read once, added to the sums it is for under a mask, the second
  position's adds as ``fma(row, 1, sum)`` (the same rounding as an add: one rounding of
  an exact sum) so that they run on the multiply units beside the adds.

An entry is the row number (low 32 bits) and its flags above (:data:`FOR_A`, ...).
Measured on an AMD EPYC (Zen 4), one thread: a pair's list is 66% as long as both
positions' lists (the results of 300 nodes' rolls, in the search's order); the hidden
sums alone 235 -> 166 ns a position on 2,000 such positions; the whole evaluation of a
1-ply level 520-540 -> 495-500 ns a position. On CPUs whose adds are the limit (Intel's
cores with one 512-bit unit), twice the adds per row cost more than the reads save:
:data:`fastbg.evaluators.cpu_variants.HIDDEN_SUMS` chooses, and the evaluation's scratch
carries the choice (``NetScratch.mode``), so that both ways are compiled and tested on
every CPU.
"""
import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.core.extending import intrinsic

from fastbg.evaluators.add_row_kernels import (
    _CHUNKS, FEATURE_CODES, FEATURE_LANES, FEATURE_OFFSET, FEATURE_ROW, FEATURE_SCALE,
    FEATURE_SRC, N_COUNTS, PRODUCT_ROW0, WEIGHT_ROWS, _POINT_CHUNK)
from fastbg.evaluators.cpu_variants import compress_store
from fastbg.evaluators.input_tables import BASE_INPUTS, MORE_INPUTS
from fastbg.jit import HOT, INNER

# An entry's flags (bits 32 and up): added to the first position's sums, to the second's,
# multiplied by its input (a feature without product rows), the input read from the
# second position's inputs (at B_INPUTS on).
FOR_A, FOR_B, MULTIPLIED, X_FROM_B = 1, 2, 4, 8
FLAG_SHIFT = 32
ROW_MASK = (1 << FLAG_SHIFT) - 1
# Where the second position's inputs start in the pair's input array (the first's at 0).
B_INPUTS = 256
# Entries of a pair: the base rows at most 2 x 104, the features 2 x 50, and the room a
# compressing store may write past the kept lanes (32 lanes).
MAX_PAIR_ENTRIES = 384
PAIR_INPUTS = 2 * B_INPUTS


def _entry(builder, rows, flags):
    """row + (flags << FLAG_SHIFT) lane by lane (int64 vectors)."""
    n = rows.type.count
    shifted = builder.shl(flags, ir.Constant(ir.VectorType(ir.IntType(64), n), [FLAG_SHIFT] * n))
    return builder.add(rows, shifted)


@intrinsic
def _pair_point_adds(typingctx, gba, gbb, s, out, c):
    """The rows of side ``s``'s points 0..23 of both boards into out[c:], each point's
    rows in input order: both positions' rows once, flagged for both, where the point
    holds as many checkers in both; else the first's rows, then the second's. Chunks of 8
    points, every kept lane packed by one compressing store: returns the new c."""
    def board(a):
        return (isinstance(a, types.Array) and a.ndim == 2 and a.layout == "C"
                and a.dtype == types.int64)
    if not (board(gba) and board(gbb) and isinstance(out, types.Array) and out.ndim == 1
            and out.layout == "C" and out.dtype == types.int64
            and isinstance(s, types.Integer) and isinstance(c, types.Integer)):
        return None
    sig = types.int64(gba, gbb, s, out, c)

    def codegen(context, builder, signature, args):
        a_arr = context.make_array(signature.args[0])(context, builder, args[0])
        b_arr = context.make_array(signature.args[1])(context, builder, args[1])
        out_arr = context.make_array(signature.args[3])(context, builder, args[3])
        i32, i64 = ir.IntType(32), ir.IntType(64)
        n = _POINT_CHUNK
        v8 = ir.VectorType(i64, n)
        side = context.cast(builder, args[2], signature.args[2], types.int64)
        u = context.cast(builder, args[4], signature.args[4], types.int64)

        def c(v):
            return ir.Constant(v8, v if isinstance(v, list) else [v] * n)

        def splat(x):
            v = builder.insert_element(ir.Constant(v8, ir.Undefined), x, ir.Constant(i64, 0))
            return builder.shuffle_vector(v, ir.Constant(v8, ir.Undefined),
                                          ir.Constant(ir.VectorType(i32, n), [0] * n))
        first_base = splat(builder.mul(side, ir.Constant(i64, 100)))
        prod_base = splat(builder.add(ir.Constant(i64, PRODUCT_ROW0),
                                      builder.mul(side, ir.Constant(i64, N_COUNTS * 25))))
        row0 = builder.mul(side, ir.Constant(i64, 25))
        # lanes 4k..4k+3 of point k: A's first row (B's too where it is the same row),
        # B's first row, A's product row (B's too where the same), B's product row: each
        # position's rows stay in input order, and every row both hold is listed once.
        pair16 = ir.Constant(ir.VectorType(i32, 2 * n),
                             [k // 2 + (n if k % 2 else 0) for k in range(2 * n)])
        quad = ir.Constant(ir.VectorType(i32, 4 * n),
                           [(k // 4) * 2 + (k % 4) // 2 + (2 * n if k % 2 else 0)
                            for k in range(4 * n)])

        def rows_of(nc, pts):
            m3 = builder.select(builder.icmp_signed("<", nc, c(3)), nc, c(3))
            lo = builder.sub(m3, c(1))
            lo = builder.select(builder.icmp_signed(">", lo, c(0)), lo, c(0))
            first = builder.add(builder.add(first_base, builder.mul(pts, c(4))), lo)
            second = builder.add(builder.add(prod_base, builder.mul(pts, c(N_COUNTS))), nc)
            return first, second

        for chunk in range(24 // n):
            at = builder.add(row0, ir.Constant(i64, chunk * n))
            nca = builder.load(builder.bitcast(builder.gep(a_arr.data, [at]), v8.as_pointer()),
                               align=8)
            ncb = builder.load(builder.bitcast(builder.gep(b_arr.data, [at]), v8.as_pointer()),
                               align=8)
            pts = c([chunk * n + k for k in range(n)])
            fa, sa = rows_of(nca, pts)
            fb, sb = rows_of(ncb, pts)
            has_a, has_b = builder.icmp_signed(">", nca, c(0)), builder.icmp_signed(">", ncb, c(0))
            pile_a, pile_b = builder.icmp_signed(">", nca, c(3)), builder.icmp_signed(">", ncb, c(3))
            same1 = builder.and_(builder.and_(has_a, has_b), builder.icmp_signed("==", fa, fb))
            same2 = builder.icmp_signed("==", nca, ncb)
            both = c(FOR_A | FOR_B)
            # A's rows (lanes 0 and 2 of each point) then B's (1 and 3), pairs interleaved
            ea = builder.shuffle_vector(
                _entry(builder, fa, builder.select(same1, both, c(FOR_A))),
                _entry(builder, sa, builder.select(same2, both, c(FOR_A))), pair16)
            eb = builder.shuffle_vector(_entry(builder, fb, c(FOR_B)),
                                        _entry(builder, sb, c(FOR_B)), pair16)
            ka = builder.shuffle_vector(has_a, pile_a, pair16)
            kb = builder.shuffle_vector(builder.and_(has_b, builder.not_(same1)),
                                        builder.and_(pile_b, builder.not_(same2)), pair16)
            entries = builder.shuffle_vector(ea, eb, quad)
            mask = builder.shuffle_vector(ka, kb, quad)
            u = builder.add(u, compress_store(builder, entries, builder.gep(out_arr.data, [u]),
                                              mask))
        return u

    return sig, codegen


@njit(**INNER)
def _bar_pair(na, nb, side, out, c):
    """The bar rows of both boards of side ``side`` at out[c:]: its inputs of 1 (one per
    checker up to three) that both hold, once; then the first's others and its product row
    (the second's too where both hold as many); then the second's others and product row.
    Returns the new c."""
    o = 100 * side + 96
    prod = PRODUCT_ROW0 + N_COUNTS * (25 * side + 24)
    fa, fb = np.int64(FOR_A) << FLAG_SHIFT, np.int64(FOR_B) << FLAG_SHIFT
    ma, mb = min(na, 3), min(nb, 3)
    shared = min(ma, mb)
    for q in range(shared):
        out[c + q] = o + q + fa + fb
    c += shared
    for q in range(shared, ma):
        out[c] = o + q + fa
        c += 1
    if na > 3:
        out[c] = prod + na + fa + (fb if na == nb else 0)
        c += 1
    for q in range(shared, mb):
        out[c] = o + q + fb
        c += 1
    if nb > 3 and nb != na:
        out[c] = prod + nb + fb
        c += 1
    return c


@njit(**HOT)
def pair_base_adds(gba, gbb, out):
    """The base inputs' rows of two gnubg boards ``gba`` and ``gbb`` as one list of
    entries into ``out`` (see the module); returns how many."""
    c = np.int64(0)
    for s in range(2):
        c = _pair_point_adds(gba, gbb, s, out, c)
        c = _bar_pair(gba[s, 24], gbb[s, 24], s, out, c)
    return c


@intrinsic
def pair_feature_entries(typingctx, inp, out, c, contact250):
    """The 50 features' entries of two positions (the first's inputs at inp[0:250], the
    second's at inp[B_INPUTS:]) into out[c:]: per feature the first's entry (a product
    row, or the input multiplied) and then the second's, one entry for both where the
    two are the same product row, or the same input with the same value. Returns the new
    c."""
    if not (isinstance(inp, types.Array) and inp.ndim == 1 and inp.layout == "C"
            and inp.dtype == types.float32 and isinstance(out, types.Array)
            and out.ndim == 1 and out.layout == "C" and out.dtype == types.int64
            and isinstance(c, types.Integer) and isinstance(contact250, types.Boolean)):
        return None
    sig = types.int64(inp, out, c, contact250)

    def codegen(context, builder, signature, args):
        inp_arr = context.make_array(signature.args[0])(context, builder, args[0])
        out_arr = context.make_array(signature.args[1])(context, builder, args[1])
        u = context.cast(builder, args[2], signature.args[2], types.int64)
        flag = context.cast(builder, args[3], signature.args[3], types.boolean)
        flag = builder.trunc(flag, ir.IntType(1)) if flag.type != ir.IntType(1) else flag
        lanes = FEATURE_LANES
        i1, i32, i64 = (ir.IntType(n) for n in (1, 32, 64))
        f32 = ir.FloatType()
        fv, iv, lv, bv = (ir.VectorType(t, lanes) for t in (f32, i32, i64, i1))
        pairs = ir.Constant(ir.VectorType(i32, 2 * lanes),
                            [k // 2 + (lanes if k % 2 else 0) for k in range(2 * lanes)])
        for first, keep_from in _CHUNKS:
            js = [first + q for q in range(lanes)]
            rows = [int(FEATURE_ROW[j]) for j in js]
            multiplied = ir.Constant(bv, [int(r < 0) for r in rows])
            keep = ir.Constant(bv, [int(q >= keep_from) for q in range(lanes)])

            def side(base):
                start = base + BASE_INPUTS + first

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
                entry = builder.select(multiplied,
                                       ir.Constant(iv, [BASE_INPUTS + j for j in js]),
                                       builder.add(ir.Constant(iv, [max(r, 0) for r in rows]),
                                                   code))
                nonzero = builder.fcmp_unordered("!=", x, ir.Constant(fv, [0.0] * lanes))
                return x, builder.sext(entry, lv), builder.and_(nonzero, keep)
            xa, ea, ka = side(0)
            xb, eb, kb = side(B_INPUTS)
            # the same row, and for an input multiplied the same value (a product row
            # is its value already)
            # (and both listed: a product row's code can come from another input)
            same = builder.and_(builder.icmp_signed("==", ea, eb),
                                builder.or_(builder.fcmp_ordered("==", xa, xb),
                                            builder.not_(multiplied)))
            same = builder.and_(same, builder.and_(ka, kb))
            mul = builder.select(multiplied, ir.Constant(lv, [MULTIPLIED] * lanes),
                                 ir.Constant(lv, [0] * lanes))
            flag_a = builder.or_(mul, builder.select(same, ir.Constant(lv, [FOR_A | FOR_B] * lanes),
                                                     ir.Constant(lv, [FOR_A] * lanes)))
            flag_b = builder.or_(mul, ir.Constant(lv, [FOR_B | X_FROM_B] * lanes))
            entries = builder.shuffle_vector(_entry(builder, ea, flag_a),
                                             _entry(builder, eb, flag_b), pairs)
            mask = builder.shuffle_vector(ka, builder.and_(kb, builder.not_(same)), pairs)
            u = builder.add(u, compress_store(builder, entries, builder.gep(out_arr.data, [u]),
                                              mask))
        return u

    return sig, codegen


@intrinsic
def _pair_hidden_sums(typingctx, w, b, entries, n_base, n, inp, one, out_a, out_b):
    """out_a, out_b (128 each) = b + the rows of ``entries`` flagged for each, in order:
    entries[:n_base] added as they are, entries[n_base:n] too where not MULTIPLIED, else
    times their input (inp[row], or inp[B_INPUTS + row] with X_FROM_B). ``one``: 16 ones
    (read from memory, so that LLVM keeps fma(row, 1, sum) an FMA)."""
    def vec(a, dtype):
        return (isinstance(a, types.Array) and a.ndim == 1 and a.layout == "C"
                and a.dtype == dtype)
    if not (isinstance(w, types.Array) and w.ndim == 2 and w.layout == "C"
            and w.dtype == types.float32 and vec(b, types.float32)
            and vec(entries, types.int64) and isinstance(n_base, types.Integer)
            and isinstance(n, types.Integer) and vec(inp, types.float32)
            and vec(one, types.float32) and vec(out_a, types.float32)
            and vec(out_b, types.float32)):
        return None
    sig = types.void(w, b, entries, n_base, n, inp, one, out_a, out_b)

    def codegen(context, builder, signature, args):
        arrs = [context.make_array(t)(context, builder, a) if isinstance(t, types.Array)
                else None for t, a in zip(signature.args, args)]
        w_arr, b_arr, e_arr, _, _, inp_arr, one_arr, oa_arr, ob_arr = arrs
        n_base = context.cast(builder, args[3], signature.args[3], types.intp)
        n = context.cast(builder, args[4], signature.args[4], types.intp)
        i1, i32, i64 = ir.IntType(1), ir.IntType(32), ir.IntType(64)
        f32 = ir.FloatType()
        lanes, n_vec = 16, 8
        vty = ir.VectorType(f32, lanes)
        vptr = vty.as_pointer()
        row_stride = cgutils.unpack_tuple(builder, w_arr.strides, 2)[0]
        w_bytes = builder.bitcast(w_arr.data, ir.IntType(8).as_pointer())
        zero_mask = ir.Constant(ir.VectorType(i32, lanes), [0] * lanes)

        def vec_at(base, k):
            return builder.bitcast(builder.gep(base, [ir.Constant(i64, k * lanes)]), vptr)

        acc_a = [cgutils.alloca_once(builder, vty) for _ in range(n_vec)]
        acc_b = [cgutils.alloca_once(builder, vty) for _ in range(n_vec)]
        for k in range(n_vec):
            bias = builder.load(vec_at(b_arr.data, k), align=4)
            builder.store(bias, acc_a[k])
            builder.store(bias, acc_b[k])
        ones = builder.load(builder.bitcast(one_arr.data, vptr), align=4)
        fma = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(vty, [vty, vty, vty]), "llvm.fma.v16f32")

        def splat_bit(flags, bit):
            on = builder.icmp_unsigned("!=", builder.and_(flags, ir.Constant(i64, bit)),
                                       ir.Constant(i64, 0))
            v = builder.insert_element(ir.Constant(ir.VectorType(i1, lanes), ir.Undefined), on,
                                       ir.Constant(i32, 0))
            return builder.shuffle_vector(v, ir.Constant(ir.VectorType(i1, lanes), ir.Undefined),
                                          zero_mask)

        def add(row, ma, mb, xv):
            for k in range(n_vec):
                wv = builder.load(vec_at(row, k), align=4)
                if xv is not None:
                    wv = builder.fmul(wv, xv)
                a, bb = builder.load(acc_a[k]), builder.load(acc_b[k])
                builder.store(builder.select(ma, builder.fadd(a, wv), a), acc_a[k])
                builder.store(builder.select(mb, builder.call(fma, [wv, ones, bb]), bb),
                              acc_b[k])

        def entry(q):
            e = builder.load(builder.gep(e_arr.data, [q]))
            r = builder.and_(e, ir.Constant(i64, ROW_MASK))
            flags = builder.lshr(e, ir.Constant(i64, FLAG_SHIFT))
            row = builder.bitcast(builder.gep(w_bytes, [builder.mul(r, row_stride)]),
                                  f32.as_pointer())
            return r, flags, row, splat_bit(flags, FOR_A), splat_bit(flags, FOR_B)

        with cgutils.for_range(builder, n_base) as loop:
            _, _, row, ma, mb = entry(loop.index)
            add(row, ma, mb, None)
        with cgutils.for_range_slice(builder, n_base, n, ir.Constant(i64, 1)) as (q, _):
            r, flags, row, ma, mb = entry(q)
            mul = builder.icmp_unsigned("!=", builder.and_(flags, ir.Constant(i64, MULTIPLIED)),
                                        ir.Constant(i64, 0))
            with builder.if_else(mul) as (yes, no):
                with yes:
                    from_b = builder.and_(builder.lshr(flags, ir.Constant(i64, 3)),
                                          ir.Constant(i64, 1))
                    xi = builder.add(r, builder.mul(from_b, ir.Constant(i64, B_INPUTS)))
                    x = builder.load(builder.gep(inp_arr.data, [xi]))
                    xv = builder.insert_element(ir.Constant(vty, ir.Undefined), x,
                                                ir.Constant(i32, 0))
                    add(row, ma, mb, builder.shuffle_vector(
                        xv, ir.Constant(vty, ir.Undefined), zero_mask))
                with no:
                    add(row, ma, mb, None)
        for k in range(n_vec):
            builder.store(builder.load(acc_a[k]), vec_at(oa_arr.data, k), align=4)
            builder.store(builder.load(acc_b[k]), vec_at(ob_arr.data, k), align=4)
        return context.get_dummy_value()

    return sig, codegen


@njit(**HOT)
def pair_hidden_sums(w, b, entries, n_base, n, inp, one, out_a, out_b):
    """The hidden sums of both positions of a pair's list (:func:`pair_base_adds`, then
    :func:`pair_feature_entries` from ``n_base`` to ``n``) into out_a and out_b, each the
    same bits as its own :func:`fastbg.evaluators.simd.hidden_sums_adds_128`. ``w`` at
    least 128 wide, ``b``, ``out_a``, ``out_b`` 128 long, ``one`` 16 ones."""
    _pair_hidden_sums(w, b, entries, n_base, n, inp, one, out_a, out_b)


def row_slots():
    """The input (0..249) each row of a net's extended weights belongs to
    (:func:`fastbg.evaluators.add_row_kernels.extended_weights`): an input's own row, a
    point's product row its (n - 3) / 2 input, a feature's product row that feature; -1
    for rows of no contact input (the race's crossings)."""
    slot = np.full(WEIGHT_ROWS, -1, np.int64)
    slot[:BASE_INPUTS + 2 * MORE_INPUTS] = np.arange(BASE_INPUTS + 2 * MORE_INPUTS)
    for side in range(2):
        for point in range(25):
            first = PRODUCT_ROW0 + N_COUNTS * (25 * side + point)
            slot[first:first + N_COUNTS] = 100 * side + 4 * point + 3
    for j in range(2 * MORE_INPUTS):
        if FEATURE_ROW[j] >= 0:
            codes = FEATURE_CODES[j % MORE_INPUTS][0]
            slot[FEATURE_ROW[j]:FEATURE_ROW[j] + codes] = BASE_INPUTS + j
    return slot


def pair_entries_reference(list_a, list_b, slot_of, x_a, x_b):
    """The pair list of two positions' lists of (row) entries in input order, by plain
    Python (the tests' reference): merged by input slot (``slot_of[row]``), one entry for
    both where both hold the same row with the same value (``x_a[row]``, ``x_b[row]``:
    the input a row multiplies, or 1), else the first's, then the second's. Returns
    [(row, flags)] without the MULTIPLIED and X_FROM_B bits."""
    out, ia, ib = [], 0, 0
    while ia < len(list_a) or ib < len(list_b):
        sa = slot_of[list_a[ia]] if ia < len(list_a) else 1 << 30
        sb = slot_of[list_b[ib]] if ib < len(list_b) else 1 << 30
        if sa < sb:
            out.append((list_a[ia], FOR_A))
            ia += 1
        elif sb < sa:
            out.append((list_b[ib], FOR_B))
            ib += 1
        elif list_a[ia] == list_b[ib] and x_a(list_a[ia]) == x_b(list_b[ib]):
            out.append((list_a[ia], FOR_A | FOR_B))
            ia += 1
            ib += 1
        else:
            out.append((list_a[ia], FOR_A))
            ia += 1
    return out
