"""GNU Backgammon's 0-ply evaluation (the gnubg-nn networks) as numba kernels.

The evaluation follows gnubg-nn's ``eval.c`` and ``inputs.c`` (Joseph Heled's GNU
Backgammon networks, weights file version 1.01), re-implemented here from their
description:

* **Classes** (:func:`classify`, gnubg's ``ClassifyPosition``): game over; two-sided
  bear-off (both sides on their points 1..6 with at most six checkers each); one-sided
  bear-off (both on 1..6, one side with more); race (no contact); crashed (contact where a
  side has at most six checkers left, or six once the checkers piled on its points 1 and 2
  are discounted); contact.
* **Inputs**: contact and crashed nets take 250 inputs: 4 per point and bar per side (200,
  the side *not* on roll first) then 25 hand-made features per side (the side on roll
  first; see :func:`half_inputs`); the contact net's inputs ("contact250") replace the
  first three features of each side by borne-off counts of the *other* side, on a scale
  for at most eight off (gnubg's inputs carry this swap). The race net takes 107 inputs
  per side (side not on roll first): 4 per point 1..23, 14 one-hot borne-off counts and
  the checkers' crossings to home / 10.
* **Network**: one hidden layer, gnubg's float32 arithmetic in its order (hidden sums over
  the non-zero inputs in input order, a weight added directly where the input is 1),
  gnubg's sigmoid approximation ``1 / (1 + e^x)`` from a table of ``exp(k / 10)`` with a
  linear correction (:func:`sigmoid`).
* **Race** results get gnubg's ``raceImprovement``: exact backgammon chances from the
  tables of :mod:`fastbg.evaluators.bearoff_kernels` and certain-gammon detection.
* **Bear-off**: two-sided table for small positions, else the one-sided distributions
  (win = the side on roll finishes in no more rolls than the other), gammons from the
  first-checker-off table.
* **Sanity check** (gnubg's ``SanityCheck``): impossible gammons/backgammons zeroed,
  probabilities clipped into order, gammon probabilities below 1e-4 set to 0.

That is gnubg-nn's evaluation (``net.mode`` EVAL_GNUBG_NN). With ``net.mode`` EVAL_GNUBG
the kernels evaluate as GNU Backgammon 1.x's ``eval.c`` and ``bearoff.c`` do instead (the
same networks, inputs and tables; docs/engine.md section 6):

* **Race**: the backgammon chances as above but no certain-gammon rule, then 1.x's
  SanityCheck (:func:`_sanity_check_1x`), which adds certain win, loss and gammon and
  "gammon impossible" rules from the crossings left and the longest bear-off, and keeps
  gammon chances below 1e-4 outside contact.
* **One-sided bear-off** (:func:`_eval_bearoff1_1x`): win and gammon chances summed in
  float32 from the win distributions and the gammon distributions (rolls to the first
  checker off, :func:`fastbg.evaluators.bearoff_kernels.gammon_dist_table`), in the order
  of GNU Backgammon's compiled loops (:func:`_os_sum`); no sanity check (1.x runs none on
  bear-off databases: a win chance may exceed 1 by a float32 rounding, as there).

Contact, crashed, two-sided bear-off and finished games are the same in both.

Outputs are float32 values widened to float64: (win, win gammon, win backgammon,
lose gammon, lose backgammon) for the side on roll, cumulative.

Speed (batched callers use :func:`evaluate_rows`; every result equals the one-position
path :func:`evaluate_gb` bit for bit): the input features come from bitmasks
(:mod:`fastbg.evaluators.input_kernels`), the hidden layer keeps its 128 sums in vector
registers and the output sums of 16 positions of one net run in the lanes of a vector
(:mod:`fastbg.evaluators.simd`), and the kernels run without numba's reference counting
(:mod:`fastbg.jit`). One thread: 2.8 -> 0.6 us a position on average.

Everything works on gnubg's board ``gb`` int64[2, 25] (row 1 the side on roll, row 0 the
other, each in its own numbering, index 24 the bar), built from the interchange board by
:func:`to_gnubg`. Kernel arguments are grouped: ``net`` (the weights, see
:func:`fastbg.evaluators.nets.load_weights`) and ``bo`` (the bear-off tables, see
:func:`fastbg.evaluators.bearoff.tables`); per-thread scratch comes from :func:`new_scratch`.
"""
from collections import namedtuple

import numpy as np
from numba import njit

from fastbg.evaluators import bearoff_kernels as _bo
from fastbg.evaluators import simd as _simd
from fastbg.jit import HOT, INNER
from fastbg.constants import BAR, CHECKERS, OPP_BAR
# Re-exported (noqa: F401): tests and tools use these here.
from fastbg.evaluators.add_row_kernels import MAX_ADDS, WEIGHT_ROWS, base_adds, race_adds  # noqa: F401
from fastbg.evaluators.feature_kernels import _men_off_contact, half_inputs  # noqa: F401
from fastbg.evaluators.input_bit_kernels import _side_summary, _top, made_mask  # noqa: F401
from fastbg.evaluators.input_kernels import (  # noqa: F401
    _board_and_summaries_intrinsic, base_inputs, contact_features_from, contact_inputs,
    race_inputs)
from fastbg.evaluators.input_tables import (  # noqa: F401
    BASE_INPUTS, ESC, ESC1, HIT_WAY, HIT_WAYS, I_OFF1, MORE_INPUTS, RACE_HALF, RI_NCROSS, RI_OFF,
    ROLL_WAYS)
from fastbg.evaluators.pip_loss_kernels import pip_loss  # noqa: F401
from numba import config


# Position classes (gnubg's positionclass order).
C_OVER, C_BEAROFF2, C_BEAROFF1, C_RACE, C_CRASHED, C_CONTACT = range(6)
# Evaluations (``net.mode``): gnubg-nn's eval.c, or GNU Backgammon 1.x's.
EVAL_GNUBG_NN, EVAL_GNUBG = 0, 1
EVALUATIONS = {"gnubg-nn": EVAL_GNUBG_NN, "gnubg": EVAL_GNUBG}
# Nets, in the arrays of ``net``.
NET_RACE, NET_CRASHED, NET_CONTACT = range(3)
N_NETS = 3
# Input functions a net may use (named on its line of the weights file).
IF_RACE, IF_STD250, IF_CONTACT250 = range(3)
INPUT_FUNCS = {"race": IF_RACE, "std250": IF_STD250, "contact250": IF_CONTACT250}
N_INPUTS = {IF_RACE: 214, IF_STD250: 250, IF_CONTACT250: 250}
MAX_INPUTS = 250
N_OUT = 5
OUT_WIN, OUT_WG, OUT_WBG, OUT_LG, OUT_LBG = range(5)

