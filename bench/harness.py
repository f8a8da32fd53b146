"""What every side-by-side script shares: the machine header, interleaved timing, output.

Figures are only comparable with the machine they come from, so each script prints (and
writes to ``--json``) the CPU model, CPU count, Python, numba version and thread count,
numpy, and the load average before and after timing. Timing is interleaved: each
repetition times every contestant once, in an order rotated from one repetition to the
next, so load from elsewhere on the machine hits all of them alike; medians are reported
with the min..max range.
"""
import gc
import json
import math
import os
import platform
import statistics
import time
from importlib.metadata import PackageNotFoundError, version

import numba
import numpy as np


def cpu_model():
    """The CPU's model name (from /proc/cpuinfo on Linux, else platform)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.lower().startswith(("model name", "hardware")):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def pkg_version(name):
    try:
        return version(name)
    except PackageNotFoundError:
        return None


def loadavg():
    """The 1, 5 and 15 minute load averages, None where the OS has none."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def machine(*peers):
    """The header: machine, versions of fastbg, numba (and its threads), numpy and ``peers``
    (distribution names, e.g. "gnubg-nn", "open_spiel"; None when not installed)."""
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    return {
        "cpu_model": cpu_model(),
        "cpu_count": os.cpu_count(),
        "cpus_usable": usable,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "fastbg": pkg_version("fastbg"),
        "numba": numba.__version__,
        "numba_threads": numba.config.NUMBA_NUM_THREADS,
        "numba_threading_layer": None,      # known after the first parallel call
        "numpy": np.__version__,
        "peers": {p: pkg_version(p) for p in peers},
        "loadavg_start": loadavg(),
        "loadavg_end": None,
    }


def print_machine(info, title):
    print(title)
    print(f"CPU: {info['cpu_model']}, {info['cpu_count']} CPUs ({info['cpus_usable']} usable); "
          f"python {info['python']} on {info['platform']}")
    print(f"fastbg {info['fastbg']}; numba {info['numba']} (threads: {info['numba_threads']}); "
          f"numpy {info['numpy']}"
          + "".join(f"; {p} {v or 'not installed'}" for p, v in info["peers"].items()))
    if info["loadavg_start"]:
        print(f"load average (1, 5, 15 min): {info['loadavg_start']}")


def note_threading_layer(info):
    """Record numba's threading layer (call after a parallel kernel has run)."""
    try:
        info["numba_threading_layer"] = numba.threading_layer()
    except ValueError:
        info["numba_threading_layer"] = None
    return info["numba_threading_layer"]


@numba.njit(nogil=True, cache=True)
def _arithmetic(n):
    """n rounds of twelve independent multiply-add chains: arithmetic alone, no memory,
    enough chains to keep a core's floating-point units busy."""
    a0, a1, a2, a3, a4, a5 = 1.0, 1.1, 1.2, 1.3, 1.4, 1.5
    a6, a7, a8, a9, a10, a11 = 1.6, 1.7, 1.8, 1.9, 2.0, 2.1
    m, c = 0.9999999, 1e-9
    for _ in range(n):
        a0, a1, a2, a3 = a0 * m + c, a1 * m + c, a2 * m + c, a3 * m + c
        a4, a5, a6, a7 = a4 * m + c, a5 * m + c, a6 * m + c, a7 * m + c
        a8, a9, a10, a11 = a8 * m + c, a9 * m + c, a10 * m + c, a11 * m + c
    return a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11


def host_scaling(threads, seconds=0.05):
    """How many times one thread's arithmetic ``threads`` threads of this process do at
    once (:func:`_arithmetic`, about ``seconds`` a thread): ``threads`` on a machine whose
    CPUs are all this process's, less where a CPU is shared with other work.

    Why: fastbg's figures on two threads are compared with a peer's one. On a shared host
    a virtual CPU can be busy elsewhere for a while; a 2-core AMD EPYC (Zen 3) host gave
    1.03x to 2.37x from one 1-ply repetition to the next within one process, so the
    two-thread ratios of a run say as much about the host as about fastbg. Timed next to
    each repetition, this says which."""
    _arithmetic(1)                          # compiled or loaded before timing
    n = 1 << 16
    while True:
        t = measure(lambda: _arithmetic(n))
        if t >= seconds / 4 or n >= 1 << 30:
            break
        n *= 2
    n = max(1, int(n * seconds / max(t, 1e-9)))
    return threads * _on_threads(1, n) / _on_threads(threads, n)


