"""The child process of the gnubg-app bots: GNU Backgammon's moves over JSON lines.

Run as ``python gnubg_worker.py PLY`` by :class:`fastbg.sim.engines.GnubgWorker`, never
imported by fastbg (the ``gnubg`` package is GPL and can crash at exit; it is imported
only in :func:`main`). It writes ``{"ready": true}``, then answers each request line, all
evaluations cubeless and deterministic at PLY on one thread:

* ``{"best": [[position_id, d1, d2], ...]}`` with ``{"best": [[[from, to, ...], score],
  ...]}``: the first of ``gnubg.findbestmoves`` for each position (the player on roll
  moving) and its equity. The move tuple stops at its first move borne off (gnubg's
  tuple ends at a 0), so fastbg settles a move cut short by the score (below).
* ``{"equity": [position_id, ...]}`` with ``{"equity": [e, ...]}``: for positions after a
  move (the opponent on roll), the equity of the player who moved, ``-equity`` of
  ``gnubg.evaluate``: the score ``findbestmoves`` gives that move.

* ``{"ids": [position_id, ...]}`` with ``{"ids": [...]}``: each ID read into gnubg's
  board and written back (the tests' check of the board convention).
* ``{"cube": [[gnubg_id, beavers], ...]}`` with ``{"cube": [action, ...]}``: GNU
  Backgammon's own cube decision for the player on roll of each GNUbg ID ("Position
  ID:Match ID", dice not rolled; the extended Match ID says whether the Jacoby rule
  applies), with ``beavers`` 0 or 1 beaver allowed (money): the text after "Proper cube
  action:" of its ``hint`` command (e.g. "Double, take", "No double, beaver (25.9%)"),
  cubeful at PLY; the whole printed text when that line is missing. The Python module
  has no cube call (its ``hint()`` answers "Hints for cube actions not yet implemented"),
  so the command's printed answer is read from file descriptor 1.

Any failure is answered ``{"error": "..."}``. It ends when its input closes.
"""
import ctypes
import json
import os
import sys
import tempfile

ACTION = "Proper cube action:"


def main(argv):
    ply = int(argv[1]) if len(argv) > 1 else 0
    # GNU Backgammon prints to file descriptor 1 ("The number of threads has been set..."):
    # the replies go to a copy of it, and descriptor 1 to stderr.
    out = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    import gnubg
    gnubg.command("set threads 1")
    ec = gnubg.evalcontext(0, ply, 1, 0, 0.0)    # cubeless, ply, deterministic, no prune/noise
    ci = gnubg.cubeinfo()
    # cube decisions (the hint command): cubeful at PLY, deterministic, no prune or noise,
    # like the moves' context
    for setting in (f"plies {ply}", "cubeful on", "deterministic on", "noise 0",
                    "prune off"):
        gnubg.command(f"set evaluation cubedecision evaluation {setting}")
    cube = CubeHints(gnubg)
    out.write(json.dumps({"ready": True}) + "\n")
    out.flush()
    for line in sys.stdin:
        try:
            req = json.loads(line)
            if "ids" in req:               # the round trip of Position IDs through gnubg's board
                reply = {"ids": [gnubg.positionid(gnubg.positionfromid(pid))
                                 for pid in req["ids"]]}
            elif "best" in req:
                reply = {"best": []}
                for pid, d1, d2 in req["best"]:
                    best = gnubg.findbestmoves(gnubg.positionfromid(pid), ci, ec, (d1, d2))[0]
                    reply["best"].append([list(best["move"]), best["score"]])
            elif "cube" in req:
                reply = {"cube": [cube.action(gid, int(beavers)) for gid, beavers in req["cube"]]}
            else:
                reply = {"equity": [-gnubg.evaluate(gnubg.positionfromid(pid), ci, ec)[5]
                                    for pid in req["equity"]]}
        except Exception as exc:            # noqa: BLE001  (any failure goes back to fastbg)
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        out.write(json.dumps(reply) + "\n")
        out.flush()


class CubeHints:
    """GNU Backgammon's ``hint`` on cube decisions, its printed answer read back."""

    def __init__(self, gnubg):
        self.gnubg = gnubg
        self.libc = ctypes.CDLL(None)
        self.text = tempfile.TemporaryFile()
        self.beavers = None

    def action(self, gid, beavers):
        if beavers != self.beavers:
            self.gnubg.command(f"set beavers {beavers}")
            self.beavers = beavers
        # setgnubgid prints a line too: read with the answer, not left to fill stderr
        out = self.printed(lambda: (self.gnubg.setgnubgid(gid), self.gnubg.command("hint")))
        for line in out.splitlines():
            if line.startswith(ACTION):
                return line[len(ACTION):].strip()
        return out.strip()

    def printed(self, call):
        """What ``call()`` prints on file descriptor 1 (C stdio flushed around it)."""
        self.libc.fflush(None)
        self.text.seek(0)
        self.text.truncate()
        saved = os.dup(1)
        os.dup2(self.text.fileno(), 1)
        try:
            call()
            self.libc.fflush(None)
        finally:
            os.dup2(saved, 1)
            os.close(saved)
        self.text.seek(0)
        return self.text.read().decode("utf-8", "replace")


if __name__ == "__main__":
    main(sys.argv)
