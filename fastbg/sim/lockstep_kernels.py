"""The lock-step driver: every live game advances by one ply per round, so that a Python
evaluator can score the candidates of all live games in one call between rounds. Set-up
(:func:`lockstep_start`), the cube phase (:func:`lockstep_cube`,
:func:`lockstep_cube_rows`), the dice (:func:`lockstep_dice`), the built-in and plug-in
bots' choices (:func:`lockstep_choose`) and the move played (:func:`lockstep_apply`);
a row's dice key and settings (:func:`game_key`, :func:`game_cfg`).

Per-game state arrays: boards (n, 26), side, ply, d1/d2 (opening dice), value, owner,
turned, alive; outcome and cube_out as in :func:`fastbg.sim.game_kernels.play_games`.

Split from :mod:`fastbg.sim.game_kernels` (which re-exports the names others import from
it): the seam is the second driver, which shares the per-ply helpers, the move choice and
the cube phase with the in-kernel game loop but not the loop itself.
"""
import numpy as np
from numba import njit, prange, types
from numba.extending import overload

from fastbg.constants import BOARD_SIZE, MAX_RESULTS
from fastbg.cube import decision_kernels as _cube
from fastbg.jit import HOT
from fastbg.sim import policy_kernels as _pol
from fastbg.sim import record_kernels as _rec
from fastbg.sim.game_cube_kernels import no_cube_at_ply0
from fastbg.sim.game_tables import (ERR_CUBE_OVERFLOW, ERR_INVARIANT, ERR_NAN, ERR_TOO_LONG,
                                    G_AWAY0, G_AWAY1, G_CRAWFORD_AFTER, G_CRAWFORD_GAME,
                                    G_CUBE_OWNER, G_CUBE_VALUE, G_DEBUG, G_MAX_PLIES, G_OPENING,
                                    G_START_SIDE, G_TRUNCATE, G_USE_START, as_bearoff, as_net,
                                    plain)
from fastbg.sim.move_choice_kernels import call_scorer, choose_builtin, net_scratch
from fastbg.sim.ply_kernels import (flip_inplace, mover_checkers, start_game, step_ok, turn_dice,
                                    win_kind)


def game_key(game0, g):
    """The dice key of the game in row ``g`` of a lock-step run: ``game0 + g`` for a run of
    consecutive games, ``game0[g]`` when ``game0`` is an int64 array of keys (lock-step
    matches, each row the current game of its match:
    :func:`fastbg.sim.game_kernels.match_key`). Chosen by type
    when compiling, so runs of games compile as before."""
    if isinstance(game0, np.ndarray):
        return game0[g]
    return game0 + g


@overload(game_key)
def _game_key_impl(game0, g):
    if isinstance(game0, types.Array):
        return lambda game0, g: game0[g]
    return lambda game0, g: game0 + g


def game_cfg(gcfg, g):
    """The settings vector of the game in row ``g``: ``gcfg`` itself when the games of a
    call share it (int64 (G_SIZE,)), row ``g`` when each game has its own (int64 (n,
    G_SIZE): lock-step matches, each game at its match's score)."""
    if gcfg.ndim == 2:
        return gcfg[g]
    return gcfg


@overload(game_cfg)
def _game_cfg_impl(gcfg, g):
    if gcfg.ndim == 2:
        return lambda gcfg, g: gcfg[g]
    return lambda gcfg, g: gcfg


@njit(parallel=True, cache=True)
def lockstep_start(seed, game0, gcfg, start_board, cfg, boards, side, d1, d2, value, owner,
                   turned, alive, outcome, rec):
    """Set up games game0 .. game0 + n - 1 (n = len(side)) for lock-step play.

    rec: None, or a :class:`fastbg.sim.record_kernels.RecordBuffers` (one region of rows
    per game) whose counts are reset here and which then receives the opening throws; the
    other lock-step kernels add each game's cube actions and moves, as
    :func:`fastbg.sim.game_kernels.play_one` writes them."""
    for g in prange(side.shape[0]):
        s, a, b, ties = start_game(seed, game0 + g, start_board, gcfg[G_START_SIDE],
                                   gcfg[G_USE_START] != 0, boards[g])
        r = _rec.recorder_for(rec, g)
        if gcfg[G_USE_START] == 0:
            _rec.opening(r, seed, game0 + g, s, a, b, ties)
        side[g] = s
        outcome[g, 3] = s
        d1[g] = a
        d2[g] = b
        value[g] = gcfg[G_CUBE_VALUE]
        owner[g] = gcfg[G_CUBE_OWNER]
        turned[g] = gcfg[G_CUBE_OWNER] >= 0
        if cfg[_cube.C_ENABLED] != 0 and gcfg[G_USE_START] == 0:
            value[g] = _cube.auto_double_stake(cfg, seed, game0 + g, ties)
        if gcfg[G_TRUNCATE] == 0:
            alive[g] = False
            outcome[g, 0] = s


