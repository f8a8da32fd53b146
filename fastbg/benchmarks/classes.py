"""The class of a benchmark position: contact, crashed, race or bear-off.

GNU Backgammon's benchmarks are split by the class its evaluator gives a position
(ClassifyPosition: contact while the sides can still hit, crashed when a side in contact
has at most about six checkers left in play, race once they have passed, bear-off once
both sides are home), and error rates are quoted per class because they differ tenfold.
fastbg uses the same test (the kernel of :mod:`fastbg.evaluators.gnubg_board_kernels`,
which needs no weights), the two bear-off database classes folded into one.
"""
import numpy as np
from numba import njit

from fastbg.evaluators import bearoff_kernels as _bo
from fastbg.evaluators import gnubg_board_kernels as _gbk
from fastbg.evaluators.net_tables import (C_BEAROFF1, C_BEAROFF2, C_CONTACT, C_CRASHED,
                                          C_OVER, C_RACE)
from fastbg.position.board import validate

CLASSES = ("contact", "crashed", "race", "bear-off")    # the order of reports
_NAME = {C_CONTACT: "contact", C_CRASHED: "crashed", C_RACE: "race",
         C_BEAROFF1: "bear-off", C_BEAROFF2: "bear-off", C_OVER: "over"}


@njit(cache=True)
def _classes(boards, binom, out):
    gb = np.zeros((2, 25), np.int8)
    for i in range(boards.shape[0]):
        _gbk.to_gnubg(boards[i], gb)
        out[i] = _gbk.classify(gb, binom)


def class_codes(boards):
    """gnubg's class code of each of ``boards`` (n, 26), int8 (fastbg.evaluators.net_tables
    C_*), unchecked (valid C-contiguous int8 boards)."""
    out = np.zeros(boards.shape[0], np.int8)
    _classes(boards, _bo.BINOM, out)
    return out


def position_classes(boards):
    """The class names of ``boards`` (one board (26,) or a batch (n, 26), player on roll):
    "contact", "crashed", "race", "bear-off" (or "over" for a finished game).

    >>> import fastbg
    >>> position_classes(fastbg.START)
    'contact'
    """
    b = validate(boards)
    rows = np.ascontiguousarray(b.reshape(-1, b.shape[-1]))
    names = [_NAME[int(c)] for c in class_codes(rows)]
    return names[0] if b.ndim == 1 else names
