"""The game loop: many cubeless games in parallel, each a pure function of (seed, game).

Two drivers share the per-ply helpers (:mod:`fastbg.sim.ply_kernels`), the move choice
(:mod:`fastbg.sim.move_choice_kernels`) and the cube phase
(:mod:`fastbg.sim.game_cube_kernels`):

* :func:`play_games` plays whole games inside one kernel, tasks of contiguous games (one
  scratch set per task) shared out to Python threads. Used whenever both bots run inside
  numba: the built-in policies and numba plug-in scorers. :func:`play_matches` plays
  whole matches so.
* The lock-step kernels (:func:`fastbg.sim.lockstep_kernels.lockstep_start`,
  :func:`fastbg.sim.lockstep_kernels.lockstep_dice`,
  :func:`fastbg.sim.lockstep_kernels.lockstep_apply`) advance every live game by one ply
  per round, so a Python evaluator can score the candidates of all live games in one call
  between rounds.

Game state (struct of arrays, one row per game): ``boards`` (n, 26) int8 from the view of
the player on roll, ``side`` (whose turn: 0 or 1, an index into the bots), ``ply`` (plies
played), and the outcome rows ``(winner, kind, plies, first, error)``: kind 1 single,
2 gammon, 3 backgammon, 0 when the game was truncated (then ``winner`` holds the side on
roll and the final board is kept); error 0 = fine, else an ERR_* code.

Per-run game settings travel as an int64 vector ``gcfg`` (indices G_*): the start
position's side and use, the opening mode, ply limits, debug checks, the match score
and the initial cube. ``rot`` (int64[r, 36]) holds permutations of the 36 ordered rolls
for quasi-random dice on the first ``r`` plies (see
:func:`fastbg.sim.ply_kernels.turn_dice`).

With the cube enabled (``cfg[C_ENABLED]``, see :mod:`fastbg.cube.decision_kernels`) each turn
starts with the cube phase, before the roll; the outcome then also holds the final cube
``value``, whether a double was ``dropped`` and the settled ``points`` (always from the
winner's side: the wrapper signs them).

The parts live in modules by what they hold (this module re-exports the names others
import from it): :mod:`fastbg.sim.game_tables` (codes, settings indices, argument
tuples), :mod:`fastbg.sim.ply_kernels`, :mod:`fastbg.sim.move_choice_kernels`,
:mod:`fastbg.sim.game_cube_kernels` and :mod:`fastbg.sim.lockstep_kernels`. This module
keeps the in-kernel drivers: one game (:func:`play_one`), its scratch
(:func:`new_game_scratch`), tasks of games (:func:`play_games`) and of matches
(:func:`play_matches`, with the match helpers :func:`match_key`, :func:`match_game_cfg`,
:func:`match_scored` that the lock-step matches share).
"""
import numpy as np
from numba import njit

from fastbg.cube import decision_kernels as _cube
from fastbg import dice as _dice
from fastbg.position import movegen as _mg
from fastbg.sim import policy_kernels as _pol
from fastbg.sim import record_kernels as _rec
from fastbg.jit import HOT
from fastbg.constants import BOARD_SIZE, MAX_RESULTS
from fastbg.sim.game_cube_kernels import (cube_enabled, cube_turn, net_cube_wanted,
                                          net_probs_into, no_cube_at_ply0, opening_stake,
                                          settle_points)
from fastbg.sim.game_tables import (ERR_CUBE_OVERFLOW, ERR_INVARIANT, ERR_NAN, ERR_TOO_LONG,
                                    G_AWAY0, G_AWAY1, G_CRAWFORD_AFTER, G_CRAWFORD_GAME,
                                    G_CUBE_OWNER, G_CUBE_VALUE, G_DEBUG, G_MAX_PLIES, G_OPENING,
                                    G_START_SIDE, G_TRUNCATE, G_USE_START, GameScratch)
from fastbg.sim.move_choice_kernels import call_scorer, choose_builtin, net_scratch
from fastbg.sim.ply_kernels import (flip_inplace, mover_checkers, start_game, step_ok, turn_dice,
                                    win_kind)
