"""Duels in lock-step: games between two bots with each bot's moves timed and, with an
evaluator, the luck of every roll measured (:func:`duel_chunk`, what
``fastbg.tournament(..., luck_adjust=..., speed=True)`` plays; docs/tournaments.md).

The games are those of :func:`fastbg.play` with the same seed and game indices, bit for
bit (the same dice, the same choices): only the driver differs. Each round (one ply of
every live game) runs the cube phase, then for each side its move generation, its bot's
choice (the only part that is timed) and the moves.

Luck (docs/rollouts.md section 5, the luck estimator of variance reduction, here with two
bots). Before each roll the mover's bot chooses its move for every one of the 21 rolls;
``v(r)`` is the evaluator's cubeless equity, for the mover, of the position after that
choice for roll ``r``. The luck of the roll that came is ``v(roll) - sum_r w_r v(r)``
(``w_r`` the roll's probability): its mean given the position is exactly 0, so any
evaluator gives an unbiased luck-adjusted result, and the better it is the narrower its
interval. The opening is one draw of who moves first and of the 15 non-double rolls
(docs/rules.md section 2): its luck is player 0's ``v`` of the first move minus
``(E_0 - E_1) / 2``, ``E_s`` the mean over those rolls of ``v`` when side ``s`` opens
(with ``opening="reroll"``, over all 21 rolls). Luck is kept from player 0's view and, in
games with the cube, multiplied by the cube's value when the roll came: the luck-adjusted
result of a game is its points minus its total luck.
"""
import time

import numpy as np

from fastbg.constants import ROLLS
from fastbg.cube.formulas import equity_of
from fastbg.position.moves import legal_moves_rows as _legal_moves_rows
from fastbg.sim import bots as _bots
from fastbg.sim import game_kernels as _play
from fastbg.sim.games import (BotError, ChunkRows, TASKS_PER_THREAD, evaluate_pending,
                              lockstep_games, lockstep_round,
                              game_arrays, raise_for_errors)
from fastbg.sim.setup import OPENINGS, job_setup
from fastbg.jobs.rollouts import mover_values, roll_index
from fastbg.parallel import threads as _threads
from fastbg.plugin_pointers import call_holding_interrupts

_N_ROLLS = len(ROLLS)
_WEIGHTS = np.array([1.0 if a == b else 2.0 for a, b in ROLLS]) / 36.0
# The opening roll (opening="use"): the 15 non-doubles, equally likely.
_OPENING_WEIGHTS = np.array([0.0 if a == b else 1.0 for a, b in ROLLS]) / 15.0


def lockstep_bot(bot):
    """A bot as lock-step duels play it: a gnubg network bot becomes the EvaluatorBot of
    its networks' batch scores (the same choice bit for bit, and the round's kernels
    compile without the networks); other bots are unchanged."""
    net = _bots.gnubg_net_of(bot)
    if net is None:
        return bot
    return _bots.EvaluatorBot(net.scores_rows, name=_bots.resolve(bot).name)


def duel_setup(bots, **setup):
    """:func:`fastbg.sim.setup.job_setup` of two bots for :func:`duel_chunk`."""
    return job_setup(bots=[lockstep_bot(b) for b in bots], **setup)


def duel_chunk(st, game0, n, luck=None):
    """Play games ``game0 .. game0 + n - 1`` of setup ``st`` (from :func:`duel_setup`).

    luck : None, or an evaluator (boards (m, 26) -> probabilities (m, 5), e.g. a
           :class:`fastbg.GnubgNet`) that measures the luck of every roll.

    Returns a dict: the per-game arrays of :class:`fastbg.GameResults` (``winner``,
    ``points`` ...), ``luck`` float64 (n,) each game's total luck from player 0's view in
    points (None without an evaluator), ``decisions`` int64 (2,) the moves each side's
    bot chose among two or more, and ``seconds`` float64 (2,) the time its choices took.
    """
    rows = ChunkRows(n, False)
    decisions = np.zeros(2, np.int64)
    seconds = np.zeros(2)
    total_luck = np.zeros(n) if luck is not None else None
    if n:
        with _threads(st.n_threads):
            _duel_rounds(st, np.int64(game0), rows, luck, total_luck, decisions, seconds)
        raise_for_errors(rows.outcome, game0, st.names)
    out = game_arrays(rows)
    out.update(luck=total_luck, decisions=decisions, seconds=seconds)
    return out


