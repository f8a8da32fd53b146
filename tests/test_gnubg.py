"""The optional gnubg bot (fastbg.evaluators.gnubg_nn): board conversion and GNU Backgammon's 0-ply choice."""
import numpy as np
import pytest
from hypothesis import given, settings

gnubg_nn = pytest.importorskip("gnubg_nn", reason="gnubg-nn (the gnubg extra) is not installed")

import fastbg  # noqa: E402
from fastbg.cube import cubeless_equity  # noqa: E402
from fastbg.evaluators.gnubg_nn import (WIN_SCORE, evaluate, from_gnubg,  # noqa: E402
                          to_gnubg, to_gnubg_batch)
from fastbg.sim.bots import gnubg_nn_bot
from strategies import positions  # noqa: E402

# gnubg computes equities in float32: results it ranks as equal may differ by this much here.
TIE = 1e-6


# ---------------------------------------------------------------- conversion

def test_start_position():
    gb = to_gnubg(fastbg.START)
    side = [0] * 25
    side[5], side[7], side[12], side[23] = 5, 3, 5, 2
    assert gb == [side, side]
    assert gb == [list(r) for r in gnubg_nn.board_from_position_id("4HPwATDgc/ABMA")]


def test_bars_and_layout():
    b = np.zeros(26, np.int8)
    b[25], b[3], b[0], b[20], b[22] = 2, 1, -1, -2, -3
    gb = to_gnubg(b)
    assert gb[1][24] == 2 and gb[1][2] == 1          # mover: bar, own 3-point
    assert gb[0][24] == 1                            # opponent's bar
    assert gb[0][4] == 2 and gb[0][2] == 3           # mover's 20 and 22 are his 5 and 3
    np.testing.assert_array_equal(from_gnubg(gb), b)


@settings(max_examples=300)
@given(positions())
def test_round_trip_and_position_id(b):
    gb = to_gnubg(b)
    assert len(gb) == 2 and all(len(r) == 25 for r in gb)
    np.testing.assert_array_equal(from_gnubg(gb), b)
    pid = gnubg_nn.position_id(gb)
    assert pid == fastbg.position_id(b)
    np.testing.assert_array_equal(from_gnubg(gnubg_nn.board_from_position_id(pid)), b)
    # The other side's view is gnubg's two rows swapped.
    assert to_gnubg(fastbg.flip(b)) == gb[::-1]


@settings(max_examples=50)
@given(positions())
def test_batch_matches_single(b):
    boards = np.stack([b, fastbg.flip(b), fastbg.START])
    arr = to_gnubg_batch(boards)
    assert arr.shape == (3, 2, 25)
    assert arr.tolist() == [to_gnubg(b) for b in boards]
    np.testing.assert_array_equal(from_gnubg(arr), boards)


def test_conversion_errors():
    with pytest.raises(ValueError, match="one board"):
        to_gnubg(np.stack([fastbg.START, fastbg.START]))
    with pytest.raises(ValueError, match="batch"):
        to_gnubg_batch(fastbg.START)
    with pytest.raises(ValueError, match="shape"):
        from_gnubg([[0] * 24, [0] * 24])
    gb = to_gnubg(fastbg.START)
    gb[1][5], gb[1][0] = 4, 1           # onto the mover's 1-point, the opponent's 24-point
    with pytest.raises(ValueError, match="point 1 is held by both"):
        from_gnubg(gb)
    gb = to_gnubg(fastbg.START)
    gb[0][0] = 1
    with pytest.raises(ValueError, match="not on roll has 16"):
        from_gnubg(gb)
    with pytest.raises(ValueError, match=">= 0"):
        from_gnubg([[-1] + [0] * 24, [0] * 25])


# ---------------------------------------------------------------- evaluation

def test_equity_formula_matches_gnubg():
    # best_move(..., list=1) reports each move's probabilities (opponent on roll) and gnubg's
    # equity for the mover: minus the opponent's cubeless equity.
    *_, listed = gnubg_nn.best_move(to_gnubg(fastbg.START), 6, 4, 0, list=1)
    assert len(listed) > 5
    for _key, _move, probs, score in listed:
        assert -cubeless_equity(probs) == pytest.approx(score, abs=TIE)


def test_finished_position_scores_highest():
    won = np.zeros(26, np.int8)
    won[[3, 12]] = -7, -8
    live = fastbg.START.copy()
    s = evaluate(np.stack([live, won]))
    assert s[1] == WIN_SCORE and -3 <= s[0] <= 3


