"""Every benchmark workload and its expected totals, defined once.

Imported by the pytest-benchmark cases (``bench/test_bench_*.py``) and the side-by-side
scripts (``python -m bench.NAME``), so both time exactly the same thing. Peers (gnubg_nn,
open_spiel) are imported only by the functions that call them.

Workloads:

* perft (move generation): :mod:`fastbg.position.perft`'s 2,000 positions (1,000 contact,
  1,000 race) x 21 rolls = 42,000 (position, roll) pairs, 667,603 distinct results (a pair
  with no legal play counts as one, the unchanged board, as fastbg returns it); the same
  set as ``fastbg bench``. Plus the opening position's 21 rolls: 447 results.
* games: whole cubeless games from the opening, ``bot`` vs ``bot``, fixed seed
  (:func:`play_fastbg`), and OpenSpiel's C++ game loop with uniform random bots
  (:func:`play_openspiel`).
* rollouts: :data:`ROLLOUT_POSITIONS` (the opening and a race), cubeless, and the peer
  :func:`gnubg_nn_games` (gnubg-nn's own 0-ply player playing the same kind of games).
* network evaluations: :func:`net_positions`, distinct positions met in seeded games.
* variance analysis: :data:`VARIANCE_POSITIONS`.
* a file of positions (the Ray backend's rollout job): :func:`position_file`, the first
  ``n`` contact positions of the perft set, one Position ID a line.
* published figures the analyses compare with: :data:`PUBLISHED_PUBEVAL_VS_GNUBG`.
"""
import dataclasses
import importlib.util

import numpy as np

import fastbg
from fastbg.constants import BOARD_SIZE, ROLLS
from fastbg.position.perft import PERFT_TOTALS, perft_ids, perft_pairs

# -- move generation: the perft set -------------------------------------------------------

PERFT_SETS = tuple(PERFT_TOTALS)                       # ("contact", "race")
# Distinct results of all 42,000 pairs: 667,603.
PERFT_TOTAL = sum(sum(t) for t in PERFT_TOTALS.values())
N_PAIRS = 2_000 * len(ROLLS)                            # 42,000
# Distinct results of the 21 rolls from the starting position (oracle README).
OPENING_TOTAL = 447


def have(module):
    """True when ``module`` (a peer such as "gnubg_nn" or "pyspiel") can be imported."""
    return importlib.util.find_spec(module) is not None


def have_gnubg():
    """True when gnubg_nn (GNU Backgammon's bindings and weights, the peer) is installed."""
    return have("gnubg_nn")


def have_bgsage():
    """True when bgsage (Open Sage, the ``peers`` extra) is installed."""
    return have("bgsage")


