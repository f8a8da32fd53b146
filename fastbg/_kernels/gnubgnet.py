"""GNU Backgammon's 0-ply evaluation (the gnubg-nn networks) as numba kernels.

The evaluation follows gnubg-nn's ``eval.c`` and ``inputs.c`` (Joseph Heled's GNU
Backgammon networks, weights file version 1.01), re-implemented here from their
description:

* **Classes** (:func:`classify`, gnubg's ``ClassifyPosition``): game over; two-sided
  bear-off (both sides on their points 1..6 with at most six checkers each); one-sided
  bear-off (both on 1..6, one side with more); race (no contact); crashed (contact where a
  side has at most six checkers left, or six once the checkers piled on its points 1 and 2
  are discounted); contact.
* **Inputs**: contact and crashed nets take 250 inputs: 4 per point and bar per side (200,
  the side *not* on roll first) then 25 hand-made features per side (the side on roll
  first; see :func:`half_inputs`); the contact net's inputs ("contact250") replace the
  first three features of each side by borne-off counts of the *other* side, on a scale
  for at most eight off (gnubg's inputs carry this swap). The race net takes 107 inputs
  per side (side not on roll first): 4 per point 1..23, 14 one-hot borne-off counts and
  the checkers' crossings to home / 10.
* **Network**: one hidden layer, gnubg's float32 arithmetic in its order (hidden sums over
  the non-zero inputs in input order, a weight added directly where the input is 1),
  gnubg's sigmoid approximation ``1 / (1 + e^x)`` from a table of ``exp(k / 10)`` with a
  linear correction (:func:`sigmoid`).
* **Race** results get gnubg's ``raceImprovement``: exact backgammon chances from the
  tables of :mod:`fastbg._kernels.bearoff` and certain-gammon detection.
* **Bear-off**: two-sided table for small positions, else the one-sided distributions
  (win = the side on roll finishes in no more rolls than the other), gammons from the
  first-checker-off table.
* **Sanity check** (gnubg's ``SanityCheck``): impossible gammons/backgammons zeroed,
  probabilities clipped into order, gammon probabilities below 1e-4 set to 0.

Outputs are float32 values widened to float64: (win, win gammon, win backgammon,
lose gammon, lose backgammon) for the side on roll, cumulative.

Everything works on gnubg's board ``gb`` int64[2, 25] (row 1 the side on roll, row 0 the
other, each in its own numbering, index 24 the bar), built from the interchange board by
:func:`to_gnubg`. Kernel arguments are grouped: ``net`` (the weights, see
:func:`fastbg.gnubgnet.load_weights`) and ``bo`` (the bear-off tables, see
:func:`fastbg.bearoff.tables`); per-thread scratch comes from :func:`new_scratch`.
"""
import numpy as np
from numba import njit, prange

from . import bearoff as _bo

BAR = 25
BOARD_SIZE = 26
CHECKERS = 15

# Position classes (gnubg's positionclass order).
C_OVER, C_BEAROFF2, C_BEAROFF1, C_RACE, C_CRASHED, C_CONTACT = range(6)
# Nets, in the arrays of ``net``.
NET_RACE, NET_CRASHED, NET_CONTACT = range(3)
N_NETS = 3
# Input functions a net may use (named on its line of the weights file).
IF_RACE, IF_STD250, IF_CONTACT250 = range(3)
INPUT_FUNCS = {"race": IF_RACE, "std250": IF_STD250, "contact250": IF_CONTACT250}
N_INPUTS = {IF_RACE: 214, IF_STD250: 250, IF_CONTACT250: 250}
MAX_INPUTS = 250
N_OUT = 5
OUT_WIN, OUT_WG, OUT_WBG, OUT_LG, OUT_LBG = range(5)

# Half-input features (gnubg's inputs.c enum order), 25 per side after the 200 base inputs.
(I_OFF1, I_OFF2, I_OFF3, I_BREAK_CONTACT, I_BACK_CHEQUER, I_BACK_ANCHOR, I_FORWARD_ANCHOR,
 I_PIPLOSS, I_P1, I_P2, I_BACKESCAPES, I_ACONTAIN, I_ACONTAIN2, I_CONTAIN, I_CONTAIN2,
 I_MOBILITY, I_MOMENT2, I_ENTER, I_ENTER2, I_TIMING, I_BACKBONE, I_BACKG, I_BACKG1,
 I_FREEPIP, I_BACKRESCAPES, MORE_INPUTS) = range(26)
BASE_INPUTS = 200
RACE_HALF = 107            # race inputs per side
RI_OFF = 92                # race: 14 one-hot borne-off inputs
RI_NCROSS = 106            # race: crossings / 10


def _escape_tables():
    """gnubg's anEscapes / anEscapes1: rolls (of 36) that escape past a 12-point pattern."""
    esc = np.zeros(0x1000, np.int64)
    esc1 = np.zeros(0x1000, np.int64)
    for i in range(0x1000):
        c = 0
        c1 = 0
        low = 0
        while i and not (i & (1 << low)):
            low += 1
        for n0 in range(6):
            for n1 in range(n0 + 1):
                free = not (i & (1 << (n0 + n1 + 1))) and not ((i & (1 << n0)) and (i & (1 << n1)))
                w = 1 if n0 == n1 else 2
                if free:
                    c += w
                    if i and n0 + n1 + 1 > low:
                        c1 += w
        esc[i] = c
        esc1[i] = c1
    return esc, esc1


ESC, ESC1 = _escape_tables()

# Shots at a blot n pips away (n = 1..24): indices into the ways to hit below (-1: none).
HIT_WAYS = np.array([
    [0, -1, -1, -1, -1], [1, 2, -1, -1, -1], [3, 4, 5, -1, -1], [6, 7, 8, 9, -1],
    [10, 11, 12, -1, -1], [13, 14, 15, 16, 17], [18, 19, 20, -1, -1], [21, 22, 23, 24, -1],
    [25, 26, 27, -1, -1], [28, 29, -1, -1, -1], [30, -1, -1, -1, -1], [31, 32, 33, -1, -1],
    [-1] * 5, [-1] * 5, [34, -1, -1, -1, -1], [35, -1, -1, -1, -1], [-1] * 5,
    [36, -1, -1, -1, -1], [-1] * 5, [37, -1, -1, -1, -1], [-1] * 5, [-1] * 5, [-1] * 5,
    [38, -1, -1, -1, -1]], np.int64)
