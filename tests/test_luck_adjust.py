"""Luck-adjusted duels (fastbg.jobs.duels, tournament(luck_adjust=...)): the games are
play()'s, the luck of every roll equals a slow reference's, and a bot against a copy of
itself with duplicate dice comes out at exactly 0."""
import math

import numpy as np
import pytest

import fastbg
from fastbg.constants import ROLLS, START
from fastbg.cube.formulas import equity_of
from fastbg.jobs.duels import duel_chunk, duel_setup
from fastbg.jobs.tournaments import tournament
from fastbg.position.moves import legal_moves_rows
from fastbg.sim import bots as _bots
from fastbg.sim import game_kernels as _play
from fastbg.sim import policy_kernels as _pol

WEIGHTS = np.array([1.0 if a == b else 2.0 for a, b in ROLLS]) / 36.0
OPENING = np.array([0.0 if a == b else 1.0 for a, b in ROLLS]) / 15.0


def _pubeval(before, cands):
    point, extra = _bots.pubeval_tables()
    scores = np.zeros(len(cands))
    _pol.pubeval_scores(before, cands, len(cands), point, extra, scores)
    return int(np.argmax(scores))           # the first best, as the kernels


def _greedy(before, cands):
    scores = np.zeros(len(cands))
    _pol.greedy_scores(before, cands, len(cands), scores)
    return int(np.argmax(scores))


def _moves(board, d1, d2):
    res, _ = legal_moves_rows(np.ascontiguousarray(board[None, :]),
                              np.array([[d1, d2]], np.int64), 1)
    return res


def _value_after(after, net):
    """The mover's cubeless equity after playing ``after``: its win kind if it is over."""
    if not (after[1:] > 0).any():
        return float(_play.win_kind(after))
    return -float(equity_of(net(np.ascontiguousarray(-after[::-1]))))


def _roll_values(board, choose, net):
    out = []
    for a, b in ROLLS:
        cands = _moves(board, a, b)
        out.append(_value_after(cands[choose(board, cands)], net))
    return np.array(out)


def _reference_game(seed, game, choosers, net):
    """(points for player 0, total luck for player 0) of one cubeless game, ply by ply in
    plain Python: the 21-roll means of the evaluator after each bot's own choices."""
    seed, game = np.uint64(seed), np.int64(game)
    board = np.zeros(26, np.int8)
    side, d1, d2, _ = _play.start_game(seed, game, np.asarray(START, np.int8), 0, False, board)
    rot = np.zeros((0, 36), np.int64)
    e = [(_roll_values(np.asarray(START, np.int8), choosers[s], net) @ OPENING) for s in (0, 1)]
    luck, ply = 0.0, 0
    while True:
        a, b = _play.turn_dice(seed, game, np.int64(ply), d1, d2, _play.OPENING_USE, rot)
        v = _roll_values(board, choosers[side], net)
        r = [tuple(x) for x in ROLLS.tolist()].index((max(a, b), min(a, b)))
        sign = 1.0 if side == 0 else -1.0
        luck += sign * v[r] - (e[0] - e[1]) / 2 if ply == 0 else sign * (v[r] - v @ WEIGHTS)
        cands = _moves(board, a, b)
        board = cands[choosers[side](board, cands)].copy()
        ply += 1
        if not (board[1:] > 0).any():
            points = int(_play.win_kind(board))
            return (points if side == 0 else -points), luck
        board = -board[::-1]
        side ^= 1


def test_luck_equals_a_slow_reference(gnubg_net):
    seed, n = 7, 3
    st = duel_setup(("pubeval", "greedy"), seed=seed, threads=1)
    got = duel_chunk(st, 10, n, luck=gnubg_net)
    for g in range(n):
        points, luck = _reference_game(seed, 10 + g, (_pubeval, _greedy), gnubg_net)
        assert got["points"][g] == points
        assert got["luck"][g] == pytest.approx(luck, abs=1e-9)
    assert (got["decisions"] > 0).all() and (got["seconds"] > 0).all()


def test_duels_play_the_games_of_play(gnubg_net):
    st = duel_setup(("pubeval", "gnubg"), seed=4, threads=2)
    got = duel_chunk(st, 5, 40)
    ref = fastbg.play(40, ("pubeval", "gnubg"), seed=4, game_offset=5)
    assert (got["points"] == ref.points).all() and (got["plies"] == ref.plies).all()
    assert got["luck"] is None


@pytest.fixture(scope="module")
def adjusted():
    net = fastbg.gnubg_net()
    return tournament(["pubeval", "greedy"], 200, seed=2, luck_adjust=net, chunk_size=100)


def test_luck_adjustment_keeps_the_plain_figures_and_narrows(adjusted, gnubg_net):
    plain = tournament(["pubeval", "greedy"], 200, seed=2, chunk_size=100)
    a, p = adjusted.pairs[0], plain.pairs[0]
    for key in ("points_per_game", "points_per_game_ci95", "win_rate", "gammon_rate"):
        assert a[key] == p[key]
    assert a["luck_narrowing"] > 1.5
    lo, hi = a["luck_adjusted_points_per_game_ci95"]
    assert lo < a["luck_adjusted_points_per_game"] < hi
    assert adjusted.config["luck_adjust"] == "gnubg"
    assert all(r["decisions_per_second"] > 0 for r in adjusted.bots)
    text = adjusted.table()
    assert "luck-adjusted" in text and "decisions/s" in text and "narrower" in text


def test_a_bot_against_its_copy_is_exactly_even(gnubg_net):
    copy = _bots.EvaluatorBot(gnubg_net.scores_rows, name="gnubg-copy")
    res = tournament(["gnubg", copy], 8, seed=1, luck_adjust="gnubg")
    row = res.pairs[0]
    assert row["points_per_game"] == 0
    assert row["luck_adjusted_points_per_game"] == 0
    assert row["luck_adjusted_points_per_game_ci95"] == [0, 0]
    assert math.isnan(row["luck_narrowing"])      # no interval to narrow: not "0.00x"
    pair = [ln for ln in res.table().splitlines() if ln.startswith("gnubg - gnubg-copy")]
    assert pair[0].split()[-1] == "-"


def test_luck_adjusted_results_survive_save_and_load(adjusted, tmp_path):
    path = tmp_path / "t.jsonl"
    adjusted.save(path)
    again = fastbg.TournamentResults.load(path)
    assert again.to_dict() == adjusted.to_dict()       # NaN as None


def test_luck_adjust_is_for_money_games():
    with pytest.raises(ValueError, match="matches"):
        tournament(["pubeval", "greedy"], 2, match_length=3, luck_adjust="race")
