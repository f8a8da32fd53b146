"""Bear-off tables computed by dynamic programming, as GNU Backgammon builds them.

A one-sided bear-off position holds up to 15 checkers of one side on its points 1..6
(``c[0..5]``, ``c[k]`` checkers on point k + 1). Positions are numbered by GNU Backgammon's
bear-off index (:func:`position_index`), a combinatorial number system in which the
positions with at most n checkers come first: indices below ``n_positions(n)`` =
C(6 + n, 6) (924 for six checkers, 38,760 for 14, 54,264 for all 15).

Five tables, each filled by a kernel here (the wrapper in :mod:`fastbg.evaluators.bearoff` caches them):

* :func:`one_sided_table` (54,264 x 32, uint16): ``p[i]`` = 65535 x the probability of
  bearing off every checker in exactly ``i`` rolls, playing each roll to minimise the
  expected number of rolls. Same integer arithmetic as GNU Backgammon's ``makebearoff``
  (the sum over the 21 rolls of the successors' 16-bit values, divided by 36 with rounding,
  the rounding excess taken from the most likely entry), so the table equals the one in
  its ``gnubg_os0.bd`` file entry for entry.
* :func:`two_sided_table` (924 x 924, uint16): cubeless equity of the side on roll when
  both sides have at most six checkers on points 1..6, as 16-bit integers (0 = -1,
  65535 = +1) from makebearoff's integer recursion, entry for entry the first value of
  each entry of ``gnubg_ts0.bd``.
* :func:`gammon_table` (54,264 x 4, int64), for positions with all 15 checkers on points
  1..6: the number of dice sequences (out of 36, 36^2, 36^3, 36^4) in which the first
  checker comes off on roll 1, 2, 3, 4, playing to bear off a checker soonest (GNU
  Backgammon's ``makegm``, the table behind ``getBearoffGammonProbs``).
* :func:`gammon_dist_table` (15,504 x 32, uint16), for the positions with all 15 checkers
  (indices from ``N_GAMMON_LIMIT``): ``p[i]`` = 65535 x the probability that the first
  checker comes off in exactly ``i`` rolls, playing each roll to minimise the expected
  number of rolls to do so (chosen apart from the move that bears off soonest): the
  gammon distributions of ``gnubg_os0.bd``, entry for entry, from makebearoff's recursion
  and rounding. A position with fewer than 15 checkers has the distribution ``p[0]`` =
  65535 (the first checker is off); it is not stored.
* :func:`race_bg_table` (924 x 5, int64): for up to six checkers that must leave the
  opponent's home board to save a backgammon (``c[k]`` checkers k + 1 pips from leaving,
  ``c[5]`` = 0), the number of dice sequences (out of 36^(j+1)) in which the last one
  leaves on roll j + 1, playing to leave soonest (``getRaceBGprobs``).

Moves are generated in GNU Backgammon's order (larger die first from the highest point,
then the smaller die first; see :func:`os_moves`): the first of several equally good moves
is the one ``makebearoff`` keeps, which decides a few entries of the tables.
"""
import numpy as np
from numba import njit

from fastbg.jit import HOT
from fastbg.constants import CHECKERS

POINTS = 6
N_ONE_SIDED = 54264          # C(21, 6): up to 15 checkers on 6 points
N_TWO_SIDED = 924            # C(12, 6): up to 6 checkers on 6 points
N_GAMMON_LIMIT = 38760       # C(20, 6): indices >= this hold all 15 checkers
MAX_ROLLS = 32               # one-sided distributions: 0..31 rolls
MAX_SUCC = 128               # distinct results of one roll from a one-sided position
RBG_ROLLS = 5                # race backgammon table: rolls 1..5
EQUITY_WON = 32767           # two-sided table: equity +1 and -1 in 16 bits
EQUITY_LOST = -32768
# The 21 rolls in makebearoff's order: larger die 1..6, smaller die 1..larger.
ROLLS = np.array([(a, b) for a in range(1, 7) for b in range(1, a + 1)], np.int64)


def _binomials():
    c = np.zeros((40, 40), np.int64)
    for n in range(40):
        c[n, 0] = 1
        for r in range(1, n + 1):
            c[n, r] = c[n - 1, r - 1] + c[n - 1, r]
    return c


BINOM = _binomials()


