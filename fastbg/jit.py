"""The numba options of fastbg's kernels, in one place.

``HOT``: kernels that allocate nothing and run per position or per ply. They are compiled
without numba's reference counting (``_nrt=False``, a numba option present since 0.20):
every array a compiled function receives or slices is otherwise counted with atomic
increments and decrements, and on the gnubg evaluation path that cost more than the network
itself (scoring one candidate: 2.31 -> 0.99 us; sixteen: 15.4 -> 10.9 us, measured on one
thread). Such a function may not create arrays (``np.zeros``...): numba refuses to compile
one that does; and it must not return one (tests/test_jit.py checks).

``INNER``: a ``HOT`` kernel that only other kernels call (the private ``_name`` ones):
numba then builds no CPython wrapper for it (``no_cpython_wrapper=True``), code that was
lowered, optimised and compiled for every such kernel and never used. On the networks'
first call from a fresh cache: 22-24 s -> 18.6-19.4 s (28 kernels, measured on a 2-core
AMD EPYC). Calling one from Python raises numba's error.

``INLINED`` (and ``HOT_INLINED``, its form with a CPython wrapper): an ``INNER``
(``HOT``) kernel whose code LLVM copies into every kernel that calls it
(``forceinline=True``), for the parts of the networks' batch kernel
(:func:`fastbg.evaluators.net_kernels.evaluate_rows`): the features, the pip loss, the
hidden sums, the output sums, the flush. Each kernel's code otherwise gets a section of
its own, starting on a page boundary: the batch kernel's nine hot parts all began at the
same few hundred bytes of a page, more than the 8 ways of a first-level instruction cache
set, and its speed moved by 10-25% with where its parts happened to land (measured on an
AMD EPYC Zen 3 with two copies of the same tree in one process). As one stretch of code
the networks' workloads ran 5-8% faster (the same AMD host, ``bench.ab --same-process``,
both import orders) for about a second more of compiling on a first call.

``COLD``: everything else (``cache=True``).
"""
COLD = {"cache": True}
HOT = {"cache": True, "_nrt": False}
INNER = dict(HOT, no_cpython_wrapper=True)
INLINED = dict(INNER, forceinline=True)
HOT_INLINED = dict(HOT, forceinline=True)
