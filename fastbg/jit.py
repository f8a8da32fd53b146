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

``INLINED``: an ``INNER`` kernel whose code LLVM copies into every kernel that calls it
(``forceinline=True``): a side's features (``_half_from``) and its pip loss, compiled
into :func:`fastbg.evaluators.input_kernels.contact_features_from`; a race position's
add list and record, into the batch kernel (their arguments, a dozen arrays spread over
the stack word by word, cost more than their work: 27% of the batch kernel's own time
on race positions was pushes). Each kernel's code
otherwise gets a section of its own, starting on a page boundary, so the networks' batch
kernel's nine hot parts all began at the same few hundred bytes of a page (more than the
8 ways of a set of a first-level instruction cache), and two copies of the same tree in
one process ran 10-25% apart (AMD EPYC Zen 3). Every part compiled into the batch kernel
gained 5-8% on the networks' workloads but cost 12-14 s more compiling in a new user's
first ``fastbg demo`` (56 -> 70 s of numba's compile events): each kernel that holds the
batch kernel (the game kernels, the move scores) optimises it again. The features alone:
2-4% (``bench.ab --same-process``, both import orders), no compile time measured.

``COLD``: everything else (``cache=True``).
"""
COLD = {"cache": True}
HOT = {"cache": True, "_nrt": False}
INNER = dict(HOT, no_cpython_wrapper=True)
INLINED = dict(INNER, forceinline=True)
