"""GNU Backgammon's move notation (fastbg.position.notation, docs/notation.md).

* tests/reference/notation.py, gnubg's FormatMove transcribed line by line and a brute-force
  enumeration of every step multiset of every legal play, on self-play and hypothesis
  positions: move_notation must write the reference's text, and that text must not depend on
  which steps to the result are written (docs/notation.md section 4).
* Round trips: parse_move(move_notation(r)) is r, for every legal result.
* gnubg-nn, GNU Backgammon's own move generator: the same results and the same steps.
* Hand-made positions whose text was worked out by hand from FormatMove's source.
* Malformed and illegal input.
"""
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fastbg
from fastbg.position.notation import CANNOT_MOVE, move_steps
from reference.movegen import make_board
from reference.notation import format_move_ref, notations_ref, step_multisets_ref
from strategies import positions, selfplay_positions

ROLLS = [tuple(r) for r in fastbg.ROLLS.tolist()]


def _key(board):
    return tuple(int(x) for x in board)


def _board(**kw):
    return np.array(make_board(**kw), np.int8)


@pytest.fixture(scope="module")
def pairs():
    """300 self-play positions, each with a roll: every roll in turn, every other one with
    the dice given low die first (the text must not depend on the order)."""
    boards = selfplay_positions(300, 11)
    out = []
    for i, b in enumerate(boards):
        d1, d2 = ROLLS[i % len(ROLLS)]
        out.append((b, (d2, d1) if i % 2 else (d1, d2)))
    return out


def _check_against_reference(board, dice):
    """move_notation and move_steps agree with the reference for every legal result."""
    ref = notations_ref(board, dice)
    multisets = step_multisets_ref(board, dice)
    results = fastbg.legal_moves(board, dice)
    assert {_key(r) for r in results} == set(ref)
    texts = fastbg.move_notations(board, results, dice)
    for r, text in zip(results, texts):
        assert ref[_key(r)] == {text}, (board.tolist(), dice, text, ref[_key(r)])
        assert tuple(sorted(move_steps(board, r, dice))) in multisets[_key(r)]
    assert fastbg.move_notation(board, results[-1], dice) == texts[-1]
    return texts


def test_reference_on_selfplay_positions(pairs):
    texts = []
    for board, dice in pairs:
        texts += _check_against_reference(board, dice)
    # The sample has every kind of move the notation has a rule for.
    for pattern in (r"^bar/", r"\*", r"/off", r"\(\d\)", r"\*/", r"\*\(\d\)", r"^$"):
        assert any(re.search(pattern, t) for t in texts), pattern


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions(), st.sampled_from(ROLLS), st.booleans())
def test_reference_on_drawn_positions(board, roll, swap):
    _check_against_reference(board, roll[::-1] if swap else roll)


def _without_dice_ref(board):
    """``{result: text}`` as docs/notation.md section 4 chooses without dice: of the rolls
    that play the result, the one with the fewest steps, then the first in ROLLS order."""
    chosen = {}
    for index, roll in enumerate(ROLLS):
        for result, multisets in step_multisets_ref(board, roll).items():
            steps = next(iter(multisets))
            chosen[result] = min(chosen.get(result, (9, 0, ())), (len(steps), index, steps))
    return {result: format_move_ref(board, steps) for result, (_, _, steps) in chosen.items()}


def test_without_dice_matches_reference(pairs):
    for board, dice in pairs[:40]:
        results = fastbg.legal_moves(board, dice)
        ref = _without_dice_ref(board)
        assert fastbg.move_notations(board, results) == [ref[_key(r)] for r in results]


def test_without_dice_the_roll_can_matter():
    """From the start, 6/5 6/3 is 3-1's text; 1-1 plays the same result as 6/3 6/5
    (6/5 6/5 5/4 4/3: the first 6/5 joins 5/4 and 4/3). Without dice, 3-1 (two steps)."""
    r = _board(mine={24: 2, 13: 5, 8: 3, 6: 3, 5: 1, 3: 1}, theirs={1: 2, 12: 5, 17: 3, 19: 5})
    assert fastbg.move_notation(fastbg.START, r, (3, 1)) == "6/5 6/3"
    assert fastbg.move_notation(fastbg.START, r, (1, 1)) == "6/3 6/5"
    assert fastbg.move_notation(fastbg.START, r) == "6/5 6/3"


