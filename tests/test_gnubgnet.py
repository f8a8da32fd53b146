"""fastbg's own evaluation of GNU Backgammon's networks (fastbg.evaluators.nets) against gnubg-nn.

The oracle is ``gnubg_nn.probabilities(board, 0)``: thousands of seeded positions of every
class (contact, crashed, race, both bear-off kinds, finished games) must agree within 1e-6
(float32 rounding; the brief allows 1e-5), the classes exactly. The bear-off tables that
fastbg computes by dynamic programming must equal gnubg's own database files entry for
entry.
"""
import os
import textwrap

import numpy as np
import pytest

import fastbg
from fastbg.evaluators import bearoff as bearoff_mod
from fastbg.evaluators import nets as gnubgnet
from fastbg.evaluators import bearoff_kernels as kbo
from fastbg.evaluators import net_kernels as kg

gnubg_nn = pytest.importorskip("gnubg_nn", reason="gnubg-nn (the gnubg extra) is not installed")

from fastbg.evaluators.gnubg_nn import _gnubg_rows, from_gnubg  # noqa: E402
from strategies import selfplay_positions as game_positions  # noqa: E402
from test_cubeful_play import BOTS, assert_matches_reference, events  # noqa: E402
from fastbg import MatchRules, MoneyRules  # noqa: E402

TOL = 1e-6
DATA = os.path.join(os.path.dirname(gnubg_nn.__file__), "data")


@pytest.fixture(scope="module")
def net():
    return fastbg.gnubg_net()


def oracle(boards):
    rows = _gnubg_rows(np.asarray(boards, np.int8)).tolist()
    probs = np.array([gnubg_nn.probabilities(r, 0) for r in rows], np.float64)
    classes = np.array([gnubg_nn.classify(r) for r in rows])
    return probs.reshape(-1, 5), classes


# ---------------------------------------------------------------- seeded positions

def _side(rng, lo, hi, n):
    c = np.zeros(25, np.int64)
    np.add.at(c, rng.integers(lo, hi + 1, n), 1)
    return c


def race_positions(n, seed):
    """No contact; either side may still have checkers in the other's home board."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        if rng.random() < 0.5:
            k = rng.integers(1, 12)            # backgammon chances: checkers left behind
            a = _side(rng, 18, 22, k) + _side(rng, 0, 17, 15 - k)
        else:
            a = _side(rng, 0, rng.integers(0, 23), rng.integers(1, 16))
        lim = 22 - max(i for i in range(25) if a[i])
        if lim < 0:
            continue
        b = _side(rng, 0, min(lim, int(rng.integers(0, 23))), rng.integers(1, 16))
        rows = [a, b] if rng.random() < 0.5 else [b, a]
        out.append(from_gnubg(np.array(rows)))
    return np.array(out, np.int8)


def bearoff_positions(n, seed, most=15):
    """Both sides on their points 1..6 (all 15 on board for a third of the sides)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        rows = []
        for _ in range(2):
            k = 15 if (most == 15 and rng.random() < 0.3) else rng.integers(1, most + 1)
            rows.append(_side(rng, 0, 5, k))
        out.append(from_gnubg(np.array(rows)))
    return np.array(out, np.int8)


