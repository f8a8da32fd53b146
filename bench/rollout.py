"""Rollout throughput, side by side in one run: fastbg against GNU Backgammon's 0-ply player.

Positions: bench/workloads.py's ROLLOUT_POSITIONS (the opening and a race), cubeless
games to the end. Contestants, every one measured in this run on the same positions:

* fastbg rollout with the pubeval bot (quasi-random dice), trials/s;
* fastbg rollout with the ``gnubg`` bot: GNU Backgammon's 0-ply choice, its networks in
  fastbg's numba kernels (needs the weights of gnubg-nn);
* the peer, gnubg-nn's own 0-ply player (``gnubg_nn.best_move(..., n=0)`` each ply, both
  sides; the same move choices as the ``gnubg`` bot up to exact ties), playing games from
  the same position in a Python loop on one core, games/s (when gnubg-nn is installed).
  Each repetition rolls fresh dice, so gnubg-nn's evaluation cache cannot replay games.

Each repetition times every contestant once, in an order rotated from one repetition to
the next; the medians are reported, and each fastbg rate is divided by the peer's median
measured in the same run. fastbg pubeval against the peer compares a rollout with each
tool's cheapest built-in player (different players, so different games); fastbg gnubg
against the peer is the same player on both sides of the ratio.

gnubg-nn's own ``rollout`` function is not timed: with the documented arguments it
crashed (segmentation fault), and with its defaults it reported a win probability of 1.0
for the opening position (gnubg-nn 1.1.0a11).

    python -m bench.rollout --repeat 3 --json rollout.json
    python -m bench.rollout --quick               # smoke run
"""
import argparse
import math
import sys
import time

import numba
import numpy as np

import fastbg
from bench import harness, workloads

PEER = "gnubg-nn 0-ply player"
QUICK = {"trials": 720, "gnubg_trials": 144, "peer_games": 10, "repeat": 2}


def fastbg_contestant(position, bot, trials, threads):
    def run(rep):
        t0 = time.perf_counter()
        res = fastbg.rollout(position, trials=trials, bot=bot, seed=1, threads=threads)
        dt = time.perf_counter() - t0
        assert res.trials == trials and not res.partial
        return trials / dt, (res.equity, res.equity_se)
    return run


def peer_contestant(position, games, seed, ply=0):
    def run(rep):
        rng = np.random.default_rng([seed, rep])
        t0 = time.perf_counter()
        pts = workloads.gnubg_nn_games(position, games, rng, ply)
        dt = time.perf_counter() - t0
        assert len(pts) == games and all(abs(p) in (1, 2, 3) for p in pts)
        return games / dt, (float(np.mean(pts)),
                            float(np.std(pts, ddof=1) / math.sqrt(games)) if games > 1 else
                            float("nan"))
    return run


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=12_960,
                    help="trials per fastbg pubeval rollout (12,960)")
    ap.add_argument("--gnubg-trials", type=int, default=2_592,
                    help="trials per fastbg gnubg-bot rollout (2,592)")
    ap.add_argument("--peer-games", type=int, default=200,
                    help="games per measurement of gnubg-nn's 0-ply player (200)")
    ap.add_argument("--repeat", type=int, default=3,
                    help="interleaved repetitions (3); medians are reported")
    ap.add_argument("--threads", type=int, default=None,
                    help="fastbg's threads (default: all numba has)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the peer's dice (1)")
    ap.add_argument("--quick", action="store_true",
                    help="smoke-size run (" + ", ".join(f"--{k.replace('_', '-')} {v}"
                                                      for k, v in QUICK.items()) + ")")
    ap.add_argument("--json", dest="json_path", metavar="PATH",
                    help="also write the figures to PATH as JSON")
    args = ap.parse_args(argv)
    if args.quick:
        for k, v in QUICK.items():
            setattr(args, k, v)
    if min(args.trials, args.gnubg_trials, args.peer_games, args.repeat) < 1:
        ap.error("--trials, --gnubg-trials, --peer-games and --repeat must be at least 1")
    threads = args.threads or numba.config.NUMBA_NUM_THREADS

    info = harness.machine("gnubg-nn")
    harness.print_machine(info, "fastbg rollout throughput: cubeless rollouts, side by side")
    have_gnubg = workloads.have_gnubg()
    who = [("fastbg pubeval", "pubeval", args.trials)]
    if have_gnubg:
        who.append(("fastbg gnubg (numba nets)", "gnubg", args.gnubg_trials))
    else:
        print("gnubg-nn is not installed: the gnubg bot and the peer are skipped; no ratios")

    runs = {}
    for pname, pos in workloads.ROLLOUT_POSITIONS.items():
        for name, bot, n in who:
            fastbg.rollout(pos, trials=36, bot=bot, seed=0, threads=threads)   # compile
            runs[(pname, name)] = fastbg_contestant(pos, bot, n, threads)
        if have_gnubg:
            workloads.gnubg_nn_games(pos, 1, np.random.default_rng(0))        # warm up
            runs[(pname, PEER)] = peer_contestant(pos, args.peer_games, args.seed)
    harness.note_threading_layer(info)

    samples, estimates = harness.interleaved_with_estimates(runs, args.repeat)
    median = harness.medians(samples)
    print(f"\nmedian of {args.repeat} interleaved repetitions (min .. max in brackets); "
          f"fastbg on {threads} thread{'s' if threads > 1 else ''}, the peer on one core")
    print(f"{'position':18} {'contestant':26} {'games/s':>9}  {'range':<22} {'equity':>8} "
          f"{'se':>7} {'vs peer':>8}")
    report = []
    for (pname, name), xs in samples.items():
        peer = median.get((pname, PEER))
        ratio = f"{median[(pname, name)] / peer:7.1f}x" if peer else "n/a"
        eq, se = estimates[(pname, name)]
        print(f"{pname:18} {name:26} {harness.fmt_rate(median[(pname, name)]):>9}  "
              f"{harness.spread(xs):<22} {eq:+8.4f} {se:7.4f} {ratio:>8}")
        report.append({"position": pname, "contestant": name, "games_per_s": median[(pname, name)],
                       "samples": xs, "equity": eq, "se": se,
                       "ratio_vs_peer": median[(pname, name)] / peer if peer else None})
    print("(a trial is one game; equity: points per game for the side on roll, the last "
          "repetition's estimate)")
    harness.finish(info, args.json_path, {"options": vars(args), "threads": threads,
                                          "rows": report})
    return 0


if __name__ == "__main__":
    sys.exit(main())
