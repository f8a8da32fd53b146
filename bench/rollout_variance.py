#!/usr/bin/env python3
"""How much the rollout's variance reductions buy, measured honestly.

(a) Quasi-random dice: rotate=True against rotate=False on three positions (the opening
    4HPwATDgc/ABMA, a middle-game contact position, a race), pubeval playing both sides.
(b) Variance reduction (luck adjustment): with the race evaluator on the race position, and
    with evaluator="gnubg" (GNU Backgammon 0-ply, needs gnubg_nn) on the opening position.

The measure is the EMPIRICAL standard deviation of the equity estimate over R independent
rollouts (seeds base, base + 1, ...; each rollout ``--trials`` trials). The standard error a
rollout reports assumes independent trials: it cannot see the stratification of the first
two rolls (rotate), so for rotation only the empirical spread tells the truth. Ratios are
sd(with) / sd(without): below 1 is a gain; the variance (and so the trials needed for the
same accuracy) falls with the square of the ratio. The 95% interval of a ratio is the
normal approximation on the log scale, exp(+-1.96 * sqrt(1/(2(R-1)) * 2)), treating the two
arms as independent (they share seeds, which only makes the true interval narrower).

The positions are bench/workloads.py's VARIANCE_POSITIONS. This measures accuracy, not
speed: the seconds it records are one run's, not a benchmark figure.

    python -m bench.rollout_variance --json variance.json
    python -m bench.rollout_variance --reps 40 --vr-reps 10 --no-gnubg     # quicker
    python -m bench.rollout_variance --quick                               # smoke run
"""
import argparse
import math
import statistics
import time

import fastbg
from bench import harness
from bench.workloads import OPENING_ID as OPENING
from bench.workloads import VARIANCE_POSITIONS as POSITIONS
from bench.workloads import VARIANCE_RACE_ID as RACE

QUICK = {"reps": 4, "vr_reps": 4, "trials": 144, "gnubg_reps": 3, "gnubg_trials": 36}


def spread(position, reps, seed0, **kw):
    """Equity estimates of ``reps`` rollouts: (estimates, mean reported SE, seconds)."""
    est, se = [], []
    t0 = time.perf_counter()
    for i in range(reps):
        r = fastbg.rollout(position, seed=seed0 + i, **kw)
        est.append(r.equity)
        se.append(r.equity_se)
    return est, statistics.fmean(se), time.perf_counter() - t0


def summary(est, reported_se, seconds):
    return {"mean": statistics.fmean(est), "sd": statistics.stdev(est),
            "reported_se": reported_se, "reps": len(est), "seconds": seconds}


def ratio(with_, without):
    """sd ratio and its approximate 95% interval."""
    r = with_["sd"] / without["sd"]
    half = 1.96 * math.sqrt(1.0 / (2 * (with_["reps"] - 1)) + 1.0 / (2 * (without["reps"] - 1)))
    return {"ratio": r, "ci95": [r * math.exp(-half), r * math.exp(half)],
            "reported_se_ratio": with_["reported_se"] / without["reported_se"],
            "variance_ratio": r * r}


def compare(label, position, reps, seed0, base_kw, on_kw, off_kw):
    on = summary(*spread(position, reps, seed0, **base_kw, **on_kw))
    off = summary(*spread(position, reps, seed0, **base_kw, **off_kw))
    row = {"label": label, "position": position, "reps": reps, "trials": base_kw["trials"],
           "with": on, "without": off, **ratio(on, off)}
    print(_line(row), flush=True)
    return row


HEAD = (f"{'measurement':42} {'R':>4} {'trials':>6} {'mean(with)':>11} {'sd with':>8} "
        f"{'sd w/o':>8} {'ratio':>6} {'95% CI':>13} {'rep.SE ratio':>12} {'var ratio':>9}")


def _line(r):
    lo, hi = r["ci95"]
    return (f"{r['label']:42} {r['reps']:4d} {r['trials']:6d} {r['with']['mean']:+11.4f} "
            f"{r['with']['sd']:8.4f} {r['without']['sd']:8.4f} {r['ratio']:6.3f} "
            f"{f'{lo:.2f}-{hi:.2f}':>13} {r['reported_se_ratio']:12.3f} "
            f"{r['variance_ratio']:9.3f}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=100, help="rollouts per arm, rotate (cheap)")
    ap.add_argument("--vr-reps", type=int, default=40, help="rollouts per arm, race VR")
    ap.add_argument("--trials", type=int, default=1296, help="trials per rollout")
    ap.add_argument("--gnubg-reps", type=int, default=12, help="rollouts per arm, gnubg VR")
    ap.add_argument("--gnubg-trials", type=int, default=648,
                    help="trials per rollout, gnubg VR (slow: ~100 trials/s)")
    ap.add_argument("--no-gnubg", action="store_true", help="skip the gnubg measurement")
    ap.add_argument("--bot", default="pubeval")
    ap.add_argument("--seed", type=int, default=1000, help="first seed of each arm")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--quick", action="store_true",
                    help="smoke-size run (" + ", ".join(f"--{k.replace('_', '-')} {v}"
                                                      for k, v in QUICK.items())
                         + "): too few rollouts for meaningful ratios")
    ap.add_argument("--json", dest="json_path", default=None)
    args = ap.parse_args(argv)
    if args.quick:
        for k, v in QUICK.items():
            setattr(args, k, v)
    if min(args.reps, args.vr_reps, args.gnubg_reps) < 3:
        ap.error("--reps, --vr-reps and --gnubg-reps must be at least 3")

    base = {"trials": args.trials, "bot": args.bot, "threads": args.threads}
    # Compile everything once, outside the measurements.
    fastbg.rollout(RACE, trials=36, variance_reduction=True, evaluator="race")
    fastbg.rollout(OPENING, trials=36, rotate=False)
    info = harness.machine("gnubg-nn")
    harness.print_machine(info, f"fastbg rollout variance; bot {args.bot}; seeds {args.seed}..")
    print("ratio = empirical sd(with) / sd(without) of the equity over R rollouts;"
          " rep.SE = the rollouts' own mean reported SE ratio")
    print(HEAD)
    rows = []
    for name, pos in POSITIONS.items():
        rows.append(compare(f"rotate on/off, {name}", pos, args.reps, args.seed, base,
                            {"rotate": True}, {"rotate": False}))
    rows.append(compare("VR race evaluator on/off, race", RACE, args.vr_reps, args.seed, base,
                        {"variance_reduction": True, "evaluator": "race"}, {}))
    if not args.no_gnubg:
        try:
            from fastbg.evaluators.gnubg_nn import probabilities
            probabilities(fastbg.START[None, :])
        except ImportError as exc:
            print(f"gnubg VR skipped: {exc}")
        else:
            gkw = {**base, "trials": args.gnubg_trials}
            rows.append(compare("VR gnubg 0-ply on/off, opening", OPENING, args.gnubg_reps,
                                args.seed, gkw,
                                {"variance_reduction": True, "evaluator": "gnubg"}, {}))
    harness.finish(info, args.json_path, {"options": vars(args), "rows": rows})
    return rows


if __name__ == "__main__":
    main()
