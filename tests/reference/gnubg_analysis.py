"""Run in a child process by tests/test_analyse.py (GNU Backgammon is GPL: never imported
by fastbg itself): GNU Backgammon analyses .mat files at 0-ply and reports what it found.

    python3 gnubg_analysis.py JOB.json OUT.json

JOB: {"files": [paths of .mat files], "plies": 0}.
OUT: {"analysed": [{"sgf": the match saved as SGF with its analysis (per move the
candidates' scores A[...] and the luck LU[...], per cube decision DA[...]),
"statistics": the text of ``show statistics match``}, ...]}.
The process leaves with os._exit: GNU Backgammon can crash at exit.
"""
import json
import os
import sys
import tempfile


def _captured(gnubg, command):
    """What ``command`` prints (GNU Backgammon writes to the C stdout)."""
    sys.stdout.flush()
    with tempfile.TemporaryFile(mode="w+") as f:
        saved = os.dup(1)
        os.dup2(f.fileno(), 1)
        try:
            gnubg.command(command)
        finally:
            sys.stdout.flush()
            os.dup2(saved, 1)
            os.close(saved)
        f.seek(0)
        return f.read()


def main(job_path, out_path):
    import gnubg
    job = json.load(open(job_path))
    plies = int(job.get("plies", 0))
    gnubg.command("set threads 1")
    gnubg.command(f"set analysis chequerplay evaluation plies {plies}")
    gnubg.command(f"set analysis cubedecision evaluation plies {plies}")
    out = {"analysed": []}
    with tempfile.TemporaryDirectory() as d:
        for i, path in enumerate(job["files"]):
            gnubg.command(f"import mat {path}")
            gnubg.command("analyse match")
            sgf = os.path.join(d, f"m{i}.sgf")
            gnubg.command(f"save match {sgf}")
            stats = _captured(gnubg, "show statistics match")
            with open(sgf, encoding="utf-8") as f:
                out["analysed"].append({"sgf": f.read(), "statistics": stats})
    with open(out_path, "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    try:
        main(sys.argv[1], sys.argv[2])
    finally:
        sys.stdout.flush()
        os._exit(0)
