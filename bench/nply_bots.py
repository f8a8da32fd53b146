"""The n-ply bots: games per second, and the strength of gnubg-1ply against gnubg (0-ply),
of gnubg-1ply-prune (GNU Backgammon's own defaults: Normal filter, pruning nets) and of
gnubg-1ply-2x0.03-prune (the move filter bgsage's rollouts use in their trials, pruning).

Strength with duplicate dice: the same N games (seed, game index: the same dice) are
played twice, the bots swapping sides; bot A's points per game is the mean over games of
(A's points as side 0 + A's points as side 1) / 2, and its 95% interval comes from those
paired per-game figures (the luck of the dice mostly cancels). Cubeless money games.

    python -m bench.nply_bots --games 1000 --json nply.json
    python -m bench.nply_bots --quick
"""
import argparse
import math
import sys
import time

import numpy as np

import fastbg
from bench import harness, workloads

QUICK = {"games": 20, "speed_games_2ply": 2}
# The 1-ply bot with bgsage's in-trial move filter and GNU Backgammon's pruning
LEAN = "gnubg-1ply-2x0.03-prune"


def duplicate_ppg(a, b, games, seed):
    """(ppg of bot a, 95% half-width, seconds) over ``games`` duplicate pairs."""
    t = time.perf_counter()
    first = fastbg.play(games, (a, b), seed=seed, progress=False)
    second = fastbg.play(games, (b, a), seed=seed, progress=False)
    dt = time.perf_counter() - t
    pair = (first.points.astype(np.float64) - second.points.astype(np.float64)) / 2.0
    half = 1.96 * pair.std(ddof=1) / math.sqrt(games) if games > 1 else math.nan
    return float(pair.mean()), float(half), dt


def games_per_s(bots, games, seed):
    t = time.perf_counter()
    fastbg.play(games, bots, seed=seed, progress=False)
    return games / (time.perf_counter() - t)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=500,
                    help="duplicate pairs of gnubg-1ply vs gnubg (500; twice as many games)")
    ap.add_argument("--speed-games-2ply", type=int, default=10,
                    help="games timed for gnubg-2ply vs gnubg (10)")
    ap.add_argument("--seed", type=int, default=11)
    args = harness.parse(ap, argv, QUICK)
    if not workloads.have_gnubg():
        sys.exit("gnubg-nn is not installed: pip install 'fastbg[gnubg]'")
    info = harness.machine("gnubg-nn")
    harness.print_machine(info, "n-ply bots: speed and strength (cubeless money)")
    for bots in (("gnubg-1ply", "gnubg"), ("gnubg", "gnubg-1ply"), ("gnubg-2ply", "gnubg"),
                 ("gnubg", "gnubg"), ("gnubg-1ply-prune", "gnubg"),
                 ("gnubg", "gnubg-1ply-prune"), (LEAN, "gnubg"), ("gnubg", LEAN)):
        fastbg.play(2, bots, seed=0, progress=False)                  # compile first
    harness.note_threading_layer(info)
    ppg, half, dt = duplicate_ppg("gnubg-1ply", "gnubg", args.games, args.seed)
    rate1 = 2 * args.games / dt
    ppg_p, half_p, dt_p = duplicate_ppg("gnubg-1ply-prune", "gnubg", args.games, args.seed)
    rate1p = 2 * args.games / dt_p
    ppg_l, half_l, dt_l = duplicate_ppg(LEAN, "gnubg", args.games, args.seed)
    rate1l = 2 * args.games / dt_l
    rate2 = games_per_s(("gnubg-2ply", "gnubg"), args.speed_games_2ply, args.seed + 1)
    rate0 = games_per_s(("gnubg", "gnubg"), 200, args.seed + 2)
    print(f"\ngnubg vs gnubg (0-ply):      {rate0:9.1f} games/s")
    print(f"gnubg-1ply vs gnubg:         {rate1:9.2f} games/s ({2 * args.games} games)")
    print(f"gnubg-1ply-prune vs gnubg:   {rate1p:9.2f} games/s ({2 * args.games} games)")
    print(f"{LEAN} vs gnubg: {rate1l:6.2f} games/s ({2 * args.games} games)")
    print(f"gnubg-2ply vs gnubg:         {rate2:9.3f} games/s ({args.speed_games_2ply} games)")
    print(f"\ngnubg-1ply against gnubg, {args.games} duplicate pairs: "
          f"{ppg:+.3f} ppg, 95% interval [{ppg - half:+.3f}, {ppg + half:+.3f}]")
    print(f"gnubg-1ply-prune against gnubg, the same dice: {ppg_p:+.3f} ppg, 95% interval "
          f"[{ppg_p - half_p:+.3f}, {ppg_p + half_p:+.3f}]")
    print(f"{LEAN} against gnubg, the same dice: {ppg_l:+.3f} ppg, 95% interval "
          f"[{ppg_l - half_l:+.3f}, {ppg_l + half_l:+.3f}]")
    harness.finish(info, args.json, {
        "options": vars(args), "games_per_s": {"gnubg": rate0, "gnubg-1ply": rate1,
                                               "gnubg-1ply-prune": rate1p, LEAN: rate1l,
                                               "gnubg-2ply": rate2},
        "ppg_1ply_vs_0ply": ppg, "ppg_ci95_half_width": half,
        "ppg_1ply_prune_vs_0ply": ppg_p, "ppg_prune_ci95_half_width": half_p,
        "ppg_1ply_lean_vs_0ply": ppg_l, "ppg_lean_ci95_half_width": half_l})
    return 0


if __name__ == "__main__":
    sys.exit(main())
