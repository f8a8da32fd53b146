"""The numba options of fastbg's kernels, in one place.

``HOT``: kernels that allocate nothing and run per position or per ply. They are compiled
without numba's reference counting (``_nrt=False``): every array a compiled function
receives or slices is otherwise counted with atomic increments and decrements, and on the
gnubg evaluation path that cost more than the network itself (scoring one candidate:
2.31 -> 0.99 us; sixteen: 15.4 -> 10.9 us, measured on one thread). Such a function may
not create arrays (``np.zeros``...): numba refuses to compile one that does. The option is
numba's own (``_nrt``, present since numba 0.20); if a numba without it is installed the
kernels fall back to reference counting (slower, same results).

``COLD``: everything else (``cache=True``).
"""
from numba.core import cpu as _cpu

COLD = {"cache": True}
_HAS_NRT_OPTION = "_nrt" in getattr(_cpu.CPUTargetOptions, "__dict__", {}) or hasattr(
    _cpu.CPUTargetOptions, "_nrt")
HOT = {"cache": True, "_nrt": False} if _HAS_NRT_OPTION else dict(COLD)