# Re-exported (noqa: F401): the setup, the jobs, the records and tests use these here.
from fastbg.sim.game_tables import (  # noqa: F401
    G_NO_FIRST_CUBE, G_SIZE, NET_CUBE, OPENING_NO_DOUBLES, OPENING_REROLL, OPENING_USE, Bots,
    Cubes)
from fastbg.sim.lockstep_kernels import (  # noqa: F401
    game_key, lockstep_apply, lockstep_choose, lockstep_cube, lockstep_cube_rows,
    lockstep_dice, lockstep_start)
from fastbg.sim.move_choice_kernels import choose_segments, segment_best  # noqa: F401


@njit(**HOT)
def play_one(seed, game, gcfg, start_board, rot, bots, cubes, scr, gen, rec):
    """Play one game to the end (or to the truncation ply) in the scratch ``scr``.

    bots  = :class:`Bots`; cubes = :class:`Cubes`, or None for a run without the cube
    scr   = :class:`GameScratch`; its board holds the final position afterwards.
    rec   = a :class:`fastbg.sim.record_kernels.Recorder` that receives the game's actions,
            or None (not recording: the record calls compile to nothing).
    Returns (winner, kind, plies, first, error, gen, value, dropped, points): ``gen`` is
    the caller's dedupe generation counter, advanced once per ply; ``points`` is what the
    winner scores (kind when the cube is off).
    """
    policies, point, extra, gnet, gbo = bots.policies, bots.point, bots.extra, bots.gnet, bots.gbo
    plugin0, plugin1 = bots.plugin0, bots.plugin1
    board, prev, out, scores, probs = scr.board, scr.prev, scr.out, scr.scores, scr.probs
    work, stack, hashes, slots, gscr = scr.work, scr.stack, scr.hashes, scr.slots, scr.gscr
    side, d1, d2, ties = start_game(seed, game, start_board, gcfg[G_START_SIDE],
                                    gcfg[G_USE_START] != 0, board)
    first = side
    if gcfg[G_USE_START] == 0:
        _rec.opening(rec, seed, game, side, d1, d2, ties)
    opening = gcfg[G_OPENING]
    debug = gcfg[G_DEBUG] != 0
    truncate = gcfg[G_TRUNCATE]
    cube_on = cube_enabled(cubes)
    away0 = gcfg[G_AWAY0]
    away1 = gcfg[G_AWAY1]
    value = gcfg[G_CUBE_VALUE]
    owner = gcfg[G_CUBE_OWNER]
    turned = owner >= 0
    if cube_on and gcfg[G_USE_START] == 0:
        value = opening_stake(cubes, seed, game, ties, value)
    # The opening throw is the first player's roll (docs/rules.md section 2): no cube before it.
    opens = no_cube_at_ply0(gcfg)
    # Counters start as np.int64, not a literal 0: a callee given a literal argument is
    # compiled once more for that literal type (numba types the loop before it unifies).
    ply = np.int64(0)
    while True:
        if truncate >= 0 and ply >= truncate:
            return side, 0, ply, first, 0, gen, value, False, 0
        if cube_on and not (ply == 0 and opens):
            stake = value
            if net_cube_wanted(cubes, side, owner, value, gcfg[G_CRAWFORD_GAME] != 0):
                net_probs_into(gnet, gbo, gscr, board, out, scores, scr.netp)
            value, owner, turned, over, w, pts = cube_turn(
                cubes, side, board, value, owner, turned, away0, away1,
                gcfg[G_CRAWFORD_GAME] != 0, gcfg[G_CRAWFORD_AFTER] != 0, probs, scr.netp)
            if over and w == _cube.OVERFLOW:
                return side, 0, ply, first, ERR_CUBE_OVERFLOW, gen, value, False, 0
            _rec.doubling(rec, side, stake, value, over, w)
            if over:
                return w, 1, ply, first, 0, gen, value, True, pts
        r1, r2 = turn_dice(seed, game, ply, d1, d2, opening, rot)
        gen += 1
        k = _mg.generate(board, r1, r2, out, np.int64(0), work, stack, hashes, slots, gen)
        policy = policies[side]
        if policy == _pol.PLUGIN and k > 1:
            if side == 0:
                call_scorer(plugin0, board, out[:k], scores[:k])
            else:
                call_scorer(plugin1, board, out[:k], scores[:k])
            idx = _pol.best_index(scores, k)
        elif policy == _pol.PLUGIN or k == 1:
            idx = 0
        elif policy == _pol.RANDOM:
            # Dispatched here rather than through choose_builtin: a call passing the gnubg
            # tables (dozens of arrays, each reference-counted) on every ply cost a third
            # of the random-vs-random speed (31.8k -> 21.0k games/s on one thread).
            idx = _dice.uniform_index(seed, game, ply, k)
        elif policy == _pol.PUBEVAL:
            _pol.pubeval_scores(board, out, k, point, extra, scores)
            idx = _pol.best_index(scores, k)
        else:
            idx = choose_builtin(policy, seed, game, ply, board, out, k, point, extra, gnet,
                                 gbo, scores, gscr)
        if idx < 0:
            return side, 0, ply, first, ERR_NAN, gen, value, False, 0
        _rec.move(rec, side, r1, r2, board, out[idx])
        if debug:
            for i in range(BOARD_SIZE):
                prev[i] = board[i]
        for i in range(BOARD_SIZE):
            board[i] = out[idx, i]
        if debug and not step_ok(prev, board, r1, r2):
            return side, 0, ply, first, ERR_INVARIANT, gen, value, False, 0
        ply += 1
        if mover_checkers(board) == 0:
            kind = win_kind(board)
            pts = kind
            if cube_on:
                pts = settle_points(cubes, value, turned, kind, away0 if side == 0 else away1)
            return side, kind, ply, first, 0, gen, value, False, pts
        if ply >= gcfg[G_MAX_PLIES]:
            return side, 0, ply, first, ERR_TOO_LONG, gen, value, False, 0
        flip_inplace(board)
        side ^= 1


