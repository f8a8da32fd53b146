"""Built-in probability evaluators, for cube strategies, rollout truncation and variance reduction.

An evaluator gives the five cubeless probabilities of the player on roll of a position:
(win, win gammon, win backgammon, lose gammon, lose backgammon), cumulative (a gammon
includes a backgammon), the order gnubg prints and :class:`~fastbg.JanowskiCube` expects.

* :func:`race_probabilities` / :func:`race_evaluator`: a pip-count race formula (Kleinman's
  normal model, gammons and backgammons from the pips the loser needs to save them; see
  :mod:`fastbg.evaluators.race_kernels` for the formula). Cheap and sane, not strong: it sees
  only pips, so in contact it is a crude guess.
* :data:`race_probabilities_kernel`: the same formula as a numba ``probs(board, out)``
  function, for plug-ins that run inside the game kernel.
* :func:`race_cube`: a :class:`~fastbg.JanowskiCube` cube strategy driven by it.
"""
import numpy as np

from fastbg.evaluators import race_kernels as _ev
from fastbg.position.board import validate
from fastbg.constants import BOARD_SIZE
from fastbg.cube.strategies import JanowskiCube
from fastbg.parallel import resolve_threads, threads as _threads

#: The race formula as a numba ``probs(board, out)``: board int8[26], out float64[5].
race_probabilities_kernel = _ev.race_probabilities

N_PROBS = _ev.N_PROBS


def race_probabilities(boards, threads=None):
    """The race formula's probabilities of one board (26,) -> (5,) or a batch (m, 26) -> (m, 5).

    Each row is (win, win gammon, win backgammon, lose gammon, lose backgammon) of the
    player on roll, float64. A finished position (a side with no checker left) gets the
    exact outcome. ``threads`` defaults to every numba thread.

    >>> import fastbg
    >>> from fastbg.evaluators import race_probabilities
    >>> p = race_probabilities(fastbg.START)
    >>> bool(0.5 < p[0] < 0.6), p.shape
    (True, (5,))
    """
    b = validate(boards)
    n_threads = resolve_threads(threads)
    rows = b.reshape(-1, BOARD_SIZE)
    out = np.empty((rows.shape[0], N_PROBS), np.float64)
    if rows.shape[0]:
        with _threads(n_threads):
            _ev.race_probabilities_batch(rows, out)
    return out[0] if b.ndim == 1 else out


class RaceEvaluator:
    """A batch evaluator: ``evaluator(boards)`` is :func:`race_probabilities` on ``threads``.

    Boards (m, 26) give (m, 5); one board (26,) gives (5,).
    """

    name = "race"

    def __init__(self, threads=None):
        if threads is not None:
            resolve_threads(threads)       # fail now, not at the first call
        self.threads = threads

    def __call__(self, boards):
        return race_probabilities(boards, self.threads)

    def __repr__(self):
        return f"RaceEvaluator(threads={self.threads!r})"


def race_evaluator(threads=None):
    """The race formula as a batch callable ``probs(boards (m, 26)) -> (m, 5)``.

    >>> import numpy as np, fastbg
    >>> from fastbg.evaluators import race_evaluator
    >>> race_evaluator()(np.stack([fastbg.START] * 3)).shape
    (3, 5)
    """
    return RaceEvaluator(threads)


def race_cube(x=0.7):
    """A Janowski cube strategy on the race formula, with cube efficiency ``x`` (0..1).

    >>> from fastbg.evaluators import race_cube
    >>> race_cube().name
    'race-janowski'
    """
    return JanowskiCube(race_probabilities_kernel, x=x, name="race-janowski")
