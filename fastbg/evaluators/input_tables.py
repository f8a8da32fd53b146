"""GNU Backgammon's network inputs: their layout and the lookup tables the input kernels read.

The inputs are in gnubg's order (its inputs.c): 200 base inputs (a side's 24 points and its
bar, 4 inputs each), then for the contact and crashed nets 25 hand-made features a side
(``I_*``, 250 in all); the race net has 107 inputs a side instead. The tables (escapes,
hitting ways, entering losses, backbone weights, the encodings by checker count, the
features' divisors as reciprocals) are built here once, with numpy, at import; the kernels
that read them are :mod:`fastbg.evaluators.input_kernels` and the modules it builds on.
"""
import numpy as np

from fastbg.constants import CHECKERS


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


def _enter_loss_table():
    """gnubg's I_ENTER loss (before scaling) by the opponent's made home points (6 bits)
    and whether two or more of ours are on the bar: the loop of CalculateHalfInputs."""
    t = np.zeros((2, 64), np.int64)
    for two in range(2):
        for m in range(64):
            loss = 0
            for i in range(6):
                if m >> i & 1:
                    loss += 4 * (i + 1)
                    for j in range(i + 1, 6):
                        if m >> j & 1:
                            loss += 2 * (i + j + 2)
                        elif two:
                            loss += 2 * (i + 1)
                elif two:
                    for j in range(i + 1, 6):
                        if m >> j & 1:
                            loss += 2 * (j + 1)
            t[two, m] = loss
    return t


def _backbone_table():
    """Sum of gnubg's backbone weights over the made points 1..11 pips below the front one:
    bit t of the index is the point 11 - t pips below (11 within 6 pips, 13 - d up to 11)."""
    t = np.zeros(1 << 11, np.int64)
    for x in range(1 << 11):
        for b in range(11):
            if x >> b & 1:
                d = 11 - b
                t[x] += 11 if d <= 6 else 13 - d
    return t


def _encoding_tables():
    """A point's 4 inputs and the bar's 4 inputs by checker count (0..15), float32; the
    race's 14 borne-off inputs by the number off (0..15)."""
    pt = np.zeros((16, 4), np.float32)
    bt = np.zeros((16, 4), np.float32)
    off = np.zeros((16, 14), np.float32)
    for m in range(16):
        for k in range(14):
            off[m, k] = 1.0 if m == k + 1 else 0.0
    for nc in range(16):
        pt[nc] = (1.0 if nc == 1 else 0.0, 1.0 if nc == 2 else 0.0, 1.0 if nc >= 3 else 0.0,
                  (nc - 3) / 2.0 if nc > 3 else 0.0)
        bt[nc] = (1.0 if nc >= 1 else 0.0, 1.0 if nc >= 2 else 0.0, 1.0 if nc >= 3 else 0.0,
                  (nc - 3) / 2.0 if nc > 3 else 0.0)
    return pt, bt, off


# The features' divisors, each as the reciprocal it is multiplied by: a multiply instead of a
# division (about 30 a contact position, each a long-latency instruction). The float32
# inputs stay gnubg's bit for bit: an integer over one of these divisors is never so near a
# float32 rounding midpoint that the product's last-bit error in float64 could move it
# (tests/test_gnubginputs.py checks every numerator from -20,000 to 200,000).
D_PIPLOSS = 12.0 * 36.0
D_BREAK = 15 + 152.0
D_ENTER = 36.0 * (49.0 / 6.0)
INV_PIPLOSS = 1.0 / D_PIPLOSS
INV_BREAK = 1.0 / D_BREAK
INV_ENTER = 1.0 / D_ENTER
INV_36 = 1.0 / 36.0
INV_100 = 1.0 / 100.0
INV_400 = 1.0 / 400.0
INV_24 = 1.0 / 24.0
INV_6 = 1.0 / 6.0
INV_3600 = 1.0 / 3600.0
# (divisor, the reciprocal used for it), for the test
FEATURE_RECIPROCALS = ((D_PIPLOSS, INV_PIPLOSS), (D_BREAK, INV_BREAK), (D_ENTER, INV_ENTER),
                       (36.0, INV_36), (100.0, INV_100), (400.0, INV_400), (24.0, INV_24),
                       (6.0, INV_6), (3600.0, INV_3600))

# x // d for 0 <= x < DIV_SMALL_LIMIT and 1 <= d <= CHECKERS as (x * DIV_SMALL[d]) >> 32:
# a multiply for an integer division (a long-latency instruction; four a contact position);
# exact in that range (tests/test_gnubginputs.py checks all of it).
DIV_SMALL = np.array([0] + [-(-(1 << 32) // d) for d in range(1, CHECKERS + 1)], np.int64)
DIV_SMALL_LIMIT = 1 << 16

ESC8 = ESC.astype(np.int8)          # the same tables in 4 KiB each instead of 32
ESC18 = ESC1.astype(np.int8)
ENTER_LOSS = _enter_loss_table()
BACKBONE_W = _backbone_table().astype(np.int16)   # 4 KiB, not 16: L1 is shared with the weights
POINT_ENC, BAR_ENC, RACE_OFF_ENC = _encoding_tables()
# A point's non-zero inputs by its checkers (0..15): the first one's offset (1, 2, 3+; any
# value for none) and how many (the (n - 3) / 2 input above 3 the second).
NZ_FIRST = np.array([max(min(n, 3) - 1, 0) for n in range(16)], np.int64)
NZ_COUNT = np.array([(n > 0) + (n > 3) for n in range(16)], np.uint64)
# Escape pattern width mask by distance n (gnubg's Escapes looks at min(12, n) points).
ESC_WIDTH = np.array([(1 << min(12, n)) - 1 for n in range(25)], np.int64)
# Hitting ways as table rows for the bar case: pips, shift of each intermediate's "open"
# mask (-1: none), whether all intermediates must be open (else one of two suffices).
WAY_PIPS = HIT_WAY[:, W_PIPS].copy()
WAY_ALL = np.array([1 if (HIT_WAY[c, W_ALL] or HIT_WAY[c, W_FACES] == 1) else 0
                    for c in range(39)], np.int64)
WAY_SHIFT = np.array([[HIT_WAY[c, W_PIPS] - HIT_WAY[c, W_INTER + k]
                       if HIT_WAY[c, W_FACES] > 1 and HIT_WAY[c, W_INTER + k] > 0 else -1
                       for k in range(3)] for c in range(39)], np.int64)
LOW24 = 0xFFFFFF
