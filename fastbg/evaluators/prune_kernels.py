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

import numpy as np
from numba import njit

from fastbg.constants import BAR, OPP_BAR
from fastbg.evaluators import simd as _simd
from fastbg.evaluators.input_tables import BAR_ENC, BASE_INPUTS, POINT_ENC
from fastbg.evaluators.net_kernels import (C_CONTACT, C_CRASHED, C_RACE, EVAL_GNUBG, MAX_INPUTS,
                                           N_OUT, SIG_E, SIG_HI, SIG_LO, _load_gb,
                                           _sanity_check_1x, classify, race_improvement,
                                           sanity_of_counts, side_counts, sigmoid)
from fastbg.jit import HOT, INNER

PRUNE_INPUTS = BASE_INPUTS
# Hidden units of the kernel: gnubg's pruning nets have 8 or 16 (8 padded with zeros,
# which add exact zeros to the output sums).
PRUNE_HIDDEN = 16
MAX_PRUNE_HIDDEN = PRUNE_HIDDEN
N_ROWS = 50                # gnubg's 25 points a side (the bar the 25th), both sides

PruneNet = namedtuple("PruneNet", "w1 b1 w2 b2 beta n_hid enc ones")
PruneNet.__doc__ = """The three pruning nets (index NET_RACE, NET_CRASHED, NET_CONTACT = class
- C_RACE), padded to MAX_PRUNE_HIDDEN hidden units.

w1 float32[3, 200, H] input -> hidden weights; b1 float32[3, H] hidden thresholds;
w2 float32[3, 5, H] hidden -> output weights; b2 float32[3, 5] output thresholds;
beta float32[3, 2] (hidden, output) sigmoid scales; n_hid int64[3] hidden units of each;
enc float32[3, 800, H] what c checkers (0..15) on gnubg's point p of side s add to the
hidden sums (row 16 (25 s + p) + c, p = 24 the bar): their base inputs times the weights,
summed in input order (:func:`encoding_sums`); ones float32[800] all 1 (the "inputs" of
those rows). Built by :func:`fastbg.evaluators.nets.load_weights`."""


def encoding_sums(w1):
    """PruneNet.enc of the input weights ``w1`` float32[3, 200, H] (numpy, at load time)."""
    n_nets, _, h = w1.shape
    enc = np.zeros((n_nets, 50, 16, h), np.float32)
    for k in range(n_nets):
        for side in range(2):
            for p in range(25):
                table = BAR_ENC if p == 24 else POINT_ENC
                first = 100 * side + 4 * p
                for c in range(1, 16):
                    total = np.zeros(h, np.float32)
                    for q in range(4):
                        x = table[c, q]
                        if x != 0:
                            total = total + w1[k, first + q] * np.float32(x)
                    enc[k, 25 * side + p, c] = total
    return enc.reshape(n_nets, 50 * 16, h), np.ones(50 * 16, np.float32)


@njit(**INNER)
def _list_rows(b, swapped, nz):
    """nz[0:50] = the ``enc`` rows of every point of board ``b`` in gnubg's input order
    (side 0's points 0..23 and bar, then side 1's), an empty point's row adding zeros:
    a fixed list without branches."""
    m = 0 if swapped else 1
    mo = 25 * m
    oo = 25 * (1 - m)
    for p in range(24):
        nz[oo + p] = 16 * (oo + p) + max(-np.int64(b[24 - p]), 0)
        nz[mo + p] = 16 * (mo + p) + max(np.int64(b[p + 1]), 0)
    nz[oo + 24] = 16 * (oo + 24) - np.int64(b[OPP_BAR])
    nz[mo + 24] = 16 * (mo + 24) + np.int64(b[BAR])


@njit(**INNER)
def _crashed_side(tot, p0, p1):
    """gnubg's ClassifyPosition rule: is a side with ``tot`` checkers, p0 and p1 on its
    points 0 and 1, crashed?"""
    if tot <= 6:
        return True
    if p0 > 1:
        if tot - p0 <= 6:
            return True
        if p1 > 1 and 1 + tot - (p0 + p1) <= 6:
            return True
    elif tot - (p1 - 1) <= 6:
        return True
    return False


@njit(**INNER)
def _contact_class(counts):
    """C_CONTACT or C_CRASHED for a position in contact (the class's rule), else -1."""
    back0, back1 = counts[1], counts[3]
    if back0 < 0 or back1 < 0 or back0 + back1 <= 22:
        return -1
    if _crashed_side(counts[0], counts[4], counts[5]) or \
            _crashed_side(counts[2], counts[6], counts[7]):
        return C_CRASHED
    return C_CONTACT


@njit(**INNER)
def _finish(k, h, pnet, out):
    """The outputs of pruning net ``k`` from its hidden sums ``h``."""
    _simd.outputs_16_pairwise(h, -pnet.beta[k, 0], SIG_E, SIG_LO, SIG_HI, pnet.w2[k],
                              pnet.b2[k], out)
    bo_ = -pnet.beta[k, 1]
    for o in range(N_OUT):
        out[o] = sigmoid(bo_ * out[o])


@njit(nogil=True, **HOT)
def prune_rows(rows, lo, hi, swapped, pnet, bo, scr, probs, classes):
    """classes[lo:hi] (int8) of interchange boards rows[lo:hi] (the side on roll, or with
    ``swapped`` the other side), and for those of class race, crashed or contact the
    pruning net's probabilities in probs[lo:hi] (float64, float32 values widened; rows of
    other classes are left as they were: the search scores them with the full evaluation).

    As GNU Backgammon's pruning step: the net of the position's class on its base inputs,
    in races its backgammon refinement (EvalRaceBG) and its own sanity check (GNU
    Backgammon 1.x's, whatever the weights: pruning is its), else the sanity check. The hidden sums come
    straight from the board: each point's share (``pnet.enc``: its checkers' base inputs
    times the weights) added in gnubg's input order, no input vector; the class of a
    position in contact from the sides' counts (others, and the race rules, through the
    gnubg board). Each output's 16 products are summed pairwise as a vector unit sums
    them. The last bits differ from gnubg's own sums (a point's four inputs are pre-summed):
    0.34 -> 0.12 us a position, measured on one thread.
    ``scr`` is the networks' scratch (:func:`fastbg.evaluators.net_tables.new_scratch`)."""
    nz, gb, out, hidden, dummy = scr.nz, scr.gb, scr.out, scr.hidden, scr.dummy
    counts = scr.nz[MAX_INPUTS - 8:]           # the list's tail: unused by the 50 rows
    h = hidden[:PRUNE_HIDDEN]
    for i in range(lo, hi):
        b = rows[i]
        side_counts(b, swapped, counts)
        pc = _contact_class(counts)
        if pc < 0:
            _load_gb(rows, i, swapped, gb)
            pc = classify(gb, bo.binom)
            classes[i] = pc
            if pc != C_RACE:
                continue
        else:
            classes[i] = pc
        k = pc - C_RACE
        _list_rows(b, swapped, nz)
        _simd.hidden_sums_16(pnet.enc[k], pnet.b1[k], pnet.ones, nz, N_ROWS, h)
        _finish(k, h, pnet, out)
        if pc == C_RACE:
            # GNU Backgammon's pruning step: EvalRaceBG and its own SanityCheck
            race_improvement(gb, out, bo, dummy, EVAL_GNUBG)
            _sanity_check_1x(gb, out, bo.binom, bo.one_sided)
        else:
            sanity_of_counts(out, counts[0], counts[2], counts[1], counts[3])
        for o in range(N_OUT):
            probs[i, o] = out[o]
