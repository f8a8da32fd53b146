"""Scoring a benchmark set, side by side in one run: fastbg's gnubg 0-ply bot against
gnubg-nn's ``best_move`` on the same decisions.

Workload: every decision of the set shipped with fastbg (or ``--file``), read and checked
once; then each repetition times the choosing and scoring of all of them (what
:func:`fastbg.score_benchmark` does once the set is read): fastbg's "gnubg" bot (its
networks in fastbg's kernels, one lock-step round for all decisions, all threads), and
gnubg-nn's ``best_move(board, d1, d2, n=0)`` (one Python call per decision, one core),
each result looked up among the listed candidates by the same rule. Also timed: pubeval
and the 1-ply bot, for scale, and reading the set. Target (issue 31): the whole shipped set
scored by gnubg 0-ply in at most 1 s warm on 2 cores. The two must agree on every choice
(the script says how many differ).

    python -m bench.benchmark_scoring --repeat 5
    python -m bench.benchmark_scoring --quick
"""
import argparse
import sys
import time

import numpy as np

import fastbg
from bench import harness, workloads
from fastbg.benchmarks import read_benchmark
from fastbg.benchmarks.scoring import decision_arrays, decision_errors, shipped_set_path

QUICK = {"decisions": 200, "repeat": 1}


def fastbg_contestant(bset, bot, threads):
    def run(rep):
        s = fastbg.score_benchmark(bset, bot, threads=threads)
        return s.decisions / s.seconds, s
    return run


def gnubg_nn_choices(arrays):
    """The boards gnubg-nn's best_move plays in each decision (mover's view)."""
    import gnubg_nn
    from fastbg.evaluators.gnubg_nn import from_gnubg, to_gnubg_batch
    gbs = to_gnubg_batch(arrays.boards).tolist()
    out = np.zeros_like(arrays.boards)
    for i, (gb, (d1, d2)) in enumerate(zip(gbs, arrays.dice.tolist())):
        _, key = gnubg_nn.best_move(gb, d1, d2, 0, b=1)
        out[i] = from_gnubg(gnubg_nn.board_from_position_key(key))[::-1] * -1
    return out


def peer_contestant(arrays):
    def run(rep):
        t = time.perf_counter()
        chosen = gnubg_nn_choices(arrays)
        errors, _, _ = decision_errors(arrays, chosen)
        dt = time.perf_counter() - t
        return arrays.boards.shape[0] / dt, errors
    return run


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", default=None, help="a benchmark set (default: the shipped one)")
    ap.add_argument("--decisions", type=int, default=None,
                    help="score only the first N decisions (default: all)")
    ap.add_argument("--repeat", type=int, default=5, help="interleaved repetitions (5)")
    ap.add_argument("--threads", type=int, default=None, help="fastbg's threads (all)")
    args = harness.parse(ap, argv, QUICK)
    if not workloads.have_gnubg():
        print("gnubg-nn is not installed: nothing to measure (the gnubg bot needs its weights)")
        return 0
    info = harness.machine("gnubg-nn")
    harness.print_machine(info, "scoring a benchmark set: fastbg's gnubg 0-ply vs gnubg-nn")
    path = args.file or shipped_set_path()
    t = time.perf_counter()
    bset = read_benchmark(path)
    if args.decisions:
        bset.decisions = bset.decisions[:args.decisions]
    arrays = decision_arrays(bset)
    read_s = time.perf_counter() - t
    n = len(bset.decisions)
    print(f"set: {path}: {n:,} decisions, read and checked in {read_s:.2f} s")
    runs = {"fastbg gnubg 0-ply": fastbg_contestant(bset, "gnubg", args.threads),
            "gnubg-nn best_move": peer_contestant(arrays),
            "fastbg pubeval": fastbg_contestant(bset, "pubeval", args.threads),
            "fastbg gnubg-1ply": fastbg_contestant(bset, "gnubg-1ply", args.threads)}
    for name in ("fastbg gnubg 0-ply", "fastbg pubeval", "fastbg gnubg-1ply"):
        runs[name](0)                                                  # compile, warm
    samples, extra = harness.interleaved_with_estimates(runs, args.repeat)
    median = harness.medians(samples)
    ours, peer = extra["fastbg gnubg 0-ply"], extra["gnubg-nn best_move"]
    differ = int(np.sum(np.asarray(ours.errors) != peer))
    print(f"\nmedians of {args.repeat} interleaved repetitions")
    print(f"{'contestant':22} {'decisions/s':>12}  {'range':<24} {'set in s':>8} "
          f"{'mEMG':>7} {'vs gnubg-nn':>11}")
    rows = []
    for key, xs in samples.items():
        rate = median[key]
        err = (1000 * float(np.mean(peer)) if key == "gnubg-nn best_move"
               else extra[key].error_rate)
        ratio = rate / median["gnubg-nn best_move"]
        print(f"{key:22} {harness.fmt_rate(rate):>12}  {harness.spread(xs):<24} "
              f"{n / rate:8.3f} {err:7.2f} {ratio:10.1f}x")
        rows.append({"contestant": key, "decisions_per_s": rate, "samples": xs,
                     "seconds_per_set": n / rate, "error_rate": err, "ratio_vs_gnubg_nn": ratio})
    print(f"choices that differ between fastbg's gnubg 0-ply and gnubg-nn: {differ} of {n}")
    target = n / median["fastbg gnubg 0-ply"]
    print(f"target: the set in <= 1 s warm: {target:.3f} s "
          f"({'met' if target <= 1.0 else 'MISSED'})")
    harness.finish(info, args.json, {"options": vars(args), "decisions": n,
                                     "read_seconds": read_s, "differ": differ, "rows": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())