def crashed_positions(n, seed):
    """Contact where one side has few checkers left or its checkers piled deep."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        a = _side(rng, 0, 24, rng.integers(2, 8))
        if rng.random() < 0.5:
            a[0] += rng.integers(0, 5)
            a[1] += rng.integers(0, 4)
        if a.sum() > 15:
            continue
        b = _side(rng, 0, 24, 15)
        rows = np.array([b, a] if rng.random() < 0.5 else [a, b])
        try:
            out.append(from_gnubg(rows))
        except ValueError:          # a point held by both sides
            continue
    return np.array(out, np.int8)


def finished_positions():
    """One side has borne off everything: single, gammon and backgammon losses."""
    out = []
    for loser in ([0] * 5 + [15] + [0] * 19, [0] * 18 + [2] + [0] * 5 + [13],
                  [3] + [0] * 23 + [0], [0] * 23 + [15, 0]):
        for rows in ([[0] * 25, loser], [loser, [0] * 25]):
            out.append(from_gnubg(np.array(rows)))
    return np.array(out, np.int8)


def _check(net, boards, min_class=None):
    probs = net(boards)
    classes = net.classes(boards)
    ref, ref_classes = oracle(boards)
    np.testing.assert_array_equal(classes, ref_classes)
    diff = np.abs(probs - ref).max(axis=1)
    worst = int(np.argmax(diff))
    assert diff[worst] <= TOL, (f"class {gnubgnet.CLASS_NAMES[classes[worst]]}: "
                                f"{probs[worst]} vs gnubg {ref[worst]} for "
                                f"{_gnubg_rows(boards[worst:worst + 1]).tolist()[0]}")
    if min_class is not None:
        for c, n in min_class.items():
            assert (classes == c).sum() >= n, f"only {(classes == c).sum()} of class {c}"
    return probs, classes


# ---------------------------------------------------------------- evaluation vs gnubg

def test_start_position(net):
    p = net(fastbg.START)
    ref, _ = oracle(fastbg.START[None])
    np.testing.assert_allclose(p, ref[0], atol=TOL)
    assert net.classes(fastbg.START) == kg.C_CONTACT
    e = net.equity(fastbg.START)
    assert e == pytest.approx(2 * p[0] - 1 + p[1] - p[3] + p[2] - p[4])


def test_game_positions(net):
    boards = game_positions(12000, seed=1)
    _check(net, boards, {kg.C_CONTACT: 5000, kg.C_CRASHED: 1000, kg.C_RACE: 1000,
                         kg.C_BEAROFF1: 200})


def test_crashed(net):
    _check(net, crashed_positions(4000, seed=2), {kg.C_CRASHED: 3000})


def test_race_with_backgammons(net):
    probs, classes = _check(net, race_positions(8000, seed=3), {kg.C_RACE: 7000})
    race = classes == kg.C_RACE
    # raceImprovement at work: exact backgammon chances (table and one-sided fallback)
    # and certain gammons.
    assert (probs[race, 2] > 0).sum() > 300 and (probs[race, 4] > 0).sum() > 300
    assert (probs[race, 1] == 1.0).sum() + (probs[race, 3] == 1.0).sum() > 20


def test_bearoff(net):
    probs, classes = _check(net, bearoff_positions(8000, seed=4),
                            {kg.C_BEAROFF1: 5000, kg.C_BEAROFF2: 300})
    one = classes == kg.C_BEAROFF1
    assert (probs[one, 1] > 0).sum() > 300 and (probs[one, 3] > 0).sum() > 40
    _check(net, bearoff_positions(3000, seed=5, most=6), {kg.C_BEAROFF2: 2500})


def test_finished_games(net):
    boards = finished_positions()
    probs, classes = _check(net, boards)
    assert (classes == kg.C_OVER).all()
    assert set(np.round(probs.sum(axis=1), 6)) <= {0.0, 1.0, 2.0, 3.0}


def test_batch_kernel_equals_one_position_path(net):
    """evaluate_rows (inputs as rows added without a multiply, output sums of 16 positions
    side by side) gives the probabilities of evaluate_rows_plain (every input multiplied,
    one position at a time) bit for bit, on positions of every class, both ways round."""
    boards = np.concatenate([game_positions(3000, 8), crashed_positions(500, 9),
                             race_positions(500, 10), bearoff_positions(100, 11),
                             finished_positions()])
    scr = kg.scratch()
    for swapped in (False, True):
        got = np.full((len(boards), 5), np.nan)
        want = np.full((len(boards), 5), np.nan)
        cls = np.empty(len(boards), np.int8)
        want_cls = np.empty(len(boards), np.int8)
        kg.evaluate_rows(boards, 0, len(boards), np.bool_(swapped), net.arrays, net.bearoff,
                         scr, got, cls)
        kg.evaluate_rows_plain(boards, 0, len(boards), np.bool_(swapped), net.arrays,
                               net.bearoff, scr, want, want_cls)
        np.testing.assert_array_equal(cls, want_cls)
        assert len(set(cls.tolist()) & {kg.C_RACE, kg.C_CRASHED, kg.C_CONTACT}) == 3
        np.testing.assert_array_equal(got.view(np.int64), want.view(np.int64))


def test_thread_count_does_not_matter(net):
    boards = game_positions(3000, seed=6)
    with fastbg.threads(1):
        one = net(boards)
    with fastbg.threads(2):
        two = net(boards)
    np.testing.assert_array_equal(one, two)


def test_single_board_and_batch_shapes(net):
    boards = game_positions(5, seed=7)
    assert net(boards).shape == (5, 5)
    assert net(boards[0]).shape == (5,)
    np.testing.assert_array_equal(net(boards[0]), net(boards)[0])
    assert net(np.zeros((0, 26), np.int8)).shape == (0, 5)
    assert net.equity(boards).shape == (5,)
    with pytest.raises(ValueError):
        net(np.zeros((3, 25), np.int8))


# ---------------------------------------------------------------- pieces

def test_python_scratch_has_the_kernels_types():
    """The batch kernel's scratch made in Python has the types (and shapes) of the
    kernels' own: a difference would compile the kernel twice or break it."""
    import numba
    py, jit = kg.scratch(), kg.new_scratch()
    assert numba.typeof(py) == numba.typeof(jit)
    assert [a.shape for a in py] == [a.shape for a in jit]


