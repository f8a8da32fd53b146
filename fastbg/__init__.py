"""fastbg: a high-performance backgammon simulation kernel.

Positions are ``int8`` arrays of 26 entries seen from the player on roll (see
:mod:`fastbg.constants`); batches carry a leading axis. Public functions validate their
input and call numba kernels in :mod:`fastbg._kernels`.
"""
from .constants import START, ROLLS, MAX_RESULTS
from .board import validate, flip, pip_counts, render
from .ids import (position_id, board_from_position_id, MatchState, match_id,
                  match_state_from_id, XGIDInfo, xgid, parse_xgid)
from .moves import legal_moves, legal_moves_batch
from .threads import threads
from .bots import ScorerBot, EvaluatorBot
from .sim import play, play_matches, GameResults, MatchResults, BotError
from .cube_strategies import JanowskiCube
from .rollout import rollout, RolloutResult
from .gnubgnet import gnubg_net, GnubgNet
from .tournament import tournament, TournamentResults, TournamentFileError, pair_seed
from . import cube, met, evaluators
from .rules import MoneyRules, MatchRules
from .cubegame import CubeGame, IllegalCubeAction
from .match import Match, Session

__version__ = "0.1.0"

__all__ = [
    "START", "ROLLS", "MAX_RESULTS",
    "validate", "flip", "pip_counts", "render",
    "position_id", "board_from_position_id",
    "MatchState", "match_id", "match_state_from_id", "XGIDInfo", "xgid", "parse_xgid",
    "legal_moves", "legal_moves_batch",
    "threads",
    "play", "play_matches", "GameResults", "MatchResults", "BotError", "ScorerBot",
    "EvaluatorBot", "JanowskiCube", "cube", "met", "evaluators", "rollout", "RolloutResult",
    "tournament", "TournamentResults", "TournamentFileError", "pair_seed",
    "MoneyRules", "MatchRules", "CubeGame", "IllegalCubeAction", "Match", "Session",
    "gnubg_net", "GnubgNet",
]
