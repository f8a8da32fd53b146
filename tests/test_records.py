"""Game and match records (record=True, fastbg/sim/records.py, docs/records.md).

A recorded run must play exactly the games of the same run without records, and every
record must replay legally: each move in legal_moves for its dice, each cube action
accepted by CubeGame, the result equal to the outcome arrays.
"""
import numpy as np
import pytest

import fastbg
from fastbg.sim import games as _games
from fastbg.sim import record_kernels as rk
from fastbg.sim.records import (GameRecord, RecordArrays, RecordError, Records, check_game,
                                _apply_pairs)

MONEY = fastbg.MoneyRules(beavers=True, raccoons=True, auto_doubles=True, triple_on_66=True,
                          auto_double_limit=None)


@pytest.fixture(scope="module")
def cubeless():
    kw = dict(seed=3, game_offset=40)
    return (fastbg.play(300, ("pubeval", "random"), record=True, **kw),
            fastbg.play(300, ("pubeval", "random"), **kw))


@pytest.fixture(scope="module")
def money():
    kw = dict(seed=5, rules=MONEY, cube=("race", "race"))
    return (fastbg.play(400, ("pubeval", "pubeval"), record=True, **kw),
            fastbg.play(400, ("pubeval", "pubeval"), **kw))


@pytest.fixture(scope="module")
def matches():
    kw = dict(seed=2, cube=("race", "race"))
    return (fastbg.play_matches(40, 5, ("pubeval", "random"), record=True, **kw),
            fastbg.play_matches(40, 5, ("pubeval", "random"), **kw))


def _same_games(rec, plain):
    for name in plain._ARRAYS:
        assert np.array_equal(getattr(rec, name), getattr(plain, name)), name
    assert plain.records is None and len(rec.records) == len(plain)


def _check_against(res, n=25):
    """Build and replay the first ``n`` records and those with cube actions (building a
    record writes every move in notation: about a millisecond a move)."""
    pick = np.flatnonzero((np.arange(len(res)) < n) | (res.cube > 1) | res.dropped)
    for i in pick[:3 * n]:
        g = res.records[i]
        check_game(g, f"game {i}")
        assert g.points == res.points[i] and g.cube == res.cube[i]
        assert g.winner == res.winner[i] and g.kind == res.kind[i]
        assert g.result == ("drop" if res.dropped[i] else "played")
        assert len(g.moves) == res.plies[i]
        assert g.game == res.game_offset + i


def test_recorded_cubeless_games_are_the_games_played(cubeless):
    rec, plain = cubeless
    _same_games(rec, plain)
    _check_against(rec)
    g = rec.records[0]
    opening = g.actions[0]
    assert opening.kind == "opening" and opening.player == g.moves[0].player
    assert g.moves[0].dice == opening.dice                  # the opening dice are played
    assert g.actions[0].position_id == fastbg.position_id(fastbg.START)


def test_recorded_money_games_with_the_cube(money):
    rec, plain = money
    _same_games(rec, plain)
    _check_against(rec)
    kinds = {a.kind for g in rec.records[:150] for a in g.actions}
    assert {"opening_tie", "double", "take", "drop"} <= kinds
    # an automatic double per tie (triple on 6-6): the record's stake follows the rules
    for g, cube in zip(rec.records[:100], rec.cube):
        ties = [a for a in g.actions if a.kind == "opening_tie"]
        if ties and not any(a.kind in ("double", "beaver") for a in g.actions):
            assert cube == ties[-1].cube > 1


def test_recorded_matches(matches):
    rec, plain = matches
    for name in plain._ARRAYS:
        assert np.array_equal(getattr(rec, name), getattr(plain, name)), name
    crawford_games = 0
    for i, m in enumerate(rec.records[:20]):
        assert m.score == tuple(plain.score[i]) and m.winner == plain.winner[i]
        assert len(m.games) == plain.games[i] and m.match == i
        score = [0, 0]
        done = False
        for j, g in enumerate(m.games):
            check_game(g, f"match {i} game {j}")
            assert g.score == tuple(score)
            want = not done and 4 in score
            assert g.crawford == want
            if g.crawford:
                crawford_games += 1
                done = True
                assert not any(a.kind == "double" for a in g.actions)
            score[g.winner] = min(5, score[g.winner] + abs(g.points))
        assert tuple(score) == m.score
    assert crawford_games > 5
    text = rec.records[0].text()
    assert text.startswith("Match to 5 points") and "Game 2" in text


def test_text_rendering(money):
    rec, _ = money
    g = next(g for g in rec.records if any(a.kind == "take" for a in g.actions))
    text = g.text(7)
    assert text.startswith("Game 7") and "doubles to" in text and "takes at" in text
    assert len(text.splitlines()) == len(g.actions) + 2
    assert str(g) == g.text()


def test_long_games_outgrowing_their_rows_are_played_again(monkeypatch, cubeless):
    monkeypatch.setattr(_games, "RECORD_ROWS", 16)
    small = fastbg.play(300, ("pubeval", "random"), seed=3, game_offset=40, record=True)
    full = cubeless[0].records.arrays
    for name in ("rows", "row_off", "heads", "game_off"):
        assert np.array_equal(getattr(small.records.arrays, name), getattr(full, name)), name


def test_memory_is_a_few_bytes_a_ply(cubeless):
    rec, _ = cubeless
    plies = int(rec.plies.sum())
    assert rec.records.arrays.rows.nbytes / plies < 7.5
    assert rec.records.nbytes / len(rec) < 12 * plies / len(rec) + 120


