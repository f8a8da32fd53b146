"""Built-in workloads for demos and benchmarks.

The perft set: 1,000 contact and 1,000 race positions (gnubg Position IDs, player on roll)
published with the wildbg engine's move-generation benchmark. Over all 21 distinct rolls
they have exactly 218,356 + 185,957 (contact: doubles + non-doubles) and
140,720 + 122,570 (race) distinct legal results.
"""
from importlib import resources

import numpy as np

from fastbg.constants import ROLLS
from fastbg.position.ids import board_from_position_id

PERFT_TOTALS = {"contact": (218_356, 185_957), "race": (140_720, 122_570)}


def perft_ids(kind):
    """The 1,000 Position IDs of the ``"contact"`` or ``"race"`` perft set."""
    if kind not in PERFT_TOTALS:
        raise ValueError(f"kind must be one of {sorted(PERFT_TOTALS)}, got {kind!r}")
    text = resources.files("fastbg").joinpath(f"data/wildbg-{kind}-ids.txt").read_text()
    return [line.strip() for line in text.splitlines() if line.strip()]


def perft_positions(kind=None):
    """Boards (n, 26) int8 of one perft set, or of both (contact first) when ``kind`` is None."""
    kinds = list(PERFT_TOTALS) if kind is None else [kind]
    return np.stack([board_from_position_id(p) for k in kinds for p in perft_ids(k)])


def perft_pairs(kind=None):
    """The perft workload: every perft position with each of the 21 rolls.

    Returns ``(boards (n*21, 26) int8, dice (n*21, 2) int8)``.
    """
    boards = perft_positions(kind)
    return (np.repeat(boards, len(ROLLS), axis=0),
            np.tile(np.asarray(ROLLS), (len(boards), 1)))
