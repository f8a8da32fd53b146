"""Slow, obviously-correct reference game player, written from the documents, not the kernels.

* Dice: the counter-based scheme of the docstring of ``fastbg/dice.py`` redone with
  Python integers and explicit 64-bit masking (SplitMix64 finaliser; a key is folded in as
  ``h = mix(seed + C); h = mix(h ^ game); h = mix(h ^ (turn << 8 | stream))``; a die is
  ``1 + (bits32 * 6) >> 32``, the first die from the high 32 bits, the second from the low 32).
* The opening roll (docs/rules.md section 2) and the win kinds (section 7).
* pubeval straight from its dense 122-input description (``/work/shared/data/README.md``),
  with the weights read from the package data file (the same numbers as the shared file).
* The greedy heuristic from the docstring of ``fastbg.sim.policy_kernels.greedy_score``.
* Moves from :func:`reference.movegen.legal_moves_ref`.

Boards are tuples of 26 Python ints in the interchange layout (docs/rules.md section 1), always
seen from the player on roll. Nothing here imports fastbg.

The kernel plays the FIRST highest-scoring candidate in its own candidate order, which the
reference does not know (``legal_moves_ref`` returns sorted positions). When two different
results tie for the highest score (or come within a rounding error of it: the kernel sums
pubeval's terms in another order) the game is reported ``ambiguous`` and stopped there,
unless the caller passes ``order``: a function ``(board, dice) -> candidates`` giving the
candidates in the kernel's order (the test takes them from ``fastbg.legal_moves`` and this
module checks that they are exactly the set ``legal_moves_ref`` finds, every ply). With
``order`` ties go to the first candidate and the random bot can be replayed too.
"""
import json
import math
from importlib import resources

import numpy as np

from .movegen import BAR, HOME_TOP, OPP_BAR, as_tuple, legal_moves_ref

MASK64 = 2**64 - 1
LOW32 = 2**32 - 1
GOLDEN = 0x9E3779B97F4A7C15
C1 = 0xBF58476D1CE4E5B9
C2 = 0x94D049BB133111EB

STREAM_DICE = 0
STREAM_OPENING = 1
STREAM_POLICY = 2

CHECKERS = 15
START = (0, -2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2, 0)
PUBEVAL_WIN = 99999999.0
MAX_PLIES = 10_000
# Two scores closer than this (relative) count as a tie: the kernel may round differently.
TIE_TOL = 1e-9


# ---- dice -------------------------------------------------------------------------------

def mix64(x):
    """SplitMix64 finaliser on Python ints, every product masked to 64 bits."""
    x &= MASK64
    x = ((x ^ (x >> 30)) * C1) & MASK64
    x = ((x ^ (x >> 27)) * C2) & MASK64
    return x ^ (x >> 31)


def rand64(seed, game, turn, stream):
    """The 64 random bits of (seed, game, turn, stream)."""
    h = mix64((seed + GOLDEN) & MASK64)
    h = mix64(h ^ game)
    return mix64(h ^ (((turn << 8) | stream) & MASK64))


def die(bits32):
    return 1 + ((bits32 * 6) >> 32)


def roll(seed, game, turn):
    """The two dice of ply ``turn``."""
    r = rand64(seed, game, turn, STREAM_DICE)
    return die(r >> 32), die(r & LOW32)


def opening_roll(seed, game):
    """(first player, die of player 0, die of player 1, ties before it)."""
    t = 0
    while True:
        r = rand64(seed, game, t, STREAM_OPENING)
        a, b = die(r >> 32), die(r & LOW32)
        if a != b:
            return (0 if a > b else 1), a, b, t
        t += 1


def uniform_index(seed, game, turn, k):
    """The random bot's index 0..k-1 at ply ``turn``."""
    r = rand64(seed, game, turn, STREAM_POLICY) >> 32
    return (r * k) >> 32


# ---- positions --------------------------------------------------------------------------

def flip(b):
    """The other player's view: new[i] = -old[25 - i]."""
    return tuple(-b[BAR - i] for i in range(26))


def mover_count(b):
    return sum(x for x in b[1:BAR + 1] if x > 0)


