#!/usr/bin/env python3
"""Rollout throughput, side by side in one run: fastbg against GNU Backgammon's networks.

Positions: the opening position (contact) and a race. Contestants, each timed on the same
positions with interleaved repetitions (median reported):

* fastbg rollout with the pubeval bot (cubeless, quasi-random dice), trials/s;
* fastbg rollout with the ``gnubg-nn`` bot: GNU Backgammon's 0-ply choice, evaluated by
  gnubg-nn once per candidate from Python (when gnubg-nn is installed);
* fastbg rollout with the ``gnubg`` bot, the numba port of GNU Backgammon's nets (when
  that bot exists and gnubg-nn provides the weights).

gnubg-nn's own ``rollout`` function is not timed: with the documented arguments it
crashed (segmentation fault) here, and with its defaults it reported a win probability of
1.0 for the opening position (gnubg-nn 1.1.0a11). The published figure for GNU Backgammon
0-ply rollouts on this machine is about 430 games/s per core.

    python3 scripts/bench_rollout.py --trials 1296 --repeat 3 --json rollout.json
"""
import argparse
import json
import statistics
import sys
import time

import numba
import numpy as np

import fastbg

POSITIONS = {
    "contact (opening)": "4HPwATDgc/ABMA",
    "race": None,     # built below: 8 checkers a side spread over the home boards
}
PUBLISHED_GNUBG_ROLLOUT = 430.0   # games/s per core, GNU Backgammon 0-ply (issue text)


def race_board():
    b = np.zeros(26, np.int8)
    b[[6, 5, 4, 3, 2, 8, 9, 10]] = [3, 3, 2, 2, 1, 2, 1, 1]
    b[[19, 20, 21, 22, 23, 17, 16]] = [-3, -3, -2, -2, -2, -2, -1]
    return b


def contestants(gnubg_trials):
    out = [("fastbg pubeval", "pubeval", None)]
    try:
        import gnubg_nn  # noqa: F401
        out.append(("fastbg + gnubg-nn bot", "gnubg-nn", gnubg_trials))
    except ImportError:
        print("gnubg_nn is not installed: the GNU Backgammon contestants are skipped")
    return out


def time_rollout(position, bot, trials, threads):
    t0 = time.perf_counter()
    res = fastbg.rollout(position, trials=trials, bot=bot, seed=1, threads=threads)
    return trials / (time.perf_counter() - t0), res


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=12960, help="trials per fastbg rollout")
    ap.add_argument("--gnubg-trials", type=int, default=360,
                    help="trials per rollout with the slow gnubg-nn bot")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--json", dest="json_path")
    args = ap.parse_args(argv)
    positions = {name: (pid if pid is not None else race_board())
                 for name, pid in POSITIONS.items()}
    who = contestants(args.gnubg_trials)
    for _, bot, n in who:                     # compile / warm up
        for pos in positions.values():
            fastbg.rollout(pos, trials=36, bot=bot, seed=0, threads=args.threads)
    samples = {(p, c[0]): [] for p in positions for c in who}
    estimates = {}
    for rep in range(args.repeat):
        order = who[rep % len(who):] + who[:rep % len(who)]
        for pname, pos in positions.items():
            for name, bot, n in order:
                rate, res = time_rollout(pos, bot, n or args.trials, args.threads)
                samples[(pname, name)].append(rate)
                estimates[(pname, name)] = (res.equity, res.equity_se)
    print(f"rollout throughput, median of {args.repeat} (trials/s); threads "
          f"{args.threads or numba.get_num_threads()}")
    print(f"{'position':20} {'contestant':24} {'trials/s':>10} {'equity':>9} {'se':>7}")
    report = []
    for (pname, name), xs in samples.items():
        med = statistics.median(xs)
        eq, se = estimates[(pname, name)]
        print(f"{pname:20} {name:24} {med:10,.0f} {eq:+9.4f} {se:7.4f}")
        report.append({"position": pname, "contestant": name, "trials_per_s": med,
                       "samples": xs, "equity": eq, "se": se})
    for pname in positions:
        base = statistics.median(samples[(pname, who[0][0])])
        print(f"{pname}: fastbg pubeval / published gnubg 0-ply rollout "
              f"({PUBLISHED_GNUBG_ROLLOUT:.0f}/s per core): {base / PUBLISHED_GNUBG_ROLLOUT:.0f}x")
        if len(who) > 1:
            slow = statistics.median(samples[(pname, who[1][0])])
            print(f"{pname}: fastbg pubeval / gnubg-nn bot rollout: {base / slow:.0f}x")
    if args.json_path:
        with open(args.json_path, "w") as f:
            json.dump(report, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
