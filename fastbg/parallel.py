"""Thread-count control for the numba kernels, spans of work on Python threads, and the
per-thread scratch of the kernels those threads run."""
import itertools
import math
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import numba
import numpy as np

from fastbg.validation import check_int


_task_threads = None        # inside task_threads(): the CPUs of the cluster task running here


def resolve_threads(threads):
    """Return a valid thread count: ``None`` means the current count (see :func:`threads`).

    Inside :func:`task_threads` (a chunk computed as a cluster task) every request gets the
    task's CPUs instead: the job asked for the driver's threads, the task owns its own.
    Inside :func:`this_thread_alone` every request of that thread gets 1.
    """
    alone = getattr(_LOCAL, "alone", None)
    if alone is not None:
        return alone
    if _task_threads is not None:
        return _task_threads
    if threads is None:
        return numba.get_num_threads()
    threads = check_int("threads", threads, 1, none=True)
    if threads > numba.config.NUMBA_NUM_THREADS:
        raise ValueError(
            f"threads={threads} exceeds the {numba.config.NUMBA_NUM_THREADS} threads numba was "
            "started with (set NUMBA_NUM_THREADS before importing fastbg to raise it)")
    return threads


@contextmanager
def threads(n=None):
    """Run the kernels inside the ``with`` block on ``n`` threads, restoring the old count after.

    ``None`` means every thread numba was started with.

    >>> import fastbg
    >>> with fastbg.threads(1):
    ...     pass
    """
    n = resolve_threads(numba.config.NUMBA_NUM_THREADS if n is None else n)
    old = numba.get_num_threads()
    numba.set_num_threads(n)
    try:
        yield n
    finally:
        numba.set_num_threads(old)


@contextmanager
def task_threads(n):
    """Run the block as a cluster task on ``n`` CPUs (:mod:`fastbg.distributed`): numba runs
    on ``n`` threads (at most the threads numba was started with), and every thread count
    the computation asks for (``threads=``, :func:`threads`, a job's setup) resolves to it.
    Thread counts change no result, so a chunk gives the same bits as on the driver."""
    global _task_threads
    n = max(1, min(int(n), numba.config.NUMBA_NUM_THREADS))
    old, old_count = _task_threads, numba.get_num_threads()
    _task_threads = n
    numba.set_num_threads(n)
    try:
        yield n
    finally:
        _task_threads = old
        numba.set_num_threads(old_count)


_LOCAL = threading.local()


@contextmanager
def this_thread_alone():
    """Run the block on the calling thread alone: every thread count it asks for
    (``threads=``, :func:`run_spans`, numba's) resolves to 1 on this thread, whatever the
    other threads do (a part of a job that other threads run side by side with it)."""
    old, old_count = getattr(_LOCAL, "alone", None), numba.get_num_threads()
    _LOCAL.alone = 1
    numba.set_num_threads(1)        # numba's count is the calling thread's own
    try:
        yield
    finally:
        _LOCAL.alone = old
        numba.set_num_threads(old_count)


def threadsafe_layer():
    """True when numba's parallel kernels may be launched from two threads at once: its
    threading layer is TBB or OpenMP (the default picks them first when they load), not
    the workqueue, which is not thread-safe."""
    try:
        return numba.threading_layer() != "workqueue"
    except ValueError:              # no parallel kernel has run yet: which one would?
        pass
    layer = str(numba.config.THREADING_LAYER).lower()
    if layer == "workqueue":
        return False
    for name in ("tbbpool", "omppool"):
        try:
            __import__(f"numba.np.ufunc.{name}")
            return True
        except (ImportError, OSError):      # the layer's library is not installed
            continue
    return False


# The most bytes :func:`thread_array` keeps for one key and thread; a larger array is
# made fresh for its call (its own work then dwarfs its page faults).
THREAD_ARRAY_MAX_BYTES = 1 << 25


