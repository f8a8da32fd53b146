"""Tests of fastbg.position.board: validation, flipping, pip and borne-off counts, the text picture."""
import numpy as np
import pytest
from hypothesis import given

from fastbg import START
from fastbg.position.board import borne_off, flip, pip_counts, render, validate, validate_batch
from strategies import bearoff_positions, positions


def board_of(points=(), mover_bar=0, opp_bar=0):
    """A board from {point: count} (mover positive, opponent negative) and the two bar counts."""
    b = np.zeros(26, dtype=np.int8)
    for p, n in dict(points).items():
        b[p] = n
    b[25], b[0] = mover_bar, -opp_bar
    return b


# ---------------------------------------------------------------- validate

def test_validate_accepts_lists_and_returns_contiguous_int8():
    out = validate(START.tolist())
    assert out.dtype == np.int8 and out.flags.c_contiguous and out.shape == (26,)
    np.testing.assert_array_equal(out, START)


def test_validate_batch_any_layout():
    batch = np.asfortranarray(np.stack([START, flip(START)]).astype(np.int64))
    out = validate(batch)
    assert out.dtype == np.int8 and out.flags.c_contiguous and out.shape == (2, 26)
    np.testing.assert_array_equal(out, batch)
    assert validate_batch(START).shape == (1, 26)
    assert validate_batch(batch).shape == (2, 26)
    assert validate(np.zeros((0, 26), dtype=np.int8)).shape == (0, 26)


@pytest.mark.parametrize("shape", [(25,), (27,), (2, 25), (2, 2, 26), ()])
def test_validate_rejects_shapes(shape):
    with pytest.raises(ValueError, match=r"shape \(26,\).*got"):
        validate(np.zeros(shape, dtype=np.int8))


@pytest.mark.parametrize("values", [START.astype(float), START.astype(bool), ["0"] * 26])
def test_validate_rejects_non_integers(values):
    with pytest.raises(ValueError, match="integers, got dtype"):
        validate(values)


def test_validate_rejects_values_outside_int8():
    b = START.astype(np.int64)
    b[3] = 300                      # would wrap to 44 if cast blindly
    with pytest.raises(ValueError, match="fit in int8"):
        validate(b)


@pytest.mark.parametrize("board, message", [
    (board_of({6: 5}, mover_bar=-1), r"mover's bar b\[25\] must be >= 0, got -1"),
    (np.where(np.arange(26) == 0, 1, 0), r"opponent's bar b\[0\] must be <= 0, got 1"),
    (board_of({7: 16}), r"b\[7\] = 16 is more than 15 checkers"),
    (board_of({7: -16}), r"b\[7\] = -16 is more than 15 checkers"),
    (board_of({}, mover_bar=16), r"b\[25\] = 16 is more than 15"),
    (board_of({6: 10, 8: 5}, mover_bar=1), "mover has 16 checkers"),
    (board_of({6: -10, 8: -6}), "opponent has 16 checkers"),
    (board_of({6: -10, 8: -5}, opp_bar=1), "opponent has 16 checkers"),
])
def test_validate_rejects_bad_positions(board, message):
    with pytest.raises(ValueError, match=message) as err:
        validate(board)
    assert "row" not in str(err.value)


def test_validate_names_the_bad_row_of_a_batch():
    batch = np.stack([START] * 4)
    batch[2, 6] = 9                 # mover 19 checkers
    batch[3, 25] = -1               # a later row with a problem checked earlier: not reported
    with pytest.raises(ValueError, match=r"^row 2: mover has 19 checkers"):
        validate(batch)


@given(positions())
def test_strategy_boards_are_valid(b):
    validate(b)
    mover, opp = borne_off(b)
    assert 0 <= mover < 15 and 0 <= opp < 15          # both sides still have checkers


# ---------------------------------------------------------------- flip

@given(positions())
def test_flip_formula_and_involution(b):
    f = flip(b)
    assert f.dtype == np.int8
    for i in range(26):
        assert f[i] == -b[25 - i]
    np.testing.assert_array_equal(flip(f), b)
    assert pip_counts(f) == pip_counts(b)[::-1]
    assert borne_off(f) == borne_off(b)[::-1]


def test_flip_start_is_start_and_returns_new_array():
    b = START.copy()
    f = flip(b)
    np.testing.assert_array_equal(f, START)
    f[6] = 0
    assert b[6] == 5


def test_flip_batch_matches_rows():
    rows = [START, board_of({3: 2, 20: -1}, mover_bar=1, opp_bar=2)]
    out = flip(np.stack(rows))
    for got, row in zip(out, rows):
        np.testing.assert_array_equal(got, flip(row))