def _on_threads(k, n):
    """Seconds for k threads, started together, to do n rounds of :func:`_arithmetic`
    each."""
    import threading
    workers = [threading.Thread(target=_arithmetic, args=(n,)) for _ in range(k)]
    t = time.perf_counter()
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return time.perf_counter() - t


HOST = "host"


def with_host_check(runs, threads):
    """``runs`` (name -> function of the repetition) and, on more than one thread, HOST:
    :func:`host_scaling` of ``threads``, timed in the same rotation as the contestants."""
    if threads < 2:
        return dict(runs)
    return {**runs, HOST: lambda rep: host_scaling(threads)}


def print_host(s, threads, indent="  "):
    """The line on a run's :func:`host_scaling` figures ``s`` (nothing for None: one
    thread)."""
    if s:
        print(f"{indent}host: {threads} threads did {statistics.median(s):.2f}x one thread's "
              f"arithmetic [{min(s):.2f} .. {max(s):.2f}] ({threads}x when no CPU is shared)")


def measure(fn, loops=1):
    """Seconds per call of ``fn`` over ``loops`` calls, garbage collector off (as timeit)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        t = time.perf_counter()
        for _ in range(loops):
            fn()
        return (time.perf_counter() - t) / loops
    finally:
        if was_enabled:
            gc.enable()


def loops_for(seconds_per_call, min_time):
    """Calls one measurement repeats so that it lasts at least ``min_time`` seconds."""
    return max(1, math.ceil(min_time / max(seconds_per_call, 1e-9)))


def interleaved(runs, repeat):
    """Time each of ``runs`` (name -> function of the repetition index returning a rate)
    once per repetition, in an order rotated between repetitions. Returns name -> rates."""
    names = list(runs)
    samples = {name: [] for name in names}
    for rep in range(repeat):
        k = rep % len(names)
        for name in names[k:] + names[:k]:
            samples[name].append(runs[name](rep))
    return samples


def interleaved_with_estimates(runs, repeat):
    """:func:`interleaved` for runs returning (rate, estimate): (name -> rates, name -> the
    last repetition's estimate)."""
    estimates = {}

    def timed(key):
        def run(rep):
            rate, est = runs[key](rep)
            estimates[key] = est
            return rate
        return run

    return interleaved({key: timed(key) for key in runs}, repeat), estimates


def medians(samples):
    return {name: statistics.median(s) for name, s in samples.items()}


def fmt_rate(r):
    if r is None or not math.isfinite(r):
        return "n/a"
    if r >= 1e6:
        return f"{r / 1e6:.3f} M"
    return f"{r / 1e3:.2f} k" if r < 1e4 else f"{r / 1e3:.1f} k"


def spread(samples):
    if len(samples) < 2:
        return "(once)"
    return f"[{fmt_rate(min(samples))} .. {fmt_rate(max(samples))}]"


def finish(info, path, report):
    """Record the closing load average; write ``report`` (with the header) to ``path``."""
    info["loadavg_end"] = loadavg()
    if info["loadavg_end"]:
        print(f"load average after timing: {info['loadavg_end']}")
    if path:
        with open(path, "w") as f:
            json.dump({"machine": info, **report}, f, indent=2, default=float)
        print(f"wrote {path}")


def parse(ap, argv, quick):
    """Add ``--quick`` (the settings ``quick``, a dict of option -> value) and ``--json`` to
    ``ap``, parse ``argv`` and apply ``--quick``."""
    ap.add_argument("--quick", action="store_true", help="smoke-size run (" + ", ".join(
        f"--{k.replace('_', '-')} {v}" for k, v in quick.items()) + ")")
    ap.add_argument("--json", metavar="PATH", help="also write the figures to PATH as JSON")
    args = ap.parse_args(argv)
    if args.quick:
        for k, v in quick.items():
            setattr(args, k, v)
    return args
