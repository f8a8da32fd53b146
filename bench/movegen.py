"""Side-by-side move-generation benchmark: fastbg against GNU Backgammon, in one run.

Workload: the perft set of bench/workloads.py (fastbg.position.perft's 2,000 positions x
21 rolls = 42,000 pairs, 667,603 results). Contestants: fastbg.legal_moves_batch on 1
thread, on 2 threads (when numba has them), and gnubg_nn.moves (GNU Backgammon's C
generator) called once per pair (when gnubg_nn is installed). Every contestant is warmed
up and checked against the perft total first. Each repetition then times every
contestant once, in an order rotated from one repetition to the next, so machine noise
hits all of them alike; a measurement repeats the workload enough times to last about
--min-time seconds, with the garbage collector off (as timeit does). The table gives the
median pairs/s of each and its ratio to gnubg.

It also times importing fastbg and a first call of each move API in a fresh interpreter,
twice: the first run may compile and fill numba's cache, the second shows the cached cost
(target: under 2 s).

    python -m bench.movegen --repeat 7 --json movegen.json
    python -m bench.movegen --quick                # smoke run, a few seconds
"""
import argparse
import os
import subprocess
import sys

import numba

from bench import harness, workloads

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOAD_COST_CODE = (
    "import time; t=time.perf_counter(); import fastbg, numpy as np; "
    "fastbg.legal_moves_batch(np.stack([fastbg.START]), [(3,1)]); "
    "fastbg.legal_moves(fastbg.START,(6,6)); print(time.perf_counter()-t)")
LOAD_COST_TARGET_S = 2.0
PEER = "gnubg_nn.moves"


def contestants(w):
    """name -> (function of no arguments, check of its result)."""
    def fastbg_on(threads):
        return (lambda: workloads.run_fastbg(w, threads)), workloads.perft_ok

    out = {"fastbg 1 thread": fastbg_on(1)}
    if numba.config.NUMBA_NUM_THREADS >= 2:
        out["fastbg 2 threads"] = fastbg_on(2)
    if w.gnubg_boards is not None:
        out[PEER] = (lambda: workloads.run_gnubg(w),
                     lambda total: total == workloads.PERFT_TOTAL)
    return out


def load_cost(runs=2):
    """Seconds to import fastbg and make a first call of each move API, in fresh interpreters."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([ROOT] + [p for p in [env.get("PYTHONPATH")] if p])
    out = []
    for _ in range(runs):
        proc = subprocess.run([sys.executable, "-c", LOAD_COST_CODE], cwd=ROOT, env=env,
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"load-cost subprocess failed:\n{proc.stderr}")
        out.append(float(proc.stdout.strip().splitlines()[-1]))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=7,
                    help="timed repetitions of every contestant (default 7); the median is "
                         "reported")
    ap.add_argument("--min-time", type=float, default=0.2,
                    help="seconds one measurement lasts at least (default 0.2)")
    ap.add_argument("--quick", action="store_true",
                    help="smoke-size run: --repeat 2 --min-time 0.01 (noisy figures)")
    ap.add_argument("--json", metavar="PATH", help="also write the figures to PATH as JSON")
    args = ap.parse_args(argv)
    if args.quick:
        args.repeat, args.min_time = 2, 0.01
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")

    info = harness.machine("gnubg-nn")
    harness.print_machine(info, "fastbg move generation: perft workload "
                                f"({workloads.N_PAIRS:,} pairs = 2,000 positions x 21 rolls)")

    costs = load_cost()
    ok = "ok" if costs[1] < LOAD_COST_TARGET_S else "OVER TARGET"
    print(f"import + first calls, fresh process: first {costs[0]:.2f} s, "
          f"second (cached) {costs[1]:.2f} s  [target < {LOAD_COST_TARGET_S:.0f} s: {ok}]")

    workloads.warm_up_moves()
    print(f"numba threading layer: {harness.note_threading_layer(info)}")
    w = workloads.load_perft()
    runs = contestants(w)
    if "fastbg 2 threads" not in runs:
        print("fastbg 2 threads: skipped, numba has 1 thread (set NUMBA_NUM_THREADS=2)")
    if PEER not in runs:
        print(f"{PEER}: skipped, gnubg_nn is not installed "
              "(pip install 'gnubg-nn>=1.1.0a11'); no ratios")

    # Warm up and check each contestant, then size its measurements.
    loops = {}
    for name, (fn, check) in runs.items():
        if not check(fn()):
            raise SystemExit(f"{name}: wrong result on the perft workload")
        loops[name] = harness.loops_for(harness.measure(fn), args.min_time)

    samples = harness.interleaved(
        {name: (lambda rep, fn=fn, name=name: w.n_pairs / harness.measure(fn, loops[name]))
         for name, (fn, _check) in runs.items()}, args.repeat)
    median = harness.medians(samples)
    peer = median.get(PEER)
    print(f"\nmedian of {args.repeat} interleaved repetitions (min .. max in brackets)")
    print(f"{'contestant':<18} {'pairs/s':>10}  {'range':<24} {'vs gnubg':>8}")
    for name in runs:
        ratio = f"{median[name] / peer:7.2f}x" if peer else "     n/a"
        print(f"{name:<18} {harness.fmt_rate(median[name]):>10}  "
              f"{harness.spread(samples[name]):<24} {ratio:>8}")
    if "fastbg 2 threads" in median:
        print(f"2 threads / 1 thread: "
              f"{median['fastbg 2 threads'] / median['fastbg 1 thread']:.2f}x")

    harness.finish(info, args.json, {
        "options": vars(args),
        "workload": {"pairs": w.n_pairs, "results": workloads.PERFT_TOTAL},
        "loops": loops,
        "pairs_per_s": samples,
        "median_pairs_per_s": median,
        "ratio_vs_gnubg": {n: median[n] / peer for n in runs} if peer else None,
        "load_cost_s": {"first": costs[0], "second": costs[1], "target": LOAD_COST_TARGET_S},
    })


if __name__ == "__main__":
    main()
