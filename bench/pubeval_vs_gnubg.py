#!/usr/bin/env python3
"""Validate fastbg's game play against a published figure: pubeval vs GNU Backgammon 0-ply.

Plays N cubeless money games (gammons 2, backgammons 3), pubeval as bot 0 and gnubg's
0-ply choice (fastbg's "gnubg" bot, needs the gnubg extra: pip install 'fastbg[gnubg]')
as bot 1, and compares pubeval's points per game with the published figure
(/work/shared/data/README.md: GNU Backgammon at 0-ply beats pubeval by +0.63 points per
game over 40,000 games and wins 71.9% of them), taken as -0.63 +- 0.03 for pubeval.

The two agree when the difference is within 1.96 standard errors of the two figures
together (ours from the games played, the published one from its +-0.03 read as a 95%
interval). Exit status: 0 when they agree, 1 when not, 2 when the run was interrupted.

    python3 scripts/validate_pubeval_vs_gnubg.py                 # 20,000 games
    python3 scripts/validate_pubeval_vs_gnubg.py -n 2000 --json out.json
"""
import argparse
import json
import math
import os
import platform
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import fastbg  # noqa: E402
from fastbg.evaluators.gnubg_nn import gnubg_bot  # noqa: E402

PUBLISHED_PPG = -0.63          # pubeval's points per game against gnubg 0-ply
PUBLISHED_HALF = 0.03          # its 95% half-width
PUBLISHED_GNUBG_WIN_RATE = 0.719


def compare(ppg, lo, hi):
    """Difference from the published figure, its combined 95% half-width and agreement."""
    se_ours = (hi - lo) / 2 / 1.96
    se_pub = PUBLISHED_HALF / 1.96
    half = 1.96 * math.hypot(se_ours, se_pub)
    diff = ppg - PUBLISHED_PPG
    return {"difference": diff, "difference_half95": half, "agrees": abs(diff) <= half}


def _gnubg_nn_version(module):
    v = getattr(module, "__version__", None)
    return v if isinstance(v, str) or v is None else getattr(v, "__version__", str(v))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", "--games", type=int, default=20_000, help="games to play (20,000)")
    ap.add_argument("--seed", type=int, default=2024, help="seed of the games (2024)")
    ap.add_argument("--threads", type=int, default=None, help="numba threads (default: all)")
    ap.add_argument("--chunk", type=int, default=1000,
                    help="games per chunk: how often the progress bar moves (1,000)")
    ap.add_argument("--no-progress", action="store_true", help="no progress bar")
    ap.add_argument("--json", metavar="PATH", help="write the summary and comparison here")
    args = ap.parse_args(argv)

    try:
        gnubg = gnubg_bot()
    except ImportError as exc:
        sys.exit(str(exc))
    import gnubg_nn

    t0 = time.perf_counter()
    res = fastbg.play(args.games, ("pubeval", gnubg), seed=args.seed, threads=args.threads,
                      progress=not args.no_progress, chunk_size=args.chunk)
    seconds = time.perf_counter() - t0
    s = res.summary()
    ppg = s["points_per_game"]
    lo, hi = s["points_per_game_ci95"]
    cmp = compare(ppg, lo, hi)
    gnubg_wins = s["win_rate"][1]

    print(res.table())
    print(f"time             {seconds:.1f} s ({res.n_games / seconds:,.0f} games/s)")
    print()
    print(f"pubeval points per game  {ppg:+.4f}  (95% CI {lo:+.4f} .. {hi:+.4f}, "
          f"{res.n_games:,} games)")
    print(f"published                {PUBLISHED_PPG:+.4f}  (+- {PUBLISHED_HALF:.2f}, 40,000 games)")
    print(f"difference               {cmp['difference']:+.4f}  (+- {cmp['difference_half95']:.4f} "
          f"at 95%): {'agrees' if cmp['agrees'] else 'DISAGREES'}")
    print(f"gnubg wins               {gnubg_wins:.4f} of games (published "
          f"{PUBLISHED_GNUBG_WIN_RATE:.3f})")

    if args.json:
        out = {
            "summary": s,
            "seconds": seconds,
            "games_per_second": res.n_games / seconds if seconds else None,
            "published": {"points_per_game": PUBLISHED_PPG, "half95": PUBLISHED_HALF,
                          "gnubg_win_rate": PUBLISHED_GNUBG_WIN_RATE, "games": 40_000},
            "comparison": cmp,
            "versions": {"fastbg": fastbg.__version__, "python": platform.python_version(),
                         "gnubg_nn": _gnubg_nn_version(gnubg_nn)},
        }
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)
        print(f"wrote {args.json}")
    if res.partial:
        return 2
    return 0 if cmp["agrees"] else 1


if __name__ == "__main__":
    sys.exit(main())