Net = namedtuple("Net", "w1 b1 w2 b2 beta n_in n_hid ifunc mode")
Net.__doc__ = """The weights of the three nets (index NET_*), padded to the largest; H hidden units.

w1 float32[3, WEIGHT_ROWS, H] input -> hidden weights (rows 0..249; then the products
that :func:`fastbg.evaluators.add_row_kernels.extended_weights` computes beforehand, which
:func:`evaluate_rows` adds without a multiply); b1 float32[3, H] hidden thresholds;
w2 float32[3, 5, H] hidden -> output weights; b2 float32[3, 5] output thresholds;
beta float32[3, 2] (hidden, output) sigmoid scales; n_in int64[3] inputs of each net
(0: absent, e.g. no crashed net); n_hid int64[3] its hidden units; ifunc int64[3] its
input function (IF_*); mode int64 the evaluation, EVAL_GNUBG_NN or EVAL_GNUBG (a runtime
flag: both are compiled into the same kernels). Built by
:func:`fastbg.evaluators.nets.load_weights`."""

Bearoff = namedtuple("Bearoff", "binom one_sided two_sided gammon race_bg race_bg_ok "
                     "gammon_dist")
Bearoff.__doc__ = """The bear-off tables (:func:`fastbg.evaluators.bearoff.tables`).

binom int64[.., ..] binomials of the position index; one_sided int64[54264, 32] gnubg's
one-sided distributions (x 65535); two_sided uint16[924, 924] two-sided equities;
gammon int64[54264, 4] first-checker-off distributions; race_bg int64[924, 5] race
backgammon table; race_bg_ok bool[924] its presence; gammon_dist int64[15504, 32] the
gammon distributions (x 65535) of the 15-checker positions, row index - N_GAMMON_LIMIT
(GNU Backgammon 1.x's evaluation). (The ``probs_kernel`` plug-in keeps narrower integer
types: one_sided and gammon_dist uint16, gammon int32.)"""

NetScratch = namedtuple("NetScratch", "inp hidden out gb dummy nz ht slot fill rsum res cls "
                                      "adds")
NetScratch.__doc__ = """Per-thread scratch of the evaluation (:func:`new_scratch`).

inp float32[250] inputs; hidden float32[256] hidden units; out float32[5] outputs;
gb int64[2, 25] gnubg board; dummy int64[2, 25] race-backgammon board; nz int64[250]
indices of the non-zero inputs; then for :func:`evaluate_rows`: ht float32[3, LANES, 128]
hidden units of up to LANES positions a net, a row each; slot int64[3, LANES] their row
numbers; fill int64[3] how many wait; rsum float32[5, LANES] output sums; then for
:func:`scores`: res float64[ROWS_PER_CALL, 5] probabilities and cls int8[ROWS_PER_CALL]
classes of a block of candidates; adds int64[MAX_ADDS] the weight rows a position adds
without a multiply (:func:`fastbg.evaluators.add_row_kernels.base_adds`)."""

# gnubg's sigmoid table: e[k] = exp(k / 10) / 10, one extra entry, then zeros to seven whole
# vectors (the AVX-512 lookup of fastbg.evaluators.simd loads the table as vectors).
SIG_E = np.array([np.exp(k / 10.0) / 10.0 for k in range(100)] + [np.exp(9.9) / 10.0]
                 + [0.0] * (_simd.TABLE_PAD - 101), np.float32)
SIG_HI = np.float32(1.0) / np.float32(19931.370438230298)
SIG_LO = np.float32(19930.370438230298) / np.float32(19931.370438230298)


@njit(**HOT)
def sigmoid(x):
    """gnubg's 1 / (1 + e^x) in float32: table of exp(k/10), linear in the remainder."""
    ten = np.float32(10.0)
    one = np.float32(1.0)
    if not np.signbit(x):
        if x < ten:
            x1 = ten * x
            i = np.int64(x1)
            return one / (one + SIG_E[i] * (np.float32(10 - i) + x1))
        return SIG_HI
    if x > -ten:
        x1 = -ten * x
        i = np.int64(x1)
        return one - one / (one + SIG_E[i] * (np.float32(10 - i) + x1))
    return SIG_LO


@njit(cache=True, inline="always")
def _fill_gnubg(b, gb, mover_row):
    """gnubg rows from interchange board ``b``: its mover's checkers into row ``mover_row``,
    the opponent's into the other, each in its own numbering (index 24 the bar)."""
    other = 1 - mover_row
    for j in range(24):
        v = b[j + 1]
        gb[mover_row, j] = v if v > 0 else 0
        w = -b[24 - j]
        gb[other, j] = w if w > 0 else 0
    gb[mover_row, 24] = b[BAR]
    gb[other, 24] = -b[0]


@njit(**HOT)
def to_gnubg(b, gb):
    """Interchange board (player on roll) -> gnubg's gb[2, 25] (row 1 on roll)."""
    _fill_gnubg(b, gb, 1)


@njit(**HOT)
def to_gnubg_swapped(b, gb):
    """Interchange board seen from the mover -> gnubg's board with the *other* side on roll."""
    _fill_gnubg(b, gb, 0)


@njit(**HOT)
def bearoff_index(row, binom):
    """gnubg's PositionBearoff of points 1..6 of one side (row[0..5])."""
    return _bo.position_index(row, binom)


@njit(**HOT)
def classify(gb, binom):
    """gnubg's ClassifyPosition."""
    n_opp_back = -1
    for i in range(24, -1, -1):
        if gb[0, i]:
            n_opp_back = i
            break
    n_back = -1
    for i in range(24, -1, -1):
        if gb[1, i]:
            n_back = i
            break
    if n_back < 0 or n_opp_back < 0:
        return C_OVER
    if n_back + n_opp_back > 22:
        for side in range(2):
            tot = 0
            for i in range(25):
                tot += gb[side, i]
            if _crashed_side(gb, side, tot):
                return C_CRASHED
        return C_CONTACT
    return _class_without_contact(gb, n_back, n_opp_back, binom)


