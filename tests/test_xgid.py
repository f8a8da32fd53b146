"""Tests of fastbg.position.ids: XGIDs and XGIDInfo (docs/formats.md section 3).

The XGID draws the position from the BOTTOM player's view; fastbg's board is seen from the
player on roll (``turn``). The oracle for the layout is ``gnubg_board`` below, a transcription
of gnubg's importer (PositionFromXG, then SwapSides when the top player is on roll), checked
against gnubg_nn's Position IDs.
"""
import numpy as np
import pytest
from hypothesis import given, strategies as st

from fastbg import START
from fastbg.position.board import borne_off, flip, pip_counts
from fastbg.position.ids import XGIDInfo, parse_xgid, position_id, xgid
from strategies import positions

START_XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
MATCH_XGID = "XGID=-BBABBBbB---c-----B-babcb-:0:0:1:32:2:1:0:5:10"
MONEY_XGID = "XGID=aBBBBCC-A-----------------:1:1:1:14:0:0:3:0:10"


def test_start_position():
    board, info = parse_xgid(START_XGID)
    np.testing.assert_array_equal(board, START)
    assert board.dtype == np.int8 and board.shape == (26,)
    assert info == XGIDInfo()
    assert xgid(board, info) == START_XGID == xgid(START)


def test_match_example():
    # 5-point match, bottom 2 top 1, bottom to play 3-2, centred 1-cube, not Crawford.
    #   bottom (upper case) on points 1-6, 8, 18; top (lower case) on 7, 12, 20-24.
    board, info = parse_xgid(MATCH_XGID)
    assert info == XGIDInfo(turn="bottom", dice=(3, 2), score_bottom=2, score_top=1,
                            match_length=5)
    expected = np.zeros(26, dtype=np.int8)
    for point, n in {1: 2, 2: 2, 3: 1, 4: 2, 5: 2, 6: 2, 8: 2, 18: 2,
                     7: -2, 12: -3, 20: -2, 21: -1, 22: -2, 23: -3, 24: -2}.items():
        expected[point] = n
    np.testing.assert_array_equal(board, expected)
    assert borne_off(board) == (0, 0)
    assert xgid(board, info) == MATCH_XGID


def test_money_example():
    # Money, 2-cube owned by bottom, Jacoby and beavers, bottom rolled 1-4; top has one
    # checker on the bar and 14 off; bottom holds points 1-6 and a checker on 8.
    board, info = parse_xgid(MONEY_XGID)
    assert info == XGIDInfo(cube_value=2, cube_owner="bottom", turn="bottom", dice=(1, 4),
                            jacoby=True, beaver=True)
    assert info.cube_owner_relative == "on_roll"
    assert board[0] == -1 and board[25] == 0
    assert board[1:9].tolist() == [2, 2, 2, 2, 3, 3, 0, 1] and not board[9:25].any()
    assert borne_off(board) == (0, 14)
    assert xgid(board, info) == MONEY_XGID


@pytest.mark.parametrize("text", [START_XGID, MATCH_XGID, MONEY_XGID])
def test_prefix_and_whitespace_optional(text):
    bare = text[len("XGID="):]
    for variant in (bare, f"  {text}\n"):
        board, info = parse_xgid(variant)
        np.testing.assert_array_equal(board, parse_xgid(text)[0])
        assert info == parse_xgid(text)[1]
        assert xgid(board, info) == text


def test_top_player_on_roll_flips():
    # Bottom view:  char 0 'a' = top's bar holds 1;  char 1 'A' = bottom's 1-point holds 1.
    #   top's view:  his bar b[25] = 1;  bottom's 1-point is top's 24-point: b[24] = -1.
    text = "XGID=aA" + "-" * 24 + ":1:1:-1:00:0:0:0:0:10"
    board, info = parse_xgid(text)
    assert info.turn == "top" and info.cube_owner == "bottom"
    assert info.cube_owner_relative == "opponent"
    expected = np.zeros(26, dtype=np.int8)
    expected[25], expected[24] = 1, -1
    np.testing.assert_array_equal(board, expected)
    assert xgid(board, info) == text
    # The same position with bottom on roll is the flipped board.
    bottom, _ = parse_xgid(text.replace(":-1:00:", ":1:00:"))
    np.testing.assert_array_equal(bottom, flip(board))


