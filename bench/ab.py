"""Speed of this tree against another checkout of fastbg (A/B), on one thread (or more).

Each round runs one process per tree, in alternating order (the trees are imported from
their own folders through PYTHONPATH, each with its own warm numba cache, so compilation
is not timed); every process times each workload ``--timings`` times. The medians over
all rounds are reported, with new/old. The workloads are the hot paths that a kernel
change can slow: games of the built-in bots, the gnubg networks' batch kernel (scores
and probabilities of distinct positions), a variance-reduced gnubg rollout, and the n-ply
search (1-ply and 2-ply probabilities, 1-ply hints).

    git worktree add --detach /tmp/old <commit>
    python -m bench.ab --old /tmp/old [--rounds 4] [--timings 8] [--only 1-ply] [--json ab.json]
    python -m bench.ab --old /tmp/old --threads 2 --only ply --only hints

The first round of each tree also fills its numba cache (its figures are dropped).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

from bench import harness

CHILD = r"""
import json, sys, time
import numba
numba.set_num_threads(int(sys.argv[3]))
import numpy as np
import fastbg
from bench import workloads

timings = int(sys.argv[1])
only = json.loads(sys.argv[2])
pos = workloads.net_positions(40_000, seed=1)
net = fastbg.gnubg_net()
rolls = np.random.default_rng(1).integers(1, 7, (100, 2))
work = {
    "play 20,000 random vs random": lambda: fastbg.play(20_000, ("random", "random"), seed=1),
    "play 10,000 pubeval vs pubeval": lambda: fastbg.play(10_000, ("pubeval", "pubeval"),
                                                          seed=1),
    "play 300 gnubg vs pubeval": lambda: fastbg.play(300, ("gnubg", "pubeval"), seed=1),
    "GnubgNet.scores, 40,000 results": lambda: net.scores(pos),
    "GnubgNet.probabilities, 40,000 positions": lambda: net.probabilities(pos),
    "VR rollout, 72 trials, gnubg": lambda: fastbg.rollout(
        "4HPwATDgc/ABMA", trials=72, bot="gnubg", variance_reduction=True,
        evaluator="gnubg"),
    # the n-ply search (fastbg keeps no evaluation cache: the same positions each timing)
    "1-ply probabilities, 200 positions": lambda: net.probabilities(pos[:200], ply=1),
    "2-ply probabilities, 10 positions": lambda: net.probabilities(pos[200:210], ply=2),
    "1-ply hints, 100 (position, roll) pairs": lambda: fastbg.hint_batch(
        pos[300:400], rolls, ply=1),
}
out = {}
for name, fn in work.items():
    if only and not any(o.lower() in name.lower() for o in only):
        continue
    fn()                                   # compile or load from the cache
    ts = []
    for _ in range(timings):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    out[name] = ts
print(json.dumps(out))
"""


def run_tree(root, timings, only=(), threads=1):
    """One process of the tree at ``root`` on ``threads`` numba threads: {workload:
    [seconds, ...]} (the workloads whose names contain one of ``only``, or all)."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ)
    # the tree's fastbg first; this tree's bench package for the workloads
    env["PYTHONPATH"] = os.pathsep.join([root, here])
    args = [sys.executable, "-c", CHILD, str(timings), json.dumps(list(only)), str(threads)]
    out = subprocess.run(args, env=env, cwd=root,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", required=True, help="folder of the other checkout (the base)")
    ap.add_argument("--rounds", type=int, default=4, help="rounds of one process per tree (4)")
    ap.add_argument("--timings", type=int, default=8, help="timings per workload a process (8)")
    ap.add_argument("--only", action="append", default=[], metavar="TEXT",
                    help="time only the workloads whose names contain TEXT (any case; "
                         "repeat for several), e.g. --only 1-ply --only hints")
    ap.add_argument("--threads", type=int, default=1,
                    help="numba threads of each process (1; the n-ply search and the "
                         "networks' batches use them all)")
    ap.add_argument("--json", metavar="PATH", help="also write the figures to PATH as JSON")
    a = ap.parse_args(argv)
    if a.threads < 1:
        ap.error("--threads must be at least 1")
    new = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    trees = {"old": os.path.abspath(a.old), "new": new}
    for root in trees.values():                       # warm each tree's cache
        run_tree(root, 1, a.only, a.threads)
    samples = {"old": {}, "new": {}}
    for r in range(a.rounds):
        order = ("old", "new") if r % 2 == 0 else ("new", "old")
        for key in order:
            for name, ts in run_tree(trees[key], a.timings, a.only, a.threads).items():
                samples[key].setdefault(name, []).extend(ts)
    info = harness.machine()
    harness.print_machine(info, f"A/B, {a.threads} thread(s): medians in seconds")
    print(f"{'workload':44s} {'old':>8s} {'new':>8s} {'new/old':>8s}")
    rows = []
    for name in samples["new"]:
        o = statistics.median(samples["old"][name])
        n = statistics.median(samples["new"][name])
        rows.append({"workload": name, "old": o, "new": n, "ratio": n / o})
        print(f"{name:44s} {o:8.4f} {n:8.4f} {n / o:8.3f}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"machine": info, "old": trees["old"], "threads": a.threads,
                       "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
