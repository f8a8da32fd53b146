"""The two kinds of bot a user plugs in: :class:`ScorerBot` (a numba scoring function run
inside the game kernel) and :class:`EvaluatorBot` (a Python function called once per
lock-step round).

They sit below both the bot registry (:mod:`fastbg.sim.bots`, which resolves names to
bots) and the engine bots (:mod:`fastbg.sim.engines`, which are EvaluatorBots), so that
the registry can build engine bots by name without the two importing each other.
"""
from dataclasses import dataclass


@dataclass(frozen=True)
class ScorerBot:
    """A bot whose scoring function runs inside the numba game kernel.

    ``score`` must be a numba ``@njit`` function ``score(before, candidates, out)``:
    ``before`` int8[26] is the board before the move, ``candidates`` int8[k, 26] the
    distinct legal results (mover's view) and ``out`` float64[k] receives one score each.
    The result with the highest score is played; a NaN score stops the run with an error
    naming the game. The function is compiled on its own as a C callback (a fraction of
    a second, once per process): the game kernels take every scorer through the same
    pointer type, so they compile once and are cached on disk like the built-in bots'
    (:mod:`fastbg.plugin_pointers`). Compiled on its own, it may allocate (``clip``,
    array expressions), which a scorer compiled into the kernels could not.

    >>> import numba, fastbg
    >>> @numba.njit
    ... def most_checkers_home(before, cands, out):
    ...     for i in range(cands.shape[0]):
    ...         out[i] = cands[i, 1:7].clip(0, 15).sum()
    >>> bot = ScorerBot(most_checkers_home, name="home")
    >>> fastbg.play(20, (bot, "random"), seed=1).n_games
    20
    """
    score: object
    name: str = "scorer"

    def __post_init__(self):
        if not hasattr(self.score, "py_func"):
            raise TypeError("ScorerBot needs a numba @njit function (score(before, candidates, out))")


@dataclass(frozen=True)
class EvaluatorBot:
    """A bot backed by a Python function that scores many positions at once.

    ``evaluate(positions)`` takes an int8 array (m, 26) of candidate results (each seen
    from the player who just moved) and returns m scores (higher is better for that
    player). fastbg plays all live games in lock-step and calls it once per round with
    every candidate of every game where this bot is to move. An ``evaluate`` whose
    attribute ``takes_segments`` is true is called ``evaluate(positions, offsets)`` instead,
    the candidates of the i-th game being ``positions[offsets[i]:offsets[i + 1]]`` (for
    choices made within each game, like the n-ply bots' filter).
    """
    evaluate: object
    name: str = "evaluator"

    def __post_init__(self):
        if not callable(self.evaluate):
            raise TypeError("EvaluatorBot needs a callable evaluate(positions) -> scores")
