"""Play many games: :func:`play`, and the chunked driver every job shares.

Each game is a pure function of (seed, game index): its dice and the random bot's choices
come from :mod:`fastbg.dice`, so results are bit-identical for any thread count, any
chunking, and when a run is split into shards of game indices played separately
(``game_offset``) and joined with :meth:`GameResults.concat`. Without ``rules`` games are
cubeless; with :class:`~fastbg.MoneyRules` or :class:`~fastbg.MatchRules` the kernel plays
the cube (automatic doubles, Jacoby, beavers, raccoons, Crawford, ``max_cube``).

Interrupts. A job runs in chunks; Ctrl-C (KeyboardInterrupt) is seen between kernel calls,
so chunks are sized to take about :data:`TARGET_SECONDS` (from a small first chunk, grown
by the measured speed): the job stops within about a second, keeps every finished chunk
(and, with ``out``, has already written it to its results journal) and never records the
interrupted one.
"""
import threading
import warnings
from collections import namedtuple
from contextlib import closing

import numpy as np

from fastbg import journal as _journal
from fastbg.constants import BOARD_SIZE
from fastbg.cube import decision_kernels as _kcube
from fastbg.cube import strategies as _cubes
from fastbg.cube.rules import rules_dict
from fastbg.distributed import LOCAL, resolve_backend
from fastbg.parallel import run_spans, this_thread_alone, threadsafe_layer, threads as _threads
from fastbg.plugin_pointers import call_holding_interrupts
from fastbg.position.ids import position_id
from fastbg.position.movegen import gather_rows as _gather_rows
from fastbg.position.moves import legal_moves_rows as _legal_moves_rows
from fastbg.progress import progress_bar
from fastbg.sim import engines as _engines
from fastbg.sim import game_kernels as _play
from fastbg.sim import record_kernels as _rk
from fastbg.sim import records as _records
from fastbg.sim.results import GameResults
from fastbg.sim.setup import MAX_PLIES, job_setup
from fastbg.validation import check_flag, check_int

MAX_CHUNK = 1 << 15         # games per chunk at most: bounds the memory of a chunk's state
FIRST_CHUNK = 512           # the first chunk, before the speed is known
TARGET_SECONDS = 0.25       # wall time a chunk aims at: Ctrl-C is seen between chunks
TASKS_PER_THREAD = 8       # kernel tasks per thread, for load balance (game lengths vary)
# Rows of record a game gets in a chunk (a ply takes one, a double's move two, a cube
# action one): pubeval games take 60-70, random ones more. A game that needs more is
# played again alone with room for the longest game (games are pure functions of their
# index, so it is the same game).
RECORD_ROWS = 160
RECORD_ROWS_MOST = 2 * MAX_PLIES + 64
_ERRORS = {
    _play.ERR_NAN: "returned a NaN score",
    _play.ERR_TOO_LONG: f"did not finish within {MAX_PLIES} plies",
    _play.ERR_INVARIANT: "made a move that broke a board invariant (debug check)",
    _play.ERR_CUBE_OVERFLOW: ("doubled the cube past 2**30, the largest stake results hold "
                              "(set a max_cube)"),
}


class BotError(RuntimeError):
    """A bot misbehaved (NaN score, wrong number of scores); the message names the game."""


class ChunkSizer:
    """Chunk sizes of a run: ``fixed`` when given, else grown from :data:`FIRST_CHUNK` so
    that a chunk takes about ``target`` seconds (at most ``most`` units). Sizes change no
    result (every game is a pure function of its index), only how often progress is shown
    and Ctrl-C is seen."""

    def __init__(self, fixed=None, first=FIRST_CHUNK, most=MAX_CHUNK, target=TARGET_SECONDS):
        self.fixed = None if fixed is None else check_int("chunk_size", fixed, 1)
        self.size = min(first, most)
        self.most = most
        self.target = target

    def next(self, remaining):
        return min(remaining, self.fixed or self.size)

    def measured(self, n, seconds):
        """A chunk of ``n`` units took ``seconds``: aim the next one at the target."""
        if self.fixed is None and n >= self.size and seconds > 0:
            rate = n / seconds
            self.size = int(max(1, min(self.most, 4 * self.size, rate * self.target)))


