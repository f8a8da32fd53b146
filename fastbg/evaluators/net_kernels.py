"""GNU Backgammon's 0-ply evaluation (the gnubg-nn networks) as numba kernels.

The evaluation follows gnubg-nn's ``eval.c`` and ``inputs.c`` (Joseph Heled's GNU
Backgammon networks, weights file version 1.01), re-implemented here from their
description:

* **Classes** (:func:`fastbg.evaluators.gnubg_board_kernels.classify`, gnubg's
  ``ClassifyPosition``): game over; two-sided bear-off (both sides on their points 1..6
  with at most six checkers each); one-sided bear-off (both on 1..6, one side with more);
  race (no contact); crashed (contact where a side has at most six checkers left, or six
  once the checkers piled on its points 1 and 2 are discounted); contact.
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
  linear correction (:func:`fastbg.evaluators.net_tables.sigmoid`).
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
  SanityCheck (:func:`fastbg.evaluators.sanity_kernels._sanity_check_1x`), which adds
  certain win, loss and gammon and "gammon impossible" rules from the crossings left and
  the longest bear-off, and keeps gammon chances below 1e-4 outside contact.
* **One-sided bear-off** (:func:`fastbg.evaluators.table_eval_kernels._eval_bearoff1_1x`):
  win and gammon chances summed in float32 from the win distributions and the gammon
  distributions (rolls to the first checker off,
  :func:`fastbg.evaluators.bearoff_kernels.gammon_dist_table`), in the order of GNU
  Backgammon's compiled loops (:func:`fastbg.evaluators.table_eval_kernels._os_sum`);
  no sanity check (1.x runs none on bear-off databases: a win chance may exceed 1 by a
  float32 rounding, as there).

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
:func:`fastbg.evaluators.gnubg_board_kernels.to_gnubg`. Kernel arguments are grouped:
``net`` (the weights, see :func:`fastbg.evaluators.nets.load_weights`) and ``bo`` (the
bear-off tables, see :func:`fastbg.evaluators.bearoff.tables`); per-thread scratch comes
from :func:`fastbg.evaluators.net_tables.new_scratch`.

The parts live in modules by what they hold (this module re-exports the names others
import from it): :mod:`fastbg.evaluators.net_tables` (the constants, :class:`Net`,
:class:`Bearoff`, :class:`NetScratch`, the scratch and the sigmoid),
:mod:`fastbg.evaluators.gnubg_board_kernels` (gnubg's board from the interchange board,
the position class), :mod:`fastbg.evaluators.table_eval_kernels` (finished games and the
bear-off databases), :mod:`fastbg.evaluators.race_refine_kernels` (raceImprovement),
:mod:`fastbg.evaluators.sanity_kernels` (the sanity checks), the inputs in
:mod:`fastbg.evaluators.input_kernels` and its parts. This module keeps the evaluation
itself: a net's inputs and forward pass, one position (:func:`evaluate_gb`,
:func:`evaluate_board`), the batch kernel (:func:`evaluate_rows`, its lanes and
:func:`_flush`) and the move scores (:func:`scores`).
"""
import numpy as np
from numba import njit, types
from numba.extending import overload

from fastbg.evaluators import simd as _simd
from fastbg.jit import HOT, INNER
from fastbg.evaluators.add_row_kernels import base_adds, race_adds_occupied
from fastbg.evaluators.gnubg_board_kernels import (_load_gb, board_and_summaries, classify,
                                                   classify_from, to_gnubg)
from fastbg.evaluators.input_kernels import contact_features_from, contact_inputs, race_inputs
from fastbg.evaluators.net_tables import (C_BEAROFF1, C_CRASHED, C_RACE, EVAL_GNUBG,
                                          IF_CONTACT250, IF_RACE, MAX_INPUTS, N_NETS, N_OUT,
                                          NET_CONTACT, NET_CRASHED, NET_RACE, OUT_LBG, OUT_LG,
                                          OUT_WBG, OUT_WG, OUT_WIN, ROWS_PER_CALL, SIG_E, SIG_HI,
                                          SIG_LO, sigmoid)
from fastbg.evaluators.race_refine_kernels import (_race_improvement, apply_race_record,
                                                   race_improvement, race_record)
from fastbg.evaluators.sanity_kernels import (_sanity_check_1x, sanity_check, sanity_of_counts,
                                              side_counts)
from fastbg.evaluators.table_eval_kernels import _evaluate_table
# Re-exported (noqa: F401): tests and tools use these here.
from fastbg.evaluators.add_row_kernels import MAX_ADDS, WEIGHT_ROWS  # noqa: F401
from fastbg.evaluators.feature_kernels import _men_off_contact, half_inputs  # noqa: F401
from fastbg.evaluators.gnubg_board_kernels import _board_and_summaries  # noqa: F401
from fastbg.evaluators.input_bit_kernels import _side_summary, _top, made_mask  # noqa: F401
from fastbg.evaluators.input_kernels import (  # noqa: F401
    _board_and_summaries_intrinsic, base_inputs)
