"""Move-generation benchmarks: fastbg's batch and single APIs, and GNU Backgammon's generator.

Each case checks its result, so with ``--benchmark-disable`` (the default in pyproject) it
runs once as a smoke test; ``python -m pytest bench --benchmark-enable`` times it. Rates
are stored as ``pairs_per_s`` in each benchmark's extra_info (see ``--benchmark-json``).
The workload is bench/workloads.py's perft set. For the side-by-side ratios measured in
one interleaved run, use ``python -m bench.movegen``.
"""
import numba
import pytest

from bench import workloads


@pytest.fixture(scope="module")
def perft():
    workloads.warm_up_moves()
    return workloads.load_perft(with_gnubg=False)


def record_rate(benchmark, pairs):
    """Store pairs and pairs/s (at the median time) in the benchmark's extra_info."""
    benchmark.extra_info["pairs"] = pairs
    if benchmark.stats is not None:  # None when benchmarks are disabled
        benchmark.extra_info["pairs_per_s"] = pairs / benchmark.stats.stats.median


@pytest.mark.parametrize("threads", [1, 2])
def test_batch_perft(benchmark, perft, threads):
    if numba.config.NUMBA_NUM_THREADS < threads:
        pytest.skip(f"numba was started with {numba.config.NUMBA_NUM_THREADS} thread(s); "
                    "set NUMBA_NUM_THREADS to run this case")
    benchmark.group = "perft 42,000 pairs"
    out = benchmark(workloads.run_fastbg, perft, threads)
    assert out[1].shape == (perft.n_pairs + 1,) and perft.n_pairs == workloads.N_PAIRS
    assert workloads.perft_ok(out)
    record_rate(benchmark, perft.n_pairs)


def test_gnubg_perft(benchmark):
    pytest.importorskip("gnubg_nn", reason="gnubg_nn (the peer) is not installed")
    w = workloads.load_perft(with_gnubg=True)
    benchmark.group = "perft 42,000 pairs"
    assert benchmark(workloads.run_gnubg, w) == workloads.PERFT_TOTAL
    record_rate(benchmark, w.n_pairs)


def test_single_start(benchmark):
    """``fastbg.legal_moves`` on the start position, one call per roll (wrapper overhead)."""
    workloads.warm_up_moves()
    benchmark.group = "start position, 21 rolls"
    assert benchmark(workloads.opening_all_rolls) == workloads.OPENING_TOTAL
    record_rate(benchmark, len(workloads.ROLLS))