def _round_trip(board, dice):
    results = fastbg.legal_moves(board, dice)
    for r, text in zip(results, fastbg.move_notations(board, results, dice)):
        np.testing.assert_array_equal(fastbg.parse_move(board, text, dice), r, err_msg=text)
        # Other spellings gnubg reads: capitals, "25"/"0" for bar/off, no "*".
        other = text.upper().replace("BAR", "25").replace("OFF", "0").replace("*", "")
        np.testing.assert_array_equal(fastbg.parse_move(board, other, dice), r, err_msg=other)


def test_round_trip_on_selfplay_positions(pairs):
    for board, dice in pairs:
        _round_trip(board, dice)
    for board, dice in pairs[:50]:                     # without dice: any roll
        results = fastbg.legal_moves(board, dice)
        for r, text in zip(results, fastbg.move_notations(board, results)):
            np.testing.assert_array_equal(fastbg.parse_move(board, text), r, err_msg=text)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions(kinds=("bar", "bearoff", "few", "contact")), st.sampled_from(ROLLS))
def test_round_trip_on_drawn_positions(board, roll):
    _round_trip(board, roll)


def test_gnubg_nn_generates_the_same_moves():
    """gnubg_nn.moves(board, d1, d2, 1) gives (position key, steps) for each legal result,
    steps as (from, to) in the mover's numbering with 25 the bar and 0 off (the anMove of
    gnubg's generator, plus one). Its generator is an older GenerateMovesSub that starts
    each later die at or below the previous source even for a non-double, so it may list
    a non-double's two steps the other way round; for doubles the order is the same."""
    gnubg_nn = pytest.importorskip("gnubg_nn", reason="gnubg-nn (the gnubg extra) is not installed")
    from fastbg.evaluators.gnubg_nn import from_gnubg, to_gnubg
    rng = np.random.default_rng(23)
    boards = selfplay_positions(300, 29)
    compared = 0
    for board in boards:
        d1, d2 = (int(x) for x in rng.integers(1, 7, 2))
        theirs = {}
        for key, steps in gnubg_nn.moves(to_gnubg(board), d1, d2, 1):
            result = from_gnubg(gnubg_nn.board_from_position_key(key))
            theirs[_key(result)] = tuple(tuple(s) for s in steps)
        results = fastbg.legal_moves(board, (d1, d2))
        if not theirs:                                # gnubg lists nothing: no move
            assert len(results) == 1 and (results[0] == board).all()
            assert fastbg.move_notation(board, results[0], (d1, d2)) == ""
            continue
        assert {_key(r) for r in results} == set(theirs)
        for r in results:
            gnubg_steps = theirs[_key(r)]
            mine = move_steps(board, r, (d1, d2))
            assert sorted(mine) == sorted(gnubg_steps), (board.tolist(), d1, d2)
            if d1 == d2:
                assert mine == gnubg_steps
            assert fastbg.move_notation(board, r, (d1, d2)) == format_move_ref(board, gnubg_steps)
            compared += 1
    assert compared > 3000


# Hand-made cases. Each text was worked out by hand from gnubg's FormatMove (drawboard.c):
# steps sorted by source, then destination, both decreasing; a step joined to the chain
# ending where it starts, the joint kept (with "*") only where a blot was hit; identical
# chains counted; a destination hit marked "*" once.
START_OPP = {1: 2, 12: 5, 17: 3, 19: 5}

