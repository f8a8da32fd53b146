"""The move a bot picks among a roll's legal results: the built-in policies
(:func:`choose_builtin`: random, pubeval, greedy, the gnubg networks), a numba plug-in
scorer (:func:`call_scorer`), the gnubg scratch a thread needs (:func:`net_scratch`), and
the batch picks of rollouts with variance reduction (:func:`choose_segments`,
:func:`segment_best`).

Split from :mod:`fastbg.sim.game_kernels` (which re-exports the names others import from
it): the seam is the choice per bot kind, which the game loop, the lock-step driver and
the rollouts call alike, apart from the turn's order of cube, dice and move.
"""
import numpy as np
from numba import njit, prange, types
from numba.extending import overload

from fastbg import dice as _dice
from fastbg.constants import MAX_RESULTS
from fastbg.evaluators import net_kernels as _gn
from fastbg.jit import HOT
from fastbg.sim import policy_kernels as _pol
from fastbg.sim.game_tables import as_bearoff, as_net, plain


# choose_segments: tasks, each with its scratch (enough for load balance on any machine).
SEGMENT_TASKS = 64


@njit(**HOT)
def choose_builtin(policy, seed, game, ply, before, cands, k, point, extra, gnet, gbo, scores,
                   gscr):
    """Index of the result a built-in policy plays (-1 for a NaN score).

    point and extra are pubeval's tables, gnet and gbo the gnubg net arrays and bear-off
    tables (see ``bots``; both None when no bot plays gnubg, and then the networks are not
    compiled in); gscr is a gnubg scratch (:func:`fastbg.evaluators.net_tables.new_scratch`).
    """
    if k == 1:
        return 0
    if policy == _pol.RANDOM:
        return _dice.uniform_index(seed, game, ply, k)
    if policy == _pol.PUBEVAL:
        _pol.pubeval_scores(before, cands, k, point, extra, scores)
    elif policy == _pol.GNUBG:
        # The None test is on an argument: numba then prunes the networks out of the
        # kernels of runs without gnubg (compiling them is most of a fresh start).
        if gnet is not None:
            _gn.scores(cands, k, gnet, gbo, gscr, scores)
    else:
        _pol.greedy_scores(before, cands, k, scores)
    return _pol.best_index(scores, k)


@njit(**HOT)
def call_scorer(plugin, before, cands, scores):
    """Run a plug-in scorer; a no-op when ``plugin`` is None.

    The None test must be on an argument of the function making the call: numba prunes
    the call only then (the built-in specialisations stay cacheable).
    """
    if plugin is not None:
        plugin(before, cands, scores)


def net_scratch(gnet):
    """A gnubg scratch (:func:`fastbg.evaluators.net_tables.new_scratch`), or None when the
    run has no gnubg net (``gnet`` None). Chosen by the type of ``gnet`` when compiling
    (an ``is None`` branch would type as an optional scratch when ``gnet`` is a net)."""
    if gnet is None:
        return None
    return _gn.new_scratch()


@overload(net_scratch)
def _net_scratch_impl(gnet):
    if isinstance(gnet, types.NoneType):
        return lambda gnet: None
    return lambda gnet: _gn.new_scratch()


@njit(**HOT)
def segment_best(scores, seg_off, out):
    """out[i] = first index of the highest of scores[seg_off[i]:seg_off[i + 1]] (-1 if NaN)."""
    for i in range(seg_off.shape[0] - 1):
        lo = seg_off[i]
        out[i] = _pol.best_index(scores[lo:], seg_off[i + 1] - lo)


@njit(parallel=True, cache=True)
def choose_segments(policy, seed, game0, games, ply, befores, res, off, bots, choice):
    """choice[i]: a built-in policy's pick among res[off[i]:off[i + 1]] for game games[i].

    Used by rollouts with variance reduction, which score every roll's move; the random
    policy draws the same index it would draw in play (same game, ply and count).
    ``bots`` the run's :class:`fastbg.sim.game_tables.Bots` (its tables; the policy is ``policy``).
    """
    n = games.shape[0]
    n_tasks = min(n, SEGMENT_TASKS)
    point, extra = bots.point, bots.extra
    gnet_t, gbo_t = plain(bots.gnet), plain(bots.gbo)
    for t in prange(n_tasks):
        scores = np.zeros(MAX_RESULTS)
        gnet, gbo = as_net(gnet_t), as_bearoff(gbo_t)
        gscr = net_scratch(gnet)
        for i in range(t * n // n_tasks, (t + 1) * n // n_tasks):
            g = games[i]
            k = off[i + 1] - off[i]
            choice[i] = choose_builtin(policy, seed, game0 + g, ply[g], befores[i],
                                       res[off[i]:off[i + 1]], k, point, extra, gnet, gbo,
                                       scores, gscr)
