"""The doubling cube, money and match scoring.

``rules`` (MoneyRules, MatchRules), ``cube_game`` (CubeGame), ``match`` (Match, Session),
``met`` (match equity tables), ``equity`` (cube maths), ``strategies`` (cube strategies of
the game kernel); kernels in ``decision_kernels`` and ``keith_kernels``. The cube maths
are re-exported here, so ``fastbg.cube.take_point_money`` is ``fastbg.cube.formulas.take_point_money``.
See docs/cube.md.
"""
from fastbg.cube.formulas import (  # noqa: F401  (the cube maths, as fastbg.cube.X)
    CENTRED, OWNED, UNAVAILABLE, average_win_loss, cash_point_money, cube_decision_match,
    cube_decision_money, cubeless_equity, dead_cube_level, eight_nine_twelve, emg_to_mwc,
    gammon_values, janowski_equity, janowski_mwc, janowski_mwc_rows, keith_count,
    keith_decision, mwc_cubeless, mwc_to_emg, take_point_match, take_point_money, thorp_count,
    thorp_decision)
