"""Tests of fastbg.position.ids: gnubg Position IDs (docs/formats.md section 1)."""
import base64
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given

from fastbg import START
from fastbg.position.board import validate
from fastbg.position.ids import board_from_position_id, position_id
from strategies import bearoff_positions, positions

DATA = Path(__file__).parent / "data"


def from_sides(on_roll, not_on_roll):
    """A board from two {own point: count} maps, each side in its own numbering (25 = bar).

    The opponent's own point q is the mover's point 25 - q; his bar is b[0].
    """
    b = np.zeros(26, dtype=np.int8)
    for p, n in on_roll.items():
        b[p] = n
    for q, n in not_on_roll.items():
        b[25 - q] = -n                  # own 25 (bar) lands on b[0]
    return b


def id_from_bits(bits):
    """Encode a key bit string by the manual's recipe, independently of fastbg.position.ids."""
    key = int(bits[::-1], 2) if bits else 0     # bit k of the string = bit k of the key
    return base64.b64encode(key.to_bytes(10, "little")).decode()[:14]


STANDARD = {6: 5, 8: 3, 13: 5, 24: 2}

# (Position ID, board) pairs described in formats.md section 1.
DESCRIBED = [
    ("4HPwATDgc/ABMA", from_sides(STANDARD, STANDARD)),
    ("sGfwGQDg28EBBg", from_sides({6: 5, 7: 2, 8: 3, 13: 3, 21: 2},
                                  {5: 2, 6: 4, 8: 2, 13: 5, 15: 2})),
    ("0HPhATDg2+ABMA", from_sides({6: 5, 7: 2, 8: 2, 13: 4, 24: 2},
                                  {5: 1, 6: 4, 8: 3, 9: 1, 13: 4, 24: 2})),
    ("4HPwATDgc/ABUA", from_sides({6: 5, 8: 3, 13: 5, 24: 1, 25: 1}, STANDARD)),
    ("4HPwATDgc/ABYA", from_sides({6: 5, 8: 3, 13: 5, 25: 2}, STANDARD)),
    ("AACAkCRJqqoAAA", from_sides({p: 1 for p in [3, 5, 7, 9, 11, 13, 15, 17, *range(18, 25)]},
                                  {24: 1})),
]
ROUND_TRIP_ONLY = ["jGfkASjg8wcBMA", "zGbiIQgxH/AAWA", "zGbiIYCYD3gALA"]


@pytest.mark.parametrize("pid, board", DESCRIBED)
def test_described_ids(pid, board):
    np.testing.assert_array_equal(board_from_position_id(pid), board)
    assert position_id(board) == pid


def test_start_id_and_manual_bit_string():
    bits = ("00000111110011100000111110000000000011000000011111001110000011111000000000001100")
    assert id_from_bits(bits) == "4HPwATDgc/ABMA"
    assert position_id(START) == "4HPwATDgc/ABMA"


def test_side_details_of_wildbg_examples():
    on_bar = board_from_position_id("zGbiIQgxH/AAWA")
    assert on_bar[25] == 1 and on_bar.clip(0).sum() == 15
    one_off = board_from_position_id("zGbiIYCYD3gALA")
    assert (-one_off).clip(0).sum() == 14


@pytest.mark.parametrize("pid", [pid for pid, _ in DESCRIBED] + ROUND_TRIP_ONLY)
def test_round_trip_examples(pid):
    b = board_from_position_id(pid)
    assert b.dtype == np.int8 and b.shape == (26,)
    validate(b)
    assert position_id(b) == pid


@pytest.mark.parametrize("name", ["wildbg-contact-ids.txt", "wildbg-race-ids.txt"])
def test_round_trip_wildbg_sets(name):
    ids = (DATA / name).read_text().split()
    assert len(ids) == 1000
    for pid in ids:
        assert position_id(board_from_position_id(pid)) == pid


@given(positions())
def test_round_trip_positions(b):
    pid = position_id(b)
    assert len(pid) == 14 and pid[-1] in "AQgw"
    np.testing.assert_array_equal(board_from_position_id(pid), b)