def opponent_count(b):
    return -sum(x for x in b[0:BAR] if x < 0)


def win_kind(b):
    """Kind of the win of the mover of ``b``, who has just borne off his last checker
    (docs/rules.md section 7)."""
    assert mover_count(b) == 0
    if opponent_count(b) < CHECKERS:
        return 1                              # the loser bore off at least one checker
    if b[OPP_BAR] < 0 or any(b[p] < 0 for p in range(1, HOME_TOP + 1)):
        return 3                              # on the bar or in the winner's home board
    return 2


def is_race(b):
    """True when every mover checker has passed every opponent checker.

    The mover moves down (his bar is 25), the opponent up (his bar is 0): no contact when the
    mover's highest checker is below the opponent's lowest one.
    """
    mine = [p for p in range(1, BAR + 1) if b[p] > 0]
    theirs = [p for p in range(0, BAR) if b[p] < 0]
    return max(mine) < min(theirs)


# ---- bots -------------------------------------------------------------------------------

def _load_weights():
    text = resources.files("fastbg").joinpath("data/pubeval.json").read_text()
    data = json.loads(text)
    return {k: [float(w) for w in data[k]] for k in ("race", "contact")}


_WEIGHTS = None


def weights():
    global _WEIGHTS
    if _WEIGHTS is None:
        _WEIGHTS = _load_weights()
    return _WEIGHTS


def pubeval_inputs(b):
    """pubeval's 122 inputs of the result ``b`` (README of the shared data)."""
    x = [0.0] * 122
    for j in range(1, 25):
        n = b[25 - j]
        base = 5 * (j - 1)
        if n == -1:
            x[base] = 1.0
        if n == 1:
            x[base + 1] = 1.0
        if n >= 2:
            x[base + 2] = 1.0
        if n == 3:
            x[base + 3] = 1.0
        if n >= 4:
            x[base + 4] = (n - 3) / 2.0
    x[120] = -b[OPP_BAR] / 2.0
    x[121] = (CHECKERS - mover_count(b)) / 15.0
    return x


_VECTORS = {}


def _weight_vector(race):
    if race not in _VECTORS:
        _VECTORS[race] = np.array(weights()["race" if race else "contact"], np.float64)
    return _VECTORS[race]


def pubeval_score(b, race):
    """pubeval's score of the result ``b``: its weights times its inputs (summed in numpy's
    order, not the kernel's: the callers treat scores within a rounding error as a tie)."""
    if mover_count(b) == 0:
        return PUBEVAL_WIN
    return float(_weight_vector(race) @ np.array(pubeval_inputs(b)))


def pubeval_inputs_rows(cands):
    """:func:`pubeval_inputs` of each candidate, as rows of one array (the same inputs,
    built column by column; tests/test_play.py checks them against the scalar version)."""
    b = np.array(cands, np.int64).reshape(-1, 26)
    n = b[:, 24:0:-1]                       # n[:, j - 1] = b[25 - j], j = 1..24
    x = np.zeros((b.shape[0], 122))
    x[:, 0:120:5] = n == -1
    x[:, 1:120:5] = n == 1
    x[:, 2:120:5] = n >= 2
    x[:, 3:120:5] = n == 3
    x[:, 4:120:5] = np.where(n >= 4, (n - 3) / 2.0, 0.0)
    x[:, 120] = -b[:, OPP_BAR] / 2.0
    on = np.clip(b[:, 1:BAR + 1], 0, None).sum(axis=1)
    x[:, 121] = (CHECKERS - on) / 15.0
    return x, on


def pubeval_scores(cands, race):
    """:func:`pubeval_score` of each candidate, as one matrix product."""
    x, on = pubeval_inputs_rows(cands)
    scores = x @ _weight_vector(race)
    return [PUBEVAL_WIN if k == 0 else float(v) for k, v in zip(on, scores)]


