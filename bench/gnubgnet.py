"""GNU Backgammon's networks in fastbg's numba kernels against gnubg-nn, side by side.

Evaluations per second on the same distinct positions (bench/workloads.py's
``net_positions``: candidate results met in seeded pubeval games, seen from the player
on roll): ``fastbg.gnubg_net()`` on 1 and 2 threads (when numba has them) against
``gnubg_nn.probabilities(board, 0)`` called once per position. gnubg-nn gets a fresh
slice of the positions in each repetition, so its evaluation cache never holds them.
Each repetition times every contestant once, in an order rotated between repetitions;
the medians of the rates and of the per-repetition ratios are reported. Target: at
least 10x on two threads.

Rollouts with these networks (fastbg's ``gnubg`` bot against gnubg-nn's 0-ply player)
are timed by ``python -m bench.rollout``; pubeval against the gnubg bot is checked
against its published figure by ``python -m bench.pubeval_vs_gnubg``.

    python -m bench.gnubgnet --repeat 5 --json gnubgnet.json
    python -m bench.gnubgnet --quick              # smoke run
"""
import argparse
import statistics
import sys
import time

import numba

import fastbg
from bench import harness, workloads

PEER = "gnubg-nn"
TARGET_RATIO = 10.0
QUICK = {"positions": 3_000, "gnubg_positions": 500, "repeat": 2}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--positions", type=int, default=200_000,
                    help="positions per fastbg measurement (200,000)")
    ap.add_argument("--gnubg-positions", type=int, default=50_000,
                    help="positions per gnubg-nn measurement (50,000), a fresh slice each "
                         "repetition")
    ap.add_argument("--seed", type=int, default=1, help="seed of the games the positions "
                                                        "come from (1)")
    ap.add_argument("--repeat", type=int, default=3,
                    help="interleaved repetitions (3); medians are reported")
    ap.add_argument("--quick", action="store_true",
                    help="smoke-size run (" + ", ".join(f"--{k.replace('_', '-')} {v}"
                                                      for k, v in QUICK.items()) + ")")
    ap.add_argument("--json", metavar="PATH", help="also write the figures to PATH as JSON")
    args = ap.parse_args(argv)
    if args.quick:
        for k, v in QUICK.items():
            setattr(args, k, v)
    if min(args.positions, args.gnubg_positions, args.repeat) < 1:
        ap.error("--positions, --gnubg-positions and --repeat must be at least 1")
    if not workloads.have_gnubg():
        sys.exit("gnubg-nn (GNU Backgammon's weights and the peer) is not installed: "
                 "pip install 'fastbg[gnubg]'")

    info = harness.machine("gnubg-nn")
    harness.print_machine(info, "GNU Backgammon's networks: evaluations per second")
    net = fastbg.gnubg_net()
    boards = workloads.net_positions(args.positions, args.seed)
    n_gnubg = min(args.gnubg_positions, len(boards) // args.repeat)
    print(f"{len(boards):,} distinct positions for fastbg, {n_gnubg:,} per repetition for "
          f"gnubg-nn")
    net(boards[:1000])                                        # compile / warm up
    workloads.run_gnubg_evals(workloads.gnubg_rows(fastbg.START[None]))   # load its nets
    harness.note_threading_layer(info)

    def fastbg_on(threads):
        def run(rep):
            with fastbg.threads(threads):
                dt = harness.measure(lambda: net(boards))
            return len(boards) / dt
        return run

    def peer(rep):
        rows = workloads.gnubg_rows(boards[rep * n_gnubg:(rep + 1) * n_gnubg])
        t = time.perf_counter()
        workloads.run_gnubg_evals(rows)
        return len(rows) / (time.perf_counter() - t)

    thread_counts = [1, 2] if numba.config.NUMBA_NUM_THREADS >= 2 else [1]
    runs = {f"fastbg {th} thread{'s' if th > 1 else ''}": fastbg_on(th) for th in thread_counts}
    runs[PEER] = peer
    samples = harness.interleaved(harness.with_host_check(runs, thread_counts[-1]), args.repeat)
    host = samples.pop(harness.HOST, None)
    median = harness.medians(samples)
    ratios = {name: statistics.median(a / b for a, b in zip(samples[name], samples[PEER]))
              for name in runs}
    print(f"\nmedian of {args.repeat} interleaved repetitions (min .. max in brackets; the "
          f"ratio is the median of the repetitions' ratios)")
    print(f"{'contestant':<18} {'evals/s':>10}  {'range':<24} {'vs gnubg-nn':>11}")
    for name in runs:
        print(f"{name:<18} {harness.fmt_rate(median[name]):>10}  "
              f"{harness.spread(samples[name]):<24} {ratios[name]:10.1f}x")
    top = list(runs)[-2]
    ok = "ok" if ratios[top] >= TARGET_RATIO else "MISSED"
    print(f"target: {top} >= {TARGET_RATIO:.0f}x gnubg-nn: {ok}")
    harness.print_host(host, thread_counts[-1], indent="")
    harness.finish(info, args.json, {
        "options": vars(args),
        "positions": {"fastbg": len(boards), "gnubg_nn_per_repetition": n_gnubg},
        "evals_per_s": samples,
        "median_evals_per_s": median,
        "median_ratio_vs_gnubg_nn": ratios,
        "host_scaling": host,
    })
    return 0


if __name__ == "__main__":
    sys.exit(main())
