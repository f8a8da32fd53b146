"""Validate fastbg's game play against a published figure: pubeval vs GNU Backgammon 0-ply.

Plays N cubeless money games (gammons 2, backgammons 3), pubeval as bot 0 and GNU
Backgammon's 0-ply choice (fastbg's "gnubg" bot, the numba port of its networks; needs
the weights of the gnubg extra: pip install 'fastbg[gnubg]') as bot 1, and compares
pubeval's points per game with the published figure (bench/workloads.py,
PUBLISHED_PUBEVAL_VS_GNUBG: GNU Backgammon at 0-ply beats pubeval by +0.63 points per
game over 40,000 games and wins 71.9% of them), taken as -0.63 +- 0.03 for pubeval.

The two agree when the difference is within 1.96 standard errors of the two figures
together (ours from the games played, the published one from its +-0.03 read as a 95%
interval). Exit status: 0 when they agree, 1 when not, 2 when the run was interrupted.
This is a check of correctness, not a speed benchmark: the games/s it prints come from
one run and are not a measured comparison.

    python -m bench.pubeval_vs_gnubg                 # 20,000 games
    python -m bench.pubeval_vs_gnubg -n 2000 --json out.json
    python -m bench.pubeval_vs_gnubg --quick         # 500 games, a smoke run
"""
import argparse
import math
import sys
import time

import fastbg
from bench import harness
from bench.workloads import PUBLISHED_PUBEVAL_VS_GNUBG as PUBLISHED

QUICK_GAMES = 500


def compare(ppg, lo, hi):
    """Difference from the published figure, its combined 95% half-width and agreement."""
    se_ours = (hi - lo) / 2 / 1.96
    se_pub = PUBLISHED["half95"] / 1.96
    half = 1.96 * math.hypot(se_ours, se_pub)
    diff = ppg - PUBLISHED["points_per_game"]
    return {"difference": diff, "difference_half95": half, "agrees": abs(diff) <= half}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", "--games", type=int, default=20_000, help="games to play (20,000)")
    ap.add_argument("--seed", type=int, default=2024, help="seed of the games (2024)")
    ap.add_argument("--threads", type=int, default=None, help="numba threads (default: all)")
    ap.add_argument("--chunk", type=int, default=1000,
                    help="games per chunk: how often the progress bar moves (1,000)")
    ap.add_argument("--no-progress", action="store_true", help="no progress bar")
    ap.add_argument("--quick", action="store_true",
                    help=f"smoke-size run: {QUICK_GAMES} games, no progress bar (too few to "
                         "settle agreement)")
    ap.add_argument("--json", metavar="PATH", help="write the summary and comparison here")
    args = ap.parse_args(argv)
    if args.quick:
        args.games, args.no_progress = QUICK_GAMES, True

    try:
        gnubg = fastbg.gnubg_net()
    except ImportError as exc:
        sys.exit(str(exc))

    info = harness.machine("gnubg-nn")
    harness.print_machine(info, "pubeval vs GNU Backgammon 0-ply (fastbg's gnubg bot), "
                                "cubeless money games")
    t0 = time.perf_counter()
    res = fastbg.play(args.games, ("pubeval", gnubg), seed=args.seed, threads=args.threads,
                      progress=not args.no_progress, chunk_size=args.chunk)
    seconds = time.perf_counter() - t0
    harness.note_threading_layer(info)
    s = res.summary()
    ppg = s["points_per_game"]
    lo, hi = s["points_per_game_ci95"]
    cmp = compare(ppg, lo, hi)
    gnubg_wins = s["win_rate"][1]

    print(res.table())
    print(f"time             {seconds:.1f} s ({res.n_games / seconds:,.0f} games/s, one run, "
          f"compilation included; not a benchmark figure)")
    print()
    print(f"pubeval points per game  {ppg:+.4f}  (95% CI {lo:+.4f} .. {hi:+.4f}, "
          f"{res.n_games:,} games)")
    print(f"published                {PUBLISHED['points_per_game']:+.4f}  "
          f"(+- {PUBLISHED['half95']:.2f}, {PUBLISHED['games']:,} games)")
    print(f"difference               {cmp['difference']:+.4f}  (+- {cmp['difference_half95']:.4f} "
          f"at 95%): {'agrees' if cmp['agrees'] else 'DISAGREES'}")
    print(f"gnubg wins               {gnubg_wins:.4f} of games (published "
          f"{PUBLISHED['gnubg_win_rate']:.3f})")

    harness.finish(info, args.json, {
        "options": vars(args),
        "summary": s,
        "seconds": seconds,
        "games_per_second": res.n_games / seconds if seconds else None,
        "published": PUBLISHED,
        "comparison": cmp,
    })
    if res.partial:
        return 2
    return 0 if cmp["agrees"] else 1


if __name__ == "__main__":
    sys.exit(main())