def test_weights_start_on_cache_lines(net, tmp_path):
    """The vector loads of the hidden layer read whole 64-byte lines only when the weight
    arrays start on one (13% of an evaluation otherwise); a custom weights file too."""
    arrays, prune = net.weights.arrays, net.weights.prune
    for a in (arrays.w1, arrays.b1, arrays.w2) + ((prune.w1, prune.enc) if prune else ()):
        assert a.ctypes.data % 64 == 0 and a.flags.c_contiguous and a.dtype == np.float32
    custom = fastbg.gnubg_net(_tiny_weights(tmp_path / "tiny.weights")).weights.arrays
    assert custom.w1.ctypes.data % 64 == 0 and custom.w1.flags.writeable
    from fastbg.evaluators.nets import _zeros_aligned
    for shape in ((3, 250, 128), (7,), (2, 3), (3, 2120, 128)):
        z = _zeros_aligned(shape, np.int64)
        assert z.shape == shape and z.dtype == np.int64 and not z.any()
        assert z.ctypes.data % 64 == 0 and z.flags.writeable
        z[...] = 1                      # the whole array is writable memory
    # the input weights (megabytes) start on a huge page of their own (Linux)
    import mmap
    if hasattr(mmap, "MADV_HUGEPAGE"):
        assert arrays.w1.nbytes > 1 << 20 and arrays.w1.ctypes.data % (1 << 21) == 0


def test_pickled_weights_start_on_cache_lines(net):
    """An evaluator pickled by value (Ray workers) gets its weights back on cache lines
    and evaluates as before: here from arrays deliberately 16 bytes into a line."""
    import pickle
    from fastbg.evaluators.nets import GnubgNet, Weights

    def off_line(a):
        if not isinstance(a, np.ndarray):   # Net.plain of nets the vector path takes, sizes
            return a
        buf = np.zeros(a.nbytes + 128, np.uint8)
        start = -buf.ctypes.data % 64 + 16
        b = buf[start:start + a.nbytes].view(a.dtype).reshape(a.shape)
        b[...] = a
        return b
    w = net.weights
    shifted = Weights(w.path, w.version, type(w.arrays)(*map(off_line, w.arrays)), w.format,
                      type(w.prune)(*map(off_line, w.prune)) if w.prune else None)
    assert shifted.arrays.w1.ctypes.data % 64 == 16
    back = pickle.loads(pickle.dumps(GnubgNet(shifted)))
    assert back.arrays.plain is w.arrays.plain is None

    def arrays(weights):
        return [a for a in weights.arrays + (weights.prune or ()) if a is not None]
    for a in arrays(back.weights):
        assert a.dtype != np.float32 or a.ctypes.data % 64 == 0
    assert back.arrays is back.weights.arrays
    for a, b in zip(arrays(back.weights), arrays(w), strict=True):
        np.testing.assert_array_equal(a, b)
    boards = game_positions(200, seed=3)
    np.testing.assert_array_equal(back(boards), net(boards))