def test_start_with_top_on_roll_is_still_start():
    board, info = parse_xgid(START_XGID.replace(":0:1:00:", ":0:-1:00:"))
    np.testing.assert_array_equal(board, START)
    assert pip_counts(board) == (167, 167) and info.turn == "top"


def test_cube_states_in_the_dice_field():
    for field, name in (("D", "double_offered"), ("B", "beavered"), ("R", "raccooned")):
        text = START_XGID.replace(":00:0:0:0:0:", f":{field}:0:0:2:0:")
        board, info = parse_xgid(text)
        assert getattr(info, name) and info.dice is None and info.beaver
        assert xgid(board, info) == text
    assert parse_xgid(START_XGID.replace(":00:", ":D:"))[1].double_offered


def test_keyword_fields_replace_info():
    text = xgid(START, XGIDInfo(match_length=7), dice=(6, 6), score_top=6, crawford=True)
    assert text == "XGID=-b----E-C---eE---c-e----B-:0:0:1:66:0:6:1:7:10"
    assert parse_xgid(text)[1] == XGIDInfo(match_length=7, dice=(6, 6), score_top=6,
                                           crawford=True)


def test_dice_order_is_kept():
    for dice in ((1, 4), (4, 1)):
        text = xgid(START, dice=dice)
        assert f":{dice[0]}{dice[1]}:" in text and parse_xgid(text)[1].dice == dice


# ---------------------------------------------------------------- property tests

@st.composite
def xgid_infos(draw):
    """Every valid XGIDInfo."""
    length = draw(st.one_of(st.just(0), st.integers(1, 25)))
    scores = [draw(st.integers(0, length - 1 if length else 50)) for _ in range(2)]
    crawford = jacoby = beaver = False
    if length:
        crawford = draw(st.booleans())
        if crawford:
            scores[draw(st.integers(0, 1))] = length - 1
    else:
        jacoby, beaver = draw(st.booleans()), draw(st.booleans())
    max_cube = draw(st.integers(0, 15))
    actions = ["roll", "rolled", "double_offered"] + ["beavered", "raccooned"] * beaver
    action = draw(st.sampled_from(actions))
    return XGIDInfo(
        cube_value=2 ** draw(st.integers(0, max_cube)),
        cube_owner=draw(st.sampled_from([None, "bottom", "top"])),
        turn=draw(st.sampled_from(["bottom", "top"])),
        dice=(draw(st.integers(1, 6)), draw(st.integers(1, 6))) if action == "rolled" else None,
        double_offered=action == "double_offered", beavered=action == "beavered",
        raccooned=action == "raccooned", score_bottom=scores[0], score_top=scores[1],
        match_length=length, crawford=crawford, jacoby=jacoby, beaver=beaver,
        max_cube=max_cube)


def xg_position(b):
    """The 26 XGID position characters of a bottom-view board, written out directly."""
    letters = "-ABCDEFGHIJKLMNOP"
    return "".join(letters[v] if v >= 0 else letters[-v].lower() for v in b.tolist())


@given(positions(), xgid_infos())
def test_round_trip(board, info):
    text = xgid(board, info)
    bottom_view = board if info.turn == "bottom" else flip(board)
    assert text.startswith("XGID=" + xg_position(bottom_view) + ":")
    back, back_info = parse_xgid(text)
    np.testing.assert_array_equal(back, board)
    assert back.dtype == np.int8 and back_info == info
    assert xgid(back, back_info) == text


# ---------------------------------------------------------------- agreement with gnubg

