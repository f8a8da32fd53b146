"""fastbg's own networks against GNU Backgammon's in fastbg's kernels, side by side.

Both are networks in GNU Backgammon's layout run by the same kernels, so they should go
at the same speed; this measures it (issue 32's speed target: the own networks evaluate,
and roll out, at least as fast as the gnubg networks in fastbg). Workloads, in one run
with repetitions interleaved: 0-ply evaluations of the same distinct positions
(bench/workloads.py's ``net_positions``) by ``fastbg.fastbg_net()`` and
``fastbg.gnubg_net()``, and money games of each network's bot against itself
(``fastbg.play``, the same seeds), on every numba thread.

    python -m bench.own_nets --repeat 5
    python -m bench.own_nets --quick
"""
import argparse
import statistics
import sys

import fastbg
from bench import harness, workloads

QUICK = {"positions": 20_000, "games": 500, "repeat": 2}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--positions", type=int, default=200_000, help="positions evaluated")
    ap.add_argument("--games", type=int, default=5_000, help="games each bot plays itself")
    ap.add_argument("--repeat", type=int, default=3, help="interleaved repetitions")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--quick", action="store_true", help="a smoke run")
    ap.add_argument("--json", metavar="PATH", help="also write the figures to PATH as JSON")
    args = ap.parse_args(argv)
    if args.quick:
        for k, v in QUICK.items():
            setattr(args, k, v)
    if not workloads.have_gnubg():
        sys.exit("GNU Backgammon's networks (the gnubg extra) are not installed: "
                 "pip install 'fastbg[gnubg]'")
    info = harness.machine()
    harness.print_machine(info, "fastbg's own networks against GNU Backgammon's, same kernels")
    nets = {"fastbg": fastbg.fastbg_net(), "gnubg": fastbg.gnubg_net()}
    boards = workloads.net_positions(args.positions, args.seed)
    for name, net in nets.items():                  # compile and warm up
        net(boards[:1000])
        fastbg.play(20, (name, name), seed=args.seed)

    def evals(net):
        return lambda rep: len(boards) / harness.measure(lambda: net(boards))

    def games(name):
        return lambda rep: args.games / harness.measure(
            lambda: fastbg.play(args.games, (name, name), seed=args.seed + rep))

    runs = {}
    for name, net in nets.items():
        runs[f"{name} evaluations"] = evals(net)
        runs[f"{name} games"] = games(name)
    samples = harness.interleaved(runs, args.repeat)
    median = harness.medians(samples)
    print(f"\nmedian of {args.repeat} interleaved repetitions (min .. max)")
    ratios = {}
    for what in ("evaluations", "games"):
        own, theirs = samples[f"fastbg {what}"], samples[f"gnubg {what}"]
        ratios[what] = statistics.median(a / b for a, b in zip(own, theirs))
        for name in ("fastbg", "gnubg"):
            key = f"{name} {what}"
            print(f"{key:<20} {harness.fmt_rate(median[key]):>10}/s  {harness.spread(samples[key])}")
        print(f"{'':<20} fastbg / gnubg: {ratios[what]:.2f}x")
    harness.finish(info, args.json, {"options": vars(args), "rates": samples,
                                     "median_rates": median, "median_ratio": ratios})
    return 0


if __name__ == "__main__":
    sys.exit(main())
