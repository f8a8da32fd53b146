"""Tests of fastbg.position.ids: gnubg Match IDs and MatchState (docs/formats.md section 2).

gnubg_nn (the oracle extra) has no Match ID functions, so the oracle here is an independent
encoder written from the manual's bit table (``key_of`` below), the manual's worked bit
string, and the described examples.
"""
import base64

import pytest
from hypothesis import given, strategies as st

from fastbg.position.ids import (
    GAME_DROPPED, GAME_NONE, GAME_OVER, GAME_PLAYING, GAME_RESIGNED, MatchState, match_id,
    match_state_from_id,
)

# The manual's table, 0-based: (field, first bit, width). Written out again here, not imported.
BITS = {"cube": (0, 4), "owner": (4, 2), "move": (6, 1), "crawford": (7, 1), "state": (8, 3),
        "turn": (11, 1), "doubled": (12, 1), "resigned": (13, 2), "die1": (15, 3),
        "die2": (18, 3), "length": (21, 15), "score0": (36, 15), "score1": (51, 15),
        "no_jacoby": (66, 1)}
# A plain valid key: money game, centred 1-cube, player 0 on roll, dice not rolled, playing.
PLAIN = {"owner": 3, "state": 1}


def key_of(**fields):
    """A Match ID from raw field values (missing fields from PLAIN, else 0); no range checks."""
    key = 0
    for name, value in {**PLAIN, **fields}.items():
        first, width = BITS[name]
        assert 0 <= value < 1 << width
        key |= value << first
    return base64.b64encode(key.to_bytes(9, "little")).decode()


def id_from_bits(bits):
    """Encode a bit string (bit k = key bit k) by the manual's recipe."""
    key = int(bits[::-1], 2)
    return base64.b64encode(key.to_bytes(9, "little")).decode()


# The examples of formats.md section 2, with the states they describe.
DESCRIBED = [
    # 9-point match at 2-4, player 0 holds a 2-cube, player 1 has just rolled 5-2.
    ("QYkqASAAIAAA", MatchState(cube_value=2, cube_owner=0, player_on_roll=1, turn=1,
                                dice=(5, 2), match_length=9, score=(2, 4))),
    # Money game, centred 1-cube, player 0 on roll having rolled 3-1.
    ("MIEFAAAAAAAA", MatchState(dice=(3, 1))),
    # 11-point match, player 0 (O) 3, player 1 (X) 4; player 1 rolled 6-3; centred 1-cube.
    ("cAlvATAAIAAA", MatchState(player_on_roll=1, dice=(6, 3), match_length=11, score=(3, 4))),
    # 7-point match at 4-0, player 0 rolled 3-1.
    ("MIHlAEAAAAAA", MatchState(dice=(3, 1), match_length=7, score=(4, 0))),
    # Money, centred 1-cube, player 1 to roll, dice not rolled.
    ("cAkAAAAAAAAA", MatchState(player_on_roll=1)),
]


@pytest.mark.parametrize("mid, state", DESCRIBED)
def test_described_ids(mid, state):
    decoded = match_state_from_id(mid)
    assert decoded == state
    assert decoded.game_state == GAME_PLAYING and decoded.turn == decoded.player_on_roll
    assert decoded.jacoby is None and not decoded.crawford and not decoded.double_offered
    assert match_id(state) == mid
    assert match_id(decoded) == mid


def test_manual_bit_string():
    bits = ("1000" "00" "1" "0" "100" "1" "0" "00" "101" "010"
            "100100000000000" "010000000000000" "001000000000000")
    assert bytes.fromhex("41892A0120002000 00".replace(" ", "")) == base64.b64decode(
        id_from_bits(bits))
    assert id_from_bits(bits) == "QYkqASAAIAAA" == match_id(DESCRIBED[0][1])


def test_each_field_lands_on_its_bits():
    state = MatchState(cube_value=2 ** 15, cube_owner=1, player_on_roll=1, crawford=True,
                       game_state=GAME_DROPPED, turn=0, double_offered=True, resignation=3,
                       dice=(6, 4), match_length=64, score=(63, 17), jacoby=False)
    assert match_id(state) == key_of(cube=15, owner=1, move=1, crawford=1, state=4, turn=0,
                                     doubled=1, resigned=3, die1=6, die2=4, length=64,
                                     score0=63, score1=17, no_jacoby=1)
    assert match_state_from_id(match_id(state)) == state