def thread_array(key, shape, dtype):
    """An array of ``shape`` and ``dtype`` for this thread's use until its next call with
    ``key``, kept between calls (contents undefined; grown by half again when too small).

    Why: a level of the n-ply search made its half-megabyte arrays fresh, span after span,
    and each page of a fresh array costs a page fault at its first write (the allocator
    hands large arrays back to the system when freed): 7.7% of a one-thread 1-ply search's
    time in the kernel, measured on an AMD EPYC (Zen 4). Arrays above
    THREAD_ARRAY_MAX_BYTES are made fresh each call and not kept."""
    dtype = np.dtype(dtype)
    # plain Python arithmetic: np.prod and np.ndim of a shape cost 9 and 3 us (math.prod
    # 0.2 us), under the GIL, six calls a span of the n-ply search's levels
    shape = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(n) for n in shape)
    need = math.prod(shape) * dtype.itemsize
    if need > THREAD_ARRAY_MAX_BYTES:
        return np.empty(shape, dtype)
    name = "array_" + key
    buf = getattr(_LOCAL, name, None)
    if buf is None or buf.size < need:
        grown = 0 if buf is None else min(THREAD_ARRAY_MAX_BYTES, buf.size * 3 // 2)
        buf = np.empty(max(need, grown, 64), np.uint8)
        setattr(_LOCAL, name, buf)
    return buf[:need].view(dtype).reshape(shape)


def set_thread_scratch(key, value):
    """Replace this thread's scratch called ``key`` (:func:`thread_scratch`) by ``value``."""
    setattr(_LOCAL, key, value)


def thread_scratch(key, make):
    """This thread's scratch called ``key``, made by ``make()`` on the thread's first call
    (the kernels that :func:`run_spans` runs take a scratch of their thread's own)."""
    scr = getattr(_LOCAL, key, None)
    if scr is None:
        scr = make()
        setattr(_LOCAL, key, scr)
    return scr


def _guided_bounds(n, threads, min_span, max_span):
    """Bounds of guided spans over 0 .. n - 1 (:func:`run_spans`)."""
    bounds = [0]
    while bounds[-1] < n:
        left = n - bounds[-1]
        size = min(max_span, max(min_span, left // (2 * threads)))
        bounds.append(bounds[-1] + min(left, size))
    return bounds


_POOLS = {}


def _pool(n):
    """A thread pool of ``n`` workers, made once per size and kept for the process."""
    pool = _POOLS.get(n)
    if pool is None:
        pool = _POOLS[n] = ThreadPoolExecutor(n, thread_name_prefix="fastbg")
    return pool


def run_spans(work, n, threads, tasks_per_thread=4, min_span=256, guided=False, max_span=None):
    """Run ``work(lo, hi)`` over spans covering ``0 .. n - 1`` on ``threads`` threads (the
    calling one and ``threads - 1`` of a pool).

    ``work`` calls a ``nogil`` numba kernel. This is how the gnubg networks run in parallel:
    a kernel with a ``prange`` loop costs numba a second compilation of everything it
    calls (the loop body becomes a function of its own, compiled and linked into the
    kernel: about 11 s of a fresh start for the networks, measured), a thread pool a few
    microseconds a span. Spans hold at least ``min_span`` units; an exception in a span
    (or Ctrl-C) stops the claiming of new spans and is raised here once the spans under
    way have stopped.

    ``guided``: spans of decreasing size instead of equal ones (each a share
    1 / (2 threads) of the units left, at least ``min_span`` and at most ``max_span``;
    ``tasks_per_thread`` is not used), for units of uneven cost where each span costs a
    fixed overhead too: few spans, and the last ones small, so that the threads finish
    together.
    """
    threads = resolve_threads(threads)      # a cluster task's CPUs inside task_threads()
    if guided:
        bounds = _guided_bounds(n, threads, min_span, max_span or n)
    else:
        spans = max(1, min(threads * tasks_per_thread, n // min_span))
        bounds = [n * i // spans for i in range(spans + 1)]
    spans = len(bounds) - 1
    if spans == 1 or threads == 1:
        work(0, n)
        return
    claim = itertools.count()           # next() is atomic under the GIL: spans are shared out
    failed = []                         # set once a span raised (or Ctrl-C): claim no more

    def worker():
        try:
            for i in claim:
                if i >= spans or failed:
                    return
                work(bounds[i], bounds[i + 1])
        except BaseException:
            failed.append(True)
            raise

    pool = _pool(threads - 1)
    futures = [pool.submit(worker) for _ in range(min(threads - 1, spans - 1))]
    try:
        worker()
    finally:
        for f in futures:
            f.exception()           # wait for the spans under way before anything is raised
    for f in futures:
        f.result()
