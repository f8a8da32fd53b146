"""Whole matches in lock-step: the driver of :func:`fastbg.play_matches` when a bot or a
cube strategy runs in Python (EvaluatorBot, the n-ply and engine bots, n-ply cubes).

Each match of a chunk holds one row of lock-step state: its current game. A round plays
the cube phase and one ply of every live game of every match, with one call of each
evaluator for all of them; a match whose game ended gets its next game at the start of
the next round (:func:`fastbg.sim.lockstep_match_kernels.next_games`), at the match's
score, with the Crawford rule and the dice key of the in-kernel driver. The games are
therefore those of :func:`fastbg.sim.game_kernels.play_matches`: the same seed gives the
same matches when the bots choose alike, whatever the rounds.

The dice, the choices and the moves take each game's key and settings (its score) per
row (:func:`fastbg.sim.lockstep_kernels.game_key`, ``game_cfg``). The cube phase, whose
strategies may run in Python with the run's settings, is played in one call per score
and Crawford state (a handful per round: :func:`_score_groups`), each with that state's
settings as the run's.
"""
from dataclasses import replace

import numpy as np

from fastbg.constants import BOARD_SIZE
from fastbg.sim import game_kernels as _play
from fastbg.sim import lockstep_match_kernels as _lm
from fastbg.sim.games import (ChunkRows, LockstepGames, lockstep_choices,
                              lockstep_cube_phase)

# The entries of a game's settings that differ between the games of a match.
_SCORE_ENTRIES = [_play.G_AWAY0, _play.G_AWAY1, _play.G_CRAWFORD_GAME, _play.G_CRAWFORD_AFTER]


def play_lockstep_matches(st, length, match0, result, rec):
    """Play matches ``match0 .. match0 + n - 1`` (n = len(result)) to ``length`` points
    in lock-step; ``result`` and ``rec`` as :func:`fastbg.sim.game_kernels.play_matches`
    fills them (the caller sets the threads and turns errors into exceptions)."""
    n = result.shape[0]
    rows = ChunkRows(n, False)           # outcome and cube_out of each match's current game
    rows.rec = rec
    g = LockstepGames(np.zeros((n, BOARD_SIZE), np.int8), np.zeros(n, np.int8),
                      np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64),
                      np.ones(n, np.int64), np.full(n, -1, np.int64), np.zeros(n, np.bool_),
                      np.zeros(n, np.bool_))
    keys = np.zeros(n, np.int64)
    gcfgs = np.tile(st.gcfg, (n, 1))
    ms = np.zeros((n, _lm.M_SIZE), np.int64)
    cfg = st.cubes.cfg
    ended = np.arange(n, dtype=np.int64)
    while True:
        if ended.size:
            _lm.next_games(st.seed, np.int64(match0), np.int64(length), ended, st.gcfg,
                           st.start_board, cfg, g.boards, g.side, g.ply, g.d1, g.d2, g.value,
                           g.owner, g.turned, g.alive, keys, gcfgs, ms, rows.outcome,
                           rows.cube_out, result, rec)
        live = np.flatnonzero(g.alive)
        if live.size == 0:
            break
        if st.cube_on:
            for sel, gc in _score_groups(gcfgs, live, length):
                lockstep_cube_phase(replace(st, gcfg=gc), g, live[sel], rows)
            live = np.flatnonzero(g.alive)
        if live.size:
            dice = np.zeros((live.size, 2), np.int64)
            _play.lockstep_dice(st.seed, keys, live, g.ply, g.d1, g.d2, st.gcfg, st.rot, dice)
            res, off, choice = lockstep_choices(st, keys, g, live, dice)
            _play.lockstep_apply(live, g.boards, res, off, choice, dice, g.side, g.ply,
                                 g.alive, gcfgs, cfg, g.value, g.turned, rows.outcome,
                                 rows.cube_out, rec)
        ended = np.flatnonzero(~g.alive & (ms[:, _lm.M_DONE] == 0))


def _score_groups(gcfgs, live, length):
    """The live games by score: (indices into ``live``, their games' settings vector) per
    distinct score and Crawford state."""
    state = gcfgs[live][:, _SCORE_ENTRIES]
    code = ((state[:, 0] * (length + 1) + state[:, 1]) * 2 + state[:, 2]) * 2 + state[:, 3]
    groups, where = np.unique(code, return_inverse=True)
    if groups.size == 1:
        return [(slice(None), gcfgs[live[0]])]
    return [(sel, gcfgs[live[sel[0]]])
            for sel in (np.flatnonzero(where == k) for k in range(groups.size))]