@njit(parallel=True, cache=True)
def lockstep_cube(gcfg, cubes, live, boards, side, ply, value, owner, turned, alive, outcome,
                  cube_out, rec):
    """The cube phase of every live game (before its roll); ends games with a drop.
    rec: None, or the run's RecordBuffers (the cube actions are added to each game's rows)."""
    cplug0, cplug1 = cubes.plugin0, cubes.plugin1
    for j in prange(live.shape[0]):
        probs = np.zeros(5)
        _lockstep_cube_one(gcfg, cubes.cfg, cubes.strategies, cubes.efficiencies,
                           cubes.met_pre, cubes.met_post, live[j], boards, side, ply, value,
                           owner, turned, alive, outcome, cube_out, cplug0, cplug1, probs,
                           _rec.recorder_at(rec, live[j]))


@njit(parallel=True, cache=True)
def lockstep_cube_rows(gcfg, cubes, live, boards, side, ply, value, owner, turned, alive,
                       outcome, cube_out, rows0, rows1, rec):
    """:func:`lockstep_cube` for strategies whose probabilities were computed beforehand
    from Python (batch evaluators, e.g. the n-ply networks): rows0[j] / rows1[j] (float64,
    (len(live), 5)) are player 0's / player 1's cubeless probabilities of game live[j]'s
    board (its player on roll's view); unused rows may hold anything. rec as in
    :func:`lockstep_cube`."""
    for j in prange(live.shape[0]):
        probs = np.zeros(5)
        _lockstep_cube_one(gcfg, cubes.cfg, cubes.strategies, cubes.efficiencies,
                           cubes.met_pre, cubes.met_post, live[j], boards, side, ply, value,
                           owner, turned, alive, outcome, cube_out, rows0[j], rows1[j], probs,
                           _rec.recorder_at(rec, live[j]))


@njit(**HOT)
def _lockstep_cube_one(gcfg, cfg, strat, xeff, met_pre, met_post, g, boards, side, ply, value,
                       owner, turned, alive, outcome, cube_out, plug0, plug1, probs, r):
    """The cube phase of lock-step game ``g`` with the two players' probability plug-ins;
    ``r`` its Recorder (None: not recording)."""
    if ply[g] == 0 and no_cube_at_ply0(gcfg):
        return
    stake = value[g]
    v, o, tr, over, w, pts = _cube.cube_phase(
        cfg, strat, xeff, met_pre, met_post, side[g], boards[g], value[g], owner[g],
        turned[g], gcfg[G_AWAY0], gcfg[G_AWAY1], gcfg[G_CRAWFORD_GAME] != 0,
        gcfg[G_CRAWFORD_AFTER] != 0, plug0, plug1, probs)
    if over and w == _cube.OVERFLOW:
        alive[g] = False
        outcome[g, 0] = side[g]
        outcome[g, 2] = ply[g]
        outcome[g, 4] = ERR_CUBE_OVERFLOW
        return
    _rec.doubling(r, side[g], stake, v, over, w)
    value[g] = v
    owner[g] = o
    turned[g] = tr
    if over:
        alive[g] = False
        outcome[g, 0] = w
        outcome[g, 1] = 1
        outcome[g, 2] = ply[g]
        cube_out[g, 0] = v
        cube_out[g, 1] = 1
        cube_out[g, 2] = pts


