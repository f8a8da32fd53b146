"""The networks' names and shapes: the constants, the kernels' argument tuples, the
scratch and gnubg's sigmoid, which every part of the evaluation reads.

* Position classes ``C_*`` (gnubg's positionclass order), evaluations ``EVAL_*`` (the
  runtime ``net.mode``), nets ``NET_*``, input functions ``IF_*``, outputs ``OUT_*``.
* :class:`Net` (the weights), :class:`Bearoff` (the bear-off tables) and
  :class:`NetScratch` (per-thread scratch, :func:`scratch` from Python,
  :func:`new_scratch` in kernels).
* gnubg's sigmoid approximation (:func:`sigmoid`) and its table ``SIG_E``, which the
  vector layers of :mod:`fastbg.evaluators.simd` load too.

Split from :mod:`fastbg.evaluators.net_kernels` (which re-exports these names): the seam
is the kernels' vocabulary, imported by the board and class kernels, the bear-off, race
and sanity-check kernels and the networks' evaluation alike, and depending on none of
them.
"""
from collections import namedtuple

import numpy as np
from numba import njit

from fastbg.evaluators import simd as _simd
from fastbg.evaluators.add_row_kernels import MAX_ADDS, WEIGHT_ROWS
from fastbg.jit import HOT


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

Net = namedtuple("Net", "w1 b1 w2 b2 beta n_in n_hid ifunc mode plain")
Net.__doc__ = """The weights of the three nets (index NET_*), padded to the largest; H hidden units.

w1 float32[3, WEIGHT_ROWS, H] input -> hidden weights (rows 0..249; then the products
that :func:`fastbg.evaluators.add_row_kernels.extended_weights` computes beforehand, which
:func:`fastbg.evaluators.net_kernels.evaluate_rows` adds without a multiply); b1
float32[3, H] hidden thresholds;
w2 float32[3, 5, H] hidden -> output weights; b2 float32[3, 5] output thresholds;
beta float32[3, 2] (hidden, output) sigmoid scales; n_in int64[3] inputs of each net
(0: absent, e.g. no crashed net); n_hid int64[3] its hidden units; ifunc int64[3] its
input function (IF_*); mode int64 the evaluation, EVAL_GNUBG_NN or EVAL_GNUBG (a runtime
flag: both are compiled into the same kernels); plain None when
:func:`fastbg.evaluators.net_kernels.evaluate_rows`' vector path takes these nets, else an
empty int8 array (:func:`plain_marker`: a flag in the type, so that a kernel scoring moves
compiles the one path the net takes). Built by
:func:`fastbg.evaluators.nets.load_weights`."""


def plain_marker(w1, n_in, n_hid):
    """:class:`Net`'s ``plain``: None when every net present has FAST_HIDDEN hidden units
    and ``w1`` holds the product rows beyond the inputs (the vector path), else an empty
    int8 array (position by position, ``evaluate_rows_plain``).

    Why in the type: a kernel that scores moves (the bots' in game kernels) compiled both
    paths when the choice was made at run time, and the path a net does not take cost
    every such kernel's first compile about 8 s (evaluate_rows_plain with its layers,
    measured on a 2-core AMD EPYC, Zen 3)."""
    vector = (w1.shape[1] >= WEIGHT_ROWS
              and bool(np.all((n_in == 0) | (n_hid == _simd.FAST_HIDDEN))))
    return None if vector else np.zeros(0, np.int8)

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
                                      "adds race race_bg")
NetScratch.__doc__ = """Per-thread scratch of the evaluation (:func:`new_scratch`).

inp float32[250] inputs; hidden float32[256] hidden units; out float32[5] outputs;
gb int64[2, 25] gnubg board; dummy int64[2, 25] race-backgammon board; nz int64[250]
indices of the non-zero inputs; then for :func:`fastbg.evaluators.net_kernels.evaluate_rows`:
ht float32[3, LANES, 128] hidden units of up to LANES positions a net, a row each; slot
int64[3, LANES] their row numbers; fill int64[3] how many wait; rsum float32[5, LANES]
output sums; then for :func:`fastbg.evaluators.net_kernels.scores`: res
float64[ROWS_PER_CALL, 5] probabilities and cls int8[ROWS_PER_CALL] classes of a block of
candidates; adds int64[MAX_ADDS] the weight rows a position adds
without a multiply (:func:`fastbg.evaluators.add_row_kernels.base_adds`); race
int64[LANES, REC_COLUMNS] and race_bg float32[LANES] the records of the race positions
waiting for the race net (:func:`fastbg.evaluators.race_refine_kernels.race_record`)."""

# The columns of a race position's record (race_refine_kernels.race_record): both sides'
# checkers and back points, the side of an exact backgammon chance + 1, of a certain
# gammon + 1.
(REC_AC0, REC_AC1, REC_BACK0, REC_BACK1, REC_BG, REC_GAMMON, REC_COLUMNS) = range(7)

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


# Candidates scored per block by :func:`fastbg.evaluators.net_kernels.scores` (their
# probabilities kept in the scratch).
ROWS_PER_CALL = 256


def scratch():
    """Per-thread scratch (a :class:`NetScratch`) made in Python, for callers of
    :func:`fastbg.evaluators.net_kernels.evaluate_rows` from Python: the types of
    :func:`new_scratch`'s (a test compares them), without compiling it and numba's
    ``np.zeros`` for each of its array types."""
    z = np.zeros
    return NetScratch(z(MAX_INPUTS, np.float32), z(256, np.float32), z(N_OUT, np.float32),
                      z((2, 25), np.int64), z((2, 25), np.int64), z(MAX_INPUTS, np.int64),
                      z((N_NETS, _simd.LANES, _simd.FAST_HIDDEN), np.float32),
                      z((N_NETS, _simd.LANES), np.int64), z(N_NETS, np.int64),
                      z((N_OUT, _simd.LANES), np.float32), z((ROWS_PER_CALL, N_OUT), np.float64),
                      z(ROWS_PER_CALL, np.int8), z(MAX_ADDS, np.int64),
                      z((_simd.LANES, REC_COLUMNS), np.int64), z(_simd.LANES, np.float32))


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
                      np.zeros(ROWS_PER_CALL, np.int8), np.zeros(MAX_ADDS, np.int64),
                      np.zeros((_simd.LANES, REC_COLUMNS), np.int64),
                      np.zeros(_simd.LANES, np.float32))