class ChunkRows:
    """Kernel outputs of one chunk of games: ``outcome`` (n, 5) int32 (winner, kind,
    plies, first, error), ``cube_out`` (n, 3) int32 (final cube, dropped, points won by
    the winner), ``final`` (n, 26) int8 last boards (only with ``keep_final``), and with
    ``record`` the :class:`fastbg.sim.records.RecordArrays` of its games in ``records``."""
    __slots__ = ("outcome", "cube_out", "final", "rec", "records")

    def __init__(self, n, keep_final, record=False, cap=RECORD_ROWS):
        self.outcome = np.zeros((n, 5), np.int32)
        self.cube_out = np.zeros((n, 3), np.int32)
        self.final = np.zeros((n if keep_final else 0, BOARD_SIZE), np.int8)
        self.rec = _records.buffers(n, cap, 0) if record else None
        self.records = None


def play_chunk(st, game0, n, keep_final=False, record=False):
    """Play games ``game0 .. game0 + n - 1`` of setup ``st``: their :class:`ChunkRows`
    (with ``record``, their records too, in the kernel's game loop or in lock-step alike).

    Raises :class:`BotError` when a bot misbehaved. A KeyboardInterrupt passes through:
    a chunk is whole or it is not returned.
    """
    rows = _play_rows(st, game0, n, keep_final, record, RECORD_ROWS)
    if record:
        rows.records = _compact_game_records(st, game0, rows)
    return rows


def _compact_game_records(st, game0, rows):
    """The chunk's records as compact arrays; a game that outgrew its rows is played
    again alone with room enough."""
    rec = rows.rec
    counts = rec.used[:, 0].copy()
    flags = rec.used[:, 1]
    if (flags == _rk.BAD_MOVE).any():
        raise RuntimeError(f"game {game0 + int(np.flatnonzero(flags == _rk.BAD_MOVE)[0])}: "
                           "a move could not be recorded (more than four pairs)")
    full = np.flatnonzero(flags == _rk.FULL)
    parts = [rec.rows[g, :counts[g]] for g in range(len(counts))] if full.size else None
    for g in full:
        again = _play_rows(st, game0 + int(g), 1, False, True, RECORD_ROWS_MOST)
        counts[g] = again.rec.used[0, 0]
        parts[g] = again.rec.rows[0, :counts[g]]
    score = (0, 0)
    if st.rules is not None and st.rules.is_match:
        score = (st.rules.length - int(st.gcfg[_play.G_AWAY0]),
                 st.rules.length - int(st.gcfg[_play.G_AWAY1]))
    heads = _records.game_heads(rows.outcome, rows.cube_out, counts, score,
                                int(st.gcfg[_play.G_CRAWFORD_GAME]))
    n = len(counts)
    if parts is None:
        return _records.RecordArrays.from_buffers(rec.rows, counts, heads, np.ones(n, np.int64))
    packed = np.zeros((n, max(1, int(counts.max())), _rk.ROW_WIDTH), np.int8)
    for g, p in enumerate(parts):
        packed[g, :p.shape[0]] = p
    return _records.RecordArrays.from_buffers(packed, counts, heads, np.ones(n, np.int64))


def _play_rows(st, game0, n, keep_final, record, cap):
    rows = ChunkRows(n, keep_final, record, cap)
    if n == 0:
        return rows
    with _threads(st.n_threads), warnings.catch_warnings():
        # Plug-ins make the kernel uncacheable; numba says so on each compile.
        warnings.filterwarnings("ignore", message="Cannot cache compiled function")
        if st.lockstep and _side_by_side(st, n):
            _lockstep_parts(st, game0, rows)
        elif st.lockstep:
            _lockstep_chunk(st, np.int64(game0), rows)
        else:
            n_tasks = max(1, min(n, st.n_threads * TASKS_PER_THREAD))
            # cubeless: no cube code, but a run with the gnubg networks keeps its cubes (cube
            # off, plug-ins the net's): every such run then shares one game kernel, the
            # costliest to compile (tens of seconds), cubeless or not
            cubes = st.cubes if st.cube_on or st.bots.gnet is not None else None
            run_spans(lambda t0, t1: call_holding_interrupts(
                _play.play_games, st.seed, np.int64(game0), t0, t1, n_tasks, st.gcfg, st.start_board, st.rot,
                st.bots, cubes, rows.outcome, rows.cube_out, rows.final, rows.rec),
                n_tasks, st.n_threads, tasks_per_thread=TASKS_PER_THREAD, min_span=1)
    raise_for_errors(rows.outcome, game0, st.names)
    return rows