@njit(**HOT)
def position_index(c, binom):
    """GNU Backgammon's bear-off index of ``c[0..5]`` (checkers on points 1..6).

    The counts are written as a bit string of 21 places (a one per point, preceded by
    its checkers as zeros, highest point first); the index is that string's rank in the
    combinatorial number system: the sum of binom[place of the t-th one, 6 - t] (binom[a, b]
    is 0 for a < b). The places follow from the counts directly (a loop over the 21 bits
    with a branch each cost 0.03 us; :func:`position_index_reference` is that loop).
    """
    j = POINTS - 1
    for i in range(POINTS):
        j += c[i]
    idx = binom[j, POINTS]
    for i in range(POINTS - 1):
        j -= c[i] + 1
        idx += binom[j, POINTS - 1 - i]
    return idx


@njit(cache=True)
def position_index_reference(c, binom):
    """:func:`position_index` bit by bit, as gnubg's PositionBearoff."""
    j = POINTS - 1
    for i in range(POINTS):
        j += c[i]
    bits = np.int64(1) << j
    for i in range(POINTS - 1):
        j -= c[i] + 1
        bits |= np.int64(1) << j
    n = CHECKERS + POINTS
    r = POINTS
    idx = 0
    while n > r and r > 0:
        if bits & (np.int64(1) << (n - 1)):
            idx += binom[n - 1, r]
            r -= 1
        n -= 1
    return idx


@njit(cache=True)
def all_positions(binom):
    """counts (54,264, 6) int64: the position of every bear-off index."""
    out = np.zeros((N_ONE_SIDED, POINTS), np.int64)
    c = np.zeros(POINTS, np.int64)
    for a in range(CHECKERS + 1):
        for b in range(CHECKERS + 1 - a):
            for d in range(CHECKERS + 1 - a - b):
                for e in range(CHECKERS + 1 - a - b - d):
                    for f in range(CHECKERS + 1 - a - b - d - e):
                        for g in range(CHECKERS + 1 - a - b - d - e - f):
                            c[0] = a
                            c[1] = b
                            c[2] = d
                            c[3] = e
                            c[4] = f
                            c[5] = g
                            idx = position_index(c, binom)
                            for i in range(POINTS):
                                out[idx, i] = c[i]
    return out


@njit(cache=True)
def _legal(b, src, die):
    """GNU Backgammon's LegalMove for one side alone on points 1..6 (b[0..5])."""
    if src - die >= 0:
        return True
    back = 0
    for i in range(1, POINTS):
        if b[i] > 0:
            back = i
    return src == back or src - die == -1


@njit(cache=True)
def _save(depth, b, st, found, binom):
    """SaveMoves: keep results of the most dice used, first occurrence first."""
    if depth < st[1]:
        return
    if depth > st[1]:
        st[1] = depth
        st[0] = 0
    idx = position_index(b, binom)
    for i in range(st[0]):
        if found[i] == idx:
            return
    found[st[0]] = idx
    st[0] += 1


@njit(cache=True)
def _generate_pass(start, dice, boards, nxt, used, st, found, binom):
    """GenerateMovesSub from the root, without recursion (frames in ``nxt``/``used``)."""
    for i in range(POINTS):
        boards[0, i] = start[i]
    nxt[0] = POINTS - 1
    used[0] = 0
    d = 0
    doubles = dice[0] == dice[1]
    while d >= 0:
        i = nxt[d]
        while i >= 0:
            if boards[d, i] > 0 and _legal(boards[d], i, dice[d]):
                break
            i -= 1
        if i >= 0:
            nxt[d] = i - 1
            used[d] = 1
            for q in range(POINTS):
                boards[d + 1, q] = boards[d, q]
            boards[d + 1, i] -= 1
            if i - dice[d] >= 0:
                boards[d + 1, i - dice[d]] += 1
            if d + 1 > 3 or dice[d + 1] == 0:
                _save(d + 1, boards[d + 1], st, found, binom)
            else:
                nxt[d + 1] = i if doubles else POINTS - 1
                used[d + 1] = 0
                d += 1
        else:
            ret = used[d] == 0
            d -= 1
            if d >= 0 and ret:
                _save(d + 1, boards[d + 1], st, found, binom)


