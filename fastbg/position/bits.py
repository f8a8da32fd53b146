"""Low-level helpers for the kernels, as single machine instructions where numba has none.

* :func:`lowest_bit`: count trailing zeros (``llvm.cttz``); ``ctlz64``, ``cttz64``,
  ``ctpop64``, ``bitrev32``: the other bit intrinsics the kernels use (for 0 the counts
  give the width).
* :func:`copy_row`: copy one 26-byte board into a row of a result buffer as one fixed-size
  ``memcpy`` (a few vector moves). numba's element loop cannot assume the two arrays do
  not overlap and copies byte by byte; on the perft pairs this cut doubles from 437 to
  324 ns a pair and non-doubles from 238 to 194 ns.

Under ``NUMBA_DISABLE_JIT=1`` (a test mode) plain-Python equivalents are used.
"""
from llvmlite import ir
from numba import config, njit, types
from numba.core import cgutils
from numba.core.extending import intrinsic
from fastbg.constants import BOARD_SIZE


def _unary_bit_intrinsic(name, doc, bits=64, zero_flag=None):
    """An intrinsic int64 -> int64 calling LLVM's ``name`` on the low ``bits`` bits (zero
    extended back); ``zero_flag`` is the count intrinsics' second operand (1: the result
    for zero is undefined, 0: it is the width)."""
    @intrinsic
    def op(typingctx, x):
        if not isinstance(x, types.Integer):
            return None
        sig = types.int64(types.int64)

        def codegen(context, builder, signature, args):
            ity = ir.IntType(bits)
            extra = [] if zero_flag is None else [ir.Constant(ir.IntType(1), zero_flag)]
            fnty = ir.FunctionType(ity, [ity] + [e.type for e in extra])
            fn = builder.module.declare_intrinsic(name, [ity], fnty)
            v = context.cast(builder, args[0], signature.args[0], types.int64)
            v = v if bits == 64 else builder.trunc(v, ity)
            r = builder.call(fn, [v] + extra)
            return r if bits == 64 else builder.zext(r, ir.IntType(64))

        return sig, codegen

    op.__doc__ = doc
    return op


_cttz64 = _unary_bit_intrinsic("llvm.cttz", "Index of the lowest set bit (undefined for 0).",
                               zero_flag=1)
ctlz64 = _unary_bit_intrinsic("llvm.ctlz", "Leading zeros of a 64-bit value (64 for 0).",
                              zero_flag=0)
cttz64 = _unary_bit_intrinsic("llvm.cttz", "Trailing zeros of a 64-bit value (64 for 0).",
                              zero_flag=0)
ctpop64 = _unary_bit_intrinsic("llvm.ctpop", "Set bits of a 64-bit value.")
bitrev32 = _unary_bit_intrinsic("llvm.bitreverse", "The low 32 bits in reverse order.",
                                bits=32)


@intrinsic
def _copy_row(typingctx, out, row, src):
    """memcpy of BOARD_SIZE bytes from ``src`` (int8[:]) to ``out[row, 0:BOARD_SIZE]``."""
    if not (isinstance(out, types.Array) and out.ndim == 2 and out.layout == "C"
            and isinstance(src, types.Array) and src.ndim == 1 and src.layout == "C"
            and out.dtype == src.dtype == types.int8 and isinstance(row, types.Integer)):
        return None
    sig = types.void(out, row, src)

    def codegen(context, builder, signature, args):
        out_ty, row_ty, src_ty = signature.args
        out_arr = context.make_array(out_ty)(context, builder, args[0])
        src_arr = context.make_array(src_ty)(context, builder, args[2])
        r = context.cast(builder, args[1], row_ty, types.intp)
        dst = cgutils.get_item_pointer(context, builder, out_ty, out_arr,
                                       [r, context.get_constant(types.intp, 0)])
        cgutils.raw_memcpy(builder, dst, src_arr.data,
                           context.get_constant(types.intp, BOARD_SIZE), 1)
        return context.get_dummy_value()

    return sig, codegen


if config.DISABLE_JIT:
    # Pure-Python mode (NUMBA_DISABLE_JIT=1, used by the tests): no intrinsics there.
    def lowest_bit(m):
        """Index of the lowest set bit of ``m`` (``m`` must not be zero)."""
        m = int(m)
        return (m & -m).bit_length() - 1

    def copy_row(out, row, src):
        """Copy the 26-byte board ``src`` into ``out[row]``."""
        out[row, :BOARD_SIZE] = src[:BOARD_SIZE]
else:
    @njit(cache=True, inline="always")
    def lowest_bit(m):
        """Index of the lowest set bit of ``m`` (``m`` must not be zero)."""
        return _cttz64(m)

    @njit(cache=True, inline="always")
    def copy_row(out, row, src):
        """Copy the 26-byte board ``src`` into ``out[row]``."""
        _copy_row(out, row, src)