def test_sigmoid_matches_gnubg_table():
    for x in (-12.0, -9.99, -3.3, -0.0, 0.0, 0.05, 1.0, 4.2, 9.99, 10.0, 30.0):
        s = kg.sigmoid(np.float32(x))
        assert abs(s - 1 / (1 + np.exp(x))) < 2e-3
    # The linear correction is exact on the table's knots.
    assert kg.sigmoid(np.float32(1.0)) == np.float32(1) / (np.float32(1) + kg.SIG_E[10]
                                                           * np.float32(10.0))


def test_bearoff_tables_equal_gnubg_files():
    tabs = bearoff_mod.tables()
    one = bearoff_mod.read_gnubg_one_sided(os.path.join(DATA, "gnubg_os0.bd"))
    np.testing.assert_array_equal(tabs[1], one)
    two = bearoff_mod.read_gnubg_two_sided(os.path.join(DATA, "gnubg_ts0.bd"))
    np.testing.assert_array_equal(tabs[2], two)


def test_bearoff_index_and_small_tables():
    binom = kbo.BINOM
    idx = kbo.position_index
    assert idx(np.zeros(6, np.int64), binom) == 0
    assert idx(np.array([0, 0, 0, 0, 0, 6]), binom) == 923
    assert idx(np.array([7, 0, 0, 0, 0, 0]), binom) == 924
    assert idx(np.array([15, 0, 0, 0, 0, 0]), binom) == 38760
    pos = kbo.all_positions(binom)
    assert len({tuple(r) for r in pos}) == kbo.N_ONE_SIDED
    # The closed form equals gnubg's bit-by-bit rank on every position, and ranks them
    # 0 .. N - 1 in all_positions' order.
    fast = np.array([idx(p, binom) for p in pos])
    ref = np.array([kbo.position_index_reference(p, binom) for p in pos])
    np.testing.assert_array_equal(fast, ref)
    np.testing.assert_array_equal(fast, np.arange(kbo.N_ONE_SIDED))
    tabs = bearoff_mod.tables()
    # All 15 on the 6-point: first checker off on roll 1..4 (GNU Backgammon's values).
    np.testing.assert_array_equal(tabs[3][idx(np.array([0, 0, 0, 0, 0, 15]), binom)],
                                  [17, 583, 3203, 15588])
    rbg, ok = tabs[4], tabs[5]
    # Checkers k + 1 pips from leaving: one at 5 pips leaves at once except with 11, 21,
    # 31; two at 2 pips need both dice >= 2 or a double.
    for c, row in (([0, 0, 0, 0, 1, 0], [31, 180, 0, 0, 0]),
                   ([0, 2, 0, 0, 0, 0], [26, 360, 0, 0, 0]),
                   ([3, 0, 0, 0, 0, 0], [6, 1080, 0, 0, 0]),
                   ([0, 0, 0, 0, 6, 0], [0, 18, 6042, 425561, 36475740])):
        k = idx(np.array(c), binom)
        assert ok[k]
        np.testing.assert_array_equal(rbg[k], row)
    assert ok.sum() == 461          # 1..6 checkers on five points