def game_positions(n, seed):
    """(board, dice) pairs met in games mixing random moves and the gnubg bot's choices."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        b = np.array(fastbg.START)
        while len(out) < n:
            dice = tuple(int(d) for d in rng.integers(1, 7, 2))
            out.append((b.copy(), dice))
            res = fastbg.legal_moves(b, dice)
            pick = res[rng.integers(len(res))] if rng.random() < 0.5 else res[np.argmax(evaluate(res))]
            if not (pick > 0).any():
                break
            b = fastbg.flip(pick)
    return out


def gnubg_choice(board, dice, results):
    """Index in ``results`` of gnubg_nn.best_move's 0-ply choice."""
    _moves, key = gnubg_nn.best_move(to_gnubg(board), dice[0], dice[1], 0, b=1)
    # The key holds the result with the opponent on roll; flip back to the mover's view.
    chosen = fastbg.flip(from_gnubg(gnubg_nn.board_from_position_key(key)))
    hit = np.flatnonzero((results == chosen).all(axis=1))
    assert hit.size == 1, (fastbg.position_id(board), dice)
    return int(hit[0])


def check_choices(pairs):
    """(decisions compared, same choice, ties) of evaluate's best against gnubg's best move."""
    compared = same = ties = 0
    for board, dice in pairs:
        results = fastbg.legal_moves(board, dice)
        if len(results) < 2:
            continue
        scores = evaluate(results)
        ours, theirs = int(np.argmax(scores)), gnubg_choice(board, dice, results)
        compared += 1
        if ours == theirs:
            same += 1
        else:
            assert scores[theirs] >= scores[ours] - TIE, (
                fastbg.position_id(board), dice, scores[ours], scores[theirs])
            ties += 1
    return compared, same, ties


def test_choice_matches_gnubg_best_move_in_games():
    compared, same, ties = check_choices(game_positions(260, seed=7))
    assert compared >= 200
    assert ties <= 0.05 * compared


@settings(max_examples=150, deadline=None)
@given(positions())
def test_choice_matches_gnubg_best_move_any_position(b):
    for dice in [(6, 5), (4, 4), (2, 1)]:
        check_choices([(b, dice)])


# ---------------------------------------------------------------- play

def test_bot_by_name_and_object():
    bot = gnubg_nn_bot()
    assert isinstance(bot, fastbg.EvaluatorBot) and bot.name == "gnubg-nn"
    res = fastbg.play(100, ("gnubg", "random"), seed=11)
    s = res.summary()
    assert res.bots == ("gnubg", "random")
    assert s["win_rate"][0] >= 0.9 and s["points_per_game"] > 1.5


def test_gnubg_nn_player_plays_the_games_of_the_gnubg_bot():
    """gnubg-nn's own 0-ply player (a Python call per candidate) and fastbg's port of the
    same networks (the "gnubg" bot) play the same games on the same dice. This checks the
    gnubg-nn bot's plumbing (views, scores, the win score) move by move; its strength
    follows from the gnubg bot's: pubeval's published -0.63 points per game against GNU
    Backgammon's 0-ply player is checked on 20,000 games of it
    (tests/test_gnubgnet.py::test_pubeval_against_gnubg_20000_games). A game may part
    where two candidates tie within float32 rounding (gnubg computes in float32): one game
    in 300 did here."""
    n = 150
    fast = fastbg.play(n, ("pubeval", "gnubg"), seed=5)
    nn = fastbg.play(n, ("pubeval", "gnubg-nn"), seed=5)
    same = np.ones(n, bool)
    for name in ("winner", "kind", "points", "plies", "first"):
        same &= getattr(fast, name) == getattr(nn, name)
    assert same.sum() >= 0.97 * n, np.flatnonzero(~same)
    assert nn.summary()["points_per_game_ci95"][1] < 0      # pubeval loses to it


def test_missing_gnubg_nn(monkeypatch):
    import sys
    from fastbg.evaluators import nets
    monkeypatch.setitem(sys.modules, "gnubg_nn", None)       # import fails
    with pytest.raises(ImportError, match=r"pip install 'fastbg\[gnubg\]' \(package gnubg-nn\)"):
        gnubg_nn_bot()
    # the gnubg bot is fastbg's own port of the networks: without gnubg-nn it takes GNU
    # Backgammon's own weights (the gnubg package, the gnubg-app extra) when installed
    monkeypatch.setattr(nets, "_package_data", lambda name: None)       # neither package
    from fastbg.extras import MissingWeights
    with pytest.raises(MissingWeights, match="gnubg bot needs") as err:
        fastbg.play(1, ("gnubg", "random"))
    assert err.value.extra == "gnubg"


def test_gnubg_weights_without_gnubg_nn(monkeypatch):
    import sys
    from fastbg.evaluators import nets
    import importlib.util
    if importlib.util.find_spec("gnubg") is None:       # not imported: it can crash at exit
        pytest.skip("GNU Backgammon's package (the gnubg-app extra) is not installed")
    monkeypatch.setitem(sys.modules, "gnubg_nn", None)
    path = nets.default_weights_path()
    assert path is not None and path.parts[-3:] == ("gnubg", "data", "gnubg.weights")
