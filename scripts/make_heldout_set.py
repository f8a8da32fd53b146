#!/usr/bin/env python3
"""Make (or resume) the held-out equity set: positions no fastbg network has seen, rolled
out by another engine (bgsage, Open Sage), to measure networks' cubeless equity error.

The positions are wildbg's published contact and race positions (fastbg/data/
wildbg-*-ids.txt: positions from another engine's games, used nowhere in training), the
first of each class in file order, classed as fastbg classes them (contact, crashed,
race). Each is rolled out by bgsage (its own networks and bear-off database, cubeless,
its 1-ply (GNU Backgammon's 0-ply) move choices, truncated at --truncate plies), trial
seeds a pure function of (--seed, the position's index): a resumed run gives the same
figures. Every finished position is appended to the journal at once, so Ctrl-C or a crash
loses at most the position in progress; rerun the same command to continue.

The set judges only (docs/training.md): `fastbg.score_benchmark(path, net)` gives a
network's mean |equity error| by class, and `scripts/train_nets.py judge` compares each
generation's with GNU Backgammon 0-ply's. bgsage's outputs never become training targets.

    python3 scripts/make_heldout_set.py --help
    python3 scripts/make_heldout_set.py                 # make, or resume where it stopped
    python3 scripts/make_heldout_set.py --contact 4 --crashed 2 --race 4 --trials 36 \\
        --out /tmp/small.jsonl                          # a small set elsewhere
"""
import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OUT = os.path.join(ROOT, "benchmarks", "heldout-bgsage.jsonl.gz")
SOURCES = [os.path.join(ROOT, "fastbg", "data", f"wildbg-{k}-ids.txt") for k in ("contact", "race")]
sys.path.insert(0, ROOT)
from bench.harness import cpu_model  # noqa: E402  (the repository's bench/, beside scripts/)


def source_positions():
    """Every position of the source files, once, in file order: (Position ID, file name)."""
    seen, out = set(), []
    for path in SOURCES:
        with open(path, encoding="ascii") as f:
            for line in f:
                pid = line.split("#")[0].strip()
                if pid and pid not in seen:
                    seen.add(pid)
                    out.append((pid, os.path.basename(path)))
    return out


def plan(counts):
    """The positions to roll out: the first ``counts[class]`` of each class, in file order,
    as (index in the source list, Position ID, class, file name)."""
    import numpy as np
    import fastbg
    from fastbg.benchmarks import position_classes
    src = source_positions()
    classes = position_classes(np.stack([fastbg.board_from_position_id(p) for p, _ in src]))
    taken = {k: 0 for k in counts}
    out = []
    for i, ((pid, name), cls) in enumerate(zip(src, classes)):
        if taken.get(cls, counts.get(cls, 0)) < counts.get(cls, 0):
            taken[cls] += 1
            out.append((i, pid, cls, name))
    short = {k: (taken[k], n) for k, n in counts.items() if taken[k] < n}
    return out, short


