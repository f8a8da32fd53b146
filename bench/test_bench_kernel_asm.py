"""bench/kernel_asm.py: its instruction forms and the counting over compiled kernels."""
import numpy as np
import pytest
from numba import njit

from bench import kernel_asm

# lines as numba's inspect_asm writes them (AT&T syntax: source first, destination last)
MEMORY = ["\tvpcompressq\t%zmm1, (%rdi) {%k1}", "\tvpcompressq\t%zmm0, -64(%rsp,%rax,8) {%k2}",
          "\tvpcompressd\t%ymm3, 0x20(%rcx) {%k1}"]
REGISTER = ["\tvpcompressq\t%zmm1, %zmm0 {%k1} {z}", "\tvpcompressd\t%ymm2, %ymm5 {%k3}"]
GATHER = ["\tvgatherdps\t(%rax,%ymm1,4), %ymm0 {%k1}", "\tvpgatherqq\t(%rdi,%zmm2,8), %zmm3 {%k1}"]


@pytest.mark.parametrize("line,form", [(x, "compress to memory") for x in MEMORY]
                         + [(x, "compress to register") for x in REGISTER]
                         + [(x, "gather") for x in GATHER])
def test_each_form_matches_its_lines_only(line, form):
    counts = kernel_asm.count_forms(line, kernel_asm.FORMS)
    assert counts == {k: int(k == form) for k in kernel_asm.FORMS}


def test_a_compiled_kernel_is_counted_under_its_name():
    """The counts come from the kernel's own emitted code: a kernel with a division of
    doubles holds one, one without holds none, and each is listed under its module and
    name."""
    @njit
    def halve(x, y):
        return x / y

    @njit
    def add(x, y):
        return x + y

    assert halve(np.float64(3.0), np.float64(7.0)) == 3.0 / 7.0
    assert add(np.float64(1.0), np.float64(2.0)) == 3.0
    forms = {"divide": r"\bv?divsd\b"}
    counts = kernel_asm.kernel_counts(forms, prefix=__name__)
    mine = {k.rsplit(".", 1)[-1]: v for k, v in counts.items()}
    assert mine["halve"]["divide"] >= 1
    assert mine["add"]["divide"] == 0


def test_a_bad_form_is_refused():
    with pytest.raises(SystemExit, match="NAME=REGEX"):
        kernel_asm.main(["--form", "no-regex"])
    with pytest.raises(SystemExit, match="not a regular expression"):
        kernel_asm.main(["--form", "bad=(["])