HAND = [
    # (board, dice, result, text, why)
    (fastbg.START, (3, 1),
     _board(mine={24: 2, 13: 5, 8: 2, 6: 4, 5: 2}, theirs=START_OPP),
     "8/5 6/5", "two checkers, higher source first"),
    (fastbg.START, (6, 1),
     _board(mine={24: 2, 13: 4, 8: 2, 7: 2, 6: 5}, theirs=START_OPP),
     "13/7 8/7", "13/7 and 8/7 do not join: 7 is not 8"),
    (fastbg.START, (6, 2),
     _board(mine={24: 2, 13: 3, 11: 1, 8: 3, 7: 1, 6: 5}, theirs=START_OPP),
     "13/11 13/7", "equal sources: the higher destination first"),
    (fastbg.START, (3, 3),
     _board(mine={24: 2, 13: 5, 8: 1, 6: 3, 5: 2, 3: 2}, theirs=START_OPP),
     "8/5(2) 6/3(2)", "identical steps counted"),
    (fastbg.START, (5, 3),
     _board(mine={24: 2, 13: 4, 8: 3, 6: 5, 5: 1}, theirs=START_OPP),
     "13/5", "13/8 8/5 (or 13/10 10/5) joined, the joint not hit"),
    # X: 24 x2, 13 x5, 12 open (O's mid-point moved to 14); 1-1.
    (_board(mine={24: 2, 13: 5, 8: 3, 6: 5}, theirs={1: 2, 14: 5, 17: 3, 19: 5}), (1, 1),
     _board(mine={23: 2, 13: 3, 12: 2, 8: 3, 6: 5}, theirs={1: 2, 14: 5, 17: 3, 19: 5}),
     "24/23(2) 13/12(2)", "two pairs of identical steps"),
    # X on the bar; O: a blot on X's 22, points on 19 and 16; 6-3: bar/22* only (the 6
    # neither enters nor moves on from 22).
    (_board(mine={6: 3}, bar=1, theirs={22: 1, 19: 2, 16: 2, 2: 10}), (6, 3),
     _board(mine={22: 1, 6: 3}, theirs={19: 2, 16: 2, 2: 10}, opp_bar=1),
     "bar/22*", "entering and hitting"),
    # X on the bar, O's blot on 22, 3-1.
    (_board(mine={6: 3}, bar=1, theirs={22: 1, 2: 10}), (3, 1),
     _board(mine={21: 1, 6: 3}, theirs={2: 10}, opp_bar=1),
     "bar/22*/21", "a hit on the way is written"),
    (_board(mine={6: 3}, bar=1, theirs={22: 1, 2: 10}), (3, 1),
     _board(mine={22: 1, 6: 2, 5: 1}, theirs={2: 10}, opp_bar=1),
     "bar/22* 6/5", "bar first (it is 25)"),
    (_board(mine={6: 3}, bar=1, theirs={22: 1, 2: 10}), (3, 1),
     _board(mine={21: 1, 6: 3}, theirs={22: 1, 2: 10}),
     "bar/21", "bar/24/21: no hit on 24, joined"),
    # O's blot on X's 8 (no X checker there); 5-1.
    (_board(mine={13: 2, 6: 5}, theirs={8: 1, 20: 5}), (5, 1),
     _board(mine={13: 1, 7: 1, 6: 5}, theirs={20: 5}, opp_bar=1),
     "13/8*/7", "hit on the way"),
    (_board(mine={13: 2, 6: 5}, theirs={8: 1, 20: 5}), (5, 1),
     _board(mine={13: 1, 7: 1, 6: 5}, theirs={8: 1, 20: 5}),
     "13/7", "13/12/7: the blot on 8 stays"),
    # O's blot on X's 7; 6-1: the first checker hits, the second lands: one "*".
    (_board(mine={13: 2, 8: 2, 6: 5}, theirs={7: 1, 20: 5}), (6, 1),
     _board(mine={13: 1, 8: 1, 7: 2, 6: 5}, theirs={20: 5}, opp_bar=1),
     "13/7* 8/7", "a hit is marked once"),
    # O's blots on X's 23, 22 and 21; 1-1, one checker all the way.
    (_board(mine={24: 1, 6: 5}, theirs={23: 1, 22: 1, 21: 1, 2: 5}), (1, 1),
     _board(mine={20: 1, 6: 5}, theirs={2: 5}, opp_bar=3),
     "24/23*/22*/21*/20", "three hits on the way (FormatMove's longest chain)"),
    # O's blot on X's 5; 1-1: 10/8 and two checkers 6/5*.
    (_board(mine={10: 1, 6: 2}, theirs={5: 1, 20: 5}), (1, 1),
     _board(mine={8: 1, 5: 2}, theirs={20: 5}, opp_bar=1),
     "10/8 6/5*(2)", "the count after the star"),
    (_board(mine={6: 2}, theirs={5: 1, 20: 5}), (1, 1),
     _board(mine={4: 2}, theirs={20: 5}, opp_bar=1),
     "6/5*/4(2)", "6/5 6/5 5/4 5/4: two chains through the hit, identical"),
    # 3-3 from 12 and 9 x2: steps 12/9 9/6 9/6 6/3; 12/9 joins 9/6, then 6/3.
    (_board(mine={12: 1, 9: 2}, theirs={20: 5}), (3, 3),
     _board(mine={9: 1, 6: 1, 3: 1}, theirs={20: 5}),
     "12/3 9/6", "greedy joining in source order (not 12/6 9/3)"),
    (_board(mine={6: 2}, theirs={20: 5}), (6, 6),
     _board(theirs={20: 5}),
     "6/off(2)", "bearing off"),
    (_board(mine={6: 2, 3: 2}, theirs={20: 5}), (6, 6),
     _board(theirs={20: 5}),
     "6/off(2) 3/off(2)", "bearing off from the highest point"),
    (_board(mine={4: 1}, theirs={20: 5}), (5, 1),
     _board(theirs={20: 5}),
     "4/off", "4/3 3/off joined: off is written 'off'"),
]


