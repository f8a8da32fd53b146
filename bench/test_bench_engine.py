"""The analysis engine: n-ply positions and 1-ply hint decisions per second.

With ``--benchmark-disable`` (the default) each case runs a few positions once as a smoke
test; ``python -m pytest bench/test_bench_engine.py --benchmark-enable`` times the full
workload. The side-by-side ratios against gnubg-nn and bgsage come
from ``python -m bench.engine``. Skipped, with the reason, without gnubg-nn's weights.
"""
import numpy as np
import pytest

import fastbg
from bench import workloads

pytest.importorskip("gnubg_nn", reason="gnubg-nn (GNU Backgammon's weights) is not installed")

SEED = 7


@pytest.fixture(scope="module")
def net():
    return fastbg.gnubg_net()


@pytest.mark.parametrize("ply,timed,smoke", [(1, 2000, 12), (2, 60, 2)])
def test_nply_positions(benchmark, net, ply, timed, smoke):
    boards = workloads.net_positions(smoke if benchmark.disabled else timed, SEED)
    net.probabilities(boards[:2], ply=ply)
    probs = benchmark(net.probabilities, boards, ply=ply)
    assert probs.shape == (len(boards), 5)
    win, wg, wbg, lg, lbg = probs.T
    assert ((0 <= win) & (win <= 1) & (wbg <= wg) & (wg <= win + 1e-7)
            & (lbg <= lg) & (lg <= 1 - win + 1e-7)).all()


def test_hint_decisions(benchmark, net):
    n = 10 if benchmark.disabled else 1000
    boards = workloads.net_positions(n, SEED + 1)
    dice = np.random.default_rng(SEED).integers(1, 7, (n, 2))
    hints = benchmark(fastbg.hint_batch, boards, dice, ply=1, net=net)
    assert len(hints) == n and all(h[0].diff == 0.0 for h in hints)
