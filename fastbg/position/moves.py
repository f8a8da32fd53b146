"""Legal moves: the public wrappers around :mod:`fastbg.position.movegen`.

A legal move is identified by the position it produces (docs/rules.md section 3), so both
functions return resulting positions, still seen from the player who moved.
"""
import threading

import numpy as np

from fastbg.position import movegen as _mg
from fastbg.position.board import validate
from fastbg.constants import BOARD_DTYPE, BOARD_SIZE, DIE_MAX, DIE_MIN, MAX_RESULTS
from fastbg.parallel import resolve_threads, run_spans, thread_array, threads as _threads

# Rows reserved per position in the first pass of the batch kernel. The perft workload
# averages 15.9 results per pair and doubles alone 30; a chunk that runs short stops, and
# its remaining positions run again with eight times the room.
_ROWS_PER_POSITION = 32
# Chunks per thread: enough for load balance between threads, few enough that the
# per-chunk scratch (about 40 KB) is negligible.
_CHUNKS_PER_THREAD = 4
# Positions per block: bigger batches run block by block, so the kernel's scratch output
# (kept between calls, see _Scratch) stays under about 60 MB.
_BLOCK = 1 << 16


class _Scratch(threading.local):
    """The kernel's output buffer, kept between calls, one per calling thread.

    Measured on the perft workload (42,000 pairs, 2 threads): first-touch page faults in a
    fresh buffer cost 411 ns per pair against 225 ns in a buffer already touched, because
    faults from two threads contend in the kernel. So the parallel kernel writes here and
    the compacted rows are then copied once, on one thread, into the array returned. Each
    calling thread has its own (the n-ply search runs whole levels on several threads at
    once, each generating moves on its own).
    """

    def __init__(self):
        self.buf = np.empty((0, BOARD_SIZE), BOARD_DTYPE)

    def rows(self, n):
        if self.buf.shape[0] < n:
            self.buf = np.empty((n, BOARD_SIZE), BOARD_DTYPE)
        return self.buf


_SCRATCH = _Scratch()


def validate_dice(dice, n=None):
    arr = np.asarray(dice)
    want = (2,) if n is None else (n, 2)
    if arr.shape != want:
        raise ValueError(f"dice must have shape {want}, got {arr.shape}")
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        if not np.all(np.equal(np.mod(arr, 1), 0)):
            raise ValueError("dice must be whole numbers")
    bad = (arr < DIE_MIN) | (arr > DIE_MAX)
    if np.any(bad):
        where = np.argwhere(bad)[0]
        raise ValueError(f"a die must be between {DIE_MIN} and {DIE_MAX}; got {arr[tuple(where)]}"
                         + ("" if n is None else f" in row {where[0]}"))
    # int64, not int8: under NUMBA_DISABLE_JIT the kernels' arithmetic on dice then cannot
    # overflow the way numpy int8 scalars do.
    return np.ascontiguousarray(arr, dtype=np.int64)


def legal_moves(board, dice):
    """Every distinct position that ``board`` can reach with ``dice``.

    board : int8[26] interchange board, player on roll.
    dice  : two dice (d1, d2), each 1..6; (d, d) is a double.
    Returns an ``int8`` array of shape (k, 26), in a deterministic order; when nothing
    can be played it holds the unchanged board alone (k = 1).

    >>> import fastbg
    >>> len(fastbg.legal_moves(fastbg.START, (3, 1)))
    16
    """
    b = validate(board)
    if b.ndim != 1:
        raise ValueError(f"legal_moves takes one board of shape (26,), got {b.shape}; "
                         "use legal_moves_batch for batches")
    d = validate_dice(dice)
    return legal_moves_checked(b, d[0], d[1])


def legal_moves_checked(board, d1, d2):
    """:func:`legal_moves` without the checks, for callers that have checked the board
    (valid, C-contiguous int8 (26,)) and the dice (two ints 1..6) once already (a move
    rollout generates its roll's moves here once and passes the rows on)."""
    return _mg.legal_moves_one(board, d1, d2)


def legal_moves_batch(boards, dice, threads=None):
    """Legal moves for many (position, roll) pairs at once, in parallel.

    boards : (n, 26) int8 boards; dice : (n, 2) dice, row i for board i.
    Returns ``(results, offsets)``: results (m, 26) int8 and offsets (n + 1,) int64, the
    results of pair i being ``results[offsets[i]:offsets[i + 1]]`` (in the same order as
    :func:`legal_moves` gives them). ``threads`` defaults to every numba thread.

    >>> import numpy as np, fastbg
    >>> res, off = fastbg.legal_moves_batch(np.stack([fastbg.START] * 2), [(3, 1), (6, 6)])
    >>> np.diff(off).tolist()
    [16, 11]
    """
    b = validate(boards)
    if b.ndim != 2:
        raise ValueError(f"legal_moves_batch takes boards of shape (n, 26), got {b.shape}")
    d = validate_dice(dice, b.shape[0])
    n_threads = resolve_threads(threads)
    with _threads(n_threads):
        return legal_moves_rows(b, d, n_threads)


