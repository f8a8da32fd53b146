"""fastbg.legal_moves / legal_moves_batch against GNU Backgammon and the reference generator.

Sources of truth, all shipped in tests/data or tests/reference:
* movegen-public.jsonl.gz: 4,215 cases with gnubg's complete result sets;
* move-counts.csv: 47 wildbg counts, including the 2,220-result case;
* the wildbg perft totals over 2,000 positions x 21 rolls (through the batch API);
* tests/reference/movegen.py, the slow reference, on hypothesis-drawn boards.
"""
import pathlib

import numba
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import fastbg
from reference.ids import board_from_position_id_ref
from reference.movegen import checkers, legal_moves_ref, reachable_by_steps
from reference.oracle import (
    OPENING_COUNTS, PERFT_TOTALS, ROLLS, cases_by_category, move_counts, movegen_cases,
    wildbg_ids)
from strategies import positions

ROOT = pathlib.Path(__file__).resolve().parent.parent
CASES = cases_by_category()
ALL_CASES = movegen_cases()


def board8(board):
    return np.array(board, dtype=np.int8)


def as_sorted(results):
    """Kernel output (k, 26) -> sorted list of 26-int tuples; fails on duplicate rows."""
    assert isinstance(results, np.ndarray)
    assert results.dtype == np.int8 and results.ndim == 2 and results.shape[1] == 26
    rows = [tuple(int(x) for x in r) for r in results]
    assert len(set(rows)) == len(rows), f"{len(rows) - len(set(rows))} duplicate results"
    return sorted(rows)


def describe(board, dice, want, got):
    return (f"board={list(board)} dice={tuple(dice)}: want {len(want)}, got {len(got)} "
            f"(missing {len(set(want) - set(got))}, extra {len(set(got) - set(want))})")


def test_max_results():
    assert fastbg.MAX_RESULTS == 3060


# ---- (a) every oracle case, single API -----------------------------------------------------

@pytest.mark.parametrize("cat", sorted(CASES))
def test_oracle(cat):
    bad = []
    for c in CASES[cat]:
        try:
            got = as_sorted(fastbg.legal_moves(board8(c.board), c.dice))
        except AssertionError as exc:
            bad.append(f"board={list(c.board)} dice={c.dice}: {exc}")
            continue
        if got != c.moves:
            bad.append(describe(c.board, c.dice, c.moves, got))
    assert not bad, f"[{cat}] {len(bad)} of {len(CASES[cat])} cases differ:\n" + "\n".join(bad[:5])


# ---- (b) move counts and the largest known case --------------------------------------------

@pytest.mark.parametrize("pid,dice,count", move_counts(), ids=lambda v: str(v))
def test_move_counts(pid, dice, count):
    board = board_from_position_id_ref(pid)
    got = as_sorted(fastbg.legal_moves(board8(board), dice))
    if count == 0:                      # no legal play: the unchanged board alone
        assert got == [board]
    else:
        assert len(got) == count
    assert got == legal_moves_ref(board, dice)


def test_largest_known_case():
    board = board_from_position_id_ref("AACAkCRJqqoAAA")
    res = fastbg.legal_moves(board8(board), (1, 1))
    assert res.shape == (2220, 26)
    assert as_sorted(res) == legal_moves_ref(board, (1, 1))


# ---- (i) opening rolls ---------------------------------------------------------------------

@pytest.mark.parametrize("dice,count", sorted(OPENING_COUNTS.items()))
def test_opening_rolls(dice, count):
    got = as_sorted(fastbg.legal_moves(fastbg.START, dice))
    assert len(got) == count
    assert as_sorted(fastbg.legal_moves(fastbg.START, dice[::-1])) == got
    assert got == legal_moves_ref(fastbg.START, dice)


# ---- (c) perft totals through the batch API ------------------------------------------------

def perft_batch(name):
    boards = np.array([board_from_position_id_ref(p) for p in wildbg_ids(name)], dtype=np.int8)
    rolls = np.array(ROLLS, dtype=np.int8)
    n = len(boards)
    all_boards = np.repeat(boards, len(rolls), axis=0)
    all_dice = np.tile(rolls, (n, 1))
    return all_boards, all_dice


@pytest.mark.parametrize("name", sorted(PERFT_TOTALS))
def test_perft_totals(name):
    boards, dice = perft_batch(name)
    assert len(boards) == 1000 * 21
    results, offsets = fastbg.legal_moves_batch(boards, dice)
    counts = np.diff(offsets)
    doubles = dice[:, 0] == dice[:, 1]
    got = (int(counts[doubles].sum()), int(counts[~doubles].sum()))
    assert got == PERFT_TOTALS[name]
    assert counts.min() >= 1


# ---- (d) batch API: agrees with the single API, consistent offsets, thread independence ----