@njit(cache=True)
def new_game_scratch(gnet):
    """Scratch for one thread: a :class:`GameScratch` (its gnubg part None without a gnubg
    net ``gnet``)."""
    work, stack, hashes, slots = _mg.new_scratch()
    return GameScratch(np.zeros(BOARD_SIZE, np.int8), np.zeros(BOARD_SIZE, np.int8),
                       np.empty((MAX_RESULTS, BOARD_SIZE), np.int8), np.zeros(MAX_RESULTS),
                       np.zeros(5), np.zeros(5), work, stack, hashes, slots, net_scratch(gnet))


@njit(nogil=True, cache=True)
def play_games(seed, game0, t_lo, t_hi, n_tasks, gcfg, start_board, rot, bots, cubes,
               outcome, cube_out, final, rec):
    """Play tasks ``t_lo .. t_hi - 1`` of the games ``game0 .. game0 + n - 1`` (n =
    len(outcome)) cut into ``n_tasks`` contiguous tasks, each with its own scratch.

    outcome  (n, 5) int32: winner, kind, plies, first, error per game.
    cube_out (n, 3) int32: final cube value, dropped (0/1), points won by the winner.
    final    (n, 26) int8 receives each game's last board when truncating, else (0, 26).
    rec      None, or a :class:`fastbg.sim.record_kernels.RecordBuffers` (one region of
             rows per game) that receives each game's actions.
    The kernel runs without the GIL on Python threads (:func:`fastbg.parallel.run_spans`
    shares the tasks out), not in a ``prange`` loop: that compiled the whole game (with
    the networks, for a gnubg bot) a second time, in a gufunc of its own.
    """
    n = outcome.shape[0]
    keep = final.shape[0] == n
    for t in range(t_lo, t_hi):
        lo = t * n // n_tasks
        hi = (t + 1) * n // n_tasks
        scr = new_game_scratch(bots.gnet)
        gen = np.int64(0)
        for g in range(lo, hi):
            w, kd, pl, fi, err, gen, val, drp, pts = play_one(
                seed, game0 + g, gcfg, start_board, rot, bots, cubes, scr, gen,
                _rec.recorder_for(rec, g))
            outcome[g, 0] = w
            outcome[g, 1] = kd
            outcome[g, 2] = pl
            outcome[g, 3] = fi
            outcome[g, 4] = err
            cube_out[g, 0] = val
            cube_out[g, 1] = drp
            cube_out[g, 2] = pts
            if keep:
                board = scr.board
                for i in range(BOARD_SIZE):
                    final[g, i] = board[i]


