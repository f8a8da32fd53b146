#!/usr/bin/env python3
"""Run every fastbg command the way a user would and check how each one ends.

The contract (docs/cli.md): a command either works (status 0) or, when it needs an
optional part that is not installed, prints one line on stderr naming the part and the
pip command that brings it, and exits 2; never a Python traceback.

Each check names the extra it needs (None: the core and the cli extra). By default a
check passes when its command exits 0 where its extra is installed and answers with the
one line where it is not; so the same list checks a full install and one with the cli
extra alone (what CI does, in a fresh virtual environment: .ci/run).

    python3 scripts/check_commands.py                  # with this Python's fastbg
    python3 scripts/check_commands.py --only-missing   # just the checks whose extra is missing
    python3 scripts/check_commands.py --list           # the commands, run nothing
"""
import argparse
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

START = "4HPwATDgc/ABMA"
EXIT_MISSING_EXTRA = 2


@dataclass(frozen=True)
class Check:
    """One command line (``{tmp}`` stands for a scratch folder) and the extra it needs."""
    args: tuple
    needs: str = None


FAST = "--no-progress"
CHECKS = (
    Check(("info",)),
    Check(("info", "--json")),
    Check(("moves", START, "3-1")),
    Check(("demo", "--games", "20", "--trials", "36", FAST, "--plot", "none")),
    Check(("selfcheck", "--repeat", "1", "--games", "200")),
    Check(("play", "--bots", "random,pubeval", "--games", "200", FAST)),
    Check(("play", "--bots", "pubeval,greedy", "--money", "--games", "50", FAST)),
    Check(("play", "--bots", "pubeval,greedy", "--match", "3", "--games", "4", FAST)),
    Check(("play", "--bots", "gnubg,pubeval", "--games", "10", FAST), "gnubg"),
    Check(("play", "--bots", "gnubg-1ply,pubeval", "--games", "2", FAST), "gnubg"),
    Check(("play", "--bots", "pubeval,greedy", "--money", "--cube", "gnubg,race", "--games",
           "10", FAST), "gnubg"),
    Check(("play", "--bots", "bgsage,pubeval", "--games", "2", FAST), "bgsage"),
    Check(("play", "--bots", "gnubg-app,pubeval", "--games", "2", FAST), "gnubg-app"),
    Check(("play", "--bots", "pubeval,random", "--games", "100", FAST, "--ray"), "ray"),
    Check(("tournament", "--bots", "random,greedy,pubeval", "--games", "20", FAST)),
    Check(("tournament", "--bots", "random,greedy", "--games", "20", FAST,
           "--plot", "{tmp}/t.png"), "plot"),
    Check(("tournament", "--bots", "pubeval,greedy", "--match", "3", "--games", "2", FAST,
           "--mat", "{tmp}/mat")),
    Check(("tournament", "--bots", "gnubg,pubeval", "--games", "10", FAST), "gnubg"),
    Check(("rollout", START, "--trials", "36", FAST, "--bot", "pubeval")),
    Check(("rollout", START, "--dice", "3-1", "--trials", "36", FAST, "--bot", "pubeval")),
    Check(("rollout", START, "--cube-decision", "--trials", "36", FAST, "--bot", "pubeval")),
    Check(("rollout", START, "--money", "--trials", "36", FAST, "--bot", "pubeval")),
    Check(("rollout", START, "--dice", "3-1", "--moves", "5", "--trials", "36", FAST)),
    Check(("rollout", START, "--trials", "36", FAST, "--ply", "1")),
    Check(("rollout", START, "--trials", "36", FAST, "--bot", "pubeval", "--truncate", "6",
           "--evaluator", "gnubg"), "gnubg"),
    Check(("rollout", START, "--trials", "36", FAST, "--bot", "pubeval", "--ray"), "ray"),
    Check(("hint", START, "3-1")),
    Check(("eval", START)),
    Check(("analyse", "{tmp}/mat/pubeval-vs-greedy-00001.mat")),
    Check(("play", "--bots", "fastbg,pubeval", "--games", "10", FAST)),
    Check(("play", "--bots", "fastbg-1ply,pubeval", "--games", "2", FAST)),
    Check(("play", "--bots", "pubeval,greedy", "--money", "--cube", "fastbg,race", "--games",
           "10", FAST)),
    Check(("benchmark", "--help")),
    Check(("benchmark", "score", "--help")),
    Check(("benchmark", "make", "--help")),
)


def _installed(extra):
    """Whether the fastbg under test has ``extra`` (asked of that Python, not this one)."""
    code = ("import sys, fastbg.extras as e; sys.exit(0 if e.is_installed(sys.argv[1]) "
            "and (sys.argv[1] != 'gnubg' or __import__('fastbg.evaluators.nets', "
            "fromlist=['x']).default_weights_path()) else 1)")
    with tempfile.TemporaryDirectory() as empty:     # not the caller's folder: see is_installed
        return subprocess.run([PYTHON, "-c", code, extra], capture_output=True,
                              cwd=empty).returncode == 0


def run_check(check, tmp, installed):
    """(ok, status, why, seconds) of one check."""
    args = [a.replace("{tmp}", tmp) for a in check.args]
    t0 = time.perf_counter()
    out = subprocess.run([PYTHON, "-m", "fastbg", *args], capture_output=True, text=True,
                         timeout=900, cwd=tmp)
    dt = time.perf_counter() - t0
    both = out.stdout + out.stderr
    if "Traceback" in both:
        return False, out.returncode, "a Python traceback:\n" + out.stderr[-2000:], dt
    if check.needs is None or installed:
        ok = out.returncode == 0
        return ok, out.returncode, "" if ok else out.stderr.strip()[-600:], dt
    lines = [ln for ln in out.stderr.splitlines() if ln.strip()]
    want = f"pip install 'fastbg[{check.needs}]'"
    if out.returncode != EXIT_MISSING_EXTRA:
        return False, out.returncode, f"status {out.returncode}, not 2: {out.stderr[-600:]}", dt
    if len(lines) != 1 or want not in lines[0]:
        return False, out.returncode, f"stderr is not one line naming {want}: {lines}", dt
    return True, out.returncode, lines[0], dt


def main(argv=None):
    global PYTHON
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("--python", default=sys.executable,
                        help="the Python whose fastbg is checked (default: this one)")
    parser.add_argument("--only-missing", action="store_true",
                        help="run only the checks whose extra is not installed")
    parser.add_argument("--list", action="store_true", help="print the commands and stop")
    opts = parser.parse_args(argv)
    PYTHON = opts.python
    if opts.list:
        for c in CHECKS:
            print(f"fastbg {' '.join(c.args)}" + (f"   [needs {c.needs}]" if c.needs else ""))
        return 0
    extras = {c.needs for c in CHECKS if c.needs}
    have = {e: _installed(e) for e in sorted(extras)}
    print("extras: " + ", ".join(f"{e} {'installed' if v else 'missing'}"
                                 for e, v in have.items()))
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for check in CHECKS:
            installed = check.needs is None or have[check.needs]
            if opts.only_missing and installed and check.needs is not None:
                continue
            ok, status, why, dt = run_check(check, tmp, installed)
            failed += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {status:>3} {dt:6.1f} s  fastbg {' '.join(check.args)}")
            if why and (not ok or not installed):
                print("             " + why.replace("\n", "\n             "))
    print(f"{len(CHECKS)} commands, {failed} failed")
    return 1 if failed else 0


PYTHON = sys.executable

if __name__ == "__main__":
    sys.exit(main())