def check_batch_shape(results, offsets, n):
    assert results.dtype == np.int8 and results.ndim == 2 and results.shape[1] == 26
    assert offsets.dtype == np.int64 and offsets.shape == (n + 1,)
    assert offsets[0] == 0 and offsets[-1] == len(results)
    assert np.all(np.diff(offsets) >= 1)
    assert np.all(np.diff(offsets) <= fastbg.MAX_RESULTS)


def test_batch_matches_single_and_oracle():
    boards = np.array([c.board for c in ALL_CASES], dtype=np.int8)
    dice = np.array([c.dice for c in ALL_CASES], dtype=np.int8)
    results, offsets = fastbg.legal_moves_batch(boards, dice)
    check_batch_shape(results, offsets, len(boards))
    bad = []
    for i, c in enumerate(ALL_CASES):
        mine = results[offsets[i]:offsets[i + 1]]
        single = fastbg.legal_moves(boards[i], c.dice)
        if not np.array_equal(mine, single):
            bad.append(f"[{c.cat}] row {i}: batch differs from legal_moves (same order expected)")
        elif as_sorted(mine) != c.moves:
            bad.append(f"[{c.cat}] row {i}: " + describe(c.board, c.dice, c.moves, as_sorted(mine)))
    assert not bad, f"{len(bad)} rows differ:\n" + "\n".join(bad[:5])


def test_batch_with_huge_results():
    """Rows with thousands of results mixed with small ones (stresses buffer growth)."""
    big = board_from_position_id_ref("AACAkCRJqqoAAA")
    small = [c for c in ALL_CASES[:40]]
    boards, dice = [], []
    for i, c in enumerate(small):
        boards.append(c.board)
        dice.append(c.dice)
        if i % 4 == 0:
            boards.append(big)
            dice.append((1, 1))
    boards, dice = np.array(boards, np.int8), np.array(dice, np.int8)
    results, offsets = fastbg.legal_moves_batch(boards, dice)
    check_batch_shape(results, offsets, len(boards))
    for i in range(len(boards)):
        assert np.array_equal(results[offsets[i]:offsets[i + 1]],
                              fastbg.legal_moves(boards[i], tuple(dice[i]))), i


def test_batch_empty():
    results, offsets = fastbg.legal_moves_batch(np.zeros((0, 26), np.int8),
                                                np.zeros((0, 2), np.int8))
    assert results.shape == (0, 26) and results.dtype == np.int8
    assert offsets.tolist() == [0]


def test_batch_independent_of_thread_count():
    boards, dice = perft_batch("contact")
    boards, dice = boards[::3], dice[::3]
    with fastbg.threads(1):
        want = fastbg.legal_moves_batch(boards, dice)
    counts = sorted({1, 2, numba.config.NUMBA_NUM_THREADS} & set(
        range(1, numba.config.NUMBA_NUM_THREADS + 1)))
    if len(counts) < 2:
        pytest.skip("numba was started with a single thread")
    for n in counts[1:]:
        with fastbg.threads(n):
            got = fastbg.legal_moves_batch(boards, dice)
        assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1]), n


def test_threads_context_restores():
    old = numba.get_num_threads()
    with fastbg.threads(1):
        assert numba.get_num_threads() == 1
    assert numba.get_num_threads() == old


def test_threads_context_governs_batch(monkeypatch):
    """Inside ``with fastbg.threads(1)`` the batch kernel must not be given more threads."""
    seen = []
    real = numba.set_num_threads

    def spy(n):
        seen.append(n)
        real(n)

    monkeypatch.setattr(numba, "set_num_threads", spy)
    boards, dice = perft_batch("race")
    with fastbg.threads(1):
        seen.clear()
        fastbg.legal_moves_batch(boards[:200], dice[:200])
        inside = list(seen)
        assert numba.get_num_threads() == 1
    assert all(n == 1 for n in inside), f"batch set numba threads to {inside} inside threads(1)"


# ---- (f) deterministic order, input untouched ----------------------------------------------

def test_deterministic_and_input_untouched():
    for c in ALL_CASES[::50]:
        b = board8(c.board)
        before = b.copy()
        first = fastbg.legal_moves(b, c.dice)
        second = fastbg.legal_moves(b, c.dice)
        assert np.array_equal(first, second)
        assert np.array_equal(b, before)
    fastbg.legal_moves(fastbg.START, (6, 6))            # a read-only board is accepted
    assert fastbg.START.tolist() == [0, -2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3,
                                     0, -5, 0, 0, 0, 0, 2, 0]


# ---- (e) properties against the reference on drawn boards ----------------------------------