def test_two_sided_small_cases():
    ts = bearoff_mod.tables()[2]
    binom = kbo.BINOM
    one = kbo.position_index(np.array([1, 0, 0, 0, 0, 0]), binom)
    six = kbo.position_index(np.array([0, 0, 0, 0, 0, 1]), binom)
    assert ts[one, six] == 65535                        # bears off at once
    # One checker on the 6-point against one on the ace: 27 of 36 rolls (equity 0.5,
    # truncated toward zero in 16-bit units).
    assert ts[six, one] == 32768 + (18 * 32767) // 36


# ---------------------------------------------------------------- loading

def test_missing_weights_message(tmp_path, monkeypatch):
    with pytest.raises(FileNotFoundError, match=r"pip install 'fastbg\[gnubg\]'"):
        fastbg.gnubg_net(tmp_path / "nothing.weights")
    monkeypatch.setattr(gnubgnet, "default_weights_path", lambda: None)
    with pytest.raises(FileNotFoundError, match="gnubg-nn"):
        fastbg.gnubg_net()


def test_weights_folder_and_env(tmp_path, monkeypatch):
    net = fastbg.gnubg_net(DATA)
    assert net.weights.version == "1.01"
    monkeypatch.setenv("FASTBG_GNUBG_WEIGHTS", os.path.join(DATA, "gnubg.weights"))
    assert gnubgnet.default_weights_path().name == "gnubg.weights"


def _tiny_weights(path, contact_inputs="contact250", n_in=250, header="GNU Backgammon 1.01"):
    """A syntactically valid weights file with small nets (2 hidden units)."""
    lines = [header]
    for name, ni in (("race", 214), (f"contact {contact_inputs}", n_in)):
        lines.append(name)
        lines.append(f"{ni} 2 5 0 0.1000000 1.0000000")
        lines += ["0.0100000"] * (ni * 2 + 2 * 5 + 2 + 5)
    path.write_text("\n".join(lines) + "\n")
    return path


def test_small_custom_weights(tmp_path):
    p = _tiny_weights(tmp_path / "tiny.weights")
    net = fastbg.gnubg_net(p)
    assert net.weights.arrays[0].shape == (3, kg.WEIGHT_ROWS, 2)     # inputs, then products
    assert net.weights.arrays[5][kg.NET_CRASHED] == 0           # crashed falls back to contact
    boards = game_positions(50, seed=8)
    probs = net(boards)
    assert np.isfinite(probs).all() and (probs >= 0).all() and (probs <= 1).all()
    # The batch kernel's path for nets not 128 wide gives the one-position path's values.
    one = np.empty(5)
    for b, p in zip(boards, probs):
        kg.evaluate_board(b, net.arrays, net.bearoff, kg.new_scratch(), one)
        np.testing.assert_array_equal(p, one)


@pytest.mark.parametrize("kwargs, match", [
    ({"header": "not a weights file"}, "not a GNU Backgammon"),
    ({"contact_inputs": "nosuchinputs"}, "input function"),
    ({"n_in": 200}, "needs 250 inputs"),
])
def test_bad_weights(tmp_path, kwargs, match):
    p = _tiny_weights(tmp_path / "bad.weights", **kwargs)
    with pytest.raises(gnubgnet.WeightsError, match=match):
        gnubgnet.load_weights(p)


def test_cut_short_weights(tmp_path):
    p = _tiny_weights(tmp_path / "short.weights")
    text = p.read_text().split("\n")
    p.write_text("\n".join(text[:-100]))
    with pytest.raises(gnubgnet.WeightsError, match="cut short"):
        gnubgnet.load_weights(p)


def test_bearoff_cache_roundtrip(tmp_path, monkeypatch):
    monkeypatch.setenv("FASTBG_CACHE", str(tmp_path))
    bearoff_mod._load.cache_clear()
    try:
        (tmp_path / f"bearoff-v{bearoff_mod.CACHE_VERSION}.npz").write_bytes(b"garbage")
        data = bearoff_mod._load()               # damaged file: recomputed and rewritten
        assert data["one_sided"].shape == (kbo.N_ONE_SIDED, 32)
        bearoff_mod._load.cache_clear()
        again = bearoff_mod._load()               # read back
        for k in data:
            np.testing.assert_array_equal(data[k], again[k])
    finally:
        bearoff_mod._load.cache_clear()


