"""bench/profile.py's map of numba's JIT code (perf itself is not needed here)."""
import ctypes

import numpy as np
from numba import njit

from bench import profile


def test_the_map_names_a_freshly_compiled_kernel_at_its_code(tmp_path):
    """A kernel compiled in this process is in the map under its Python name, and the
    address the map gives is its machine code: called through ctypes it computes."""
    @njit
    def twice_plus_one(x):
        return 2 * x + 1

    assert twice_plus_one(np.int64(20)) == 41
    rows = profile.write_map(str(tmp_path / "perf.map"))
    mine = [r for r in rows if r[2].endswith("twice_plus_one")]
    assert mine, "the kernel is not in the map"
    start, size, name = mine[0]
    assert 0 < size <= profile.MAX_SIZE
    assert "test_the_map_names_a_freshly_compiled_kernel_at_its_code" in name
    text = (tmp_path / "perf.map").read_text().splitlines()
    assert f"{start:x} {size:x} {name}" in text
    # the starts are sorted and the sizes never run into the next function
    assert all(a[0] + a[1] <= b[0] for a, b in zip(rows, rows[1:]))
    cres = twice_plus_one.overloads[twice_plus_one.signatures[0]]
    assert ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int64)(
        cres.library.get_pointer_to_function(cres.fndesc.llvm_cfunc_wrapper_name))(5) == 11


def test_short_names():
    assert profile._short("_ZN6fastbg10evaluators4simd20hidden_sums_adds_128B2v1B38c8tJTIeFIjxB2IKSgI4CrvQClQZ6FczSBAA_3dE5ArrayIf") \
        == "fastbg.evaluators.simd.hidden_sums_adds_128"
    assert profile._short("NRT_decref") == "NRT_decref"


def test_dead_weak_proxies_in_the_heap_are_passed_over():
    """gc.get_objects() can hold weak proxies to dead objects (isinstance() of one
    raises ReferenceError): the map is still written."""
    import gc
    import weakref

    class Thing:
        pass

    t = Thing()
    proxy = weakref.proxy(t)
    del t
    gc.collect()
    assert any(type(o) is type(proxy) for o in gc.get_objects())
    profile.write_map("/dev/null")