def greedy_score(b):
    """The greedy heuristic of its docstring, from the mover's view after the move."""
    hits = -b[OPP_BAR]
    on = mover_count(b)
    off = CHECKERS - on
    home_points = sum(1 for p in range(1, HOME_TOP + 1) if b[p] >= 2)
    outer_points = sum(1 for p in range(HOME_TOP + 1, 12) if b[p] >= 2)
    exposed = 0
    for p in range(1, 25):
        if b[p] == 1 and any(b[q] < 0 for q in range(0, p)):
            exposed += 1
    pips = sum(p * b[p] for p in range(1, BAR + 1) if b[p] > 0)
    return 3.0 * hits + 2.0 * off + 1.5 * home_points + 1.0 * outer_points - exposed - 0.02 * pips


def score_all(bot, before, cands):
    if bot == "pubeval":
        return pubeval_scores(cands, is_race(before))
    if bot == "greedy":
        return [greedy_score(c) for c in cands]
    if callable(bot):
        return [float(s) for s in bot(before, cands)]
    raise ValueError(f"the reference plays pubeval, greedy, random (with order) or a "
                     f"callable score(before, candidates), got {bot!r}")


def _tied(scores):
    """Indices of the scores tied (within rounding) with the highest one."""
    top = max(scores)
    tol = TIE_TOL * max(1.0, abs(top))
    return [i for i, s in enumerate(scores) if s >= top - tol]


# ---- the game ---------------------------------------------------------------------------

def play_game_ref(seed, game, bots, opening="use", start=None, order=None):
    """Play game ``game`` of ``seed`` between ``bots`` (two of "pubeval", "greedy", or a
    callable ``score(before, candidates) -> scores``; "random" needs ``order``).

    ``start``: None for the opening roll, else a board (bot 0 on roll) or ``(board, side)``.
    ``order``: optional ``(board, dice) -> candidates`` in the kernel's candidate order.
    Returns ``dict(winner, kind, plies, first, ambiguous, ply_ambiguous)``; when
    ``ambiguous`` is True the game stopped at a tie (``ply_ambiguous``) and winner, kind and
    plies are None.
    """
    if opening not in ("use", "reroll"):
        raise ValueError(f"opening must be 'use' or 'reroll', got {opening!r}")
    if start is None:
        first, a, b, _ = opening_roll(seed, game)
        board = START
        opening_dice = (a, b) if first == 0 else (b, a)   # the mover's own die first
    else:
        if isinstance(start, tuple) and len(start) == 2:
            board, first = as_tuple(start[0]), int(start[1])
        else:
            board, first = as_tuple(start), 0
        opening_dice = None
    side = first
    ply = 0
    while True:
        if ply == 0 and opening_dice is not None and opening == "use":
            dice = opening_dice
        else:
            dice = roll(seed, game, ply)
        cands = legal_moves_ref(board, dice)
        if order is not None:
            ordered = [as_tuple(c) for c in order(board, dice)]
            if len(ordered) != len(cands) or set(ordered) != set(cands):
                raise AssertionError(f"game {game} ply {ply}: the given candidate order is not "
                                     f"the reference's set of legal results")
            cands = ordered
        bot = bots[side]
        if len(cands) == 1:
            idx = 0
        elif bot == "random":
            if order is None:
                raise ValueError("the random bot needs the kernel's candidate order")
            idx = uniform_index(seed, game, ply, len(cands))
        else:
            scores = score_all(bot, board, cands)
            if any(math.isnan(s) for s in scores):
                raise ValueError(f"game {game}: NaN score")
            tied = _tied(scores)
            if len(tied) > 1 and (order is None or len({scores[i] for i in tied}) > 1):
                # Without the kernel's order, or with scores that differ only by rounding
                # (which one the kernel's arithmetic puts first is not knowable here).
                return dict(winner=None, kind=None, plies=None, first=first, ambiguous=True,
                            ply_ambiguous=ply)
            idx = tied[0]
        board = cands[idx]
        ply += 1
        if mover_count(board) == 0:
            return dict(winner=side, kind=win_kind(board), plies=ply, first=first,
                        ambiguous=False, ply_ambiguous=None)
        if ply >= MAX_PLIES:
            raise RuntimeError(f"game {game} did not finish within {MAX_PLIES} plies")
        board = flip(board)
        side ^= 1