def test_defaults_and_turn_follows_player_on_roll():
    assert MatchState() == match_state_from_id(key_of())
    assert MatchState(player_on_roll=1).turn == 1
    assert MatchState(player_on_roll=1, turn=0).turn == 0


def test_dice_order_is_kept():
    # gnubg writes the larger die first; fastbg writes what it is given, both ways.
    low_first = MatchState(dice=(2, 5))
    assert match_id(low_first) == key_of(die1=2, die2=5) != match_id(MatchState(dice=(5, 2)))
    assert match_state_from_id(match_id(low_first)).dice == (2, 5)


def test_jacoby_bit():
    off = match_id(MatchState(jacoby=False))
    assert off == key_of(no_jacoby=1) and match_state_from_id(off).jacoby is False
    # A plain ID and an extended ID with Jacoby on share their bits: both decode to None.
    assert match_id(MatchState(jacoby=True)) == match_id(MatchState()) == key_of()
    assert match_state_from_id(key_of()).jacoby is None


def test_normalises_field_types():
    import numpy as np
    state = MatchState(cube_value=np.int64(4), cube_owner=np.int8(1), dice=[3, np.int8(3)],
                       score=np.array([1, 2]), match_length=5, crawford=0, jacoby=0)
    assert state == MatchState(cube_value=4, cube_owner=1, dice=(3, 3), score=(1, 2),
                               match_length=5, crawford=False, jacoby=False)
    assert type(state.dice) is tuple and type(state.score[0]) is int
    assert {state, MatchState(cube_value=4, cube_owner=1, dice=(3, 3), score=(1, 2),
                              match_length=5, jacoby=False)} == {state}


# ---------------------------------------------------------------- property tests

@st.composite
def match_states(draw):
    """Every valid MatchState whose jacoby is None or False (True is encoded as None)."""
    length = draw(st.one_of(st.just(0), st.integers(1, 64)))
    if length:
        score = (draw(st.integers(0, length - 1)), draw(st.integers(0, length - 1)))
        crawford = draw(st.booleans())
        if crawford:
            score = draw(st.sampled_from([(length - 1, score[1]), (score[0], length - 1)]))
    else:
        score = (draw(st.integers(0, 2 ** 15 - 1)), draw(st.integers(0, 2 ** 15 - 1)))
        crawford = False
    rolled = draw(st.booleans())
    return MatchState(
        cube_value=2 ** draw(st.integers(0, 15)),
        cube_owner=draw(st.sampled_from([None, 0, 1])),
        player_on_roll=draw(st.integers(0, 1)), crawford=crawford,
        game_state=draw(st.sampled_from(
            [GAME_NONE, GAME_PLAYING, GAME_OVER, GAME_RESIGNED, GAME_DROPPED])),
        turn=draw(st.integers(0, 1)), double_offered=draw(st.booleans()),
        resignation=draw(st.integers(0, 3)),
        dice=(draw(st.integers(1, 6)), draw(st.integers(1, 6))) if rolled else None,
        match_length=length, score=score, jacoby=draw(st.sampled_from([None, False])))


@given(match_states())
def test_round_trip_states(state):
    mid = match_id(state)
    assert len(mid) == 12
    assert match_state_from_id(mid) == state
    assert match_id(match_state_from_id(mid)) == mid


def raw_field(width):
    """Any value of a bit field, small ones (near the limits of a match) drawn often."""
    return st.one_of(st.integers(0, min(2 ** width - 1, 70)), st.integers(0, 2 ** width - 1))


@given(st.fixed_dictionaries({name: raw_field(width) for name, (_, width) in BITS.items()}))
def test_any_key_decodes_exactly_or_raises(fields):
    # Raw field values, each filling its bit width: valid ones must come back bit for bit.
    mid = key_of(**fields)
    try:
        state = match_state_from_id(mid)
    except ValueError as err:
        assert str(err).startswith(f"Match ID {mid!r}: ")
        return
    assert match_id(state) == mid


@given(st.integers(0, 2 ** 72 - 1))
def test_any_text_decodes_exactly_or_raises(key):
    mid = base64.b64encode(key.to_bytes(9, "little")).decode()
    try:
        state = match_state_from_id(mid)
    except ValueError:
        return
    assert match_id(state) == mid


# ---------------------------------------------------------------- bad input