def raise_for_errors(outcome, first_game, names, what="game"):
    """BotError naming the first game whose error column is set, if any."""
    bad = np.flatnonzero(outcome[:, 4])
    if bad.size:
        g = int(bad[0])
        who = names[int(outcome[g, 0])]
        raise BotError(f"{what} {first_game + g}: {who} {_ERRORS[int(outcome[g, 4])]}"
                       + (f" ({bad.size} failed in this chunk)" if bad.size > 1 else ""))


def run_chunks(n, done, step, *, chunk_size=None, most=MAX_CHUNK, bar=None, journal=None,
               record=None, backend=LOCAL, label="fastbg"):
    """The chunk loop of a job: ``step(lo, hi)`` plays units ``lo .. hi - 1`` and returns
    their part; with a ``journal``, ``record(lo, hi, part)`` is appended as soon as the
    part is whole. Starts at unit ``done`` (a resumed run). ``backend`` computes the parts
    (:mod:`fastbg.distributed`: here, or as cluster tasks named ``label lo..hi``); they are
    merged in order either way.

    Returns (parts, interrupted): the finished parts in order, and whether Ctrl-C stopped
    the loop (the chunk it interrupted is dropped, never recorded).
    """
    sizer = ChunkSizer(chunk_size, most=most, target=backend.chunk_target(TARGET_SECONDS))

    def spans(lo):              # sized when asked for: from the speed measured so far
        while lo < n:
            k = sizer.next(n - lo)
            yield lo, lo + k
            lo += k

    parts = []
    try:
        with closing(backend.map(step, spans(done), label)) as results:
            for (lo, hi), part, seconds in results:
                sizer.measured(hi - lo, seconds)
                with _journal.interrupts_held():     # on disk and in memory, or neither
                    if journal is not None:
                        journal.append(record(lo, hi, part))
                    parts.append(part)
                if bar is not None:
                    bar.update(hi - lo)
    except KeyboardInterrupt:
        return parts, True
    return parts, False


def game_arrays(rows):
    """The per-game arrays of :class:`GameResults` from a chunk's kernel rows (and its
    records under "records" when it has them)."""
    winner = rows.outcome[:, 0].astype(np.int8)
    extra = {} if rows.records is None else {"records": rows.records}
    return extra | {"winner": winner, "kind": rows.outcome[:, 1].astype(np.int8),
            "points": np.where(winner == 0, rows.cube_out[:, 2],
                               -rows.cube_out[:, 2]).astype(np.int32),
            "plies": rows.outcome[:, 2].astype(np.int16),
            "first": rows.outcome[:, 3].astype(np.int8),
            "cube": rows.cube_out[:, 0].astype(np.int32),
            "dropped": rows.cube_out[:, 1].astype(np.bool_)}


def _start_text(start):
    """The start position as plain data for a results file."""
    if start is None:
        return None
    board, side = start if isinstance(start, tuple) else (start, 0)
    return [position_id(board), int(side)]


def open_journal(out, job, settings, resume, check=None):
    """The job's :class:`~fastbg.journal.Journal` at ``out``, or None without one."""
    if out is None:
        if resume:
            raise ValueError("resume=True continues the results file given by out=")
        return None
    return _journal.Journal(out, job, settings, resume=resume, check=check)