@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions())
def test_matches_reference_on_drawn_boards(board):
    board = np.asarray(board, dtype=np.int8)
    b = tuple(int(x) for x in board)
    mine0, theirs0 = checkers(b)
    for dice in ROLLS:
        got = as_sorted(fastbg.legal_moves(board, dice))
        want = legal_moves_ref(b, dice)
        assert got == want, describe(b, dice, want, got)
        reach = reachable_by_steps(b, dice)
        n_steps = 4 if dice[0] == dice[1] else 2
        for r in got:
            mine, theirs = checkers(r)
            assert theirs == theirs0                       # hits go to the bar, never vanish
            assert mine0 - n_steps <= mine <= mine0        # at most one off per die
            assert r[25] >= 0 and r[0] <= 0
            assert r in reach, f"result not reachable by single steps: {r} from {b} {dice}"


# ---- (g) the kernels stay valid Python (NUMBA_DISABLE_JIT=1) --------------------------------

NOJIT_SCRIPT = r"""
import sys
import numpy as np
import fastbg
from reference.oracle import cases_by_category
picked = []
for cat, cases in sorted(cases_by_category().items()):
    picked += [c for c in cases if len(c.moves) <= 200][:2]
bad = 0
for c in picked:
    got = sorted(tuple(int(x) for x in r) for r in fastbg.legal_moves(np.array(c.board, np.int8), c.dice))
    if got != c.moves:
        bad += 1
        print("MISMATCH", c.cat, list(c.board), c.dice, len(got), len(c.moves))
boards = np.array([c.board for c in picked], np.int8)
dice = np.array([c.dice for c in picked], np.int8)
res, off = fastbg.legal_moves_batch(boards, dice)
for i, c in enumerate(picked):
    got = sorted(tuple(int(x) for x in r) for r in res[off[i]:off[i + 1]])
    if got != c.moves:
        bad += 1
        print("BATCH MISMATCH", c.cat, list(c.board), c.dice)
print("checked", len(picked))
sys.exit(1 if bad else 0)
"""


def test_kernels_run_without_jit(nojit):
    """The move generator as plain Python (NUMBA_DISABLE_JIT=1, tests/conftest.py) gives
    GNU Backgammon's results."""
    assert nojit.returncode == 0, nojit.stdout[-3000:]
    assert "checked 20" in nojit.stdout


# ---- (h) bad input -------------------------------------------------------------------------

@pytest.mark.parametrize("dice", [(0, 1), (1, 0), (7, 1), (3, 7), (-1, 2), (1,), (1, 2, 3),
                                  (1.5, 2)])
def test_bad_dice(dice):
    with pytest.raises(ValueError):
        fastbg.legal_moves(fastbg.START, dice)


def _bad_boards():
    start = fastbg.START.copy()
    sixteen = start.copy()
    sixteen[6] += 1                                   # mover: 16 checkers
    opp16 = start.copy()
    opp16[19] -= 1                                    # opponent: 16 checkers
    opp_bar16 = start.copy()
    opp_bar16[0] = -1                                 # opponent: 15 + 1 on the bar
    bar_neg = start.copy()
    bar_neg[25] = -1
    opp_bar_pos = start.copy()
    opp_bar_pos[0] = 1
    return {
        "short": np.zeros(25, np.int8), "long": np.zeros(27, np.int8),
        "2d": np.zeros((1, 26), np.int8), "mover16": sixteen, "opp16": opp16,
        "oppbar16": opp_bar16, "mover_bar_negative": bar_neg, "opp_bar_positive": opp_bar_pos,
        "too_big": np.where(np.arange(26) == 6, 200, 0).astype(np.int16),
    }


@pytest.mark.parametrize("name", sorted(_bad_boards()))
def test_bad_board(name):
    with pytest.raises(ValueError):
        fastbg.legal_moves(_bad_boards()[name], (3, 1))


def test_bad_batch():
    boards = np.stack([fastbg.START] * 3)
    dice = np.array([(3, 1)] * 3, np.int8)
    with pytest.raises(ValueError):
        fastbg.legal_moves_batch(boards[:, :25], dice)
    with pytest.raises(ValueError):
        fastbg.legal_moves_batch(boards, dice[:2])
    with pytest.raises(ValueError):
        fastbg.legal_moves_batch(boards, np.ones((3, 3), np.int8))
    with pytest.raises(ValueError):
        fastbg.legal_moves_batch(fastbg.START, dice[:1])        # one board, not a batch
    bad_dice = dice.copy()
    bad_dice[1, 1] = 7
    with pytest.raises(ValueError):
        fastbg.legal_moves_batch(boards, bad_dice)
    bad_boards = boards.copy()
    bad_boards[2, 6] += 1                                       # 16 checkers in row 2
    with pytest.raises(ValueError):
        fastbg.legal_moves_batch(bad_boards, dice)