def test_doc_example_text():
    assert "pip install 'fastbg[gnubg]'" in textwrap.dedent(gnubgnet.INSTALL_HINT)


# ---------------------------------------------------------------- move choice and the bot

def gnubg_choice(board, dice, results):
    """Index in ``results`` of gnubg_nn.best_move's 0-ply choice."""
    _moves, key = gnubg_nn.best_move(_gnubg_rows(board[None]).tolist()[0], dice[0], dice[1],
                                     0, b=1)
    chosen = fastbg.flip(from_gnubg(gnubg_nn.board_from_position_key(key)))
    hit = np.flatnonzero((results == chosen).all(axis=1))
    assert hit.size == 1, (fastbg.position_id(board), dice)
    return int(hit[0])


def test_move_choice_equals_gnubg_best_move(net):
    """Our first best result is gnubg's choice, or scores exactly the same (a tie)."""
    rng = np.random.default_rng(11)
    boards = np.concatenate([game_positions(1500, seed=12), race_positions(300, seed=13),
                             bearoff_positions(300, seed=14), crashed_positions(300, seed=15)])
    compared = ties = 0
    for b in boards:
        dice = tuple(int(d) for d in rng.integers(1, 7, 2))
        results = fastbg.legal_moves(b, dice)
        if len(results) < 2:
            continue
        s = net.scores(results)
        ours, theirs = int(np.argmax(s)), gnubg_choice(b, dice, results)
        compared += 1
        if ours != theirs:
            assert s[theirs] == s[ours], (fastbg.position_id(b), dice, s[ours], s[theirs])
            ties += 1
    assert compared > 1800
    assert ties < 0.15 * compared        # mostly certain wins in bear-offs (equity 1)


def test_scores_are_gnubg_listed_equities(net):
    gb = _gnubg_rows(fastbg.START[None]).tolist()[0]
    *_, listed = gnubg_nn.best_move(gb, 6, 4, 0, list=1)
    results = fastbg.legal_moves(fastbg.START, (6, 4))
    s = net.scores(results)
    for key, _move, _probs, score in listed:
        pos = fastbg.flip(from_gnubg(gnubg_nn.board_from_position_key(key)))
        i = np.flatnonzero((results == pos).all(axis=1))[0]
        assert s[i] == pytest.approx(score, abs=1e-6)     # list mode recomputes in double


def test_bot_in_kernel_equals_evaluator_bot(net):
    """The game kernel's gnubg policy plays exactly as a Python evaluator of net.scores."""
    slow = fastbg.EvaluatorBot(net.scores, name="gnubg-scores")
    fast = fastbg.play(300, ("gnubg", "pubeval"), seed=21)
    ref = fastbg.play(300, (slow, "pubeval"), seed=21)
    for a in ("winner", "kind", "plies", "first"):
        np.testing.assert_array_equal(getattr(fast, a), getattr(ref, a))
    also = fastbg.play(300, (net.bot(), "pubeval"), seed=21)
    np.testing.assert_array_equal(also.plies, fast.plies)
    assert fast.bots == ("gnubg", "pubeval")


def test_bot_matches_and_rollouts(net):
    m = fastbg.play_matches(20, 3, ("gnubg", "random"), seed=2)
    assert m.n_matches == 20
    r = fastbg.rollout(fastbg.START, trials=144, bot="gnubg", seed=3)
    vr = fastbg.rollout(fastbg.START, trials=72, bot="gnubg", seed=3, variance_reduction=True,
                        evaluator=net)
    assert abs(r.equity) < 0.6 and abs(vr.equity) < 0.3


def test_gnubg_nn_bot_still_available():
    res = fastbg.play(20, ("gnubg-nn", "random"), seed=4)
    assert res.bots == ("gnubg-nn", "random")