# Each way to hit: (all intermediate points needed?, intermediate points x3, faces, pips).
HIT_WAY = np.array([
    [1, 0, 0, 0, 1, 1], [1, 0, 0, 0, 1, 2], [1, 1, 0, 0, 2, 2], [1, 0, 0, 0, 1, 3],
    [0, 1, 2, 0, 2, 3], [1, 1, 2, 0, 3, 3], [1, 0, 0, 0, 1, 4], [0, 1, 3, 0, 2, 4],
    [1, 2, 0, 0, 2, 4], [1, 1, 2, 3, 4, 4], [1, 0, 0, 0, 1, 5], [0, 1, 4, 0, 2, 5],
    [0, 2, 3, 0, 2, 5], [1, 0, 0, 0, 1, 6], [0, 1, 5, 0, 2, 6], [0, 2, 4, 0, 2, 6],
    [1, 3, 0, 0, 2, 6], [1, 2, 4, 0, 3, 6], [0, 1, 6, 0, 2, 7], [0, 2, 5, 0, 2, 7],
    [0, 3, 4, 0, 2, 7], [0, 2, 6, 0, 2, 8], [0, 3, 5, 0, 2, 8], [1, 4, 0, 0, 2, 8],
    [1, 2, 4, 6, 4, 8], [0, 3, 6, 0, 2, 9], [0, 4, 5, 0, 2, 9], [1, 3, 6, 0, 3, 9],
    [0, 4, 6, 0, 2, 10], [1, 5, 0, 0, 2, 10], [0, 5, 6, 0, 2, 11], [1, 6, 0, 0, 2, 12],
    [1, 4, 8, 0, 3, 12], [1, 3, 6, 9, 4, 12], [1, 5, 10, 0, 3, 15], [1, 4, 8, 12, 4, 16],
    [1, 6, 12, 0, 3, 18], [1, 5, 10, 15, 4, 20], [1, 6, 12, 18, 4, 24]], np.int64)
W_ALL, W_INTER, W_FACES, W_PIPS = 0, 1, 4, 5
# The ways each of the 21 rolls hits (11, 21, 22, 31, 32, 33, 41, ...).
ROLL_WAYS = np.array([
    [0, 2, 5, 9], [0, 1, 4, -1], [1, 8, 17, 24], [0, 3, 7, -1], [1, 3, 12, -1],
    [3, 16, 27, 33], [0, 6, 11, -1], [1, 6, 15, -1], [3, 6, 20, -1], [6, 23, 32, 35],
    [0, 10, 14, -1], [1, 10, 19, -1], [3, 10, 22, -1], [6, 10, 26, -1], [10, 29, 34, 37],
    [0, 13, 18, -1], [1, 13, 21, -1], [3, 13, 25, -1], [6, 13, 28, -1], [10, 13, 30, -1],
    [13, 31, 36, 38]], np.int64)

# gnubg's sigmoid table: e[k] = exp(k / 10) / 10, one extra entry.
SIG_E = np.array([np.exp(k / 10.0) / 10.0 for k in range(100)] + [np.exp(9.9) / 10.0],
                 np.float32)
SIG_HI = np.float32(1.0) / np.float32(19931.370438230298)
SIG_LO = np.float32(19930.370438230298) / np.float32(19931.370438230298)


@njit(cache=True)
def sigmoid(x):
    """gnubg's 1 / (1 + e^x) in float32: table of exp(k/10), linear in the remainder."""
    ten = np.float32(10.0)
    one = np.float32(1.0)
    if not np.signbit(x):
        if x < ten:
            x1 = ten * x
            i = np.int64(x1)
            return one / (one + SIG_E[i] * (np.float32(10 - i) + x1))
        return SIG_HI
    if x > -ten:
        x1 = -ten * x
        i = np.int64(x1)
        return one - one / (one + SIG_E[i] * (np.float32(10 - i) + x1))
    return SIG_LO


@njit(cache=True)
def to_gnubg(b, gb):
    """Interchange board (player on roll) -> gnubg's gb[2, 25] (row 1 on roll)."""
    for j in range(24):
        v = b[j + 1]
        gb[1, j] = v if v > 0 else 0
        w = -b[24 - j]
        gb[0, j] = w if w > 0 else 0
    gb[1, 24] = b[BAR]
    gb[0, 24] = -b[0]


@njit(cache=True)
def to_gnubg_swapped(b, gb):
    """Interchange board seen from the mover -> gnubg's board with the *other* side on roll."""
    for j in range(24):
        v = b[j + 1]
        gb[0, j] = v if v > 0 else 0
        w = -b[24 - j]
        gb[1, j] = w if w > 0 else 0
    gb[0, 24] = b[BAR]
    gb[1, 24] = -b[0]


@njit(cache=True)
def bearoff_index(row, binom):
    """gnubg's PositionBearoff of points 1..6 of one side (row[0..5])."""
    return _bo.position_index(row, binom)


