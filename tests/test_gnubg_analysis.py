"""fastbg.analyse against GNU Backgammon's own ``analyse match`` at 0-ply (the gnubg
package, a test extra, run in one child process for the module:
tests/reference/gnubg_analysis.py), both with GNU Backgammon's weights file.

Per move, the equity lost and the luck are read from the SGF file GNU Backgammon saves
(``A[played][candidates...]``: each candidate's score; ``LU[luck]``); per player, the
totals from its ``show statistics match``. fastbg evaluates with GNU Backgammon 1.x's
evaluation (the weights file's default, ``evaluation="gnubg"``), so the two agree to
float32 rounding (docs/analysis.md section 3: every equity loss within 5.3e-6, the luck
within 1e-5 on 99.6% of the moves and 1e-4 on all; the issue asked 0.002 on 95% of the
moves and the totals within 5%). The files: GNU Backgammon's own 3-point match, three
5-point matches of fastbg's and a money session of four games (cubeful money play).
"""
import importlib.util
import json
import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

import fastbg

pytestmark = pytest.mark.skipif(importlib.util.find_spec("gnubg") is None,
                                reason="the gnubg package (test extra) is not installed")
CHILD = os.path.join(os.path.dirname(__file__), "reference", "gnubg_analysis.py")
SAMPLE = os.path.join(os.path.dirname(__file__), "data", "gnubg-3pt-seed7.mat")
PROP = re.compile(r"([A-Z]+)((?:\[[^\]]*\])+)")


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    d = tmp_path_factory.mktemp("gnubg-analysis")
    # GNU Backgammon's own match (its cube decisions) and three of fastbg's (race cubes); a
    # match played with the networks in the game kernel would add that kernel's compile
    # (tens of seconds of the suite's budget) for little more coverage
    records = list(fastbg.play_matches(3, 5, ("pubeval", "random"), cube=("race", "race"),
                                       seed=3, record=True).records)
    # and a money session (GNU Backgammon's "0 point match"): cubeful money equities
    money = fastbg.play(4, ("pubeval", "random"), rules=fastbg.MoneyRules(),
                        cube=("race", "race"), seed=5, record=True)
    records.append(fastbg.money_session(money.records))
    paths = [SAMPLE]
    for i, m in enumerate(records):
        paths.append(str(d / f"fastbg{i}.mat"))
        fastbg.write_mat(m, paths[-1])
    job, out = d / "job.json", d / "out.json"
    job.write_text(json.dumps({"files": paths, "plies": 0}))
    subprocess.run([sys.executable, CHILD, str(job), str(out)], timeout=240,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert out.exists(), "the gnubg child process wrote nothing"
    spec = importlib.util.find_spec("gnubg")
    weights = pathlib.Path(spec.submodule_search_locations[0]) / "data" / "gnubg.weights"
    net = fastbg.gnubg_net(path=weights)
    assert net.evaluation == "gnubg"
    theirs = json.loads(out.read_text())["analysed"]
    return [(fastbg.analyse(p, net=net), t) for p, t in zip(paths, theirs)]


def sgf_moves(text):
    """(player, equity lost or None, luck or None) of each move node, in order."""
    out = []
    for game in text.split("(;")[1:]:
        for node in game.split(";")[1:]:
            props = {k: re.findall(r"\[([^\]]*)\]", v) for k, v in PROP.findall(node)}
            key = "B" if "B" in props else "W" if "W" in props else None
            if key is None or not re.match(r"\d\d", props[key][0]):
                continue
            loss = None
            if "A" in props:
                played = int(props["A"][0])
                scores = [float(c.split()[9]) for c in props["A"][1:]]
                loss = scores[0] - scores[played]
            luck = float(props["LU"][0]) if "LU" in props else None
            out.append((1 if key == "B" else 0, loss, luck))
    return out


def statistic(text, label):
    """The two players' first figures of the last line starting with ``label``."""
    lines = [ln for ln in text.splitlines() if ln.startswith(label)]
    return [float(x) for x in re.findall(r"[-+]\d+\.\d+", lines[-1][len(label):])[0::2]]


def test_move_losses_and_luck_agree(compared):
    losses, lucks = [], []
    for ours, theirs in compared:
        got = sgf_moves(theirs["sgf"])
        assert [m.player for m in ours.moves] == [p for p, _, _ in got]
        losses += [m.equity_loss - (loss or 0.0) for m, (_, loss, _) in zip(ours.moves, got)]
        lucks += [m.luck - luck for m, (_, _, luck) in zip(ours.moves, got) if luck is not None]
    losses, lucks = np.abs(losses), np.abs(lucks)
    assert len(losses) > 500
    assert losses.max() <= 2e-5                   # measured 5.3e-6
    assert np.mean(lucks <= 1e-5) >= 0.99         # measured 99.6%
    assert lucks.max() <= 5e-4                    # measured 1.0e-4


def test_player_totals_agree(compared):
    for ours, theirs in compared:
        text = theirs["statistics"]
        errors = [-v for v in statistic(text, "Error total EMG")]
        luck = statistic(text, "Luck total EMG")
        for p in (0, 1):
            pl = ours.players[p]
            # GNU Backgammon prints three decimals (measured: within 0.0005)
            assert pl.error_total_emg == pytest.approx(errors[p], rel=1e-3, abs=2e-3)
            assert pl.luck_total_emg == pytest.approx(luck[p], rel=1e-3, abs=2e-3)
