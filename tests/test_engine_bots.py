"""Bots that call other engines (fastbg.sim.engines): board conventions round-tripped on
random positions, every engine move legal, agreement with fastbg's gnubg bot, the
illegal-move error, and the bots in play and tournaments. bgsage comes with the peers
extra, GNU Backgammon (gnubg, run in a child process) with gnubg-app; each test skips
only when its engine is not installed."""
import numpy as np
import pytest

import fastbg
from fastbg.constants import START
from fastbg.position.ids import board_from_position_id, position_id
from fastbg.position.moves import legal_moves_rows
from fastbg.sim import engines
from fastbg.sim.games import BotError  # noqa: F401  (EngineError is what a bad move raises)

needs_gnubg = pytest.mark.skipif(not engines.gnubg_app_available(),
                                 reason="GNU Backgammon's gnubg package is not installed")


@pytest.fixture(scope="module")
def positions():
    """(boards before a move, dice, fastbg's results, their offsets) of 300 positions from
    seeded random play: contact, hits, the bar, races and bear-offs."""
    rng = np.random.default_rng(14)
    boards, dice = [], []
    while len(boards) < 300:
        b = np.array(START, np.int8)
        for _ in range(200):
            d = rng.integers(1, 7, 2)
            res, _ = legal_moves_rows(b[None, :].copy(), d[None, :].astype(np.int64), 1)
            if len(res) > 1:
                boards.append(b.copy())
                dice.append(d)
            b = res[rng.integers(len(res))]
            if not (b[1:] > 0).any():
                break
            b = -b[::-1]
    before = np.array(boards, np.int8)
    d = np.array(dice, np.int64)
    res, off = legal_moves_rows(before, d, 1)
    return before, d, res, off


def _agreement(chooser, positions, net):
    before, dice, res, off = positions
    picked = chooser(res, off, before, dice)
    ours = np.zeros(len(before), np.int64)
    fastbg.sim.game_kernels.segment_best(np.ascontiguousarray(net.scores_rows(res)), off, ours)
    theirs = np.array([int(np.argmax(picked[off[i]:off[i + 1]])) for i in range(len(before))])
    return float((ours == theirs).mean())


# ----------------------------------------------------------------------------- bgsage

def test_bgsage_boards_round_trip_and_agree_on_the_rules(positions):
    bgsage = pytest.importorskip("bgsage")
    before, dice, res, off = positions
    assert (engines.from_bgsage(engines.to_bgsage(before)) == before).all()
    assert engines.to_bgsage(START).tolist() == list(bgsage.STARTING_BOARD)
    for i in range(0, len(before), 3):
        b = before[i]
        flipped = -b[::-1]
        assert bgsage.flip_board(engines.to_bgsage(b).tolist()) == engines.to_bgsage(flipped).tolist()
        theirs = {tuple(engines.from_bgsage(m).tolist())
                  for m in bgsage.possible_moves(engines.to_bgsage(b).tolist(), *dice[i].tolist())}
        ours = {tuple(r.tolist()) for r in res[off[i]:off[i + 1]]}
        assert theirs == ours, position_id(b)


def test_bgsage_moves_are_legal_and_mostly_gnubgs(positions, gnubg_net):
    pytest.importorskip("bgsage")
    bot = fastbg.sim.bots.resolve("bgsage")
    rate = _agreement(bot.evaluator, positions, gnubg_net)
    print(f"bgsage (raw net) picks fastbg gnubg's move in {rate:.1%} of {len(positions[0])}")
    assert rate > 0.5


def test_bgsage_levels_are_named_after_its_own():
    assert engines.BGSAGE_LEVELS["bgsage"] == "1ply"
    assert engines.BGSAGE_LEVELS["bgsage-3ply"] == "3ply"


# ----------------------------------------------------------------------------- gnubg

@needs_gnubg
def test_gnubg_position_ids_round_trip(positions):
    before = positions[0]
    ids = [position_id(b) for b in before]
    back = engines.gnubg_process(0).ask("ids", ids)
    assert back == ids
    assert all((board_from_position_id(p) == b).all() for p, b in zip(back, before))


def test_gnubg_moves_apply_to_fastbg_boards():
    b = np.zeros(26, np.int8)
    b[25], b[6], b[20], b[5] = 1, 13, -1, 1          # X: bar, 6, 5; O: a blot on X's 20
    b[12] = -14
    after = engines.apply_gnubg_move(b, (25, 20, 5, 0))     # bar/20* 5/off
    want = b.copy()
    want[25], want[20], want[0], want[5] = 0, 1, -1, 0
    assert (after == want).all()


@needs_gnubg
def test_gnubg_app_moves_are_legal_and_gnubgs(positions, gnubg_net):
    bot = fastbg.sim.bots.resolve("gnubg-app")
    rate = _agreement(bot.evaluator, positions, gnubg_net)
    print(f"gnubg-app (0-ply) picks fastbg gnubg's move in {rate:.1%} of {len(positions[0])}")
    assert rate > 0.8
    proc = engines.gnubg_process(0).proc
    bot.evaluator(*_first(positions))
    assert engines.gnubg_process(0).proc is proc            # one child for the whole run


def _first(positions):
    before, dice, res, off = positions
    return res[off[0]:off[1]], off[:2] - off[0], before[:1], dice[:1]


def test_an_illegal_engine_move_names_engine_position_and_dice(positions):
    before, dice, res, off = positions
    liar = engines.EngineChooser("liar", lambda b, d, rows, seg: b)   # plays nothing
    with pytest.raises(engines.EngineError, match=r"liar .* position \S+ with dice \d-\d"):
        liar(*_first(positions))


@needs_gnubg
def test_engine_bots_play_and_duel():
    pytest.importorskip("bgsage")
    res = fastbg.play(4, ("gnubg-app", "bgsage"), seed=3)
    assert res.winner.shape == (4,)
    t = fastbg.tournament(["gnubg-app", "bgsage", "pubeval"], 2, seed=1, speed=True)
    assert all(r["decisions_per_second"] > 0 for r in t.bots)


def test_bgsage_fast_batch_is_its_public_call(positions):
    bgsage = pytest.importorskip("bgsage")
    before, dice, _, _ = positions
    batch = engines._bgsage_batch("1ply")
    assert batch is not None, "this bgsage lacks the C++ batch the bot calls"
    pos = [{"board": engines.to_bgsage(b).tolist(), "die1": int(d[0]), "die2": int(d[1]),
            "cube_value": 1, "cube_owner": "centered"} for b, d in zip(before[:100], dice)]
    public = [r.moves[0].board for r in bgsage.batch_checker_play(pos, eval_level="1ply")]
    assert batch(pos, 1) == public