@njit(cache=True)
def classify(gb, binom):
    """gnubg's ClassifyPosition."""
    n_opp_back = -1
    for i in range(24, -1, -1):
        if gb[0, i]:
            n_opp_back = i
            break
    n_back = -1
    for i in range(24, -1, -1):
        if gb[1, i]:
            n_back = i
            break
    if n_back < 0 or n_opp_back < 0:
        return C_OVER
    if n_back + n_opp_back > 22:
        for side in range(2):
            tot = 0
            for i in range(25):
                tot += gb[side, i]
            if tot <= 6:
                return C_CRASHED
            if gb[side, 0] > 1:
                if tot - gb[side, 0] <= 6:
                    return C_CRASHED
                if gb[side, 1] > 1 and 1 + tot - (gb[side, 0] + gb[side, 1]) <= 6:
                    return C_CRASHED
            else:
                if tot - (gb[side, 1] - 1) <= 6:
                    return C_CRASHED
        return C_CONTACT
    if n_back > 5 or n_opp_back > 5:
        return C_RACE
    if bearoff_index(gb[0], binom) > 923 or bearoff_index(gb[1], binom) > 923:
        return C_BEAROFF1
    return C_BEAROFF2


# ---- inputs ---------------------------------------------------------------------------

@njit(cache=True)
def _point_inputs(nc, inp, o):
    """A point's 4 inputs: 1 checker, 2, 3 or more, (n - 3) / 2 above 3."""
    inp[o] = 1.0 if nc == 1 else 0.0
    inp[o + 1] = 1.0 if nc == 2 else 0.0
    inp[o + 2] = 1.0 if nc >= 3 else 0.0
    inp[o + 3] = (nc - 3) / 2.0 if nc > 3 else 0.0


@njit(cache=True)
def _point_nonzero(nc, o, nz, c):
    """Append the indices of a point's non-zero inputs to nz[c:] (without branches: the
    0..2 written entries are kept by the count); returns the new count."""
    nz[c] = o + min(nc, 3) - 1
    nz[c + 1] = o + 3
    return c + (nc > 0) + (nc > 3)


@njit(cache=True)
def base_inputs(gb, inp, nz):
    """200 inputs: per side (row 0 first), 4 per point and 4 for the bar. Returns the
    number of non-zero inputs, listed in increasing order in nz."""
    for s in range(2):
        o = s * 100
        for i in range(24):
            _point_inputs(gb[s, i], inp, o + 4 * i)
        nc = gb[s, 24]
        inp[o + 96] = 1.0 if nc >= 1 else 0.0
        inp[o + 97] = 1.0 if nc >= 2 else 0.0
        inp[o + 98] = 1.0 if nc >= 3 else 0.0
        inp[o + 99] = (nc - 3) / 2.0 if nc > 3 else 0.0
    c = 0
    for s in range(2):
        o = s * 100
        for i in range(24):
            c = _point_nonzero(gb[s, i], o + 4 * i, nz, c)
        nc = gb[s, 24]
        for q in range(4):
            nz[c + q] = o + 96 + q
        c += min(nc, 3) + (nc > 3)
    return c


@njit(cache=True)
def made_mask(board):
    """Bit i set when board[i] holds two or more checkers (i = 0..24)."""
    m = 0
    for i in range(25):
        if board[i] > 1:
            m |= 1 << i
    return m


@njit(cache=True)
def _escape_pattern(mask, n):
    """gnubg's Escapes pattern: bit i = point 24 - n + i made, for i < min(12, n)."""
    return (mask >> (24 - n)) & ((1 << min(12, n)) - 1)


@njit(cache=True)
def _escapes(mask, n):
    return ESC[_escape_pattern(mask, n)]


@njit(cache=True)
def _escapes_r(mask, n):
    return ESC1[_escape_pattern(mask, n)]


@njit(cache=True)
def _top_bit(x):
    """Index of the highest set bit of 0 < x < 2^32."""
    n = 0
    if x >> 16:
        x >>= 16
        n += 16
    if x >> 8:
        x >>= 8
        n += 8
    if x >> 4:
        x >>= 4
        n += 4
    if x >> 2:
        x >>= 2
        n += 2
    if x >> 1:
        n += 1
    return n