@given(bearoff_positions())
def test_round_trip_bearoff_positions(b):
    np.testing.assert_array_equal(board_from_position_id(position_id(b)), b)


def test_position_id_validates_its_board():
    with pytest.raises(ValueError, match="mover has 16"):
        position_id(from_sides({6: 10, 8: 6}, {}))
    with pytest.raises(ValueError, match="one board"):
        position_id(np.stack([START, START]))


# Bit strings for bad keys: side not on roll first, 25 slots (24 points then bar) a side.
BOTH_ON_24 = "10" + "0" * 24 + "0" * 23 + "10" + "0"     # his ace point is the mover's 24
BAD_IDS = [
    ("4HPwATDgc/ABM", "has 14 characters, got 13"),
    ("4HPwATDgc/ABMAA", "has 14 characters, got 15"),
    ("", "got 0"),
    ("4HPwATDgc/A!MA", "outside base64: '!'"),
    ("4HPwATDgc/AB=A", "outside base64: '='"),
    ("4HPwATDgc/ABMB", "longer than 80 bits"),
    (id_from_bits("1" * 16 + "0" * 50), "player not on roll has 16 checkers"),
    (id_from_bits("0" * 25 + "1" * 16 + "0" * 25), "player on roll has 16 checkers"),
    (id_from_bits("1" * 31 + "0" * 49), "ends after 49 of its 50"),
    ("////////////AA", "ends after"),
    (id_from_bits("0" * 50 + "1"), "bits after its last point"),
    (id_from_bits(BOTH_ON_24), "point 24 is held by both sides"),
]


@pytest.mark.parametrize("pid, message", BAD_IDS)
def test_bad_ids(pid, message):
    with pytest.raises(ValueError, match=message):
        board_from_position_id(pid)


def test_non_string_id():
    with pytest.raises(TypeError, match="str"):
        board_from_position_id(b"4HPwATDgc/ABMA")


# ---------------------------------------------------------------- agreement with gnubg

@pytest.fixture(scope="module")
def gnubg():
    return pytest.importorskip("gnubg_nn", reason="gnubg-nn (the oracle extra) is not installed")


def to_anboard(b):
    """Interchange board -> gnubg_nn's [[not on roll], [on roll]], 25 slots each (24 = bar)."""
    return [[max(-int(b[24 - j]), 0) for j in range(24)] + [-int(b[0])],
            [max(int(b[j + 1]), 0) for j in range(24)] + [int(b[25])]]


def from_anboard(an):
    """gnubg_nn's two-sided board -> interchange board."""
    opp, mover = an
    b = np.zeros(26, dtype=np.int8)
    for p in range(1, 25):
        b[p] = mover[p - 1] - opp[24 - p]
    b[25], b[0] = mover[24], -opp[24]
    return b


def test_gnubg_layout_on_a_described_position(gnubg):
    # sGfwGQDg28EBBg: the side not on roll holds 2 on his 5-point (index 4), i.e. the mover's 20.
    an = gnubg.board_from_position_id("sGfwGQDg28EBBg")
    assert an[0][4] == 2 and an[1][20] == 2
    np.testing.assert_array_equal(from_anboard(an), DESCRIBED[1][1])


@given(positions())
def test_agrees_with_gnubg_position_id(b):
    gnubg = pytest.importorskip("gnubg_nn", reason="gnubg-nn (the oracle extra) is not installed")
    assert gnubg.position_id(to_anboard(b)) == position_id(b)
    np.testing.assert_array_equal(from_anboard(gnubg.board_from_position_id(position_id(b))), b)


@pytest.mark.parametrize("name", ["wildbg-contact-ids.txt", "wildbg-race-ids.txt"])
def test_agrees_with_gnubg_board_from_position_id(gnubg, name):
    for pid in (DATA / name).read_text().split():
        np.testing.assert_array_equal(
            board_from_position_id(pid), from_anboard(gnubg.board_from_position_id(pid)))
