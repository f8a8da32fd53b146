"""GNU Backgammon itself checks fastbg's .mat and .sgf files (the gnubg package, a test
extra, run in one child process for the module: tests/reference/gnubg_files.py).

* GNU Backgammon imports the .mat files fastbg writes (matches, and money games with the
  cube) and reads the same moves, cube actions, game results and scores (its importer
  skips invalid moves with only a warning, so the test compares what it read with what
  was played, move by move).
* It saves each imported match as its own .sgf: that file has fastbg's .sgf games, node
  for node, and read_sgf gives the very record fastbg played. (This gnubg package cannot
  load .sgf at all: its SGF parser is a stub, so this is how its .sgf side is checked.)
* GNU Backgammon plays matches and exports them as .mat and .sgf; fastbg reads both and
  gets the same as GNU Backgammon's own record.
"""
import dataclasses
import importlib.util
import json
import os
import subprocess
import sys

import pytest

import numpy as np

import fastbg
from fastbg.files.sgf import _trees, sgf_text
from fastbg.position.ids import board_from_position_id

pytestmark = pytest.mark.skipif(importlib.util.find_spec("gnubg") is None,
                                reason="the gnubg package (test extra) is not installed")
CHILD = os.path.join(os.path.dirname(__file__), "reference", "gnubg_files.py")
PLAYED = [(3, 7), (5, 11)]


@pytest.fixture(scope="module")
def oracle(tmp_path_factory):
    d = tmp_path_factory.mktemp("gnubg")
    res = fastbg.play_matches(6, 5, ("pubeval", "random"), cube=("race", "race"), seed=2,
                              record=True)
    ours = list(res.records)
    money = fastbg.play(60, ("pubeval", "pubeval"), seed=5, rules=fastbg.MoneyRules(),
                        cube=("race", "race"), record=True)
    cubed = np.flatnonzero((np.asarray(money.cube) > 1) | np.asarray(money.dropped, bool))
    ours += [fastbg.read_mat(_written(money.records[i], d / "money.mat"))
             for i in cubed[:3]]                # each money game as a "0 point match"
    ours.append(fastbg.money_session([money.records[i] for i in cubed[3:6]]))  # a session
    assert len(ours) == 10
    paths = []
    for i, m in enumerate(ours):
        paths.append([str(d / f"fastbg{i}.mat"), str(d / f"fastbg{i}.sgf")])
        fastbg.write_mat(m, paths[-1][0])
    played = [[n, s, str(d / f"gnubg{n}-{s}.mat"), str(d / f"gnubg{n}-{s}.sgf")]
              for n, s in PLAYED]
    job, out = d / "job.json", d / "out.json"
    job.write_text(json.dumps({"import": paths, "play": played}))
    subprocess.run([sys.executable, CHILD, str(job), str(out)], timeout=240,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert out.exists(), "the gnubg child process wrote nothing"
    return ours, json.loads(out.read_text()), [p[2:] for p in played], [p[1] for p in paths]


def _written(record, path):
    fastbg.write_mat(record, path)
    return path


def _gnubg_actions(game):
    """(player, kind, dice, move in fastbg's notation) of each action GNU Backgammon read."""
    out = []
    for a in game["game"]:
        player = 0 if a["player"] == "X" else 1
        if a["action"] == "move":
            board = board_from_position_id(a["board"])
            text = " ".join(f"{s}/{t}" for s, t in a["move"])
            dice = tuple(a["dice"])
            result = fastbg.parse_move(board, text, dice)
            out.append((player, "move", tuple(sorted(dice)),
                        fastbg.move_notation(board, result, dice), a["board"]))
        elif a["action"] in ("double", "take", "drop"):
            out.append((player, a["action"], None, None, None))
    return out


def _our_actions(g):
    return [(a.player, a.kind, tuple(sorted(a.dice)) if a.dice else None, a.move,
             a.position_id if a.kind == "move" else None)
            for a in g.actions if a.kind in ("move", "double", "take", "drop")]


def test_gnubg_imports_fastbg_mat_files(oracle):
    ours, got, _, _ = oracle
    assert len(got["imported"]) == len(ours)
    for m, theirs in zip(ours, got["imported"]):
        assert theirs["match-info"]["match-length"] == m.length
        assert len(theirs["games"]) == len(m.games)
        score = [0, 0]
        for g, tg in zip(m.games, theirs["games"]):
            info = tg["info"]
            assert (info["score-X"], info["score-O"]) == g.score
            assert _gnubg_actions(tg) == _our_actions(g)
            assert info["winner"] == "XO"[g.winner]
            need = m.length - g.score[g.winner] if m.length else info["points-won"]
            assert min(info["points-won"], need) == abs(g.points)
            score[g.winner] += info["points-won"]
        if m.length:
            assert tuple(min(s, m.length) for s in score) == m.score
        else:
            assert tuple(score) == m.score


def _sgf_games(text):
    """Per game: the root's MI, PW, PB, RU, CV and RE, and each node's move or cube action
    (GNU Backgammon's analysis, statistics, date and application left out)."""
    keep = ("MI", "PW", "PB", "RU", "CV", "RE")
    out = []
    for tree in _trees(text):
        root = [(k, v) for k, v in tree[0] if k in keep]
        nodes = [(k, v) for node in tree[1:] for k, v in node if k in ("B", "W")]
        out.append((sorted(root), nodes))
    return out


def test_gnubg_saves_fastbg_matches_as_fastbg_writes_them(oracle):
    ours, _, _, sgfs = oracle
    for m, path in zip(ours, sgfs):
        theirs = open(path, encoding="utf-8").read()
        assert _sgf_games(theirs) == _sgf_games(sgf_text(m))
        rules = None if m.length else m.rules
        assert fastbg.read_sgf(path, rules) == _without_ties(m)


def _without_ties(m):
    """``m`` without its opening ties: GNU Backgammon keeps none (fastbg's .mat has them
    as comment lines, which it drops; the rules here have no automatic doubles)."""
    return dataclasses.replace(m, games=tuple(
        dataclasses.replace(g, actions=tuple(a for a in g.actions if a.kind != "opening_tie"))
        for g in m.games))


def test_fastbg_reads_gnubg_matches(oracle):
    _, got, paths, _ = oracle
    for (path, sgf), theirs in zip(paths, got["played"]):
        m = fastbg.read_mat(path)
        assert fastbg.read_sgf(sgf) == m
        assert len(m.games) == len(theirs["games"])
        for g, tg in zip(m.games, theirs["games"]):
            info = tg["info"]
            assert (info["score-X"], info["score-O"]) == g.score
            assert info.get("crawford", False) == g.crawford
            assert _our_actions(g) == _gnubg_actions(tg)
            assert info["winner"] == "XO"[g.winner]
            assert (g.result == "resign") == info["resigned"]
            assert min(info["points-won"], m.length - g.score[g.winner]) == abs(g.points)
        assert m.winner is not None