@njit(cache=True)
def pip_loss(board, opp, hit, rp, rc):
    """gnubg's pipLossP1P2: (pips lost / 432, P(hit one), P(hit two)) for ``board`` hitting.

    ``hit`` int64[39], ``rp`` / ``rc`` int64[21] are scratch.
    """
    n_board = 0
    for i in range(6):
        if board[i] >= 2:
            n_board += 1
    for i in range(39):
        hit[i] = 0
    hitters = 0                   # points we are willing to hit from
    for j in range(25):
        if board[j] and not (j < 6 and board[j] == 2):
            hitters |= 1 << j
    top = 23 if n_board > 2 else 21
    for i in range(top, -1, -1):
        if opp[i] != 1:
            continue
        cand = hitters >> (24 - i)
        j = 24 - i - 1
        while cand:
            skip = 0
            while not (cand & 1):
                cand >>= 1
                skip += 1
            j += skip + 1
            cand >>= 1
            for n in range(5):
                c = HIT_WAYS[j - 24 + i, n]
                if c == -1:
                    break
                if HIT_WAY[c, W_ALL]:
                    if HIT_WAY[c, W_FACES] > 1:
                        blocked = False
                        for k in range(3):
                            inter = HIT_WAY[c, W_INTER + k]
                            if inter <= 0:
                                break
                            if opp[i - inter] > 1:
                                blocked = True
                                break
                        if blocked:
                            continue
                else:
                    if opp[i - HIT_WAY[c, W_INTER]] > 1 and opp[i - HIT_WAY[c, W_INTER + 1]] > 1:
                        continue
                hit[c] |= np.int64(1) << j
    for i in range(21):
        rp[i] = 0
        rc[i] = 0
    if not board[24]:
        for i in range(21):
            n = -1
            for j in range(4):
                r = ROLL_WAYS[i, j]
                if r < 0:
                    break
                if not hit[r]:
                    continue
                pips = HIT_WAY[r, W_PIPS]
                if HIT_WAY[r, W_FACES] == 1:
                    m = hit[r] & 0xFFFFFE                 # the most advanced of points 23..1
                    if m:
                        k = _top_bit(m)
                        if n != k or board[k] > 1:
                            rc[i] += 1
                        n = k
                        if k - pips + 1 > rp[i]:
                            rp[i] = k - pips + 1
                        if ROLL_WAYS[i, 3] >= 0 and (hit[r] & ~(np.int64(1) << k)):
                            rc[i] += 1
                else:
                    if not rc[i]:
                        rc[i] = 1
                    m = hit[r] & 0xFFFFFF
                    k = _top_bit(m) if m else -1
                    if k - pips + 1 > rp[i]:
                        rp[i] = k - pips + 1
                    for q in range(3):
                        inter = HIT_WAY[r, W_INTER + q]
                        if inter <= 0:
                            break
                        if opp[23 - k + inter] == 1:
                            rc[i] += 1
                            break
    elif board[24] == 1:
        for i in range(21):
            n = 0
            for j in range(4):
                r = ROLL_WAYS[i, j]
                if r < 0:
                    break
                if not hit[r]:
                    continue
                pips = HIT_WAY[r, W_PIPS]
                if HIT_WAY[r, W_FACES] == 1:
                    for k in range(24, 0, -1):
                        if hit[r] & (np.int64(1) << k):
                            if n and k != 24:
                                break
                            if k != 24:
                                npip = HIT_WAY[ROLL_WAYS[i, 1 - j], W_PIPS]
                                if opp[npip - 1] > 1:
                                    break
                                n = 1
                            rc[i] += 1
                            if k - pips + 1 > rp[i]:
                                rp[i] = k - pips + 1
                else:
                    if not (hit[r] & (np.int64(1) << 24)):
                        continue
                    if not rc[i]:
                        rc[i] = 1
                    if 25 - pips > rp[i]:
                        rp[i] = 25 - pips
                    for q in range(3):
                        inter = HIT_WAY[r, W_INTER + q]
                        if inter <= 0:
                            break
                        if opp[inter + 1] == 1:
                            rc[i] += 1
                            break
    else:
        for i in range(21):
            for j in range(2):
                r = ROLL_WAYS[i, j]
                if not (hit[r] & (np.int64(1) << 24)):
                    continue
                if HIT_WAY[r, W_FACES] != 1:
                    continue
                rc[i] += 1
                if 25 - HIT_WAY[r, W_PIPS] > rp[i]:
                    rp[i] = 25 - HIT_WAY[r, W_PIPS]
    npips = 0
    n1 = 0
    n2 = 0
    for i in range(21):
        w = 1 if ROLL_WAYS[i, 3] > 0 else 2
        npips += rp[i] * w
        if rc[i] > 0:
            n1 += w
            if rc[i] > 1:
                n2 += w
    return npips / (12.0 * 36.0), n1 / 36.0, n2 / 36.0


@njit(cache=True)
def half_inputs(board, opp, inp, o, hit, rp, rc):
    """gnubg's CalculateHalfInputs: 25 features of ``board`` (against ``opp``) at inp[o:]."""
    men_off = CHECKERS
    for i in range(25):
        men_off -= board[i]
    if men_off > 10:
        inp[o + I_OFF1] = 1.0
        inp[o + I_OFF2] = 1.0
        inp[o + I_OFF3] = (men_off - 10) / 5.0
    elif men_off > 5:
        inp[o + I_OFF1] = 1.0
        inp[o + I_OFF2] = (men_off - 5) / 5.0
        inp[o + I_OFF3] = 0.0
    else:
        inp[o + I_OFF1] = men_off / 5.0 if men_off else 0.0
        inp[o + I_OFF2] = 0.0
        inp[o + I_OFF3] = 0.0

    raw = -1                          # opponent's rearmost checker, in its numbering
    for i in range(24, -1, -1):
        if opp[i]:
            raw = i
            break
    n_opp_back = 23 - raw             # ... in ours

    n = 0
    for i in range(n_opp_back + 1, 25):
        if board[i]:
            n += (i + 1 - n_opp_back) * board[i]
    inp[o + I_BREAK_CONTACT] = n / (15 + 152.0)

    p = 0
    for i in range(n_opp_back):
        if board[i]:
            p += (i + 1) * board[i]
    inp[o + I_FREEPIP] = p / 100.0

    t = 24 * board[24]
    no = board[24]
    i = 23
    while i >= 12 and i > n_opp_back:
        if board[i] and board[i] != 2:
            k = board[i] - 2 if board[i] > 2 else 1
            no += k
            t += i * k
        i -= 1
    while i >= 6:
        if board[i]:
            no += board[i]
            t += i * board[i]
        i -= 1
    for i in range(5, -1, -1):
        if board[i] > 2:
            t += i * (board[i] - 2)
            no += board[i] - 2
        elif board[i] < 2:
            k = 2 - board[i]
            if no >= k:
                t -= i * k
                no -= k
    if t < 0:
        t = 0
    inp[o + I_TIMING] = t / 100.0

    back = -1
    for i in range(24, -1, -1):
        if board[i]:
            back = i
            break
    inp[o + I_BACK_CHEQUER] = back / 24.0
    anchor = 23 if back == 24 else back
    while anchor >= 0:
        if board[anchor] >= 2:
            break
        anchor -= 1
    inp[o + I_BACK_ANCHOR] = anchor / 24.0
    n = 0
    for j in range(18, anchor + 1):
        if board[j] >= 2:
            n = 24 - j
            break
    if n == 0:
        for j in range(17, 11, -1):
            if board[j] >= 2:
                n = 24 - j
                break
    inp[o + I_FORWARD_ANCHOR] = 2.0 if n == 0 else n / 6.0

    pl, p1, p2 = pip_loss(board, opp, hit, rp, rc)
    inp[o + I_PIPLOSS] = pl
    inp[o + I_P1] = p1
    inp[o + I_P2] = p2

    mine = made_mask(board)
    theirs = made_mask(opp)
    inp[o + I_BACKESCAPES] = _escapes(mine, 23 - n_opp_back) / 36.0
    inp[o + I_BACKRESCAPES] = _escapes_r(mine, 23 - n_opp_back) / 36.0

    # ACONTAIN runs i = 15 .. 23 - n_opp_back, CONTAIN i = 15 .. 23: one pass for both.
    n_a = 36
    n_c = 36
    for i in range(15, max(24, 24 - n_opp_back)):
        j = _escapes(mine, i)
        if i < 24 - n_opp_back and j < n_a:
            n_a = j
        if i < 24 and j < n_c:
            n_c = j
    inp[o + I_ACONTAIN] = (36 - n_a) / 36.0
    inp[o + I_ACONTAIN2] = inp[o + I_ACONTAIN] * inp[o + I_ACONTAIN]
    inp[o + I_CONTAIN] = (36 - n_c) / 36.0
    inp[o + I_CONTAIN2] = inp[o + I_CONTAIN] * inp[o + I_CONTAIN]

    n = 0
    for i in range(6, 25):
        if board[i]:
            n += (i - 5) * board[i] * _escapes(theirs, i)
    inp[o + I_MOBILITY] = n / 3600.0

    j = 0
    n = 0
    for i in range(25):
        if board[i]:
            j += board[i]
            n += i * board[i]
    if j:
        n = (n + j - 1) // j
    j = 0
    k = 0
    for i in range(n + 1, 25):
        if board[i]:
            j += board[i]
            k += board[i] * (i - n) * (i - n)
    if j:
        k = (k + j - 1) // j
    inp[o + I_MOMENT2] = k / 400.0

    if board[24] > 0:
        loss = 0
        two = board[24] > 1
        for i in range(6):
            if opp[i] > 1:
                loss += 4 * (i + 1)
                for j in range(i + 1, 6):
                    if opp[j] > 1:
                        loss += 2 * (i + j + 2)
                    elif two:
                        loss += 2 * (i + 1)
            elif two:
                for j in range(i + 1, 6):
                    if opp[j] > 1:
                        loss += 2 * (j + 1)
        inp[o + I_ENTER] = loss / (36.0 * (49.0 / 6.0))
    else:
        inp[o + I_ENTER] = 0.0

    n = 0
    for i in range(6):
        if opp[i] > 1:
            n += 1
    inp[o + I_ENTER2] = (36 - (n - 6) * (n - 6)) / 36.0

    pa = -1
    w = 0
    tot = 0
    for np_ in range(23, 0, -1):
        if board[np_] >= 2:
            if pa == -1:
                pa = np_
                continue
            d = pa - np_
            c = 0
            if d <= 6:
                c = 11
            elif d <= 11:
                c = 13 - d
            w += c * board[pa]
            tot += board[pa]
    inp[o + I_BACKBONE] = 1 - (w / (tot * 11.0)) if tot else 0.0

    n_ac = 0
    n_bc = 0
    for i in range(18, 24):
        n_bc += board[i]
        if board[i] > 1:
            n_ac += 1
    if n_ac > 1:
        inp[o + I_BACKG] = (n_bc + board[24] - 3) / 4.0
    else:
        inp[o + I_BACKG] = 0.0
    if n_ac == 1:
        inp[o + I_BACKG1] = (n_bc + board[24]) / 8.0
    else:
        inp[o + I_BACKG1] = 0.0


