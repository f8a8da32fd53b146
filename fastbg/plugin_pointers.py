"""Plug-ins as function pointers: one compiled kernel for every scorer, probability
plug-in and empty slot.

A :class:`fastbg.sim.plugin_bots.ScorerBot`'s ``@njit`` function passed to the game
kernels as it is has a numba type of its own: every new scorer compiled ``play_games``
and every kernel below it again (3-4 s for a small scorer on a 2-core AMD EPYC, Zen 3,
measured), once per process, and none of it could be cached on disk. Compiled on its own
as a C callback (``numba.cfunc``) of :data:`SCORER_SIG`, every scorer has one type, numba's
``FunctionType`` of that signature: the game kernels compile once for all of them and
load from the disk cache in the next process (a kernel taking such a field was loaded in
6 ms by a second process with another plug-in, measured); the scorer itself compiles in a
fraction of a second, once per process.

The pointer is made once per scorer and process (:func:`scorer_pointer`). It pickles as
the njit function it was made from and its signature (for Ray: a cluster worker compiles
its own), which ``copyreg`` registers for numba's C callback type on import.

A Janowski cube strategy's probability plug-in (:class:`fastbg.JanowskiCube`, a user's
``probs(board, out)`` or a net's :meth:`~fastbg.GnubgNet.probs_kernel`) travels the same
way (:func:`probs_pointer`, :data:`PROBS_SIG`): as a dispatcher its type was the
dispatcher object itself, so each plug-in, and each process, compiled the game, cube and
lock-step kernels again (a fresh run of the suite compiled ``play_one`` 16 times, 42 s
of one core, measured on the 2-core AMD EPYC, Zen 3).

An empty slot (a bot that is not a plug-in, a cube strategy that takes no probabilities)
holds a placeholder of the same type (:func:`no_scorer`, :func:`no_probs`), not None: a
None slot was a kernel type of its own, so the built-in bots, a scorer against a built-in
bot, two scorers, and each of those with and without a Janowski plug-in each compiled the
game kernels once more (the suite compiled ``play_one`` in 14 type variants). The
kernels call a slot only for a plug-in bot or a strategy that asks for probabilities; a
placeholder called by mistake writes NaN, which the game loop reports as a bot's error.
Lock-step games keep None there: their kernels are called every round, and numba types a
tuple holding a C callback in Python at each call (:func:`fastbg.sim.setup.job_setup`).
"""
import copyreg
import threading

import numpy as np
from numba import cfunc, types
from numba.core.ccallback import CFunc

from fastbg.journal import interrupts_held

# score(before int8[26], candidates int8[k, 26], out float64[k]): as the kernels call it
SCORER_SIG = types.void(types.int8[::1], types.int8[:, ::1], types.float64[::1])
# probs(board int8[26], out float64[5]): a Janowski strategy's cubeless probabilities
PROBS_SIG = types.void(types.int8[::1], types.float64[::1])

_POINTERS = {}              # (the plug-in's function, signature) -> its C callback
_LOCK = threading.Lock()


def scorer_pointer(score):
    """The C callback of the ``@njit`` scorer ``score`` (compiled on the first call for
    it in this process, then reused)."""
    return _pointer(score, SCORER_SIG)


def probs_pointer(probs):
    """The C callback of the ``@njit`` probability plug-in ``probs(board, out)`` (compiled
    on the first call for it in this process, then reused)."""
    return _pointer(probs, PROBS_SIG)


def no_scorer():
    """The placeholder of an empty scorer slot: a C callback of :data:`SCORER_SIG` that
    writes NaN scores (cached on disk: it reads no globals)."""
    return _placeholder(_no_scores, SCORER_SIG, no_scorer)


def no_probs():
    """The placeholder of an empty probability slot: a C callback of :data:`PROBS_SIG`
    that writes NaN probabilities (cached on disk: it reads no globals)."""
    return _placeholder(_no_probs, PROBS_SIG, no_probs)


def is_placeholder(ptr):
    """True for :func:`no_scorer` and :func:`no_probs` (an empty slot, not a plug-in)."""
    return getattr(ptr, "fastbg_placeholder", None) is not None


def call_holding_interrupts(kernel, *args):
    """``kernel(*args)`` for a kernel taking C callbacks (the plug-in slots of the game
    kernels' Bots and Cubes, the search's plug-in), with a Ctrl-C that arrives during the
    call held until it returns.

    Why: numba unboxes a C callback argument by calling Python (its signature is
    unpickled); a KeyboardInterrupt raised there is dropped, and the call fails with
    ``TypeError: _get_wrapper_address() missing 1 required positional argument: 'sig'``
    instead (numba 0.68: a Ctrl-C test of the demo failed so once). The kernel is compiled
    or loaded from the disk cache first, outside the hold, so a Ctrl-C during a compile
    still stops it at once; what is held is the unboxing and the kernel's own run, during
    which the main thread runs no Python signal handler anyway. Other threads take no
    signals: they call the kernel as it is."""
    if (threading.current_thread() is not threading.main_thread()
            or not hasattr(kernel, "compile")          # NUMBA_DISABLE_JIT: no unboxing
            or not any(_holds_callback(a) for a in args)):
        return kernel(*args)
    kernel.compile(tuple(kernel.typeof_pyval(a) for a in args))
    with interrupts_held():
        return kernel(*args)


def _holds_callback(arg):
    """True for a C callback, or a tuple (the kernels' named settings) holding one."""
    return isinstance(arg, CFunc) or (isinstance(arg, tuple)
                                      and any(isinstance(x, CFunc) for x in arg))


def _no_scores(before, candidates, out):
    for i in range(out.shape[0]):
        out[i] = np.nan


def _no_probs(board, out):
    for i in range(out.shape[0]):
        out[i] = np.nan


def _placeholder(py_func, sig, maker):
    return _once((py_func, sig), lambda: _compile_placeholder(py_func, sig, maker))


def _compile_placeholder(py_func, sig, maker):
    ptr = cfunc(sig, cache=True)(py_func)
    ptr.fastbg_placeholder = maker
    return ptr


def _pointer(fn, sig):
    return _once((fn, sig), lambda: _compile(fn, sig))


def _once(key, make):
    """The C callback kept under ``key``, made by ``make()`` the first time."""
    with _LOCK:
        ptr = _POINTERS.get(key)
        if ptr is None:
            ptr = _POINTERS[key] = make()
    return ptr


def _compile(fn, sig):
    """``numba.cfunc(sig)`` of the njit function ``fn``'s Python function, remembering
    ``fn`` for pickling. Not cached on disk: numba's cache key does not see the globals a
    function reads (a scorer's weights loaded at import, a net's arrays closed over), so a
    cached callback could score with last run's values."""
    ptr = cfunc(sig)(fn.py_func)
    ptr.fastbg_source = fn
    return ptr


def _reduce(ptr):
    """Pickle a C callback as the njit function it was made from (numba pickles those,
    by value where they are not importable) and its signature: unpickled, it is made once
    per process (a Ray worker running many tasks of one job compiles it once). A
    placeholder pickles as the function that makes it."""
    maker = getattr(ptr, "fastbg_placeholder", None)
    if maker is not None:
        return maker, ()
    source = getattr(ptr, "fastbg_source", None)
    if source is None:
        raise TypeError(f"cannot pickle {ptr!r}: a numba C callback that fastbg did not make "
                        "(pass the @njit function instead)")
    return _pointer, (source, ptr._sig)


copyreg.pickle(CFunc, _reduce)
