"""The side-by-side scripts' shared parts (bench/harness.py): the host check that each
n-ply and evaluation benchmark prints beside its two-thread figures."""
from bench import harness


def test_host_scaling_compares_the_same_work_on_one_and_on_n_threads():
    assert harness._arithmetic(0) == sum(1.0 + 0.1 * i for i in range(12))
    assert harness._arithmetic(3) < harness._arithmetic(0)       # the chains ran
    one = harness.host_scaling(1, seconds=0.01)
    assert 0.5 < one < 2.0                   # the same work timed twice
    two = harness.host_scaling(2, seconds=0.01)
    assert 0.0 < two < 2.6                   # at most about twice, never more work


def test_host_check_runs_beside_the_contestants_on_several_threads(capsys):
    runs = {"fastbg": lambda rep: 2.0, "peer": lambda rep: 1.0}
    assert list(harness.with_host_check(runs, 1)) == ["fastbg", "peer"]
    checked = harness.with_host_check(runs, 2)
    assert list(checked) == ["fastbg", "peer", harness.HOST]
    samples = harness.interleaved(checked, 2)
    assert samples["fastbg"] == [2.0, 2.0] and len(samples[harness.HOST]) == 2
    harness.print_host([1.5, 1.9, 1.7], 2)
    assert capsys.readouterr().out == ("  host: 2 threads did 1.70x one thread's arithmetic "
                                       "[1.50 .. 1.90] (2x when no CPU is shared)\n")
    harness.print_host(None, 1)
    assert capsys.readouterr().out == ""
