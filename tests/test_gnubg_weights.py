"""GNU Backgammon's own weights files (gnubg.weights, gnubg.wd) in fastbg, against GNU Backgammon.

The oracle is the ``gnubg`` package (the GNU Backgammon engine as a Python module, extra
``gnubg-app``): ``gnubg.evaluate(board, cubeinfo, evalcontext(cubeless, 0 plies))``, run
once for the whole module in a child process (the module can crash when its process exits)
on seeded positions of every class.

The three weights files hold the same numbers. GNU Backgammon's own files get GNU
Backgammon 1.x's evaluation by default (``evaluation="gnubg"``), which these tests compare
with ``gnubg.evaluate`` class by class; ``evaluation="gnubg-nn"`` is gnubg-nn's (the
default for gnubg-nn's file). The two differ (docs/engine.md section 6):

* contact and crashed: the same; against gnubg up to float32 rounding: gnubg's SIMD
  network code sums the outputs in vector lanes and computes the sigmoid in another order
  of operations;
* race: 1.x's SanityCheck adds "certain win / loss / gammon" and "gammon impossible" rules
  (from the crossings left and the one-sided bear-off database's longest bear-off) and
  keeps gammon chances below 1e-4 outside contact; gnubg-nn's raceImprovement has a
  certain-gammon rule 1.x lacks. :func:`gnubg_race_rules` is 1.x's rules in Python, the
  slow reference of the kernels' (applied to the gnubg-nn evaluation's output);
* one-sided bear-off: 1.x runs no SanityCheck, sums the win chances in float (gnubg-nn's
  32-bit integer products overflow for long bear-offs) and takes gammons from the gammon
  distributions of gnubg_os0.bd (gnubg-nn: its first-checker-off heuristic), which fastbg
  computes itself (:func:`fastbg.evaluators.bearoff_kernels.gammon_dist_table`);
  :func:`gnubg_one_sided` re-computes 1.x's values in float64 from the gnubg package's
  own database file.
"""
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import fastbg
from fastbg.evaluators import bearoff as bearoff_mod
from fastbg.evaluators import bearoff_kernels as kbo
from fastbg.evaluators import net_kernels as kg
from fastbg.evaluators import nets
from fastbg.evaluators.gnubg_nn import _gnubg_rows
from strategies import selfplay_positions
from test_gnubgnet import (bearoff_positions, crashed_positions, finished_positions,
                           race_positions)

if importlib.util.find_spec("gnubg") is None:
    pytest.skip("the gnubg package (extra gnubg-app) is not installed", allow_module_level=True)

DATA = nets._package_data("gnubg")
TEXT = DATA / nets.WEIGHTS_NAME
BINARY = DATA / nets.BINARY_NAME
SIMD_TOL = 1e-5          # float32 rounding of gnubg's SIMD network code (measured: 4e-6)
TABLE_TOL = 1e-6         # table look-ups: float32 against float64 rounding
NOISE = 1e-4             # gammon chances gnubg-nn (and fastbg) set to 0, GNU Backgammon keeps
# GNU Backgammon's positionclass -> fastbg's class (hypergammon and on-disk databases unused).
GNUBG_CLASS = {0: kg.C_OVER, 4: kg.C_BEAROFF2, 6: kg.C_BEAROFF1, 8: kg.C_RACE,
               9: kg.C_CRASHED, 10: kg.C_CONTACT}

CHILD = r"""
import os, sys
import numpy as np
import gnubg
gnubg.command("set threads 1")
rows = np.load(sys.argv[1])
ec = gnubg.evalcontext(0, 0, 1, 0, 0.0)          # cubeless, 0 plies, deterministic
ci = gnubg.cubeinfo()
probs = np.empty((len(rows), 6))
classes = np.empty(len(rows), np.int64)
for i, r in enumerate(rows.tolist()):
    board = (tuple(r[0]), tuple(r[1]))
    probs[i] = gnubg.evaluate(board, ci, ec)
    classes[i] = gnubg.classify(board)
np.savez(sys.argv[2], probs=probs, classes=classes)
sys.stdout.flush()
os._exit(0)                                      # skip the module's crash-prone exit
"""


@pytest.fixture(scope="module")
def net():
    return fastbg.gnubg_net(TEXT)                     # GNU Backgammon 1.x's evaluation


