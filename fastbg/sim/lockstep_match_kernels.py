"""Kernel: the game-to-game step of whole matches played in lock-step.

The lock-step match driver (:mod:`fastbg.sim.lockstep_matches`) keeps one row of lock-step
state per match, holding the match's current game; the per-ply kernels of
:mod:`fastbg.sim.lockstep_kernels` advance those games. When a match's game ends,
:func:`next_games` settles it and sets up the next one, with the very helpers of the
in-kernel match driver (:func:`fastbg.sim.game_kernels.play_matches`): the score and the
Crawford rule (``match_game_cfg``, ``match_scored``), the dice key (``match_key``), the
opening (``start_game``) and the record's head per game (``game_head``). So a match
played in lock-step is the one played in the kernel, when the bots choose alike.

Per-match state ``ms`` (int64 (n, M_SIZE), indices M_*): the score, games started, whether
the Crawford game was played, whether the current game is it, the first record row of
the current game, whether the match is over.
"""
from numba import njit

from fastbg.cube import decision_kernels as _cube
from fastbg.sim import game_kernels as _play
from fastbg.sim import record_kernels as _rec

(M_S0, M_S1, M_GAMES, M_CRAWFORD_DONE, M_CRAWFORD, M_ROW0, M_DONE, M_SIZE) = range(8)


@njit(cache=True)
def next_games(seed, match0, length, ended, gcfg, start_board, cfg, boards, side, ply, d1, d2,
               value, owner, turned, alive, keys, gcfgs, ms, outcome, cube_out, result, rec):
    """Settle the game just ended of each match in ``ended`` (none before a match's first
    game) and start the match's next game, or finish the match.

    ``ended`` int64: rows (matches ``match0 + row``) whose current game is over or not
    started. Lock-step state per row as in :func:`fastbg.sim.lockstep_kernels.lockstep_start`
    (boards (n, 26) int8, side int8, ply, d1, d2, value, owner int64, turned, alive bool),
    and outcome (n, 5) int32 / cube_out (n, 3) int32 of the current game, as the per-ply
    kernels leave them. keys int64 (n,) receives each row's game key, gcfgs int64 (n,
    G_SIZE) each row's game settings (``gcfg`` with the score and Crawford entries of its
    game); ms the per-match state (M_*). result (n, 5) int32, as of
    :func:`fastbg.sim.game_kernels.play_matches`: winner, games, score of player 0, of
    player 1, error. rec: None, or the chunk's RecordBuffers (a region of rows per match,
    heads per game), as in the in-kernel match driver.
    A serial loop: a few games start per round, and numba's parallel loops cannot take
    the named tuples of the record buffers.
    """
    for i in range(ended.shape[0]):
        m = ended[i]
        s0 = ms[m, M_S0]
        s1 = ms[m, M_S1]
        crawford_done = ms[m, M_CRAWFORD_DONE] != 0
        games = ms[m, M_GAMES]
        err = 0
        if games > 0:
            got = (outcome[m, 0], outcome[m, 1], outcome[m, 2], outcome[m, 3],
                   outcome[m, 4], 0, cube_out[m, 0], cube_out[m, 1], cube_out[m, 2])
            craw = ms[m, M_CRAWFORD] != 0
            _rec.game_head(rec, m, games - 1, ms[m, M_ROW0], s0, s1, craw, got)
            err = outcome[m, 4]
            if err == 0:
                s0, s1, crawford_done = _play.match_scored(length, s0, s1, craw,
                                                           crawford_done, outcome[m, 0],
                                                           cube_out[m, 2])
        if err != 0 or s0 >= length or s1 >= length:
            ms[m, M_DONE] = 1
            result[m, 0] = 0 if s0 >= length else 1
            result[m, 1] = games
            result[m, 2] = s0
            result[m, 3] = s1
            result[m, 4] = err
            continue
        craw = _play.match_game_cfg(cfg, length, s0, s1, crawford_done, gcfgs[m])
        key = _play.match_key(match0 + m, games)
        keys[m] = key
        ms[m, M_S0] = s0
        ms[m, M_S1] = s1
        ms[m, M_CRAWFORD_DONE] = crawford_done
        ms[m, M_CRAWFORD] = craw
        ms[m, M_GAMES] = games + 1
        ms[m, M_ROW0] = _rec.rows_used(rec, m)
        # as lockstep_start, for one game and with the match's rows kept
        s, a, b, ties = _play.start_game(seed, key, start_board, gcfg[_play.G_START_SIDE],
                                         gcfg[_play.G_USE_START] != 0, boards[m])
        if gcfg[_play.G_USE_START] == 0:
            _rec.opening(_rec.recorder_at(rec, m), seed, key, s, a, b, ties)
        side[m] = s
        ply[m] = 0
        d1[m] = a
        d2[m] = b
        value[m] = gcfg[_play.G_CUBE_VALUE]
        owner[m] = gcfg[_play.G_CUBE_OWNER]
        turned[m] = gcfg[_play.G_CUBE_OWNER] >= 0
        if cfg[_cube.C_ENABLED] != 0 and gcfg[_play.G_USE_START] == 0:
            value[m] = _cube.auto_double_stake(cfg, seed, key, ties)
        alive[m] = True
        for c in range(outcome.shape[1]):
            outcome[m, c] = 0
        outcome[m, 3] = s
        cube_out[m, 0] = value[m]
        cube_out[m, 1] = 0
        cube_out[m, 2] = 0

