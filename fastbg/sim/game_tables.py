"""The game kernels' vocabulary: error codes (``ERR_*``), opening modes (``OPENING_*``),
the indices of the settings vector ``gcfg`` (``G_*``), the argument tuples (:class:`Bots`,
:class:`Cubes`, :class:`GameScratch`, the :data:`NET_CUBE` marker) and their plain-tuple
round trip for parallel loops (:func:`plain`, :func:`as_net`, :func:`as_bearoff`).

Split from :mod:`fastbg.sim.game_kernels` (which re-exports the names others import from
it): the seam is what the per-ply helpers, the move choice, the cube phase, the game loop
and the lock-step driver all read, and what the setup (:mod:`fastbg.sim.setup`) builds,
depending on none of them.
"""
from collections import namedtuple

import numpy as np
from numba import types
from numba.extending import overload

from fastbg.evaluators import net_kernels as _gn


ERR_NAN = 1          # a bot scored a candidate NaN
ERR_TOO_LONG = 2     # the game passed the ply limit
ERR_INVARIANT = 3    # debug mode: a step broke a board invariant
ERR_CUBE_OVERFLOW = 4  # with no cube limit, the stake passed what the results hold

# Opening modes (docs/rules.md section 2).
OPENING_USE = 0      # the first player plays the two opening dice
OPENING_REROLL = 1   # the first player rolls both dice afresh
OPENING_NO_DOUBLES = 2   # ply 0 is a fresh roll without doubles, as an opening roll
                         # (GNU Backgammon's "rollout as initial position")

# gcfg entries.
(G_START_SIDE, G_USE_START, G_OPENING, G_MAX_PLIES, G_TRUNCATE, G_DEBUG, G_AWAY0, G_AWAY1,
 G_CRAWFORD_GAME, G_CRAWFORD_AFTER, G_CUBE_VALUE, G_CUBE_OWNER, G_NO_FIRST_CUBE,
 G_SIZE) = range(14)


Bots = namedtuple("Bots", "policies point extra gnet gbo plugin0 plugin1")
Bots.__doc__ = """The two bots of a run, as the game kernels take them.

policies int64[2] policy code of bot 0 and bot 1 (fastbg.sim.policy_kernels: RANDOM ...);
point float64[2, 25, 31] and extra float64[2, 2] pubeval's tables
(:func:`fastbg.sim.policy_kernels.pubeval_tables`); gnet the gnubg net weights
(:class:`fastbg.evaluators.net_tables.Net`) and gbo its bear-off tables
(:class:`fastbg.evaluators.net_tables.Bearoff`), both None when no bot plays gnubg (the
networks are then not compiled in); plugin0, plugin1 the scorers of PLUGIN bots as C
callbacks (:func:`fastbg.plugin_pointers.scorer_pointer`), else the placeholder
:func:`fastbg.plugin_pointers.no_scorer` (one kernel type for every pair of bots; None in
lock-step games, whose kernels are called every round)."""

Cubes = namedtuple("Cubes", "cfg strategies efficiencies met_pre met_post plugin0 plugin1")
Cubes.__doc__ = """The cube settings of a run (:mod:`fastbg.cube.decision_kernels`).

cfg int64[C_SIZE] the rules vector (C_*); strategies int64[2] cube strategy of each
player (CUBE_*); efficiencies float64[2] their Janowski cube efficiency; met_pre
float64[n, n] and met_post float64[2, n] the match equity tables (1x1 / 2x1 placeholders
in money play); plugin0, plugin1 the ``probs(board, out)`` of Janowski strategies as C
callbacks (:func:`fastbg.plugin_pointers.probs_pointer`), :data:`NET_CUBE` for a Janowski
strategy on the run's gnubg networks (``Bots.gnet``), the race formula's marker, else the
placeholder :func:`fastbg.plugin_pointers.no_probs` (None in lock-step games). Runs
without the cube pass None instead of a Cubes."""

NetCube = namedtuple("NetCube", "tag")
NetCube.__doc__ = """The type of :data:`NET_CUBE`: a Janowski strategy's probabilities come from
the run's gnubg networks (``Bots.gnet`` and ``Bots.gbo``), evaluated by the cached network
kernels with the thread's net scratch, instead of a plug-in compiled once per process."""
NET_CUBE = NetCube(np.int64(0))


GameScratch = namedtuple("GameScratch",
                         "board prev out scores probs netp work stack hashes slots gscr")
GameScratch.__doc__ = """Per-thread scratch of the game loop
(:func:`fastbg.sim.game_kernels.new_game_scratch`).

board int8[26] the game's board (the final position after
:func:`fastbg.sim.game_kernels.play_one`); prev int8[26]
the board before the move (debug checks); out int8[MAX_RESULTS, 26] the legal results;
scores float64[MAX_RESULTS]; probs float64[5] cube probabilities; netp float64[5] the
gnubg networks' probabilities of the board for :data:`NET_CUBE`; work, stack, hashes,
slots the move generator's scratch (:func:`fastbg.position.movegen.new_scratch`); gscr a
:class:`fastbg.evaluators.net_tables.NetScratch`, None without a gnubg net."""


def plain(x):
    """A named tuple as a plain tuple (None stays None): the form in which a parallel loop
    can take it in (numba's parfors cannot pass named tuples built elsewhere into the loop,
    nor nested ones)."""
    return None if x is None else tuple(x)


@overload(plain)
def _plain_impl(x):
    if isinstance(x, types.NoneType):
        return lambda x: None
    return lambda x: x[:]


def _rebuilder(cls, what):
    """:func:`plain`'s inverse for ``cls`` (None stays None), in Python and in kernels."""
    def rebuild(x):
        return None if x is None else cls(*x)
    rebuild.__doc__ = f":func:`plain`'s inverse for the gnubg {what}."

    @overload(rebuild)
    def _rebuild_impl(x):
        if isinstance(x, types.NoneType):
            return lambda x: None
        return lambda x: cls(*x)
    return rebuild


as_net = _rebuilder(_gn.Net, "net weights")
as_bearoff = _rebuilder(_gn.Bearoff, "bear-off tables")
