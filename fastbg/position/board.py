"""Checking, flipping, counting and drawing interchange boards (docs/rules.md section 1).

Everything here is plain numpy except the validity scan (a numba kernel in
:mod:`fastbg.position.board_kernels`, fast on big batches); the error message is then built in numpy
for the bad row. Every function takes one board of shape ``(26,)`` or a batch of shape
``(n, 26)`` and validates it first.
"""
import numpy as np

from fastbg.position.board_kernels import first_invalid_row
from fastbg.constants import BAR, BOARD_DTYPE, BOARD_SIZE, CHECKERS, FIRST_POINT, LAST_POINT, OPP_BAR

_INT8 = np.iinfo(BOARD_DTYPE)
_POINTS = slice(FIRST_POINT, LAST_POINT + 1)
# Pip distance of a checker on each entry: the mover's checker on i is i pips from home,
# the opponent's is 25 - i (both bars included: 25 pips).
_MOVER_PIPS = np.arange(BOARD_SIZE, dtype=np.int64)
_OPP_PIPS = BAR - _MOVER_PIPS


def _checks(b):
    """(bad-row mask, message maker) pairs for an int16 batch ``b``, in the order reported."""
    mover = np.clip(b[:, _POINTS], 0, None).sum(axis=1) + b[:, BAR]
    opp = np.clip(-b[:, _POINTS], 0, None).sum(axis=1) - b[:, OPP_BAR]
    big = np.abs(b) > CHECKERS
    return [
        (b[:, BAR] < 0, lambda r: f"mover's bar b[{BAR}] must be >= 0, got {b[r, BAR]}"),
        (b[:, OPP_BAR] > 0,
         lambda r: f"opponent's bar b[{OPP_BAR}] must be <= 0, got {b[r, OPP_BAR]}"),
        (big.any(axis=1), lambda r: (
            f"b[{int(np.argmax(big[r]))}] = {b[r, np.argmax(big[r])]} is more than "
            f"{CHECKERS} checkers")),
        (mover > CHECKERS, lambda r: f"mover has {mover[r]} checkers (at most {CHECKERS})"),
        (opp > CHECKERS, lambda r: f"opponent has {opp[r]} checkers (at most {CHECKERS})"),
    ]


def validate(board):
    """Return ``board`` as a C-contiguous ``int8`` array of shape ``(26,)`` or ``(n, 26)``.

    Raises ``ValueError`` naming the problem (and, for a batch, the first bad row): wrong shape,
    a non-integer dtype, values outside int8, a bar with the wrong sign, an entry above 15
    checkers, or a side with more than 15 checkers on board and bar.
    """
    a = np.asarray(board)
    if a.ndim not in (1, 2) or a.shape[-1] != BOARD_SIZE:
        raise ValueError(
            f"a board has shape ({BOARD_SIZE},) and a batch (n, {BOARD_SIZE}); got {a.shape}")
    if a.dtype.kind not in "iu":
        raise ValueError(f"a board holds integers, got dtype {a.dtype}")
    if a.dtype != BOARD_DTYPE and a.size and (a.min() < _INT8.min or a.max() > _INT8.max):
        raise ValueError(
            f"board values must fit in int8 ({_INT8.min}..{_INT8.max}), got {a.min()}..{a.max()}")
    out = np.ascontiguousarray(a, dtype=BOARD_DTYPE)
    if not out.flags.writeable:
        # numba types a read-only array apart from a writable one: passing START (read-only)
        # would compile every kernel it reaches a second time
        out = out.copy()
    if first_invalid_row(out.reshape(-1, BOARD_SIZE)) < 0:
        return out
    rows = a.reshape(-1, BOARD_SIZE).astype(np.int16)  # int16: abs() and sums cannot overflow
    checks = _checks(rows)
    bad = np.logical_or.reduce([mask for mask, _ in checks])
    r = int(np.argmax(bad))
    describe = next(describe for mask, describe in checks if mask[r])
    raise ValueError((f"row {r}: " if a.ndim == 2 else "") + describe(r))


def validate_batch(boards):
    """Like :func:`validate`, but always return shape ``(n, 26)`` (one board becomes ``(1, 26)``)."""
    return validate(boards).reshape(-1, BOARD_SIZE)


def flip(board):
    """The same position seen by the other player: ``new[i] = -old[25 - i]`` (a new array)."""
    b = validate(board)
    return np.ascontiguousarray(-b[..., ::-1])


def pip_counts(board):
    """Pips each side still has to travel, ``(mover, opponent)``: ints, or arrays for a batch.

    >>> import fastbg
    >>> pip_counts(fastbg.START)
    (167, 167)
    """
    b = validate(board).astype(np.int64)
    mover = np.clip(b, 0, None) @ _MOVER_PIPS
    opp = np.clip(-b, 0, None) @ _OPP_PIPS
    if b.ndim == 1:
        return int(mover), int(opp)
    return mover, opp


def borne_off(board):
    """Checkers each side has borne off, ``(mover, opponent)``: ints, or arrays for a batch."""
    b = validate(board).astype(np.int64)
    mover = CHECKERS - np.clip(b, 0, None).sum(axis=-1)
    opp = CHECKERS - np.clip(-b, 0, None).sum(axis=-1)
    if b.ndim == 1:
        return int(mover), int(opp)
    return mover, opp


_ROWS = 5  # checker rows drawn per half; taller stacks show their count in the last row


def _cell(count, row):
    """Three-character cell for ``row`` (0 = next to the edge) of a point with ``count``.

    ``count`` > 0 is the mover (X), < 0 the opponent (O).
    """
    n = abs(count)
    if n <= row:
        return "   "
    if row == _ROWS - 1 and n > _ROWS:
        return f"{n:>2} "
    return " X " if count > 0 else " O "


def _half(counts, bar, top):
    """The five text rows of one half: 12 point counts left to right plus a bar count."""
    rows = []
    for row in range(_ROWS):
        left = "".join(_cell(c, row) for c in counts[:6])
        right = "".join(_cell(c, row) for c in counts[6:])
        rows.append(f" |{left}|{_cell(bar, row)}|{right}|")
    return rows if top else rows[::-1]


def render(board):
    """A text picture of one board, gnubg style, from the mover's view.

    The mover is X and moves from the top row (points 13..24, left to right) round to the
    bottom row (points 12..1) and bears off on the right; the opponent is O. Stacks taller
    than five show their count in the fifth row. The mover's bar checkers are drawn in the
    top half of the BAR column (next to where they enter), the opponent's in the bottom half.
    """
    b = validate(board)
    if b.ndim != 1:
        raise ValueError(f"render draws one board, got a batch of shape {b.shape}")
    b = b.astype(int)
    pips_x, pips_o = pip_counts(b)
    off_x, off_o = borne_off(b)
    top_points = range(13, 25)
    bottom_points = range(12, 0, -1)

    def labels(points):
        text = "".join(f"{p:->2}-" for p in points)  # "13-", "-9-"
        return text[:18] + "-----" + text[18:]        # the dashes above and below |BAR|

    top = [b[p] for p in top_points]
    bottom = [b[p] for p in bottom_points]
    lines = [
        f" O  bar {-b[OPP_BAR]}  off {off_o}  pips {pips_o}",
        f" +{labels(top_points)}+",
        *_half(top, b[BAR], top=True),
        f" |{' ' * 18}|BAR|{' ' * 18}|",
        *_half(bottom, b[OPP_BAR], top=False),
        f" +{labels(bottom_points)}+",
        f" X  bar {b[BAR]}  off {off_x}  pips {pips_x}  (on roll)",
    ]
    return "\n".join(lines)
