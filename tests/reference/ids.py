"""Tiny reference codec for gnubg Position IDs (independent of fastbg).

A Position ID is the base64 of an 80-bit string, packed least significant bit first: for the
player NOT on roll, then the player on roll, for each of that side's points 1..24 (own numbering)
then its bar, as many one-bits as checkers followed by a zero-bit.
"""
import base64


def _sides_to_board(opp, me):
    """gnubg's two 25-entry sides (own numbering, index 24 = bar) -> interchange board (tuple)."""
    b = [0] * 26
    for p in range(1, 25):
        b[p] = me[p - 1] - opp[24 - p]
    b[25] = me[24]
    b[0] = -opp[24]
    return tuple(b)


def board_from_position_id_ref(pid):
    """Decode a 14-character gnubg Position ID to a 26-int interchange board (tuple)."""
    if len(pid) != 14:
        raise ValueError(f"a Position ID has 14 characters, got {pid!r}")
    raw = base64.b64decode(pid + "==", validate=True)
    bits = [(raw[k // 8] >> (k % 8)) & 1 for k in range(80)]
    sides = [[0] * 25, [0] * 25]
    side, j = 0, 0
    for bit in bits:
        if side == 2:
            break
        if bit:
            sides[side][j] += 1
        else:
            j += 1
            if j == 25:
                side, j = side + 1, 0
    return _sides_to_board(sides[0], sides[1])


def position_id_ref(board):
    """Encode a 26-int interchange board as a gnubg Position ID (the inverse of the decoder)."""
    b = [int(x) for x in board]
    me = [max(b[p], 0) for p in range(1, 25)] + [b[25]]
    opp = [max(-b[25 - q], 0) for q in range(1, 25)] + [-b[0]]
    bits = []
    for side in (opp, me):
        for n in side:
            bits += [1] * n + [0]
    bits += [0] * (80 - len(bits))
    raw = bytes(sum(bits[8 * i + k] << k for k in range(8)) for i in range(10))
    return base64.b64encode(raw).decode("ascii")[:14]
