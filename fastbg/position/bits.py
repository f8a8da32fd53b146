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