def test_two_different_nets_play_each_its_own_moves(net, tmp_path):
    """A game kernel holds one set of networks: two sets ("fastbg" against "gnubg") play in
    lock-step, each bot's candidates scored by its own networks, the same games as the
    two nets as EvaluatorBots."""
    other = fastbg.gnubg_net(_tiny_weights(tmp_path / "tiny.weights"))
    both = fastbg.play(20, (net.bot(), other.bot()), seed=3)
    plugged = fastbg.play(20, (fastbg.EvaluatorBot(net.scores_rows, "a"),
                               fastbg.EvaluatorBot(other.scores_rows, "b")), seed=3)
    assert (both.points == plugged.points).all() and (both.plies == plugged.plies).all()


@pytest.mark.slow
def test_pubeval_against_gnubg_20000_games():
    """The published figure for pubeval against GNU Backgammon's 0-ply player: -0.63 +-
    0.03 points per game (cubeless). 20,000 games give a 95% interval of about +-0.018."""
    s = fastbg.play(20000, ("pubeval", "gnubg"), seed=2).summary()
    assert -0.66 <= s["points_per_game"] <= -0.60
    lo, hi = s["points_per_game_ci95"]
    assert lo < -0.63 < hi + 0.03


def test_gnubg_bot_without_weights(monkeypatch):
    monkeypatch.setattr(gnubgnet, "default_weights_path", lambda: None)
    from fastbg.extras import MissingWeights
    with pytest.raises(MissingWeights, match=r"gnubg bot needs .*pip install 'fastbg\[gnubg\]'"):
        fastbg.play(1, ("gnubg", "random"))


def test_probs_kernel_and_cube_strategy(net):
    kern = net.probs_kernel()
    assert net.probs_kernel() is kern
    boards = np.concatenate([game_positions(200, seed=31), bearoff_positions(100, seed=32),
                             race_positions(100, seed=33)])
    out = np.zeros(5)
    want = net(boards)
    for b, w in zip(boards, want):
        kern(b, out)
        np.testing.assert_array_equal(out, w)
    cube = net.cube(0.68)
    assert isinstance(cube, fastbg.JanowskiCube) and cube.x == 0.68
    assert cube.probs is net          # run by the game kernels' own network code
    # tests/test_cubeful_play.py checks its games against the reference; the plug-in's
    # values are the net's (above), and plug-ins in game kernels are checked there too
    # both sides on the net: the one game kernel that test compiles too
    res = fastbg.play(400, ("pubeval", "pubeval"), seed=34, rules=fastbg.MoneyRules(),
                      cube=(cube, fastbg.JanowskiCube(net, x=0.0)))
    s = res.summary()
    assert s["mean_cube"] > 1.0 and s["points_per_game"] > 0.3

# ---- the networks' cube strategies in the game kernels ------------------------------------
# (here, beside the other tests of the in-kernel gnubg games: with --dist loadfile one
# worker then compiles that game kernel, the suite's costliest, for all of them)

def test_gnubg_net_cube_matches_reference(gnubg_net):
    """GnubgNet.cube(): Janowski on GNU Backgammon's networks, run by the game kernels' own
    (disk-cached) network code, replayed by the reference on the net's own evaluations:
    money with beavers and raccoons, and match play at a score."""
    cube = gnubg_net.cube(0.68)
    assert cube.probs is gnubg_net
    rules = MoneyRules(jacoby=False, beavers=True, raccoons=True)
    _, refs = assert_matches_reference(40, rules, (cube, cube), seed=25, opening="reroll")
    assert events(refs, "doubles") > 0 and events(refs, "drops") > 0
    assert events(refs, "beavers") + events(refs, "takes") > 0
    _, refs = assert_matches_reference(25, MatchRules(5), (cube, cube), seed=26,
                                       score=(1, 2), opening="reroll")
    assert events(refs, "doubles") > 0


