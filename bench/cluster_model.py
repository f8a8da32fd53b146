"""The constants of docs/cluster.md's scaling model, measured, and the wall times they
predict for three large jobs on 1, 10 and 100 nodes.

Measured here (one machine; the figures name its CPU):

* ``r``: one thread's speed on each job, in this process: money games of the gnubg bot
  against itself with the gnubg cube (games/s), a 1,296-trial rollout of a position by
  the gnubg bot (positions/s; the default settings of ``fastbg.rollout``), and 2-ply
  choices on the shipped benchmark set (decisions/s);
* ``d``: the driver's own work per chunk: a trivial task through ``RayCluster.map`` with
  64 in flight (a local Ray instance), plus the chunk's journal line (written, flushed
  and fsynced) for each job's chunk (games: 32,768 of them; rollouts: a position);
* ``o``: a task slot's overhead per task: tasks of a known compute time (50 ms of
  numba-free sleep) through ``RayCluster.map``, ``(wall x slots - compute) / tasks``;
* the job's context: the gnubg networks pickled (the bulk of a gnubg-bot job's chunk
  function), put once per job and fetched once per node; its fetch across a network is modelled at
  --link-gbps (10 Gb/s by default), not measured.

Predicted (``S`` task slots of one thread, ``T`` a chunk's compute time):
``throughput = min(S x r x T / (T + o), units a chunk / d)``; wall time = units /
throughput + the context's fetch.

    python -m bench.cluster_model --json model.json
    python -m bench.cluster_model --quick          # smoke run
"""
import argparse
import dataclasses
import json
import os
import pickle
import sys
import tempfile
import time
from contextlib import closing

import fastbg
from bench import harness, workloads

QUICK = {"games": 200, "positions": 1, "decisions": 8, "tasks": 100}
JOBS = {   # job -> (units, unit)
    "10^9 money games, gnubg bot and cube": (1e9, "games"),
    "1,000,000 positions x 1,296 trials, gnubg bot": (1e6, "positions"),
    "100,000 decisions at 2-ply": (1e5, "decisions"),
}
NODES = (1, 10, 100)
CORES = 32
MAX_GAMES_CHUNK = 32_768          # fastbg.play's largest chunk (its memory)


