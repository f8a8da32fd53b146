"""Bots that ask other backgammon engines for their move: bgsage and GNU Backgammon.

Both are optional extras and play like any :class:`fastbg.EvaluatorBot`, in lock-step:
one call per round for every live game where the bot is to move (docs/tournaments.md
section 3). Each is given the boards before the move and the dice, asks its engine for
the move, and plays it; every move an engine returns must be one of fastbg's distinct
legal results for that board and dice, or the run stops with an :class:`EngineError`
naming the engine, the Position ID and the dice. An engine bot (its chooser) pickles by
name, as the engines' cube strategies do: on a Ray cluster (fastbg.distributed) each
worker process builds its own, with its own GNU Backgammon child or bgsage networks.

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

Cube action. The same engines decide the cube as cube strategies of the same names
(``cube=("gnubg-app", "gnubg-app")``, ``"bgsage-2ply"`` ...; :class:`EngineCube`,
docs/tournaments.md section 3): before each cube phase of games played in lock-step, one
call per engine gives, for every live game where a double may come, whether the player on
roll doubles and how the opponent would answer (take, pass, beaver), at the engine's level,
for money or at the game's match score. bgsage: ``batch_cube_action``'s evaluation (its
C++ batch, networks loaded once). GNU Backgammon: its ``hint`` on the position set by a
GNUbg ID (Position ID and Match ID: cube value and owner, match length, score, Crawford
game, Jacoby), read by the child process.
"""
import atexit
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import threading

import re
from typing import NamedTuple

import numba
import numpy as np

from fastbg.constants import BOARD_SIZE, OPP_BAR
from fastbg.extras import MissingPackage
from fastbg.cube.decision_kernels import BEAVER, DROP, E_ANSWER, E_DOUBLE, TAKE
from fastbg.position.ids import GAME_PLAYING, MatchState, match_id, position_id
from fastbg.sim.plugin_bots import EvaluatorBot

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

    def __reduce_ex__(self, protocol):
        # An engine's bot travels by name (to a Ray worker, which builds its own: its own
        # GNU Backgammon child process, bgsage's networks loaded there): its engine handles
        # (a child process, C++ strategies) do not pickle. Other choosers pickle as objects.
        if is_engine_name(self.name):
            return engine_chooser, (self.name,)
        return super().__reduce_ex__(protocol)

    def __repr__(self):
        return f"EngineChooser({self.name!r})"


_ENGINE_CHOOSERS = {}


def engine_chooser(name):
    """The :class:`EngineChooser` of an engine bot's name (:data:`BGSAGE_LEVELS`,
    :data:`GNUBG_APP_PLIES`), one per name and process (how a pickled engine bot is
    rebuilt where it lands); ImportError with the install hint when the engine is missing."""
    key = name.strip().lower()
    if key not in _ENGINE_CHOOSERS:
        if key in BGSAGE_LEVELS:
            _ENGINE_CHOOSERS[key] = _bgsage_chooser(key)
        elif key in GNUBG_APP_PLIES:
            _ENGINE_CHOOSERS[key] = _gnubg_app_chooser(key)
        else:
            raise ValueError(f"{name!r} is not an engine: choose from "
                             f"{', '.join([*BGSAGE_LEVELS, *GNUBG_APP_PLIES])}")
    return _ENGINE_CHOOSERS[key]


class CubeQuery(NamedTuple):
    """The cube state of m positions asked about, each seen from its player on roll (the
    one who may double): ``value`` int64 (m,) the cube; ``owner`` int64 (m,) -1 centred,
    0 the player on roll (a cube the opponent owns is never asked about); ``jacoby`` bool
    (m,) whether gammons count single (money, cube not yet turned); ``beavers`` bool (m,)
    whether the opponent may beaver (money rules with beavers, within the cube limit);
    ``away`` int64 (m, 2) the points the player on roll and the opponent need (0 in money
    play); ``length`` the match length (0: money); ``crawford`` whether this is the
    Crawford game."""
    value: np.ndarray
    owner: np.ndarray
    jacoby: np.ndarray
    beavers: np.ndarray
    away: np.ndarray
    length: int
    crawford: bool


