"""The perft workload shared by the benchmarks (bench/) and scripts/bench_movegen.py.

2,000 gnubg Position IDs (tests/data/wildbg-{contact,race}-ids.txt, 1,000 each), each with
all 21 distinct rolls: 42,000 (position, roll) pairs whose legal moves add up to 667,603
distinct results (oracle README; a pair with no legal play counts as one result, the
unchanged board, as fastbg returns it).

Import-light: only numpy and the standard library at import time; fastbg and gnubg_nn are
imported by the functions that need them, so importing this module compiles nothing.
"""
import dataclasses
import importlib.util
import pathlib

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
SETS = ("contact", "race")
POSITIONS_PER_SET = 1_000
N_ROLLS = 21
N_PAIRS = len(SETS) * POSITIONS_PER_SET * N_ROLLS  # 42,000
# Distinct results per set: (sum over the 6 doubles, sum over the 15 non-doubles).
PERFT_TOTALS = {"contact": (218_356, 185_957), "race": (140_720, 122_570)}
PERFT_TOTAL = sum(sum(t) for t in PERFT_TOTALS.values())  # 667,603


def have_gnubg():
    """True when gnubg_nn (GNU Backgammon's bindings, the peer) can be imported."""
    return importlib.util.find_spec("gnubg_nn") is not None


def position_ids(sets=SETS):
    """The Position IDs of the given sets, in file order (contact first by default)."""
    ids = []
    for name in sets:
        with open(DATA / f"wildbg-{name}-ids.txt") as f:
            ids.extend(line.strip() for line in f if line.strip())
    return ids


@dataclasses.dataclass(frozen=True)
class Perft:
    """The workload, pair-major: pair ``i`` is position ``i // 21`` with roll ``i % 21``.

    ids          : list of n Position IDs.
    rolls        : (21, 2) int8, ``fastbg.ROLLS``.
    boards       : (42,000, 26) int8, each position repeated once per roll.
    dice         : (42,000, 2) int8, the rolls tiled once per position.
    gnubg_boards : gnubg_nn's board for each of the n positions, or None without gnubg_nn.
    """
    ids: list
    rolls: np.ndarray
    boards: np.ndarray
    dice: np.ndarray
    gnubg_boards: list = None

    @property
    def n_pairs(self):
        return self.boards.shape[0]


def load_perft(with_gnubg=None):
    """Build the perft workload; ``with_gnubg=None`` adds gnubg boards when gnubg_nn imports."""
    import fastbg

    ids = position_ids()
    positions = np.stack([fastbg.board_from_position_id(p) for p in ids])
    rolls = np.asarray(fastbg.ROLLS)
    boards = np.repeat(positions, len(rolls), axis=0)
    dice = np.tile(rolls, (len(ids), 1))
    gnubg_boards = None
    if with_gnubg or (with_gnubg is None and have_gnubg()):
        import gnubg_nn
        gnubg_boards = [gnubg_nn.board_from_position_id(p) for p in ids]
    return Perft(ids, rolls, boards, dice, gnubg_boards)


def warm_up():
    """Compile (or load from numba's cache) the move kernels on tiny inputs."""
    import fastbg
    fastbg.legal_moves_batch(np.stack([fastbg.START] * 2), [(3, 1), (6, 6)], threads=1)
    fastbg.legal_moves(fastbg.START, (6, 6))


def run_fastbg(w, threads):
    """The contestant: one ``legal_moves_batch`` call on every pair. Returns (results, offsets)."""
    import fastbg
    return fastbg.legal_moves_batch(w.boards, w.dice, threads=threads)


def run_gnubg(w):
    """The peer: one ``gnubg_nn.moves`` call per pair, in the same order.

    Returns the number of distinct results, a pair with no legal play counted as one (gnubg
    returns no move there, fastbg the unchanged board), so it is comparable to PERFT_TOTAL.
    """
    import gnubg_nn
    moves = gnubg_nn.moves
    rolls = w.rolls.tolist()
    total = 0
    for b in w.gnubg_boards:
        for d1, d2 in rolls:
            total += len(moves(b, d1, d2)) or 1
    return total