def gnubg_board(text):
    """gnubg's importer (set.c SetXGID, positionid.c PositionFromXG), transcribed: char i
    upper case -> anBoard[1][i - 1] (bottom; char 25 = his bar, anBoard[1][24]), lower case
    -> anBoard[0][24 - i] (top; char 0 = his bar); then sides swap if top is on roll, so that
    anBoard[1] is the player on roll."""
    fields = text.split("=")[-1].split(":")
    pos, turn = fields[0], int(fields[3])
    an = [[0] * 25, [0] * 25]
    for i, c in enumerate(pos):
        if c.isupper():
            an[1][i - 1 if i else 24] = ord(c) - ord("A") + 1
        elif c.islower():
            an[0][24 - i if i else 24] = ord(c) - ord("a") + 1
    return an if turn == 1 else an[::-1]


@given(positions(), xgid_infos())
def test_agrees_with_gnubg_importer(board, info):
    gnubg = pytest.importorskip("gnubg_nn", reason="gnubg-nn (the oracle extra) is not installed")
    assert gnubg.position_id(gnubg_board(xgid(board, info))) == position_id(board)


@pytest.mark.parametrize("text", [START_XGID, MATCH_XGID, MONEY_XGID])
def test_examples_agree_with_gnubg_importer(text):
    gnubg = pytest.importorskip("gnubg_nn", reason="gnubg-nn (the oracle extra) is not installed")
    assert gnubg.position_id(gnubg_board(text)) == position_id(parse_xgid(text)[0])


# ---------------------------------------------------------------- bad input

def with_field(i, value, text=START_XGID):
    """``text`` with field i (0 = position) replaced."""
    fields = text[len("XGID="):].split(":")
    fields[i] = value
    return "XGID=" + ":".join(fields)


POS = START_XGID[5:31]
BAD_XGIDS = [
    (START_XGID.rsplit(":", 1)[0], "10 fields separated by ':', got 9"),
    (START_XGID + ":10", "got 11"),
    ("XGID=", "got 1"),
    ("", "got 1"),
    ("xgid=" + START_XGID[5:], "position has 26 characters, got 31"),
    (with_field(0, POS[:-1]), "position has 26 characters, got 25"),
    (with_field(0, POS + "-"), "got 27"),
    (with_field(0, POS[:3] + "Q" + POS[4:]), "character 3 is 'Q'"),
    (with_field(0, POS[:3] + "q" + POS[4:]), "character 3 is 'q'"),
    (with_field(0, POS[:3] + "1" + POS[4:]), "character 3 is '1'"),
    (with_field(0, "A" + POS[1:]), "character 0 is the top player's bar .* got 'A'"),
    (with_field(0, POS[:25] + "a"), "character 25 is the bottom player's bar .* got 'a'"),
    (with_field(0, POS[:3] + "A" + POS[4:]), "bottom player has 16 checkers"),
    (with_field(0, "a" + POS[1:]), "top player has 16 checkers"),
    (with_field(0, "-" * 3 + "P" + "-" * 22), "bottom player has 16 checkers"),
    (with_field(1, "-1"), r"cube field \(log2 of the cube\) must be in 0..15, got -1"),
    (with_field(1, "16"), "got 16"),
    (with_field(1, "11"), r"at most 2\*\*10 = 1024, got 2048"),
    (with_field(1, "01"), "the cube field must be an integer, got '01'"),
    (with_field(1, "x"), "the cube field must be an integer"),
    (with_field(1, ""), "the cube field must be an integer"),
    (with_field(2, "2"), "cube position must be 1, 0 or -1, got 2"),
    (with_field(2, "+1"), "cube position must be an integer, got '[+]1'"),
    (with_field(3, "0"), "turn must be 1 or -1, got 0"),
    (with_field(4, "07"), "dice field must be 00, D, B, R or two dice 1-6, got '07'"),
    (with_field(4, "70"), "got '70'"),
    (with_field(4, "06"), "got '06'"),
    (with_field(4, "3"), "got '3'"),
    (with_field(4, "312"), "got '312'"),
    (with_field(4, "d"), "got 'd'"),
    (with_field(4, " 31"), "got ' 31'"),
    (with_field(4, "B"), "beavered needs money play with the beaver rule"),
    (with_field(4, "R", with_field(8, "5")), "raccooned needs money play"),
    (with_field(5, "-1"), "score_bottom must be >= 0, got -1"),
    (with_field(6, "x"), "top score must be an integer"),
    (with_field(5, "5", with_field(8, "5")), "bottom score 5 is at or past the match length 5"),
    (with_field(6, "9", with_field(8, "5")), "top score 9 is at or past the match length 5"),
    (with_field(7, "2", with_field(8, "5")), "rules field must be 0 or 1 in match play, got 2"),
    (with_field(7, "4"), "rules field must be 0..3 in money play, got 4"),
    (with_field(7, "-1"), "rules field must be 0..3"),
    (with_field(7, "1", with_field(8, "5")), "Crawford game needs a player at 4"),
    (with_field(8, "-3"), "match_length must be >= 0"),
    (with_field(9, "16"), "max_cube must be in 0..15, got 16"),
    (with_field(9, "0", with_field(1, "1")), r"at most 2\*\*0 = 1, got 2"),
]


