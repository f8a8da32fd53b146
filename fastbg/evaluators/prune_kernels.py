"""GNU Backgammon's pruning networks: a cheap first look at a roll's candidates.

GNU Backgammon 1.x's look-ahead (eval.c, ``FindBestMoveInEval``, on when an evaluation
context has "use pruning nets") does not score every candidate of a roll with the full
network: when a roll has n candidates, more than k = 5 + floor(log2 n), all of the same
class (race, crashed or contact), it scores them with a small net of that class on the
200 base inputs only (the 4-per-point encodings, none of the hand-made features that
take most of a full evaluation's time) and scores only the best k of them with the full
network (:data:`fastbg.evaluators.search_kernels.MIN_PRUNE_MOVES`; the rule of the
``gnubg`` package 1.1.0a16, which tests/test_gnubg_weights.py checks: its 2015 eval.c
kept 10). The weights files carry these nets (gnubg-nn's names them
``prune race``, ``prune crashed``, ``prune contact``; GNU Backgammon's own files hold them
after the three main nets): 200 inputs, 8 or 16 hidden units, 5 outputs.

:func:`prune_rows` evaluates boards with them; the search's selection of each roll's
candidates is :func:`fastbg.evaluators.search_kernels.prune_select`.
"""
from collections import namedtuple

from numba import njit

from fastbg.evaluators.input_kernels import BASE_INPUTS, base_inputs
from fastbg.evaluators import simd as _simd
from fastbg.evaluators.net_kernels import (C_RACE, N_OUT, SIG_E, SIG_HI, SIG_LO, _load_gb, classify,
                                           race_improvement, sanity_check, sigmoid)
from fastbg.jit import HOT

PRUNE_INPUTS = BASE_INPUTS
# Hidden units of the kernel: gnubg's pruning nets have 8 or 16 (8 padded with zeros,
# which add exact zeros to the output sums).
PRUNE_HIDDEN = 16
MAX_PRUNE_HIDDEN = PRUNE_HIDDEN

PruneNet = namedtuple("PruneNet", "w1 b1 w2 b2 beta n_hid")
PruneNet.__doc__ = """The three pruning nets (index NET_RACE, NET_CRASHED, NET_CONTACT = class
- C_RACE), padded to MAX_PRUNE_HIDDEN hidden units.

w1 float32[3, 200, H] input -> hidden weights; b1 float32[3, H] hidden thresholds;
w2 float32[3, 5, H] hidden -> output weights; b2 float32[3, 5] output thresholds;
beta float32[3, 2] (hidden, output) sigmoid scales; n_hid int64[3] hidden units of each.
Built by :func:`fastbg.evaluators.nets.load_weights`."""


@njit(nogil=True, **HOT)
def prune_rows(rows, lo, hi, swapped, pnet, bo, scr, probs, classes):
    """classes[lo:hi] (int8) of interchange boards rows[lo:hi] (the side on roll, or with
    ``swapped`` the other side), and for those of class race, crashed or contact the
    pruning net's probabilities in probs[lo:hi] (float64, float32 values widened; rows of
    other classes are left as they were: the search scores them with the full evaluation).

    As GNU Backgammon's pruning step: the net of the position's class on its base inputs
    (hidden sums in gnubg's order: thresholds, then input by input; each output's 16
    products summed pairwise, as a vector unit sums them, which moves the last bits only),
    the race backgammon refinement in races and the sanity check. ``scr`` is the networks' scratch
    (:func:`fastbg.evaluators.net_kernels.new_scratch`)."""
    inp, nz, gb, out, hidden, dummy = scr.inp, scr.nz, scr.gb, scr.out, scr.hidden, scr.dummy
    w1, b1, w2, b2, beta = pnet.w1, pnet.b1, pnet.w2, pnet.b2, pnet.beta
    for i in range(lo, hi):
        _load_gb(rows, i, swapped, gb)
        pc = classify(gb, bo.binom)
        classes[i] = pc
        if pc < C_RACE:
            continue
        k = pc - C_RACE
        n_nz = base_inputs(gb, inp, nz)
        h = hidden[:PRUNE_HIDDEN]
        _simd.hidden_sums_16(w1[k], b1[k], inp, nz, n_nz, h)
        _simd.outputs_16_pairwise(h, -beta[k, 0], SIG_E, SIG_LO, SIG_HI, w2[k], b2[k], out)
        bo_ = -beta[k, 1]
        for o in range(N_OUT):
            out[o] = sigmoid(bo_ * out[o])
        if pc == C_RACE:
            race_improvement(gb, out, bo, dummy)
        sanity_check(gb, out)
        for o in range(N_OUT):
            probs[i, o] = out[o]
