"""GNU Backgammon's 20-letter position keys, as its benchmark (.bm) and training-data files
write positions.

The key is the bit string of the Position ID (:mod:`fastbg.position.ids`) written another
way (GNU Backgammon's ``oldPositionKey``): over gnubg's two-sided board ``[[25 counts of the
player not on roll], [25 counts of the player on roll]]`` (each side in its own numbering,
index 24 its bar; :func:`fastbg.evaluators.gnubg_nn.to_gnubg` makes it), every slot in turn
gives one 1-bit per checker and then a 0-bit. The 80 bits are packed least significant first
into 10 bytes (bit ``i`` to byte ``i // 8``, bit ``i % 8``) and each byte is written as two
letters ``A``..``P``, high nibble first. So 50 separators and at most 30 checkers fill the 80
bits; whatever bits are left over are zero.

A move's result in a .bm file is the position after the move with the opponent on roll;
:func:`result_key` and :func:`result_board_from_key` turn it to and from the mover's view
(the view of :func:`fastbg.legal_moves`).
"""
import numpy as np

from fastbg.evaluators.gnubg_nn import from_gnubg, to_gnubg
from fastbg.position.board import flip

KEY_LENGTH = 20
_KEY_BITS = 4 * KEY_LENGTH
_SLOTS = 25                               # 24 points and the bar, per side
_SEPARATORS = 2 * _SLOTS
_FIRST_LETTER = ord("A")                  # a nibble n is the letter chr(A + n)
_LETTERS = frozenset("ABCDEFGHIJKLMNOP")


def gnubg_key(board):
    """The 20-letter GNU Backgammon position key of one interchange board (player on roll).

    >>> import fastbg
    >>> gnubg_key(fastbg.START)
    'OAHDPAABDAOAHDPAABDA'
    """
    bits = np.zeros(_KEY_BITS, np.uint8)
    k = 0
    for row in to_gnubg(board):           # to_gnubg validates the board
        for count in row:
            bits[k:k + count] = 1         # `count` one-bits, then the zero separator
            k += count + 1
    data = np.packbits(bits, bitorder="little")
    return "".join(chr(_FIRST_LETTER + (b >> 4)) + chr(_FIRST_LETTER + (b & 15))
                   for b in data.tolist())


def board_from_gnubg_key(key):
    """The interchange board (``int8[26]``, player on roll) of a GNU Backgammon position key;
    the exact inverse of :func:`gnubg_key`.

    Raises ``ValueError`` for text that is not the key of a position: a length other than
    20, letters outside ``A``..``P``, checkers running past the 80 bits, bits set after the
    last slot, a side with more than 15 checkers or a point held by both sides.
    """
    if not isinstance(key, str):
        raise TypeError(f"a gnubg position key is a str, got {type(key).__name__}")
    if len(key) != KEY_LENGTH:
        raise ValueError(f"a gnubg position key has {KEY_LENGTH} letters, got {len(key)}: "
                         f"{key!r}")
    bad = sorted(set(key) - _LETTERS)
    if bad:
        raise ValueError(f"gnubg position key {key!r} has letters outside A-P: {''.join(bad)!r}")
    nibbles = np.frombuffer(key.encode("ascii"), np.uint8) - _FIRST_LETTER
    data = (nibbles[0::2] << 4) | nibbles[1::2]
    bits = np.unpackbits(data, bitorder="little")
    separators = np.flatnonzero(bits == 0)
    if separators.size < _SEPARATORS:
        raise ValueError(f"gnubg position key {key!r} runs past its {_KEY_BITS} bits: only "
                         f"{separators.size} of its {_SEPARATORS} points and bars end in it")
    last = separators[_SEPARATORS - 1]
    if bits[last + 1:].any():
        raise ValueError(f"gnubg position key {key!r} has bits set after its last point")
    # The checkers of a slot are the one-bits between its separator and the one before.
    counts = np.diff(separators[:_SEPARATORS], prepend=-1) - 1
    try:
        return from_gnubg(counts.reshape(2, _SLOTS))
    except ValueError as exc:             # too many checkers, or a point held by both
        raise ValueError(f"gnubg position key {key!r}: {exc}") from None


def result_key(board_after_move):
    """The key a .bm file gives a move's result: ``board_after_move`` is seen by the player
    who moved (as :func:`fastbg.legal_moves` returns it), the key has the opponent on roll."""
    return gnubg_key(flip(board_after_move))


def result_board_from_key(key):
    """The inverse of :func:`result_key`: a .bm result key (opponent on roll) as the board
    seen by the player who moved, ``int8[26]``."""
    return flip(board_from_gnubg_key(key))