def contiguous(records):
    """Check that journal records cover units 0 .. k - 1 in order; returns k."""
    done = 0
    for rec in records:
        if rec["lo"] != done or rec["hi"] <= rec["lo"]:
            raise _journal.JournalError(f"the chunks are not consecutive: one starts at "
                                        f"{rec['lo']}, {done} expected")
        done = rec["hi"]
    return done


def run_per_game_job(job, settings, n, results_class, step, *, out, resume, progress, unit,
                     desc, chunk_size=None, most=MAX_CHUNK, backend=LOCAL):
    """Run a job of ``n`` units (games, matches) whose results class holds per-unit arrays:
    the journal at ``out`` (resumed from where it stops), a progress bar, the chunk loop
    (``step(lo, hi)`` -> dict of arrays, computed by ``backend``). Returns ({name: array}
    of every finished unit, whether Ctrl-C stopped the run)."""
    journal = open_journal(out, job, settings, resume)
    old = [] if journal is None else journal.records
    try:
        done = contiguous(old)
        if done > n:
            raise _journal.JournalError(f"{out} holds {done} {unit}s, more than {n}")
        bar = progress_bar(n, progress, unit, desc, initial=done)
        try:
            parts, interrupted = run_chunks(n, done, step, chunk_size=chunk_size, most=most,
                                            bar=bar, journal=journal,
                                            record=results_class.chunk_record,
                                            backend=backend, label=f"fastbg {job}")
        finally:
            bar.close()
    finally:
        if journal is not None:
            journal.close()
    return results_class.join_arrays(old, parts), interrupted


def play(n_games, bots=("random", "random"), seed=0, threads=None, start=None,
         progress=False, opening="use", game_offset=0, debug=False, chunk_size=None,
         rules=None, cube=None, score=None, crawford_game=False, *, out=None, resume=False,
         backend="local", record=False):
    """Play ``n_games`` games between two bots and return :class:`GameResults`.

    bots        : two bots, each a name (``"random"``, ``"pubeval"``, ``"greedy"``,
                  ``"gnubg"`` with the gnubg extra) or a :class:`~fastbg.sim.bots.ScorerBot` /
                  :class:`~fastbg.sim.bots.EvaluatorBot`. ``points`` are from bots[0]'s view.
    seed        : with ``game_offset``, fixes every game: game i of a run is game
                  ``game_offset + i`` of the seed, whatever the threads or chunking.
    start       : None for the opening roll (docs/rules.md section 2), else a board (the
                  side on roll is bot 0) or ``(board, side)``, the board seen from that side.
    opening     : ``"use"`` (the first player plays the opening dice) or ``"reroll"``.
    rules       : None (cubeless), :class:`~fastbg.MoneyRules` or :class:`~fastbg.MatchRules`.
    cube        : two cube strategies (``"never"``, ``"race"`` or a
                  :class:`~fastbg.cube.strategies.JanowskiCube`); default never.
    score, crawford_game : match play only: every game is played at this score (default
                  0-0), as the Crawford game or not; points are capped at what the winner
                  needs. For whole matches use :func:`fastbg.play_matches`.
    progress    : show a progress bar (tqdm).
    debug       : check invariants on every move (slower); a violation raises BotError.
    chunk_size  : games per chunk (default: sized to about a quarter second each).
    out, resume : a results journal to append each finished chunk to; with ``resume=True``
                  the games already in it are not played again and the result is
                  bit-identical to an uninterrupted run.
    backend     : where the chunks are played: "local" (this process, the default), "ray"
                  (a Ray cluster at Ray's default address) or a :class:`fastbg.RayCluster`
                  (another address, task CPUs; docs/cluster.md); the results are
                  bit-identical.
    record      : keep every game's actions: ``res.records`` (docs/records.md), a few
                  bytes a ply; the games are the same as without. Not with ``out``.
    Ctrl-C returns the chunks of games finished so far, with ``partial=True``.

    >>> import fastbg
    >>> res = fastbg.play(1000, ("pubeval", "random"), seed=1)
    >>> res.summary()["win_rate"][0] > 0.9
    True
    """
    n_games = check_int("n_games", n_games, 0)
    record = check_flag("record", record)
    if record and (out is not None or resume):
        raise ValueError("record=True keeps the records in memory: it does not go with out= "
                         "or resume (write them with fastbg.write_mat / write_sgf)")
    backend = resolve_backend(backend)
    game_offset = check_int("game_offset", game_offset, 0, 2**63 - 1 - n_games)
    st = job_setup(bots=bots, seed=seed, threads=threads, start=start, opening=opening,
                   debug=debug, rules=rules, cube=cube, score=score,
                   crawford_game=crawford_game)
    settings = {"games": n_games, "bots": list(st.names), "seed": int(st.seed),
                "game_offset": game_offset, "start": _start_text(start), "opening": opening,
                "rules": rules_dict(rules), "cube": st.rules_text,
                "score": None if score is None else list(score),
                "crawford_game": bool(crawford_game), "debug": bool(debug)}
    arrays, interrupted = run_per_game_job(
        "games", settings, n_games, GameResults,
        lambda lo, hi: game_arrays(play_chunk(st, game_offset + lo, hi - lo, record=record)),
        out=out, resume=resume, progress=progress, unit="game",
        desc=f"{st.names[0]} vs {st.names[1]}", chunk_size=chunk_size, backend=backend)
    n = arrays["winner"].shape[0]
    records = arrays.pop("records", None)
    if record:
        records = _records.Records(records or _records.RecordArrays.empty(), players=st.names,
                                   rules=st.rules, offset=game_offset,
                                   start=(st.start_board, int(st.gcfg[_play.G_START_SIDE]))
                                   if st.gcfg[_play.G_USE_START] else None)
    return GameResults(**arrays, bots=st.names, seed=int(st.seed), game_offset=game_offset,
                       partial=interrupted or n < n_games, meta={"rules": st.rules_text},
                       records=records)


