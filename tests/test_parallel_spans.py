"""fastbg.parallel.run_spans: every unit in exactly one span, equal or guided spans."""
import threading

import numba
import pytest

from fastbg.parallel import _guided_bounds, run_spans

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
