"""Game-play benchmarks: ``fastbg.play`` (random and pubeval bots) and OpenSpiel's game loop.

Each case checks its result, so with ``--benchmark-disable`` (the default in pyproject) it
plays a few hundred games once as a smoke test; ``python -m pytest bench --benchmark-enable``
times it on 20,000 games per call (OpenSpiel: 1,000). Rates are stored as ``games_per_s``
in each benchmark's extra_info (see ``--benchmark-json``). The workloads and their checks
are bench/workloads.py's. For the side-by-side ratios measured in one interleaved run
(OpenSpiel, pgx, flatness, thread speed-up), use ``python -m bench.play``.
"""
import numba
import pytest

from bench import workloads

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


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("bot", ["random", "pubeval"])
def test_play(benchmark, bot, threads):
    if numba.config.NUMBA_NUM_THREADS < threads:
        pytest.skip(f"numba was started with {numba.config.NUMBA_NUM_THREADS} thread(s); "
                    "set NUMBA_NUM_THREADS to run this case")
    workloads.play_fastbg(16, bot, threads)  # compile or load from cache, untimed
    n = n_games(benchmark, TIMED_GAMES, SMOKE_GAMES)
    benchmark.group = f"play {bot} vs {bot}"
    res = benchmark(workloads.play_fastbg, n, bot, threads)
    workloads.check_play(res, n)
    assert res.bots == (bot, bot)
    record_rate(benchmark, n)


def test_openspiel_random(benchmark):
    """The peer: OpenSpiel's C++ game loop (``evaluate_bots``), uniform random bots, 1 core."""
    pytest.importorskip("pyspiel", reason="open_spiel (the peer) is not installed")
    n = n_games(benchmark, OPENSPIEL_TIMED_GAMES, OPENSPIEL_SMOKE_GAMES)
    benchmark.group = "play random vs random"
    workloads.check_openspiel(benchmark(workloads.play_openspiel, n), n)
    record_rate(benchmark, n)