def read_journal(path, settings):
    """The positions a journal already holds, by Position ID; a journal made with other
    settings is refused (its figures would mix two kinds of rollout)."""
    done = {}
    if not os.path.exists(path):
        return done
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    if not lines or json.loads(lines[0]).get("settings") != settings:
        sys.exit(f"{path} was made with other settings: delete it, or use --out elsewhere")
    for n, line in enumerate(lines[1:], 2):
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            if n < len(lines):
                raise
            # the last line torn by a crash: cut it off (the position is rolled out again)
            with open(path, "w", encoding="utf-8") as f:
                f.write("\n".join(lines[:-1]) + "\n")
            break
        done[rec["position"]] = rec
    return done


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("--contact", type=int, default=300, help="contact positions (300)")
    p.add_argument("--crashed", type=int, default=300,
                   help="crashed positions (300; the sources hold 63)")
    p.add_argument("--race", type=int, default=300, help="race positions (300)")
    p.add_argument("--trials", type=int, default=324, help="trials a position (324)")
    p.add_argument("--truncate", type=int, default=10,
                   help="plies before each trial is evaluated by bgsage (10; 0: to the end)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--threads", type=int, default=0, help="bgsage's threads (0: every core)")
    p.add_argument("--out", default=OUT, help="the positions file (default %(default)s); "
                   "its journal is the same path with .journal")
    args = p.parse_args(argv)
    try:
        import bgsage
    except ImportError:
        sys.exit("bgsage is not installed: pip install 'fastbg[bgsage]'")
    from tqdm import tqdm
    import fastbg
    from fastbg.benchmarks import PositionTarget, write_positions
    from fastbg.training.supervised import consistent

    counts = {"contact": args.contact, "crashed": args.crashed, "race": args.race}
    settings = {"engine": "bgsage", "bgsage": getattr(bgsage, "__version__", None) or
                _version("bgsage"), "eval_level": "rollout", "cubeful": False,
                "decision_ply": 1, "trials": args.trials, "truncate": args.truncate,
                "seed": args.seed}
    todo, short = plan(counts)
    for k, (have, want) in short.items():
        print(f"{k}: the sources hold {have} of the {want} asked for", file=sys.stderr)
    journal = os.path.splitext(args.out[:-3] if args.out.endswith(".gz") else args.out)[0] \
        + ".journal"
    done = read_journal(journal, settings)
    if not done:
        os.makedirs(os.path.dirname(os.path.abspath(journal)), exist_ok=True)
        with open(journal, "w", encoding="utf-8") as f:
            f.write(json.dumps({"settings": settings}) + "\n")
    analyzer = bgsage.create_analyzer("rollout", cubeful=False, parallel_threads=args.threads,
                                      seed=args.seed, n_trials=args.trials,
                                      truncation_depth=args.truncate, decision_ply=1)
    t0 = time.perf_counter()
    rest = [t for t in todo if t[1] not in done]
    with open(journal, "a", encoding="utf-8") as f, \
            tqdm(total=len(todo), initial=len(todo) - len(rest), unit="position",
                 desc="bgsage rollouts") as bar:
        for i, pid, cls, name in rest:
            analyzer.set_seed(args.seed * 1_000_003 + i)   # the same figures when resumed
            r = analyzer.cube_action(fastbg.board_from_position_id(pid).tolist())
            pr = r.probs
            # clipped as fastbg's own rollout targets are: variance reduction estimates
            # each probability apart, and one can step outside its range by a little
            rec = {"position": pid, "probs": consistent([pr.win, pr.gammon_win,
                                                         pr.backgammon_win, pr.gammon_loss,
                                                         pr.backgammon_loss]),
                   "se": None, "equity_se": r.cubeless_se, "class": cls, "source": name}
            f.write(json.dumps(rec) + "\n")
            f.flush()
            done[pid] = rec
            bar.update(1)
    seconds = time.perf_counter() - t0
    targets = [PositionTarget(d["position"], d["probs"], None,
                              {"class": d["class"], "equity_se": d["equity_se"],
                               "source": d["source"]})
               for d in (done[pid] for _, pid, _, _ in todo)]
    write_positions(args.out, targets)
    by_class = {}
    for t in targets:
        by_class.setdefault(t.extra["class"], []).append(t.extra["equity_se"])
    prov = {"set": os.path.basename(args.out), "command": "python3 scripts/make_heldout_set.py",
            "settings": settings, "counts": {k: len(v) for k, v in by_class.items()},
            "mean_equity_se": {k: round(sum(v) / len(v), 5) for k, v in by_class.items()},
            "sources": [os.path.relpath(s, ROOT) for s in SOURCES],
            "licence": "Rolled out by bgsage (Open Sage, MPL-2.0): its outputs, used by "
                       "fastbg to judge networks, never to train them.",
            "last_session": {"seconds": round(seconds, 1), "positions": len(rest),
                             "cpu": cpu_model(), "cpus": os.cpu_count(),
                             "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}}
    base = args.out[:-3] if args.out.endswith(".gz") else args.out
    with open(os.path.splitext(base)[0] + ".json", "w", encoding="utf-8") as f:
        json.dump(prov, f, indent=1)
        f.write("\n")
    print(f"{len(targets):,} positions ({', '.join(f'{k} {v}' for k, v in prov['counts'].items())}),"
          f" mean equity standard error {prov['mean_equity_se']}: {args.out}")
    return 0


def _version(dist):
    from importlib.metadata import version
    return version(dist)


if __name__ == "__main__":
    sys.exit(main())