@pytest.mark.parametrize("board, dice, result, text, why", HAND, ids=[h[3] for h in HAND])
def test_hand_made(board, dice, result, text, why):
    legal = {_key(r) for r in fastbg.legal_moves(board, dice)}
    assert _key(result) in legal, why
    assert fastbg.move_notation(board, result, dice) == text, why
    assert fastbg.move_notation(board, result, dice[::-1]) == text
    assert notations_ref(board, dice)[_key(result)] == {text}
    np.testing.assert_array_equal(fastbg.parse_move(board, text, dice), result)


def test_other_spellings_parse():
    b = fastbg.START
    want = fastbg.parse_move(b, "8/5 6/5", (3, 1))
    for text in ("8/5 6/5", "6/5 8/5", " 8/5   6/5 ", "8/5,6/5", "8 / 5 6 / 5", "8/5* 6/5"):
        np.testing.assert_array_equal(fastbg.parse_move(b, text, (3, 1)), want, err_msg=text)
    np.testing.assert_array_equal(fastbg.parse_move(b, "13/8/5", (5, 3)),
                                  fastbg.parse_move(b, "13/5", (5, 3)))
    np.testing.assert_array_equal(fastbg.parse_move(b, "13/10 10/5", (5, 3)),
                                  fastbg.parse_move(b, "13/5", (5, 3)))
    # The greedy case: "12/6 9/3" is the same result as gnubg's "12/3 9/6".
    b2 = _board(mine={12: 1, 9: 2}, theirs={20: 5})
    np.testing.assert_array_equal(fastbg.parse_move(b2, "12/6 9/3", (3, 3)),
                                  fastbg.parse_move(b2, "12/3 9/6", (3, 3)))
    entering = _board(mine={6: 3}, bar=1, theirs={22: 1, 2: 10})
    for text in ("bar/22*/21", "BAR/22/21", "b/22/21", "25/22*/21", "Bar/22* 22/21"):
        np.testing.assert_array_equal(fastbg.parse_move(entering, text, (3, 1)),
                                      _board(mine={21: 1, 6: 3}, theirs={2: 10}, opp_bar=1),
                                      err_msg=text)
    home = _board(mine={6: 2}, theirs={20: 5})
    for text in ("6/off(2)", "6/OFF(2)", "6/0(2)", "6/o 6/o", "6/off ( 2 )"):
        np.testing.assert_array_equal(fastbg.parse_move(home, text, (6, 6)),
                                      _board(theirs={20: 5}), err_msg=text)


