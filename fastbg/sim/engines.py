"""Bots that ask other backgammon engines for their move: bgsage and GNU Backgammon.

Both are optional extras and play like any :class:`fastbg.EvaluatorBot`, in lock-step:
one call per round for every live game where the bot is to move (docs/tournaments.md
section 3). Each is given the boards before the move and the dice, asks its engine for
the move, and plays it; every move an engine returns must be one of fastbg's distinct
legal results for that board and dice, or the run stops with an :class:`EngineError`
naming the engine, the Position ID and the dice.

bgsage (``"bgsage"``, ``"bgsage-2ply"``, ``"bgsage-3ply"``, ``"bgsage-4ply"``; the bgsage
extra, MPL-2.0). ``bgsage.batch_checker_play`` takes the whole round, its own threads
working over the positions. Its boards are fastbg's but for the opponent's bar, counted
``>= 0`` at index 0 (fastbg counts it ``<= 0``). Its levels count the network itself as
"1ply": ``"bgsage"`` (its level "1ply") is its raw network, GNU Backgammon's 0-ply, and
``"bgsage-Nply"`` is GNU Backgammon's (N - 1)-ply. It ranks moves by cubeful equity with
a centred cube of 1 (money, Jacoby on) and plays its first.

GNU Backgammon (``"gnubg-app"`` at 0-ply, ``"gnubg-app-1ply"``, ``"gnubg-app-2ply"``; the
gnubg-app extra, the ``gnubg`` package, GPL). The engine is never imported here: it runs
in one child process per ply for the life of the Python process (started at the first
move, ``set threads 1``), speaking JSON lines (:mod:`fastbg.sim.gnubg_worker`): a request
lists each position's Position ID and dice, the reply each position's move as
``gnubg.findbestmove`` gives it, cubeless, deterministic, (from, to) points numbered from
the mover's side (25 the bar, 0 off), applied here to fastbg's board.
"""
import atexit
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import threading

import numba
import numpy as np

from fastbg.constants import BOARD_SIZE, OPP_BAR
from fastbg.position.ids import position_id

BGSAGE_LEVELS = {"bgsage": "1ply", "bgsage-1ply": "1ply", "bgsage-2ply": "2ply",
                 "bgsage-3ply": "3ply", "bgsage-4ply": "4ply"}
GNUBG_APP_PLIES = {"gnubg-app": 0, "gnubg-app-0ply": 0, "gnubg-app-1ply": 1,
                   "gnubg-app-2ply": 2}
BGSAGE_HINT = "the bgsage bots need the bgsage package: pip install 'fastbg[bgsage]'"
GNUBG_APP_HINT = ("the gnubg-app bots need GNU Backgammon's Python package: "
                  "pip install 'fastbg[gnubg-app]' (or gnubg)")


class EngineError(RuntimeError):
    """An engine returned something that is not a legal move, or stopped answering."""


class EngineChooser:
    """An EvaluatorBot function for an engine that picks moves itself.

    ``choose(before, dice, rows, seg)`` gets int8 (p, 26) boards before the move, int64
    (p, 2) dice and fastbg's legal results (the i-th position's are
    ``rows[seg[i]:seg[i + 1]]``) and returns int8 (p, 26): the result it plays in each. Called by the lock-step
    driver as ``chooser(rows, seg, before, dice)`` (``takes_positions``), it returns a
    score per candidate row: 1 for the engine's move, 0 for the others."""
    takes_positions = True

    def __init__(self, name, choose):
        self.name = name
        self.choose = choose

    def __call__(self, rows, seg, before, dice):
        p = before.shape[0]
        if p == 0:
            return np.zeros(rows.shape[0])
        chosen = np.asarray(self.choose(before, dice, rows, seg), np.int8).reshape(p, BOARD_SIZE)
        counts = np.diff(seg)
        hit = (rows == np.repeat(chosen, counts, axis=0)).all(axis=1)
        found = np.add.reduceat(hit.astype(np.int64), seg[:-1]) > 0
        if not found.all():
            i = int(np.flatnonzero(~found)[0])
            raise EngineError(
                f"{self.name} returned a move that is not legal: position {position_id(before[i])} "
                f"with dice {int(dice[i, 0])}-{int(dice[i, 1])}, its result "
                f"{position_id(chosen[i]) if _countable(chosen[i]) else chosen[i].tolist()} "
                "is none of fastbg's legal results")
        return hit.astype(np.float64)


