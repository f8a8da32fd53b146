"""Whole matches: :func:`play_matches`.

Each match is played game by game inside the kernel with the cube under
:class:`~fastbg.MatchRules` (Crawford rule; never Jacoby, beavers or automatic doubles).
Game j of match m takes the dice key ``(m << 16) | j``, so matches are reproducible
exactly like the games of :func:`fastbg.play`, for any threads and chunking.
"""
import warnings

import numpy as np

from fastbg.cube.rules import MatchRules
from fastbg.distributed import resolve_backend
from fastbg.parallel import run_spans, threads as _threads
from fastbg.sim import game_kernels as _play
from fastbg.sim.games import TASKS_PER_THREAD, raise_for_errors, run_per_game_job
from fastbg.sim.results import MatchResults
from fastbg.sim.setup import job_setup, ready_cube_plugins
from fastbg.validation import check_int

MAX_CHUNK = 1 << 12      # matches per chunk at most


def play_match_chunk(st, length, match0, n):
    """Result rows (n, 5) int32 of matches ``match0 .. match0 + n - 1``: winner, games,
    score of player 0, of player 1, error. Raises BotError; a KeyboardInterrupt passes."""
    r = np.zeros((n, 5), np.int32)
    if n == 0:
        return r
    ready_cube_plugins(st.cubes)
    with _threads(st.n_threads), warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Cannot cache compiled function")
        n_tasks = max(1, min(n, st.n_threads * TASKS_PER_THREAD))
        run_spans(lambda t0, t1: _play.play_matches(
            st.seed, np.int64(match0), t0, t1, n_tasks, length, st.gcfg, st.start_board,
            st.rot, st.bots, st.cubes, r),
            n_tasks, st.n_threads, tasks_per_thread=TASKS_PER_THREAD, min_span=1)
    raise_for_errors(r, match0, st.names, "match")
    return r


def _match_arrays(r):
    return {"winner": r[:, 0].astype(np.int8), "games": r[:, 1].astype(np.int16),
            "score": r[:, 2:4].astype(np.int16)}


def play_matches(n, length, bots=("random", "random"), cube=("race", "race"), seed=0,
                 threads=None, crawford=True, max_cube=64, opening="use", match_offset=0,
                 progress=False, chunk_size=None, *, out=None, resume=False, backend="local"):
    """Play ``n`` whole matches to ``length`` points and report match-winning rates.

    cube        : the two bots' cube strategies (``"never"``, ``"race"``, JanowskiCube).
    chunk_size  : matches per chunk (default: sized to about a quarter second each).
    out, resume : a results journal, as in :func:`fastbg.play`.
    backend     : "local", "ray" or a :class:`fastbg.RayCluster`, as in :func:`fastbg.play`.
    Ctrl-C returns the matches finished so far, with ``partial=True``.

    >>> import fastbg
    >>> res = fastbg.play_matches(200, 3, ("pubeval", "random"), seed=1)
    >>> res.summary()["match_win_rate"][0] > 0.8
    True
    """
    rules = MatchRules(length, crawford=crawford, max_cube=max_cube)
    n = check_int("n", n, 0)
    backend = resolve_backend(backend)
    match_offset = check_int("match_offset", match_offset, 0, (2**47) - 1 - n)
    if 2 * length - 1 >= 1 << 16:
        raise ValueError("matches longer than 32,767 points are not supported")
    st = job_setup(bots=bots, seed=seed, threads=threads, opening=opening, rules=rules,
                   cube=cube)
    if st.lockstep:
        raise ValueError("play_matches runs inside numba: use built-in or ScorerBot bots")
    settings = {"matches": n, "length": length, "bots": list(st.names), "seed": int(st.seed),
                "match_offset": match_offset, "opening": opening, "rules": rules.to_dict(),
                "cube": st.rules_text}
    arrays, interrupted = run_per_game_job(
        "matches", settings, n, MatchResults,
        lambda lo, hi: _match_arrays(play_match_chunk(st, length, match_offset + lo, hi - lo)),
        out=out, resume=resume, progress=progress, unit="match",
        desc=f"{st.names[0]} vs {st.names[1]}", chunk_size=chunk_size, most=MAX_CHUNK,
        backend=backend)
    k = arrays["winner"].shape[0]
    return MatchResults(**arrays, bots=st.names, length=length, seed=int(st.seed),
                        match_offset=match_offset, partial=interrupted or k < n,
                        meta={"rules": st.rules_text})
