"""A public function checks its input once; what it calls inside takes the checked arrays.

* One ``fastbg.rollout_moves`` call (a list of moves, every move, the top k by hint)
  validates the position's board once, its dice once, and generates the roll's legal
  moves once (counted by wrapping the functions with ``unittest.mock``, in every fastbg
  module that looks them up). Before the change a top-5 move rollout validated the board
  20 times and generated the moves 12 times.
* The results are those of the public functions the rollout used to call one by one: the
  candidates are ``fastbg.hint``'s (or ``legal_moves``', or ``parse_move``'s), their
  texts ``move_notation``'s and their ids ``position_id``'s; a top-k rollout equals the
  rollout of the same boards given as a list, bit for bit; each candidate is
  ``fastbg.rollout`` of the position after it; the checked hint equals ``fastbg.hint``
  and ``fastbg.hint_batch`` bit for bit.
* The public functions still raise ValueError for bad boards and dice.
"""
import contextlib
import sys
from unittest import mock

import numpy as np
import pytest

import fastbg
from fastbg.analysis.hints import hint_checked
from fastbg.cube.formulas import swap_sides
from fastbg.position import board as _board
from fastbg.position import ids as _ids
from fastbg.position import movegen as _mg
from fastbg.position import moves as _moves
from fastbg.position import notation as _notation
from fastbg.position.ids import position_id_checked
from fastbg.position.notation import notation_table, parse_move_checked

START = fastbg.START
KW = dict(trials=36, bot="pubeval", seed=1)
LIST = ["8/5 6/5", "24/21 6/5", "13/10 24/23"]


@contextlib.contextmanager
def counting(*functions):
    """One mock per function, wrapping it, put in place of every fastbg module's name for
    it (an alias included): the calls from anywhere in fastbg land on that mock."""
    mocks = [mock.MagicMock(wraps=f) for f in functions]
    with contextlib.ExitStack() as stack:
        for f, m in zip(functions, mocks):
            for mod in list(sys.modules.values()):
                if not getattr(mod, "__name__", "").startswith("fastbg"):
                    continue
                for attr, value in list(vars(mod).items()):
                    if value is f:
                        stack.enter_context(mock.patch.object(mod, attr, m))
        yield mocks


def _checks_and_moves(call, position=START):
    """(positions read, validations of ``position``'s board, of any dice, legal-move
    generations, gnubg move lists for the notation) during ``call()``, after a first call
    has compiled everything it reaches."""
    call()
    with counting(_ids.read_position, _board.validate, _moves.validate_dice,
                  _mg.legal_moves_one, _moves.legal_moves_rows,
                  _notation._gnubg_move_list) as (read, validate, dice, one, rows, steps):
        call()
    board = _ids.read_position(position)[0]
    on_board = sum(1 for c in validate.call_args_list
                   if np.array_equal(np.asarray(c.args[0]).reshape(-1, 26)[0], board))
    return (read.call_count, on_board, dice.call_count, one.call_count + rows.call_count,
            steps.call_count)


@pytest.mark.parametrize("moves", [LIST, None])
def test_a_move_rollout_checks_once_and_generates_once(moves):
    assert _checks_and_moves(lambda: fastbg.rollout_moves(START, (3, 1), moves=moves,
                                                          **KW)) == (1, 1, 1, 1, 1)


def test_a_top_k_move_rollout_checks_once_and_generates_once(gnubg_net):
    assert _checks_and_moves(lambda: fastbg.rollout_moves(START, (3, 1), moves=5,
                                                          **KW)) == (1, 1, 1, 1, 1)
    # an XGID's board and dice, with the cube: read once (parse_xgid checks its text
    # itself) and never validated again
    x = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10"
    assert _checks_and_moves(lambda: fastbg.rollout_moves(
        x, moves=3, rules=fastbg.MoneyRules(), **KW), x) == (1, 0, 1, 1, 1)


def test_hint_checks_its_board_once(gnubg_net):
    assert _checks_and_moves(lambda: fastbg.hint(START, (3, 1)))[:4] == (1, 1, 1, 1)


def _rows(r):
    return [(x.move, x.board, x.probabilities, x.probabilities_se, x.equity, x.equity_se,
             x.diff, x.diff_se, x.cubeful, x.cubeful_se, x.cubeful_diff, x.cubeful_diff_se,
             x.trials) for x in r]


def test_candidates_texts_and_ids_are_the_public_functions(gnubg_net):
    dice = (3, 1)
    top = fastbg.rollout_moves(START, dice, moves=5, **KW)
    h = fastbg.hint(START, dice)[:5]
    assert top.settings["moves"] == [c.move for c in h] == [
        fastbg.move_notation(START, c.board, dice) for c in h]
    assert top.settings["candidates"] == [fastbg.position_id(c.board) for c in h]
    assert top.settings["position"] == fastbg.position_id(START)
    # the same boards given as a list: the same rollout, bit for bit
    given = fastbg.rollout_moves(START, dice, moves=[c.board for c in h], **KW)
    assert _rows(given) == _rows(top) and given.settings == top.settings
    every = fastbg.rollout_moves(START, dice, moves=None, **KW)
    legal = fastbg.legal_moves(START, dice)
    assert every.settings["candidates"] == [fastbg.position_id(b) for b in legal]
    assert every.settings["moves"] == fastbg.move_notations(START, legal, dice)


