"""fastbg.parallel.run_spans: every unit in exactly one span, equal or guided spans."""
import threading

import numba
import pytest

import numpy as np

from fastbg import parallel
from fastbg.parallel import _guided_bounds, run_spans, thread_array

# two threads where numba has them (a one-thread run takes every span on the caller)
THREADS = min(2, numba.config.NUMBA_NUM_THREADS)


@pytest.mark.parametrize("n, threads, lo, hi", [(390, 2, 16, 40), (1370, 2, 16, 40),
                                                (64, 2, 16, 40), (1000, 4, 8, 1000),
                                                (17, 2, 16, 40)])
def test_guided_bounds_cover_once_and_shrink(n, threads, lo, hi):
    b = _guided_bounds(n, threads, lo, hi)
    sizes = [y - x for x, y in zip(b, b[1:])]
    assert b[0] == 0 and b[-1] == n and all(s > 0 for s in sizes)
    assert all(s <= hi for s in sizes)
    assert all(s >= lo for s in sizes[:-1])                 # only the last may be short
    assert sizes == sorted(sizes, reverse=True)             # the big ones first


@pytest.mark.parametrize("guided", [False, True])
def test_run_spans_does_every_unit_once(guided):
    n = 1000
    seen = [0] * n
    lock = threading.Lock()

    def work(lo, hi):
        with lock:
            for i in range(lo, hi):
                seen[i] += 1
    run_spans(work, n, THREADS, min_span=16, guided=guided, max_span=40)
    assert seen == [1] * n


def test_run_spans_raises_a_spans_error():
    def work(lo, hi):
        if lo <= 300 < hi:
            raise ValueError("span failed")
    with pytest.raises(ValueError, match="span failed"):
        run_spans(work, 500, THREADS, min_span=16, guided=True, max_span=40)


def test_thread_array_is_kept_per_key_and_thread():
    """A key's array is the same memory from call to call while it fits (grown when not),
    its own per key and per thread; one above the size kept is made fresh each time."""
    a = thread_array("t_a", (100, 26), np.int8)
    assert a.shape == (100, 26) and a.dtype == np.int8 and a.flags.c_contiguous
    a[:] = 7
    b = thread_array("t_a", (50, 26), np.int8)
    assert np.shares_memory(a, b) and (b == 7).all()
    f = thread_array("t_a", 10, np.float64)                # another type, the same bytes
    assert f.shape == (10,) and np.shares_memory(a, f)
    other = thread_array("t_b", (100, 26), np.int8)
    assert not np.shares_memory(a, other)
    big = thread_array("t_a", (1000, 26), np.int8)         # grown: new memory
    assert big.shape == (1000, 26) and not np.shares_memory(a, big)
    assert np.shares_memory(big, thread_array("t_a", (10, 26), np.int8))
    seen = []
    t = threading.Thread(target=lambda: seen.append(thread_array("t_a", (10, 26), np.int8)))
    t.start()
    t.join()
    assert not np.shares_memory(seen[0], big)
    n = parallel.THREAD_ARRAY_MAX_BYTES + 1
    one, two = thread_array("t_c", n, np.uint8), thread_array("t_c", n, np.uint8)
    assert one.size == n and not np.shares_memory(one, two)
