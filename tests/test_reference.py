"""The reference move generator (tests/reference) checked against GNU Backgammon.

The kernel tests compare fastbg with tests/reference/movegen.py, so the reference itself must be
right: it has to reproduce every oracle case (gnubg's own generator), the 47 wildbg move counts
and the known opening-roll counts. Every file read here is shipped in tests/data.
"""
import random

import pytest

from reference.ids import board_from_position_id_ref, position_id_ref
from reference.movegen import (
    checkers, is_reachable_by_steps, legal_moves_ref, make_board, max_dice_used_ref,
    reachable_by_steps, single_die_sources, step)
from reference.oracle import (
    OPENING_COUNTS, ROLLS, START, cases_by_category, move_counts, wildbg_ids, DATA)

CASES = cases_by_category()


def test_oracle_has_every_category():
    assert set(CASES) == {"hand", "gnubg-play", "random-play", "nomove", "partial", "highdie",
                          "dbl_partial", "bar2", "bearoff", "other"}
    assert sum(map(len, CASES.values())) == 4215


@pytest.mark.parametrize("cat", sorted(CASES))
def test_reference_agrees_with_gnubg(cat):
    """Every oracle case (the reference is fast enough for all 4,215), grouped by category."""
    bad = []
    for c in CASES[cat]:
        got = legal_moves_ref(c.board, c.dice)
        if got != c.moves:
            bad.append(f"board={list(c.board)} dice={c.dice}: want {len(c.moves)}, got {len(got)} "
                       f"(missing {len(set(c.moves) - set(got))}, extra {len(set(got) - set(c.moves))})")
    assert not bad, f"[{cat}] {len(bad)} of {len(CASES[cat])} cases differ:\n" + "\n".join(bad[:5])


@pytest.mark.parametrize("pid,dice,count", move_counts(), ids=lambda v: str(v))
def test_reference_move_counts(pid, dice, count):
    board = board_from_position_id_ref(pid)
    got = legal_moves_ref(board, dice)
    if count == 0:                       # no legal play: the unchanged board alone
        assert got == [board]
        assert max_dice_used_ref(board, dice) == 0
    else:
        assert len(got) == count
        assert board not in got or max_dice_used_ref(board, dice) > 0


def test_largest_known_case():
    board = board_from_position_id_ref("AACAkCRJqqoAAA")
    assert len(legal_moves_ref(board, (1, 1))) == 2220


@pytest.mark.parametrize("dice,count", sorted(OPENING_COUNTS.items()))
def test_reference_opening_rolls(dice, count):
    assert len(legal_moves_ref(START, dice)) == count
    assert legal_moves_ref(START, dice[::-1]) == legal_moves_ref(START, dice)


# ---- Position IDs --------------------------------------------------------------------------

def test_position_id_start():
    assert board_from_position_id_ref("4HPwATDgc/ABMA") == START
    assert position_id_ref(START) == "4HPwATDgc/ABMA"


def test_position_id_examples():
    # gnubg manual: not on roll {5:2, 6:4, 8:2, 13:5, 15:2}; on roll {6:5, 7:2, 8:3, 13:3, 21:2}.
    b = board_from_position_id_ref("sGfwGQDg28EBBg")
    theirs = {25 - p: n for p, n in {5: 2, 6: 4, 8: 2, 13: 5, 15: 2}.items()}
    assert b == make_board({6: 5, 7: 2, 8: 3, 13: 3, 21: 2}, theirs)
    # wildbg: start, but one / two of the mover's back checkers on the bar.
    assert board_from_position_id_ref("4HPwATDgc/ABUA") == make_board(
        {24: 1, 13: 5, 8: 3, 6: 5}, {1: 2, 12: 5, 17: 3, 19: 5}, bar=1)
    assert board_from_position_id_ref("4HPwATDgc/ABYA") == make_board(
        {13: 5, 8: 3, 6: 5}, {1: 2, 12: 5, 17: 3, 19: 5}, bar=2)


def test_position_id_round_trip():
    ids = [pid for pid, _, _ in move_counts()]
    for name in ("contact", "race"):
        if (DATA / f"wildbg-{name}-ids.txt").exists():
            ids += wildbg_ids(name)
    for pid in ids:
        b = board_from_position_id_ref(pid)
        assert position_id_ref(b) == pid
        assert all(n <= 15 for n in checkers(b))


# ---- single steps, hand-made ---------------------------------------------------------------

