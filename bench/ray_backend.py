"""The Ray backend against this process, side by side in one run (docs/cluster.md).

Contestants, on the same jobs (every Ray result is checked bit-identical with the local
one):

* ``local``: the job in this process on ``--threads`` numba threads (default 2);
* ``ray``: the same job as tasks of a local Ray instance this script starts with
  ``--cpus`` CPUs (default 2), one CPU and one numba thread a task
  (``fastbg.RayCluster(cpus_per_task=1)``): as many one-thread workers as CPUs, the driver
  (this process) sharing the machine with them.

Jobs: ``--games`` (400,000) random-vs-random games (``fastbg.play``, chunks sized by the
measured speed), and a file of ``--positions`` (20) positions x ``--trials`` (1,296)
trials (``fastbg.rollout_many``: one task a position), bot ``--bot`` (pubeval).

Per-task overhead, two ways: the driver's rate for trivial tasks through
``RayCluster.map`` (tasks/s, with the default window of two tasks a slot in flight, where
each task's round trip shows, and with ``--noop-window`` (64) in flight, where the
driver's own work per task does: ``d`` of docs/cluster.md's scaling model), and for every
Ray job
``(wall time x task slots - the tasks' summed compute time) / tasks``: the time a task
slot spends on anything but computing its chunk (scheduling, shipping the job's context
and the results, the driver's merge, idle slots at the end of the job).

    python -m bench.ray_backend --repeat 3 --json ray.json
    python -m bench.ray_backend --quick               # smoke run
"""
import argparse
import os
import pathlib
import statistics
import sys
import tempfile
import time
from contextlib import closing

import numpy as np

import fastbg
from bench import harness, workloads

QUICK = {"games": 20_000, "positions": 4, "trials": 144, "repeat": 1, "noop_tasks": 200}
GAME_FIELDS = ("winner", "kind", "points", "plies", "first", "cube", "dropped")


def same(a, b):
    """True when two results of the same job hold the same bits."""
    if isinstance(a, fastbg.GameResults):
        return all(np.array_equal(getattr(a, k), getattr(b, k)) for k in GAME_FIELDS)
    return a.to_dict() == b.to_dict()


