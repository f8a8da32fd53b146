"""GNU Backgammon's networks: fastbg's numba evaluator against gnubg-nn, and rollouts.

With ``--benchmark-disable`` (the default) each case evaluates a few hundred positions or
plays a few games once as a smoke test; ``python -m pytest bench --benchmark-enable``
times the full workload. Rates go to each benchmark's extra_info (``evals_per_s``,
``games_per_s``). The positions are bench/workloads.py's ``net_positions``. The
side-by-side ratios measured in one interleaved run come from ``python -m bench.gnubgnet``
(evaluations) and ``python -m bench.rollout`` (rollouts). Every case is skipped, with the
reason, when gnubg-nn (the weights and the peer) is not installed.
"""
import numba
import pytest

import fastbg
from bench import workloads

gnubg_nn = pytest.importorskip("gnubg_nn", reason="gnubg-nn (GNU Backgammon's weights and "
                                                  "the peer) is not installed")

TIMED_POSITIONS = 50_000
SMOKE_POSITIONS = 300
TIMED_GNUBG_POSITIONS = 5_000
TIMED_GAMES = 2_000
SMOKE_GAMES = 8
SEED = 5


@pytest.fixture(scope="module")
def net():
    return fastbg.gnubg_net()


def sized(benchmark, timed, smoke):
    return smoke if benchmark.disabled else timed


@pytest.fixture
def positions(benchmark):
    return workloads.net_positions(sized(benchmark, TIMED_POSITIONS, SMOKE_POSITIONS), SEED)


@pytest.mark.parametrize("threads", [1, 2])
def test_fastbg_evaluations(benchmark, net, positions, threads):
    if threads > numba.config.NUMBA_NUM_THREADS:
        pytest.skip(f"numba has {numba.config.NUMBA_NUM_THREADS} thread(s)")
    net(positions[:10])                                # compiled before timing

    def run():
        with fastbg.threads(threads):
            return net(positions)

    probs = benchmark(run)
    assert probs.shape == (len(positions), 5)
    assert ((probs >= 0) & (probs <= 1)).all() and (probs[:, 1] <= probs[:, 0] + 1e-6).all()
    if benchmark.stats is not None:
        benchmark.extra_info["evals_per_s"] = len(positions) / benchmark.stats.stats.median


def test_gnubg_nn_evaluations(benchmark, positions):
    """The peer, one call per position, timed in one round: a second round would be
    answered from gnubg-nn's evaluation cache."""
    rows = workloads.gnubg_rows(positions[:sized(benchmark, TIMED_GNUBG_POSITIONS,
                                                 SMOKE_POSITIONS)])
    out = benchmark.pedantic(workloads.run_gnubg_evals, (rows,), rounds=1, iterations=1)
    assert len(out) == len(rows) and all(0.0 <= p[0] <= 1.0 for p in out)
    if benchmark.stats is not None:
        benchmark.extra_info["evals_per_s"] = len(rows) / benchmark.stats.stats.median


def test_gnubg_bot_rollout(benchmark):
    """0-ply cubeless rollout of the opening with the gnubg bot, 2 threads (or fewer)."""
    fastbg.rollout(fastbg.START, trials=4, bot="gnubg", seed=1)       # compiled first
    trials = sized(benchmark, TIMED_GAMES, SMOKE_GAMES)
    res = benchmark(fastbg.rollout, workloads.OPENING_ID, trials=trials, bot="gnubg", seed=1,
                    threads=min(2, numba.config.NUMBA_NUM_THREADS))
    assert res.trials == trials and -3 <= res.equity <= 3
    if benchmark.stats is not None:
        benchmark.extra_info["games_per_s"] = trials / benchmark.stats.stats.median