from fastbg.evaluators.input_tables import (  # noqa: F401
    BASE_INPUTS, ESC, ESC1, HIT_WAY, HIT_WAYS, I_OFF1, MORE_INPUTS, RACE_HALF, RI_NCROSS, RI_OFF,
    ROLL_WAYS)
from fastbg.evaluators.net_tables import (  # noqa: F401
    C_BEAROFF2, C_CONTACT, C_OVER, EVAL_GNUBG_NN, EVALUATIONS, IF_STD250, INPUT_FUNCS,
    N_INPUTS, Bearoff, Net, NetScratch, new_scratch, plain_marker, scratch)
from fastbg.evaluators.pip_loss_kernels import pip_loss  # noqa: F401


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
        if k == NET_RACE and net.mode == EVAL_GNUBG:
            _load_gb(rows, i, swapped, gb)
            _race_improvement(gb, out, binom, os_, rbg, dummy, net.mode)
            _sanity_check_1x(gb, out, binom, os_)
        elif k == NET_RACE:
            # raceImprovement and the sanity check, as worked out from the board
            apply_race_record(out, scr.race, scr.race_bg, s)
        else:
            # the sanity check's counts straight from the board row, without branches
            # (no gnubg board to rebuild: both sides have checkers in contact)
            side_counts(rows[i], swapped, counts)
            sanity_of_counts(out, counts[0], counts[2], counts[1], counts[3])
        for o in range(N_OUT):
            probs[i, o] = out[o]
    fill[k] = 0


def all_fast(net):
    """True when the batch kernel :func:`evaluate_rows` takes ``net`` (``net.plain`` is
    None: every net present has 128 hidden units, as gnubg's do, and the product rows);
    :func:`evaluate_rows_plain` takes any."""
    return net.plain is None


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

    A race position's refinements are worked out from its board here, while it is loaded
    (:func:`fastbg.evaluators.race_refine_kernels.race_record`), and applied to the
    outputs at the flush. (Compiling every part into this kernel, :data:`fastbg.jit.INLINED`,
    gained 5-8% but cost every kernel that holds this one 1-2 s more compiling: only the
    features and the race parts are.)
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
            n_adds = race_adds_occupied(gb, s0[0], s1[0], adds)
            n_nz = 0
            if k == NET_RACE and net.mode != EVAL_GNUBG:
                race_record(gb, s0, s1, binom, bo.one_sided, bo.race_bg, scr.dummy, net.mode,
                            scr.race, scr.race_bg, fill[k])
        else:
            n_adds = base_adds(gb, s0[0], s1[0], adds)
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
    the opponent on roll), evaluated in blocks by the batch kernel that takes ``net``
    (:func:`_evaluate_rows_of`)."""
    res, cls = scr.res, scr.cls
    # lo as np.int64, not the literal 0: the kernels' int64 overload, the one Python's
    # calls compile (a literal argument is an overload, a whole compile, of its own)
    lo = np.int64(0)
    for b0 in range(0, k, ROWS_PER_CALL):
        b1 = min(k, b0 + ROWS_PER_CALL)
        _evaluate_rows_of(net, cands[b0:b1], lo, b1 - b0, bo, scr, res, cls)
        for i in range(b0, b1):
            out[i] = _mover_equity(res[i - b0])


def _evaluate_rows_of(net, rows, lo, hi, bo, scr, probs, classes):
    """The batch kernel that takes ``net`` (:func:`all_fast`), on results seen by their
    mover: :func:`evaluate_rows` or :func:`evaluate_rows_plain`. In kernels the overload
    below chooses by ``net``'s type (its ``plain``), so only that one is compiled in."""
    kernel = evaluate_rows if all_fast(net) else evaluate_rows_plain
    kernel(rows, lo, hi, np.bool_(True), net, bo, scr, probs, classes)


@overload(_evaluate_rows_of, inline="always")
def _evaluate_rows_of_impl(net, rows, lo, hi, bo, scr, probs, classes):
    if isinstance(dict(zip(net.fields, net.types))["plain"], types.NoneType):
        def impl(net, rows, lo, hi, bo, scr, probs, classes):
            evaluate_rows(rows, lo, hi, np.bool_(True), net, bo, scr, probs, classes)
    else:
        def impl(net, rows, lo, hi, bo, scr, probs, classes):
            evaluate_rows_plain(rows, lo, hi, np.bool_(True), net, bo, scr, probs, classes)
    return impl