LockstepGames = namedtuple("LockstepGames",
                           "boards side ply d1 d2 value owner turned alive")
LockstepGames.__doc__ = """The state of a chunk of games played in lock-step (one row per
game): boards (n, 26) int8 from the side on roll, side, plies played, the opening dice,
the cube value, owner (-1 centred), whether it was turned, whether the game goes on."""


def lockstep_games(st, game0, rows):
    """The :class:`LockstepGames` of games game0 .. game0 + n - 1 (n rows of ``rows``, a
    :class:`ChunkRows`) set up for ply 0, and their initial cube in ``rows.cube_out``."""
    n = rows.outcome.shape[0]
    g = LockstepGames(np.zeros((n, BOARD_SIZE), np.int8), np.zeros(n, np.int8),
                      np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64),
                      np.ones(n, np.int64), np.full(n, -1, np.int64), np.zeros(n, np.bool_),
                      np.ones(n, np.bool_))
    _play.lockstep_start(st.seed, game0, st.gcfg, st.start_board, st.cubes.cfg, g.boards,
                         g.side, g.d1, g.d2, g.value, g.owner, g.turned, g.alive,
                         rows.outcome, rows.rec)
    rows.cube_out[:, 0] = g.value
    return g


def lockstep_cube_phase(st, g, live, rows):
    """The cube phase of the live games of :class:`LockstepGames` ``g``: the kernel's
    strategies, or those of a batch cube strategy with their rows (:func:`_cube_rows`)."""
    if st.cube_batch is None:
        call_holding_interrupts(_play.lockstep_cube, st.gcfg, st.cubes, live, g.boards, g.side,
                                g.ply, g.value, g.owner, g.turned, g.alive, rows.outcome,
                                rows.cube_out, rows.rec)
    else:
        rows0, rows1 = _cube_rows(st, live, g.boards, g.side, g.ply, g.value, g.owner,
                                  g.turned)
        call_holding_interrupts(_play.lockstep_cube_rows, st.gcfg, st.cubes, live, g.boards,
                                g.side, g.ply, g.value, g.owner, g.turned, g.alive,
                                rows.outcome, rows.cube_out, rows0, rows1, rows.rec)


