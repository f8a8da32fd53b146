"""Built-in move policies: each scores the candidate results of one turn.

A policy sees the board before the move (``before``, int8[26]) and the k distinct legal
results (``cands``, int8[k, 26], still seen from the mover) and fills ``scores[:k]``;
the game kernel plays the first result with the highest score. The random policy needs
no scores: the kernel draws its index from the counter-based generator.
"""
import numpy as np
from numba import njit

from fastbg.jit import HOT
from fastbg.position.board_kernels import is_race
from fastbg.constants import BAR, CHECKERS, HOME_TOP, OPP_BAR


RANDOM = 0
PUBEVAL = 1
GREEDY = 2
PLUGIN = 3       # a numba scorer passed to the kernel
EVALUATOR = 4    # a Python evaluator called between lock-step rounds
GNUBG = 5        # GNU Backgammon's 0-ply choice, its networks in numba (fastbg.evaluators.nets)

# pubeval gives a finished game (all 15 borne off) this score, above any weighted sum.
PUBEVAL_WIN = 99999999.0


def pubeval_tables(race_w, contact_w):
    """Fold pubeval's 122 weights into per-point lookup tables (done once, in numpy).

    pubeval's five inputs of a point depend only on that point's count n, so their
    weighted sum is a table lookup ``point[set, j, n + 15]`` (j = 1..24, the mover's
    24-point first, as in pubeval's block order). Same decisions as the dense 122-input
    form (tests/test_policies.py compares them), with 24 loads instead of 122 products.

    Returns ``point`` float64[2, 25, 31] (set 0 = race, 1 = contact; j = 0 unused) and
    ``extra`` float64[2, 2] (weights of the opponent's bar and of the borne-off count).
    """
    point = np.zeros((2, 25, 31))
    extra = np.zeros((2, 2))
    for s, w in enumerate((np.asarray(race_w, float), np.asarray(contact_w, float))):
        if w.shape != (122,):
            raise ValueError(f"pubeval needs 122 weights a set, got {w.shape}")
        for j in range(1, 25):
            base = 5 * (j - 1)
            for n in range(-15, 16):
                v = 0.0
                if n == -1:
                    v += w[base]
                if n == 1:
                    v += w[base + 1]
                if n >= 2:
                    v += w[base + 2]
                if n == 3:
                    v += w[base + 3]
                if n >= 4:
                    v += w[base + 4] * (n - 3) / 2.0
                point[s, j, n + 15] = v
        extra[s, 0] = w[120]
        extra[s, 1] = w[121]
    return point, extra


@njit(**HOT)
def pubeval_score(b, point, extra, s):
    """pubeval's score of the result ``b`` with weight set ``s`` (0 race, 1 contact)."""
    on = 0
    total = 0.0
    for j in range(1, 25):
        n = b[BAR - j]
        if n > 0:
            on += n
        total += point[s, j, n + 15]
    on += b[BAR]
    if on == 0:
        return PUBEVAL_WIN
    return total + extra[s, 0] * (-b[OPP_BAR] / 2.0) + extra[s, 1] * ((CHECKERS - on) / 15.0)


@njit(**HOT)
def pubeval_scores(before, cands, k, point, extra, scores):
    """Score the first ``k`` candidates; race or contact is decided once, from ``before``."""
    s = 0 if is_race(before) else 1
    for i in range(k):
        scores[i] = pubeval_score(cands[i], point, extra, s)


@njit(**HOT)
def greedy_score(b):
    """A hand-made heuristic, from the mover's view after the move (higher is better).

    +3 per opponent checker on the bar (hits), +2 per checker borne off,
    +1.5 per made point (2+) in the home board, +1 per made point on 7..11,
    -1 per mover blot that some opponent checker could still hit (one stands behind it,
    at a lower index, or is on the bar), and -0.02 per pip the mover still has to travel.
    """
    opp_back = BAR          # lowest index holding an opponent checker (its bar is 0)
    for p in range(0, BAR):
        if b[p] < 0:
            opp_back = p
            break
    score = 3.0 * (-b[OPP_BAR])
    on = np.int64(b[BAR])          # int64: int8 sums overflow when run as plain Python
    pips = BAR * on
    for p in range(1, BAR):
        n = np.int64(b[p])
        if n > 0:
            on += n
            pips += p * n
            if n >= 2:
                if p <= HOME_TOP:
                    score += 1.5
                elif p <= 11:
                    score += 1.0
            elif opp_back < p:
                score -= 1.0
    return score + 2.0 * (CHECKERS - on) - 0.02 * pips


@njit(**HOT)
def greedy_scores(before, cands, k, scores):
    for i in range(k):
        scores[i] = greedy_score(cands[i])


@njit(**HOT)
def best_index(scores, k):
    """Index of the first highest score among ``scores[:k]``, or -1 if any score is NaN."""
    best = 0
    for i in range(k):
        if scores[i] != scores[i]:
            return -1
        if scores[i] > scores[best]:
            best = i
    return best