@njit(cache=True)
def _men_off_contact(board, inp, o):
    """menOffNonCrashed: borne-off count on a scale for at most eight off."""
    m = CHECKERS
    for i in range(25):
        m -= board[i]
    if m > 5:
        inp[o] = 1.0
        inp[o + 1] = 1.0
        inp[o + 2] = (m - 6) / 3.0
    elif m > 2:
        inp[o] = 1.0
        inp[o + 1] = (m - 3) / 3.0
        inp[o + 2] = 0.0
    else:
        inp[o] = m / 3.0 if m else 0.0
        inp[o + 1] = 0.0
        inp[o + 2] = 0.0


@njit(cache=True)
def race_inputs(gb, inp, nz):
    """gnubg's CalculateRaceInputs: 107 per side (row 0 first). Returns the number of
    non-zero inputs, listed in increasing order in nz."""
    c = 0
    for s in range(2):
        o = s * RACE_HALF
        men_off = CHECKERS
        for i in range(23):
            nc = gb[s, i]
            men_off -= nc
            _point_inputs(nc, inp, o + 4 * i)
            c = _point_nonzero(nc, o + 4 * i, nz, c)
        for k in range(14):
            inp[o + RI_OFF + k] = 1.0 if men_off == k + 1 else 0.0
        if 1 <= men_off <= 14:
            nz[c] = o + RI_OFF + men_off - 1
            c += 1
        cross = 0
        for k in range(1, 4):
            for i in range(6 * k, 6 * k + 6):
                cross += gb[s, i] * k
        inp[o + RI_NCROSS] = cross / 10.0
        if cross:
            nz[c] = o + RI_NCROSS
            c += 1
    return c


@njit(cache=True)
def net_inputs(ifunc, gb, inp, scr):
    """Fill ``inp`` with input function ``ifunc`` (IF_*) of ``gb``; the indices of the
    non-zero inputs go to scr[8] in increasing order, their number is returned."""
    hit, rp, rc, nz = scr[1], scr[2], scr[3], scr[8]
    if ifunc == IF_RACE:
        return race_inputs(gb, inp, nz)
    c = base_inputs(gb, inp, nz)
    half_inputs(gb[1], gb[0], inp, BASE_INPUTS, hit, rp, rc)
    half_inputs(gb[0], gb[1], inp, BASE_INPUTS + MORE_INPUTS, hit, rp, rc)
    if ifunc == IF_CONTACT250:
        # gnubg's contact inputs write each side's borne-off count over the other's.
        _men_off_contact(gb[0], inp, BASE_INPUTS + I_OFF1)
        _men_off_contact(gb[1], inp, BASE_INPUTS + MORE_INPUTS + I_OFF1)
    for i in range(BASE_INPUTS, BASE_INPUTS + 2 * MORE_INPUTS):
        if inp[i] != 0.0:
            nz[c] = i
            c += 1
    return c


# ---- network --------------------------------------------------------------------------

