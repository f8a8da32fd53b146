#!/usr/bin/env python3
"""Every bot fastbg can play, on a benchmark set and against pubeval: does the benchmark
rank bots as tournaments do? (docs/benchmarks.md section 6)

For each bot: its error rate on the set (default: the one shipped with fastbg), overall
and by class, and its points per game against pubeval in cubeless money games on
duplicate dice (each deal played both ways), with 95% intervals. Then the rank agreement
of the two orders (Kendall's tau over the bots with both figures). Bots whose extra is not
installed are listed as skipped, with the reason. Writes the figures as JSON (--json) and
the docs' table as Markdown (--markdown).

    python3 scripts/benchmark_comparison.py --help
    python3 scripts/benchmark_comparison.py --json comparison.json --markdown table.md
    python3 scripts/benchmark_comparison.py --quick          # few games, a smoke run
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from bench.harness import cpu_model  # noqa: E402  (the repository's bench/, beside scripts/)

# bot -> games against pubeval (duplicate: half as many deals); fewer for the slow ones
BOTS = {"random": 20000, "greedy": 20000, "pubeval": 0, "fastbg": 20000, "fastbg-1ply": 2000,
        "gnubg": 40000, "gnubg-1ply": 4000, "gnubg-1ply-prune": 4000, "gnubg-2ply-prune": 1000,
        "gnubg-nn": 2000, "bgsage": 4000, "gnubg-app": 1000}
QUICK_GAMES = 100


def kendall_tau(xs, ys):
    """Kendall's tau-a of two paired lists (ties count zero)."""
    n, s = len(xs), 0
    for i in range(n):
        for j in range(i + 1, n):
            a, b = xs[i] - xs[j], ys[i] - ys[j]
            s += (a > 0) - (a < 0) if b > 0 else ((a < 0) - (a > 0) if b < 0 else 0)
    return s / (n * (n - 1) / 2) if n > 1 else float("nan")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--set", default=None, help="a benchmark set (default: the shipped one)")
    p.add_argument("--bots", default=",".join(BOTS),
                   help="bots, comma separated (default: %(default)s)")
    p.add_argument("--games-scale", type=float, default=1.0,
                   help="multiply every bot's games against pubeval by this")
    p.add_argument("--quick", action="store_true", help=f"{QUICK_GAMES} games a bot")
    p.add_argument("--seed", type=int, default=31)
    p.add_argument("--json", help="write the figures here")
    p.add_argument("--markdown", help="write the docs' table here")
    args = p.parse_args(argv)
    import fastbg
    bset = fastbg.benchmarks.read_benchmark(args.set or
                                            fastbg.benchmarks.scoring.shipped_set_path())
    rows, skipped = [], {}
    for bot in [b.strip() for b in args.bots.split(",") if b.strip()]:
        try:
            score = fastbg.score_benchmark(bset, bot)
        except (ImportError, ValueError, OSError, fastbg.EngineError) as exc:
            skipped[bot] = str(exc).splitlines()[0]
            print(f"{bot}: skipped ({skipped[bot]})", flush=True)
            continue
        games = QUICK_GAMES if args.quick else int(BOTS.get(bot, 1000) * args.games_scale)
        games -= games % 2
        ppg = ci = None
        seconds = 0.0
        if bot != "pubeval" and games:
            t0 = time.perf_counter()
            t = fastbg.tournament([bot, "pubeval"], games, seed=args.seed, duplicate=True)
            seconds = time.perf_counter() - t0
            pair = t.pairs[0]
            ppg, ci = pair["points_per_game"], pair["points_per_game_ci95"]
        elif bot == "pubeval":
            ppg, ci = 0.0, [0.0, 0.0]
        rows.append({"bot": bot, "error_rate": score.error_rate, "ci95": score.ci95,
                     "by_class": {k: v["error_rate"] for k, v in score.by_class.items()},
                     "decisions": score.decisions, "decisions_per_second":
                     score.decisions_per_second, "ppg_vs_pubeval": ppg, "ppg_ci95": ci,
                     "games": games if bot != "pubeval" else 0, "seconds": seconds})
        print(f"{bot:18} {score.error_rate:7.2f} mEMG  ppg vs pubeval "
              f"{'' if ppg is None else f'{ppg:+.3f}'}  ({games} games, {seconds:.0f} s)",
              flush=True)
    rows.sort(key=lambda r: r["error_rate"])
    both = [r for r in rows if r["ppg_vs_pubeval"] is not None]
    tau = kendall_tau([-r["error_rate"] for r in both], [r["ppg_vs_pubeval"] for r in both])
    report = {"set": os.path.basename(bset.path), "decisions": len(bset.decisions),
              "cpu": cpu_model(), "date": time.strftime("%Y-%m-%d"), "rows": rows,
              "skipped": skipped, "kendall_tau": tau}
    print(f"Kendall's tau between -error rate and ppg against pubeval: {tau:.3f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(markdown(report))
    return 0


def markdown(report):
    classes = ("contact", "crashed", "race")
    head = ("| bot | mEMG (95%) | " + " | ".join(classes)
            + " | ppg vs pubeval (95%) | games |\n|---|---|" + "---|" * len(classes)
            + "---|---|\n")
    lines = []
    for r in report["rows"]:
        lo, hi = r["ci95"]
        ppg = ("-" if r["ppg_vs_pubeval"] is None else
               f"{r['ppg_vs_pubeval']:+.3f} ({r['ppg_ci95'][0]:+.3f} .. {r['ppg_ci95'][1]:+.3f})"
               if r["games"] else "0 (itself)")
        cls = " | ".join(f"{r['by_class'][c]:.2f}" if c in r["by_class"] else "-"
                         for c in classes)
        lines.append(f"| {r['bot']} | {r['error_rate']:.2f} ({lo:.2f} .. {hi:.2f}) | {cls} "
                     f"| {ppg} | {r['games'] or '-'} |")
    return head + "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