class EngineCube:
    """An engine's own cube action as a cube strategy (``CUBE_ENGINE`` in the game
    kernels). ``decide(boards, query)`` gets int8 (m, 26) boards seen from the player on
    roll and a :class:`CubeQuery`, and returns per position (double: bool, answer: TAKE,
    DROP or BEAVER), the engine's answers as the player on roll and as his opponent were
    he doubled. Build it with :func:`engine_cube` (one object per name and process, so
    two players with the same strategy share each round's call)."""

    def __init__(self, name, decide):
        self.name = name
        self.decide = decide

    def cube_rows(self, boards, query):
        """float64 (m, 5): row i holds position i's answers at ``E_DOUBLE`` (1.0: double)
        and ``E_ANSWER`` (TAKE, DROP or BEAVER), as the game kernels read them."""
        m = boards.shape[0]
        rows = np.zeros((m, 5))
        if m == 0:
            return rows
        answers = self.decide(boards, query)
        if len(answers) != m:
            raise EngineError(f"{self.name} answered {len(answers)} cube decisions for "
                              f"{m} positions")
        for i, (double, answer) in enumerate(answers):
            if answer == BEAVER and not query.beavers[i]:
                raise EngineError(f"{self.name} beavered where the rules allow no beaver: "
                                  f"position {position_id(boards[i])}")
            rows[i, E_DOUBLE] = float(bool(double))
            rows[i, E_ANSWER] = answer
        return rows

    def __reduce__(self):               # pickled by name (a cluster task rebuilds it)
        return engine_cube, (self.name,)

    def __repr__(self):
        return f"EngineCube({self.name!r})"


_ENGINE_CUBES = {}


def is_engine_name(name):
    """True for the name of an engine bot or cube strategy (bgsage..., gnubg-app...)."""
    return isinstance(name, str) and name.strip().lower() in {**BGSAGE_LEVELS, **GNUBG_APP_PLIES}


def engine_cube(name):
    """The cube strategy of that engine name (:data:`BGSAGE_LEVELS`,
    :data:`GNUBG_APP_PLIES`): an :class:`EngineCube`, one per name and process;
    ImportError with the install hint when the engine is missing."""
    key = name.strip().lower()
    if key not in _ENGINE_CUBES:
        if key in BGSAGE_LEVELS:
            decide = _bgsage_cube(BGSAGE_LEVELS[key], key)
        elif key in GNUBG_APP_PLIES:
            decide = _gnubg_cube(GNUBG_APP_PLIES[key], key)
        else:
            raise ValueError(f"{name!r} is not an engine: choose from "
                             f"{', '.join([*BGSAGE_LEVELS, *GNUBG_APP_PLIES])}")
        _ENGINE_CUBES[key] = EngineCube(key, decide)
    return _ENGINE_CUBES[key]


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
    if name not in BGSAGE_LEVELS:
        raise ValueError(f"{name!r} is not a bgsage bot: choose from {', '.join(BGSAGE_LEVELS)}")
    return EvaluatorBot(engine_chooser(name), name=name)


def _bgsage_chooser(name):
    level = BGSAGE_LEVELS[name]
    try:
        import bgsage
    except ImportError as exc:
        raise MissingPackage(BGSAGE_HINT, "bgsage") from exc
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

    return EngineChooser(name, choose)


def _bgsage_strategies(level, filter_max_moves=5, filter_threshold=0.08):
    """bgsage's strategies at ``level`` as its batch functions build them: [its raw
    network] or [raw network, N-ply search]; None if this bgsage is built otherwise."""
    try:
        import bgbot_cpp
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
    except (ImportError, AttributeError, TypeError):
        return None
    return strategies