@pytest.mark.parametrize("text, message", BAD_XGIDS)
def test_bad_xgids(text, message):
    with pytest.raises(ValueError, match=message):
        parse_xgid(text)


def test_valid_neighbours_of_bad_xgids():
    # One step inside the limits parses: the checks are not too strict.
    assert parse_xgid(with_field(7, "1", with_field(5, "4", with_field(8, "5"))))[1].crawford
    assert parse_xgid(with_field(1, "10"))[1].cube_value == 1024
    assert parse_xgid(with_field(4, "66"))[1].dice == (6, 6)
    assert parse_xgid(with_field(5, "4", with_field(8, "5")))[1].score_bottom == 4
    assert parse_xgid(with_field(0, "-" * 3 + "O" + "-" * 22))[0][3] == 15


@pytest.mark.parametrize("fields, message", [
    ({"turn": "left"}, "turn must be 'bottom' or 'top', got 'left'"),
    ({"cube_owner": "on_roll"}, "cube_owner must be None, 'bottom' or 'top'"),
    ({"cube_value": 6}, "power of two, got 6"),
    ({"dice": (0, 3)}, r"dice must be 1..6 each"),
    ({"double_offered": True, "dice": (3, 1)}, "double_offered happens before the roll"),
    ({"double_offered": True, "beavered": True, "beaver": True},
     "at most one of .* got double_offered and beavered"),
    ({"jacoby": True, "match_length": 3}, "match play has no jacoby rule"),
    ({"beaver": True, "match_length": 3}, "match play has no beaver rule"),
    ({"crawford": True}, "money play .* has no Crawford game"),
    ({"score_top": -2}, "score_top must be >= 0, got -2"),
    ({"max_cube": -1}, "max_cube must be in 0..15"),
])
def test_bad_infos(fields, message):
    with pytest.raises(ValueError, match=message):
        XGIDInfo(**fields)


def test_xgid_checks_its_inputs():
    with pytest.raises(ValueError, match="one board"):
        xgid(np.stack([START, START]))
    with pytest.raises(ValueError, match="mover has 16"):
        xgid(np.where(np.arange(26) == 6, 10, 0) + np.where(np.arange(26) == 7, 6, 0))
    with pytest.raises(TypeError, match="XGIDInfo"):
        xgid(START, {"turn": "top"})
    with pytest.raises(ValueError, match="turn must be"):
        xgid(START, turn=1)
    with pytest.raises(TypeError, match="str"):
        parse_xgid(b"XGID=")
    with pytest.raises(AttributeError):
        XGIDInfo().turn = "top"
