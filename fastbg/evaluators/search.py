"""n-ply evaluation over any evaluator (docs/engine.md section 1).

:func:`nply_probabilities` looks ``ply`` moves ahead as GNU Backgammon does: each of the 21
rolls played with the best 0-ply move, the result evaluated at ``ply - 1``, averaged with
the rolls' weights. The evaluator is a :class:`fastbg.GnubgNet` (its batched kernels) or
any numba ``probs(board, out)`` plug-in, which then gets n-ply for free.

>>> import fastbg
>>> from fastbg.evaluators.race_kernels import race_probabilities
>>> from fastbg.evaluators.search import nply_probabilities
>>> import numpy as np
>>> b = np.zeros(26, np.int8); b[[1, 2, 3]] = 2; b[[22, 23, 24]] = -2   # a bear-off race
>>> p1 = nply_probabilities(race_probabilities, b, 1)     # the race formula, 1-ply
>>> p1.shape
(5,)
"""
import numpy as np

from fastbg.constants import BOARD_SIZE
from fastbg.evaluators import search_kernels as _k
from fastbg.parallel import resolve_threads, threads as _threads
from fastbg.position.board import validate
from fastbg.validation import check_int

MAX_PLY = _k.MAX_PLY
# Tasks per thread: roots cost from one evaluation to a whole tree, so several tasks a
# thread keep the threads busy to the end.
_TASKS_PER_THREAD = 8


def check_ply(ply):
    """``ply`` as an int in 0..MAX_PLY, else ValueError."""
    return check_int("ply", ply, 0, MAX_PLY)


def evaluator_args(evaluator):
    """(net, bearoff, plugin) of the kernels for ``evaluator``: a gnubg net (it has the
    ``arrays`` and ``bearoff`` of :class:`fastbg.GnubgNet`) or a numba plug-in."""
    if hasattr(evaluator, "arrays") and hasattr(evaluator, "bearoff"):
        return evaluator.arrays, evaluator.bearoff, None
    if hasattr(evaluator, "py_func") and callable(evaluator):
        return None, None, evaluator
    raise TypeError("the evaluator must be a fastbg.GnubgNet or a numba probs(board, out) "
                    f"plug-in (an @njit function); got {evaluator!r}")


def nply_probabilities(evaluator, boards, ply, threads=None, return_ties=False):
    """The ``ply``-ply probabilities of boards (26,) or (n, 26), player on roll.

    Returns float64 (n, 5) (or (5,) for one board): win, win gammon, win backgammon, lose
    gammon, lose backgammon. With ``return_ties`` also an int64 (n,) count of the move
    choices inside each search that had an exact tie for the best 0-ply score (GNU
    Backgammon breaks those by its own sort; fastbg takes the first in its move order).
    ``threads`` defaults to every numba thread; ply 0..3.
    """
    ply = check_ply(ply)
    net, bo, plugin = evaluator_args(evaluator)
    b = validate(boards)
    rows = np.ascontiguousarray(b.reshape(-1, BOARD_SIZE))
    m = rows.shape[0]
    probs = np.zeros((m, 5))
    ties = np.zeros(m, np.int64)
    if m:
        n = resolve_threads(threads)
        tasks = max(1, min(m, n * _TASKS_PER_THREAD))
        with _threads(n):
            _k.probabilities_batch(rows, ply, net, bo, plugin, tasks, probs, ties)
    if b.ndim == 1:
        probs, ties = probs[0], int(ties[0])
    return (probs, ties) if return_ties else probs
