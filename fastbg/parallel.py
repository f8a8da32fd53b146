"""Thread-count control for the numba kernels."""
from contextlib import contextmanager

import numba

from fastbg.validation import check_int


def resolve_threads(threads):
    """Return a valid thread count: ``None`` means the current count (see :func:`threads`)."""
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