def _chunk_bounds(m, n_chunks):
    edges = np.linspace(0, m, n_chunks + 1).astype(np.int64)
    return edges[:-1].copy(), edges[1:].copy()


def legal_moves_rows(boards, dice, n_threads, reuse=None):
    """:func:`legal_moves_batch` without the checks, for callers whose boards and dice are
    already valid (the game drivers): boards (n, 26) int8 and dice (n, 2) int64, both
    C-contiguous, run on ``n_threads`` (the caller has set numba's thread count).
    ``reuse``: None, or a key of :func:`fastbg.parallel.thread_array` whose array the
    results may be written to (valid until this thread's next call with that key)."""
    n = boards.shape[0]
    if n <= _BLOCK:
        return _block(boards, dice, n_threads, _ROWS_PER_POSITION, reuse)
    parts = [_block(boards[i:i + _BLOCK], dice[i:i + _BLOCK], n_threads, _ROWS_PER_POSITION)
             for i in range(0, n, _BLOCK)]
    offsets = np.zeros(n + 1, np.int64)
    np.cumsum(np.concatenate([np.diff(off) for _, off in parts]), out=offsets[1:])
    return np.concatenate([res for res, _ in parts]), offsets


def _block(boards, dice, n_threads, rows_per, reuse=None):
    """Results of one block: one parallel pass, then a pass for positions that did not fit
    (the results in ``reuse``'s thread array when they all fit at once)."""
    n = boards.shape[0]
    if n == 0:
        return np.empty((0, BOARD_SIZE), BOARD_DTYPE), np.zeros(1, np.int64)
    lo, hi = _chunk_bounds(n, min(n, n_threads * _CHUNKS_PER_THREAD))
    cap = (hi - lo) * rows_per + MAX_RESULTS
    region_hi = np.cumsum(cap)
    region_lo = region_hi - cap
    start = np.zeros(n, np.int64)
    count = np.zeros(n, np.int64)
    done = np.zeros(lo.size, np.int64)
    first_pass = rows_per == _ROWS_PER_POSITION
    buf = (_SCRATCH.rows(int(region_hi[-1])) if first_pass
           else np.empty((int(region_hi[-1]), BOARD_SIZE), BOARD_DTYPE))
    run_spans(lambda c0, c1: _mg.legal_moves_chunks(boards, dice, lo, hi, region_lo,
                                                    region_hi, buf, start, count, done,
                                                    c0, c1),
              lo.size, n_threads, tasks_per_thread=_CHUNKS_PER_THREAD, min_span=1)
    used = np.add.reduceat(count, lo)
    parts = [buf[r:r + u] for r, u in zip(region_lo, used)]
    complete = np.array_equal(done, hi - lo)
    if complete and reuse is not None:
        rows = np.concatenate(parts, out=thread_array(reuse, (int(used.sum()), BOARD_SIZE),
                                                      BOARD_DTYPE))
    else:
        rows = np.concatenate(parts)
    if complete:
        offsets = np.zeros(n + 1, np.int64)
        np.cumsum(count, out=offsets[1:])
        return rows, offsets
    # Some chunks ran out of room: run their remaining positions again with more, then
    # merge both passes in position order.
    chunk_of = np.repeat(np.arange(lo.size), hi - lo)
    finished = np.arange(n) - lo[chunk_of] < done[chunk_of]
    rest = np.flatnonzero(~finished)
    rest_rows, rest_off = _block(np.ascontiguousarray(boards[rest]),
                                 np.ascontiguousarray(dice[rest]), n_threads, rows_per * 8)
    count[rest] = np.diff(rest_off)
    offsets = np.zeros(n + 1, np.int64)
    np.cumsum(count, out=offsets[1:])
    out = np.empty((int(offsets[-1]), BOARD_SIZE), BOARD_DTYPE)
    done_pos = np.flatnonzero(finished)
    row_in_rows = np.zeros(n, np.int64)
    row_in_rows[done_pos] = np.cumsum(count[done_pos]) - count[done_pos]
    _mg.gather_rows(rows, row_in_rows, count, done_pos, out, offsets)
    _mg.gather_rows(rest_rows, rest_off[:-1], np.diff(rest_off), np.arange(rest.size),
                    out, offsets[rest])
    return out, offsets
