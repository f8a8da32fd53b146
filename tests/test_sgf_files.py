"""GNU Backgammon's .sgf match files (fastbg/files/sgf.py).

read(write(x)) == x on recorded matches (Crawford), money games (cube, automatic
doubles with their opening ties, beavers, raccoons) and cubeless games; GNU Backgammon's
own file of the .mat sample's match (tests/data/gnubg-3pt-seed7.sgf) reads as the .mat
does; damaged files raise errors naming the game and the move number.
"""
import os

import numpy as np
import pytest

import fastbg
from fastbg.files.sgf import _letter, _point, parse_sgf, sgf_text
from fastbg.sim import record_kernels as rk
from fastbg.sim.records import RecordArrays, Records

DATA = os.path.join(os.path.dirname(__file__), "data")
SAMPLE = os.path.join(DATA, "gnubg-3pt-seed7.sgf")
MONEY = fastbg.MoneyRules(beavers=True, raccoons=True, auto_doubles=True)


@pytest.fixture(scope="module")
def matches():
    return fastbg.play_matches(12, 5, ("pubeval", "random"), cube=("race", "race"), seed=2,
                               record=True)


def test_letters_are_gnubg_points():
    # White's points a..x are its 1..24, Black's x..a; y the bar, z off (sgf.c Point())
    assert [_letter(p, 0) for p in (1, 24, 25, 0)] == ["a", "x", "y", "z"]
    assert [_letter(p, 1) for p in (1, 24, 25, 0)] == ["x", "a", "y", "z"]
    for player in (0, 1):
        assert all(_point(_letter(p, player), player) == p for p in range(26))


def test_matches_round_trip(matches, tmp_path):
    for m in matches.records[:4]:
        path = tmp_path / "m.sgf"
        fastbg.write_sgf(m, path)
        back = fastbg.read_sgf(path)
        assert back == m
        assert back.games[0].game is None
    with_crawford = [m for m in matches.records[:4] if any(g.crawford for g in m.games)]
    assert with_crawford and "RU[Crawford:CrawfordGame]" in sgf_text(with_crawford[0])


def test_money_games_round_trip():
    money = fastbg.play(150, ("pubeval", "pubeval"), seed=5, rules=MONEY, cube=("race", "race"),
                        record=True)
    cubed = np.flatnonzero((np.asarray(money.cube) > 1) | np.asarray(money.dropped, bool))
    assert len(cubed) > 10
    picked = [money.records[i] for i in cubed[:10]]
    for g in picked:
        back = parse_sgf(sgf_text(g), MONEY)
        assert back.length == 0 and back.games == (g,)
    tied = [g for g in picked if any(a.kind == "opening_tie" for a in g.actions)]
    assert tied and "C[fastbg opening: ties" in sgf_text(tied[0])
    assert "CV[" in sgf_text(tied[0])
    with pytest.raises(ValueError, match="money with the Jacoby rule, the rules say"):
        parse_sgf(sgf_text(picked[0]), fastbg.MoneyRules(jacoby=False))


def test_cubeless_games_round_trip():
    res = fastbg.play(20, ("pubeval", "random"), seed=3, record=True)
    for g in res.records[:5]:
        back = parse_sgf(sgf_text(g))
        assert back.rules is None and back.games == (g,)


def _game(rows, head, rules):
    rows = np.array(rows, np.int8)
    return Records(RecordArrays(rows, np.array([0, len(rows)]), np.array([head], np.int32),
                                np.array([0, 1])), players=("a", "b"), rules=rules, offset=0)[0]


def _row(kind, player, d1=0, d2=0, pairs=()):
    return [kind | (player << 4), d1 * 8 + d2] + list(pairs) + [-1] * (4 - len(pairs))


@pytest.mark.parametrize("answers, cube, points, nodes", [
    ([rk.K_BEAVER, rk.K_RACCOON, rk.K_TAKE], 8, None, "B[double];W[double];B[double];W[take]"),
    ([rk.K_BEAVER, rk.K_TAKE], 4, None, "B[double];W[double];B[take]"),
    ([rk.K_BEAVER, rk.K_DROP], 2, 2, "B[double];W[double];B[drop]"),
    ([rk.K_BEAVER, rk.K_RACCOON, rk.K_DROP], 4, -4, "B[double];W[double];B[double];W[drop]"),
])
def test_beavers_and_raccoons_round_trip(answers, cube, points, nodes):
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
    text = sgf_text(g)
    # a beaver is a double by the doubled player, as GNU Backgammon's play records it
    assert nodes in text.replace("\n", "")
    assert parse_sgf(text, rules).games == (g,)
    if dropped:
        assert f"RE[{'WB'[points < 0]}+{abs(points)}]" in text


def test_gnubg_sample_reads_as_the_mat_file():
    m = fastbg.read_sgf(SAMPLE)
    assert m == fastbg.read_mat(os.path.join(DATA, "gnubg-3pt-seed7.mat"))
    assert [g.result for g in m.games] == ["resign", "resign", "drop", "resign"]
    assert [g.crawford for g in m.games] == [False, True, False, False]
    assert parse_sgf(sgf_text(m)) == m


def _damaged(old, new):
    text = open(SAMPLE).read()
    assert old in text
    return text.replace(old, new, 1)


_GAME2 = "\n;W[65xrrm]"


@pytest.mark.parametrize("old, new, message", [
    (";B[51ablq]", ";B[51ablr]", r"game 1, move 1: illegal move '24/23 13/7'"),
    (";B[51ablq]", ";B[52ablq]", r"game 1, move 1: illegal move .* with 52"),
    (_GAME2, "\n;W[double]\n;B[take]" + _GAME2,
     r"game 2, move 1: double by gnubg0 is not allowed: no doubling in the Crawford game"),
    ("[game:2][ws:2][bs:1]", "[game:2][ws:2][bs:0]",
     r"game 3: MI says the score is 2-0, the games before it make 2-1"),
    ("RE[B+1]", "RE[B+2]", r"game 3, end: RE\[B\+2\] says 2 points, the game is worth 1"),
    ("[bs:1]PW[gnubg0]PB[gnubg1]RU[Crawford]", "[bs:1]PW[gnubg0]PB[gnubg1]RU[Crawford:CrawfordGame]",
     r"game 3: RU says the Crawford game, at 2-1 it is not"),
    (";W[33xuxumjmj]", ";B[33xuxumjmj]", r"game 1, move 2: player 1 acts out of turn"),
])
def test_damaged_files_name_the_game_and_move(old, new, message):
    with pytest.raises(ValueError, match=message):
        parse_sgf(_damaged(old, new))
