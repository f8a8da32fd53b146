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
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OUT = os.path.join(ROOT, "fastbg", "data", "benchmarks", "fastbg-2026.jsonl.gz")
PROVENANCE = os.path.join(ROOT, "fastbg", "data", "benchmarks", "fastbg-2026.json")
COMMAND = "python3 scripts/make_benchmark_set.py"
LICENCE = ("Rolled out by fastbg's gnubg bot (GNU Backgammon's neural networks as fastbg "
           "evaluates them, 0-ply). The results are data, not GNU Backgammon's program, and "
           "ship under fastbg's MIT licence with this provenance.")
JOURNAL = os.path.join(ROOT, "benchmarks", "fastbg-2026.journal")
sys.path.insert(0, ROOT)
from bench.harness import cpu_model  # noqa: E402  (the repository's bench/, beside scripts/)
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
    p.add_argument("--provenance", default=None,
                   help="write the provenance file here (default: beside the shipped set, "
                        "when --out is the shipped set)")
    args = p.parse_args(argv)
    import fastbg
    resume = os.path.exists(args.journal) and not args.fresh
    before = _decisions_in(args.journal) if resume else 0
    t0, started = time.perf_counter(), time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    made = fastbg.make_benchmark(
        args.out, decisions=None, journal=args.journal, resume=resume, progress=True,
        mix={k: args.per_class for k in ("contact", "crashed", "race")},
        backend="ray" if args.ray else "local", **SETTINGS)
    print(made.table())
    where = args.provenance or (PROVENANCE if os.path.abspath(args.out) == OUT else None)
    if where:
        session = {"started": started, "seconds": round(time.perf_counter() - t0, 1),
                   "decisions_before": before, "decisions_after": made.decisions,
                   "cpu": cpu_model(), **cpu_family(), "cpus": os.cpu_count(), "ray": args.ray,
                   "fastbg": fastbg.__version__}
        write_provenance(where, made, session)
    return 3 if made.partial else 0


def _decisions_in(journal):
    """Decisions already rolled out in a journal (its lines after the header and plan)."""
    with open(journal, encoding="utf-8") as f:
        return max(0, sum(1 for _ in f) - 2)


def cpu_family():
    """{"cpu_family", "cpu_model_number"} from /proc/cpuinfo (the model name alone, e.g.
    "AMD EPYC", does not tell Zen generations apart); empty where unknown."""
    out = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                key = key.strip()
                if key == "cpu family" and "cpu_family" not in out:
                    out["cpu_family"] = int(value)
                elif key == "model" and "cpu_model_number" not in out:
                    out["cpu_model_number"] = int(value)
    except (OSError, ValueError):
        pass
    return out


def write_provenance(path, made, session):
    """The set's provenance: what made it, with which settings and seeds, the command
    that regenerates it, and every session that worked on it (appended)."""
    old = {}
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            old = json.load(f)
    info = {"set": os.path.basename(made.path), "command": COMMAND, "licence": LICENCE,
            "settings": made.settings, "games_harvested": made.games,
            "decisions": made.decisions, "planned": made.planned, "complete": not made.partial,
            "by_class": made.by_class, "journal": os.path.relpath(JOURNAL, ROOT),
            "sessions": old.get("sessions", []) + [session]}
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(info, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)


if __name__ == "__main__":
    sys.exit(main())