def _countable(board):
    return (board[1:25].clip(0, None).sum() + board[25] <= 15
            and (-board[:25]).clip(0, None).sum() <= 15)


# ----------------------------------------------------------------------------- bgsage

def to_bgsage(boards):
    """fastbg boards (..., 26) -> bgsage's (the opponent's bar counted >= 0)."""
    out = np.array(boards, np.int64)
    out[..., OPP_BAR] = -out[..., OPP_BAR]
    return out


def from_bgsage(boards):
    """bgsage boards (..., 26) -> fastbg's int8 boards."""
    out = np.array(boards, np.int64)
    out[..., OPP_BAR] = -out[..., OPP_BAR]
    return out.astype(np.int8)


def bgsage_bot(name="bgsage"):
    """The bgsage bot of that name (:data:`BGSAGE_LEVELS`) as a :class:`fastbg.EvaluatorBot`;
    ImportError with the install hint without bgsage."""
    from fastbg.sim.bots import EvaluatorBot
    level = BGSAGE_LEVELS[name]
    try:
        import bgsage
    except ImportError as exc:
        raise ImportError(BGSAGE_HINT) from exc
    batch = _bgsage_batch(level)

    def choose(before, dice, rows, seg):
        boards = to_bgsage(before).tolist()
        positions = [{"board": b, "die1": int(d[0]), "die2": int(d[1]), "cube_value": 1,
                      "cube_owner": "centered"} for b, d in zip(boards, dice.tolist())]
        if batch is None:
            results = bgsage.batch_checker_play(positions, eval_level=level,
                                                n_threads=numba.get_num_threads())
            best = [r.moves[0].board if r.moves else None for r in results]
        else:
            best = batch(positions, numba.get_num_threads())
        return np.array([from_bgsage(m) if m is not None else before[i]
                         for i, m in enumerate(best)], np.int8).reshape(-1, BOARD_SIZE)

    return EvaluatorBot(EngineChooser(name, choose), name=name)


def _bgsage_batch(level, filter_max_moves=5, filter_threshold=0.08):
    """``batch(positions, threads)`` -> each position's best result (a bgsage board, None
    when nothing moves): ``bgsage.batch_checker_play`` with its defaults, its networks
    loaded once. ``batch_checker_play`` loads them from their files on every call (about
    75 ms, measured: more than a whole round of 300 positions at its raw level), so this
    builds its strategies once, as bgsage.batch does, and calls its C++ batch directly;
    None (the public call, slower) if this bgsage is built otherwise."""
    try:
        import bgbot_cpp
        from bgsage.analyzer import resolve_owner
        from bgsage.weights import WeightConfigPair, default_weights
        weights = default_weights()
        if isinstance(weights, WeightConfigPair):
            paths, hiddens = weights.weight_args
            kind = getattr(weights, "strategy_type", "pair")
            strategies = [bgbot_cpp.create_strategy(kind, paths, hiddens)]
            if level != "1ply":
                strategies.append(bgbot_cpp.create_multipy(
                    kind, paths, hiddens, n_plies=int(level[0]),
                    filter_max_moves=filter_max_moves, filter_threshold=filter_threshold,
                    parallel_evaluate=False, parallel_threads=0))
        else:
            strategies = [bgbot_cpp.GamePlanStrategy(*weights.weight_args)]
            if level != "1ply":
                strategies.append(bgbot_cpp.create_multipy_5nn(
                    *weights.weight_args, n_plies=int(level[0]),
                    filter_max_moves=filter_max_moves, filter_threshold=filter_threshold,
                    parallel_evaluate=False, parallel_threads=0))
        centred = resolve_owner("centered")
    except (ImportError, AttributeError, TypeError):
        return None

    def batch(positions, threads):
        inputs = [dict(p, cube_owner=centred) for p in positions]
        raw = bgbot_cpp.batch_checker_play(inputs, *strategies, filter_max_moves,
                                           filter_threshold, threads, jacoby=True)
        return [list(r["moves"][0]["board"]) if r["moves"] else None for r in raw]

    return batch


# ----------------------------------------------------------------------------- gnubg

def apply_gnubg_move(board, move):
    """fastbg board after GNU Backgammon's move ``(from, to, from, to ...)``: points of the
    mover (25 its bar, 0 off); landing on a lone opposing checker sends it to the bar."""
    b = np.array(board, np.int8)
    for k in range(0, len(move) - 1, 2):
        f, t = int(move[k]), int(move[k + 1])
        b[f] -= 1
        if t > 0:
            if b[t] == -1:
                b[t] = 0
                b[OPP_BAR] -= 1
            b[t] += 1
    return b