def _bgsage_batch(level, filter_max_moves=5, filter_threshold=0.08):
    """``batch(positions, threads)`` -> each position's best result (a bgsage board, None
    when nothing moves): ``bgsage.batch_checker_play`` with its defaults, its networks
    loaded once. ``batch_checker_play`` loads them from their files on every call (about
    75 ms, measured: more than a whole round of 300 positions at its raw level), so this
    builds its strategies once, as bgsage.batch does, and calls its C++ batch directly;
    None (the public call, slower) if this bgsage is built otherwise."""
    strategies = _bgsage_strategies(level, filter_max_moves, filter_threshold)
    if strategies is None:
        return None
    import bgbot_cpp
    from bgsage.analyzer import resolve_owner
    centred = resolve_owner("centered")

    def batch(positions, threads):
        inputs = [dict(p, cube_owner=centred) for p in positions]
        raw = bgbot_cpp.batch_checker_play(inputs, *strategies, filter_max_moves,
                                           filter_threshold, threads, jacoby=True)
        return [list(r["moves"][0]["board"]) if r["moves"] else None for r in raw]

    return batch


# bgsage's cube actions (PositionEval.optimal_action): its whole vocabulary
BGSAGE_ACTIONS = ("No Double", "Double/Take", "Double/Pass", "Double/Beaver")


def _bgsage_cube(level, name):
    """``decide(boards, query)`` of bgsage's cube action at ``level``: the evaluation of
    ``bgsage.batch_cube_action`` (``batch_evaluate``: Janowski on its N-ply cubeless
    probabilities, cubeful, match-aware), one C++ batch per (Jacoby, beaver) setting of the
    round, on fastbg's thread count; its networks loaded once (the public call reloads them
    on each call), the public ``bgsage.batch_evaluate`` if this bgsage is built otherwise."""
    try:
        import bgsage
    except ImportError as exc:
        raise MissingPackage(BGSAGE_HINT, "bgsage") from exc
    strategies = _bgsage_strategies(level)

    def evaluate(positions, jacoby, beaver, threads):
        if strategies is None:
            res = bgsage.batch_evaluate(positions, eval_level=level, n_threads=threads,
                                        jacoby=jacoby, beaver=beaver)
            return [(r.should_double, r.should_take, r.is_beaver, r.optimal_action)
                    for r in res]
        import bgbot_cpp
        from bgsage.analyzer import resolve_owner
        cpp = [(p["board"], p["cube_value"], resolve_owner(p["cube_owner"]))
               + ((p["away1"], p["away2"], p["is_crawford"]) if "away1" in p else ())
               for p in positions]
        res = bgbot_cpp.batch_evaluate_positions(cpp, strategies[-1], threads,
                                                 jacoby=jacoby, beaver=beaver)
        return [(r["should_double"], r["should_take"], r.get("is_beaver", False),
                 r["optimal_action"]) for r in res]

    def decide(boards, q):
        out = [None] * boards.shape[0]
        bg = to_bgsage(boards).tolist()
        positions = []
        for i in range(boards.shape[0]):
            p = {"board": bg[i], "cube_value": int(q.value[i]),
                 "cube_owner": "centered" if q.owner[i] < 0 else "player"}
            if q.length:
                p.update(away1=int(q.away[i, 0]), away2=int(q.away[i, 1]),
                         is_crawford=bool(q.crawford))
            positions.append(p)
        groups = {}
        for i in range(boards.shape[0]):
            key = (bool(q.jacoby[i]) and not q.length, bool(q.beavers[i]) and not q.length)
            groups.setdefault(key, []).append(i)
        for (jacoby, beaver), idx in groups.items():
            res = evaluate([positions[i] for i in idx], jacoby, beaver, numba.get_num_threads())
            for i, (dbl, take, beav, action) in zip(idx, res):
                if (action not in BGSAGE_ACTIONS or not isinstance(dbl, (bool, np.bool_))
                        or (beav and not take)):
                    raise EngineError(
                        f"{name} gave an unknown cube answer for position "
                        f"{position_id(boards[i])} (cube {int(q.value[i])}): "
                        f"{action!r}, double {dbl!r}, take {take!r}, beaver {beav!r}")
                out[i] = (bool(dbl), BEAVER if beav else TAKE if take else DROP)
        return out

    return decide


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
    if name not in GNUBG_APP_PLIES:
        raise ValueError(f"{name!r} is not a gnubg-app bot: choose from "
                         f"{', '.join(GNUBG_APP_PLIES)}")
    return EvaluatorBot(engine_chooser(name), name=name)