def sleeper(seconds):
    time.sleep(seconds)
    return seconds


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2000, help="gnubg money games timed (2,000)")
    ap.add_argument("--positions", type=int, default=3,
                    help="positions rolled out (3, at 1,296 trials each)")
    ap.add_argument("--decisions", type=int, default=100, help="2-ply decisions (100)")
    ap.add_argument("--tasks", type=int, default=1000, help="trivial tasks timed (1,000)")
    ap.add_argument("--link-gbps", type=float, default=10.0,
                    help="the network between nodes, for the context's fetch (10)")
    ap.add_argument("--chunk-decisions", type=int, default=100,
                    help="decisions a chunk when scoring on a cluster (100)")
    args = harness.parse(ap, argv, QUICK)
    import ray
    from fastbg.journal import Journal
    info = harness.machine("ray", "gnubg-nn")
    harness.print_machine(info, "The scaling model's constants (docs/cluster.md section 5)")
    one = {}
    with fastbg.threads(1):
        fastbg.play(20, ("gnubg", "gnubg"), seed=1, rules=fastbg.MoneyRules(),
                    cube=("gnubg", "gnubg"))
        t = time.perf_counter()
        fastbg.play(args.games, ("gnubg", "gnubg"), seed=2, rules=fastbg.MoneyRules(),
                            cube=("gnubg", "gnubg"))
        one["games"] = args.games / (time.perf_counter() - t)
        boards = workloads.net_positions(50, 3)[: args.positions]
        fastbg.rollout(boards[0], trials=36, bot="gnubg")
        t = time.perf_counter()
        for i, b in enumerate(boards):
            fastbg.rollout(b, trials=1296, bot="gnubg", seed=i)
        one["positions"] = len(boards) / (time.perf_counter() - t)
        bset = fastbg.benchmarks.read_benchmark(fastbg.benchmarks.shipped_set_path())
        part = dataclasses.replace(bset, decisions=bset.decisions[: args.decisions])
        fastbg.score_benchmark(dataclasses.replace(bset, decisions=bset.decisions[:2]),
                               "gnubg-2ply")
        t = time.perf_counter()
        fastbg.score_benchmark(part, "gnubg-2ply")
        one["decisions"] = args.decisions / (time.perf_counter() - t)
    for unit, rate in one.items():
        print(f"r, one thread: {rate:,.2f} {unit}/s")

    # the journal line of each job's chunk (as the job writes it), appended again:
    # json, write, flush and fsync
    with tempfile.TemporaryDirectory() as tmp:
        made = {"games": os.path.join(tmp, "g.jsonl"), "positions": os.path.join(tmp, "r.jsonl")}
        fastbg.play(MAX_GAMES_CHUNK, ("random", "random"), seed=3, chunk_size=MAX_GAMES_CHUNK,
                    out=made["games"])
        fastbg.rollout_many([boards[0]], trials=36, seed=1, bot="pubeval", out=made["positions"])
        journal_s = {}
        for unit, path in made.items():
            with open(path, encoding="utf-8") as f:
                rec = json.loads(f.read().splitlines()[1])
            again = os.path.join(tmp, unit + ".again")
            with Journal(again, "model", {"unit": unit}) as j:
                t = time.perf_counter()
                for _ in range(20):
                    j.append(rec)
                journal_s[unit] = (time.perf_counter() - t) / 20
            print(f"journal line of a {unit} chunk: {os.path.getsize(again) / 21:,.0f} bytes, "
                  f"{journal_s[unit] * 1e3:.2f} ms")
            if unit == "positions":                  # a task's positions: one write
                with Journal(again + "s", "model", {"unit": unit}) as j:
                    t = time.perf_counter()
                    for _ in range(5):
                        j.append_many([rec] * 100)
                    journal_s["position_in_a_batch"] = (time.perf_counter() - t) / 500
                print(f"  written 100 at once: {journal_s['position_in_a_batch'] * 1e3:.3f} ms "
                      "a position")
        journal_s["decisions"] = journal_s["positions"]    # a chunk's few figures: as small

    ray.init(num_cpus=2, include_dashboard=False, _node_ip_address="127.0.0.1",
             log_to_driver=False)
    cluster = fastbg.RayCluster(in_flight=64)
    slots = fastbg.RayCluster().slots()
    t = time.perf_counter()
    with closing(cluster.map(abs, [(i,) for i in range(args.tasks)], "noop")) as it:
        for _ in it:
            pass
    d_task = (time.perf_counter() - t) / args.tasks
    sleeps = [(0.05,)] * max(20, args.tasks // 20)
    plain = fastbg.RayCluster()
    t = time.perf_counter()
    with closing(plain.map(sleeper, sleeps, "sleep")) as it:
        busy = sum(res for _, res, _ in it)
    o = max(0.0, ((time.perf_counter() - t) * slots - busy) / len(sleeps))
    net_bytes = len(pickle.dumps(fastbg.gnubg_net()))
    t = time.perf_counter()
    ref = ray.put(b"x" * net_bytes)
    ray.get(ray.remote(lambda r: len(ray.get(r[0]))).remote([ref]))
    put_get = time.perf_counter() - t
    # the driver's ceiling for a file of positions, simulated: trivial positions (1 trial)
    # through the local instance, one a task against the spans rollout_many sizes itself
    from fastbg.jobs import position_files
    ids = ["4HPwATDgc/ABMA"] * max(200, args.tasks * 3)
    simulated = {}
    record = position_files._Batches.record
    for label, cap in (("one position a task", 1), ("spans sized by the driver", 256)):
        def capped(self, positions, seconds, cap=cap):
            record(self, positions, seconds)
            self.size = min(self.size, cap)
        position_files._Batches.record = capped
        try:
            with tempfile.TemporaryDirectory() as tmp:
                t = time.perf_counter()
                fastbg.rollout_many(ids, trials=1, bot="pubeval", backend=plain,
                                    out=os.path.join(tmp, "r.jsonl"))
                simulated[label] = len(ids) / (time.perf_counter() - t)
        finally:
            position_files._Batches.record = record
        print(f"a file of trivial positions through the driver, {label}: "
              f"{simulated[label]:,.0f} positions/s ({len(plain.last)} tasks)")
    ray.shutdown()
    fetch = net_bytes * 8 / (args.link_gbps * 1e9)
    print(f"d, the driver's work a task: {d_task * 1e3:.2f} ms (64 in flight); "
          f"o, a slot's overhead a task: {o * 1e3:.1f} ms; the gnubg networks pickled: "
          f"{net_bytes / 2**20:.1f} MiB (put and fetched here in {put_get:.2f} s; "
          f"{fetch:.3f} s a node at {args.link_gbps:g} Gb/s)")

    # chunks as the jobs size them on a cluster of S slots: long enough that the driver
    # is busy at most DRIVER_SHARE of the time (fastbg.distributed), games up to 32,768 a
    # chunk, positions up to 256 a task; scoring: --chunk-decisions a task
    from fastbg.distributed import DRIVER_SECONDS, DRIVER_SHARE
    rows = []
    for job, (units, unit) in JOBS.items():
        r = one[unit]
        for n in NODES:
            s = n * CORES
            target = s * DRIVER_SECONDS / DRIVER_SHARE         # seconds a chunk, at least
            if unit == "games":
                per_chunk = int(min(MAX_GAMES_CHUNK, max(0.25, target) * r))
            elif unit == "positions":
                per_chunk = max(1, min(256, int(target * r)))
            else:
                per_chunk = args.chunk_decisions
            T = per_chunk / r
            compute = s * r * T / (T + o)
            d = d_task + (journal_s[unit] if unit != "positions" or per_chunk == 1
                          else journal_s["position_in_a_batch"] * per_chunk)
            driver = per_chunk / d
            rate = min(compute, driver)
            wall = units / rate + fetch
            rows.append({"job": job, "nodes": n, "slots": s, "units_per_chunk": per_chunk,
                         "chunk_seconds": T, "compute_bound": compute, "driver_bound": driver,
                         "bound_by": "driver" if driver < compute else "compute",
                         "wall_s": wall})
            print(f"{job:48} {n:>3} nodes: {_human(wall):>10}  ({rate:,.0f} {unit}/s; "
                  f"{'the driver' if driver < compute else 'compute'} bounds it; "
                  f"{per_chunk:,} a chunk, the driver's ceiling {driver:,.0f} {unit}/s)")
    harness.finish(info, args.json, {"options": vars(args), "one_thread": one,
                                     "journal_s": journal_s, "driver_task_s": d_task,
                                     "slot_overhead_s": o, "gnubg_net_bytes": net_bytes,
                                     "simulated_positions_per_s": simulated,
                                     "rows": rows})
    return 0


def _human(seconds):
    for unit, size in (("days", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:,.1f} {unit}"
    return f"{seconds:.1f} s"


if __name__ == "__main__":
    sys.exit(main())
