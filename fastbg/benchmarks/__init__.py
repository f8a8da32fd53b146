"""Benchmark sets: move decisions whose candidates carry rolled-out equities, and positions
with rolled-out probabilities, against which bots and evaluators are scored. The files are
fastbg's JSON Lines or GNU Backgammon's benchmark (.bm) and training-data files
(:mod:`fastbg.benchmarks.formats`), whose positions are written as GNU Backgammon's
20-letter position keys (:mod:`fastbg.benchmarks.gnubg_keys`). Sets are made by
:func:`make_benchmark` (:mod:`fastbg.benchmarks.making`) and bots scored on them by
:func:`score_benchmark` and :func:`compare_bots` (:mod:`fastbg.benchmarks.scoring`);
docs/benchmarks.md explains it all.
"""
from fastbg.benchmarks.formats import (  # noqa: F401
    FORMATS, BenchmarkFileError, BenchmarkSet, Decision, MoveCandidate, PositionTarget,
    decision_from_dict, position_from_dict, read_benchmark, write_decisions, write_positions)
from fastbg.benchmarks.gnubg_keys import gnubg_key, board_from_gnubg_key  # noqa: F401
from fastbg.benchmarks.classes import CLASSES, position_classes  # noqa: F401
from fastbg.benchmarks.choices import bot_choices  # noqa: F401
from fastbg.benchmarks.scoring import (  # noqa: F401
    BenchmarkComparison, BenchmarkScore, compare_bots, score_benchmark, shipped_set_path)
from fastbg.benchmarks.making import MadeBenchmark, make_benchmark  # noqa: F401
