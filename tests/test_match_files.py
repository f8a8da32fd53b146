"""Match files: Jellyfish .mat as GNU Backgammon writes it (fastbg/files/mat.py).

read(write(x)) == x on recorded matches and money games (cube, beavers, raccoons,
Crawford); GNU Backgammon's own export (tests/data/gnubg-3pt-seed7.mat) read and
replayed; damaged files raise errors naming the game and the move number.
"""
import os
import re

import numpy as np
import pytest

import fastbg
from fastbg.files.mat import mat_text, parse_mat
from fastbg.sim import record_kernels as rk
from fastbg.sim.records import RecordArrays, Records

SAMPLE = os.path.join(os.path.dirname(__file__), "data", "gnubg-3pt-seed7.mat")
MONEY = fastbg.MoneyRules(beavers=True, raccoons=True, auto_doubles=True)


@pytest.fixture(scope="module")
def matches():
    return fastbg.play_matches(12, 5, ("pubeval", "random"), cube=("race", "race"), seed=2,
                               record=True)


@pytest.fixture(scope="module")
def money():
    return fastbg.play(150, ("pubeval", "pubeval"), seed=5, rules=MONEY, cube=("race", "race"),
                       record=True)


def test_matches_round_trip(matches, tmp_path):
    for m in matches.records:
        path = tmp_path / "m.mat"
        fastbg.write_mat(m, path)
        back = fastbg.read_mat(path)
        assert back == m
        assert back.games[0].game is None          # the run's index is not in the file
    assert any(g.crawford for m in matches.records for g in m.games)


def test_money_games_round_trip(money):
    picked = [g for g, c, d in zip(money.records, money.cube, money.dropped) if c > 1 or d]
    assert len(picked) > 10
    for g in picked[:30]:
        back = parse_mat(mat_text(g), MONEY)
        assert back.length == 0 and back.games == (g,)
    assert any(a.kind == "opening_tie" for g in picked for a in g.actions)


def _game(rows, head, rules):
    rows = np.array(rows, np.int8)
    return Records(RecordArrays(rows, np.array([0, len(rows)]), np.array([head], np.int32),
                                np.array([0, 1])), players=("a", "b"), rules=rules, offset=0)[0]


def _row(kind, player, d1=0, d2=0, pairs=()):
    return [kind | (player << 4), d1 * 8 + d2] + list(pairs) + [-1] * (4 - len(pairs))


@pytest.mark.parametrize("answers, cube, points", [
    ([rk.K_BEAVER, rk.K_RACCOON, rk.K_TAKE], 8, None),
    ([rk.K_BEAVER, rk.K_TAKE], 4, None),
    ([rk.K_BEAVER, rk.K_DROP], 2, 2),
    ([rk.K_BEAVER, rk.K_RACCOON, rk.K_DROP], 4, -4),
])
def test_beavers_and_raccoons_round_trip(answers, cube, points):
    rules = fastbg.MoneyRules(beavers=True, raccoons=True, jacoby=False)
    rows = [_row(rk.K_OPENING, 0, 3, 1), _row(rk.K_MOVE, 0, 3, 1, (8, 5, 6, 5)),
            _row(rk.K_DOUBLE, 1)]
    rows += [_row(k, (1 + j + 1) % 2) for j, k in enumerate(answers)]
    dropped = answers[-1] == rk.K_DROP
    head = [0] * rk.H_SIZE
    head[rk.H_CUBE] = cube
    if dropped:
        head[rk.H_WINNER], head[rk.H_KIND], head[rk.H_DROPPED] = int(points < 0), 1, 1
        head[rk.H_POINTS] = abs(points)
    else:
        rows.append(_row(rk.K_MOVE, 1, 6, 5, (24, 13)))
    g = _game(rows, head, rules)
    text = mat_text(g)
    assert "Beavers => 4" in text
    assert parse_mat(text, rules).games == (g,)


def test_gnubg_sample_reads_and_replays():
    m = fastbg.read_mat(SAMPLE)
    assert m.players == ("gnubg0", "gnubg1") and m.length == 3
    assert m.score == (3, 2) and m.winner == 0
    assert [g.score for g in m.games] == [(0, 0), (2, 0), (2, 1), (2, 2)]
    assert [g.crawford for g in m.games] == [False, True, False, False]
    assert [g.result for g in m.games] == ["resign", "resign", "drop", "resign"]
    assert [g.points for g in m.games] == [2, -1, -1, 1]
    # every roll of the file is a move of the record, with the file's dice, and the
    # file's text plays the record's move
    text = open(SAMPLE).read()
    for g, block in zip(m.games, re.split(r"\n Game \d+\n", text)[1:]):
        rolls = re.findall(r"([1-6])([1-6]):([^:\n]*?)(?=\s{2,}|\s*\d\d:|\s*$|\n)", block)
        moves = g.moves
        assert len(rolls) == len(moves)
        for (d1, d2, played), a, (act, before, result) in zip(
                rolls, moves, [r for r in g.replay() if r[0].kind == "move"]):
            assert a.dice == (int(d1), int(d2))
            assert np.array_equal(fastbg.parse_move(before, played.strip(), a.dice), result)
    assert fastbg.read_mat(SAMPLE) == parse_mat(mat_text(m))


def _damaged(old, new, count=1):
    text = open(SAMPLE).read()
    assert text.count(old) >= 1
    return text.replace(old, new, count)


@pytest.mark.parametrize("old, new, message", [
    ("51: 13/8 24/23", "51: 13/7 24/23", r"game 1, move 1: illegal move '13/7 24/23'"),
    ("51: 13/8 24/23", "52: 13/8 24/23", r"game 1, move 1: illegal move .* with 52"),
    (" 2) 21: 24/23 13/11 ", " 2)  Doubles => 2               Takes\n  3) 21: 24/23 13/11 ",
     r"game 2, move 2: double by gnubg0 is not allowed: no doubling in the Crawford game"),
    ("gnubg0 : 2                     gnubg1 : 1", "gnubg0 : 2                     gnubg1 : 0",
     r"game 3: the score line says 2-0, the games before it make 2-1"),
    ("  3)  Drops                       Wins 1 point", "  3)  Drops                       Wins 2 points",
     r"game 3, end: 'Wins 2', the game is worth 1"),
])
def test_damaged_files_name_the_game_and_move(old, new, message):
    with pytest.raises(ValueError, match=message):
        parse_mat(_damaged(old, new))