@njit(**HOT)
def match_key(match, j):
    """The dice key of game ``j`` of match ``match``: ``(match << 16) | j`` (a match to N
    points has at most 2N - 1 games). Every driver of matches keys its games so, in the
    kernel or in lock-step, so that the same seed gives the same matches."""
    return (match << 16) | j


@njit(**HOT)
def match_game_cfg(cfg, length, s0, s1, crawford_done, g_cfg):
    """Set the match entries of ``g_cfg`` (G_AWAY0, G_AWAY1, G_CRAWFORD_GAME,
    G_CRAWFORD_AFTER) for the next game of a match to ``length`` at s0-s1 under the rules
    vector ``cfg``; ``crawford_done`` when a Crawford game was played already. Returns
    True when the next game is the Crawford game: the first game after a player first
    reaches ``length - 1`` (with ``cfg[C_CRAWFORD_RULE]``)."""
    a0 = length - s0
    a1 = length - s1
    craw = (cfg[_cube.C_CRAWFORD_RULE] != 0 and not crawford_done
            and (a0 == 1 or a1 == 1))
    g_cfg[G_AWAY0] = a0
    g_cfg[G_AWAY1] = a1
    g_cfg[G_CRAWFORD_GAME] = craw
    g_cfg[G_CRAWFORD_AFTER] = (cfg[_cube.C_CRAWFORD_RULE] != 0
                               and not crawford_done and not craw)
    return craw


@njit(**HOT)
def match_scored(length, s0, s1, craw, crawford_done, winner, points):
    """(s0, s1, crawford_done) after a game of a match to ``length`` (``craw``: it was the
    Crawford game) won by ``winner`` for ``points``: points past the length count only
    as a win."""
    if craw:
        crawford_done = True
    if winner == 0:
        s0 = min(length, s0 + points)
    else:
        s1 = min(length, s1 + points)
    return s0, s1, crawford_done


@njit(nogil=True, cache=True)
def play_matches(seed, match0, t_lo, t_hi, n_tasks, length, gcfg, start_board, rot, bots,
                 cubes, result, rec):
    """Play tasks ``t_lo .. t_hi - 1`` of whole matches to ``length`` points, matches
    ``match0 .. match0 + n - 1`` cut into ``n_tasks`` tasks (on Python threads, as
    :func:`play_games`).

    Every game starts from ``start_board`` (the starting position) with the opening roll.
    Game j of match m uses the game key ``(m << 16) | j`` for its dice (a match to N
    points has at most 2N - 1 games). result (n, 5) int32: winner, games played, final
    score of player 0, of player 1, error (first non-zero game error).
    rec: None, or a :class:`fastbg.sim.record_kernels.RecordBuffers` (one region of rows
    per match, heads per game) that receives every game's actions.
    The Crawford game is the first game after a player first reaches ``length - 1``
    (when ``cfg[C_CRAWFORD_RULE]``); points past the length count only as a win.
    """
    n = result.shape[0]
    cfg = cubes.cfg
    for t in range(t_lo, t_hi):
        lo = t * n // n_tasks
        hi = (t + 1) * n // n_tasks
        scr = new_game_scratch(bots.gnet)
        g_cfg = gcfg.copy()
        gen = np.int64(0)
        for m in range(lo, hi):
            s0 = 0
            s1 = 0
            games = 0
            crawford_done = False
            err = 0
            mrec = _rec.recorder_for(rec, m)
            while s0 < length and s1 < length:
                craw = match_game_cfg(cfg, length, s0, s1, crawford_done, g_cfg)
                key = match_key(match0 + m, games)
                row0 = _rec.rows_used(rec, m)
                got = play_one(seed, key, g_cfg, start_board, rot, bots, cubes, scr, gen, mrec)
                w, kd, pl, fi, e, gen, val, drp, pts = got
                _rec.game_head(rec, m, games, row0, s0, s1, craw, got)
                games += 1
                if e != 0:
                    err = e
                    break
                s0, s1, crawford_done = match_scored(length, s0, s1, craw, crawford_done, w,
                                                     pts)
            result[m, 0] = 0 if s0 >= length else 1
            result[m, 1] = games
            result[m, 2] = s0
            result[m, 3] = s1
            result[m, 4] = err
