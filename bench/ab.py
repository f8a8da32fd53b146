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

``--same-process`` times both trees in one process instead, timing by timing in turn,
and reports the median of the paired ratios. On a shared host whose speed drifts from
minute to minute (AMD EPYC, 2026-12-07: an untouched workload's new/old came out at
1.275 from alternating processes), two processes see different machines, while the
two timings of a pair, a few milliseconds apart, see the same one. Each tree's
``fastbg`` package is copied under another name (``fastbg_old``, ``fastbg_new``: its
imports of itself rewritten, :func:`renamed_copy`) into ``--copies`` (kept, so that
their numba caches are too). The copy imported second ran about 4% faster in those
runs on one thread, and on two threads the copy imported first 15-25% faster, so each
round swaps the import order; both orders' medians are reported, and new/old is their
geometric mean (an order's bias cancels in it).

    python -m bench.ab --old /tmp/old --same-process --only ply --only hints
"""
import argparse
import inspect
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

from bench import harness

def workloads_of(fb, pos, rolls):
    """{name: callable} of the timed workloads with the package ``fb`` (fastbg or a
    renamed copy), on the positions ``pos`` and hint rolls ``rolls``."""
    net = fb.gnubg_net()
    return {
        "play 20,000 random vs random": lambda: fb.play(20_000, ("random", "random"), seed=1),
        "play 10,000 pubeval vs pubeval": lambda: fb.play(10_000, ("pubeval", "pubeval"),
                                                          seed=1),
        "play 300 gnubg vs pubeval": lambda: fb.play(300, ("gnubg", "pubeval"), seed=1),
        "GnubgNet.scores, 40,000 results": lambda: net.scores(pos),
        "GnubgNet.probabilities, 40,000 positions": lambda: net.probabilities(pos),
        "VR rollout, 72 trials, gnubg": lambda: fb.rollout(
            "4HPwATDgc/ABMA", trials=72, bot="gnubg", variance_reduction=True,
            evaluator="gnubg"),
        # the n-ply search (fastbg keeps no evaluation cache: the same positions each timing)
        "1-ply probabilities, 200 positions": lambda: net.probabilities(pos[:200], ply=1),
        "2-ply probabilities, 10 positions": lambda: net.probabilities(pos[200:210], ply=2),
        "1-ply hints, 100 (position, roll) pairs": lambda: fb.hint_batch(
            pos[300:400], rolls, ply=1),
    }


def selected(name, only):
    """Whether workload ``name`` is timed under ``--only`` ``only``."""
    return not only or any(o.lower() in name.lower() for o in only)


CHILD = r"""
import json, sys, time
import numba
numba.set_num_threads(int(sys.argv[3]))
import numpy as np
import fastbg
from bench import workloads
__SHARED__
timings = int(sys.argv[1])
only = json.loads(sys.argv[2])
pos = workloads.net_positions(40_000, seed=1)
rolls = np.random.default_rng(1).integers(1, 7, (100, 2))
out = {}
for name, fn in workloads_of(fastbg, pos, rolls).items():
    if not selected(name, only):
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

# --same-process: both copies in one process, each timing of one followed by one of the
# other (the pair's order alternating), every pair's ratio new / old kept.
SAME_CHILD = r"""
import importlib, json, sys, time
sys.path.insert(0, sys.argv[4])
import numba
numba.set_num_threads(int(sys.argv[3]))
import numpy as np
from bench import workloads
__SHARED__
timings = int(sys.argv[1])
only = json.loads(sys.argv[2])
order = json.loads(sys.argv[5])            # the copies' names, in import order
mods = {name: importlib.import_module(name) for name in order}
pos = workloads.net_positions(40_000, seed=1)
rolls = np.random.default_rng(1).integers(1, 7, (100, 2))
work = {name: workloads_of(m, pos, rolls) for name, m in mods.items()}
out = {}
for w in work[order[0]]:
    if not selected(w, only):
        continue
    for name in order:
        work[name][w]()                    # compile or load from the cache
    ts = {name: [] for name in order}
    for k in range(timings):
        for name in (order if k % 2 == 0 else order[::-1]):
            t = time.perf_counter()
            work[name][w]()
            ts[name].append(time.perf_counter() - t)
    out[w] = ts
print(json.dumps(out))
"""

# The children hold the workloads' code itself: with PYTHONPATH at the other checkout
# first, ``bench`` is that checkout's, which may predate these functions.
_SHARED = inspect.getsource(workloads_of) + "\n\n" + inspect.getsource(selected)
CHILD = CHILD.replace("__SHARED__", _SHARED)
SAME_CHILD = SAME_CHILD.replace("__SHARED__", _SHARED)

# What :func:`renamed_copy` rewrites: a dotted use of the package (``fastbg.x``, in
# imports, code and strings alike), ``import fastbg`` / ``from fastbg import`` and the
# package's data files (``resources.files("fastbg")``). Other bare ``"fastbg"`` strings
# (the name of fastbg's own networks, a bot's name) stay as they are.
_DOTTED = re.compile(r"\bfastbg(?=\.[A-Za-z_])")
_IMPORT = re.compile(r"^(\s*(?:import|from)\s+)fastbg\b(?!\.)", re.M)
_DATA = re.compile(r"(\bfiles\(\s*[\"'])fastbg(?=[\"']\s*\))")


def renamed_copy(tree, name, dest):
    """Copy the ``fastbg`` package of checkout ``tree`` to ``dest/name``, its imports of
    itself rewritten to ``name``: another importable copy, beside fastbg in one process.
    Files whose rewritten text is unchanged keep their modification times (numba's cache
    of a copy stays valid from one run to the next)."""
    src = os.path.join(tree, "fastbg")
    out = os.path.join(dest, name)
    for folder, dirs, files in os.walk(src):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        target = os.path.join(out, os.path.relpath(folder, src))
        os.makedirs(target, exist_ok=True)
        for f in files:
            a, b = os.path.join(folder, f), os.path.join(target, f)
            if f.endswith(".py"):
                with open(a, encoding="utf-8") as fh:
                    text = _DOTTED.sub(name, fh.read())
                    text = _DATA.sub(r"\g<1>" + name, _IMPORT.sub(r"\g<1>" + name, text))
                old = None
                if os.path.exists(b):
                    with open(b, encoding="utf-8") as fh:
                        old = fh.read()
                if old != text:
                    with open(b, "w", encoding="utf-8") as fh:
                        fh.write(text)
            elif not os.path.exists(b) or os.path.getmtime(b) < os.path.getmtime(a):
                shutil.copy2(a, b)
    return out


def run_same(copies, order, timings, only=(), threads=1):
    """One process timing the renamed copies in ``copies`` (imported in ``order``) in
    turn: {workload: {name: [seconds, ...]}}."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=here)
    args = [sys.executable, "-c", SAME_CHILD, str(timings), json.dumps(list(only)),
            str(threads), copies, json.dumps(list(order))]
    out = subprocess.run(args, env=env, cwd=copies, capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


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
    ap.add_argument("--rounds", type=int, default=4, help="rounds of one process per tree, "
                    "or with --same-process of one process for both (4)")
    ap.add_argument("--timings", type=int, default=8, help="timings per workload a process (8)")
    ap.add_argument("--only", action="append", default=[], metavar="TEXT",
                    help="time only the workloads whose names contain TEXT (any case; "
                         "repeat for several), e.g. --only 1-ply --only hints")
    ap.add_argument("--threads", type=int, default=1,
                    help="numba threads of each process (1; the n-ply search and the "
                         "networks' batches use them all)")
    ap.add_argument("--same-process", action="store_true",
                    help="time both trees in one process, in turn, timing by timing (renamed "
                         "copies of each tree's fastbg package); report the medians of the "
                         "paired ratios: for hosts whose speed drifts between processes")
    ap.add_argument("--copies", metavar="DIR",
                    default=os.path.join(tempfile.gettempdir(), "fastbg-ab-copies"),
                    help="with --same-process: where the renamed copies (and so their numba "
                         "caches) are kept (default: fastbg-ab-copies in the temporary folder)")
    ap.add_argument("--json", metavar="PATH", help="also write the figures to PATH as JSON")
    a = ap.parse_args(argv)
    if a.threads < 1:
        ap.error("--threads must be at least 1")
    if a.rounds < 1 or a.timings < 1:
        ap.error("--rounds and --timings must be at least 1")
    new = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    trees = {"old": os.path.abspath(a.old), "new": new}
    if not os.path.isfile(os.path.join(trees["old"], "fastbg", "__init__.py")):
        ap.error(f"--old {a.old}: no fastbg package there (a checkout's root folder)")
    info = harness.machine()
    if a.same_process:
        rows = _same_process(a, trees, info)
    else:
        rows = _alternating(a, trees, info)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"machine": info, "old": trees["old"], "threads": a.threads,
                       "same_process": a.same_process, "rows": rows}, f, indent=1)


def _alternating(a, trees, info):
    """One process per tree and round, in alternating order; the rows of the report."""
    for root in trees.values():                       # warm each tree's cache
        run_tree(root, 1, a.only, a.threads)
    samples = {"old": {}, "new": {}}
    for r in range(a.rounds):
        order = ("old", "new") if r % 2 == 0 else ("new", "old")
        for key in order:
            for name, ts in run_tree(trees[key], a.timings, a.only, a.threads).items():
                samples[key].setdefault(name, []).extend(ts)
    harness.print_machine(info, f"A/B, {a.threads} thread(s): medians in seconds")
    print(f"{'workload':44s} {'old':>8s} {'new':>8s} {'new/old':>8s}")
    rows = []
    for name in samples["new"]:
        o = statistics.median(samples["old"][name])
        n = statistics.median(samples["new"][name])
        rows.append({"workload": name, "old": o, "new": n, "ratio": n / o})
        print(f"{name:44s} {o:8.4f} {n:8.4f} {n / o:8.3f}")
    return rows


def _same_process(a, trees, info):
    """Both trees in each process, timing by timing in turn; the rows of the report: the
    medians of the paired ratios new / old by which copy was imported first, and their
    geometric mean."""
    names = {"old": "fastbg_old", "new": "fastbg_new"}
    os.makedirs(a.copies, exist_ok=True)
    for key, root in trees.items():
        renamed_copy(root, names[key], a.copies)
    both = (names["old"], names["new"])
    run_same(a.copies, both, 1, a.only, a.threads)    # fill both copies' caches
    ratios = {}                                       # workload -> import order -> [ratio]
    medians = {}
    for r in range(a.rounds):
        order = both if r % 2 == 0 else both[::-1]
        for w, ts in run_same(a.copies, order, a.timings, a.only, a.threads).items():
            pairs = [n / o for o, n in zip(ts[names["old"]], ts[names["new"]])]
            ratios.setdefault(w, {}).setdefault(order[0], []).extend(pairs)
            for key in names:
                medians.setdefault(w, {}).setdefault(key, []).extend(ts[names[key]])
    harness.print_machine(info, f"A/B in one process, {a.threads} thread(s): medians of the "
                                "paired ratios new/old by the copy imported first, and "
                                "their geometric mean")
    print(f"{'workload':44s} {'old (s)':>8s} {'new (s)':>8s} {'old 1st':>8s} {'new 1st':>8s}"
          f" {'new/old':>8s}")
    rows = []
    for w, by_order in ratios.items():
        o = statistics.median(medians[w]["old"])
        n = statistics.median(medians[w]["new"])
        first = [statistics.median(by_order[k]) if k in by_order else float("nan")
                 for k in both]
        # an import-order bias is a factor on one order's ratios and its inverse on the
        # other's: their geometric mean cancels it
        every = statistics.geometric_mean([statistics.median(v) for v in by_order.values()])
        rows.append({"workload": w, "old": o, "new": n, "ratio_old_first": first[0],
                     "ratio_new_first": first[1], "ratio": every})
        print(f"{w:44s} {o:8.4f} {n:8.4f} {first[0]:8.3f} {first[1]:8.3f} {every:8.3f}")
    return rows


if __name__ == "__main__":
    main()
