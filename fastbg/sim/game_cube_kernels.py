"""The cube inside the game loop: whether it is in play (:func:`cube_enabled`,
:func:`no_cube_at_ply0`), the opening stake, the cube phase before a roll
(:func:`cube_turn`, with the networks' probabilities for
:data:`fastbg.sim.game_tables.NET_CUBE` by :func:`net_cube_wanted` and
:func:`net_probs_into`) and the points of a game played out (:func:`settle_points`).

Split from :mod:`fastbg.sim.game_kernels` (which re-exports the names others import from
it): the seam is the call into :mod:`fastbg.cube.decision_kernels`; each helper tests
``cubes`` (or a plug-in) on its argument, so numba prunes the cube out of runs without it.
"""
import numpy as np
from numba import njit, types
from numba.extending import overload

from fastbg.constants import BOARD_SIZE
from fastbg.cube import decision_kernels as _cube
from fastbg.evaluators import net_kernels as _gn
from fastbg.jit import HOT
from fastbg.sim.game_tables import G_NO_FIRST_CUBE, G_OPENING, G_USE_START, OPENING_USE, NetCube


N_OUT_PROBS = 5          # win, win gammon, win backgammon, lose gammon, lose backgammon


@njit(**HOT)
def no_cube_at_ply0(gcfg):
    """True when nobody may double before ply 0: it plays the opening throw (the first
    player has already rolled), or the run forbids it (the no-double line of a cube
    rollout, G_NO_FIRST_CUBE)."""
    return (gcfg[G_USE_START] == 0 and gcfg[G_OPENING] == OPENING_USE) or gcfg[G_NO_FIRST_CUBE] != 0


@njit(**HOT)
def cube_enabled(cubes):
    """True when the cube is in play: ``cubes`` is given (not None) and enables it.

    Runs without the cube pass ``cubes=None``; the cube helpers below test that on their
    argument, so numba prunes the cube decisions (and their kernels) out of those runs.
    """
    if cubes is None:
        return False
    return cubes.cfg[_cube.C_ENABLED] != 0


@njit(**HOT)
def opening_stake(cubes, seed, game, ties, value):
    """The stake after the opening ties (automatic doubles); ``value`` without the cube."""
    if cubes is None:
        return value
    return _cube.auto_double_stake(cubes.cfg, seed, game, ties)


def bind_probs(plug, netp):
    """A cube plug-in as :func:`fastbg.cube.decision_kernels.probs_call` takes it:
    :data:`fastbg.sim.game_tables.NET_CUBE` becomes ``netp``, the networks' probabilities of
    the board computed beforehand (in :func:`fastbg.sim.game_kernels.play_one`); a numba
    function or None stays as it is."""
    return netp if isinstance(plug, NetCube) else plug


@overload(bind_probs)
def _bind_probs_impl(plug, netp):
    if isinstance(plug, types.BaseNamedTuple) and plug.instance_class is NetCube:
        return lambda plug, netp: netp
    return lambda plug, netp: plug


def uses_net_cube(cubes):
    """True when a strategy of ``cubes`` is :data:`fastbg.sim.game_tables.NET_CUBE` (decided
    when compiling)."""
    return cubes is not None and any(isinstance(p, NetCube)
                                     for p in (cubes.plugin0, cubes.plugin1))


@overload(uses_net_cube)
def _uses_net_cube_impl(cubes):
    net = (not isinstance(cubes, types.NoneType)
           and any(isinstance(t, types.BaseNamedTuple) and t.instance_class is NetCube
                   for t in (cubes.types[cubes.fields.index("plugin0")],
                             cubes.types[cubes.fields.index("plugin1")])))
    return lambda cubes: net


@njit(**HOT)
def net_cube_wanted(cubes, side, owner, value, crawford_game):
    """True when a Janowski strategy may need the networks' probabilities of the board in
    this cube phase (the player on roll may double, and a Janowski strategy plays)."""
    if cubes is None or not uses_net_cube(cubes):
        return False
    c = cubes
    if crawford_game or not (owner < 0 or owner == side):
        return False
    if not _cube.under_limit(c.cfg, 2 * value):
        return False
    return (c.strategies[side] == _cube.CUBE_JANOWSKI
            or c.strategies[1 - side] == _cube.CUBE_JANOWSKI)


def net_probs_into(gnet, gbo, gscr, board, rows, scores, netp):
    """netp = the networks' probabilities of ``board`` (its player on roll's), by the call
    the gnubg bot makes (:func:`fastbg.evaluators.net_kernels.scores` of the board seen from
    the other side: a "result" whose opponent, the player on roll, the networks judge;
    the same numbers as ``evaluate_board``); a no-op without the networks. Inlined into
    the game loop: a call level of its own holding the networks would cost their
    optimisation and code generation again (the first gnubg game on a fresh cache took
    85 s so, 56 s without the cube)."""
    if gscr is None:
        return
    rows[0] = -board[::-1]
    _gn.scores(rows, 1, gnet, gbo, gscr, scores)
    netp[:] = gscr.res[0]


@overload(net_probs_into, inline="always")
def _net_probs_into_impl(gnet, gbo, gscr, board, rows, scores, netp):
    if isinstance(gscr, types.NoneType):
        return lambda gnet, gbo, gscr, board, rows, scores, netp: None

    def impl(gnet, gbo, gscr, board, rows, scores, netp):
        for i in range(BOARD_SIZE):
            rows[0, i] = -board[BOARD_SIZE - 1 - i]
        _gn.scores(rows, np.int64(1), gnet, gbo, gscr, scores)
        for i in range(N_OUT_PROBS):
            netp[i] = gscr.res[0, i]
    return impl


@njit(**HOT)
def cube_turn(cubes, side, board, value, owner, turned, away0, away1, crawford_game,
              crawford_after, probs, netp):
    """:func:`fastbg.cube.decision_kernels.cube_phase` with the ``cubes`` settings; netp
    holds the networks' probabilities of the board for
    :data:`fastbg.sim.game_tables.NET_CUBE`."""
    if cubes is None:
        return value, owner, turned, False, 0, 0
    c = cubes
    return _cube.cube_phase(c.cfg, c.strategies, c.efficiencies, c.met_pre, c.met_post, side,
                            board, value, owner, turned, away0, away1, crawford_game,
                            crawford_after, bind_probs(c.plugin0, netp),
                            bind_probs(c.plugin1, netp), probs)


@njit(**HOT)
def settle_points(cubes, value, turned, kind, winner_away):
    """Points of a game played out: :func:`fastbg.cube.decision_kernels.settle`, or
    ``kind`` without the cube."""
    if cubes is None:
        return kind
    return _cube.settle(cubes.cfg, value, turned, kind, winner_away)
