"""Where a workload's time goes, by numba kernel: ``perf record`` with a map of the JIT code.

``perf`` cannot name numba's functions (they live in anonymous JIT memory), so this
script compiles every kernel in this process (a fresh, temporary kernel cache: functions
loaded from a cache keep no symbol table), writes ``/tmp/perf-<pid>.map`` (the address,
size and name of every compiled function, the file ``perf report`` reads for JIT code),
and runs ``perf record`` on this process around the timed part only, on one thread by
default. It prints each function's share of the samples, and with ``--annotate NAME``
the hottest instructions of the first function whose name contains NAME (the code bytes
disassembled by ``objdump``). Function sizes are the gaps to the next function's start,
capped, so the few functions at the end of a code region may take in stray samples.

Needs Linux ``perf`` (and ``objdump`` for ``--annotate``) with permission to record this
process (``/proc/sys/kernel/perf_event_paranoid`` 2 or less); no hardware counters
needed (it samples the CPU clock). Figures are shares on one CPU model: name it
(``lscpu``) with them.

    python -m bench.profile 1ply
    python -m bench.profile 2ply --threads 2 --seconds 10
    python -m bench.profile 0ply --annotate evaluate_rows
"""
import argparse
import bisect
import ctypes
import gc
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

WORKLOADS = ("0ply", "1ply", "2ply", "hints")
# A function's size when the next known one is far away (or it is the last one).
MAX_SIZE = 1 << 18


def _fresh_cache():
    """A temporary kernel cache, set before fastbg is imported: every kernel then compiles
    here and keeps its addresses."""
    tmp = tempfile.mkdtemp(prefix="fastbg-profile-")
    os.environ["FASTBG_CACHE"] = tmp
    os.environ["NUMBA_CACHE_DIR"] = os.path.join(tmp, "numba")
    return tmp


def _runner(workload, threads):
    """(warm-up, timed run) callables of ``workload`` on ``threads`` threads."""
    import fastbg
    from bench.engine import fresh_positions
    from fastbg.evaluators.search import nply_probabilities
    net = fastbg.gnubg_net()
    if workload == "hints":
        boards = fresh_positions(300, 0, 7)
        rolls = [(3, 1)] * len(boards)

        def run(b=boards):
            fastbg.hint_batch(b, rolls[:len(b)], ply=1, threads=threads)
        return (lambda: run(boards[:80])), run
    ply = {"0ply": 0, "1ply": 1, "2ply": 2}[workload]
    boards = fresh_positions({0: 50_000, 1: 400, 2: 20}[ply], 0, 1 + ply)

    def run(b=boards):
        nply_probabilities(net, b, ply, threads=threads)
    return (lambda: run(boards[:80] if ply < 2 else boards[:2])), run


def _functions():
    """(address, name) of every function of every compiled numba overload here."""
    from numba.core.registry import CPUDispatcher
    out = {}
    for obj in gc.get_objects():
        # by the type itself: isinstance() of a dead weak proxy in the heap raises
        if not issubclass(type(obj), CPUDispatcher):
            continue
        for cres in obj.overloads.values():
            lib = cres.library
            module = getattr(lib, "_final_module", None)
            if module is None:
                continue
            engine = lib._codegen._engine
            for fn in module.functions:
                if fn.is_declaration:
                    continue
                try:
                    addr = engine.get_function_address(fn.name)
                except Exception:
                    continue
                if addr:
                    out[addr] = fn.name
    return sorted(out.items())


def _short(name):
    """A readable name for a mangled numba symbol: its qualified Python name."""
    m = re.search(r"_ZN(.*?)E", name)
    if not m:
        return name
    parts, s = [], m.group(1)
    while s and s[0].isdigit():
        n = int(re.match(r"\d+", s).group())
        s = s[len(str(n)):]
        parts.append(s[:n])
        s = s[n:]
    if not parts:
        return name
    return ".".join(p for p in parts if not p.startswith("_3clocals"))[:120]


def write_map(path):
    """Write ``path`` (perf's JIT map) and return [(start, size, name)]."""
    funcs = _functions()
    rows = []
    for i, (addr, name) in enumerate(funcs):
        nxt = funcs[i + 1][0] if i + 1 < len(funcs) else addr + MAX_SIZE
        rows.append((addr, min(nxt - addr, MAX_SIZE), _short(name)))
    with open(path, "w") as f:
        for addr, size, name in rows:
            f.write(f"{addr:x} {size:x} {name}\n")
    return rows


