"""Whole matches: :func:`play_matches`.

Each match is played game by game with the cube under :class:`~fastbg.MatchRules`
(Crawford rule; never Jacoby, beavers or automatic doubles): inside the kernel when both
bots and cube strategies run in numba, else in lock-step rounds over the live games of
every match of a chunk (:mod:`fastbg.sim.lockstep_matches`: one call of each Python
evaluator per round). Game j of match m takes the dice key ``(m << 16) | j`` either way,
so matches are reproducible exactly like the games of :func:`fastbg.play`, for any
threads and chunking, and a lock-step bot that chooses as an in-kernel one plays the
same matches.
"""
import warnings

import numpy as np

from fastbg.cube.rules import MatchRules
from fastbg.distributed import resolve_backend
from fastbg.parallel import run_spans, threads as _threads
from fastbg.plugin_pointers import call_holding_interrupts
from fastbg.sim import game_kernels as _play
from fastbg.sim import record_kernels as _rk
from fastbg.sim import records as _records
from fastbg.sim.games import TASKS_PER_THREAD, raise_for_errors, run_per_game_job
from fastbg.sim.lockstep_matches import play_lockstep_matches
from fastbg.sim.results import MatchResults
from fastbg.sim.setup import job_setup
from fastbg.validation import check_flag, check_int

MAX_CHUNK = 1 << 12      # matches per chunk at most
# Rows of record a match gets per point of its length (a game takes 60-80; a match to
# N points plays about N games); a match that needs more is played again alone with room
# for the longest one.
RECORD_ROWS_PER_POINT = 96


def play_match_chunk(st, length, match0, n, record=False):
    """Result rows (n, 5) int32 of matches ``match0 .. match0 + n - 1``: winner, games,
    score of player 0, of player 1, error; with ``record`` also their
    :class:`fastbg.sim.records.RecordArrays` (else None). Raises BotError; a
    KeyboardInterrupt passes."""
    cap = RECORD_ROWS_PER_POINT * (length + 2)
    r, rec = _match_rows(st, length, match0, n, record, cap)
    if not record:
        return r, None
    counts = rec.used[:, 0].copy()
    flags = rec.used[:, 1]
    if (flags == _rk.BAD_MOVE).any():
        raise RuntimeError(f"match {match0 + int(np.flatnonzero(flags == _rk.BAD_MOVE)[0])}: "
                           "a move could not be recorded (more than four pairs)")
    rows, heads = rec.rows, rec.heads
    full = np.flatnonzero(flags == _rk.FULL)
    if full.size:
        most = 2 * length * (2 * _play_max_plies(st) + 64)
        again = [_match_rows(st, length, match0 + int(m), 1, True, most)[1] for m in full]
        counts[full] = [a.used[0, 0] for a in again]
        rows = np.zeros((n, int(counts.max()), _rk.ROW_WIDTH), np.int8)
        for m in range(n):
            rows[m, :min(cap, counts[m])] = rec.rows[m, :min(cap, counts[m])]
        for m, a in zip(full, again):
            rows[m, :counts[m]] = a.rows[0, :counts[m]]
            heads[m] = a.heads[0]
    return r, _records.RecordArrays.from_buffers(rows, counts, heads, r[:, 1].astype(np.int64))


def _play_max_plies(st):
    return int(st.gcfg[_play.G_MAX_PLIES])


def _match_rows(st, length, match0, n, record, cap):
    r = np.zeros((n, 5), np.int32)
    rec = _records.buffers(n, cap, 2 * length - 1) if record else None
    if n == 0:
        return r, rec
    with _threads(st.n_threads), warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Cannot cache compiled function")
        if st.lockstep:
            play_lockstep_matches(st, length, match0, r, rec)
        else:
            n_tasks = max(1, min(n, st.n_threads * TASKS_PER_THREAD))
            run_spans(lambda t0, t1: call_holding_interrupts(
                _play.play_matches, st.seed, np.int64(match0), t0, t1, n_tasks, length, st.gcfg, st.start_board,
                st.rot, st.bots, st.cubes, r, rec),
                n_tasks, st.n_threads, tasks_per_thread=TASKS_PER_THREAD, min_span=1)
    raise_for_errors(r, match0, st.names, "match")
    return r, rec


def _match_arrays(r, records=None):
    extra = {} if records is None else {"records": records}
    return extra | {"winner": r[:, 0].astype(np.int8), "games": r[:, 1].astype(np.int16),
                    "score": r[:, 2:4].astype(np.int16)}


def play_matches(n, length, bots=("random", "random"), cube=("race", "race"), seed=0,
                 threads=None, crawford=True, max_cube=64, opening="use", match_offset=0,
                 progress=False, chunk_size=None, *, out=None, resume=False, backend="local",
                 record=False):
    """Play ``n`` whole matches to ``length`` points and report match-winning rates.

    bots        : two bots, as in :func:`fastbg.play`: built-in and ScorerBot bots play
                  inside the kernel; EvaluatorBot, the n-ply and the engine bots (and n-ply
                  cube strategies) in lock-step rounds, with the same dice.
    cube        : the two bots' cube strategies (``"never"``, ``"race"``, JanowskiCube,
                  ``GnubgNet.cube(ply=n)``).
    chunk_size  : matches per chunk (default: sized to about a quarter second each).
    out, resume : a results journal, as in :func:`fastbg.play`.
    backend     : "local", "ray" or a :class:`fastbg.RayCluster`, as in :func:`fastbg.play`.
    record      : keep every game's actions: ``res.records`` holds a
                  :class:`fastbg.MatchRecord` per match (docs/records.md); the matches are
                  the same as without. Not with ``out``.
    Ctrl-C returns the matches finished so far, with ``partial=True``.

    >>> import fastbg
    >>> res = fastbg.play_matches(200, 3, ("pubeval", "random"), seed=1)
    >>> res.summary()["match_win_rate"][0] > 0.8
    True
    """
    rules = MatchRules(length, crawford=crawford, max_cube=max_cube)
    n = check_int("n", n, 0)
    record = check_flag("record", record)
    if record and (out is not None or resume):
        raise ValueError("record=True keeps the records in memory: it does not go with out= "
                         "or resume (write them with fastbg.write_mat / write_sgf)")
    backend = resolve_backend(backend)
    match_offset = check_int("match_offset", match_offset, 0, (2**47) - 1 - n)
    if 2 * length - 1 >= 1 << 16:
        raise ValueError("matches longer than 32,767 points are not supported")
    st = job_setup(bots=bots, seed=seed, threads=threads, opening=opening, rules=rules,
                   cube=cube)
    settings = {"matches": n, "length": length, "bots": list(st.names), "seed": int(st.seed),
                "match_offset": match_offset, "opening": opening, "rules": rules.to_dict(),
                "cube": st.rules_text}
    arrays, interrupted = run_per_game_job(
        "matches", settings, n, MatchResults,
        lambda lo, hi: _match_arrays(*play_match_chunk(st, length, match_offset + lo, hi - lo,
                                                        record)),
        out=out, resume=resume, progress=progress, unit="match",
        desc=f"{st.names[0]} vs {st.names[1]}", chunk_size=chunk_size, most=MAX_CHUNK,
        backend=backend)
    k = arrays["winner"].shape[0]
    records = arrays.pop("records", None)
    if record:
        records = _records.Records(records or _records.RecordArrays.empty(), players=st.names,
                                   rules=rules, offset=match_offset, length=length)
    return MatchResults(**arrays, bots=st.names, length=length, seed=int(st.seed),
                        match_offset=match_offset, partial=interrupted or k < n,
                        meta={"rules": st.rules_text}, records=records)