def lockstep_round(st, game0, g, rows):
    """The start of a lock-step round: the cube phase of the live games of ``g``, then
    (live game indices, their dice (len(live), 2)); no live game left: an empty ``live``."""
    live = np.flatnonzero(g.alive)
    if live.size and st.cube_on:
        lockstep_cube_phase(st, g, live, rows)
        live = np.flatnonzero(g.alive)
    dice = np.zeros((live.size, 2), np.int64)
    if live.size:
        _play.lockstep_dice(st.seed, game0, live, g.ply, g.d1, g.d2, st.gcfg, st.rot, dice)
    return live, dice


# Games a thread takes at least when a lock-step chunk is shared out (:func:`_side_by_side`).
GAMES_PER_PART = 8


def _side_by_side(st, n):
    """Whether the lock-step chunk of ``n`` games of ``st`` runs as one part per thread,
    each part's games in lock-step on its thread alone (:func:`_lockstep_parts`).

    When every Python function of the run is one of fastbg's own that runs side by side
    (``runs_side_by_side``: the n-ply bots, the networks' n-ply cube): their rounds are
    small batches of work between Python steps, which waste most of a second thread when
    each round is shared out (measured: a 1-ply rollout as fast on one thread as on two);
    and when numba's parallel kernels may be launched from two threads at once."""
    if st.n_threads < 2 or n < 2 * GAMES_PER_PART:
        return False
    funcs = [f for f in st.evaluators + st.late_evaluators + (st.cube_batch or ())
             if f is not None]
    if not all(getattr(f, "runs_side_by_side", False) or
               getattr(getattr(f, "__self__", None), "runs_side_by_side", False)
               for f in funcs):
        return False
    return threadsafe_layer()


