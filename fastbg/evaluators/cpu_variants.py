"""Which code the kernels compile for this CPU, chosen before anything is compiled.

Some operations are fast on one CPU and slow on another, or exist only with AVX-512. The
choice here is a pure function of the CPU features numba compiles for (``NUMBA_CPU_FEATURES``
where set, else the host's), and those features are part of the key of numba's on-disk
cache (``CPUCodegen.magic_tuple``: triple, CPU name, features): a cache built for one
variant is never loaded for the other, and every Ray node, importing fastbg itself,
chooses for its own CPU. To compile the portable code on an AVX-512 machine (to compare
the variants), set ``NUMBA_CPU_FEATURES`` to a feature list without ``+avx512f``.

**Compressing stores.** The lists of a position's non-zero inputs and weight rows
(:mod:`fastbg.evaluators.add_row_kernels`) are packed from vector lanes. LLVM's
``llvm.masked.compressstore`` becomes AVX-512's ``vpcompressq`` with a memory
destination: fine on Intel, but on AMD Zen 4 microcoded, measured at 20.4 ns a call
against 1.23 ns for the register form (``vpcompressq`` into a register, then a plain
vector store). :func:`compress_store` therefore packs in a register and stores the whole
vector (``"avx512-register"``); with AVX2 and no AVX-512 it packs four lanes at a time
by ``vpermd``, its indices read from a table by the lanes' four mask bits, and stores
them (``"avx2-permute"``); without either it stores lane by lane with no branch, each
lane at the current end and the end moved on by the lane's mask bit (``"scalar"``;
LLVM's own lowering of compressstore there is a branch a lane). All write the kept
lanes in order at ``dst`` and may write past them (up to the vector's width: the
callers' buffers have that room); the kept entries are the same bits in every variant
(tests/test_cpu_variants.py).

**Hidden sums in passes.** :data:`HIDDEN_PASSES`: one pass over a position's weight rows
for all 128 hidden sums where they fit in registers (AVX-512), two passes of 64 sums
otherwise. Each sum is the same sequence of float32 adds either way, so the bits are the
same (tests/test_cpu_variants.py); on an AMD EPYC Zen 3 (AVX2) the sums alone took 928 ->
705 ns a contact position (docs/performance.md, "Zen 3").

**The points' add rows.** The base inputs' rows of a position (each occupied point's
input of 1, and its product row above three checkers) are packed from vector lanes by the
compressing store where AVX-512 has one in a register (``"lanes"``, 40 -> 22-25 ns a
contact position against the plain loop over the 24 points, on Zen 4). Without it the
AVX2 permutes cost more than they save: on AMD Zen 3 the lanes took 78.6 ns a position
and the loop 62.4 (board load included), and a loop over the occupied points alone (the
side's bitmask, about eight points) 0.50 of the lanes' time (``"occupied-bits"``).

**The features' product rows.** Most hand-made features take few values, and a net's
extended weights can hold each value's product row, added without a multiply
(:mod:`fastbg.evaluators.add_row_kernels`): 978 more rows of 512 bytes, 1.1 MB a net in
all against 585 KB. With AVX-512 they pay (the multiplies of a 512-bit unit are the cost
there); on AMD Zen 3 (AVX2, 512 KB of second-level cache) multiplying those features was
faster: evaluate_rows on 69,640 contact results took 0.934-0.957 of the time, both
layouts compiled in one process and timed in turn (the multiplies run beside the adds,
and the rows a contact position reads are then mostly the 250 input rows, 128 KB, which
stay in the second-level cache). :data:`FEATURE_PRODUCTS` chooses; both layouts give the
same bits (tests/test_cpu_variants.py).

**Highest set bit of vector lanes.** The pip loss (:mod:`fastbg.evaluators.pip_loss_kernels`)
finds each roll's highest hitter as the top bit of 32-bit lanes. LLVM's ``llvm.ctlz`` of a
vector is one ``vplzcntd`` with AVX-512 CD; without it LLVM expands it into byte-table
lookups (``vpshufb``, shifts, byte adds and merges: about 20 instructions a vector), which
made the pip loss 8% of a one-thread 1-ply search on AMD Zen 3 against 3% on Zen 4.
:func:`top_bit` keeps ``"lzcnt"`` where AVX-512 CD is there and otherwise reads the bit
from the exponent of the lane converted to float32 (``"float-exponent"``: four
instructions and a clamp; exact for lanes below 2**25, as the board's masks are).
"""
from llvmlite import ir
from numba import config
from numba.core import cgutils