@intrinsic
def _row_words(typingctx, arr, row):
    """The 26 bytes of ``arr[row]`` (int8 (m, 26), C order) as four unsigned words: bytes
    0-7, 8-15 and 16-23 as little-endian 64-bit loads (unaligned) and bytes 24-25 as a
    16-bit one, each zero-extended to 64 bits."""
    if not (isinstance(arr, types.Array) and arr.ndim == 2 and arr.layout == "C"
            and arr.dtype == types.int8 and isinstance(row, types.Integer)):
        return None
    sig = types.UniTuple(types.uint64, 4)(arr, row)

    def codegen(context, builder, signature, args):
        arr_ty, row_ty = signature.args
        a = context.make_array(arr_ty)(context, builder, args[0])
        r = context.cast(builder, args[1], row_ty, types.intp)
        base = cgutils.get_item_pointer(context, builder, arr_ty, a,
                                        [r, context.get_constant(types.intp, 0)])
        i16, i64 = ir.IntType(16), ir.IntType(64)
        words = []
        for off, ty in ((0, i64), (8, i64), (16, i64), (24, i16)):
            ptr = builder.bitcast(builder.gep(base, [ir.Constant(i64, off)]), ty.as_pointer())
            w = builder.load(ptr, align=1)
            words.append(w if ty is i64 else builder.zext(w, i64))
        return context.make_tuple(builder, signature.return_type, words)

    return sig, codegen


if config.DISABLE_JIT:
    def row_words(arr, row):
        """The 26 bytes of ``arr[row]`` as four unsigned words (see ``_row_words``)."""
        raw = arr[row, :BOARD_SIZE].tobytes()
        return tuple(int.from_bytes(raw[k:k + 8], "little") for k in (0, 8, 16, 24))
else:
    @njit(cache=True, inline="always")
    def row_words(arr, row):
        """The 26 bytes of ``arr[row]`` (int8 (m, 26)) as four unsigned 64-bit words: bytes
        0-7, 8-15, 16-23 and 24-25, little-endian (for hashing and comparing rows)."""
        return _row_words(arr, row)


@intrinsic
def _flip_row(typingctx, src, s_row, dst, d_row):
    """dst[d_row] = src[s_row] reversed and negated (both int8 (m, 26), C order): one
    masked 32-byte load, a byte shuffle, a negate and one masked store."""
    if not all(isinstance(a, types.Array) and a.ndim == 2 and a.layout == "C"
               and a.dtype == types.int8 for a in (src, dst)):
        return None
    if not all(isinstance(r, types.Integer) for r in (s_row, d_row)):
        return None
    sig = types.void(src, s_row, dst, d_row)

    def codegen(context, builder, signature, args):
        i1, i8, i32, i64 = (ir.IntType(n) for n in (1, 8, 32, 64))
        v32 = ir.VectorType(i8, 32)
        m32 = ir.VectorType(i1, 32)
        ptrs = []
        for arr_ty, arr_v, row_ty, row_v in ((signature.args[0], args[0], signature.args[1],
                                              args[1]),
                                             (signature.args[2], args[2], signature.args[3],
                                              args[3])):
            a = context.make_array(arr_ty)(context, builder, arr_v)
            r = context.cast(builder, row_v, row_ty, types.intp)
            p = cgutils.get_item_pointer(context, builder, arr_ty, a,
                                         [r, context.get_constant(types.intp, 0)])
            ptrs.append(builder.bitcast(p, v32.as_pointer()))
        mask = ir.Constant(m32, [1 if k < BOARD_SIZE else 0 for k in range(32)])
        zero = ir.Constant(v32, [0] * 32)
        load = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(v32, [v32.as_pointer(), i32, m32, v32]),
            "llvm.masked.load.v32i8.p0")
        store = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [v32, v32.as_pointer(), i32, m32]),
            "llvm.masked.store.v32i8.p0")
        x = builder.call(load, [ptrs[0], ir.Constant(i32, 1), mask, zero])
        order = [BOARD_SIZE - 1 - k if k < BOARD_SIZE else k for k in range(32)]
        y = builder.sub(zero, builder.shuffle_vector(x, zero, ir.Constant(ir.VectorType(i32, 32),
                                                                          order)))
        builder.call(store, [y, ptrs[1], ir.Constant(i32, 1), mask])
        return context.get_dummy_value()

    return sig, codegen


if config.DISABLE_JIT:
    def flip_row(src, s_row, dst, d_row):
        """dst[d_row] = src[s_row] seen by the other player (reversed, negated)."""
        dst[d_row, :BOARD_SIZE] = -src[s_row, BOARD_SIZE - 1::-1]
else:
    @njit(cache=True, inline="always")
    def flip_row(src, s_row, dst, d_row):
        """dst[d_row] = src[s_row] seen by the other player: the 26 entries reversed and
        negated (docs/rules.md section 1), as one masked vector load and store."""
        _flip_row(src, s_row, dst, d_row)
