"""Slow reference of TD(0) self-play (fastbg/training/td_kernels.py), in plain Python and
numpy float64: one update written out as the chain rule says, and the game loop that
plays the networks against themselves and calls it after every move.

The network's forward pass here sums in float64 and takes gnubg's sigmoid (the kernels'
:func:`fastbg.evaluators.net_tables.sigmoid`, the one function borrowed), so the
reference and the kernel agree to float32 rounding.
"""
import numpy as np

import fastbg
from fastbg.evaluators import net_kernels as K
from fastbg.evaluators.gnubg_board_kernels import classify, to_gnubg
from fastbg.evaluators.net_tables import C_BEAROFF1, C_CRASHED, C_RACE, sigmoid

NETS = {C_RACE: K.NET_RACE, C_CRASHED: K.NET_CRASHED}


def _sig(x):
    return float(sigmoid(np.float32(x)))


def update(board, target, alpha, net, bo):
    """One TD step on ``net`` (updated in place) for ``board``; returns the net index or -1."""
    gb = np.zeros((2, 25), np.int64)
    to_gnubg(board, gb)
    pc = classify(gb, bo.binom)
    if pc <= C_BEAROFF1:
        return -1
    k = NETS.get(pc, K.NET_CONTACT)
    inp = np.zeros(K.MAX_INPUTS, np.float32)
    nz = np.zeros(K.MAX_INPUTS, np.int64)
    K.inputs_into(net.ifunc[k], gb, inp, nz)
    n, h = int(net.n_in[k]), int(net.n_hid[k])
    x = inp[:n].astype(np.float64)
    _chain_rule(net, k, n, h, x, target, alpha)
    return k


def _chain_rule(net, k, n, h, x, target, alpha):
    """Net ``k`` of ``net`` (arrays w1, b1, w2, b2, beta; n inputs, h hidden units) on
    inputs ``x``, moved towards ``target``: the forward pass in float64 with gnubg's
    sigmoid, then the cross-entropy's gradient written out, applied in place."""
    w1, b1 = net.w1[k, :n, :h].astype(np.float64), net.b1[k, :h].astype(np.float64)
    w2, b2 = net.w2[k, :, :h].astype(np.float64), net.b2[k].astype(np.float64)
    beta_h, beta_o = float(net.beta[k, 0]), float(net.beta[k, 1])
    hidden = np.array([_sig(-beta_h * s) for s in b1 + x @ w1])
    out = np.array([_sig(-beta_o * s) for s in b2 + w2 @ hidden])
    # d(cross-entropy)/d(logit) of each output, times alpha
    d_out = alpha * beta_o * (np.asarray(target, np.float64) - out)
    d_hidden = (w2.T @ d_out) * beta_h * hidden * (1.0 - hidden)
    net.w2[k, :, :h] += np.outer(d_out, hidden).astype(np.float32)
    net.b2[k] += d_out.astype(np.float32)
    net.w1[k, :n, :h] += np.outer(x, d_hidden).astype(np.float32)
    net.b1[k, :h] += d_hidden.astype(np.float32)


def _mover_equity(p):
    """The mover's equity from the probabilities ``p`` of the opponent on roll (float32
    probabilities, summed in float64, rounded to float32 as the kernels do)."""
    p = [np.float32(v) for v in p]
    win = np.float32(1.0) - p[0]
    return np.float32(float(win) * 2.0 - 1.0 + float(p[3]) + float(p[4]) - float(p[1])
                      - float(p[2]))


def play_and_learn(seed, games, alpha, net, bo):
    """Games 0 .. games-1 of ``seed``: the networks choose each move at 0-ply (the
    evaluation of fastbg's kernels) and learn after each one by :func:`update`."""
    from fastbg import dice
    from fastbg.sim.ply_kernels import win_kind
    scr = K.scratch()
    for game in range(games):
        side, a, b, _ = dice.opening_roll(seed, game)
        d1, d2 = (a, b) if side == 0 else (b, a)
        board = fastbg.START.copy()
        ply = 0
        while True:
            if ply > 0:
                d1, d2 = dice.roll(seed, game, ply)
            results = np.ascontiguousarray(fastbg.legal_moves(board, (d1, d2)))
            probs = np.zeros((len(results), 5))
            classes = np.zeros(len(results), np.int8)
            K.evaluate_rows_plain(results, 0, len(results), True, net, bo, scr, probs, classes)
            eq = [_mover_equity(p) for p in probs]
            i = int(np.argmax(eq))
            after = results[i]
            if not (after[1:26] > 0).any():
                kind = win_kind(after)
                target = [1.0, float(kind >= 2), float(kind == 3), 0.0, 0.0]
            else:
                p = probs[i]
                target = [1 - p[0], p[3], p[4], p[1], p[2]]
            update(board, np.array(target, np.float32), alpha, net, bo)
            ply += 1
            if not (after[1:26] > 0).any():
                break
            board = fastbg.flip(after)


def selfplay_positions(seed, games, per_game, net, bo):
    """The positions fastbg/training/fit_kernels.py's ``selfplay_positions`` keeps: every
    game played by the networks at 0-ply (no learning), its positions after the opening
    that a network evaluates, then ``per_game`` of them drawn by a partial Fisher-Yates
    shuffle with the dice module's uniform index (turns from DRAW_TURN0)."""
    from fastbg import dice
    from fastbg.training.fit_kernels import DRAW_TURN0
    scr = K.scratch()
    kept = []
    for game in range(games):
        side, a, b, _ = dice.opening_roll(seed, game)
        d1, d2 = (a, b) if side == 0 else (b, a)
        board = fastbg.START.copy()
        seen = []
        ply = 0
        while True:
            if ply > 0:
                d1, d2 = dice.roll(seed, game, ply)
                gb = np.zeros((2, 25), np.int64)
                to_gnubg(board, gb)
                if classify(gb, bo.binom) > C_BEAROFF1:
                    seen.append(board.copy())
            results = np.ascontiguousarray(fastbg.legal_moves(board, (d1, d2)))
            i = 0
            if len(results) > 1:
                probs = np.zeros((len(results), 5))
                K.evaluate_rows_plain(results, 0, len(results), True, net, bo, scr, probs,
                                      np.zeros(len(results), np.int8))
                i = int(np.argmax([_mover_equity(p) for p in probs]))
            after = results[i]
            ply += 1
            if not (after[1:26] > 0).any():
                break
            board = fastbg.flip(after)
        for j in range(min(per_game, len(seen))):
            r = j + int(dice.uniform_index(seed, game, DRAW_TURN0 + j, len(seen) - j))
            seen[j], seen[r] = seen[r], seen[j]
            kept.append(seen[j])
    return np.array(kept, np.int8).reshape(-1, 26)


def prune_update(board, target, alpha, pnet, bo):
    """One step of a pruning net (fastbg/training/fit_kernels.py's ``prune_update``): the
    net of the board's class on the 200 base inputs, the chain rule in float64."""
    from fastbg.evaluators.input_kernels import base_inputs
    from fastbg.evaluators.net_tables import C_RACE
    gb = np.zeros((2, 25), np.int64)
    to_gnubg(board, gb)
    pc = classify(gb, bo.binom)
    if pc < C_RACE:
        return -1
    k = pc - C_RACE
    inp = np.zeros(K.MAX_INPUTS, np.float32)
    nz = np.zeros(K.MAX_INPUTS, np.int64)
    base_inputs(gb, inp, nz)
    _chain_rule(pnet, k, 200, int(pnet.n_hid[k]), inp[:200].astype(np.float64), target, alpha)
    return k