@njit(**HOT)
def classify_from(gb, s0, s1, binom):
    """:func:`classify` from the sides' :func:`_side_summary` ``s0`` and ``s1`` (rows 0
    and 1 of ``gb``): the rearmost checkers are their occupied masks' top bits and the
    checker counts their totals, no pass over the points."""
    n_opp_back = _top(s0[0])
    n_back = _top(s1[0])
    if n_back < 0 or n_opp_back < 0:
        return C_OVER
    if n_back + n_opp_back > 22:
        if _crashed_side(gb, 0, s0[4]) or _crashed_side(gb, 1, s1[4]):
            return C_CRASHED
        return C_CONTACT
    return _class_without_contact(gb, n_back, n_opp_back, binom)


@njit(**INNER)
def _class_without_contact(gb, n_back, n_opp_back, binom):
    """The class of a position whose sides have passed each other, from their rearmost
    checkers: a race while either has a checker beyond its home board, else a bear-off
    (the two-sided database's class while both sides are among its 924 positions of up
    to six checkers on six points, the one-sided database's otherwise)."""
    if n_back > 5 or n_opp_back > 5:
        return C_RACE
    if (bearoff_index(gb[0], binom) >= _bo.N_TWO_SIDED
            or bearoff_index(gb[1], binom) >= _bo.N_TWO_SIDED):
        return C_BEAROFF1
    return C_BEAROFF2


@njit(**INNER)
def _crashed_side(gb, side, tot):
    """gnubg's ClassifyPosition test of one side of ``tot`` checkers: True when it has
    crashed (at most six checkers left, not counting a made 1-point, or a made 1- and
    2-point but one checker, or the 2-point's checkers but one)."""
    if tot <= 6:
        return True
    if gb[side, 0] > 1:
        if tot - gb[side, 0] <= 6:
            return True
        return gb[side, 1] > 1 and 1 + tot - (gb[side, 0] + gb[side, 1]) <= 6
    return tot - (gb[side, 1] - 1) <= 6


@njit(**HOT)
def inputs_into(ifunc, gb, inp, nz):
    """Fill ``inp`` with input function ``ifunc`` (IF_*) of ``gb``; the indices of the
    non-zero inputs go to ``nz`` in increasing order, their number is returned."""
    if ifunc == IF_RACE:
        return race_inputs(gb, inp, nz)
    return contact_inputs(gb, inp, nz, ifunc == IF_CONTACT250)


# ---- network --------------------------------------------------------------------------

@njit(**HOT)
def forward(net, k, inp, nz, n_nz, hidden, out):
    """Net ``k`` on ``inp`` whose non-zero entries are inp[nz[:n_nz]] (increasing), float32.

    Hidden sums as gnubg's Evaluate: thresholds, then the non-zero inputs in input order
    (:func:`fastbg.evaluators.simd.hidden_sums`, eight 16-lane vectors held in registers:
    0.56 -> 0.39 us a contact position, measured), then the sigmoids and the output sums
    in gnubg's order too (:func:`fastbg.evaluators.simd.outputs`), so the outputs are those of
    the plain loops bit for bit.
    """
    w1, b1, w2, b2, beta = net.w1, net.b1, net.w2, net.b2, net.beta
    nh = net.n_hid[k]
    h = hidden[:nh]
    _simd.hidden_sums(w1[k], b1[k, :nh], inp, nz, n_nz, h)
    _simd.outputs(h, -beta[k, 0], SIG_E, SIG_LO, SIG_HI, w2[k], b2[k], out)
    bo = -beta[k, 1]
    for o in range(N_OUT):
        out[o] = sigmoid(bo * out[o])


# ---- bear-off and race refinements ------------------------------------------------------

@njit(**HOT)
def eval_bearoff2(gb, bo, out):
    """Two-sided table: win probability only."""
    binom, ts = bo.binom, bo.two_sided
    n_us = bearoff_index(gb[1], binom)
    n_them = bearoff_index(gb[0], binom)
    us = np.float32(ts[n_us, n_them])
    eq = us / np.float32(32767.5) - np.float32(1.0)
    for i in range(N_OUT):
        out[i] = 0.0
    out[OUT_WIN] = np.float64(eq / np.float32(2.0)) + 0.5


@njit(**INNER)
def _gammon_probs(gb, bp0, bp1, bo):
    """gnubg's setGammonProb: (lose gammon, win gammon) for all-home positions."""
    binom, os_, gam = bo.binom, bo.one_sided, bo.gammon
    tot0 = 0
    tot1 = 0
    for i in range(6):
        tot0 += gb[0, i]
        tot1 += gb[1, i]
    g0 = 0.0
    g1 = 0.0
    if tot0 == CHECKERS:
        gp = gam[bearoff_index(gb[0], binom)]
        prob = os_[bp1]
        m0 = gp[0] / 36.0
        m1 = m0 + gp[1] / (36.0 * 36.0)
        m2 = m1 + gp[2] / (36.0 * 36.0 * 36.0)
        g1 = ((prob[1] / 65535.0) + (1 - m0) * (prob[2] / 65535.0)
              + (1 - m1) * (prob[3] / 65535.0) + (1 - m2) * (prob[4] / 65535.0))
    if tot1 == CHECKERS:
        gp = gam[bearoff_index(gb[1], binom)]
        prob = os_[bp0]
        m0 = gp[0] / 36.0
        m1 = m0 + gp[1] / (36.0 * 36.0)
        m2 = m1 + gp[2] / (36.0 * 36.0 * 36.0)
        g0 = ((prob[1] / 65535.0) * (1 - m0) + (prob[2] / 65535.0) * (1 - m1)
              + (prob[3] / 65535.0) * (1 - m2))
    return g0, g1


INT32_LIMIT = 1 << 31


@njit(**INNER)
def _one_sided_win(n, n_opp, os_, wraps):
    """P(the side on roll, index n, finishes no later than the other, index n_opp), as
    gnubg's EvalBearoff1Full computes it: the sum over i <= j of 16-bit products
    p_n[i] p_opp[j], each a C ``int``, into an unsigned 64-bit total.

    A product of 2^31 or more wraps negative and, the true total being below 2^32, drives
    the total below zero, i.e. huge: gnubg then returns a value far above 1 (its sanity
    check clips it to a certain win). Here: suffix sums for the exact total, suffix
    maxima to detect a wrap, which returns 2.0 (every use of the value only compares it
    with 0 and 1, then clips it). Without ``wraps`` (GNU Backgammon 1.x, whose float sum
    does not overflow) the exact value."""
    x = np.int64(0)
    suffix = np.int64(0)
    top = np.int64(0)
    wrap = False
    for i in range(31, -1, -1):
        b = os_[n_opp, i]
        suffix += b
        if b > top:
            top = b
        a = os_[n, i]
        x += a * suffix
        if a * top >= INT32_LIMIT:
            wrap = True
    if wrap and wraps:
        return 2.0
    return np.float64(x) / (65535.0 * 65535.0)


