"""fastbg's benchmarks: the one home of performance figures.

* ``bench/workloads.py``: every workload and its expected totals, imported by both kinds
  of benchmark below (the perft set comes from :mod:`fastbg.position.perft`).
* ``bench/test_bench_*.py``: pytest-benchmark cases (run once as smoke tests by the normal
  test run; ``python -m pytest bench --benchmark-enable`` times them).
* side-by-side scripts, each timing fastbg and its peers in one process with interleaved
  repetitions: ``python -m bench.movegen``, ``bench.play``, ``bench.rollout``,
  ``bench.gnubgnet``; and two analyses, ``bench.rollout_variance`` and
  ``bench.pubeval_vs_gnubg``. Each has ``--help`` and ``--quick`` (a smoke-size run).

See bench/README.md.
"""
