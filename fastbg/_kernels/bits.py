"""Bit helpers for the kernels: count trailing zeros as one machine instruction."""
from llvmlite import ir
from numba import config, njit, types
from numba.core.extending import intrinsic


@intrinsic
def _cttz64(typingctx, x):
    """LLVM's llvm.cttz.i64: index of the lowest set bit of a non-zero integer."""
    if not isinstance(x, types.Integer):
        return None
    sig = types.int64(types.int64)

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        fnty = ir.FunctionType(i64, [i64, ir.IntType(1)])
        fn = builder.module.declare_intrinsic("llvm.cttz", [i64], fnty)
        # Second operand true: the result for zero is undefined (callers never pass 0).
        return builder.call(fn, [args[0], ir.Constant(ir.IntType(1), 1)])

    return sig, codegen


if config.DISABLE_JIT:
    # Pure-Python mode (NUMBA_DISABLE_JIT=1, used by the tests): no intrinsics there.
    def lowest_bit(m):
        """Index of the lowest set bit of ``m`` (``m`` must not be zero)."""
        m = int(m)
        return (m & -m).bit_length() - 1
else:
    @njit(cache=True, inline="always")
    def lowest_bit(m):
        """Index of the lowest set bit of ``m`` (``m`` must not be zero)."""
        return _cttz64(m)
