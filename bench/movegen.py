#!/usr/bin/env python3
"""Side-by-side move-generation benchmark: fastbg against GNU Backgammon, in one run.

Workload: the perft set of bench/workloads.py (2,000 positions x 21 rolls = 42,000 pairs).
Contestants: fastbg.legal_moves_batch on 1 thread, on 2 threads (when numba has them), and
gnubg_nn.moves called once per pair (when gnubg_nn is installed). Every contestant is
warmed up and checked against the perft total first. Each repetition then times every
contestant once, in an order rotated from one repetition to the next, so machine noise
hits all of them alike; a measurement repeats the workload enough times to last about
--min-time seconds, with the garbage collector off (as timeit does). The table gives the
median pairs/s of each and its ratio to gnubg.

It also times importing fastbg and a first call of each move API in a fresh interpreter,
twice: the first run may compile and fill numba's cache, the second shows the cached cost
(target: under 2 s).

    PYTHONPATH=. python3 scripts/bench_movegen.py --repeat 7 --json bench.json
"""
import argparse
import gc
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [ROOT, os.path.join(ROOT, "bench")]

import numba  # noqa: E402
import numpy as np  # noqa: E402

import workloads  # noqa: E402

LOAD_COST_CODE = (
    "import time; t=time.perf_counter(); import fastbg, numpy as np; "
    "fastbg.legal_moves_batch(np.stack([fastbg.START]), [(3,1)]); "
    "fastbg.legal_moves(fastbg.START,(6,6)); print(time.perf_counter()-t)")
LOAD_COST_TARGET_S = 2.0


def header():
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    info = {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "cpus_usable": usable,
        "numba": numba.__version__,
        "numba_threads": numba.config.NUMBA_NUM_THREADS,
        "numba_threading_layer": None,
        "numpy": np.__version__,
        "gnubg_nn": None,
    }
    if workloads.have_gnubg():
        from importlib.metadata import PackageNotFoundError, version
        try:
            info["gnubg_nn"] = version("gnubg-nn")
        except PackageNotFoundError:
            info["gnubg_nn"] = "installed (version unknown)"
    return info


def contestants(w):
    """name -> (function of no arguments, check of its result)."""
    def fastbg_on(threads):
        def run():
            return workloads.run_fastbg(w, threads)

        def check(out):
            results, offsets = out
            return len(results) == offsets[-1] == workloads.PERFT_TOTAL
        return run, check

    out = {"fastbg 1 thread": fastbg_on(1)}
    if numba.config.NUMBA_NUM_THREADS >= 2:
        out["fastbg 2 threads"] = fastbg_on(2)
    if w.gnubg_boards is not None:
        out["gnubg_nn.moves"] = (lambda: workloads.run_gnubg(w),
                                 lambda total: total == workloads.PERFT_TOTAL)
    return out


def measure(fn, loops):
    """Seconds per call of ``fn`` over ``loops`` calls, garbage collector off."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        t = time.perf_counter()
        for _ in range(loops):
            fn()
        return (time.perf_counter() - t) / loops
    finally:
        if was_enabled:
            gc.enable()


def load_cost():
    """Seconds to import fastbg and make a first call of each move API, in fresh interpreters."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([ROOT] + [p for p in [env.get("PYTHONPATH")] if p])
    out = []
    for _ in range(2):
        proc = subprocess.run([sys.executable, "-c", LOAD_COST_CODE], cwd=ROOT, env=env,
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"load-cost subprocess failed:\n{proc.stderr}")
        out.append(float(proc.stdout.strip().splitlines()[-1]))
    return out


def fmt_rate(r):
    return f"{r / 1e6:8.3f} M" if r >= 1e6 else f"{r / 1e3:8.1f} k"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=7,
                    help="timed repetitions of every contestant (default 7); the median is "
                         "reported")
    ap.add_argument("--min-time", type=float, default=0.2,
                    help="seconds one measurement lasts at least (default 0.2)")
    ap.add_argument("--json", metavar="PATH", help="also write the figures to PATH as JSON")
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")

    info = header()
    print("fastbg move generation: perft workload "
          f"({workloads.N_PAIRS:,} pairs = 2,000 positions x 21 rolls)")
    print(f"python {info['python']} on {info['platform']}")
    print(f"CPUs: {info['cpu_count']} ({info['cpus_usable']} usable); numba {info['numba']} "
          f"(threads: {info['numba_threads']}); numpy {info['numpy']}; "
          f"gnubg_nn {info['gnubg_nn'] or 'not installed'}")

    costs = load_cost()
    ok = "ok" if costs[1] < LOAD_COST_TARGET_S else "OVER TARGET"
    print(f"import + first calls, fresh process: first {costs[0]:.2f} s, "
          f"second (cached) {costs[1]:.2f} s  [target < {LOAD_COST_TARGET_S:.0f} s: {ok}]")

    workloads.warm_up()
    info["numba_threading_layer"] = numba.threading_layer()
    print(f"numba threading layer: {info['numba_threading_layer']}")
    w = workloads.load_perft()
    runs = contestants(w)
    if "fastbg 2 threads" not in runs:
        print("fastbg 2 threads: skipped, numba has 1 thread (set NUMBA_NUM_THREADS=2)")
    if "gnubg_nn.moves" not in runs:
        print("gnubg_nn.moves: skipped, gnubg_nn is not installed "
              "(pip install 'gnubg-nn>=1.1.0a11'); no ratios")

    # Warm up and check each contestant, then size its measurements.
    loops = {}
    for name, (fn, check) in runs.items():
        if not check(fn()):
            raise SystemExit(f"{name}: wrong result on the perft workload")
        loops[name] = max(1, math.ceil(args.min_time / measure(fn, 1)))

    names = list(runs)
    samples = {name: [] for name in names}
    for rep in range(args.repeat):
        k = rep % len(names)
        for name in names[k:] + names[:k]:
            samples[name].append(w.n_pairs / measure(runs[name][0], loops[name]))

    median = {name: statistics.median(s) for name, s in samples.items()}
    peer = median.get("gnubg_nn.moves")
    print(f"\nmedian of {args.repeat} interleaved repetitions (min .. max in brackets)")
    print(f"{'contestant':<18} {'pairs/s':>10}  {'range':<24} {'vs gnubg':>8}")
    for name in names:
        ratio = f"{median[name] / peer:7.2f}x" if peer else "     n/a"
        lo, hi = (fmt_rate(f(samples[name])).strip() for f in (min, max))
        spread = f"[{lo} .. {hi}]"
        print(f"{name:<18} {fmt_rate(median[name])}  {spread:<24} {ratio:>8}")
    if "fastbg 2 threads" in median:
        print(f"2 threads / 1 thread: "
              f"{median['fastbg 2 threads'] / median['fastbg 1 thread']:.2f}x")

    if args.json:
        report = {
            "machine": info,
            "workload": {"pairs": w.n_pairs, "results": workloads.PERFT_TOTAL},
            "repeat": args.repeat,
            "loops": loops,
            "pairs_per_s": samples,
            "median_pairs_per_s": median,
            "ratio_vs_gnubg": {n: median[n] / peer for n in names} if peer else None,
            "load_cost_s": {"first": costs[0], "second": costs[1],
                            "target": LOAD_COST_TARGET_S},
        }
        with open(args.json, "w") as f:
            json.dump(report, f, indent=2)
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
