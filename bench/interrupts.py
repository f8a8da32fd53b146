"""How fast each job stops on Ctrl-C: a real SIGINT sent to a real ``fastbg`` process.

For play, matches, rollouts (plain and with gnubg variance reduction) and tournaments,
starts the command with ``--out``, waits until its first chunk is saved plus a delay, sends
SIGINT and times how long the process takes to exit; checks the exit status (130) and
that the file holds only whole chunk lines. The tests (tests/test_interrupts.py) check
the behaviour; this script measures the latency.

    python -m bench.interrupts [--quick] [--repeat N] [--json PATH]
"""
import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.harness import machine, print_machine

JOBS = {
    "play (pubeval vs greedy)": ["play", "--bots", "pubeval,greedy", "--games", "10000000"],
    "play (gnubg vs pubeval)": ["play", "--bots", "gnubg,pubeval", "--games", "10000000"],
    "matches (7 points)": ["play", "--bots", "pubeval,greedy", "--match", "7", "--games",
                           "10000000"],
    "rollout (pubeval)": ["rollout", "4HPwATDgc/ABMA", "--trials", "100000000"],
    "rollout (gnubg, variance reduction)": ["rollout", "4HPwATDgc/ABMA", "--trials",
                                            "100000000", "--bot", "gnubg", "--vr",
                                            "--evaluator", "gnubg"],
    "tournament (3 bots)": ["tournament", "--bots", "random,greedy,pubeval", "--games",
                            "100000000"],
}


def _lines(path):
    return path.read_text().splitlines() if path.exists() else []


def stop_latency(args, delay, workdir):
    """(seconds from SIGINT to exit, exit status, whole chunk lines saved)."""
    out = Path(workdir) / "job.jsonl"
    if out.exists():
        out.unlink()
    proc = subprocess.Popen([sys.executable, "-m", "fastbg", *args, "--no-progress",
                             "--out", str(out)], cwd=workdir, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True,
                            # SIGINT as in a terminal, even when this script runs in the
                            # background (a non-interactive shell starts it ignored)
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    while len(_lines(out)) < 2:
        if proc.poll() is not None:
            raise RuntimeError(f"{args} ended early: {proc.stderr.read()[-2000:]}")
        time.sleep(0.01)
    time.sleep(delay)                     # mid-chunk, not just after a chunk was saved
    t0 = time.perf_counter()
    proc.send_signal(signal.SIGINT)
    proc.wait()
    dt = time.perf_counter() - t0
    lines = _lines(out)
    for line in lines:
        json.loads(line)                  # every line whole
    return dt, proc.returncode, len(lines) - 1


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="one repetition of two jobs")
    ap.add_argument("--repeat", type=int, default=3, help="SIGINTs per job (median)")
    ap.add_argument("--delay", type=float, default=1.0,
                    help="seconds after the first saved chunk before the signal")
    ap.add_argument("--json", help="write the figures here")
    a = ap.parse_args(argv)
    jobs = dict(list(JOBS.items())[:2]) if a.quick else JOBS
    repeat = 1 if a.quick else a.repeat
    head = machine()
    print_machine(head, "Ctrl-C: seconds from SIGINT to exit")
    rows = {}
    with tempfile.TemporaryDirectory() as d:
        for name, args in jobs.items():
            runs = [stop_latency(args, a.delay, d) for _ in range(repeat)]
            secs = [r[0] for r in runs]
            rows[name] = {"median_s": statistics.median(secs), "max_s": max(secs),
                          "exit_codes": sorted({r[1] for r in runs}),
                          "chunks_saved": [r[2] for r in runs]}
            print(f"{name:40s} stops in {rows[name]['median_s']:.3f} s (median of {repeat},"
                  f" max {rows[name]['max_s']:.3f}), exit {rows[name]['exit_codes']}")
    if a.json:
        Path(a.json).write_text(json.dumps({"machine": head, "jobs": rows}, indent=2))
    return 0 if all(r["exit_codes"] == [130] for r in rows.values()) else 1


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