BAD_IDS = [
    ("QYkqASAAIAA", "has 12 characters, got 11"),
    ("QYkqASAAIAAAA", "has 12 characters, got 13"),
    ("", "got 0"),
    ("QYkqASAA!AAA", "outside base64: '!'"),
    ("QYkqASAAIA==", "outside base64: '='"),
    ("QYkqASAAIAAI", "bits set past bit 66"),           # last char 8 = key bit 67
    ("//////////////////"[:12], "bits set past bit 66"),
    (key_of(owner=2), "cube-owner bits are 2"),
    (key_of(state=5), "game_state must be in 0..4, got 5"),
    (key_of(state=7), "game_state must be in 0..4, got 7"),
    (key_of(die1=7, die2=1), r"dice must be 1..6 each .*got \(7, 1\)"),
    (key_of(die1=3, die2=7), r"got \(3, 7\)"),
    (key_of(die1=3), r"both rolled or both 0, got \(3, 0\)"),
    (key_of(die2=5), r"got \(0, 5\)"),
    (key_of(length=65), "match_length must be in 0..64, got 65"),
    (key_of(length=2 ** 15 - 1), "match_length must be in 0..64"),
    (key_of(length=7, score0=7), "player 0 score 7 is at or past the match length 7"),
    (key_of(length=7, score1=9), "player 1 score 9 is at or past the match length 7"),
    (key_of(crawford=1), "money play .* has no Crawford game"),
    (key_of(crawford=1, length=7, score0=5, score1=4), "Crawford game needs a player at 6"),
]


@pytest.mark.parametrize("mid, message", BAD_IDS)
def test_bad_ids(mid, message):
    with pytest.raises(ValueError, match=message):
        match_state_from_id(mid)


def test_valid_neighbours_of_bad_ids():
    # The same fields one step inside the limits decode: the checks are not too strict.
    assert match_state_from_id(key_of(length=64, score0=63)).score == (63, 0)
    assert match_state_from_id(key_of(crawford=1, length=7, score1=6)).crawford
    assert match_state_from_id(key_of(state=4)).game_state == GAME_DROPPED
    assert match_state_from_id(key_of(die1=6, die2=6)).dice == (6, 6)
    assert match_state_from_id(key_of(score0=2 ** 15 - 1)).score == (2 ** 15 - 1, 0)


@pytest.mark.parametrize("fields, message", [
    ({"cube_value": 3}, "power of two, got 3"),
    ({"cube_value": 0}, "power of two, got 0"),
    ({"cube_value": 2 ** 16}, r"at most 2\*\*15 = 32768, got 65536"),
    ({"cube_owner": 2}, "cube_owner must be None .*got 2"),
    ({"cube_owner": -1}, "cube_owner must be None .*got -1"),
    ({"player_on_roll": 2}, "player_on_roll must be in 0..1, got 2"),
    ({"turn": -1}, "turn must be in 0..1"),
    ({"game_state": 5}, "game_state must be in 0..4"),
    ({"resignation": 4}, "resignation must be in 0..3"),
    ({"dice": (0, 0)}, r"dice must be 1..6 each \(None when not rolled\), got \(0, 0\)"),
    ({"dice": (3, 7)}, r"got \(3, 7\)"),
    ({"dice": (1, 2, 3)}, "a pair"),
    ({"dice": 5}, "a pair"),
    ({"score": (-1, 0)}, "score must be in 0..32767, got -1"),
    ({"score": (0,)}, "score must be a pair"),
    ({"match_length": 65}, "match_length must be in 0..64"),
    ({"match_length": 5, "score": (5, 0)}, "player 0 score 5 is at or past"),
    ({"match_length": 5, "score": (1, 6)}, "player 1 score 6 is at or past"),
    ({"crawford": True}, "money play .* has no Crawford game"),
    ({"crawford": True, "match_length": 5, "score": (3, 3)}, "needs a player at 4"),
    ({"crawford": 2}, "crawford must be True or False, got 2"),
    ({"jacoby": 3}, "jacoby must be True or False"),
])
def test_bad_states(fields, message):
    with pytest.raises(ValueError, match=message):
        MatchState(**fields)


@pytest.mark.parametrize("fields", [{"cube_value": 2.0}, {"cube_owner": "0"},
                                    {"dice": (1.0, 2)}, {"match_length": True}])
def test_non_integer_fields(fields):
    with pytest.raises(TypeError, match="must be an int"):
        MatchState(**fields)


def test_frozen_and_types():
    state = MatchState()
    with pytest.raises(AttributeError):
        state.cube_value = 2
    with pytest.raises(TypeError, match="MatchState"):
        match_id({"cube_value": 1})
    with pytest.raises(TypeError, match="str"):
        match_state_from_id(b"cAkAAAAAAAAA")
