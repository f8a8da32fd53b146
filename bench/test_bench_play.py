"""Game-play benchmarks: ``fastbg.play`` (random and pubeval bots) and OpenSpiel's game loop.

Each case checks its result, so with ``--benchmark-disable`` (the default in pyproject) it
plays a few hundred games once as a smoke test; ``python -m pytest bench --benchmark-enable``
times it on 20,000 games per call (OpenSpiel: 1,000). Rates are stored as ``games_per_s``
in each benchmark's extra_info (see ``--benchmark-json``). For the side-by-side ratios
measured in one interleaved run (OpenSpiel, pgx, flatness, thread speed-up), use
scripts/bench_play.py.
"""
import numba
import numpy as np
import pytest

import fastbg

TIMED_GAMES = 20_000
SMOKE_GAMES = 500
OPENSPIEL_TIMED_GAMES = 1_000
OPENSPIEL_SMOKE_GAMES = 50


def n_games(benchmark, timed, smoke):
    """``timed`` games when timing, ``smoke`` when benchmarks are disabled."""
    return smoke if benchmark.disabled else timed


def record_rate(benchmark, games):
    """Store games and games/s (at the median time) in the benchmark's extra_info."""
    benchmark.extra_info["games"] = games
    if benchmark.stats is not None:  # None when benchmarks are disabled
        benchmark.extra_info["games_per_s"] = games / benchmark.stats.stats.median


def check_results(res, n, bot):
    assert res.n_games == n and not res.partial
    assert res.bots == (bot, bot)
    for arr in (res.winner, res.kind, res.points, res.plies, res.first):
        assert arr.shape == (n,)
    assert res.kind.min() >= 1 and res.kind.max() <= 3
    assert np.isin(res.winner, (0, 1)).all() and np.isin(res.first, (0, 1)).all()
    assert np.array_equal(np.abs(res.points), res.kind)
    assert res.plies.min() >= 2


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("bot", ["random", "pubeval"])
def test_play(benchmark, bot, threads):
    if numba.config.NUMBA_NUM_THREADS < threads:
        pytest.skip(f"numba was started with {numba.config.NUMBA_NUM_THREADS} thread(s); "
                    "set NUMBA_NUM_THREADS to run this case")
    fastbg.play(16, (bot, bot), threads=threads)  # compile or load from cache, untimed
    n = n_games(benchmark, TIMED_GAMES, SMOKE_GAMES)
    benchmark.group = f"play {bot} vs {bot}"
    res = benchmark(fastbg.play, n, (bot, bot), seed=0, threads=threads)
    check_results(res, n, bot)
    record_rate(benchmark, n)


def test_openspiel_random(benchmark):
    """The peer: OpenSpiel's C++ game loop (``evaluate_bots``), uniform random bots, 1 core."""
    pyspiel = pytest.importorskip("pyspiel", reason="open_spiel (the peer) is not installed")
    game = pyspiel.load_game("backgammon")
    n = n_games(benchmark, OPENSPIEL_TIMED_GAMES, OPENSPIEL_SMOKE_GAMES)

    def run():
        bots = [pyspiel.make_uniform_random_bot(p, p) for p in range(2)]
        return [pyspiel.evaluate_bots(game.new_initial_state(), bots, i) for i in range(n)]

    benchmark.group = "play random vs random"
    returns = np.asarray(benchmark(run))
    assert returns.shape == (n, 2)
    assert np.isin(np.abs(returns[:, 0]), (1, 2, 3)).all()
    assert (returns.sum(axis=1) == 0).all()
    record_rate(benchmark, n)