def noop_rate(cluster, n):
    """Trivial tasks per second through the backend's ordered map (``abs(i)``)."""
    t0 = time.perf_counter()
    with closing(cluster.map(abs, [(i,) for i in range(n)], "fastbg noop")) as results:
        for _ in results:
            pass
    return n / (time.perf_counter() - t0)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=400_000, help="random games (400,000)")
    ap.add_argument("--positions", type=int, default=20, help="positions in the file (20)")
    ap.add_argument("--trials", type=int, default=1296, help="trials a position (1,296)")
    ap.add_argument("--bot", default="pubeval", help="the rollouts' bot (pubeval)")
    ap.add_argument("--threads", type=int, default=2, help="local numba threads (2)")
    ap.add_argument("--cpus", type=int, default=2, help="CPUs of the Ray instance (2)")
    ap.add_argument("--repeat", type=int, default=3, help="interleaved repetitions (3)")
    ap.add_argument("--noop-tasks", type=int, default=2000,
                    help="trivial tasks timed for the driver's task rate (2,000)")
    ap.add_argument("--noop-window", type=int, default=64,
                    help="tasks in flight for the driver's own rate (64)")
    args = harness.parse(ap, argv, QUICK)
    try:
        import ray
    except ImportError:
        print("ray is not installed: pip install 'fastbg[ray]'")
        return 1

    info = harness.machine("ray")
    harness.print_machine(info, "fastbg on Ray against fastbg in this process, side by side")
    t0 = time.perf_counter()
    ray.init(num_cpus=args.cpus, include_dashboard=False, _node_ip_address="127.0.0.1",
             log_to_driver=False)
    print(f"Ray {ray.__version__}: a local instance of {args.cpus} CPUs started in "
          f"{time.perf_counter() - t0:.1f} s")
    cluster = fastbg.RayCluster(cpus_per_task=1)
    slots = cluster.slots()
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(workloads.position_file(os.path.join(tmp, "positions.txt"),
                                                    args.positions))
        jobs = {
            "random games": (args.games, "games", lambda where: fastbg.play(
                args.games, ("random", "random"), seed=1, threads=args.threads, backend=where)),
            f"file of positions, {args.bot}": (args.positions * args.trials, "trials",
                                               lambda where: fastbg.rollout_many(
                path, trials=args.trials, seed=1, bot=args.bot, threads=args.threads,
                backend=where)),
        }
        # Warm up: compile here, and load the kernels in every worker (more tasks than them).
        fastbg.play(4000, ("random", "random"), seed=0, chunk_size=500, backend=cluster)
        fastbg.rollout_many(path, trials=36, seed=0, bot=args.bot, backend=cluster)
        reference = {job: run("local") for job, (_, _, run) in jobs.items()}
        harness.note_threading_layer(info)
        overhead = {job: [] for job in jobs}

        def contestant(job, where):
            n, _, run = jobs[job]

            def timed(rep):
                t = time.perf_counter()
                res = run(cluster if where == "ray" else "local")
                dt = time.perf_counter() - t
                assert same(res, reference[job]), f"{job}: Ray and local results differ"
                if where == "ray":
                    log = cluster.last
                    busy = sum(t.seconds for t in log)
                    overhead[job].append({"tasks": len(log), "wall_s": dt, "compute_s": busy,
                                          "per_task_s": (dt * slots - busy) / len(log)})
                return n / dt
            return timed

        runs = {(job, where): contestant(job, where) for job in jobs for where in ("local", "ray")}
        samples = harness.interleaved(runs, args.repeat)
    deep = fastbg.RayCluster(cpus_per_task=1, in_flight=args.noop_window)
    noop = {"default": [], "deep": []}
    for _ in range(max(1, args.repeat)):
        noop["default"].append(noop_rate(cluster, args.noop_tasks))
        noop["deep"].append(noop_rate(deep, args.noop_tasks))
    ray.shutdown()

    median = harness.medians(samples)
    print(f"\nmedian of {args.repeat} interleaved repetitions (min .. max); local: "
          f"{args.threads} numba threads in this process; ray: {slots} one-thread tasks at "
          "a time")
    print(f"{'job':34} {'where':6} {'rate':>10}  {'range':<22} {'ray/local':>9}  "
          f"{'tasks':>5} {'overhead/task':>13}")
    rows = []
    for (job, where), xs in samples.items():
        unit = jobs[job][1]
        ratio = median[(job, "ray")] / median[(job, "local")]
        extra = ""
        if where == "ray":
            o = overhead[job]
            per_task = statistics.median(x["per_task_s"] for x in o)
            extra = f"{ratio:8.2f}x  {o[-1]['tasks']:>5} {per_task * 1e3:10.1f} ms"
        print(f"{job:34} {where:6} {harness.fmt_rate(median[(job, where)]):>8}/s  "
              f"{harness.spread(xs):<22} {extra}")
        rows.append({"job": job, "where": where, "unit": unit,
                     "per_s": median[(job, where)], "samples": xs,
                     "ray_over_local": ratio if where == "ray" else None,
                     "ray_tasks": overhead[job] if where == "ray" else None})
    for key, window in (("default", 2 * slots), ("deep", args.noop_window)):
        rate = statistics.median(noop[key])
        print(f"driver: {rate:,.0f} trivial tasks/s through RayCluster.map "
              f"({1e3 / rate:.2f} ms a task) with {window} in flight; median of "
              f"{len(noop[key])} runs of {args.noop_tasks}")
    print("(overhead/task: wall x slots - compute, over tasks, median over repetitions)")
    harness.finish(info, args.json, {"options": vars(args), "slots": slots, "rows": rows,
                                     "noop_tasks_per_s": noop})
    return 0


if __name__ == "__main__":
    sys.exit(main())
