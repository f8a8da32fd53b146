"""fastbg's pruned look-ahead against GNU Backgammon's own (the ``gnubg`` package, extra
``gnubg-app``): ``gnubg.evaluate(board, cubeinfo, evalcontext(cubeless, 1 ply,
deterministic, prune))`` in one child process (GNU Backgammon can crash at exit), with its
own weights file loaded by fastbg (so with GNU Backgammon 1.x's evaluation, docs/engine.md
section 6).

Contact, crashed and race positions. A few positions differ by a move choice whose two
candidates score within float32 rounding of each other (GNU Backgammon's vector code sums
the networks' outputs in another order).
"""
import importlib.util
import subprocess
import sys

import numpy as np
import pytest

import fastbg
from fastbg.evaluators import nets
from fastbg.evaluators.gnubg_nn import _gnubg_rows
from fastbg.evaluators.search import nply_probabilities
from strategies import selfplay_positions
from test_gnubgnet import crashed_positions, race_positions

if importlib.util.find_spec("gnubg") is None:
    pytest.skip("the gnubg package (extra gnubg-app) is not installed", allow_module_level=True)

TOL = 1e-4

CHILD = r"""
import os, sys
import numpy as np
import gnubg
gnubg.command("set threads 1")
rows = np.load(sys.argv[1])
out = {}
for ply, prune in ((1, 0), (1, 1), (2, 1)):
    ec = gnubg.evalcontext(0, ply, 1, prune, 0.0)   # cubeless, deterministic
    ci = gnubg.cubeinfo()
    n = len(rows) if ply == 1 else int(sys.argv[3])
    probs = np.empty((n, 6))
    for i, r in enumerate(rows[:n].tolist()):
        probs[i] = gnubg.evaluate((tuple(r[0]), tuple(r[1])), ci, ec)
    out[f"p{ply}_{prune}"] = probs
np.savez(sys.argv[2], **out)
sys.stdout.flush()
os._exit(0)                                      # skip the module's crash-prone exit
"""
N_TWO_PLY = 30


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory):
    net = fastbg.gnubg_net(nets._package_data("gnubg") / nets.WEIGHTS_NAME)
    boards = np.concatenate([selfplay_positions(260, seed=61), crashed_positions(60, seed=62)])
    boards = np.concatenate([boards[net.classes(boards) >= 4], race_positions(150, seed=63)])
    tmp = tmp_path_factory.mktemp("gnubg_prune")
    np.save(tmp / "rows.npy", _gnubg_rows(boards))
    subprocess.run([sys.executable, "-c", CHILD, str(tmp / "rows.npy"), str(tmp / "out.npz"),
                    str(N_TWO_PLY)], check=True, timeout=600, capture_output=True)
    out = np.load(tmp / "out.npz")
    return net, boards, {k: out[k][:, :5] for k in out.files}


def _agreement(fast, ref):
    err = np.abs(fast - ref).max(axis=1)
    return (err < TOL).mean(), err


def test_pruned_one_ply_equals_gnubgs(evaluated):
    net, boards, ref = evaluated
    assert len(boards) > 400 and (net.classes(boards) == 3).sum() > 120
    share, err = _agreement(nply_probabilities(net, boards, 1, prune=True), ref["p1_1"])
    assert share >= 0.99, f"{share:.3f} within {TOL}; worst {err.max():.2e}"
    assert np.median(err) < 1e-6


def test_unpruned_one_ply_equals_gnubgs_and_differs_from_pruned(evaluated):
    net, boards, ref = evaluated
    plain = nply_probabilities(net, boards, 1)
    share, err = _agreement(plain, ref["p1_0"])
    assert share == 1.0 and err.max() < 1e-5
    # the two look-aheads differ: each matches only its own
    wrong, _ = _agreement(plain, ref["p1_1"])
    assert wrong < 0.9


def test_pruned_two_ply_equals_gnubgs(evaluated):
    net, boards, ref = evaluated
    share, err = _agreement(nply_probabilities(net, boards[:N_TWO_PLY], 2, prune=True),
                            ref["p2_1"])
    assert share >= 0.9, f"{share:.3f} within {TOL}; worst {err.max():.2e}"
