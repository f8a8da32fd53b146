"""Rollout benchmarks: trials/s of ``fastbg.rollout`` on bench/workloads.py's rollout
positions (the opening and a race), pubeval playing.

With ``--benchmark-disable`` (the default) each case runs a small rollout once as a smoke
test; ``python -m pytest bench --benchmark-enable`` times 12,960 trials per call. The
side-by-side comparison with GNU Backgammon's 0-ply player is ``python -m bench.rollout``.
"""
import pytest

import fastbg
from bench import workloads

TIMED_TRIALS = 12_960
SMOKE_TRIALS = 72


@pytest.mark.parametrize("name", list(workloads.ROLLOUT_POSITIONS))
def test_rollout_trials_per_second(benchmark, name):
    position = workloads.ROLLOUT_POSITIONS[name]
    trials = SMOKE_TRIALS if benchmark.disabled else TIMED_TRIALS
    res = benchmark(fastbg.rollout, position, trials=trials, bot="pubeval", seed=1)
    assert res.trials == trials and not res.partial
    assert 0.0 <= res.probabilities[0] <= 1.0 and res.equity_se > 0
    if benchmark.stats is not None:
        benchmark.extra_info["trials_per_s"] = trials / benchmark.stats.stats.median