#: Every variant of :func:`compress_store`, the first the one of AVX-512 CPUs, the second
#: of AVX2 ones.
COMPRESS_VARIANTS = ("avx512-register", "avx2-permute", "scalar")


def compiled_features():
    """The CPU features numba compiles for, as a set of names ("avx512f", ...): those of
    ``NUMBA_CPU_FEATURES`` where set, else the host's (what numba's codegen uses)."""
    if config.CPU_FEATURES is not None:
        return {f[1:] for f in config.CPU_FEATURES.split(",") if f.startswith("+")}
    try:
        import llvmlite.binding as llvm
        return {k for k, v in llvm.get_host_cpu_features().items() if v}
    except Exception:       # noqa: BLE001  (no feature list: the portable code)
        return set()


_FEATURES = compiled_features()
HAS_AVX512 = "avx512f" in _FEATURES
HAS_AVX2 = "avx2" in _FEATURES
#: The compressing store the kernels compile (one of :data:`COMPRESS_VARIANTS`).
COMPRESS = ("avx512-register" if HAS_AVX512 else "avx2-permute" if HAS_AVX2 else "scalar")
#: Every number of passes the 128 hidden sums may take (:mod:`fastbg.evaluators.simd`).
HIDDEN_PASS_VARIANTS = (1, 2)
#: The passes compiled here: the sums are eight 16-lane float32 vectors, eight of
#: AVX-512's 32 vector registers but all sixteen of AVX2's, so without AVX-512 LLVM
#: spilled and re-loaded sums on every weight row; there the sums are made in two passes
#: over the rows, 64 units each, that fit.
HIDDEN_PASSES = 1 if HAS_AVX512 else 2
#: Whether the features with few values have product rows (else they are multiplied).
FEATURE_PRODUCTS = HAS_AVX512
#: Every way the points' add rows may be listed
#: (:func:`fastbg.evaluators.add_row_kernels.base_adds`).
POINT_ADDS_VARIANTS = ("lanes", "occupied-bits")
#: The one compiled here.
POINT_ADDS = "lanes" if HAS_AVX512 else "occupied-bits"
#: Every way :func:`top_bit` may emit a lane's highest set bit.
TOP_BIT_VARIANTS = ("lzcnt", "float-exponent")
#: The one compiled here: ``vplzcntd`` needs AVX-512 CD.
TOP_BIT = "lzcnt" if "avx512cd" in _FEATURES else "float-exponent"
#: Lanes given to :func:`top_bit` are below this (the float32 conversion's exact range
#: once bit 0 is cleared above 2**24).
TOP_BIT_LIMIT = 1 << 25


def top_bit(builder, x, variant=None):
    """Emit: per lane of the <n x i32> vector ``x``, the index of its highest set bit, -1
    where the lane is 0 (31 - ctlz). Every lane must be in [0, TOP_BIT_LIMIT).
    ``variant``: one of :data:`TOP_BIT_VARIANTS` (default :data:`TOP_BIT`)."""
    variant = variant or TOP_BIT
    iv = x.type
    i1 = ir.IntType(1)
    n = iv.count

    def c(v):
        return ir.Constant(iv, [v] * n)
    if variant == "lzcnt":
        ctlz = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(iv, [iv, i1]), f"llvm.ctlz.v{n}i32")
        return builder.sub(c(31), builder.call(ctlz, [x, ir.Constant(i1, 0)]))
    if variant != "float-exponent":
        raise ValueError(f"no top-bit variant {variant!r}")
    # Below 2**24 a lane converts to float32 exactly; from 2**24 to 2**25 it does once its
    # bit 0 is cleared (an even number), which leaves its top bit alone. The biased
    # exponent is then the top bit + 127 (0 converts to 0.0: -127, clamped to -1).
    even = builder.and_(x, builder.xor(builder.lshr(x, c(24)), c(-1)))
    f = builder.sitofp(even, ir.VectorType(ir.FloatType(), n))
    e = builder.sub(builder.lshr(builder.bitcast(f, iv), c(23)), c(127))
    return builder.select(builder.icmp_signed(">", e, c(-1)), e, c(-1))


