"""GNU Backgammon Position IDs: 14-character text keys for positions.

The key (gnubg manual, "A technical description of the Position ID"; positionid.c) is a bit
string over gnubg's two-sided board ``anBoard[2][25]``, where each side counts its own points
(index 0 = its ace point .. 23 = its 24-point, 24 = its bar). Side 0 is the player NOT on
roll and comes first; side 1, the player on roll, second. For every slot the key holds one
1-bit per checker and then a 0-bit: 50 zeros and at most 30 ones, padded with zeros to 80
bits. Bit k goes to byte k // 8, bit k % 8 (least significant first), and the 10 bytes are
written in standard base64 without the trailing ``==``.
"""
import base64

import numpy as np

from .board import validate
from .constants import BAR, BOARD_DTYPE, BOARD_SIZE, CHECKERS, LAST_POINT, OPP_BAR

ID_LENGTH = 14
_KEY_BYTES = 10
_KEY_BITS = 8 * _KEY_BYTES
_SLOTS = LAST_POINT + 1                       # 24 points and the bar, per side
_SEPARATORS = 2 * _SLOTS
_ALPHABET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
# The 14th character carries only the last 2 key bits, followed by 4 zero bits.
_LAST_CHARS = "AQgw"


def _two_sided(b):
    """Interchange board -> gnubg ``anBoard``: (not on roll, on roll), each in its own numbering."""
    opp = [max(-int(b[LAST_POINT - j]), 0) for j in range(LAST_POINT)] + [-int(b[OPP_BAR])]
    mover = [max(int(b[j + 1]), 0) for j in range(LAST_POINT)] + [int(b[BAR])]
    return opp, mover


def position_id(board):
    """The 14-character gnubg Position ID of one interchange board.

    >>> import fastbg
    >>> position_id(fastbg.START)
    '4HPwATDgc/ABMA'
    """
    b = validate(board)
    if b.ndim != 1:
        raise ValueError(f"position_id takes one board, got a batch of shape {b.shape}")
    key, k = 0, 0
    for side in _two_sided(b):
        for count in side:
            key |= ((1 << count) - 1) << k    # `count` one-bits, then the zero separator
            k += count + 1
    data = key.to_bytes(_KEY_BYTES, "little")
    return base64.b64encode(data).decode("ascii")[:ID_LENGTH]


def _decode_key(pid):
    """Check the text of a Position ID and return its key as an 80-bit integer."""
    if not isinstance(pid, str):
        raise TypeError(f"a Position ID is a str, got {type(pid).__name__}")
    if len(pid) != ID_LENGTH:
        raise ValueError(f"a Position ID has {ID_LENGTH} characters, got {len(pid)}: {pid!r}")
    bad = sorted(set(pid) - _ALPHABET)
    if bad:
        raise ValueError(f"Position ID {pid!r} has characters outside base64: {''.join(bad)!r}")
    if pid[-1] not in _LAST_CHARS:
        raise ValueError(
            f"Position ID {pid!r} is longer than 80 bits: its last character must be one of "
            f"{_LAST_CHARS!r}")
    return int.from_bytes(base64.b64decode(pid + "=="), "little")


def board_from_position_id(pid):
    """The interchange board (``int8[26]``) of a gnubg Position ID; exact inverse of
    :func:`position_id`.

    Raises ``ValueError`` for text that is not a Position ID of a legal position: wrong length,
    characters outside base64, a key that does not end after its 50 separators, a side with more
    than 15 checkers, or a point held by both sides.
    """
    key = _decode_key(pid)
    sides = [[0] * _SLOTS, [0] * _SLOTS]
    slot = 0
    for k in range(_KEY_BITS):
        if slot == _SEPARATORS:
            if key >> k:
                raise ValueError(f"Position ID {pid!r} has bits after its last point")
            break
        if key >> k & 1:
            sides[slot // _SLOTS][slot % _SLOTS] += 1
        else:
            slot += 1
    else:
        if slot < _SEPARATORS:
            raise ValueError(
                f"Position ID {pid!r} ends after {slot} of its {_SEPARATORS} points and bars")
    opp, mover = sides
    for name, side in (("player not on roll", opp), ("player on roll", mover)):
        if sum(side) > CHECKERS:
            raise ValueError(
                f"Position ID {pid!r}: {name} has {sum(side)} checkers (at most {CHECKERS})")
    board = np.zeros(BOARD_SIZE, dtype=BOARD_DTYPE)
    for j in range(LAST_POINT):
        point = j + 1
        if mover[j] and opp[LAST_POINT - point]:
            raise ValueError(f"Position ID {pid!r}: point {point} is held by both sides")
        board[point] = mover[j] - opp[LAST_POINT - point]
    board[BAR] = mover[LAST_POINT]
    board[OPP_BAR] = -opp[LAST_POINT]
    return board
