"""TD(0) self-play in numba: networks in GNU Backgammon's layout learn from their own games.

A game is played by the networks being trained (0-ply: each roll's legal results scored by
the mover's cubeless money equity, the best one played, as the ``"gnubg"`` bot plays),
and after every move the networks' outputs for the position before it (the mover on roll)
are moved towards the outputs of the position the move made (turned to the mover's view),
or, when the move ends the game, towards its result. That is TD(0) with the temporal
difference of every one of the five outputs (win, win gammon, win backgammon, lose
gammon, lose backgammon); updates are made at once, so the next move is chosen by the
networks as they have just learnt (sequential by nature: see docs/training.md for what
parallel variants would cost).

The networks are :class:`fastbg.evaluators.net_tables.Net` arrays: race, crashed and
contact nets with GNU Backgammon's inputs (:func:`fastbg.evaluators.net_kernels.inputs_into`),
evaluated by the kernels every other part of fastbg uses (the plain path
:func:`fastbg.evaluators.net_kernels.evaluate_rows_plain`, which reads the input rows
only, so the in-place updates are seen at once). Positions GNU Backgammon's evaluation
takes from its bear-off tables (fastbg's own, computed by dynamic programming) get no
update: those values are exact and are the targets of the race net's last steps.

The gradient is that of the cross-entropy of each output: for output ``o`` with logit
``z_o`` (``out_o = 1 / (1 + exp(-beta_o z_o))``) the step on ``z_o`` is
``alpha beta_o (target_o - out_o)``, back-propagated through the hidden sigmoids
(``beta_h``). The slow reference is tests/reference/td_ref.py.

Dice are a pure function of (seed, game, ply) (:mod:`fastbg.dice`): a run cut into chunks
of games, or stopped and resumed between chunks, learns exactly what a run in one piece
learns.
"""
import numpy as np
from numba import njit

from fastbg import dice as _dice
from fastbg.constants import BOARD_SIZE, MAX_RESULTS
from fastbg.evaluators.gnubg_board_kernels import classify, to_gnubg
from fastbg.evaluators.net_kernels import (_mover_equity, _net_of, evaluate_rows_plain,
                                           forward, inputs_into)
from fastbg.evaluators.net_tables import (C_BEAROFF1, N_OUT, OUT_LBG, OUT_LG, OUT_WBG, OUT_WG,
                                          OUT_WIN, new_scratch)
from fastbg.jit import HOT, INNER
from fastbg.position import movegen as _mg
from fastbg.sim.ply_kernels import flip_inplace, mover_checkers, start_game, win_kind

# Entries of the statistics vector a run accumulates (float64).
S_GAMES, S_PLIES, S_UPDATES_RACE, S_UPDATES_CRASHED, S_UPDATES_CONTACT, S_ERR_RACE, \
    S_ERR_CRASHED, S_ERR_CONTACT, S_GAMMONS, S_BACKGAMMONS, S_FIRST_WINS, S_SIZE = range(12)
# (S_FIRST_WINS: games won by the side that moved first, which plays the opening roll)
# Plies after which a game is abandoned (it never happens with sane nets; a guard for a
# diverged one: the game then counts, with no result, and nothing more is learnt from it).
MAX_PLIES = 2000


@njit(**INNER)
def invert_into(p, out):
    """out = the five probabilities of ``p``'s other side (p: the side on roll's)."""
    out[OUT_WIN] = 1.0 - p[OUT_WIN]
    out[OUT_WG] = p[OUT_LG]
    out[OUT_WBG] = p[OUT_LBG]
    out[OUT_LG] = p[OUT_WG]
    out[OUT_LBG] = p[OUT_WBG]


@njit(**INNER)
def backward_step(w1, b1, w2, b2, beta_h, beta_o, nh, inp, nz, n_nz, hidden, out, target,
                  alpha, grad_h):
    """One net's step towards ``target`` after its forward pass: ``hidden`` its ``nh``
    hidden units (sigmoids), ``out`` its outputs, inputs inp[nz[:n_nz]] the non-zero ones.
    Each output's logit moves by alpha beta_o (target - out) (the cross-entropy's
    gradient), back-propagated through the hidden sigmoids (beta_h) with the output
    weights as they were before their own step; ``grad_h`` float32 scratch."""
    for j in range(nh):
        grad_h[j] = 0.0
    for o in range(N_OUT):
        d = np.float32(alpha * beta_o * (target[o] - out[o]))
        for j in range(nh):
            grad_h[j] += d * w2[o, j]         # through the weights before their step
        for j in range(nh):
            w2[o, j] += d * hidden[j]
        b2[o] += d
    for j in range(nh):
        h = hidden[j]
        grad_h[j] *= beta_h * h * (np.float32(1.0) - h)
    for t in range(n_nz):
        i = nz[t]
        x = inp[i]
        row = w1[i]
        for j in range(nh):
            row[j] += grad_h[j] * x
    for j in range(nh):
        b1[j] += grad_h[j]


