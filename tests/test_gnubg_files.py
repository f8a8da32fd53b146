"""GNU Backgammon itself checks fastbg's .mat files (the gnubg package, a test extra, run
in one child process for the module: tests/reference/gnubg_files.py).

* GNU Backgammon imports the files fastbg writes and reads the same moves, cube actions,
  game results and scores (its importer skips invalid moves with only a warning, so the
  test compares what it read with what was played, move by move).
* GNU Backgammon plays matches and exports them; fastbg reads them and gets the same.
"""
import importlib.util
import json
import os
import subprocess
import sys

import pytest

import fastbg
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
    paths = []
    for i, m in enumerate(ours):
        paths.append(str(d / f"fastbg{i}.mat"))
        fastbg.write_mat(m, paths[-1])
    played = [[n, s, str(d / f"gnubg{n}-{s}.mat")] for n, s in PLAYED]
    job, out = d / "job.json", d / "out.json"
    job.write_text(json.dumps({"import": paths, "play": played}))
    subprocess.run([sys.executable, CHILD, str(job), str(out)], timeout=240,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert out.exists(), "the gnubg child process wrote nothing"
    return ours, json.loads(out.read_text()), [p for _, _, p in played]


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
    ours, got, _ = oracle
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
            assert min(info["points-won"], m.length - g.score[g.winner]) == abs(g.points)
            score[g.winner] += info["points-won"]
        assert tuple(min(s, m.length) for s in score) == m.score


def test_fastbg_reads_gnubg_matches(oracle):
    _, got, paths = oracle
    for path, theirs in zip(paths, got["played"]):
        m = fastbg.read_mat(path)
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