def _lockstep_parts(st, game0, rows):
    """:func:`_lockstep_chunk` of ``rows``'s games in one contiguous part per thread, each
    played on its thread alone (a game's moves depend on its own index, not on the games
    it shares rounds with: the same results as one lock-step)."""
    n = rows.outcome.shape[0]
    parts = min(st.n_threads, n // GAMES_PER_PART)
    bounds = [n * i // parts for i in range(parts + 1)]
    stop = threading.Event()        # set when a part fails (or Ctrl-C in the main thread)
    errors = []

    def play(a, b):
        try:
            with this_thread_alone():
                for i in range(a, b):
                    lo, hi = bounds[i], bounds[i + 1]
                    _lockstep_chunk(st, np.int64(game0 + lo), _rows_slice(rows, lo, hi), stop)
        except _Stopped:
            raise
        except BaseException as exc:
            errors.append(exc)
            stop.set()              # the other parts stop at their next round
            raise
    try:
        run_spans(play, parts, st.n_threads, tasks_per_thread=1, min_span=1)
    except _Stopped:
        if errors:                  # the part that failed first says why
            raise errors[0] from None
        raise


def _rows_slice(rows, lo, hi):
    """A :class:`ChunkRows` whose arrays are views of games lo..hi-1 of ``rows``."""
    part = ChunkRows.__new__(ChunkRows)
    part.outcome = rows.outcome[lo:hi]
    part.cube_out = rows.cube_out[lo:hi]
    part.final = rows.final[lo:hi] if rows.final.shape[0] else rows.final
    part.rec = None if rows.rec is None else rows.rec._replace(
        rows=rows.rec.rows[lo:hi], used=rows.rec.used[lo:hi])
    part.records = None
    return part


class _Stopped(Exception):
    """A part of a shared-out chunk stops: another part failed or was interrupted."""


def _lockstep_chunk(st, game0, rows, stop=None):
    """Play a chunk one ply per round, calling the Python evaluators between rounds (and
    stopping with :class:`_Stopped` at the first round after ``stop`` is set)."""
    outcome, cube_out, final = rows.outcome, rows.cube_out, rows.final
    n = outcome.shape[0]
    cfg = st.cubes.cfg
    g = lockstep_games(st, game0, rows)
    boards, side, ply = g.boards, g.side, g.ply
    value, turned, alive = g.value, g.turned, g.alive
    while True:
        if stop is not None and stop.is_set():
            raise _Stopped()
        live, dice = lockstep_round(st, game0, g, rows)
        if live.size == 0:
            break
        res, off, choice = lockstep_choices(st, game0, g, live, dice)
        _play.lockstep_apply(live, boards, res, off, choice, dice, side, ply, alive, st.gcfg,
                             cfg, value, turned, outcome, cube_out, rows.rec)
    if final.shape[0] == n:
        final[:] = boards


def lockstep_choices(st, game0, g, live, dice):
    """The moves of a lock-step round: the legal results ``res`` of the live games of
    :class:`LockstepGames` ``g`` (game live[j]'s are res[off[j]:off[j + 1]], for its dice
    dice[j]) and ``choice`` (j -> index into them), chosen in the kernel or by each
    evaluator bot in one call for all its games. ``game0``: the first game's key, or an
    int64 array of each row's key (:func:`fastbg.sim.lockstep_kernels.game_key`)."""
    boards, side, ply = g.boards, g.side, g.ply
    res, off = _legal_moves_rows(np.ascontiguousarray(boards[live]), dice, st.n_threads)
    choice = np.zeros(live.size, np.int64)
    n_tasks = max(1, st.n_threads * TASKS_PER_THREAD)
    call_holding_interrupts(_play.lockstep_choose, st.seed, game0, live, ply, side, st.bots,
                            boards, res, off, n_tasks, choice)
    for s, evaluate in enumerate(st.evaluators):
        if evaluate is None:
            continue
        if st.late_ply < 0:
            evaluate_pending(evaluate, s, live, side, res, off, choice, game0,
                             boards=boards, dice=dice)
        else:               # the early bot before the late ply, the late one from it
            late = ply[live] >= st.late_ply
            evaluate_pending(evaluate, s, live, side, res, off, choice, game0, ~late,
                             boards=boards, dice=dice)
            evaluate_pending(st.late_evaluators[s], s, live, side, res, off, choice,
                             game0, late, boards=boards, dice=dice)
    return res, off, choice


def _cube_rows(st, live, boards, side, ply, value, owner, turned):
    """Each player's cube probabilities (float64 (len(live), 5)) of the live games' boards
    where the player on roll may double (the cube phase reads no others): the batch cube
    strategies' evaluations for :func:`fastbg.sim.lockstep_kernels.lockstep_cube_rows`; for an
    engine's strategy its answers instead (:func:`_engine_cube_rows`)."""
    m = live.size
    rows = [np.zeros((m, 5)), np.zeros((m, 5))]
    if st.gcfg[_play.G_CRAWFORD_GAME]:
        return rows
    max_cube = st.cubes.cfg[_kcube.C_MAX_CUBE]
    may = (owner[live] < 0) | (owner[live] == side[live])
    if max_cube >= 0:
        may &= 2 * value[live] <= max_cube
    if _play.no_cube_at_ply0(st.gcfg):
        may &= ply[live] > 0
    where = np.flatnonzero(may)
    if where.size:
        _engine_cube_rows(st, live[where], where, boards, side, value, owner, turned, rows)
        b = np.ascontiguousarray(boards[live[where]])
        for s, evaluate in enumerate(st.cube_batch):
            if evaluate is not None and not _cubes.is_engine_cube(evaluate):
                p = np.asarray(evaluate(b), np.float64)
                if p.shape != (where.size, 5) or not np.all(np.isfinite(p)):
                    raise BotError(f"the cube strategy of player {s} returned probabilities "
                                   f"of shape {p.shape} (or not finite) for {where.size} "
                                   "positions: it must give (m, 5) finite values")
                rows[s][where] = p
    return rows


def _engine_cube_rows(st, games, where, boards, side, value, owner, turned, rows):
    """Fill ``rows[s][where]`` with the answers of player s's engine cube strategy for
    ``games`` (the live games where a double may come, ``where`` their rows): one call per
    engine for the round. An engine is asked where its player is on roll (to double) and
    where the opponent on roll may double (its answer); two players with the same engine
    share one call."""
    engines = st.cube_batch
    codes = st.cubes.strategies
    mover = side[games]
    asked = {}
    for s in (0, 1):
        eng = engines[s]
        if eng is None or not _cubes.is_engine_cube(eng):
            continue
        need = (mover == s) | (codes[1 - s] != _kcube.CUBE_NEVER) & (mover != s)
        if id(eng) in asked:
            asked[id(eng)][1].append(s)
            asked[id(eng)][2] |= need
        else:
            asked[id(eng)] = [eng, [s], need]
    cfg, gcfg = st.cubes.cfg, st.gcfg
    money = cfg[_kcube.C_MATCH] == 0
    for eng, players, need in asked.values():
        k = np.flatnonzero(need)
        if k.size == 0:
            continue
        g = games[k]
        v = value[g].astype(np.int64)
        limit = cfg[_kcube.C_MAX_CUBE]
        away = np.zeros((k.size, 2), np.int64)
        if not money:
            a = np.array([gcfg[_play.G_AWAY0], gcfg[_play.G_AWAY1]], np.int64)
            away[:, 0] = a[side[g]]
            away[:, 1] = a[1 - side[g]]
        query = _engines.CubeQuery(
            value=v, owner=np.where(owner[g] < 0, -1, 0).astype(np.int64),
            jacoby=money & (cfg[_kcube.C_JACOBY] != 0) & ~turned[g].astype(bool),
            beavers=(money & (cfg[_kcube.C_BEAVERS] != 0)
                     & ((limit < 0) | (4 * v <= limit))),
            away=away, length=0 if money else int(cfg[_kcube.C_LENGTH]),
            crawford=bool(gcfg[_play.G_CRAWFORD_GAME]))
        answers = eng.cube_rows(np.ascontiguousarray(boards[g]), query)
        for s in players:
            rows[s][where[k]] = answers


def _which_game(game0, row):
    """The game of lock-step ``row`` in words: "game N" in a run of games, "match M, game J"
    (from 0) in a run of matches, whose rows hold each match's key
    (:func:`fastbg.sim.game_kernels.match_key`)."""
    key = int(_play.game_key(game0, row))
    if isinstance(game0, np.ndarray):
        return f"match {key >> 16}, game {key & 0xFFFF}"
    return f"game {key}"


def evaluate_pending(evaluate, s, live, side, res, off, choice, game0, where=True, *,
                      boards=None, dice=None):
    """Fill ``choice`` for the games where evaluator bot ``s`` is to move (and ``where``).
    ``boards`` (per game) and ``dice`` (per entry of ``live``) are the positions before the
    move, for an evaluator that picks moves itself (``takes_positions``: the engine bots of
    fastbg.sim.engines)."""
    pending = np.flatnonzero((choice == -2) & (side[live] == s) & where)
    if pending.size == 0:
        return
    counts = off[pending + 1] - off[pending]
    seg = np.zeros(pending.size + 1, np.int64)
    np.cumsum(counts, out=seg[1:])
    dest = np.zeros(off.size - 1, np.int64)
    dest[pending] = seg[:-1]
    rows = np.empty((int(seg[-1]), BOARD_SIZE), np.int8)
    _gather_rows(res, off[:-1], np.diff(off), pending, rows, dest)
    # an evaluator that ranks within each game (the n-ply bots' filter) gets the segments
    if getattr(evaluate, "takes_positions", False):
        raw = evaluate(rows, seg, np.ascontiguousarray(boards[live[pending]]),
                       np.ascontiguousarray(dice[pending]))
    elif getattr(evaluate, "takes_segments", False):
        raw = evaluate(rows, seg)
    else:
        raw = evaluate(rows)
    scores = np.asarray(raw, dtype=np.float64)
    if scores.shape != (rows.shape[0],):
        raise BotError(f"evaluator of bot {s} returned scores of shape {scores.shape} for "
                       f"{rows.shape[0]} positions ({_which_game(game0, live[pending[0]])} "
                       "onwards); it must return one score per position")
    best = np.zeros(pending.size, np.int64)
    _play.segment_best(np.ascontiguousarray(scores), seg, best)
    choice[pending] = best
