"""The numba options of fastbg's kernels, in one place.

``HOT``: kernels that allocate nothing and run per position or per ply. They are compiled
without numba's reference counting (``_nrt=False``, a numba option present since 0.20):
every array a compiled function receives or slices is otherwise counted with atomic
increments and decrements, and on the gnubg evaluation path that cost more than the network
itself (scoring one candidate: 2.31 -> 0.99 us; sixteen: 15.4 -> 10.9 us, measured on one
thread). Such a function may not create arrays (``np.zeros``...): numba refuses to compile
one that does; and it must not return one (tests/test_jit.py checks).

``COLD``: everything else (``cache=True``).
"""
COLD = {"cache": True}
HOT = {"cache": True, "_nrt": False}