def _gnubg_app_chooser(name):
    if not gnubg_app_available():
        raise MissingPackage(GNUBG_APP_HINT, "gnubg-app")
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

    return EngineChooser(name, choose)


# GNU Backgammon's cube decisions (eval.c's GetCubeRecommendation), each read as its
# computer player plays them (play.c): it doubles on "Double"/"Redouble" only (not when
# "Too good", "Optional" or "Never"), and answers by the part after the comma
_GNUBG_DOUBLE = re.compile(r"^(Double|Redouble|No double|No redouble|Too good to double|"
                           r"Too good to redouble|Optional double|Optional redouble|"
                           r"Never double|Never redouble), (take|pass|beaver)"
                           r"(?: \([^()]*\))?$")
_GNUBG_ANSWERS = {"take": TAKE, "pass": DROP, "beaver": BEAVER}


def gnubg_cube_answer(action):
    """(double, answer) of GNU Backgammon's "Proper cube action" text; None when it is none
    of its decisions."""
    m = _GNUBG_DOUBLE.match(action)
    if m is None:
        return None
    return m.group(1) in ("Double", "Redouble"), _GNUBG_ANSWERS[m.group(2)]


def gnubg_cube_ids(boards, q):
    """The GNUbg IDs ("Position ID:Match ID") of the positions of a :class:`CubeQuery`:
    gnubg's player 0 on roll, dice not rolled, the cube, the match score (from the points
    each side needs) and the Crawford game, and in money play the Jacoby rule (bit 66 of
    the extended Match ID)."""
    ids = []
    for i in range(boards.shape[0]):
        score = ((q.length - int(q.away[i, 0]), q.length - int(q.away[i, 1])) if q.length
                 else (0, 0))
        state = MatchState(cube_value=int(q.value[i]),
                           cube_owner=None if q.owner[i] < 0 else 0, player_on_roll=0,
                           crawford=bool(q.crawford) and bool(q.length),
                           game_state=GAME_PLAYING, match_length=int(q.length), score=score,
                           jacoby=None if q.length else bool(q.jacoby[i]))
        ids.append(f"{position_id(boards[i])}:{match_id(state)}")
    return ids


def _gnubg_cube(ply, name):
    """``decide(boards, query)`` of GNU Backgammon's cube action at ``ply`` (its ``hint``,
    in the child process of that ply: one request per round)."""
    if not gnubg_app_available():
        raise MissingPackage(GNUBG_APP_HINT, "gnubg-app")
    worker = gnubg_process(ply)

    def decide(boards, q):
        # In match play GNU Backgammon holds the cube unavailable to a player who needs no
        # more than its value (eval.c's GetDPEq; the post-Crawford leader among them), and
        # its hint then says nothing: such a player does not double, and doubled there
        # its computer player takes (play.c). fastbg's rules allow those doubles.
        ask = (np.flatnonzero(q.away[:, 0] > q.value) if q.length
               else np.arange(boards.shape[0]))
        out = [(False, TAKE)] * boards.shape[0]
        if ask.size == 0:
            return out
        sub = q._replace(value=q.value[ask], owner=q.owner[ask], jacoby=q.jacoby[ask],
                         beavers=q.beavers[ask], away=q.away[ask])
        ids = gnubg_cube_ids(boards[ask], sub)
        actions = worker.ask("cube", [[gid, int(bool(b))] for gid, b in zip(ids, sub.beavers)])
        if len(actions) != ask.size:
            raise EngineError(f"{name} answered {len(actions)} cube decisions for {ask.size} "
                              "positions")
        for i, gid, action in zip(ask, ids, actions):
            answer = gnubg_cube_answer(action) if isinstance(action, str) else None
            if answer is None:
                raise EngineError(f"{name} gave an unknown cube decision for GNUbg ID {gid} "
                                  f"(Position ID {gid.split(':')[0]}): {str(action)[:300]!r}")
            out[i] = answer
        return out

    return decide


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