@njit(cache=True)
def forward(net, k, inp, nz, n_nz, hidden, out):
    """Net ``k`` on ``inp`` whose non-zero entries are inp[nz[:n_nz]] (increasing): float32
    as gnubg's Evaluate (input-major sums over the non-zero inputs).

    Every sum keeps gnubg's order, so the outputs are gnubg's bit for bit; the hidden
    sums run across units (vectorised) and the five output sums run side by side (five
    independent chains instead of one: 0.85 -> 0.15 us a contact evaluation, measured).
    """
    w1, b1, w2, b2, beta, n_in, n_hid = net[0], net[1], net[2], net[3], net[4], net[5], net[6]
    nh = n_hid[k]
    for j in range(nh):
        hidden[j] = b1[k, j]
    for q in range(n_nz):
        i = nz[q]
        x = inp[i]
        row = w1[k, i]
        if x == 1.0:
            for j in range(nh):
                hidden[j] += row[j]
        else:
            for j in range(nh):
                hidden[j] += row[j] * x
    sigmoid_scaled(hidden, nh, -beta[k, 0])
    wo = w2[k]
    r0 = b2[k, 0]
    r1 = b2[k, 1]
    r2 = b2[k, 2]
    r3 = b2[k, 3]
    r4 = b2[k, 4]
    for j in range(nh):
        h = hidden[j]
        r0 += h * wo[0, j]
        r1 += h * wo[1, j]
        r2 += h * wo[2, j]
        r3 += h * wo[3, j]
        r4 += h * wo[4, j]
    bo = -beta[k, 1]
    out[0] = sigmoid(bo * r0)
    out[1] = sigmoid(bo * r1)
    out[2] = sigmoid(bo * r2)
    out[3] = sigmoid(bo * r3)
    out[4] = sigmoid(bo * r4)


@njit(cache=True)
def sigmoid_scaled(h, n, scale):
    """h[j] = sigmoid(scale * h[j]) for j < n: :func:`sigmoid` without branches, so the
    loop vectorises (same float32 operations, same results)."""
    ten = np.float32(10.0)
    one = np.float32(1.0)
    for j in range(n):
        x = scale * h[j]
        neg = np.signbit(x)
        ax = -x if neg else x
        big = ax >= ten
        x1 = ten * (np.float32(0.0) if big else ax)
        i = np.int64(x1)
        v = one / (one + SIG_E[i] * (np.float32(10 - i) + x1))
        v = (one - v) if neg else v
        h[j] = v if not big else (SIG_LO if neg else SIG_HI)


# ---- bear-off and race refinements ------------------------------------------------------

@njit(cache=True)
def eval_bearoff2(gb, bo, out):
    """Two-sided table: win probability only."""
    binom, ts = bo[0], bo[2]
    n_us = bearoff_index(gb[1], binom)
    n_them = bearoff_index(gb[0], binom)
    us = np.float32(ts[n_us, n_them])
    eq = us / np.float32(32767.5) - np.float32(1.0)
    for i in range(N_OUT):
        out[i] = 0.0
    out[OUT_WIN] = np.float64(eq / np.float32(2.0)) + 0.5


@njit(cache=True)
def _gammon_probs(gb, bp0, bp1, bo):
    """gnubg's setGammonProb: (lose gammon, win gammon) for all-home positions."""
    binom, os_, gam = bo[0], bo[1], bo[3]
    tot0 = 0
    tot1 = 0
    for i in range(6):
        tot0 += gb[0, i]
        tot1 += gb[1, i]
    g0 = 0.0
    g1 = 0.0
    if tot0 == CHECKERS:
        gp = gam[bearoff_index(gb[0], binom)]
        prob = os_[bp1]
        m0 = gp[0] / 36.0
        m1 = m0 + gp[1] / (36.0 * 36.0)
        m2 = m1 + gp[2] / (36.0 * 36.0 * 36.0)
        g1 = ((prob[1] / 65535.0) + (1 - m0) * (prob[2] / 65535.0)
              + (1 - m1) * (prob[3] / 65535.0) + (1 - m2) * (prob[4] / 65535.0))
    if tot1 == CHECKERS:
        gp = gam[bearoff_index(gb[1], binom)]
        prob = os_[bp0]
        m0 = gp[0] / 36.0
        m1 = m0 + gp[1] / (36.0 * 36.0)
        m2 = m1 + gp[2] / (36.0 * 36.0 * 36.0)
        g0 = ((prob[1] / 65535.0) * (1 - m0) + (prob[2] / 65535.0) * (1 - m1)
              + (prob[3] / 65535.0) * (1 - m2))
    return g0, g1


INT32_LIMIT = 1 << 31


@njit(cache=True)
def _one_sided_win(n, n_opp, os_):
    """P(the side on roll, index n, finishes no later than the other, index n_opp), as
    gnubg's EvalBearoff1Full computes it: the sum over i <= j of 16-bit products
    p_n[i] p_opp[j], each a C ``int``, into an unsigned 64-bit total.

    A product of 2^31 or more wraps negative and, the true total being below 2^32, drives
    the total below zero, i.e. huge: gnubg then returns a value far above 1 (its sanity
    check clips it to a certain win). Here: suffix sums for the exact total, suffix
    maxima to detect a wrap, which returns 2.0 (every use of the value only compares it
    with 0 and 1, then clips it)."""
    x = np.int64(0)
    suffix = np.int64(0)
    top = np.int64(0)
    wrap = False
    for i in range(31, -1, -1):
        b = os_[n_opp, i]
        suffix += b
        if b > top:
            top = b
        a = os_[n, i]
        x += a * suffix
        if a * top >= INT32_LIMIT:
            wrap = True
    if wrap:
        return 2.0
    return np.float64(x) / (65535.0 * 65535.0)


