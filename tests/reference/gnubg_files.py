"""Run in a child process by tests/test_gnubg_files.py (GNU Backgammon is GPL: never
imported by fastbg itself): GNU Backgammon imports .mat files and reports what it read,
and plays matches against itself and exports them.

    python3 gnubg_files.py JOB.json OUT.json

JOB: {"import": [paths of .mat files], "play": [[length, seed, path to export], ...]}.
OUT: {"imported": [gnubg.match() of each file], "played": [gnubg.match() of each match]}.
The process leaves with os._exit: GNU Backgammon can crash at exit.
"""
import json
import os
import sys


def main(job_path, out_path):
    import gnubg
    job = json.load(open(job_path))
    gnubg.command("set threads 1")
    out = {"imported": [], "played": []}
    for path in job.get("import", []):
        gnubg.command(f"import mat {path}")
        out["imported"].append(gnubg.match())
    for length, seed, path in job.get("play", []):
        gnubg.command(f"set seed {seed}")
        for p in (0, 1):
            gnubg.command(f"set player {p} gnubg")
        gnubg.command("set player both chequerplay evaluation plies 0")
        gnubg.command("set player both cubedecision evaluation plies 0")
        gnubg.command(f"new match {length}")
        gnubg.command(f"export match mat {path}")
        out["played"].append(gnubg.match())
    with open(out_path, "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    try:
        main(sys.argv[1], sys.argv[2])
    finally:
        sys.stdout.flush()
        os._exit(0)