@njit(cache=True)
def os_moves(c, d0, d1, found, scratch, binom):
    """Distinct results (bear-off indices) of rolling d0-d1 (d0 >= d1) from ``c``.

    Fills ``found`` in GNU Backgammon's GenerateMoves order and returns their number.
    ``scratch`` = (boards int64[5, 6], nxt int64[4], used int64[4], dice int64[4],
    st int64[2]).
    """
    boards, nxt, used, dice, st = scratch
    st[0] = 0
    st[1] = 0
    dice[0] = d0
    dice[1] = d1
    dice[2] = d0 if d0 == d1 else 0
    dice[3] = dice[2]
    _generate_pass(c, dice, boards, nxt, used, st, found, binom)
    if d0 != d1:
        dice[0] = d1
        dice[1] = d0
        _generate_pass(c, dice, boards, nxt, used, st, found, binom)
    return st[0]


@njit(cache=True)
def new_move_scratch():
    return (np.zeros((5, POINTS), np.int64), np.zeros(4, np.int64), np.zeros(4, np.int64),
            np.zeros(4, np.int64), np.zeros(2, np.int64))


@njit(cache=True)
def successors(positions, n_pos, binom):
    """succ (n_pos, 21, MAX_SUCC) int32 and count (n_pos, 21): results of every roll."""
    succ = np.full((n_pos, 21, MAX_SUCC), -1, np.int32)
    count = np.zeros((n_pos, 21), np.int32)
    found = np.zeros(MAX_SUCC, np.int64)
    scr = new_move_scratch()
    for p in range(1, n_pos):
        for r in range(21):
            k = os_moves(positions[p], ROLLS[r, 0], ROLLS[r, 1], found, scr, binom)
            count[p, r] = k
            for i in range(k):
                succ[p, r, i] = found[i]
    return succ, count


@njit(cache=True)
def one_sided_table(positions, binom):
    """The one-sided distributions (54,264, 32) uint16 (see the module docstring)."""
    n = positions.shape[0]
    table = np.zeros((n, MAX_ROLLS), np.int64)
    table[0, 0] = 0xFFFF
    acc = np.zeros(MAX_ROLLS, np.int64)
    found = np.zeros(MAX_SUCC, np.int64)
    scr = new_move_scratch()
    for p in range(1, n):
        for i in range(MAX_ROLLS):
            acc[i] = 0
        for r in range(21):
            k = os_moves(positions[p], ROLLS[r, 0], ROLLS[r, 1], found, scr, binom)
            best = -1
            best_rolls = np.int64(0xFFFFFFFF)
            for m in range(k):
                j = found[m]
                rolls = 0
                for i in range(1, MAX_ROLLS):
                    rolls += i * table[j, i]
                if rolls < best_rolls:
                    best_rolls = rolls
                    best = j
            w = 1 if ROLLS[r, 0] == ROLLS[r, 1] else 2
            for i in range(MAX_ROLLS - 1):
                acc[i + 1] += w * table[best, i]
        total = 0
        mode = 0
        for i in range(MAX_ROLLS):
            table[p, i] = (acc[i] + 18) // 36
            total += table[p, i]
            if table[p, i] > table[p, mode]:
                mode = i
        table[p, mode] -= total - 0xFFFF
    return table.astype(np.uint16)


@njit(cache=True)
def two_sided_table(succ, count):
    """Cubeless equities (924, 924) uint16 of the side on roll, ``[us, them]``.

    Integer recursion as makebearoff's 16-bit version: equities in -32768..32767 (lost,
    won), each roll adds the best of ``~E[them, us']`` over the results ``us'`` (``~x`` =
    -x - 1, the negation it uses; twice for non-doubles), the total divided by 36 with C's
    truncation toward zero; stored as ``E + 32768``.
    """
    n = N_TWO_SIDED
    eq = np.zeros((n, n), np.int64)
    for them in range(n):
        eq[0, them] = EQUITY_WON
    for us in range(1, n):
        eq[us, 0] = EQUITY_LOST
    # Results have lower indices than the position moved from: sweep by us + them.
    for s in range(2, 2 * n - 1):
        lo = max(1, s - (n - 1))
        hi = min(n - 1, s - 1)
        for us in range(lo, hi + 1):
            them = s - us
            total = 0
            for r in range(21):
                worst = np.int64(1) << 40
                for m in range(count[us, r]):
                    v = eq[them, succ[us, r, m]]
                    if v < worst:
                        worst = v
                best = -worst - 1
                total += best if ROLLS[r, 0] == ROLLS[r, 1] else 2 * best
            q = abs(total) // 36
            eq[us, them] = q if total >= 0 else -q
    return (eq + 32768).astype(np.uint16)