@njit(cache=True)
def eval_bearoff1(gb, bo, out):
    """One-sided distributions, gammons from the first-checker-off table."""
    binom, os_ = bo[0], bo[1]
    n_opp = bearoff_index(gb[0], binom)
    n = bearoff_index(gb[1], binom)
    if n > _bo.N_GAMMON_LIMIT or n_opp > _bo.N_GAMMON_LIMIT:
        lg, wg = _gammon_probs(gb, n_opp, n, bo)
        out[OUT_LG] = lg
        out[OUT_WG] = wg
    else:
        out[OUT_WG] = 0.0
        out[OUT_LG] = 0.0
    out[OUT_WBG] = 0.0
    out[OUT_LBG] = 0.0
    out[OUT_WIN] = _one_sided_win(n, n_opp, os_)


@njit(cache=True)
def race_bg_prob(gb, side, bo, dummy):
    """gnubg's raceBGprob: P(``side`` wins a backgammon) in a race (float32)."""
    binom, os_, rbg, rbg_ok = bo[0], bo[1], bo[4], bo[5]
    men_home = 0
    for i in range(6):
        men_home += gb[side, i]
    pips_op = 0
    for i in range(22, 17, -1):
        pips_op += gb[1 - side, i] * (i - 17)
    if pips_op == 0:
        return np.float32(0.0)
    lhs = _cdiv(men_home + 3, 4) - (1 if side == 1 else 0)
    if not lhs <= _cdiv(pips_op + 2, 3):
        return np.float32(0.0)
    for i in range(25):
        dummy[side, i] = gb[side, i]
        dummy[1 - side, i] = 0
    for i in range(6):
        dummy[1 - side, i] = gb[1 - side, 18 + i]
    tot = 0
    for i in range(5):
        tot += dummy[1 - side, i]
    if tot <= 6:
        zone = bearoff_index(dummy[1 - side], binom)
        k = bearoff_index(gb[side], binom)
        p = np.float32(0.0)
        scale = np.uint64(36) if side == 0 else np.uint64(1)
        for j in range(1 - side, _bo.RBG_ROLLS):
            s = np.uint64(0)
            scale *= np.uint64(36)
            for i in range(1, j + side + 1):
                s += np.uint64(os_[k, i])
            p += np.float32(rbg[zone, j]) / np.float32(scale) * np.float32(s)
        return np.float32(np.float64(p) / 65535.0)
    # More than six checkers to save: the escape as a one-sided bear-off race.
    n_opp = bearoff_index(dummy[0], binom)
    n = bearoff_index(dummy[1], binom)
    win = np.float32(_one_sided_win(n, n_opp, os_))
    return win if side == 1 else np.float32(np.float64(1.0) - win)


@njit(cache=True)
def _cdiv(a, b):
    """C integer division (truncates toward zero)."""
    q = abs(a) // b
    return q if a >= 0 else -q


