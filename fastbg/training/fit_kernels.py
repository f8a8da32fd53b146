"""Supervised rounds in numba: positions from the networks' own games, and their networks
moved towards targets (rolled-out probabilities) position by position.

:func:`selfplay_positions` plays games of the networks against themselves at 0-ply (the
move choice of :mod:`fastbg.training.td_kernels`, without learning) and keeps positions
of each game, the player on roll before rolling, drawn uniformly from its plies whose
position a network evaluates (not the bear-off tables': those are exact). Dice and
draws are a pure function of (seed, game, ply).

:func:`fit_epoch` makes one pass over positions in a given order, each step
:func:`fastbg.training.td_kernels.td_update` towards the position's target: the same
cross-entropy step TD(0) takes, towards a rollout's figures instead of the next
position's. The slow reference is tests/reference/td_ref.py's ``update``.
"""
import numpy as np
from numba import njit

from fastbg import dice as _dice
from fastbg.constants import BOARD_SIZE, MAX_RESULTS
from fastbg.evaluators.gnubg_board_kernels import classify, to_gnubg
from fastbg.evaluators.net_kernels import evaluate_rows_plain
from fastbg.evaluators.input_kernels import base_inputs
from fastbg.evaluators.net_tables import C_BEAROFF1, C_RACE, N_OUT, new_scratch, sigmoid
from fastbg.jit import HOT
from fastbg.position import movegen as _mg
from fastbg.sim.ply_kernels import flip_inplace, mover_checkers, start_game
from fastbg.training.td_kernels import MAX_PLIES, _best, backward_step, td_update

# The random stream of the draws of positions (apart from the dice's turns).
DRAW_TURN0 = 1 << 20


@njit(nogil=True, cache=True)
def selfplay_positions(seed, game0, n_games, per_game, start_board, net, bo, out, kept):
    """Play games ``game0 ..`` of ``seed`` by ``net`` and write up to ``per_game``
    positions of game g to out[(g - game0) * per_game ..] (int8 boards, the player on
    roll); kept[g - game0] = how many (fewer when the game had fewer evaluated ones)."""
    board = np.zeros(BOARD_SIZE, np.int8)
    cands = np.empty((MAX_RESULTS, BOARD_SIZE), np.int8)
    seen = np.empty((MAX_PLIES, BOARD_SIZE), np.int8)
    res = np.zeros((MAX_RESULTS, N_OUT))
    cls = np.zeros(MAX_RESULTS, np.int8)
    gb = np.zeros((2, 25), np.int64)
    work, stack, hashes, slots = _mg.new_scratch()
    scr = new_scratch()
    gen = np.int64(0)
    for game in range(game0, game0 + n_games):
        _, d1, d2, _ = start_game(seed, game, start_board, np.int64(0), False, board)
        n_seen = 0
        ply = np.int64(0)
        while ply < MAX_PLIES:
            if ply > 0:
                d1, d2 = _dice.roll(seed, game, ply)
                to_gnubg(board, gb)
                if classify(gb, bo.binom) > C_BEAROFF1:      # the opening is every game's
                    for j in range(BOARD_SIZE):
                        seen[n_seen, j] = board[j]
                    n_seen += 1
            gen += 1
            k = _mg.generate(board, d1, d2, cands, np.int64(0), work, stack, hashes, slots,
                             gen)
            i = 0
            if k > 1:
                evaluate_rows_plain(cands, np.int64(0), k, np.bool_(True), net, bo, scr, res, cls)
                i = _best(res, k)
            for j in range(BOARD_SIZE):
                board[j] = cands[i, j]
            ply += 1
            if mover_checkers(board) == 0:
                break
            flip_inplace(board)
        # draw min(per_game, n_seen) distinct plies: a partial Fisher-Yates shuffle of
        # the seen positions' indices, the draws a pure function of (seed, game, j)
        g = game - game0
        take = min(per_game, n_seen)
        for j in range(take):
            r = j + _dice.uniform_index(seed, game, DRAW_TURN0 + j, n_seen - j)
            for c in range(BOARD_SIZE):
                x = seen[j, c]
                seen[j, c] = seen[r, c]
                seen[r, c] = x
                out[g * per_game + j, c] = seen[j, c]
        kept[g] = take


@njit(nogil=True, cache=True)
def fit_epoch(boards, targets, order, alpha, net, bo, errors):
    """One pass over boards[order[t]] (t = 0, 1, ...), each moved towards
    targets[order[t]] (float32[5]) at rate ``alpha``; errors[t] = the absolute error of
    the win output before its step (NaN for a bear-off position, which learns nothing)."""
    scr = new_scratch()
    grad_h = np.zeros(net.w1.shape[2], np.float32)
    for t in range(order.shape[0]):
        i = order[t]
        k = td_update(boards[i], targets[i], alpha, net, bo, scr, grad_h)
        if k < 0:
            errors[t] = np.nan
        else:
            errors[t] = abs(np.float64(targets[i, 0]) - np.float64(scr.out[0]))


@njit(**HOT)
def prune_update(board, target, alpha, pnet, bo, scr, grad_h):
    """:func:`fastbg.training.td_kernels.td_update` for the pruning nets: the net of the
    board's class (race, crashed or contact; -1 and nothing learnt for the others) on the
    200 base inputs, ``pnet`` (w1 float32[3, 200, H], b1 [3, H], w2 [3, 5, H], b2 [3, 5],
    beta [3, 2], n_hid int64[3], as :class:`fastbg.evaluators.prune_kernels.PruneNet`
    without its encoding sums) moved towards ``target``. scr.out holds the outputs
    before the step."""
    gb, inp, nz, hidden, out = scr.gb, scr.inp, scr.nz, scr.hidden, scr.out
    to_gnubg(board, gb)
    pc = classify(gb, bo.binom)
    if pc < C_RACE:
        return -1
    k = pc - C_RACE
    n_nz = base_inputs(gb, inp, nz)
    nh = pnet.n_hid[k]
    w1, b1, w2, b2 = pnet.w1[k], pnet.b1[k], pnet.w2[k], pnet.b2[k]
    beta_h = pnet.beta[k, 0]
    beta_o = pnet.beta[k, 1]
    for j in range(nh):
        hidden[j] = b1[j]
    for t in range(n_nz):
        i = nz[t]
        x = inp[i]
        for j in range(nh):
            hidden[j] += w1[i, j] * x
    for j in range(nh):
        hidden[j] = sigmoid(-beta_h * hidden[j])
    for o in range(N_OUT):
        z = b2[o]
        for j in range(nh):
            z += w2[o, j] * hidden[j]
        out[o] = sigmoid(-beta_o * z)
    backward_step(w1, b1, w2, b2, beta_h, beta_o, nh, inp, nz, n_nz, hidden, out, target,
                  alpha, grad_h)
    return k


@njit(nogil=True, cache=True)
def prune_fit_epoch(boards, targets, order, alpha, pnet, bo, errors):
    """:func:`fit_epoch` for the pruning nets (:func:`prune_update`)."""
    scr = new_scratch()
    grad_h = np.zeros(pnet.w1.shape[2], np.float32)
    for t in range(order.shape[0]):
        i = order[t]
        k = prune_update(boards[i], targets[i], alpha, pnet, bo, scr, grad_h)
        if k < 0:
            errors[t] = np.nan
        else:
            errors[t] = abs(np.float64(targets[i, 0]) - np.float64(scr.out[0]))