@dataclasses.dataclass(frozen=True)
class Perft:
    """The perft workload, pair-major: pair ``i`` is position ``i // 21`` with roll ``i % 21``.

    ids          : the 2,000 Position IDs, contact first.
    rolls        : (21, 2) int8, ``fastbg.ROLLS``.
    boards       : (42,000, 26) int8, each position repeated once per roll.
    dice         : (42,000, 2) int8, the rolls tiled once per position.
    gnubg_boards : gnubg_nn's board for each position, or None without gnubg_nn.
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
    ids = [p for kind in PERFT_SETS for p in perft_ids(kind)]
    boards, dice = perft_pairs()
    gnubg_boards = None
    if with_gnubg or (with_gnubg is None and have_gnubg()):
        import gnubg_nn
        gnubg_boards = [gnubg_nn.board_from_position_id(p) for p in ids]
    return Perft(ids, np.asarray(ROLLS), boards, dice, gnubg_boards)


def warm_up_moves():
    """Compile (or load from numba's cache) the move kernels on tiny inputs."""
    fastbg.legal_moves_batch(np.stack([fastbg.START] * 2), [(3, 1), (6, 6)], threads=1)
    fastbg.legal_moves(fastbg.START, (6, 6))


def run_fastbg(w, threads):
    """The contestant: one ``legal_moves_batch`` call on every pair. Returns (results, offsets)."""
    return fastbg.legal_moves_batch(w.boards, w.dice, threads=threads)


def perft_ok(out):
    """True when ``run_fastbg``'s (results, offsets) hold the perft total."""
    results, offsets = out
    return len(results) == offsets[-1] == PERFT_TOTAL and np.diff(offsets).min() >= 1


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


def opening_all_rolls():
    """``fastbg.legal_moves`` on the start position, one call per roll; OPENING_TOTAL results."""
    return sum(len(fastbg.legal_moves(fastbg.START, tuple(r))) for r in ROLLS.tolist())


# -- games ---------------------------------------------------------------------------------

def play_fastbg(n, bot, threads, seed=0):
    """``n`` cubeless games from the opening, ``bot`` vs ``bot``, on ``threads`` threads."""
    return fastbg.play(n, (bot, bot), seed=seed, threads=threads)


def check_play(res, n):
    """Raise AssertionError unless ``res`` holds ``n`` sane finished games."""
    assert res.n_games == n and not res.partial, f"{res.n_games} games of {n}"
    for arr in (res.winner, res.kind, res.points, res.plies, res.first):
        assert arr.shape == (n,), "result arrays of the wrong length"
    assert res.kind.min() >= 1 and res.kind.max() <= 3, "game kinds outside 1..3"
    assert np.isin(res.winner, (0, 1)).all() and np.isin(res.first, (0, 1)).all()
    assert np.array_equal(np.abs(res.points), res.kind), "points are not +-kind"
    assert res.plies.min() >= 2, "a game shorter than two plies"
    return n


def play_openspiel(n, seed=0):
    """The peer: OpenSpiel's C++ game loop (``pyspiel.evaluate_bots``) with two uniform
    random bots on ``load_game("backgammon")``, one game per call, one core. Returns the
    (n, 2) returns."""
    import pyspiel
    game = pyspiel.load_game("backgammon")
    bots = [pyspiel.make_uniform_random_bot(p, seed + p) for p in range(2)]
    evaluate, new = pyspiel.evaluate_bots, game.new_initial_state
    return [evaluate(new(), bots, seed + i) for i in range(n)]


def check_openspiel(returns, n):
    r = np.asarray(returns)
    assert r.shape == (n, 2), f"returns of shape {r.shape}"
    assert np.isin(np.abs(r[:, 0]), (1, 2, 3)).all(), "an unfinished game (or bad kind)"
    assert (r.sum(axis=1) == 0).all(), "returns are not zero-sum"
    return n


# -- rollouts ------------------------------------------------------------------------------

OPENING_ID = "4HPwATDgc/ABMA"


def race_board():
    """A race, 8 checkers a side spread over the home boards and just outside, on roll."""
    b = np.zeros(BOARD_SIZE, np.int8)
    b[[6, 5, 4, 3, 2, 8, 9, 10]] = [3, 3, 2, 2, 1, 2, 1, 1]
    b[[19, 20, 21, 22, 23, 17, 16]] = [-3, -3, -2, -2, -2, -2, -1]
    return b


ROLLOUT_POSITIONS = {"contact (opening)": OPENING_ID, "race": race_board()}


def gnubg_nn_games(board, n, rng, ply=0):
    """The rollout peer: ``n`` cubeless games from ``board`` (a board or Position ID, the
    player on roll), gnubg-nn's
    own player on both sides (``gnubg_nn.best_move(..., n=ply)`` each ply; at 0-ply the same
    choices as fastbg's "gnubg" bot up to exact ties, at 1-ply its "gnubg-1ply"), dice from
    ``rng``. One core, a Python loop over gnubg-nn calls. Returns the points won by the side
    first on roll."""
    import gnubg_nn
    from fastbg.evaluators.gnubg_nn import _gnubg_rows, from_gnubg
    from fastbg.sim.game_kernels import win_kind
    if isinstance(board, str):
        board = fastbg.board_from_position_id(board)
    start = _gnubg_rows(np.asarray(board, np.int8)[None]).tolist()[0]
    best, from_key = gnubg_nn.best_move, gnubg_nn.board_from_position_key
    points = []
    for _ in range(n):
        gb, sign = start, 1
        while True:
            d = rng.integers(1, 7, 2)
            _moves, key = best(gb, int(d[0]), int(d[1]), ply, b=1)
            gb = [list(r) for r in from_key(key)]           # the opponent on roll
            if not any(gb[0]):                              # the mover bore off his last
                mover_view = fastbg.flip(from_gnubg(np.array(gb)))
                points.append(sign * int(win_kind(mover_view)))
                break
            sign = -sign
    return points


# -- network evaluations -------------------------------------------------------------------

def net_positions(n, seed):
    """Up to ``n`` distinct positions met in seeded pubeval games, the player on roll with
    checkers on both sides: every candidate result a pubeval player scored, flipped."""
    seen, total = [], [0]

    def capture(positions):
        seen.append(positions.copy())
        total[0] += len(positions)
        return np.random.default_rng(total[0]).random(len(positions))

    games = 50
    while total[0] < 2 * n:
        fastbg.play(games, (fastbg.EvaluatorBot(capture, "capture"), "pubeval"), seed=seed)
        games *= 2
    boards = np.concatenate(seen)
    boards = boards[(boards[:, 1:] > 0).any(axis=1)]          # the mover has checkers left
    boards = np.unique(fastbg.flip(boards), axis=0)           # the opponent on roll
    return boards[np.random.default_rng(seed).permutation(len(boards))[:n]]


def gnubg_rows(boards):
    """gnubg-nn's boards (lists) of fastbg boards, for :func:`run_gnubg_evals`."""
    from fastbg.evaluators.gnubg_nn import _gnubg_rows
    return _gnubg_rows(boards).tolist()


def run_gnubg_evals(rows):
    """The peer: ``gnubg_nn.probabilities(board, 0)`` once per position."""
    import gnubg_nn
    prob = gnubg_nn.probabilities
    return [prob(r, 0) for r in rows]


# -- variance analysis ---------------------------------------------------------------------

def make_board(mine, theirs):
    """Board of the player on roll from {point: count}, each side in its own numbering."""
    b = np.zeros(BOARD_SIZE, np.int8)
    for p, c in mine.items():
        b[p] += c
    for p, c in theirs.items():
        b[25 - p] -= c
    return fastbg.position.board.validate(b)


# Middle game: both sides have split a back checker or escaped one, builders in play.
MIDDLE_ID = fastbg.position_id(make_board({24: 1, 13: 4, 8: 3, 6: 5, 5: 2},
                                          {24: 2, 13: 4, 8: 2, 6: 4, 4: 2, 18: 1}))
# A race, no contact: 108 pips against 109, the player on roll a pip ahead and on roll.
VARIANCE_RACE_ID = fastbg.position_id(make_board({12: 2, 9: 2, 8: 3, 6: 4, 5: 2, 4: 2},
                                                 {12: 1, 10: 2, 8: 3, 7: 2, 6: 4, 5: 3}))
VARIANCE_POSITIONS = {"opening": OPENING_ID, "middle game": MIDDLE_ID,
                      "race": VARIANCE_RACE_ID}

# -- published figures ---------------------------------------------------------------------

# GNU Backgammon 0-ply against pubeval, cubeless money games (gammons 2, backgammons 3):
# gnubg +0.63 points per game over 40,000 games, 71.9% of games won
# (/work/shared/data/README.md); for pubeval -0.63, the +-0.03 read as a 95% interval.
PUBLISHED_PUBEVAL_VS_GNUBG = {"points_per_game": -0.63, "half95": 0.03,
                              "gnubg_win_rate": 0.719, "games": 40_000}


# -- a file of positions (bench/ray_backend.py) ---------------------------------------------
def position_file(path, n=20):
    """Write the first ``n`` contact positions of the perft set to ``path``, one Position ID
    a line (a file for ``fastbg.rollout_many``); returns ``path``."""
    ids = perft_ids("contact")[:n]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(ids) + "\n")
    return path