@njit(cache=True)
def race_improvement(gb, out, bo, dummy):
    """gnubg's raceImprovement: exact race backgammons, certain gammons."""
    men0 = 0
    men1 = 0
    for i in range(22, -1, -1):
        men0 += gb[0, i]
        men1 += gb[1, i]
    g_possible = men0 == CHECKERS       # the side on roll can win a gammon
    og_possible = men1 == CHECKERS      # ... or lose one
    bg_possible = False
    obg_possible = False
    if og_possible:
        for i in range(23, 17, -1):
            if gb[1, i] > 0:
                obg_possible = True
                break
    if g_possible:
        for i in range(23, 17, -1):
            if gb[0, i] > 0:
                bg_possible = True
                break
    if bg_possible or obg_possible:
        side = 1 if bg_possible else 0
        pr = race_bg_prob(gb, side, bo, dummy)
        if pr > 0.0:
            if side == 1:
                out[OUT_WBG] = pr
                if np.float32(out[OUT_WG]) < np.float32(out[OUT_WBG]):
                    out[OUT_WG] = out[OUT_WBG]
            else:
                out[OUT_LBG] = pr
                if np.float32(out[OUT_LG]) < np.float32(out[OUT_LBG]):
                    out[OUT_LG] = out[OUT_LBG]
        else:
            if side == 1:
                out[OUT_WBG] = 0.0
            else:
                out[OUT_LBG] = 0.0
    if g_possible or og_possible:
        side = 1 if g_possible else 0
        tot_pip = 0
        for i in range(23):
            tot_pip += (i + 1) * gb[side, i]
        n_cross = 0
        for k in range(3, 0, -1):
            p = 6 * k + 5
            for i in range(6):
                n_cross += k * gb[1 - side, p - i]
        saver_at_most = 1 + n_cross // 4
        men = men1 if side else men0
        op_at_least = max((men + 1) // 2, (tot_pip + 2) // 3)
        if op_at_least < saver_at_most + side:
            out[OUT_WG if side else OUT_LG] = 1.0
            out[OUT_WIN] = 1.0 if side else 0.0


@njit(cache=True)
def _loser_kind(gb, loser):
    """(gammon, backgammon) as 0/1 for ``loser`` (gnubg row) of a finished game."""
    c = 0
    for i in range(25):
        c += gb[loser, i]
    if c <= 14:
        return 0.0, 0.0        # he bore off a checker: a single game
    for i in range(18, 25):
        if gb[loser, i]:
            return 1.0, 1.0    # still in the winner's home board or on the bar
    return 1.0, 0.0


@njit(cache=True)
def _has_checkers(gb, side):
    for i in range(25):
        if gb[side, i]:
            return True
    return False


@njit(cache=True)
def eval_over(gb, out):
    """gnubg's EvalOver: the game is finished (row 0 is the side not on roll)."""
    if not _has_checkers(gb, 0):          # the side not on roll bore off all: roller lost
        g, bg = _loser_kind(gb, 1)
        out[OUT_WIN] = 0.0
        out[OUT_WG] = 0.0
        out[OUT_WBG] = 0.0
        out[OUT_LG] = g
        out[OUT_LBG] = bg
    elif not _has_checkers(gb, 1):        # the roller bore off all
        g, bg = _loser_kind(gb, 0)
        out[OUT_WIN] = 1.0
        out[OUT_WG] = g
        out[OUT_WBG] = bg
        out[OUT_LG] = 0.0
        out[OUT_LBG] = 0.0


@njit(cache=True)
def sanity_check(gb, out):
    """gnubg's SanityCheck, in float32 as gnubg."""
    ac0 = 0
    ac1 = 0
    back0 = 0
    back1 = 0
    for i in range(25):
        if gb[0, i]:
            back0 = i
            ac0 += gb[0, i]
        if gb[1, i]:
            back1 = i
            ac1 += gb[1, i]
    contact = back0 + back1 >= 24
    if ac0 < CHECKERS:
        out[OUT_WG] = 0.0
        out[OUT_WBG] = 0.0
    elif not contact and back0 < 18:
        out[OUT_WBG] = 0.0
    if ac1 < CHECKERS:
        out[OUT_LG] = 0.0
        out[OUT_LBG] = 0.0
    elif not contact and back1 < 18:
        out[OUT_LBG] = 0.0
    if out[OUT_WIN] < 0.0:
        out[OUT_WIN] = 0.0
    elif out[OUT_WIN] > 1.0:
        out[OUT_WIN] = 1.0
    if out[OUT_WG] > out[OUT_WIN]:
        out[OUT_WG] = out[OUT_WIN]
    lose = np.float32(1.0 - out[OUT_WIN])
    if out[OUT_LG] > lose:
        out[OUT_LG] = lose
    if out[OUT_WBG] > out[OUT_WG]:
        out[OUT_WBG] = out[OUT_WG]
    if out[OUT_LBG] > out[OUT_LG]:
        out[OUT_LBG] = out[OUT_LG]
    noise = np.float32(1 / 10000.0)
    for i in range(1, 5):
        if out[i] < noise:
            out[i] = 0.0


@njit(cache=True)
def new_scratch():
    """Per-thread scratch: (inputs f32[250], hit[39], roll pips[21], roll checkers[21],
    hidden f32[256], outputs f32[5], gnubg board [2, 25], dummy board [2, 25],
    non-zero input indices [250])."""
    return (np.zeros(MAX_INPUTS, np.float32), np.zeros(39, np.int64), np.zeros(21, np.int64),
            np.zeros(21, np.int64), np.zeros(256, np.float32), np.zeros(N_OUT, np.float32),
            np.zeros((2, 25), np.int64), np.zeros((2, 25), np.int64),
            np.zeros(MAX_INPUTS, np.int64))


@njit(cache=True)
def evaluate_gb(gb, net, bo, scr):
    """0-ply probabilities of gnubg board ``gb`` into scr[5] (float32); returns the class."""
    inp, hidden, out, dummy = scr[0], scr[4], scr[5], scr[7]
    pc = classify(gb, bo[0])
    ifuncs = net[7]
    if pc == C_OVER:
        for i in range(N_OUT):
            out[i] = 0.0
        eval_over(gb, out)
    elif pc == C_BEAROFF2:
        eval_bearoff2(gb, bo, out)
    elif pc == C_BEAROFF1:
        eval_bearoff1(gb, bo, out)
    elif pc == C_RACE:
        n_nz = net_inputs(ifuncs[NET_RACE], gb, inp, scr)
        forward(net, NET_RACE, inp, scr[8], n_nz, hidden, out)
        race_improvement(gb, out, bo, dummy)
    else:
        k = NET_CONTACT
        if pc == C_CRASHED and net[5][NET_CRASHED] > 0:
            k = NET_CRASHED
        n_nz = net_inputs(ifuncs[k], gb, inp, scr)
        forward(net, k, inp, scr[8], n_nz, hidden, out)
    sanity_check(gb, out)
    return pc


@njit(cache=True)
def evaluate_board(b, net, bo, scr, probs):
    """Probabilities (float64[5]) of interchange board ``b`` for the player on roll."""
    gb = scr[6]
    to_gnubg(b, gb)
    pc = evaluate_gb(gb, net, bo, scr)
    out = scr[5]
    for i in range(N_OUT):
        probs[i] = out[i]
    return pc


@njit(parallel=True, cache=True)
def probabilities_batch(boards, net, bo, n_tasks, probs, classes):
    """probs (n, 5) float64 and classes (n,) int8 of interchange boards (n, 26)."""
    n = boards.shape[0]
    for t in prange(n_tasks):
        scr = new_scratch()
        for g in range(t * n // n_tasks, (t + 1) * n // n_tasks):
            classes[g] = evaluate_board(boards[g], net, bo, scr, probs[g])


@njit(cache=True)
def mover_score(cand, net, bo, scr):
    """gnubg's 0-ply score of a result ``cand`` (seen from the mover): the mover's cubeless
    money equity after the opponent's probabilities are inverted, in float32 as gnubg's
    ``InvertEvaluation`` + ``Utility``."""
    gb = scr[6]
    to_gnubg_swapped(cand, gb)
    evaluate_gb(gb, net, bo, scr)
    out = scr[5]
    one = np.float32(1.0)
    win = one - out[OUT_WIN]
    wg = out[OUT_LG]
    wbg = out[OUT_LBG]
    lg = out[OUT_WG]
    lbg = out[OUT_WBG]
    return np.float32(np.float64(win) * 2.0 - 1.0 + wg + wbg - lg - lbg)


@njit(cache=True)
def scores(cands, k, net, bo, scr, out):
    """out[i] = :func:`mover_score` of cands[i] for i < k."""
    for i in range(k):
        out[i] = mover_score(cands[i], net, bo, scr)


@njit(parallel=True, cache=True)
def scores_batch(cands, net, bo, n_tasks, out):
    """out[i] = :func:`mover_score` of cands[i] (m, 26), in parallel tasks."""
    m = cands.shape[0]
    for t in prange(n_tasks):
        scr = new_scratch()
        for i in range(t * m // n_tasks, (t + 1) * m // n_tasks):
            out[i] = mover_score(cands[i], net, bo, scr)