@pytest.fixture(scope="module")
def nn_net():
    return fastbg.gnubg_net(TEXT, evaluation="gnubg-nn")


@pytest.fixture(scope="module")
def evaluated(net, nn_net, tmp_path_factory):
    """{name: (boards, fastbg probs, fastbg classes, gnubg probs, gnubg classes, fastbg's
    gnubg-nn evaluation's probs)}."""
    sets = {"game": selfplay_positions(3000, seed=31), "crashed": crashed_positions(1500, seed=32),
            "race": race_positions(3000, seed=33), "bearoff": bearoff_positions(3000, seed=34),
            "bearoff6": bearoff_positions(800, seed=35, most=6), "over": finished_positions()}
    boards = np.concatenate(list(sets.values()))
    tmp = tmp_path_factory.mktemp("gnubg")
    np.save(tmp / "rows.npy", _gnubg_rows(boards))
    subprocess.run([sys.executable, "-c", CHILD, str(tmp / "rows.npy"), str(tmp / "out.npz")],
                   check=True, timeout=300, capture_output=True)
    out = np.load(tmp / "out.npz")
    probs, classes, nn_probs = net(boards), net.classes(boards), nn_net(boards)
    ref = out["probs"][:, :5]
    ref_classes = np.array([GNUBG_CLASS.get(int(c), -1) for c in out["classes"]])
    result, lo = {}, 0
    for name, b in sets.items():
        hi = lo + len(b)
        result[name] = (b, probs[lo:hi], classes[lo:hi], ref[lo:hi], ref_classes[lo:hi],
                        nn_probs[lo:hi])
        lo = hi
    return result


def _of_class(evaluated, cls):
    """(boards, probs, classes, gnubg probs, gnubg classes, gnubg-nn probs) of class cls."""
    parts = [tuple(a[row[2] == cls] for a in row) for row in evaluated.values()]
    return tuple(np.concatenate(x) for x in zip(*parts))


def _worst(diff, boards):
    i = int(np.argmax(diff.max(axis=1)))
    return f"{diff[i].max():.3g} at {_gnubg_rows(boards[i:i + 1]).tolist()[0]}"


# ---------------------------------------------------------------- the files

def test_text_binary_and_gnubg_nn_hold_the_same_nets():
    text, binary, folder = (nets.load_weights(p) for p in (TEXT, BINARY, DATA))
    assert (text.format, binary.format, folder.format) == ("gnubg", "gnubg-binary", "gnubg")
    assert text.version == binary.version == "1.01"
    for a, b in zip(text.arrays, binary.arrays):
        np.testing.assert_array_equal(a, b)
    assert text.arrays.mode == binary.arrays.mode == kg.EVAL_GNUBG
    np.testing.assert_array_equal(text.arrays.ifunc, [kg.IF_RACE, kg.IF_STD250, kg.IF_CONTACT250])
    np.testing.assert_array_equal(text.arrays.n_in, [214, 250, 250])
    nn_data = nets._package_data("gnubg_nn")
    if nn_data is not None:               # gnubg-nn's variant: the same version 1.01 nets
        nn = nets.load_weights(nn_data / nets.WEIGHTS_NAME)
        assert nn.format == "gnubg-nn" and nn.arrays.mode == kg.EVAL_GNUBG_NN
        for name in text.arrays._fields:
            if name != "mode":                                 # all but the evaluation
                np.testing.assert_array_equal(getattr(text.arrays, name),
                                              getattr(nn.arrays, name))


def test_format_comes_from_content_not_name(tmp_path):
    (tmp_path / "a.weights").write_bytes(BINARY.read_bytes())
    (tmp_path / "b.wd").write_bytes(TEXT.read_bytes())
    a, b = nets.load_weights(tmp_path / "a.weights"), nets.load_weights(tmp_path / "b.wd")
    assert (a.format, b.format) == ("gnubg-binary", "gnubg")
    np.testing.assert_array_equal(a.arrays.w1, b.arrays.w1)
    only_binary = tmp_path / "only"
    only_binary.mkdir()
    (only_binary / nets.BINARY_NAME).write_bytes(BINARY.read_bytes())
    assert fastbg.gnubg_net(only_binary).weights.format == "gnubg-binary"


def _cut(tmp_path, src, n, name):
    p = tmp_path / name
    p.write_bytes(src.read_bytes()[:n])
    return p