def compress_store(builder, vec, dst, mask, variant=None):
    """Emit: the lanes of int64 vector ``vec`` whose bit of the i1 vector ``mask`` is set,
    in lane order, stored from i64* ``dst`` on; returns how many (an i64 value). Lanes
    past them may be written too, up to ``vec``'s width from ``dst``. ``variant``: one of
    :data:`COMPRESS_VARIANTS` (default :data:`COMPRESS`)."""
    variant = variant or COMPRESS
    i1, i64 = ir.IntType(1), ir.IntType(64)
    lanes = vec.type.count
    if variant == "avx2-permute" and lanes % 4 == 0:
        return _compress_by_permutes(builder, vec, dst, mask)
    if variant == "scalar":
        u = ir.Constant(i64, 0)
        for k in range(lanes):
            q = ir.Constant(ir.IntType(32), k)
            builder.store(builder.extract_element(vec, q), builder.gep(dst, [u]))
            u = builder.add(u, builder.zext(builder.extract_element(mask, q), i64))
        return u
    if variant != "avx512-register" or lanes % 8:
        raise ValueError(f"no compress variant {variant!r} for {lanes} lanes")
    # 8 lanes at a time: vpcompressq packs a zmm register, a plain store writes it.
    v8, b8 = ir.VectorType(i64, 8), ir.VectorType(i1, 8)
    i8 = ir.IntType(8)
    compress = cgutils.get_or_insert_function(
        builder.module, ir.FunctionType(v8, [v8, v8, b8]), "llvm.x86.avx512.mask.compress.v8i64")
    ctpop = cgutils.get_or_insert_function(builder.module, ir.FunctionType(i8, [i8]),
                                           "llvm.ctpop.i8")
    u = ir.Constant(i64, 0)
    for first in range(0, lanes, 8):
        if lanes == 8:
            part, bits = vec, mask
        else:
            pick = ir.Constant(ir.VectorType(ir.IntType(32), 8), list(range(first, first + 8)))
            part = builder.shuffle_vector(vec, ir.Constant(vec.type, ir.Undefined), pick)
            bits = builder.shuffle_vector(mask, ir.Constant(mask.type, ir.Undefined), pick)
        packed = builder.call(compress, [part, ir.Constant(v8, [0] * 8), bits])
        ptr = builder.bitcast(builder.gep(dst, [u]), v8.as_pointer())
        builder.store(packed, ptr, align=8)
        u = builder.add(u, builder.zext(builder.call(ctpop, [builder.bitcast(bits, i8)]), i64))
    return u


def _permute_table():
    """Per 4-bit mask of four int64 lanes: the 8 int32 indices of AVX2's ``vpermd`` that
    move the kept lanes (each two int32 halves) to the front, in order; the rest lane 0."""
    table = []
    for bits in range(16):
        kept = [k for k in range(4) if bits >> k & 1] + [0] * 4
        table.append([2 * kept[q // 2] + q % 2 for q in range(8)])
    return table


def _compress_by_permutes(builder, vec, dst, mask):
    """:func:`compress_store` of AVX2 CPUs: four int64 lanes at a time, their mask's four
    bits pick a row of :func:`_permute_table`, ``vpermd`` packs the kept lanes to the
    front and one plain 32-byte store writes them; the end moves on by the bits' count."""
    i8, i32, i64 = ir.IntType(8), ir.IntType(32), ir.IntType(64)
    v4, v8i = ir.VectorType(i64, 4), ir.VectorType(i32, 8)
    module = builder.module
    name = "fastbg_compress_permutes"
    table = module.globals.get(name)
    if table is None:
        ty = ir.ArrayType(v8i, 16)
        table = ir.GlobalVariable(module, ty, name)
        table.linkage = "internal"
        table.global_constant = True
        table.initializer = ir.Constant(ty, [ir.Constant(v8i, row) for row in _permute_table()])
        table.align = 32
    permd = cgutils.get_or_insert_function(module, ir.FunctionType(v8i, [v8i, v8i]),
                                           "llvm.x86.avx2.permd")
    ctpop = cgutils.get_or_insert_function(module, ir.FunctionType(i8, [i8]), "llvm.ctpop.i8")
    u = ir.Constant(i64, 0)
    for first in range(0, vec.type.count, 4):
        pick = ir.Constant(ir.VectorType(i32, 4), list(range(first, first + 4)))
        part = builder.shuffle_vector(vec, ir.Constant(vec.type, ir.Undefined), pick)
        bits = builder.shuffle_vector(mask, ir.Constant(mask.type, ir.Undefined), pick)
        code = builder.zext(builder.bitcast(bits, ir.IntType(4)), i8)
        idx = builder.load(builder.gep(table, [ir.Constant(i32, 0), builder.zext(code, i64)]),
                           align=32)
        packed = builder.bitcast(builder.call(permd, [builder.bitcast(part, v8i), idx]), v4)
        builder.store(packed, builder.bitcast(builder.gep(dst, [u]), v4.as_pointer()), align=8)
        u = builder.add(u, builder.zext(builder.call(ctpop, [code]), i64))
    return u