def annotate(rows, key, samples, top):
    """Print the ``top`` hottest instructions of the first function named like ``key``."""
    hit = [r for r in rows if key in r[2]]
    if not hit:
        print(f"no function named like {key!r}")
        return
    start, size, name = max(hit, key=lambda r: sum(1 for a in samples if r[0] <= a < r[0] + r[1]))
    code = ctypes.string_at(start, size)
    with tempfile.NamedTemporaryFile(suffix=".bin", delete=False) as f:
        f.write(code)
    dis = subprocess.run(["objdump", "-D", "-b", "binary", "-m", "i386:x86-64",
                          f"--adjust-vma={start:#x}", f.name],
                         capture_output=True, text=True).stdout
    os.unlink(f.name)
    count = {}
    for a in samples:
        if start <= a < start + size:
            count[a] = count.get(a, 0) + 1
    lines = {}
    for line in dis.splitlines():
        head = line.split(":", 1)
        try:
            lines[int(head[0].strip(), 16)] = line
        except ValueError:
            continue
    total = sum(count.values()) or 1
    print(f"\n{name}: {total} samples; the hottest instructions (a sample lands on the "
          "instruction after the one that waited)")
    for a, c in sorted(count.items(), key=lambda x: -x[1])[:top]:
        print(f"{100 * c / total:5.1f}%  {lines.get(a, hex(a)).strip()}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("workload", choices=WORKLOADS,
                    help="0ply: 50,000 evaluations; 1ply: 400 positions; 2ply: 20; "
                         "hints: 300 1-ply hints (bench.engine's positions)")
    ap.add_argument("--threads", type=int, default=1, help="threads (1)")
    ap.add_argument("--seconds", type=float, default=6.0,
                    help="how long to repeat the workload under perf (6)")
    ap.add_argument("--top", type=int, default=25, help="functions to list (25)")
    ap.add_argument("--annotate", metavar="NAME",
                    help="also list the hottest instructions of the function named like NAME")
    args = ap.parse_args(argv)
    if shutil.which("perf") is None:
        sys.exit("perf is not installed (linux-tools / linux-perf)")
    tmp = _fresh_cache()
    try:
        warm, run = _runner(args.workload, args.threads)
        warm()
        run()
        rows = write_map(f"/tmp/perf-{os.getpid()}.map")
        data = os.path.join(tmp, "perf.data")
        rec = subprocess.Popen(["perf", "record", "-q", "-F", "4999", "-p", str(os.getpid()),
                                "-o", data], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
        time.sleep(1.0)                 # perf attaches
        t0 = time.perf_counter()
        reps = 0
        while time.perf_counter() - t0 < args.seconds:
            run()
            reps += 1
        rec.send_signal(2)
        _, err = rec.communicate()
        if rec.returncode not in (0, -2):
            sys.exit(f"perf record failed: {err.decode().strip()}")
        print(f"{args.workload} on {args.threads} thread(s): {reps} runs in "
              f"{time.perf_counter() - t0:.1f} s")
        script = subprocess.run(["perf", "script", "-i", data, "-F", "ip,sym"],
                                capture_output=True, text=True).stdout
        starts = [r[0] for r in rows]
        samples, by_fn, outside = [], {}, {}
        for line in script.splitlines():
            parts = line.split(None, 1)
            try:
                a = int(parts[0], 16)
            except (IndexError, ValueError):
                continue
            samples.append(a)
            i = bisect.bisect_right(starts, a) - 1
            name = rows[i][2] if i >= 0 and a < rows[i][0] + rows[i][1] else None
            by_fn[name] = by_fn.get(name, 0) + 1
            if name is None:
                sym = parts[1].strip() if len(parts) > 1 else "?"
                outside[sym] = outside.get(sym, 0) + 1
        total = len(samples) or 1
        other = by_fn.pop(None, 0)
        print(f"{total} samples; {100 * other / total:.1f}% outside numba's code\n")
        for name, c in sorted(by_fn.items(), key=lambda x: -x[1])[:args.top]:
            print(f"{100 * c / total:5.1f}%  {name}")
        if other:
            print("\noutside numba's code, by symbol:")
            for name, c in sorted(outside.items(), key=lambda x: -x[1])[:8]:
                print(f"{100 * c / total:5.1f}%  {name[:100]}")
        if args.annotate:
            annotate(rows, args.annotate, samples, args.top)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
