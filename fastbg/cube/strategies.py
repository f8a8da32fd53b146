"""Cube strategies: who doubles, takes, drops, beavers (the kernels:
fastbg/cube/decision_kernels.py).

* ``"never"``: never doubles, takes every double.
* ``"race"``: Tom Keith's count in races (double, redouble, take); in contact never
  doubles and always takes; never beavers.
* :class:`JanowskiCube`: a numba ``probs(board, out)`` plug-in, or GNU Backgammon's
  networks (a :class:`fastbg.GnubgNet`), gives the five cubeless probabilities (win, win
  gammon, win backgammon, lose gammon, lose backgammon) of the player on roll; money
  decisions use Janowski's cubeful equities with cube efficiency ``x``, match decisions
  the match equity table with a dead cube.
* An engine's own cube action (``"gnubg-app"``, ``"bgsage-2ply"`` ...): the strategy
  objects live with the engine bots (fastbg/sim/engines.py, a higher layer, which also
  resolves those names); here they are recognised by their ``cube_rows`` method
  (:func:`is_engine_cube`) and played as ``CUBE_ENGINE``.
"""
from dataclasses import dataclass
from typing import NamedTuple

from fastbg.cube import decision_kernels as _cube

BUILTIN = {"never": _cube.CUBE_NEVER, "race": _cube.CUBE_RACE}


@dataclass(frozen=True)
class JanowskiCube:
    """Cube decisions from cubeless probabilities with Janowski's model.

    ``probs`` is a numba ``@njit`` function ``probs(board, out)`` writing the five
    probabilities of the player on roll of ``board`` (int8[26]) into ``out`` (float64[5]),
    both contiguous, called by the game kernels through a C callback as a
    :class:`~fastbg.sim.bots.ScorerBot`'s scorer is (the plug-in is compiled once per
    process, the kernels once for every plug-in: :mod:`fastbg.plugin_pointers`); or a
    :class:`fastbg.GnubgNet`, which the game kernels evaluate with their own, disk-cached
    network kernels (``GnubgNet.cube()``). ``x`` is the cube efficiency (0 dead cube .. 1
    fully live; gnubg uses about 0.68 in contact).
    """
    probs: object
    x: float = 0.68
    name: str = "janowski"

    def __post_init__(self):
        if not (hasattr(self.probs, "py_func") or is_kernel_net(self.probs)
                or is_batch_evaluator(self.probs)):
            raise TypeError("JanowskiCube needs a numba @njit function probs(board, out), "
                            "a GnubgNet or a batch evaluator (GnubgNet.cube(ply=1))")
        if not 0.0 <= float(self.x) <= 1.0:
            raise ValueError(f"cube efficiency x must be in [0, 1], got {self.x!r}")


def is_kernel_net(obj):
    """True for an evaluator the game kernels run themselves (a :class:`fastbg.GnubgNet`:
    its weight arrays, bear-off tables and a ``probs_kernel()`` plug-in fallback)."""
    return all(hasattr(obj, a) for a in ("arrays", "bearoff", "probs_kernel"))


def is_batch_evaluator(obj):
    """True for an evaluator called from Python on a batch of boards between rounds of
    lock-step games: it has ``batch_probabilities(boards (m, 26)) -> (m, 5)`` (the n-ply
    networks of ``GnubgNet.cube(ply=n)``)."""
    return callable(getattr(obj, "batch_probabilities", None))


def is_engine_cube(obj):
    """True for an engine's cube strategy (fastbg.sim.engines.EngineCube): it answers a
    batch of cube decisions from Python between rounds of lock-step games
    (``cube_rows``)."""
    return callable(getattr(obj, "cube_rows", None))


class ResolvedCube(NamedTuple):
    """A cube strategy as the game kernels see it."""
    code: int            # CUBE_NEVER, CUBE_RACE or CUBE_JANOWSKI (decision_kernels)
    probs: object        # the JanowskiCube's numba probability function, else None
    x: float             # cube efficiency (0 for the built-in strategies)
    name: str
    net: object = None   # the JanowskiCube's GnubgNet (then probs is None)
    batch: object = None  # its batch evaluator's batch_probabilities (then probs is None)
    engine: object = None  # an engine's cube strategy (CUBE_ENGINE; probs is None)


def resolve(strategy):
    """The :class:`ResolvedCube` of a strategy name or a :class:`JanowskiCube`."""
    if isinstance(strategy, str):
        key = strategy.strip().lower()
        if key in BUILTIN:
            return ResolvedCube(BUILTIN[key], None, 0.0, key)
        raise ValueError(f"unknown cube strategy {strategy!r}; choose from "
                         f"{', '.join(sorted(BUILTIN))}, an engine's (gnubg-app, "
                         "gnubg-app-1ply, gnubg-app-2ply, bgsage, bgsage-2ply ... "
                         "bgsage-4ply) or a JanowskiCube")
    if is_engine_cube(strategy):
        return ResolvedCube(_cube.CUBE_ENGINE, None, 0.0, strategy.name, engine=strategy)
    if isinstance(strategy, JanowskiCube):
        if is_batch_evaluator(strategy.probs):
            return ResolvedCube(_cube.CUBE_JANOWSKI, None, float(strategy.x), strategy.name,
                                batch=strategy.probs.batch_probabilities)
        if is_kernel_net(strategy.probs):
            return ResolvedCube(_cube.CUBE_JANOWSKI, None, float(strategy.x), strategy.name,
                                strategy.probs)
        return ResolvedCube(_cube.CUBE_JANOWSKI, strategy.probs, float(strategy.x), strategy.name)
    raise TypeError("a cube strategy is a name, a JanowskiCube or an engine's cube strategy, "
                    f"got {type(strategy).__name__}")


def strategy_names(strategies):
    """The names of cube strategies as results files keep them: a name as given, a
    JanowskiCube by its ``name`` (its plug-in or net does not print the same twice)."""
    return [c if isinstance(c, str) else getattr(c, "name", type(c).__name__)
            for c in strategies]