@pytest.mark.parametrize("src, keep, match", [
    (BINARY, 6, "cut short in its header"),
    (BINARY, 8 + 4 * 3, "net 1 at byte 8: cut short in its header"),
    (BINARY, 8 + 4 * 6 + 1000, "net 1 at byte 8: cut short"),
    (BINARY, 408016 - 2, "cut short"),                       # inside the last pruning net
    (TEXT, 300_000, "is cut short"),
    (TEXT, 40, "bad net header"),
])
def test_truncated_files(tmp_path, src, keep, match):
    p = _cut(tmp_path, src, keep, "cut" + src.suffix)
    with pytest.raises(ValueError, match=match) as err:
        nets.load_weights(p)
    assert str(p) in str(err.value)


def test_damaged_binary_headers(tmp_path):
    raw = bytearray(BINARY.read_bytes())
    bad = tmp_path / "bad.wd"
    wrong = raw.copy()
    wrong[8:12] = np.int32(200).tobytes()                    # contact net with 200 inputs
    bad.write_bytes(bytes(wrong))
    with pytest.raises(ValueError, match=r"'contact' net \(250 inputs, 5 outputs\); this one has 200"):
        nets.load_weights(bad)
    wrong = raw.copy()
    wrong[24:28] = np.float32(-0.1).tobytes()                # negative hidden beta
    bad.write_bytes(bytes(wrong))
    with pytest.raises(ValueError, match="non-positive betas"):
        nets.load_weights(bad)
    wrong = raw.copy()
    wrong[0:4] = np.float32(472.0).tobytes()                 # not the magic: read as text
    bad.write_bytes(bytes(wrong))
    with pytest.raises(ValueError, match="not a GNU Backgammon weights file"):
        nets.load_weights(bad)
    swapped = np.frombuffer(bytes(raw), "<u4").byteswap().tobytes()   # big-endian copy
    bad.write_bytes(swapped)
    np.testing.assert_array_equal(nets.load_weights(bad).arrays.w1,
                                  nets.load_weights(BINARY).arrays.w1)


def test_damaged_text_files(tmp_path):
    lines = TEXT.read_text().split("\n")
    bad = tmp_path / "bad.weights"
    bad.write_text("\n".join(lines[:2] + ["0.5 oops"] + lines[3:]))
    with pytest.raises(ValueError, match="not a number"):
        nets.load_weights(bad)
    bad.write_text("\n".join([lines[0], "250 128 5"] + lines[2:]))
    with pytest.raises(ValueError, match="bad net header"):
        nets.load_weights(bad)
    second = lines.index("214 128 5 0 0.1000000 1.0000000")
    bad.write_text("\n".join(lines[:second]) + "\n")         # the contact net alone
    with pytest.raises(ValueError, match="holds 1 nets"):
        nets.load_weights(bad)


# ---------------------------------------------------------------- evaluations vs gnubg

def test_classes_equal_gnubg(evaluated):
    for name, (b, _p, classes, _r, ref_classes, _n) in evaluated.items():
        np.testing.assert_array_equal(classes, ref_classes, err_msg=name)
    game = evaluated["game"][2]
    for cls in (kg.C_CONTACT, kg.C_CRASHED, kg.C_RACE, kg.C_BEAROFF1):
        assert (game == cls).sum() > 30


@pytest.mark.parametrize("cls", [kg.C_CONTACT, kg.C_CRASHED])
def test_networks_equal_gnubg(evaluated, cls):
    boards, probs, _, ref, _, nn = _of_class(evaluated, cls)
    assert len(boards) > 1000
    diff = np.abs(probs - ref)
    assert diff.max() <= SIMD_TOL, _worst(diff, boards)
    np.testing.assert_array_equal(probs, nn)                  # the evaluations agree here


@pytest.mark.parametrize("cls", [kg.C_OVER, kg.C_BEAROFF2])
def test_finished_and_two_sided_equal_gnubg(evaluated, cls):
    boards, probs, _, ref, _, nn = _of_class(evaluated, cls)
    assert len(boards) >= 8
    diff = np.abs(probs - ref)
    assert diff.max() <= TABLE_TOL, _worst(diff, boards)
    np.testing.assert_array_equal(probs, nn)


def _tables():
    binom, one = kbo.BINOM, bearoff_mod.tables()[1]
    return binom, one


