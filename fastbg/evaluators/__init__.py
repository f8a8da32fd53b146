"""Evaluators: the five cubeless probabilities of a position (win, win gammon, win
backgammon, lose gammon, lose backgammon) for the player on roll.

``race`` (a pip-count race formula, re-exported here as ``fastbg.evaluators.X``),
``nets`` (GNU Backgammon's networks in numba), ``bearoff`` (bear-off databases),
``gnubg_nn`` (the bridge to the gnubg-nn package, for cross-checks); kernels in
``race_kernels``, ``net_kernels`` (and its parts: ``net_tables``, ``gnubg_board_kernels``,
``table_eval_kernels``, ``race_refine_kernels``, ``sanity_kernels``), ``input_kernels`` (and
its parts: ``input_bit_kernels``, ``pip_loss_kernels``, ``feature_kernels``,
``add_row_kernels``), ``simd``, ``bearoff_kernels``.
"""
from fastbg.evaluators.race import (  # noqa: F401  (as fastbg.evaluators.X)
    N_PROBS, RaceEvaluator, race_cube, race_evaluator, race_probabilities,
    race_probabilities_kernel)