@njit(**HOT)
def lockstep_dice(seed, game0, live, ply, d1, d2, gcfg, rot, dice):
    """dice[j] = the roll of game live[j] at its current ply (its key :func:`game_key`)."""
    for j in range(live.shape[0]):
        g = live[j]
        r1, r2 = turn_dice(seed, game_key(game0, g), ply[g], d1[g], d2[g], gcfg[G_OPENING],
                           rot)
        dice[j, 0] = r1
        dice[j, 1] = r2


@njit(parallel=True, cache=True)
def lockstep_choose(seed, game0, live, ply, side, bots, boards, res, off, n_tasks, choice):
    """choice[j] for game live[j] whose candidates are res[off[j]:off[j + 1]] (its key for
    the random bot :func:`game_key`).

    Built-in and plug-in bots choose here; games whose mover is a Python evaluator get
    -2 (to be filled by the caller) unless they have a single candidate; -1 marks a NaN.
    """
    policies, point, extra = bots.policies, bots.point, bots.extra
    plugin0, plugin1 = bots.plugin0, bots.plugin1
    gnet_t, gbo_t = plain(bots.gnet), plain(bots.gbo)
    m = live.shape[0]
    for t in prange(n_tasks):
        scores = np.zeros(MAX_RESULTS)
        gnet, gbo = as_net(gnet_t), as_bearoff(gbo_t)
        gscr = net_scratch(gnet)
        for j in range(t * m // n_tasks, (t + 1) * m // n_tasks):
            g = live[j]
            k = off[j + 1] - off[j]
            cands = res[off[j]:off[j + 1]]
            policy = policies[side[g]]
            if k == 1:
                choice[j] = 0
            elif policy == _pol.EVALUATOR:
                choice[j] = -2
            elif policy == _pol.PLUGIN:
                if side[g] == 0:
                    call_scorer(plugin0, boards[g], cands, scores[:k])
                else:
                    call_scorer(plugin1, boards[g], cands, scores[:k])
                choice[j] = _pol.best_index(scores, k)
            else:
                choice[j] = choose_builtin(policy, seed, game_key(game0, g), ply[g],
                                           boards[g], cands, k, point, extra, gnet, gbo,
                                           scores, gscr)


@njit(parallel=True, cache=True)
def lockstep_apply(live, boards, res, off, choice, dice, side, ply, alive, gcfg, cfg, value,
                   turned, outcome, cube_out, rec):
    """Play the chosen result of every game in ``live``; finish games that end.
    gcfg: the run's settings vector, or one per game (:func:`game_cfg`).
    rec: None, or the run's RecordBuffers (each move is added to its game's rows)."""
    for j in prange(live.shape[0]):
        g = live[j]
        gc = game_cfg(gcfg, g)
        c = choice[j]
        err = 0
        if c < 0:
            err = ERR_NAN
        elif gc[G_DEBUG] != 0 and not step_ok(boards[g], res[off[j] + c], dice[j, 0],
                                                 dice[j, 1]):
            err = ERR_INVARIANT
        if err == 0:
            b = boards[g]
            row = res[off[j] + c]
            _rec.move(_rec.recorder_at(rec, g), side[g], dice[j, 0], dice[j, 1], b, row)
            for i in range(BOARD_SIZE):
                b[i] = row[i]
            ply[g] += 1
            if mover_checkers(b) == 0:
                kind = win_kind(b)
                pts = kind
                if cfg[_cube.C_ENABLED] != 0:
                    away = gc[G_AWAY0] if side[g] == 0 else gc[G_AWAY1]
                    pts = _cube.settle(cfg, value[g], turned[g], kind, away)
                alive[g] = False
                outcome[g, 0] = side[g]
                outcome[g, 1] = kind
                outcome[g, 2] = ply[g]
                cube_out[g, 0] = value[g]
                cube_out[g, 2] = pts
                continue
            if ply[g] >= gc[G_MAX_PLIES]:
                err = ERR_TOO_LONG
            else:
                flip_inplace(b)
                side[g] ^= 1
                if gc[G_TRUNCATE] >= 0 and ply[g] >= gc[G_TRUNCATE]:
                    alive[g] = False        # truncated: kind 0, winner = side on roll
                    outcome[g, 0] = side[g]
                    outcome[g, 2] = ply[g]
                    cube_out[g, 0] = value[g]
                continue
        alive[g] = False
        outcome[g, 0] = side[g]
        outcome[g, 2] = ply[g]
        outcome[g, 4] = err
