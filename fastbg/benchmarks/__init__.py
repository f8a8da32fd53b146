"""Benchmark sets: move decisions whose candidates carry rolled-out equities, and positions
with rolled-out probabilities, against which bots and evaluators are scored. The files are
fastbg's JSON Lines or GNU Backgammon's benchmark (.bm) and training-data files
(:mod:`fastbg.benchmarks.formats`), whose positions are written as GNU Backgammon's
20-letter position keys (:mod:`fastbg.benchmarks.gnubg_keys`).
"""
from fastbg.benchmarks.formats import (  # noqa: F401
    FORMATS, BenchmarkFileError, BenchmarkSet, Decision, MoveCandidate, PositionTarget,
    decision_from_dict, position_from_dict, read_benchmark, write_decisions, write_positions)
from fastbg.benchmarks.gnubg_keys import gnubg_key, board_from_gnubg_key  # noqa: F401
