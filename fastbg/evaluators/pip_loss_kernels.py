"""Kernel: gnubg's pip loss and chances to hit (its pipLossP1P2), from bitmasks.

For a side and its opponent: the pips the opponent's blots would lose to this side's
shots, and the ways of 36 to hit one and to hit two, counted roll by roll as gnubg's loop
does but from bitmasks, without branches per roll. The kernels run the rolls as 32-bit
vector lanes; the scalar loops stay as their references (and the code run without the
JIT). Three of the hand-made features (:mod:`fastbg.evaluators.feature_kernels`).
"""
import numpy as np
from llvmlite import ir
from numba import config, njit, types
from numba.core import cgutils
from numba.core.extending import intrinsic

from fastbg.evaluators.cpu_variants import top_bit
from fastbg.evaluators.input_bit_kernels import _popcount, _rev24, _side_summary, _top
from fastbg.evaluators.input_tables import D_PIPLOSS, LOW24
from fastbg.jit import HOT, INLINED, INNER


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


@njit(**INLINED)
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


def _make_rolls_lanes(bar1=False, top_variant=None):
    """The intrinsic ``(hitters, blots, opn, oblots, made) -> (pips, n1, n2)``,
    ``rolls_no_bar_lanes``: :func:`_rolls_no_bar`'s operations on <16 x i32> and <8 x i32>
    vectors (the masks fit 25 bits; no shift reaches 32), its sums reduced. numba's loops
    work in 4-lane int64 vectors: 6 passes of about 35 operations a half, here 2. Contact
    positions 0.518 -> 0.486 us (one thread, paired medians of 8 processes in turn, every
    pair faster; an earlier try of this, timed as two package copies in one process,
    showed no gain: that way of timing favours whichever copy loads first).

    With ``bar1`` the intrinsic ``(hitters, blots, opn, oblots, omade)``,
    ``rolls_bar1_lanes``: :func:`_rolls_bar1`'s operations the same way. Each lane's
    highest hitter is :func:`fastbg.evaluators.cpu_variants.top_bit` (``top_variant``:
    the CPU's by default; every mask it sees is below 2**25)."""
    @intrinsic
    def lanes_kernel(typingctx, hitters, blots, opn, oblots, made):
        if not all(isinstance(a, types.Integer) for a in (hitters, blots, opn, oblots, made)):
            return None
        sig = types.UniTuple(types.int64, 3)(hitters, blots, opn, oblots, made)

        def codegen(context, builder, signature, args):
            i32, i64 = ir.IntType(32), ir.IntType(64)
            vals = [builder.trunc(context.cast(builder, a, t, types.int64), i32)
                    for a, t in zip(args, signature.args)]

            def run(n, a_list, b_list, double):
                iv = ir.VectorType(i32, n)

                def c(v):
                    return ir.Constant(iv, v if isinstance(v, list) else [v] * n)

                def splat(x):
                    v = builder.insert_element(ir.Constant(iv, ir.Undefined), x,
                                               ir.Constant(i32, 0))
                    return builder.shuffle_vector(v, ir.Constant(iv, ir.Undefined),
                                                  ir.Constant(iv, [0] * n))

                def top(x):
                    return top_bit(builder, x, top_variant)

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
                # the three counts of a lane packed in one 32-bit lane (pips << 16, hit one
                # << 8, hit two), so that one reduction sums all three: over the 21 rolls
                # the pips are at most 21 x 50 and each count at most 36, below 2^15 and
                # 2^8, so no field carries into the next
                return add(add(sh(builder.mul(mx(nrp, c(0)), w), c(16)),
                               sh(builder.mul(flag(builder.icmp_signed(">", nrc, c(0))), w),
                                  c(8))),
                           builder.mul(flag(builder.icmp_signed(">", nrc, c(1))), w))

            nd = run(_ND_LANES, [int(x) for x in ND_A[:15]], [int(x) for x in ND_B[:15]], False)
            db = run(_DB_LANES, list(range(1, 7)), None, True)
            both = builder.add(nd, builder.shuffle_vector(
                db, ir.Constant(db.type, [0] * _DB_LANES),
                ir.Constant(ir.VectorType(i32, _ND_LANES), list(range(_ND_LANES)))))
            reduce = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(i32, [both.type]),
                f"llvm.vector.reduce.add.v{_ND_LANES}i32")
            total = builder.call(reduce, [both])
            byte = ir.Constant(i32, 255)
            out = [builder.zext(x, i64) for x in (
                builder.lshr(total, ir.Constant(i32, 16)),
                builder.and_(builder.lshr(total, ir.Constant(i32, 8)), byte),
                builder.and_(total, byte))]
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
