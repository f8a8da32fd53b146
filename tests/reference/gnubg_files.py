"""Run in a child process by tests/test_gnubg_files.py (GNU Backgammon is GPL: never
imported by fastbg itself): GNU Backgammon imports .mat files and reports what it read,
and plays matches against itself and exports them.

    python3 gnubg_files.py JOB.json OUT.json

JOB: {"import": [[path of a .mat file, path of its .sgf to save or null], ...],
      "play": [[length, seed, path to export as .mat, path to save as .sgf or null], ...]}.
OUT: {"imported": [gnubg.match() of each file], "played": [gnubg.match() of each match]}.
The process leaves with os._exit: GNU Backgammon can crash at exit.

GNU Backgammon writes .sgf (``save match``) but this package cannot read it: its
SGFParse is a stub (it returns -1) and ``load match`` crashes in LoadCollection, so
fastbg's .sgf files are checked by having GNU Backgammon import the same match as .mat
and write its own .sgf of it.
"""
import json
import os
import sys


def main(job_path, out_path):
    import gnubg
    job = json.load(open(job_path))
    gnubg.command("set threads 1")
    out = {"imported": [], "played": []}
    for path, sgf in job.get("import", []):
        gnubg.command(f"import mat {path}")
        out["imported"].append(gnubg.match())
        if sgf:
            gnubg.command(f"save match {sgf}")
    for length, seed, path, sgf in job.get("play", []):
        gnubg.command(f"set seed {seed}")
        for p in (0, 1):
            gnubg.command(f"set player {p} gnubg")
        gnubg.command("set player both chequerplay evaluation plies 0")
        gnubg.command("set player both cubedecision evaluation plies 0")
        gnubg.command(f"new match {length}")
        gnubg.command(f"export match mat {path}")
        if sgf:
            gnubg.command(f"save match {sgf}")
        out["played"].append(gnubg.match())
    with open(out_path, "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    try:
        main(sys.argv[1], sys.argv[2])
    finally:
        sys.stdout.flush()
        os._exit(0)
