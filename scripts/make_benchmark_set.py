#!/usr/bin/env python3
"""Make (or resume) the benchmark set shipped with fastbg, fastbg/data/benchmarks/.

The set is data made by fastbg alone: decisions from games of the gnubg bot against
itself, their candidates rolled out by the gnubg bot (GNU Backgammon's networks as
fastbg plays them, 0-ply), truncated after 10 plies with variance reduction, the settings
that gave the smallest paired standard error per second of a 2-core machine
(docs/benchmarks.md section 4 gives the measurements and the provenance). Its journal,
benchmarks/fastbg-2026.journal, is kept in the repository: the run resumes from it after
Ctrl-C or a crash, in this session or a later one, with the same figures.

    python3 scripts/make_benchmark_set.py --help
    python3 scripts/make_benchmark_set.py                # make, or resume where it stopped
    python3 scripts/make_benchmark_set.py --per-class 20 --out /tmp/small.jsonl \\
        --journal /tmp/small.journal                      # a small set elsewhere
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OUT = os.path.join(ROOT, "fastbg", "data", "benchmarks", "fastbg-2026.jsonl.gz")
JOURNAL = os.path.join(ROOT, "benchmarks", "fastbg-2026.journal")
SETTINGS = dict(game_bots=("gnubg", "gnubg"), seed=2026, skip_plies=2, candidates=5,
                within=0.16, filter_ply=0, trials=1296, bot="gnubg", truncate=10,
                variance_reduction=True, evaluator="gnubg", chunk_size=216)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="The settings: " + ", ".join(
                                    f"{k}={v}" for k, v in SETTINGS.items()))
    p.add_argument("--per-class", type=int, default=1000,
                   help="decisions of each class: contact, crashed, race (default 1000)")
    p.add_argument("--out", default=OUT, help="the decisions file (default: the shipped set)")
    p.add_argument("--journal", default=JOURNAL, help="its journal (default: %(default)s)")
    p.add_argument("--ray", action="store_true", help="play the rollouts on a Ray cluster")
    p.add_argument("--fresh", action="store_true",
                   help="start again (refused while the journal exists: delete it first)")
    args = p.parse_args(argv)
    import fastbg
    resume = os.path.exists(args.journal) and not args.fresh
    made = fastbg.make_benchmark(
        args.out, decisions=None, journal=args.journal, resume=resume, progress=True,
        mix={k: args.per_class for k in ("contact", "crashed", "race")},
        backend="ray" if args.ray else "local", **SETTINGS)
    print(made.table())
    return 3 if made.partial else 0


if __name__ == "__main__":
    sys.exit(main())