def test_nply_net_cube_matches_reference(gnubg_net):
    """GnubgNet.cube(ply=1): Janowski on GNU Backgammon's 1-ply probabilities, computed
    between the rounds of lock-step games, replayed by the reference on the same 1-ply
    evaluations (money with beavers; match play at a score, against "race")."""
    cube = gnubg_net.cube(0.68, ply=1)
    assert cube.name == "gnubg-1ply-janowski" and cube.probs.ply == 1
    rules = MoneyRules(jacoby=False, beavers=True, raccoons=True)
    res, refs = assert_matches_reference(12, rules, (cube, cube), seed=27, opening="reroll")
    assert events(refs, "doubles") > 0 and events(refs, "drops") + events(refs, "takes") > 0
    _, refs = assert_matches_reference(8, MatchRules(5), (cube, "race"), seed=28,
                                       score=(2, 1), opening="reroll")
    assert events(refs, "doubles") > 0
    # the 0-ply net cube decides differently somewhere: the ply reaches the decisions
    zero = fastbg.play(12, BOTS, seed=27, rules=rules, cube=(gnubg_net.cube(0.68),) * 2,
                       opening="reroll")
    assert not (np.array_equal(zero.cube, res.cube) and np.array_equal(zero.points, res.points)
                and np.array_equal(zero.plies, res.plies))
    # whole matches with this cube run in lock-step: tests/test_lockstep_matches.py


def test_board_and_summaries_and_class_from_them():
    """The vector load of a row (gnubg's board and both sides' summaries) equals the
    plain conversion and summaries, either side on roll, and the class read from the
    summaries is ClassifyPosition's: on positions of games, bear-offs, races, finished
    games and random boards with checkers on the bar and borne off."""
    from numba import njit
    from fastbg.evaluators import input_kernels as ki

    @njit
    def both(rows, binom, gb_fast, gb_slow, s_fast, s_slow, classes):
        for i in range(rows.shape[0]):
            for sw in range(2):
                swapped = sw == 1
                a0, a1 = kg.board_and_summaries(rows, i, swapped, gb_fast[i, sw])
                b0, b1 = kg._board_and_summaries(rows, i, swapped, gb_slow[i, sw])
                s_fast[i, sw, 0] = np.array(a0)
                s_fast[i, sw, 1] = np.array(a1)
                s_slow[i, sw, 0] = np.array(b0)
                s_slow[i, sw, 1] = np.array(b1)
                classes[i, sw, 0] = kg.classify_from(gb_fast[i, sw], a0, a1, binom)
                classes[i, sw, 1] = kg.classify(gb_slow[i, sw], binom)

    rng = np.random.default_rng(37)
    rows = [game_positions(400, seed=38), bearoff_positions(200, seed=39)]
    finished = game_positions(50, seed=40)
    finished[:, 1:25] = np.maximum(finished[:, 1:25], 0)      # the opponent borne off
    finished[:, 0] = 0
    rows.append(finished)
    rand = np.zeros((400, 26), np.int8)                        # random, bar and off too
    for r in rand:
        for side, sign in ((1, 1), (-1, -1)):
            k = rng.integers(0, 16)
            np.add.at(r, rng.integers(1, 25, k), sign)
            r[25 if side == 1 else 0] = sign * rng.integers(0, 3)
    rows.append(rand)
    rows = np.ascontiguousarray(np.concatenate(rows))
    n = len(rows)
    gb_fast = np.full((n, 2, 2, 25), -7, np.int64)
    gb_slow = np.full((n, 2, 2, 25), -7, np.int64)
    s_fast = np.zeros((n, 2, 2, 7), np.int64)
    s_slow = np.zeros((n, 2, 2, 7), np.int64)
    classes = np.zeros((n, 2, 2), np.int64)
    both(rows, fastbg.gnubg_net().bearoff.binom, gb_fast, gb_slow, s_fast, s_slow, classes)
    np.testing.assert_array_equal(gb_fast, gb_slow)
    np.testing.assert_array_equal(s_fast, s_slow)
    np.testing.assert_array_equal(classes[..., 0], classes[..., 1])
    assert len(np.unique(classes)) >= 5                 # over, bear-offs, race, crashed, contact
    assert ki.BOARD_SIZE == 26