def test_no_move():
    """A roll that cannot be played: FormatMove writes nothing; gnubg's exports print
    "Cannot move", which parse_move reads too."""
    closed = np.zeros(26, np.int8)
    closed[25] = 1
    closed[6] = 14
    closed[18:25] = [-3, -2, -2, -2, -2, -2, -2]
    (only,) = fastbg.legal_moves(closed, (6, 5))
    assert fastbg.move_notation(closed, only, (6, 5)) == ""
    assert fastbg.move_notation(closed, only) == ""          # some roll cannot be played
    assert move_steps(closed, only, (6, 5)) == ()
    for text in ("", "  ", CANNOT_MOVE, "cannot move"):
        np.testing.assert_array_equal(fastbg.parse_move(closed, text, (6, 5)), closed)
    with pytest.raises(ValueError, match="not a legal move with 6-5"):
        fastbg.parse_move(closed, "6/1", (6, 5))
    with pytest.raises(ValueError, match="not a legal move with 3-1"):
        fastbg.parse_move(fastbg.START, "", (3, 1))          # 3-1 must be played
    with pytest.raises(ValueError, match="any roll"):
        fastbg.parse_move(fastbg.START, "")                  # every roll moves from the start


@pytest.mark.parametrize("text, fragment", [
    ("13", "cannot read"),
    ("13/", "cannot read"),
    ("/13", "cannot read"),
    ("13//8", "cannot read"),
    ("13-8", "cannot read"),
    ("x/y", "cannot read"),
    ("13/8(0)", "repeat count"),
    ("13/8(5)", "repeat count"),
    ("26/20", "point 26"),
    ("13/15", "does not move forward"),
    ("8/8", "does not move forward"),
    ("off/3", "starts off the board"),
    ("6/bar", "onto the bar"),
    ("13/off/5", "after bearing off"),
    ("8/7 8/7 8/7 8/7 6/5", "at most 4"),
    ("20/14", "no checker of the mover on 20"),
    ("bar/22", "no checker of the mover on bar"),
    ("13/12", "held by the opponent"),
    ("13/7", "not a legal move with 3-1"),
    ("6/5", "not a legal move with 3-1"),                  # only one die played
])
def test_bad_text(text, fragment):
    with pytest.raises(ValueError, match=re.escape(fragment)):
        fastbg.parse_move(fastbg.START, text, (3, 1))


def test_bad_arguments():
    b = fastbg.START
    with pytest.raises(TypeError, match="str"):
        fastbg.parse_move(b, 135, (3, 1))
    with pytest.raises(ValueError, match="between 1 and 6"):
        fastbg.parse_move(b, "8/5 6/5", (7, 1))
    with pytest.raises(ValueError, match="between 1 and 6"):
        fastbg.move_notation(b, b, (0, 1))
    with pytest.raises(ValueError, match="one board"):
        fastbg.move_notation(np.stack([b, b]), b, (3, 1))
    r31 = fastbg.parse_move(b, "8/5 6/5", (3, 1))
    with pytest.raises(ValueError, match="not a legal move of the board with 6-5"):
        fastbg.move_notation(b, r31, (6, 5))
    with pytest.raises(ValueError, match="not a legal move"):
        move_steps(b, r31, (6, 5))
    with pytest.raises(ValueError, match="any roll"):
        fastbg.move_notation(b, b)                             # the start always moves
    far = b.copy()
    far[24] = 0
    far[1] = 0                                                 # not reachable at all
    with pytest.raises(ValueError, match="any roll"):
        fastbg.move_notation(b, far)
    with pytest.raises(ValueError, match=r"\(k, 26\)"):
        fastbg.move_notations(b, r31, (3, 1))
    assert fastbg.move_notations(b, r31[None], (3, 1)) == ["8/5 6/5"]