def test_record_argument_checks():
    with pytest.raises(ValueError, match="record"):
        fastbg.play(2, record=1)
    with pytest.raises(ValueError, match="out="):
        fastbg.play(2, record=True, out="x.jsonl")
    with pytest.raises(ValueError, match="out="):
        fastbg.play_matches(2, 3, record=True, out="x.jsonl")


# ---- the row encodings, directly ----------------------------------------------------------

def _recorder(cap=8):
    return rk.Recorder(np.zeros((cap, rk.ROW_WIDTH), np.int8), np.zeros(2, np.int64))


def _positions(cubeless):
    """Positions of recorded games (varied: contact, hits, bear-offs)."""
    out = []
    for g in cubeless[0].records[:6]:
        for a, before, _ in g.replay():
            if a.kind == "move":
                out.append(before)
    return out[::3]


def test_move_rows_give_back_every_legal_result(cubeless):
    # Hits in passing ("13/8*/7") split a pair; doubles need a second row.
    seen_split = seen_more = 0
    for board in _positions(cubeless):
        for d1, d2 in fastbg.ROLLS:
            for result in fastbg.legal_moves(board, (d1, d2)):
                r = _recorder()
                rk.move(r, 1, d1, d2, board, result)
                assert r.at[1] == 0
                n = int(r.at[0])
                assert n in (1, 2)
                assert r.rows[0, 0] == rk.K_MOVE | (1 << 4) and r.rows[0, 1] == d1 * 8 + d2
                pairs = list(r.rows[:n, rk.R_A:].ravel())
                assert np.array_equal(_apply_pairs(board, pairs), result)
                seen_more += n == 2
                seen_split += any(board[p] == -1 and result[p] == 0 for p in range(1, 25))
    assert seen_split and seen_more


@pytest.mark.parametrize("before, after, over, winner, kinds", [
    (1, 1, False, -1, []),
    (1, 1, True, 0, [rk.K_DOUBLE, rk.K_DROP]),
    (1, 2, False, -1, [rk.K_DOUBLE, rk.K_TAKE]),
    (2, 4, True, 1, [rk.K_DOUBLE, rk.K_BEAVER, rk.K_DROP]),
    (2, 8, False, -1, [rk.K_DOUBLE, rk.K_BEAVER, rk.K_TAKE]),
    (1, 4, True, 0, [rk.K_DOUBLE, rk.K_BEAVER, rk.K_RACCOON, rk.K_DROP]),
    (1, 8, False, -1, [rk.K_DOUBLE, rk.K_BEAVER, rk.K_RACCOON, rk.K_TAKE]),
])
def test_cube_rows(before, after, over, winner, kinds):
    r = _recorder()
    rk.doubling(r, 0, before, after, over, winner)
    got = [int(x) & 15 for x in r.rows[:r.at[0], 0]]
    players = [int(x) >> 4 for x in r.rows[:r.at[0], 0]]
    assert got == kinds
    # who acts: the doubler, then the answers alternate
    assert players == [k % 2 for k in range(len(kinds))]


def _one_game(rows, head, rules):
    rows = np.array(rows, np.int8)
    arrays = RecordArrays(rows, np.array([0, len(rows)]), np.array([head], np.int32),
                          np.array([0, 1]))
    return Records(arrays, players=("a", "b"), rules=rules, offset=0)[0]


def _head(**kw):
    h = [0] * rk.H_SIZE
    for k, v in kw.items():
        h[getattr(rk, "H_" + k.upper())] = v
    return h


def _row(kind, player, d1=0, d2=0, pairs=()):
    pairs = list(pairs) + [-1] * (4 - len(pairs))
    return [kind | (player << 4), d1 * 8 + d2] + pairs


def test_beaver_and_raccoon_records_replay():
    rules = fastbg.MoneyRules(beavers=True, raccoons=True, jacoby=False)
    rows = [_row(rk.K_OPENING, 0, 3, 1), _row(rk.K_MOVE, 0, 3, 1, (8, 5, 6, 5)),
            _row(rk.K_DOUBLE, 1), _row(rk.K_BEAVER, 0), _row(rk.K_RACCOON, 1),
            _row(rk.K_DROP, 0)]
    g = _one_game(rows, _head(winner=1, kind=1, cube=4, dropped=1, points=4), rules)
    assert [a.kind for a in g.actions] == ["opening", "move", "double", "beaver", "raccoon",
                                           "drop"]
    assert [a.cube for a in g.actions[2:]] == [2, 4, 8, 4]
    assert g.moves[0].move == "8/5 6/5" and g.points == -4 and g.result == "drop"
    check_game(g)
    bad = GameRecord(**{**g.__dict__, "points": -2})
    with pytest.raises(RecordError, match="end"):
        check_game(bad)


def test_illegal_rows_name_the_game_and_move():
    rows = [_row(rk.K_OPENING, 0, 3, 1), _row(rk.K_MOVE, 0, 3, 1, (24, 18))]  # 24/18 with 31
    with pytest.raises(RecordError, match="game 0, move 2"):
        _one_game(rows, _head(winner=0, kind=0), None)
    rows = [_row(rk.K_OPENING, 0, 3, 1), _row(rk.K_MOVE, 0, 3, 1, (8, 5, 6, 5)),
            _row(rk.K_DOUBLE, 1)]
    with pytest.raises(RecordError, match="Crawford"):
        _one_game(rows, _head(crawford=1, kind=0), fastbg.MatchRules(3))
