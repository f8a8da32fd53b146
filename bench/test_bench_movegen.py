"""Move-generation benchmarks: fastbg's batch and single APIs, and GNU Backgammon's generator.

Each case checks its result, so with ``--benchmark-disable`` (the default in pyproject) it
runs once as a smoke test; ``python -m pytest bench --benchmark-enable`` times it. Rates
are stored as ``pairs_per_s`` in each benchmark's extra_info (see ``--benchmark-json``).
For the side-by-side ratios measured in one interleaved run, use scripts/bench_movegen.py.
"""
import os
import sys

import numba
import numpy as np
import pytest

# bench/ is not a package: make workloads importable under any pytest --import-mode.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workloads  # noqa: E402

import fastbg  # noqa: E402

# Distinct results of the 21 rolls from the starting position (oracle README).
OPENING_TOTAL = 447


@pytest.fixture(scope="module")
def perft():
    workloads.warm_up()
    return workloads.load_perft(with_gnubg=False)


def record_rate(benchmark, pairs):
    """Store pairs and pairs/s (at the median time) in the benchmark's extra_info."""
    benchmark.extra_info["pairs"] = pairs
    if benchmark.stats is not None:  # None when benchmarks are disabled
        benchmark.extra_info["pairs_per_s"] = pairs / benchmark.stats.stats.median


def check_perft(w, results, offsets):
    counts = np.diff(offsets)
    assert offsets.shape == (w.n_pairs + 1,) and counts.min() >= 1
    assert len(results) == offsets[-1] == workloads.PERFT_TOTAL


@pytest.mark.parametrize("threads", [1, 2])
def test_batch_perft(benchmark, perft, threads):
    if numba.config.NUMBA_NUM_THREADS < threads:
        pytest.skip(f"numba was started with {numba.config.NUMBA_NUM_THREADS} thread(s); "
                    "set NUMBA_NUM_THREADS to run this case")
    benchmark.group = "perft 42,000 pairs"
    results, offsets = benchmark(workloads.run_fastbg, perft, threads)
    check_perft(perft, results, offsets)
    record_rate(benchmark, perft.n_pairs)


def test_gnubg_perft(benchmark):
    pytest.importorskip("gnubg_nn", reason="gnubg_nn (the peer) is not installed")
    w = workloads.load_perft(with_gnubg=True)
    benchmark.group = "perft 42,000 pairs"
    total = benchmark(workloads.run_gnubg, w)
    assert total == workloads.PERFT_TOTAL
    record_rate(benchmark, w.n_pairs)


def test_single_start(benchmark):
    """``fastbg.legal_moves`` on the start position, one call per roll (wrapper overhead)."""
    workloads.warm_up()
    rolls = [tuple(r) for r in fastbg.ROLLS.tolist()]

    def all_rolls():
        return sum(len(fastbg.legal_moves(fastbg.START, r)) for r in rolls)

    benchmark.group = "start position, 21 rolls"
    assert benchmark(all_rolls) == OPENING_TOTAL
    record_rate(benchmark, len(rolls))