class GnubgWorker:
    """One child process running GNU Backgammon at ``ply`` (fastbg.sim.gnubg_worker)."""

    def __init__(self, ply, python=None):
        self.ply = ply
        self.python = python or os.environ.get("FASTBG_GNUBG_PYTHON", sys.executable)
        self.proc = None
        self.lock = threading.Lock()

    def _start(self):
        worker = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gnubg_worker.py")
        self.errors = tempfile.TemporaryFile("w+")      # the child's messages, for errors
        self.proc = subprocess.Popen([self.python, worker, str(self.ply)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.errors, text=True,
                                     bufsize=1)
        hello = self._read()
        if hello.get("ready") is not True:
            raise EngineError(f"gnubg-app did not start: {hello}")

    def _read(self):
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait()
            self.errors.seek(0)
            err = self.errors.read()[-2000:].strip()
            self.proc = None
            raise EngineError(f"the gnubg-app worker stopped answering{': ' + err if err else ''}")
        return json.loads(line)

    def ask(self, key, items):
        """Send one request ``{key: items}`` (fastbg.sim.gnubg_worker) and return its reply."""
        with self.lock:
            if self.proc is None or self.proc.poll() is not None:
                self._start()
            self.proc.stdin.write(json.dumps({key: items}) + "\n")
            self.proc.stdin.flush()
            reply = self._read()
        if "error" in reply:
            raise EngineError(f"gnubg-app: {reply['error']}")
        return reply[key]

    def best(self, ids, dice):
        """GNU Backgammon's (move tuple, its equity) for each (Position ID, dice)."""
        return self.ask("best", [[p, int(a), int(b)] for p, (a, b) in zip(ids, dice)])

    def equity(self, ids):
        """The mover's equity after each move (Position IDs with the opponent on roll)."""
        return self.ask("equity", list(ids))

    def close(self):
        """Stop the child (it may crash on the way out; its exit status is ignored)."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        try:
            proc.stdin.close()
            proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait()


_WORKERS = {}


def gnubg_process(ply):
    """The process's one :class:`GnubgWorker` at ``ply`` (started at its first request)."""
    if ply not in _WORKERS:
        _WORKERS[ply] = GnubgWorker(ply)
    return _WORKERS[ply]


@atexit.register
def close_gnubg_workers():
    """Stop every GNU Backgammon child process of this Python process."""
    for w in _WORKERS.values():
        w.close()


def gnubg_app_available():
    """True when the gnubg package can be found (it is not imported here)."""
    return importlib.util.find_spec("gnubg") is not None


def gnubg_app_bot(name="gnubg-app"):
    """The GNU Backgammon bot of that name (:data:`GNUBG_APP_PLIES`) as a
    :class:`fastbg.EvaluatorBot`; ImportError with the install hint without gnubg."""
    from fastbg.sim.bots import EvaluatorBot
    if not gnubg_app_available():
        raise ImportError(GNUBG_APP_HINT)
    worker = gnubg_process(GNUBG_APP_PLIES[name])

    def choose(before, dice, rows, seg):
        best = worker.best([position_id(b) for b in before], dice.tolist())
        chosen = np.zeros_like(before)
        cut = []
        for i, (move, score) in enumerate(best):
            chosen[i] = apply_gnubg_move(before[i], move)
            if len(move) % 2:              # the tuple stopped at a checker borne off
                cut.append((i, score))
        if cut:
            _settle_cut_moves(worker, cut, rows, seg, chosen)
        return chosen

    return EvaluatorBot(EngineChooser(name, choose), name=name)


def _settle_cut_moves(worker, cut, rows, seg, chosen):
    """For each (position, score) whose move tuple was cut short, the legal result whose
    equity at the worker's ply is nearest the score of gnubg's move (a result that bears
    off the last checker wins outright). All candidates of those positions go in one
    request."""
    asks, where = [], []
    for i, score in cut:
        cands = rows[seg[i]:seg[i + 1]]
        over = np.flatnonzero(~(cands[:, 1:] > 0).any(axis=1))
        if over.size:
            chosen[i] = cands[over[0]]
            continue
        where.append((i, score, len(asks), len(cands)))
        asks += [position_id(-c[::-1]) for c in cands]
    if not asks:
        return
    eq = np.array(worker.equity(asks))
    for i, score, k, n in where:
        chosen[i] = rows[seg[i] + int(np.argmin(np.abs(eq[k:k + n] - score)))]
