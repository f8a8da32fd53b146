"""The side-by-side scripts' shared parts (bench/harness.py): the host check that each
n-ply and evaluation benchmark prints beside its two-thread figures."""
from bench import harness


def test_host_scaling_times_the_same_rounds_on_one_and_on_n_threads(monkeypatch):
    """Clocks replaced, so the test says what host_scaling computes, not how loaded the
    machine running it is (a real timing of 0.01 s on a shared 2-core host read 2.1x
    for one thread against itself)."""
    assert harness._arithmetic(0) == sum(1.0 + 0.1 * i for i in range(12))
    assert harness._arithmetic(3) < harness._arithmetic(0)       # the chains ran
    sizes = []
    monkeypatch.setattr(harness, "measure", lambda f: (sizes.append(f()), 0.02)[1])
    calls = []
    seconds_for = {1: 0.3, 2: 0.4}

    def on_threads(k, n):
        calls.append((k, n))
        return seconds_for[k]
    monkeypatch.setattr(harness, "_on_threads", on_threads)
    assert harness.host_scaling(2, seconds=0.08) == 2 * 0.3 / 0.4
    # calibrated once: 0.02 s >= a quarter of 0.08 s on the first try, so 2**16 rounds
    # scaled to 0.08 s; then the same rounds on one thread and on two
    assert len(sizes) == 1
    assert calls == [(1, 4 * (1 << 16)), (2, 4 * (1 << 16))]


def test_on_threads_runs_every_thread_to_the_end(monkeypatch):
    """k threads each do the n rounds, and the time is taken after all have finished."""
    import threading
    import time
    done = []
    lock = threading.Lock()

    def rounds(n):
        time.sleep(0.01)                     # finishing after the threads' start
        with lock:
            done.append(n)
    monkeypatch.setattr(harness, "_arithmetic", rounds)
    assert harness._on_threads(3, 1000) > 0.0
    assert done == [1000, 1000, 1000]


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