@njit(**HOT)
def td_update(board, target, alpha, net, bo, scr, grad_h):
    """Move the networks' outputs for interchange ``board`` (player on roll) towards
    ``target`` (float32[5]); returns the net updated (NET_*), or -1 for a position of
    the bear-off tables (nothing learnt). ``grad_h`` float32 scratch of the hidden width;
    ``scr`` a :func:`fastbg.evaluators.net_tables.new_scratch`."""
    gb, inp, nz, hidden, out = scr.gb, scr.inp, scr.nz, scr.hidden, scr.out
    to_gnubg(board, gb)
    pc = classify(gb, bo.binom)
    if pc <= C_BEAROFF1:
        return -1
    k = _net_of(pc, net.n_in)
    n_nz = inputs_into(net.ifunc[k], gb, inp, nz)
    forward(net, k, inp, nz, n_nz, hidden, out)
    backward_step(net.w1[k], net.b1[k], net.w2[k], net.b2[k], net.beta[k, 0], net.beta[k, 1],
                  net.n_hid[k], inp, nz, n_nz, hidden, out, target, alpha, grad_h)
    return k


@njit(**HOT)
def _best(res, k):
    """Index of the highest mover's equity among the probabilities res[:k] (opponent on
    roll), the first on ties."""
    best = 0
    top = _mover_equity(res[0])
    for i in range(1, k):
        e = _mover_equity(res[i])
        if e > top:
            top = e
            best = i
    return best


@njit(nogil=True, cache=True)
def td_games(seed, game0, n_games, alpha, start_board, net, bo, stats):
    """Play games ``game0 .. game0 + n_games - 1`` of ``seed`` by the networks ``net``
    (a :class:`fastbg.evaluators.net_tables.Net`, updated in place), learning after every
    move at rate ``alpha``; ``bo`` the bear-off tables; ``stats`` float64[S_SIZE]
    accumulates the counts and the absolute temporal differences of the win output."""
    board = np.zeros(BOARD_SIZE, np.int8)
    cands = np.empty((MAX_RESULTS, BOARD_SIZE), np.int8)
    res = np.zeros((MAX_RESULTS, N_OUT))
    cls = np.zeros(MAX_RESULTS, np.int8)
    target = np.zeros(N_OUT, np.float32)
    probs = np.zeros(N_OUT)
    grad_h = np.zeros(net.w1.shape[2], np.float32)
    work, stack, hashes, slots = _mg.new_scratch()
    scr = new_scratch()
    gen = np.int64(0)
    for game in range(game0, game0 + n_games):
        side, d1, d2, _ = start_game(seed, game, start_board, np.int64(0), False, board)
        first = side
        ply = np.int64(0)
        while ply < MAX_PLIES:
            if ply > 0:
                d1, d2 = _dice.roll(seed, game, ply)
            gen += 1
            k = _mg.generate(board, d1, d2, cands, np.int64(0), work, stack, hashes, slots,
                             gen)
            evaluate_rows_plain(cands, np.int64(0), k, np.bool_(True), net, bo, scr, res, cls)
            i = _best(res, k) if k > 1 else 0
            over = mover_checkers(cands[i]) == 0
            if over:
                kind = win_kind(cands[i])
                target[OUT_WIN] = 1.0
                target[OUT_WG] = 1.0 if kind >= 2 else 0.0
                target[OUT_WBG] = 1.0 if kind == 3 else 0.0
                target[OUT_LG] = 0.0
                target[OUT_LBG] = 0.0
            else:
                for o in range(N_OUT):
                    probs[o] = res[i, o]
                invert_into(probs, target)
            # the error of the win output before the step, for the learning curve
            net_k = td_update(board, target, alpha, net, bo, scr, grad_h)
            if net_k >= 0:
                stats[S_UPDATES_RACE + net_k] += 1.0
                stats[S_ERR_RACE + net_k] += abs(np.float64(target[OUT_WIN])
                                                 - np.float64(scr.out[OUT_WIN]))
            for j in range(BOARD_SIZE):
                board[j] = cands[i, j]
            ply += 1
            if over:
                stats[S_GAMMONS] += 1.0 if kind >= 2 else 0.0
                stats[S_BACKGAMMONS] += 1.0 if kind == 3 else 0.0
                stats[S_FIRST_WINS] += 1.0 if side == first else 0.0
                break
            flip_inplace(board)
            side ^= 1
        stats[S_GAMES] += 1.0
        stats[S_PLIES] += ply