# ---------------------------------------------------------------- counts

def test_start_counts():
    assert pip_counts(START) == (167, 167)
    assert borne_off(START) == (0, 0)


def test_counts_of_a_hand_made_position():
    # mover: 3 on the 2-point, 1 on the bar (3*2 + 25 = 31 pips, 11 off);
    # opponent: 2 on the mover's 20 (his 5-point), 1 on his bar (2*5 + 25 = 35 pips, 12 off).
    b = board_of({2: 3, 20: -2}, mover_bar=1, opp_bar=1)
    assert pip_counts(b) == (31, 35)
    assert borne_off(b) == (11, 12)


@given(positions())
def test_pip_counts_match_a_plain_loop(b):
    mover = sum(i * max(int(b[i]), 0) for i in range(1, 26))
    opp = sum((25 - i) * max(-int(b[i]), 0) for i in range(0, 25))
    assert pip_counts(b) == (mover, opp)


@given(bearoff_positions())
def test_bearoff_positions_are_all_home(b):
    assert b[25] == 0 and np.all(b[7:25] <= 0)
    assert pip_counts(b)[0] <= 6 * 15


def test_batch_counts_are_arrays():
    batch = np.stack([START, board_of({2: 3, 20: -2}, mover_bar=1, opp_bar=1)])
    mover, opp = pip_counts(batch)
    np.testing.assert_array_equal(mover, [167, 31])
    np.testing.assert_array_equal(opp, [167, 35])
    off_mover, off_opp = borne_off(batch)
    np.testing.assert_array_equal(off_mover, [0, 11])
    np.testing.assert_array_equal(off_opp, [0, 12])


# ---------------------------------------------------------------- render

def test_render_hand_made_position():
    # X (on roll): 7 on 6, 3 on 5, 2 on 13, 1 on the bar, 2 borne off.
    # O: 2 on X's 1, 6 on X's 19, 4 on X's 20, a blot on X's 9, 1 on the bar, 1 borne off.
    b = board_of({6: 7, 5: 3, 13: 2, 1: -2, 19: -6, 20: -4, 9: -1}, mover_bar=1, opp_bar=1)
    expected = "\n".join([
        " O  bar 1  off 1  pips 145",
        " +13-14-15-16-17-18------19-20-21-22-23-24-+",
        " | X                | X | O  O             |",
        " | X                |   | O  O             |",
        " |                  |   | O  O             |",
        " |                  |   | O  O             |",
        " |                  |   | 6                |",
        " |                  |BAR|                  |",
        " |                  |   | 7                |",
        " |                  |   | X                |",
        " |                  |   | X  X             |",
        " |                  |   | X  X           O |",
        " |          O       | O | X  X           O |",
        " +12-11-10--9--8--7-------6--5--4--3--2--1-+",
        " X  bar 1  off 2  pips 108  (on roll)",
    ])
    assert render(b) == expected


def _read_picture(text):
    """Rebuild a board from render()'s picture, to check that it shows every checker."""
    lines = text.splitlines()
    top, bottom = lines[2:7], lines[8:13][::-1]   # both listed from the edge inward
    b = np.zeros(26, dtype=int)

    def column(rows, col):
        count, sign = 0, 0
        for row in rows:
            cell = row[col:col + 3].strip()
            if cell.isdigit():
                count = int(cell)
            elif cell:
                count, sign = count + 1, 1 if cell == "X" else -1
        return sign * count

    for k in range(12):
        col = 2 + 3 * k + (5 if k >= 6 else 0)
        b[13 + k] = column(top, col)
        b[12 - k] = column(bottom, col)
    b[25], b[0] = column(top, 21), column(bottom, 21)
    return b


@given(positions())
def test_render_shows_every_checker(b):
    text = render(b)
    np.testing.assert_array_equal(_read_picture(text), b)
    pips, off = pip_counts(b), borne_off(b)
    assert f"off {off[0]}  pips {pips[0]}" in text.splitlines()[-1]
    assert f"off {off[1]}  pips {pips[1]}" in text.splitlines()[0]


def test_render_full_stacks_and_empty_board():
    text = render(board_of({24: 15, 1: -15}))
    assert _read_picture(text)[24] == 15 and _read_picture(text)[1] == -15
    for p in range(1, 25):
        assert f"{p:->2}-" in text
    render(np.zeros(26, dtype=np.int8))             # both sides borne off: still drawable


def test_render_rejects_a_batch():
    with pytest.raises(ValueError, match="one board"):
        render(np.stack([START, START]))
