"""Instruction forms in the compiled kernels: how often each kernel holds a chosen form.

Some instructions are fast on one CPU and microcoded on another: AVX-512's ``vpcompressq``
with a memory destination costs 20 ns a call on AMD Zen 4 against about 1 ns for the
register form and a plain store (``fastbg/evaluators/cpu_variants.py``); gathers and
scatters are slow on Zen. This script runs the engine's workloads once (a 0-ply batch, a
1-ply and a 2-ply search, 1-ply hints) in a fresh, temporary kernel cache, so that every
kernel they use is compiled here for this machine's CPU, then counts each form in the
assembly numba emitted for every fastbg kernel (``inspect_asm``). A kernel compiled into
another (``forceinline``) is counted in its holder. Name the CPU (``lscpu``; numba's CPU
name is printed) with the counts: the code is chosen by the CPU's features.

    python -m bench.kernel_asm
    python -m bench.kernel_asm --form 'divide=\\bv?div[sp][sd]\\b' --json asm.json
"""
import argparse
import gc
import json
import re
import sys

from bench.profile import _fresh_cache, _runner

# name -> regular expression over numba's AT&T-syntax assembly (source, destination)
FORMS = {
    "compress to memory": r"\bvpcompress[qd]\s+%[xyz]mm\d+,\s*[-\w]*\(",
    "compress to register": r"\bvpcompress[qd]\s+%[xyz]mm\d+,\s*%[xyz]mm\d+",
    "gather": r"\bv(?:p?gather|gatherpf)\w+",
    "scatter": r"\bv(?:p?scatter|scatterpf)\w+",
}


def count_forms(asm, forms):
    """{form name: occurrences in the assembly text ``asm``}."""
    return {name: len(re.findall(rx, asm)) for name, rx in forms.items()}


def kernel_counts(forms, prefix="fastbg"):
    """{kernel's qualified name: {form: count}} summed over every compiled overload of each
    numba kernel in this process whose module starts with ``prefix``."""
    from numba.core.registry import CPUDispatcher
    out = {}
    for obj in gc.get_objects():
        # by the type itself: isinstance() of a dead weak proxy in the heap raises
        if not issubclass(type(obj), CPUDispatcher):
            continue
        module = getattr(obj.py_func, "__module__", "") or ""
        if not module.startswith(prefix):
            continue
        name = f"{module}.{obj.py_func.__qualname__}"
        row = out.setdefault(name, dict.fromkeys(forms, 0))
        for sig in list(obj.signatures):
            for k, v in count_forms(obj.inspect_asm(sig), forms).items():
                row[k] += v
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--form", action="append", default=[], metavar="NAME=REGEX",
                    help="count this form too (a regular expression over the AT&T-syntax "
                         "assembly); repeatable")
    ap.add_argument("--all", action="store_true",
                    help="list every kernel, also those holding none of the forms")
    ap.add_argument("--json", metavar="PATH", help="also write the counts to PATH as JSON")
    args = ap.parse_args(argv)
    forms = dict(FORMS)
    for f in args.form:
        name, sep, rx = f.partition("=")
        if not sep or not name or not rx:
            sys.exit(f"--form takes NAME=REGEX, not {f!r}")
        try:
            re.compile(rx)
        except re.error as e:
            sys.exit(f"--form {name}: not a regular expression: {e}")
        forms[name] = rx
    _fresh_cache()
    import llvmlite.binding as llvm
    for workload in ("0ply", "1ply", "2ply", "hints"):
        warm, _ = _runner(workload, 1)
        warm()
    counts = kernel_counts(forms)
    print(f"kernels compiled for {llvm.get_host_cpu_name()} after a 0-ply, 1-ply, 2-ply and "
          f"hint call; {len(counts)} fastbg kernels")
    width = max(len(n) for n in forms)
    print(f"{'kernel':60s} " + " ".join(f"{n:>{width}s}" for n in forms))
    totals = dict.fromkeys(forms, 0)
    for name, row in sorted(counts.items()):
        for k, v in row.items():
            totals[k] += v
        if args.all or any(row.values()):
            print(f"{name[-60:]:60s} " + " ".join(f"{row[n]:>{width}d}" for n in forms))
    print(f"{'all kernels':60s} " + " ".join(f"{totals[n]:>{width}d}" for n in forms))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"cpu": llvm.get_host_cpu_name(), "forms": forms, "kernels": counts,
                       "totals": totals}, f, indent=1)
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
