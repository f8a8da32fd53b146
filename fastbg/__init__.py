"""fastbg: a high-performance backgammon simulation kernel.

Positions are ``int8`` arrays of 26 entries seen from the player on roll (see
:mod:`fastbg.constants`); batches carry a leading axis. Public functions validate their
input and call the numba kernels beside them. The areas are subpackages (positions, cube,
evaluators, analysis, sim, jobs); docs/architecture.md says where each thing lives.
"""
# First, before any kernel module is imported: numba binds each kernel to a cache folder
# when it is decorated, and fastbg's belong in the per-user cache, not in site-packages.
from fastbg.user_cache import install_kernel_cache
install_kernel_cache()
from fastbg.constants import START, ROLLS, MAX_RESULTS, VERSION as __version__  # noqa: F401
from fastbg.position.board import validate, flip, pip_counts, render
from fastbg.position.diagram import show, BoardDiagram
from fastbg.position.ids import (position_id, board_from_position_id, MatchState, match_id,
                                 match_state_from_id, XGIDInfo, xgid, parse_xgid)
from fastbg.position.moves import legal_moves, legal_moves_batch
from fastbg.position.notation import move_notation, move_notations, parse_move
from fastbg.parallel import threads
from fastbg.distributed import ClusterLost, RayCluster
from fastbg.sim.bots import ScorerBot, EvaluatorBot
from fastbg.sim.games import play, BotError
from fastbg.sim.engines import EngineError, bgsage_bot, gnubg_app_bot
from fastbg.sim.matches import play_matches
from fastbg.sim.results import GameResults, MatchResults
from fastbg.sim.records import Action, GameRecord, MatchRecord, RecordError, money_session
from fastbg.cube.strategies import JanowskiCube
from fastbg.jobs.rollouts import rollout, RolloutResult
from fastbg.jobs.decision_rollouts import (rollout_moves, rollout_cube, MoveRollout,
                                           MoveRolloutRow, CubeRollout)
from fastbg.jobs.position_files import rollout_many, ManyRollouts, read_positions
from fastbg.evaluators.nets import gnubg_net, GnubgNet
from fastbg.evaluators.own_nets import fastbg_net, default_net
from fastbg.analysis.hints import hint, hint_batch, Hint, Candidate
from fastbg.analysis.cube_actions import cube_decision, cube_decisions, CubeDecision
from fastbg.files.mat import write_mat, read_mat
from fastbg.files.sgf import write_sgf, read_sgf
from fastbg.jobs.review import (analyse, Analysis, MoveAnalysis, CubeAnalysis,
                                PlayerAnalysis)
from fastbg.jobs.tournaments import tournament, TournamentResults, TournamentFileError, pair_seed
from fastbg import cube, evaluators
from fastbg.cube import met
from fastbg.cube.rules import MoneyRules, MatchRules
from fastbg.cube.cube_game import CubeGame, IllegalCubeAction
from fastbg.cube.match import Match, Session
from fastbg.journal import JournalError
from fastbg import benchmarks
from fastbg.benchmarks.making import make_benchmark, MadeBenchmark
from fastbg.benchmarks.scoring import (score_benchmark, compare_bots, BenchmarkScore,
                                       BenchmarkComparison)


__all__ = [
    "START", "ROLLS", "MAX_RESULTS",
    "validate", "flip", "pip_counts", "render", "show", "BoardDiagram",
    "position_id", "board_from_position_id",
    "MatchState", "match_id", "match_state_from_id", "XGIDInfo", "xgid", "parse_xgid",
    "legal_moves", "legal_moves_batch", "move_notation", "move_notations", "parse_move",
    "threads", "RayCluster", "ClusterLost",
    "play", "play_matches", "GameResults", "MatchResults", "BotError", "ScorerBot",
    "Action", "GameRecord", "MatchRecord", "RecordError", "write_mat", "read_mat",
    "write_sgf", "read_sgf", "money_session",
    "EvaluatorBot", "JanowskiCube", "cube", "met", "evaluators", "rollout", "RolloutResult",
    "tournament", "TournamentResults", "TournamentFileError", "pair_seed",
    "MoneyRules", "MatchRules", "CubeGame", "IllegalCubeAction", "Match", "Session",
    "gnubg_net", "GnubgNet", "fastbg_net", "default_net", "JournalError", "hint", "hint_batch", "Hint", "Candidate",
    "cube_decision", "cube_decisions", "CubeDecision",
    "rollout_moves", "rollout_cube", "MoveRollout", "MoveRolloutRow", "CubeRollout",
    "rollout_many", "ManyRollouts", "read_positions",
    "analyse", "Analysis", "MoveAnalysis", "CubeAnalysis", "PlayerAnalysis",
    "EngineError", "bgsage_bot", "gnubg_app_bot",
    "benchmarks", "make_benchmark", "MadeBenchmark", "score_benchmark", "compare_bots",
    "BenchmarkScore", "BenchmarkComparison",
]
