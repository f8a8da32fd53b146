"""Rollout benchmarks: trials/s of ``fastbg.jobs.rollouts`` on a contact and a race position.

With ``--benchmark-disable`` (the default) each case runs a small rollout once as a smoke
test; ``python -m pytest bench --benchmark-enable`` times 12,960 trials per call. The
side-by-side comparison with GNU Backgammon's networks is scripts/bench_rollout.py.
"""
import numpy as np
import pytest

import fastbg

TIMED_TRIALS = 12_960
SMOKE_TRIALS = 72


def race_board():
    b = np.zeros(26, np.int8)
    b[[6, 5, 4, 3, 2, 8, 9, 10]] = [3, 3, 2, 2, 1, 2, 1, 1]
    b[[19, 20, 21, 22, 23, 17, 16]] = [-3, -3, -2, -2, -2, -2, -1]
    return b


@pytest.mark.parametrize("name, position", [("contact", "4HPwATDgc/ABMA"),
                                            ("race", race_board())])
def test_rollout_trials_per_second(benchmark, name, position):
    trials = SMOKE_TRIALS if benchmark.disabled else TIMED_TRIALS
    res = benchmark(fastbg.jobs.rollouts, position, trials=trials, bot="pubeval", seed=1)
    assert res.trials == trials and not res.partial
    assert 0.0 <= res.probabilities[0] <= 1.0 and res.equity_se > 0
    if benchmark.stats is not None:
        benchmark.extra_info["trials_per_s"] = trials / benchmark.stats.stats.median
