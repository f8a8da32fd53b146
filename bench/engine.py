"""The analysis engine against gnubg-nn (and bgsage when installed), side by side.

Three workloads, each on fresh positions every repetition (distinct positions met in
seeded games, ``bench/workloads.py``), so that gnubg-nn's evaluation cache never answers a
repeat; within a repetition every contestant gets the same positions (a paired
comparison: a 2-ply batch of 20 positions varies in cost by 1.5x from one set to the next,
which unpaired sets put into the ratio):

* positions/s at 1-ply and 2-ply: ``GnubgNet.probabilities(boards, ply)`` on a batch
  against ``gnubg_nn.probabilities(board, ply)`` one position at a time;
* hint decisions/s at 1-ply: ``fastbg.hint_batch(..., ply=1)`` against
  ``gnubg_nn.best_move(board, d1, d2, n=1)``;
* bgsage (the ``peers`` extra): its ``batch_checker_play`` at "2ply" (bgsage's "2ply" is
  gnubg's 1-ply) against fastbg's 1-ply hint on the same pairs.

Each repetition times every contestant once, in an order rotated between repetitions;
medians of the rates and of the per-repetition ratios. Targets: 10x gnubg-nn; 3x bgsage.

    python -m bench.engine --repeat 5 --json engine.json
    python -m bench.engine --quick              # smoke run
"""
import argparse
import statistics
import sys
import time

import numba
import numpy as np

import fastbg
from bench import harness, workloads

TARGET_GNUBG = 10.0
TARGET_BGSAGE = 3.0
QUICK = {"positions_1ply": 40, "positions_2ply": 4, "hints": 40, "repeat": 2}


_POOL = {}


def fresh_positions(n, rep, seed):
    """n positions for repetition ``rep``: a slice of :func:`workloads.net_positions` (the
    distinct results met in seeded games) that no other repetition or contestant uses."""
    pool = _POOL.get(seed)
    if pool is None:
        pool = _POOL[seed] = np.random.default_rng(seed).permutation(
            workloads.net_positions(60_000, seed))
    start = (rep * n) % max(1, len(pool) - n)
    return pool[start:start + n]


def fresh_pairs(n, rep, seed):
    boards = fresh_positions(n, rep, seed + 7)
    dice = np.random.default_rng(seed * 1000 + rep).integers(1, 7, (n, 2))
    return boards, dice


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--positions-1ply", type=int, default=400,
                    help="positions per repetition at 1-ply (400)")
    ap.add_argument("--positions-2ply", type=int, default=20,
                    help="positions per repetition at 2-ply (20)")
    ap.add_argument("--hints", type=int, default=300,
                    help="(position, roll) pairs per repetition for the hint workloads (300)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3, help="interleaved repetitions (3)")
    args = harness.parse(ap, argv, QUICK)
    if not workloads.have_gnubg():
        sys.exit("gnubg-nn is not installed: pip install 'fastbg[gnubg]'")
    import gnubg_nn
    from fastbg.evaluators.gnubg_nn import to_gnubg

    peers = ["gnubg-nn"] + (["bgsage"] if workloads.have_bgsage() else [])
    info = harness.machine(*peers)
    harness.print_machine(info, "The analysis engine: n-ply evaluation and hints")
    net = fastbg.gnubg_net()
    # Compile / load every kernel the timed runs use: a 1-ply batch of 64 positions or more
    # takes the whole-level path (one thread a span), which 4 positions do not; without it
    # the first 1-ply repetition paid for loading those kernels (ratio 1.0 in one run).
    warm = fresh_positions(80, 999, args.seed)
    net.probabilities(warm, ply=1)
    net.probabilities(warm[:4], ply=2)
    fastbg.hint_batch(warm[:4], [(3, 1)] * 4, ply=1)
    harness.note_threading_layer(info)
    results = {}

    def ours_nply(ply, n):
        def run(rep):
            b = fresh_positions(n, rep, args.seed + ply)
            t = time.perf_counter()
            net.probabilities(b, ply=ply)
            return n / (time.perf_counter() - t)
        return run

    def gnubg_nply(ply, n):
        def run(rep):
            rows = [to_gnubg(b) for b in fresh_positions(n, rep, args.seed + ply)]
            t = time.perf_counter()
            for r in rows:
                gnubg_nn.probabilities(r, ply)
            return n / (time.perf_counter() - t)
        return run

    def ours_hint(rep):
        b, d = fresh_pairs(args.hints, rep, args.seed)
        t = time.perf_counter()
        fastbg.hint_batch(b, d, ply=1)
        return args.hints / (time.perf_counter() - t)

    def gnubg_hint(rep):
        b, d = fresh_pairs(args.hints, rep, args.seed)
        rows = [to_gnubg(x) for x in b]
        t = time.perf_counter()
        for r, (d1, d2) in zip(rows, d):
            gnubg_nn.best_move(r, int(d1), int(d2), n=1)
        return args.hints / (time.perf_counter() - t)

    def bgsage_hint(rep):
        import bgsage
        b, d = fresh_pairs(args.hints, rep, args.seed)
        pos = [{"board": x.tolist(), "die1": int(d1), "die2": int(d2), "cube_value": 1,
                "cube_owner": "centered"} for x, (d1, d2) in zip(b, d)]
        t = time.perf_counter()
        bgsage.batch_checker_play(pos, eval_level="2ply")
        return args.hints / (time.perf_counter() - t)

    workloads_ = {
        "1-ply positions/s": ({"fastbg": ours_nply(1, args.positions_1ply),
                               "gnubg-nn": gnubg_nply(1, args.positions_1ply)}, "gnubg-nn",
                              TARGET_GNUBG),
        "2-ply positions/s": ({"fastbg": ours_nply(2, args.positions_2ply),
                               "gnubg-nn": gnubg_nply(2, args.positions_2ply)}, "gnubg-nn",
                              TARGET_GNUBG),
        "1-ply hints/s": ({"fastbg": ours_hint, "gnubg-nn": gnubg_hint}, "gnubg-nn",
                          TARGET_GNUBG),
    }
    if workloads.have_bgsage():
        workloads_["1-ply hints/s vs bgsage 2ply"] = (
            {"fastbg": ours_hint, "bgsage": bgsage_hint}, "bgsage", TARGET_BGSAGE)
    print(f"\nmedian of {args.repeat} interleaved repetitions (min .. max); ratio = median of "
          "the repetitions' ratios")
    threads = numba.get_num_threads()
    for title, (runs, peer, target) in workloads_.items():
        samples = harness.interleaved(harness.with_host_check(runs, threads), args.repeat)
        host = samples.pop(harness.HOST, None)
        median = harness.medians(samples)
        ratio = statistics.median(a / b for a, b in zip(samples["fastbg"], samples[peer]))
        print(f"\n{title}")
        for name in runs:
            print(f"  {name:<10} {median[name]:>10.1f}  {harness.spread(samples[name])}")
        ok = "ok" if ratio >= target else "MISSED"
        print(f"  fastbg / {peer}: {ratio:.1f}x (target {target:.0f}x: {ok})")
        harness.print_host(host, threads)
        results[title] = {"rates": samples, "median": median, "ratio": ratio,
                          "target": target, "peer": peer, "host_scaling": host}
    harness.finish(info, args.json, {"options": vars(args), "workloads": results})
    return 0


if __name__ == "__main__":
    sys.exit(main())
