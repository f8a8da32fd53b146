"""Cold-start time: the first play and the first gnubg rollout of a new process.

Each case runs in a fresh subprocess. "fresh" gives it an empty NUMBA_CACHE_DIR (every
kernel compiles); "warm" reuses the cache the fresh run left behind (kernels load from
disk). Reports the wall time of each call, and of ``import fastbg``.

    python bench/coldstart.py [--repeat N] [--per-kernel]

``--per-kernel`` also lists, for the fresh run, the compile time of each kernel from numba's
``numba:compile`` events: exclusive (its own typing, lowering, and LLVM optimisation and
code generation of its module, callees linked in) and inclusive (plus the kernels compiled
for it).
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile

CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
per = {}
if PER_KERNEL:
    from numba.core import event
    class L(event.Listener):
        # inclusive and exclusive (less the kernels compiled inside) seconds per kernel
        def __init__(self):
            self.stack = []
        def on_start(self, ev):
            self.stack.append([time.perf_counter(), 0.0])
        def on_end(self, ev):
            t0, inner = self.stack.pop()
            dt = time.perf_counter() - t0
            if self.stack:
                self.stack[-1][1] += dt
            d = ev.data["dispatcher"]
            name = d.py_func.__module__ + "." + d.py_func.__qualname__
            inc, exc, n = per.get(name, (0.0, 0.0, 0))
            per[name] = (inc + dt, exc + dt - inner, n + 1)
    event.register("numba:compile", L())
import fastbg
t1 = time.perf_counter()
fastbg.play(1000, ("random", "pubeval"))
t2 = time.perf_counter()
fastbg.rollout("4HPwATDgc/ABMA", trials=72, bot="gnubg", variance_reduction=True,
               evaluator="gnubg")
t3 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "play": t2 - t1, "rollout": t3 - t2, "per": per}))
"""


TOP = 20


def run_child(cache_dir, per_kernel, root):
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    code = CHILD.replace("PER_KERNEL", repr(per_kernel))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True, cwd=root)
    return json.loads(out.stdout.strip().splitlines()[-1])


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--per-kernel", action="store_true")
    args = ap.parse_args(argv)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    import numba
    print(f"CPU {cpu_model()}, {os.cpu_count()} cores; numba {numba.__version__}, "
          f"python {platform.python_version()}")
    for r in range(args.repeat):
        with tempfile.TemporaryDirectory() as cache:
            fresh = run_child(cache, args.per_kernel, root)
            warm = run_child(cache, False, root)
        for label, res in (("fresh", fresh), ("warm", warm)):
            print(f"[{r}] {label:5s} import {res['import']:6.2f} s  play {res['play']:6.2f} s  "
                  f"rollout {res['rollout']:6.2f} s", flush=True)
        if args.per_kernel:
            per = fresh["per"]
            total = sum(v[1] for v in per.values())
            print(f"      compile total (sum of exclusive) {total:.1f} s over {len(per)} kernels;"
                  " the largest, exclusive / inclusive s (signatures):")
            for name, (inc, exc, n) in sorted(per.items(), key=lambda kv: -kv[1][1])[:TOP]:
                print(f"      {exc:7.2f} {inc:7.2f} ({n})  {name}")


if __name__ == "__main__":
    main()