def _duel_rounds(st, game0, rows, luck, total_luck, decisions, seconds):
    """The lock-step loop of fastbg.sim.games (one ply of every live game per round),
    each side's choice on its own and timed, the luck of each roll added to total_luck."""
    outcome, cube_out = rows.outcome, rows.cube_out
    cfg = st.cubes.cfg
    g = lockstep_games(st, game0, rows)
    boards, side, ply = g.boards, g.side, g.ply
    value, turned, alive = g.value, g.turned, g.alive
    opening = None if luck is None else _opening_expectation(st, game0, luck)
    while True:
        live, dice = lockstep_round(st, game0, g, rows)
        if live.size == 0:
            break
        if luck is not None:
            total_luck[live] += value[live] * _round_luck(st, game0, live, boards, side, ply,
                                                          dice, luck, opening)
        movers = side[live].copy()          # lockstep_apply hands the dice to the other side
        for s in (0, 1):
            mine = movers == s
            if not mine.any():
                continue
            games, dice_s = live[mine], dice[mine]
            res, off = _legal_moves_rows(np.ascontiguousarray(boards[games]), dice_s,
                                         st.n_threads)
            t0 = time.perf_counter()
            choice = _choose(st, game0, s, games, boards, side, ply, res, off, dice_s)
            seconds[s] += time.perf_counter() - t0
            decisions[s] += int((np.diff(off) > 1).sum())
            _play.lockstep_apply(games, boards, res, off, choice, dice_s, side, ply, alive,
                                 st.gcfg, cfg, value, turned, outcome, cube_out, rows.rec)


def _choose(st, game0, s, games, boards, side, ply, res, off, dice):
    """The choice of side ``s``'s bot in each of ``games`` (its movers)."""
    choice = np.zeros(games.size, np.int64)
    n_tasks = max(1, st.n_threads * TASKS_PER_THREAD)
    call_holding_interrupts(_play.lockstep_choose, st.seed, game0, games, ply, side, st.bots,
                            boards, res, off, n_tasks, choice)
    if st.evaluators[s] is not None:
        evaluate_pending(st.evaluators[s], s, games, side, res, off, choice, game0,
                          boards=boards, dice=dice)
    return choice


def _roll_values(st, game0, boards, side, ply, luck):
    """(m, 21) the evaluator's cubeless equity, for the mover, after the mover's bot's
    choice for each roll of ROLLS in each of the m positions ``boards`` (before the roll)."""
    m = boards.shape[0]
    b21 = np.repeat(boards, _N_ROLLS, axis=0)
    d21 = np.tile(np.asarray(ROLLS, np.int64), (m, 1))
    side21 = np.repeat(side, _N_ROLLS)
    ply21 = np.repeat(ply, _N_ROLLS)
    res, off = _legal_moves_rows(b21, d21, st.n_threads)
    games21 = np.arange(m * _N_ROLLS)
    choice = np.zeros(games21.size, np.int64)
    # The random bot draws from the stream of "game" index j here: any choice made before
    # the roll keeps the luck's mean at 0 (the module notes).
    n_tasks = max(1, st.n_threads * TASKS_PER_THREAD)
    call_holding_interrupts(_play.lockstep_choose, st.seed, game0, games21, ply21, side21,
                            st.bots, b21, res, off, n_tasks, choice)
    for s in (0, 1):
        if st.evaluators[s] is not None:
            evaluate_pending(st.evaluators[s], s, games21, side21, res, off, choice, game0,
                              boards=b21, dice=d21)
    if (choice < 0).any():
        raise _bot_error(st, side21[choice < 0][0])
    chosen = res[off[:-1] + choice]
    return equity_of(mover_values(chosen, luck)).reshape(m, _N_ROLLS)


def _bot_error(st, s):
    return BotError(f"{st.names[int(s)]} returned a NaN score while the luck was measured")


def _opening_expectation(st, game0, luck):
    """(E_0 - E_1) / 2: player 0's expected equity after the opening move when who opens
    is drawn (no start position), else None (the mover is fixed)."""
    if st.gcfg[_play.G_USE_START] != 0:
        return None
    weights = (_OPENING_WEIGHTS if st.gcfg[_play.G_OPENING] == OPENINGS["use"]
               else _WEIGHTS)
    boards = np.repeat(st.start_board[None, :], 2, axis=0)
    v = _roll_values(st, game0, boards, np.array([0, 1], np.int8), np.zeros(2, np.int64), luck)
    e0, e1 = v @ weights
    return (e0 - e1) / 2


def _round_luck(st, game0, live, boards, side, ply, dice, luck, opening):
    """The luck, from player 0's view in cubeless equity, of the roll ``dice`` of each
    game in ``live``."""
    mover0 = side[live] == 0
    v = _roll_values(st, game0, np.ascontiguousarray(boards[live]), side[live], ply[live],
                     luck)
    actual = v[np.arange(live.size), roll_index(dice)]
    out = np.where(mover0, 1.0, -1.0) * (actual - v @ _WEIGHTS)
    if opening is not None:
        first = ply[live] == 0
        if first.any():
            out[first] = np.where(mover0[first], actual[first], -actual[first]) - opening
    return out
