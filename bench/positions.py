"""Files of positions with few trials each: ``fastbg.rollout_many``, which spreads
positions of one chunk over the threads (each rolled out on one thread, several at once),
against a loop of ``fastbg.rollout`` over the same positions (one after another, each on
every thread: what rollout_many did before), in one run.

Workload: distinct positions met in seeded pubeval games (``bench/workloads.py``), 36
trials each, bots pubeval and gnubg. Reports positions/s and the ratio; the figures of the
two ways are checked equal.

    python -m bench.positions --repeat 5
    python -m bench.positions --quick
"""
import argparse
import sys
import time

import numba

import fastbg
from bench import harness, workloads

QUICK = {"positions": 6, "trials": 36, "repeat": 1}


def contestant(ids, trials, bot, threads, spread):
    def run(rep):
        t0 = time.perf_counter()
        if spread:
            recs = fastbg.rollout_many(ids, trials=trials, bot=bot, seed=rep,
                                       threads=threads).records
        else:
            recs = [fastbg.rollout(p, trials=trials, bot=bot, seed=rep,
                                   threads=threads).to_dict() for p in ids]
        dt = time.perf_counter() - t0
        return len(ids) / dt, [(r["probabilities"], r["equity"], r["equity_se"]) for r in recs]
    return run


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=200, help="positions (200)")
    ap.add_argument("--trials", type=int, default=36, help="trials a position (36)")
    ap.add_argument("--repeat", type=int, default=5, help="interleaved repetitions (5)")
    ap.add_argument("--threads", type=int, default=None, help="fastbg's threads (all)")
    args = harness.parse(ap, argv, QUICK)
    threads = args.threads or numba.config.NUMBA_NUM_THREADS
    info = harness.machine()
    harness.print_machine(info, "files of positions with few trials each")
    ids = [fastbg.position_id(b) for b in workloads.net_positions(4 * args.positions, 11)
           [:args.positions]]
    bots = ["pubeval"] + (["gnubg"] if workloads.have_gnubg() else [])
    runs = {}
    for bot in bots:
        for spread in (True, False):
            name = f"{bot}, {'rollout_many' if spread else 'a loop of rollout'}"
            runs[name] = contestant(ids, args.trials, bot, threads, spread)
            runs[name](0)                                       # compile, and check below
    for bot in bots:
        a = runs[f"{bot}, rollout_many"](1)[1]
        b = runs[f"{bot}, a loop of rollout"](1)[1]
        assert a == b, f"{bot}: the two ways gave different records"
    samples, _ = harness.interleaved_with_estimates(runs, args.repeat)
    median = harness.medians(samples)
    print(f"\nmedians of {args.repeat} interleaved repetitions; {args.positions} positions, "
          f"{args.trials} trials each, {threads} threads")
    rows = []
    for bot in bots:
        s, o = f"{bot}, rollout_many", f"{bot}, a loop of rollout"
        for name in (s, o):
            print(f"{name:34} {harness.fmt_rate(median[name]):>9} positions/s  "
                  f"{harness.spread(samples[name])}")
        print(f"{'':34} rollout_many / loop: {median[s] / median[o]:.2f}x")
        rows.append({"bot": bot, "spread": median[s], "sequential": median[o],
                     "ratio": median[s] / median[o]})
    harness.finish(info, args.json, {"options": vars(args), "rows": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())