def _max_turns(side, binom, one):
    """gnubg's MaxTurns: the most rolls the bear-off of ``side`` (6 counts) can take."""
    dist = one[kbo.position_index(np.asarray(side[:6], np.int64), binom)]
    nz = np.flatnonzero(dist)
    return int(nz[-1]) if nz.size else -1


def gnubg_race_rules(gb, out, binom, one):
    """GNU Backgammon 1.x's SanityCheck rules that gnubg-nn's lacks, applied to float32
    probabilities ``out`` of race board ``gb`` (2, 25), row 1 on roll (eval.c)."""
    ac, back, cross, gcross = [0, 0], [0, 0], [0, 0], [1, 1]
    for j in range(2):
        for i in range(25):
            n = int(gb[j][i])
            if n:
                back[j] = i
                ac[j] += n
                quarter = min(i // 6, 4)
                cross[j] += (quarter + 1) * n
                gcross[j] += quarter * n
    turns = [_max_turns(gb[j], binom, one) if back[j] < 6 else 2 * cross[j] for j in range(2)]
    turns[1] = turns[1] or 1
    if cross[0] > 4 * (turns[1] - 1):
        out[0] = 1.0                                          # certain win
    if ac[0] == 15:
        if cross[1] > 8 * gcross[0]:
            out[1] = 0.0                                      # gammon impossible
        elif gcross[0] > 4 * (turns[1] - 1):
            out[1] = 1.0                                      # certain gammon
    if cross[1] > 4 * turns[0]:
        out[0] = 0.0                                          # certain loss
    if ac[1] == 15:
        if cross[0] > 8 * gcross[1] - 4:
            out[3] = 0.0
        elif gcross[1] > 4 * turns[0]:
            out[3] = 1.0
    out[1] = min(out[1], out[0])
    out[3] = min(out[3], np.float32(1.0) - out[0])
    out[2] = min(out[2], out[1])
    out[4] = min(out[4], out[3])
    return out


def gnubg_nn_certain_gammon(gb):
    """Whether gnubg-nn's raceImprovement (so fastbg) calls board ``gb``'s gammon certain
    (it then sets the win and gammon chances to 1 or 0; GNU Backgammon 1.x has no such rule)."""
    men = [int(sum(gb[j][:23])) for j in range(2)]
    if 15 not in men:
        return False
    side = 1 if men[0] == 15 else 0
    pips = sum((i + 1) * int(gb[side][i]) for i in range(23))
    cross = sum(k * int(gb[1 - side][6 * k + 5 - i]) for k in (3, 2, 1) for i in range(6))
    return max((men[side] + 1) // 2, (pips + 2) // 3) < 1 + cross // 4 + side


def test_race_equals_gnubg(evaluated):
    """GNU Backgammon 1.x's evaluation of races equals gnubg.evaluate up to its SIMD
    network's rounding; gnubg-nn's differs (its rules)."""
    boards, probs, _, ref, _, nn = _of_class(evaluated, kg.C_RACE)
    assert len(boards) > 2000
    diff = np.abs(probs - ref)
    assert diff.max() <= SIMD_TOL, _worst(diff, boards)
    assert np.abs(nn - ref).max() > 0.01                      # gnubg-nn's evaluation: 0.014


def test_race_rules_reference(evaluated):
    """The kernels' 1.x race rules against their Python model: gnubg-nn's evaluation of a
    race with :func:`gnubg_race_rules` applied is the 1.x evaluation, bit for bit in most
    positions, but where gnubg-nn has zeroed a gammon chance below 1e-4 (1.x keeps it),
    called a gammon certain (1.x has no such rule; its network all but agrees) or clipped
    a gammon chance to a win chance that 1.x's rules then replace by 0 or 1."""
    boards, probs, _, ref, _, nn = _of_class(evaluated, kg.C_RACE)
    binom, one = _tables()
    rows = _gnubg_rows(boards)
    model = np.array([gnubg_race_rules(r, p.astype(np.float32), binom, one)
                      for r, p in zip(rows, nn)], np.float64)
    diff = np.abs(model - probs)
    diff[(model == 0) & (probs < NOISE)] = 0.0                # 1.x keeps tiny gammons
    certain = np.array([gnubg_nn_certain_gammon(r) for r in rows])
    assert certain.sum() > 20
    assert diff[~certain].max() <= SIMD_TOL, _worst(diff[~certain], boards[~certain])
    assert (diff[~certain].max(axis=1) == 0).mean() > 0.99
    assert diff[certain].max() <= 1e-3, _worst(diff[certain], boards[certain])
    changed = np.abs(nn - model).max(axis=1) > SIMD_TOL
    assert changed.sum() > 100                                # the rules matter here
    kept = (nn[:, 1:] == 0) & (probs[:, 1:] > 0)
    assert kept.sum() > 10                                    # and the tiny gammons


def _one_sided_file(path):
    """(win distributions, gammon distributions) float64 (54264, 32) of gnubg_os0.bd
    (compressed, with gammons: per position offset, then count and start of each)."""
    raw = Path(path).read_bytes()
    assert raw[:19] == b"gnubg-OS-06-15-1-1-", raw[:20]
    n = kbo.N_ONE_SIDED
    idx = np.frombuffer(raw, np.uint8, 8 * n, 40).reshape(n, 8).astype(np.int64)
    off = idx[:, 0] | idx[:, 1] << 8 | idx[:, 2] << 16 | idx[:, 3] << 24
    data = np.frombuffer(raw, "<u2", offset=40 + 8 * n)
    win, gam = np.zeros((n, 32)), np.zeros((n, 32))
    for p in range(n):
        nz, start, nzg, startg = idx[p, 4:8]
        win[p, start:start + nz] = data[off[p]:off[p] + nz]
        gam[p, startg:startg + nzg] = data[off[p] + nz:off[p] + nz + nzg]
    return win / 65535.0, gam / 65535.0


def gnubg_one_sided(gb, win, gam, binom):
    """GNU Backgammon 1.x's BearoffEvalOneSided of board ``gb`` (2, 25), row 1 on roll."""
    k = [kbo.position_index(np.asarray(gb[j][:6], np.int64), binom) for j in range(2)]
    upper = np.triu(np.ones((32, 32)))                        # i <= j
    out = np.zeros(5)
    out[0] = win[k[1]] @ upper @ win[k[0]]
    if sum(gb[0]) == 15 or sum(gb[1]) == 15:
        out[1] = win[k[1]] @ upper @ gam[k[0]]
        out[3] = win[k[0]] @ np.triu(np.ones((32, 32)), 1) @ gam[k[1]]
    return out


def _index(side):
    return kbo.position_index(np.asarray(side[:6], np.int64), kbo.BINOM)


def _products_wrap(mine, theirs):
    """Whether gnubg-nn's sum of int products mine[i] * theirs[j] (i <= j) wraps (2^31)."""
    top = np.maximum.accumulate(theirs[::-1])[::-1]
    return bool((mine * top >= 2 ** 31).any())


def test_gammon_distributions_equal_gnubg_file():
    """fastbg's gammon distributions (rolls to bear off the first checker) are those of
    the gnubg package's gnubg_os0.bd, entry for entry; the positions with fewer than 15
    checkers it does not store have the first checker off (0 rolls) there too."""
    win, gam = _one_sided_file(DATA / "gnubg_os0.bd")
    gam = np.round(gam * 65535).astype(np.int64)
    tabs = bearoff_mod.tables()
    lim = kbo.N_GAMMON_LIMIT
    assert tabs.gammon_dist.shape == (kbo.N_ONE_SIDED - lim, 32)
    np.testing.assert_array_equal(tabs.gammon_dist, gam[lim:])
    assert (gam[:lim, 0] == 65535).all() and (gam[:lim, 1:] == 0).all()
    np.testing.assert_array_equal(tabs.gammon_dist.sum(axis=1), 65535)
    # All 15 on the ace point: the first checker is off on the first roll.
    assert tabs.gammon_dist[kbo.position_index(np.array([15, 0, 0, 0, 0, 0]), kbo.BINOM)
                            - lim, 1] == 65535


def test_one_sided_bearoff_equals_gnubg(evaluated):
    """GNU Backgammon 1.x's one-sided bear-offs: fastbg's equal gnubg.evaluate (bit for
    bit on x86-64: the same float32 sums in its compiled order) and the float64 model
    from gnubg's own database file; gnubg-nn's evaluation differs in its gammons."""
    boards, probs, _, ref, _, nn = _of_class(evaluated, kg.C_BEAROFF1)
    assert len(boards) > 2000
    diff = np.abs(probs - ref)
    assert diff.max() <= TABLE_TOL, _worst(diff, boards)
    binom = kbo.BINOM
    win, gam = _one_sided_file(DATA / "gnubg_os0.bd")
    rows = _gnubg_rows(boards)
    model = np.array([gnubg_one_sided(r, win, gam, binom) for r in rows])
    mdiff = np.abs(model - probs)
    assert mdiff.max() <= TABLE_TOL, _worst(mdiff, boards)
    assert (probs[:, 0] > 1.0).any()                          # 1.x's float sums, unclipped
    # gnubg-nn's evaluation: the same win chances but where gnubg-nn's integer sum
    # overflows (it then says a certain win); gammons from its first-checker-off estimate.
    one = bearoff_mod.tables()[1]
    wrap = np.array([_products_wrap(one[_index(r[1])], one[_index(r[0])]) for r in rows])
    assert np.abs(nn[~wrap, 0] - ref[~wrap, 0]).max() <= TABLE_TOL
    assert (nn[wrap, 0] == 1.0).all()
    gdiff = np.abs(nn[:, [1, 3]] - ref[:, [1, 3]])
    assert (gdiff > TABLE_TOL).any()                          # they are other numbers
    assert gdiff.max() < 2e-4, _worst(gdiff, boards)         # measured: 9.6e-5


# ---------------------------------------------------------------- choosing the evaluation

def test_evaluation_follows_the_format_and_can_be_chosen(tmp_path):
    for path in (TEXT, BINARY, DATA):
        net = fastbg.gnubg_net(path)
        assert net.evaluation == "gnubg" and net.arrays.mode == kg.EVAL_GNUBG
    nn = fastbg.gnubg_net(TEXT, evaluation="gnubg-nn")
    assert nn.evaluation == "gnubg-nn" and nn.arrays.mode == kg.EVAL_GNUBG_NN
    assert "evaluation 'gnubg-nn'" in repr(nn)
    # One arrays object per evaluation (the game kernels compare sets of nets by identity).
    assert fastbg.gnubg_net(TEXT, evaluation="gnubg-nn").arrays is nn.arrays
    assert fastbg.gnubg_net(TEXT).arrays is fastbg.gnubg_net(TEXT, evaluation="gnubg").arrays
    assert nn.arrays.w1 is fastbg.gnubg_net(TEXT).arrays.w1
    # pickled by value (Ray workers): the chosen evaluation comes back with it
    import pickle
    for ev, mode in (("gnubg-nn", kg.EVAL_GNUBG_NN), ("gnubg", kg.EVAL_GNUBG)):
        back = pickle.loads(pickle.dumps(fastbg.gnubg_net(TEXT, evaluation=ev)))
        assert back.evaluation == ev and back.arrays.mode == mode
    nn_data = nets._package_data("gnubg_nn")
    if nn_data is not None:
        own = fastbg.gnubg_net(nn_data / nets.WEIGHTS_NAME)
        assert own.evaluation == "gnubg-nn"
        assert fastbg.gnubg_net(nn_data / nets.WEIGHTS_NAME, evaluation="gnubg").evaluation \
            == "gnubg"
        boards = np.concatenate([selfplay_positions(300, seed=36),
                                 race_positions(300, seed=37), bearoff_positions(300, seed=38)])
        np.testing.assert_array_equal(own(boards), nn(boards))   # same nets, same evaluation


@pytest.mark.parametrize("bad", ["gnubg1", "GNUBG", "", "nn", 1, True, ("gnubg",)])
def test_bad_evaluation(bad):
    with pytest.raises(ValueError, match="evaluation must be 'gnubg'"):
        fastbg.gnubg_net(TEXT, evaluation=bad)
    with pytest.raises(ValueError, match="evaluation must be 'gnubg'"):
        nets.GnubgNet(nets.load_weights(TEXT), evaluation=bad)


def test_single_position_kernel_equals_batch_kernel(net):
    """The one-position path (:func:`evaluate_board`, the plug-in and nets of other widths)
    and the plug-in's narrow tables give the batch kernel's values in 1.x's evaluation."""
    boards = np.concatenate([race_positions(400, seed=39), bearoff_positions(400, seed=40),
                             selfplay_positions(100, seed=41)])
    batch = net(boards)
    one = np.empty(5)
    scr = kg.new_scratch()
    for b, p in zip(boards, batch):
        kg.evaluate_board(b, net.arrays, net.bearoff, scr, one)
        np.testing.assert_array_equal(one, p)