@njit(cache=True)
def gammon_table(positions, binom):
    """First-checker-off counts (54,264, 4) int64 for 15-checker positions (else zeros)."""
    n = positions.shape[0]
    probs = np.zeros((n, 4), np.int64)
    found = np.zeros(MAX_SUCC, np.int64)
    scr = new_move_scratch()
    for p in range(1, n):
        b = positions[p]
        tot = 0
        for i in range(POINTS):
            tot += b[i]
        if tot != CHECKERS:
            continue
        if ((b[4] and b[3] and b[2]) or (not b[5] and not b[4] and b[3] and b[2])
                or (not b[5] and not b[4] and not b[3] and b[2])
                or (not b[5] and not b[4] and not b[3] and not b[2])):
            probs[p, 0] = 36
            continue
        for r in range(21):
            r0 = ROLLS[r, 0]
            r1 = ROLLS[r, 1]
            w = 1 if r0 == r1 else 2
            if b[r0 - 1] or b[r1 - 1] or (r0 + r1 <= 6 and b[r0 + r1 - 1]):
                probs[p, 0] += w
                continue
            k = os_moves(b, r0, r1, found, scr, binom)
            best = -1
            best_avg = np.int64(0)
            for m in range(k):
                j = found[m]
                if probs[j, 0] == 0:
                    best = j
                    break
                a = _avg(probs[j])
                if best < 0 or a < best_avg:
                    best = j
                    best_avg = a
            if probs[best, 0] == 0:
                probs[p, 0] += w
            else:
                for i in range(3):
                    probs[p, i + 1] += w * probs[best, i]
                if probs[best, 3]:
                    probs[p, 3] += w * (probs[best, 3] // 36)
    return probs


@njit(cache=True)
def _avg(p):
    return p[0] * (36 * 36 * 36) + 2 * p[1] * (36 * 36) + 3 * p[2] * 36 + 4 * p[3]


@njit(cache=True)
def gammon_dist_table(positions, binom):
    """The gammon distributions (15,504, 32) uint16 of the 15-checker positions (row
    ``index - N_GAMMON_LIMIT``; see the module docstring).

    As the win distributions of :func:`one_sided_table`, but each roll takes the result
    with the fewest expected rolls to the first checker off (the first such in move order);
    a result with fewer than 15 checkers has its first checker off (0 rolls), then the
    same rounding: the sum over the 21 rolls shifted one roll, divided by 36 rounding
    half up, the excess over 65535 taken from the most likely entry."""
    n = positions.shape[0]
    table = np.zeros((n - N_GAMMON_LIMIT, MAX_ROLLS), np.int64)
    acc = np.zeros(MAX_ROLLS, np.int64)
    found = np.zeros(MAX_SUCC, np.int64)
    scr = new_move_scratch()
    for p in range(N_GAMMON_LIMIT, n):
        for i in range(MAX_ROLLS):
            acc[i] = 0
        for r in range(21):
            k = os_moves(positions[p], ROLLS[r, 0], ROLLS[r, 1], found, scr, binom)
            best = -1
            best_rolls = np.int64(0xFFFFFFFF)
            for m in range(k):
                j = found[m]
                rolls = 0                       # a checker is off: 0 rolls to go
                if j >= N_GAMMON_LIMIT:
                    for i in range(1, MAX_ROLLS):
                        rolls += i * table[j - N_GAMMON_LIMIT, i]
                if rolls < best_rolls:
                    best_rolls = rolls
                    best = j
            w = 1 if ROLLS[r, 0] == ROLLS[r, 1] else 2
            if best < N_GAMMON_LIMIT:
                acc[1] += w * 0xFFFF
            else:
                for i in range(MAX_ROLLS - 1):
                    acc[i + 1] += w * table[best - N_GAMMON_LIMIT, i]
        row = table[p - N_GAMMON_LIMIT]
        total = 0
        mode = 0
        for i in range(MAX_ROLLS):
            row[i] = (acc[i] + 18) // 36
            total += row[i]
            if row[i] > row[mode]:
                mode = i
        row[mode] -= total - 0xFFFF
    return table.astype(np.uint16)