def test_each_listed_candidate_is_the_rollout_after_it():
    r = fastbg.rollout_moves(START, (3, 1), moves=LIST, **KW)
    assert r.settings["candidates"] == [
        fastbg.position_id(fastbg.parse_move(START, m, (3, 1))) for m in LIST]
    for row in r:
        one = fastbg.rollout(fastbg.flip(np.array(row.board, np.int8)), **KW)
        np.testing.assert_allclose(row.probabilities, swap_sides(np.array(one.probabilities)),
                                   atol=1e-12)
        assert row.equity == pytest.approx(-one.equity, abs=1e-12)


def _hint_rows(h):
    return [(c.move, c.board.tobytes(), c.probabilities.tobytes(), c.equity, c.diff, c.ply,
             c.cubeless_equity) for c in h]


@pytest.mark.parametrize("ply", [0, 1])
def test_the_checked_hint_is_hint(gnubg_net, ply):
    for board, dice in [(START, (3, 1)), (fastbg.parse_move(START, "24/18 13/11", (6, 2)),
                                          (5, 5))]:
        b = fastbg.flip(board)
        want = fastbg.hint(b, dice, ply=ply)
        got = hint_checked(b, dice, ply, fastbg.legal_moves(b, dice))
        batch = fastbg.hint_batch(b[None], [dice], ply=ply)[0]
        assert _hint_rows(got) == _hint_rows(want) == _hint_rows(batch)
        assert got.ply == want.ply and got.dice == want.dice
        assert np.array_equal(got.board, want.board)


def test_the_checked_notation_is_the_public_one():
    for board, dice in [(START, (3, 1)), (START, (6, 6)),
                        (fastbg.flip(fastbg.parse_move(START, "24/21 6/5", (3, 1))), (4, 2))]:
        legal = fastbg.legal_moves(board, dice)
        table = notation_table(board, dice, legal)
        texts = [table.notation(r, dice) for r in legal]
        assert texts == [fastbg.move_notation(board, r, dice) for r in legal]
        for text, r in zip(texts, legal):
            assert np.array_equal(parse_move_checked(board, text, dice, table), r)
            assert np.array_equal(fastbg.parse_move(board, text, dice), r)
            assert position_id_checked(r) == fastbg.position_id(r)


def _bad_boards():
    extra = START.copy()
    extra[6] += 1                                   # 16 checkers
    wrong_bar = START.copy()
    wrong_bar[25] = -1
    return [extra, wrong_bar, START.astype(float), START[:25], np.stack([START, START])]


@pytest.mark.parametrize("bad", _bad_boards())
def test_public_functions_still_check_their_boards(bad):
    with pytest.raises(ValueError):
        fastbg.rollout_moves(bad, (3, 1), moves=LIST, **KW)
    with pytest.raises(ValueError):
        fastbg.rollout(bad, **KW)
    with pytest.raises(ValueError):
        fastbg.rollout_cube(bad, **KW)
    with pytest.raises(ValueError):
        fastbg.hint(bad, (3, 1))
    with pytest.raises(ValueError):
        fastbg.legal_moves(bad, (3, 1))
    with pytest.raises(ValueError):
        fastbg.position_id(bad)
    with pytest.raises(ValueError):
        fastbg.parse_move(bad, "8/5 6/5", (3, 1))
    with pytest.raises(ValueError):
        fastbg.move_notation(bad, fastbg.parse_move(START, "8/5 6/5", (3, 1)), (3, 1))


@pytest.mark.parametrize("dice", [(7, 1), (0, 3), (3,), (3, 1, 2), (1.5, 2)])
def test_public_functions_still_check_their_dice(dice):
    with pytest.raises(ValueError):
        fastbg.rollout_moves(START, dice, moves=LIST, **KW)
    with pytest.raises(ValueError):
        fastbg.hint(START, dice)
    with pytest.raises(ValueError):
        fastbg.hint_batch(START[None], [dice])
    with pytest.raises(ValueError):
        fastbg.legal_moves(START, dice)
    with pytest.raises(ValueError):
        fastbg.parse_move(START, "8/5 6/5", dice)


def test_a_listed_move_must_be_legal():
    with pytest.raises(ValueError, match="not a legal move"):
        fastbg.rollout_moves(START, (3, 1), moves=["8/2"], **KW)
    with pytest.raises(ValueError, match="not a legal move"):
        fastbg.rollout_moves(START, (3, 1), moves=[START], **KW)
    with pytest.raises(ValueError, match="empty"):
        fastbg.rollout_moves(START, (3, 1), moves=[], **KW)