def test_step_enters_first_and_hits():
    # Mover X has one checker on the bar; die 3 enters on point 22 (25 - 3), where O has a blot.
    #   24 23 22 21 20 19            X bar: 1
    #       O  O  O                  (22 is a blot, 23 and 21 are made points below)
    b = make_board({6: 5, 8: 3, 13: 5, 24: 1}, {22: 1, 23: 2, 21: 2}, bar=1)
    [(src, nb)] = step(b, 3)
    assert src == 25 and nb[22] == 1 and nb[0] == -1 and nb[25] == 0
    assert step(b, 2) == []                        # 23 is closed: no entry, nothing else moves
    assert step(b, 4) == []                        # 21 is closed


def test_step_blocked_point_and_hit_in_board():
    b = make_board({13: 1}, {10: 2, 9: 1})
    assert step(b, 3) == []
    [(src, nb)] = step(b, 4)
    assert src == 13 and nb[9] == 1 and nb[0] == -1


def test_bear_off_rules():
    # X: 2 on the 5-point, 1 on the 3-point, all home. O far away.
    b = make_board({5: 2, 3: 1}, {20: 2})
    assert single_die_sources(b, 5) == [5]         # exact; the 3 may not (a checker is higher)
    assert single_die_sources(b, 6) == [5]         # no checker above 6: highest point bears off
    assert single_die_sources(b, 4) == [5]         # 4-point empty, checker on 5 must move 5 -> 1
    assert single_die_sources(b, 3) == [3, 5]      # bear off from 3, or 5 -> 2
    # Not all home: no bearing off at all.
    b = make_board({5: 2, 7: 1}, {20: 2})
    assert single_die_sources(b, 6) == [7]
    assert single_die_sources(b, 5) == [7]


def test_higher_die_rule():
    # X's only checker on 14: 14-6 = 8 and 14-5 = 9 are open, but 3 = 14-5-6 is closed:
    # either die alone, not both -> the higher (6) must be played.
    b = make_board({14: 1}, {3: 2})
    assert legal_moves_ref(b, (6, 5)) == [make_board({8: 1}, {3: 2})]
    assert legal_moves_ref(b, (5, 6)) == [make_board({8: 1}, {3: 2})]


def test_only_one_die_playable():
    # Only the 5 can be played (14-6 = 8 closed), and 9-6 = 3 is closed too.
    b = make_board({14: 1}, {8: 2, 3: 2})
    assert legal_moves_ref(b, (6, 5)) == [make_board({9: 1}, {8: 2, 3: 2})]


def test_nothing_playable_returns_board():
    # X on the bar against a closed board (O holds 19..24): nothing moves, whatever the roll.
    b = make_board({6: 14}, {19: 2, 20: 2, 21: 2, 22: 2, 23: 2, 24: 2}, bar=1)
    assert legal_moves_ref(b, (6, 6)) == [b]
    assert legal_moves_ref(b, (3, 2)) == [b]


def test_reachable_by_steps():
    b = START
    for move in legal_moves_ref(b, (6, 5)):
        assert is_reachable_by_steps(b, (6, 5), move)
    assert is_reachable_by_steps(b, (6, 5), b)     # the empty sequence
    assert not is_reachable_by_steps(b, (6, 5), make_board({6: 15}, {19: 15}))
    assert set(legal_moves_ref(b, (2, 2))) <= reachable_by_steps(b, (2, 2))


# ---- random boards against gnubg_nn (when the oracle extra is installed) -------------------

def _random_board(rng):
    """A random valid board: both sides 15 checkers minus some borne off, some on the bars."""
    b = [0] * 26
    race_home = rng.random() < 0.3
    for sign in (1, -1):
        n = 15 - rng.randrange(0, 8)
        for _ in range(n):
            while True:
                if sign == 1:
                    if rng.random() < 0.05 and not race_home:
                        b[25] += 1
                        break
                    p = rng.randint(1, 6 if race_home else 24)
                else:
                    if rng.random() < 0.05:
                        b[0] -= 1
                        break
                    p = rng.randint(1, 24)
                if b[p] * sign >= 0:
                    b[p] += sign
                    break
    return tuple(b)


def _gnubg_moves(gnubg_nn, board, dice):
    from reference.ids import _sides_to_board
    me = [max(board[p], 0) for p in range(1, 25)] + [board[25]]
    opp = [max(-board[25 - q], 0) for q in range(1, 25)] + [-board[0]]
    keys = gnubg_nn.moves([opp, me], dice[0], dice[1])
    out = sorted({_sides_to_board(*gnubg_nn.board_from_position_key(k)) for k in keys})
    return out or [tuple(board)]


def test_reference_agrees_with_gnubg_nn_on_random_boards():
    gnubg_nn = pytest.importorskip("gnubg_nn")
    rng = random.Random(20240521)
    for _ in range(300):
        b = _random_board(rng)
        for dice in ROLLS:
            want = _gnubg_moves(gnubg_nn, b, dice)
            assert legal_moves_ref(b, dice) == want, (b, dice)
