"""Slow reference for :mod:`fastbg.evaluators.input_kernels`: GNU Backgammon's network inputs.

A verbatim copy of the straightforward input code as it stood before the optimised kernels
(commit 5de5c14), kept as the obviously correct version the fast one is compared with bit
for bit (tests/test_gnubginputs.py). It checks every point and blot with plain branches
and loops, following gnubg's inputs.c. Do not optimise it.

Everything works on gnubg's board ``gb`` int64[2, 25] (row 1 the side on roll, row 0 the
other, each in its own numbering, index 24 the bar). Inputs are float32 in gnubg's order;
functions that fill them also list the non-zero ones (indices in increasing order).
"""
import numpy as np
from numba import njit

CHECKERS = 15

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