@njit(**HOT)
def eval_bearoff1(gb, bo, out):
    """One-sided distributions, gammons from the first-checker-off table."""
    binom, os_ = bo.binom, bo.one_sided
    n_opp = bearoff_index(gb[0], binom)
    n = bearoff_index(gb[1], binom)
    if n > _bo.N_GAMMON_LIMIT or n_opp > _bo.N_GAMMON_LIMIT:
        lg, wg = _gammon_probs(gb, n_opp, n, bo)
        out[OUT_LG] = lg
        out[OUT_WG] = wg
    else:
        out[OUT_WG] = 0.0
        out[OUT_LG] = 0.0
    out[OUT_WBG] = 0.0
    out[OUT_LBG] = 0.0
    out[OUT_WIN] = _one_sided_win(n, n_opp, os_, True)


# GNU Backgammon 1.x's 1 / 65535 (its compiler multiplies by the float32 reciprocal).
INV_65535 = np.float32(1.0) / np.float32(65535.0)


@njit(**INNER)
def _os_sum(ta, ka, tb, kb, strict):
    """GNU Backgammon 1.x's float32 sum over i and j >= i + strict of a[i] b[j], where
    a = ta[ka] / 65535 and b = tb[kb] / 65535 (distributions of 32 rolls), in the order of
    its compiled BearoffEvalOneSided: for each i, the products of the j from i + strict in
    blocks of four add up in four lanes, the lanes reduce as (l0 + l2) + (l1 + l3) into the
    total, then the last (32 - i - strict) % 4 products one by one (its loop vectorised
    with SSE; equal to gnubg.evaluate bit for bit, tests/test_gnubg_weights.py).

    Zero entries add exact zeros, so the loops stop at the non-zero spans of the rows (a
    distribution has about ten). Written with while loops and called from one place: a
    first version (range loops, a call for each of the three sums and one in the race
    backgammons) added about 2.3 s to the networks' first compile, this one about 1.3 s
    (user time, 2-core AMD EPYC)."""
    last = _bo.MAX_ROLLS - 1
    hi_a = last
    while hi_a > 0 and ta[ka, hi_a] == 0:
        hi_a -= 1
    lo_b = 0
    while lo_b < last and tb[kb, lo_b] == 0:
        lo_b += 1
    hi_b = last
    while hi_b > lo_b and tb[kb, hi_b] == 0:
        hi_b -= 1
    r = np.float32(0.0)
    i = 0
    while i <= hi_a:
        x = np.float32(ta[ka, i]) * INV_65535
        s = i + strict
        end = s + ((last + 1 - s) & ~3)                 # end of the vector blocks
        l0 = np.float32(0.0)
        l1 = np.float32(0.0)
        l2 = np.float32(0.0)
        l3 = np.float32(0.0)
        j = max(s, lo_b)
        while j <= hi_b:
            v = x * (np.float32(tb[kb, j]) * INV_65535)
            if j >= end:
                if j == end:
                    r += (l0 + l2) + (l1 + l3)
                r += v
            else:
                lane = (j - s) & 3
                if lane == 0:
                    l0 += v
                elif lane == 1:
                    l1 += v
                elif lane == 2:
                    l2 += v
                else:
                    l3 += v
            j += 1
        if end > s and j <= end:
            r += (l0 + l2) + (l1 + l3)
        i += 1
    return r


@njit(**INNER)
def _eval_bearoff1_1x(gb, bo, out):
    """GNU Backgammon 1.x's one-sided bear-off (BearoffEvalOneSided with the gammon
    distributions): the side on roll wins when it is off in no more rolls than the other,
    wins a gammon when it is off before the other's first checker, loses one when the
    other is off before its own first checker; no backgammons."""
    binom, os_, gd = bo.binom, bo.one_sided, bo.gammon_dist
    n_opp = bearoff_index(gb[0], binom)
    n = bearoff_index(gb[1], binom)
    on0 = 0
    on1 = 0
    for i in range(25):
        on0 += gb[0, i]
        on1 += gb[1, i]
    # A side with fewer than 15 checkers has its first checker off (roll 0): the other
    # side, which has checkers, cannot be off before it, so that gammon is 0.
    out[OUT_WG] = 0.0
    out[OUT_LG] = 0.0
    gammons = on0 == CHECKERS or on1 == CHECKERS
    lim = _bo.N_GAMMON_LIMIT
    # One call site for the three sums (each call site is optimised and compiled again in
    # every kernel above it: three cost 2 s more on the networks' first call)
    for q in range(3):
        ka, tb, kb = n, os_, n_opp                      # q 0: win
        if q == 1:                                      # win gammon
            if not gammons or n_opp < lim:
                continue
            tb, kb = gd, n_opp - lim
        elif q == 2:                                    # lose gammon
            if not gammons or n < lim:
                continue
            ka, tb, kb = n_opp, gd, n - lim
        out[q + (q == 2)] = _os_sum(os_, ka, tb, kb, q == 2)
    out[OUT_WBG] = 0.0
    out[OUT_LBG] = 0.0


@njit(**HOT)
def race_bg_prob(gb, side, binom, os_, rbg, dummy, mode):
    """gnubg's raceBGprob: P(``side`` wins a backgammon) in a race (float32). The bear-off
    arrays come one by one (binomials, one-sided distributions, race-backgammon table):
    passing the whole tuple of tables cost 0.05 us a race position in reference counting.
    More than six checkers to save: a one-sided race, its win chance gnubg-nn's or (mode
    EVAL_GNUBG) without its overflow: GNU Backgammon 1.x's float sum, within its float32
    rounding (:func:`_os_sum` there cost a second copy of it in the kernels' compile)."""
    men_home = 0
    for i in range(6):
        men_home += gb[side, i]
    pips_op = 0
    for i in range(22, 17, -1):
        pips_op += gb[1 - side, i] * (i - 17)
    if pips_op == 0:
        return np.float32(0.0)
    lhs = _cdiv(men_home + 3, np.int64(4)) - (1 if side == 1 else 0)
    if not lhs <= _cdiv(pips_op + 2, np.int64(3)):
        return np.float32(0.0)
    for i in range(25):
        dummy[side, i] = gb[side, i]
        dummy[1 - side, i] = 0
    for i in range(6):
        dummy[1 - side, i] = gb[1 - side, 18 + i]
    tot = 0
    for i in range(5):
        tot += dummy[1 - side, i]
    if tot <= 6:
        zone = bearoff_index(dummy[1 - side], binom)
        k = bearoff_index(gb[side], binom)
        p = np.float32(0.0)
        scale = np.uint64(36) if side == 0 else np.uint64(1)
        for j in range(1 - side, _bo.RBG_ROLLS):
            s = np.uint64(0)
            scale *= np.uint64(36)
            for i in range(1, j + side + 1):
                s += np.uint64(os_[k, i])
            p += np.float32(rbg[zone, j]) / np.float32(scale) * np.float32(s)
        return np.float32(np.float64(p) / 65535.0)
    # More than six checkers to save: the escape as a one-sided bear-off race.
    n_opp = bearoff_index(dummy[0], binom)
    n = bearoff_index(dummy[1], binom)
    win = np.float32(_one_sided_win(n, n_opp, os_, mode != EVAL_GNUBG))
    return win if side == 1 else np.float32(np.float64(1.0) - win)


@njit(**INNER)
def _cdiv(a, b):
    """C integer division (truncates toward zero)."""
    q = abs(a) // b
    return q if a >= 0 else -q


@njit(**HOT)
def race_improvement(gb, out, bo, dummy, mode):
    """gnubg's raceImprovement: exact race backgammons, certain gammons (mode EVAL_GNUBG:
    GNU Backgammon 1.x's EvalRaceBG, the backgammons alone)."""
    _race_improvement(gb, out, bo.binom, bo.one_sided, bo.race_bg, dummy, mode)


@njit(**INNER)
def _race_improvement(gb, out, binom, os_, rbg, dummy, mode):
    """gnubg's raceImprovement: exact race backgammons, certain gammons (mode EVAL_GNUBG:
    GNU Backgammon 1.x's EvalRaceBG, the backgammons alone)."""
    men0 = 0
    men1 = 0
    for i in range(22, -1, -1):
        men0 += gb[0, i]
        men1 += gb[1, i]
    g_possible = men0 == CHECKERS       # the side on roll can win a gammon
    og_possible = men1 == CHECKERS      # ... or lose one
    bg_possible = False
    obg_possible = False
    if og_possible:
        for i in range(23, 17, -1):
            if gb[1, i] > 0:
                obg_possible = True
                break
    if g_possible:
        for i in range(23, 17, -1):
            if gb[0, i] > 0:
                bg_possible = True
                break
    if bg_possible or obg_possible:
        side = 1 if bg_possible else 0
        pr = race_bg_prob(gb, side, binom, os_, rbg, dummy, mode)
        if pr > 0.0:
            if side == 1:
                out[OUT_WBG] = pr
                if np.float32(out[OUT_WG]) < np.float32(out[OUT_WBG]):
                    out[OUT_WG] = out[OUT_WBG]
            else:
                out[OUT_LBG] = pr
                if np.float32(out[OUT_LG]) < np.float32(out[OUT_LBG]):
                    out[OUT_LG] = out[OUT_LBG]
        else:
            if side == 1:
                out[OUT_WBG] = 0.0
            else:
                out[OUT_LBG] = 0.0
    if (g_possible or og_possible) and mode != EVAL_GNUBG:
        side = 1 if g_possible else 0
        tot_pip = 0
        for i in range(23):
            tot_pip += (i + 1) * gb[side, i]
        n_cross = 0
        for k in range(3, 0, -1):
            p = 6 * k + 5
            for i in range(6):
                n_cross += k * gb[1 - side, p - i]
        saver_at_most = 1 + n_cross // 4
        men = men1 if side else men0
        op_at_least = max((men + 1) // 2, (tot_pip + 2) // 3)
        if op_at_least < saver_at_most + side:
            out[OUT_WG if side else OUT_LG] = 1.0
            out[OUT_WIN] = 1.0 if side else 0.0


@njit(**INNER)
def _loser_kind(gb, loser):
    """(gammon, backgammon) as 0/1 for ``loser`` (gnubg row) of a finished game."""
    c = 0
    for i in range(25):
        c += gb[loser, i]
    if c <= 14:
        return 0.0, 0.0        # he bore off a checker: a single game
    for i in range(18, 25):
        if gb[loser, i]:
            return 1.0, 1.0    # still in the winner's home board or on the bar
    return 1.0, 0.0


@njit(**INNER)
def _has_checkers(gb, side):
    for i in range(25):
        if gb[side, i]:
            return True
    return False


@njit(**HOT)
def eval_over(gb, out):
    """gnubg's EvalOver: the game is finished (row 0 is the side not on roll)."""
    if not _has_checkers(gb, np.int64(0)):          # the side not on roll bore off all: roller lost
        g, bg = _loser_kind(gb, np.int64(1))
        out[OUT_WIN] = 0.0
        out[OUT_WG] = 0.0
        out[OUT_WBG] = 0.0
        out[OUT_LG] = g
        out[OUT_LBG] = bg
    elif not _has_checkers(gb, np.int64(1)):        # the roller bore off all
        g, bg = _loser_kind(gb, np.int64(0))
        out[OUT_WIN] = 1.0
        out[OUT_WG] = g
        out[OUT_WBG] = bg
        out[OUT_LG] = 0.0
        out[OUT_LBG] = 0.0


@njit(**INNER)
def _nest_outcomes(out, lose):
    """Gammons at most the wins (win gammons at most the win, lose gammons at most ``lose``,
    the chance of losing), backgammons at most the gammons: the sanity checks' last step
    (the win chance is not changed by it, so ``lose`` may be taken first)."""
    if out[OUT_WG] > out[OUT_WIN]:
        out[OUT_WG] = out[OUT_WIN]
    if out[OUT_LG] > lose:
        out[OUT_LG] = lose
    if out[OUT_WBG] > out[OUT_WG]:
        out[OUT_WBG] = out[OUT_WG]
    if out[OUT_LBG] > out[OUT_LG]:
        out[OUT_LBG] = out[OUT_LG]


@njit(**HOT)
def sanity_check(gb, out):
    """gnubg's SanityCheck, in float32 as gnubg."""
    ac0 = 0
    ac1 = 0
    back0 = 0
    back1 = 0
    for i in range(25):
        if gb[0, i]:
            back0 = i
            ac0 += gb[0, i]
        if gb[1, i]:
            back1 = i
            ac1 += gb[1, i]
    sanity_of_counts(out, ac0, ac1, back0, back1)


@njit(**INNER)
def side_counts(b, swapped, counts):
    """From interchange board ``b``: counts[0..3] = on-board checkers and back point of
    gnubg's side 0 and side 1 (the side on roll is side 1, or side 0 with ``swapped``;
    -1: none), counts[4..7] = their checkers on points 0 and 1 (side 0's then side 1's):
    what :func:`fastbg.evaluators.net_kernels.classify` and the sanity check read.
    Without branches on the board (they cost 0.1 us a position, measured)."""
    tm = 0
    to = 0
    km = -1
    ko = -1
    for idx in range(1, 25):
        v = np.int64(b[idx])
        pos = max(v, 0)
        neg = max(-v, 0)
        tm += pos
        to += neg
        km = max(km, idx - 1 if pos > 0 else -1)
        ko = max(ko, 24 - idx if neg > 0 else -1)
    bar = np.int64(b[BAR])
    obar = -np.int64(b[OPP_BAR])
    tm += bar
    to += obar
    km = 24 if bar > 0 else km
    ko = 24 if obar > 0 else ko
    m = 0 if swapped else 1
    counts[2 * m] = tm
    counts[2 * m + 1] = km
    counts[2 * (1 - m)] = to
    counts[2 * (1 - m) + 1] = ko
    counts[4 + 2 * m] = max(np.int64(b[1]), 0)
    counts[5 + 2 * m] = max(np.int64(b[2]), 0)
    counts[4 + 2 * (1 - m)] = max(-np.int64(b[24]), 0)
    counts[5 + 2 * (1 - m)] = max(-np.int64(b[23]), 0)


@njit(**INNER)
def sanity_of_counts(out, ac0, ac1, back0, back1):
    """:func:`sanity_check` from the sides' checkers on the board (ac0: the side not on
    roll's) and back points, without the board (the pruning nets' kernel has no board)."""
    contact = back0 + back1 >= 24
    if ac0 < CHECKERS:
        out[OUT_WG] = 0.0
        out[OUT_WBG] = 0.0
    elif not contact and back0 < 18:
        out[OUT_WBG] = 0.0
    if ac1 < CHECKERS:
        out[OUT_LG] = 0.0
        out[OUT_LBG] = 0.0
    elif not contact and back1 < 18:
        out[OUT_LBG] = 0.0
    if out[OUT_WIN] < 0.0:
        out[OUT_WIN] = 0.0
    elif out[OUT_WIN] > 1.0:
        out[OUT_WIN] = 1.0
    _nest_outcomes(out, np.float32(1.0 - out[OUT_WIN]))
    noise = np.float32(1 / 10000.0)
    for i in range(1, 5):
        if out[i] < noise:
            out[i] = 0.0


@njit(**INNER)
def _crossings(gb, side):
    """GNU Backgammon 1.x's SanityCheck counts of ``side``: (checkers, back point, home
    board crossings left, 1 + crossings left to its home board's edge); a checker in
    quarter q (points 1-6 q = 0 ... bar q = 4) counts q + 1 and q."""
    n = 0
    back = 0
    cross = 0
    gcross = 1
    for i in range(25):
        c = gb[side, i]
        if c:
            back = i
            n += c
            q = min(i // 6, 4)
            cross += (q + 1) * c
            gcross += q * c
    return n, back, cross, gcross


@njit(**INNER)
def _max_turns(gb, side, binom, os_):
    """GNU Backgammon 1.x's MaxTurns: the most rolls the bear-off of ``side`` (all on
    points 1..6) can take, the last non-zero roll of its distribution (-1: none)."""
    k = bearoff_index(gb[side], binom)
    for i in range(_bo.MAX_ROLLS - 1, -1, -1):
        if os_[k, i]:
            return i
    return -1


@njit(**INNER)
def _sanity_check_1x(gb, out, binom, os_):
    """GNU Backgammon 1.x's SanityCheck, in float32 as there. Outside contact it adds to
    :func:`sanity_check`'s rules: a certain win when the side on roll's crossings fit in
    four a turn before the other's longest bear-off (a side not yet home: two turns a
    crossing), a certain loss the other way, certain gammon and "gammon impossible" rules
    from the crossings to the home board's edge; and it keeps gammon chances below 1e-4
    (it zeroes them in contact only)."""
    if out[OUT_WIN] < 0.0:
        out[OUT_WIN] = 0.0
    elif out[OUT_WIN] > 1.0:
        out[OUT_WIN] = 1.0
    ac0, back0, cross0, gcross0 = _crossings(gb, np.int64(0))
    ac1, back1, cross1, gcross1 = _crossings(gb, np.int64(1))
    contact = back0 + back1 >= 24
    turns0 = 0
    turns1 = 0
    if not contact:
        turns0 = _max_turns(gb, np.int64(0), binom, os_) if back0 < 6 else 2 * cross0
        turns1 = _max_turns(gb, np.int64(1), binom, os_) if back1 < 6 else 2 * cross1
        if turns1 == 0:
            turns1 = 1
        if cross0 > 4 * (turns1 - 1):
            out[OUT_WIN] = 1.0                          # certain win
    if ac0 < CHECKERS:
        out[OUT_WG] = 0.0
        out[OUT_WBG] = 0.0
    elif not contact:
        if cross1 > 8 * gcross0:
            out[OUT_WG] = 0.0                           # gammon impossible
        elif gcross0 > 4 * (turns1 - 1):
            out[OUT_WG] = 1.0                           # certain gammon
        if back0 < 18:
            out[OUT_WBG] = 0.0
    if not contact and cross1 > 4 * turns0:
        out[OUT_WIN] = 0.0                              # certain loss
    if ac1 < CHECKERS:
        out[OUT_LG] = 0.0
        out[OUT_LBG] = 0.0
    elif not contact:
        if cross0 > 8 * gcross1 - 4:
            out[OUT_LG] = 0.0
        elif gcross1 > 4 * turns0:
            out[OUT_LG] = 1.0
        if back1 < 18:
            out[OUT_LBG] = 0.0
    # 1.x subtracts in float32 (gnubg-nn rounds a wider difference): the same in all but
    # the last bit, kept as each engine does it
    _nest_outcomes(out, np.float32(1.0) - np.float32(out[OUT_WIN]))
    if contact:
        noise = np.float32(1 / 10000.0)
        for i in range(1, 5):
            if out[i] < noise:
                out[i] = 0.0


# Candidates scored per block by :func:`scores` (their probabilities kept in the scratch).
ROWS_PER_CALL = 256


def scratch():
    """Per-thread scratch (a :class:`NetScratch`) made in Python, for callers of
    :func:`evaluate_rows` from Python: the types of :func:`new_scratch`'s (a test compares
    them), without compiling it and numba's ``np.zeros`` for each of its array types."""
    z = np.zeros
    return NetScratch(z(MAX_INPUTS, np.float32), z(256, np.float32), z(N_OUT, np.float32),
                      z((2, 25), np.int64), z((2, 25), np.int64), z(MAX_INPUTS, np.int64),
                      z((N_NETS, _simd.LANES, _simd.FAST_HIDDEN), np.float32),
                      z((N_NETS, _simd.LANES), np.int64), z(N_NETS, np.int64),
                      z((N_OUT, _simd.LANES), np.float32), z((ROWS_PER_CALL, N_OUT), np.float64),
                      z(ROWS_PER_CALL, np.int8), z(MAX_ADDS, np.int64))


@njit(cache=True)
def new_scratch():
    """Per-thread scratch (a :class:`NetScratch`), for kernels."""
    return NetScratch(np.zeros(MAX_INPUTS, np.float32), np.zeros(256, np.float32),
                      np.zeros(N_OUT, np.float32), np.zeros((2, 25), np.int64),
                      np.zeros((2, 25), np.int64), np.zeros(MAX_INPUTS, np.int64),
                      np.zeros((N_NETS, _simd.LANES, _simd.FAST_HIDDEN), np.float32),
                      np.zeros((N_NETS, _simd.LANES), np.int64), np.zeros(N_NETS, np.int64),
                      np.zeros((N_OUT, _simd.LANES), np.float32),
                      np.zeros((ROWS_PER_CALL, N_OUT), np.float64),
                      np.zeros(ROWS_PER_CALL, np.int8), np.zeros(MAX_ADDS, np.int64))


@njit(**INNER)
def _evaluate_table(gb, pc, mode, bo, out):
    """Probabilities of a finished game or a bear-off position (class ``pc`` at most
    C_BEAROFF1) from the rules and the bear-off tables, then gnubg-nn's sanity check
    (GNU Backgammon 1.x, ``mode`` EVAL_GNUBG, checks none of these)."""
    if pc == C_OVER:
        for i in range(N_OUT):
            out[i] = 0.0
        eval_over(gb, out)
    elif pc == C_BEAROFF2:
        eval_bearoff2(gb, bo, out)
    elif mode == EVAL_GNUBG:
        _eval_bearoff1_1x(gb, bo, out)
    else:
        eval_bearoff1(gb, bo, out)
    if mode != EVAL_GNUBG:
        sanity_check(gb, out)


@njit(**HOT)
def evaluate_gb(gb, net, bo, scr):
    """0-ply probabilities of gnubg board ``gb`` into scr.out (float32); returns the class."""
    inp, hidden, out, dummy = scr.inp, scr.hidden, scr.out, scr.dummy
    pc = classify(gb, bo.binom)
    if pc <= C_BEAROFF1:
        _evaluate_table(gb, pc, net.mode, bo, out)
    else:
        k = _net_of(pc, net.n_in)
        n_nz = inputs_into(net.ifunc[k], gb, inp, scr.nz)
        forward(net, k, inp, scr.nz, n_nz, hidden, out)
        if k == NET_RACE:
            race_improvement(gb, out, bo, dummy, net.mode)
        if k == NET_RACE and net.mode == EVAL_GNUBG:
            _sanity_check_1x(gb, out, bo.binom, bo.one_sided)
        else:
            sanity_check(gb, out)
    return pc


@njit(**INNER)
def _load_gb(rows, i, swapped, gb):
    if swapped:
        to_gnubg_swapped(rows[i], gb)
    else:
        to_gnubg(rows[i], gb)


@njit(**INNER)
def _board_and_summaries(rows, i, swapped, gb):
    """:func:`_load_gb` of rows[i] and both rows' :func:`_side_summary` (row 0's, row
    1's). The kernels run :func:`board_and_summaries`, the same by vector lanes from
    one load of the row; this is its reference. With :func:`classify_from`: the load,
    class and summaries of a contact position 25.8 -> 14.9 ns alone (one thread), and
    in the batch kernel, whose later vector reads of the board no longer wait on its
    scalar stores, 1-ply searches 7%, 2-ply 10% and hints 8% faster (paired processes
    in turn, two threads)."""
    _load_gb(rows, i, swapped, gb)
    return _side_summary(gb[0]), _side_summary(gb[1])


if config.DISABLE_JIT:
    board_and_summaries = _board_and_summaries      # no intrinsics without the JIT
else:
    board_and_summaries = _board_and_summaries_intrinsic


@njit(**INNER)
def _net_of(pc, n_in):
    if pc == C_RACE:
        return NET_RACE
    if pc == C_CRASHED and n_in[NET_CRASHED] > 0:
        return NET_CRASHED
    return NET_CONTACT


@njit(**INNER)
def _flush(k, rows, swapped, net, bo, scr, probs):
    """Finish the positions waiting for net ``k``: their output sums side by side, then
    each one's output sigmoids, race refinements and sanity check, into ``probs``."""
    out, gb, dummy = scr.out, scr.gb, scr.dummy
    ht, slot, fill, rsum = scr.ht, scr.slot, scr.fill, scr.rsum
    counts = scr.nz[MAX_INPUTS - 8:]      # the list's tail: free once the hidden sums are done
    binom, os_, rbg = bo.binom, bo.one_sided, bo.race_bg
    _simd.outputs_rows(ht[k], net.w2[k], net.b2[k], rsum)
    # The output sigmoids of the whole block as vectors: :func:`sigmoid` of each sum.
    _simd.sigmoid_rows(rsum, -net.beta[k, 1], SIG_E, SIG_LO, SIG_HI)
    for s in range(fill[k]):
        i = slot[k, s]
        for o in range(N_OUT):
            out[o] = rsum[o, s]
        if k == NET_RACE:
            _load_gb(rows, i, swapped, gb)
            _race_improvement(gb, out, binom, os_, rbg, dummy, net.mode)
            if net.mode == EVAL_GNUBG:
                _sanity_check_1x(gb, out, binom, os_)
            else:
                sanity_check(gb, out)
        else:
            # the sanity check's counts straight from the board row, without branches
            # (no gnubg board to rebuild: both sides have checkers in contact)
            side_counts(rows[i], swapped, counts)
            sanity_of_counts(out, counts[0], counts[2], counts[1], counts[3])
        for o in range(N_OUT):
            probs[i, o] = out[o]
    fill[k] = 0


def all_fast(net):
    """True when every net present has 128 hidden units (gnubg's do): the batch kernel
    :func:`evaluate_rows` takes those, :func:`evaluate_rows_plain` any."""
    return bool(np.all((net.n_in == 0) | (net.n_hid == _simd.FAST_HIDDEN)))


@njit(nogil=True, **HOT)
def evaluate_rows(rows, lo, hi, swapped, net, bo, scr, probs, classes):
    """probs[lo:hi] (float64, the float32 outputs widened) and classes[lo:hi] (int8) of
    interchange boards rows[lo:hi], for the side on roll, or with ``swapped`` for the
    other side (a move's results: their scores are :func:`_mover_equity` of these);
    ``scr`` a scratch of :func:`new_scratch`, one per thread. Every net present must have
    128 hidden units (:func:`all_fast`; gnubg's do); :func:`evaluate_rows_plain` takes
    any.

    The networks' batch kernel. It runs without the GIL, on Python threads
    (:func:`fastbg.parallel.run_spans`), not in a ``prange`` loop, and it is called from
    Python directly: every kernel that holds the networks compiles them again, and a
    level of calls above them costs their optimisation and code generation again (about
    3 s each on a 2-core machine), so the evaluators, the move scores, the n-ply search,
    the bots of lock-step games and the rollouts' variance reduction all come here.

    The same numbers as :func:`evaluate_gb` one by one, but the inputs of 1 and of a few
    values (a point's checkers above three, the race's crossings, most features) are
    listed as weight rows added without a multiply
    (:func:`fastbg.evaluators.add_row_kernels.extended_weights`; contact 0.550 -> 0.538 us,
    crashed 0.468 -> 0.446 us, race 0.283 -> 0.260 us a position, one thread, medians of
    5 processes in turn), and the output sums of LANES
    positions of one net run side by side in the lanes of a vector (the sums of one
    position are chains of 128 dependent adds, in gnubg's order; alone they leave the
    adder idle: 0.32 -> 0.07 us a contact position, measured, one thread). Each
    position's hidden units are stored as a row and the block is transposed in registers
    (:func:`fastbg.evaluators.simd.outputs_rows`), not scattered into lanes unit by unit.
    """
    inp, hidden = scr.inp, scr.hidden
    out, gb, nz, adds = scr.out, scr.gb, scr.nz, scr.adds
    ht, slot, fill = scr.ht, scr.slot, scr.fill
    w1, b1, beta, n_in, ifuncs = net.w1, net.b1, net.beta, net.n_in, net.ifunc
    binom = bo.binom
    h = hidden[:_simd.FAST_HIDDEN]
    for k in range(N_NETS):
        fill[k] = 0
    for i in range(lo, hi):
        s0, s1 = board_and_summaries(rows, i, swapped, gb)
        pc = classify_from(gb, s0, s1, binom)
        classes[i] = pc
        if pc <= C_BEAROFF1:
            _evaluate_table(gb, pc, net.mode, bo, out)
            for o in range(N_OUT):
                probs[i, o] = out[o]
            continue
        k = _net_of(pc, n_in)
        # The inputs as rows added without a multiply, then the features' products
        # (:func:`fastbg.evaluators.add_row_kernels.extended_weights`: the same sums).
        if ifuncs[k] == IF_RACE:
            n_adds = race_adds(gb, adds)
            n_nz = 0
        else:
            n_adds = base_adds(gb, adds)
            n_nz = contact_features_from(gb, s0, s1, inp, nz, ifuncs[k] == IF_CONTACT250)
        _simd.hidden_sums_adds_128(w1[k], b1[k], adds, n_adds, inp, nz, n_nz, h)
        _simd.sigmoids_to_row(h, -beta[k, 0], SIG_E, SIG_LO, SIG_HI, ht[k], fill[k])
        slot[k, fill[k]] = i
        fill[k] += 1
        if fill[k] == _simd.LANES:
            _flush(k, rows, swapped, net, bo, scr, probs)
    for k in range(N_NETS):
        if fill[k]:
            _flush(k, rows, swapped, net, bo, scr, probs)


@njit(nogil=True, **HOT)
def evaluate_rows_plain(rows, lo, hi, swapped, net, bo, scr, probs, classes):
    """:func:`evaluate_rows` for nets of any width: position by position
    (:func:`evaluate_gb`), the same numbers."""
    gb, out = scr.gb, scr.out
    for i in range(lo, hi):
        _load_gb(rows, i, swapped, gb)
        classes[i] = evaluate_gb(gb, net, bo, scr)
        for o in range(N_OUT):
            probs[i, o] = out[o]


@njit(**HOT)
def evaluate_board(b, net, bo, scr, probs):
    """Probabilities (float64[5]) of interchange board ``b`` for the player on roll."""
    gb = scr.gb
    to_gnubg(b, gb)
    pc = evaluate_gb(gb, net, bo, scr)
    out = scr.out
    for i in range(N_OUT):
        probs[i] = out[i]
    return pc


@njit(**INNER)
def _mover_equity(p):
    """The mover's cubeless money equity from the opponent's probabilities ``p`` (float32
    values, widened or not), in float32 as gnubg's ``InvertEvaluation`` + ``Utility``."""
    one = np.float32(1.0)
    win = one - np.float32(p[OUT_WIN])
    wg = np.float32(p[OUT_LG])
    wbg = np.float32(p[OUT_LBG])
    lg = np.float32(p[OUT_WG])
    lbg = np.float32(p[OUT_WBG])
    return np.float32(np.float64(win) * 2.0 - 1.0 + wg + wbg - lg - lbg)


@njit(**HOT)
def scores(cands, k, net, bo, scr, out):
    """out[i] = gnubg's 0-ply score of the result cands[i] (seen from the mover) for i < k:
    the mover's cubeless money equity (:func:`_mover_equity` of the probabilities with
    the opponent on roll), evaluated in blocks by :func:`evaluate_rows`."""
    res, cls = scr.res, scr.cls
    fast = True
    for j in range(N_NETS):
        fast &= net.n_in[j] == 0 or net.n_hid[j] == _simd.FAST_HIDDEN
    for b0 in range(0, k, ROWS_PER_CALL):
        b1 = min(k, b0 + ROWS_PER_CALL)
        if fast:
            evaluate_rows(cands[b0:b1], 0, b1 - b0, np.bool_(True), net, bo, scr, res, cls)
        else:
            evaluate_rows_plain(cands[b0:b1], 0, b1 - b0, np.bool_(True), net, bo, scr, res,
                                cls)
        for i in range(b0, b1):
            out[i] = _mover_equity(res[i - b0])
