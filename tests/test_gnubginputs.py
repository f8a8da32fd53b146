"""The fast GNU Backgammon input kernels (fastbg.evaluators.input_kernels and the modules it
builds on) against the slow, obviously correct copy of the original code
(tests/reference/gnubginputs_ref.py).

Every input must be the same float32 bit for bit, the lists of non-zero inputs the same, and
pip_loss the same three floats, on seeded positions of every class: random self-play games,
random boards with piles, blots and checkers on the bar, hand-made edge cases (15 checkers on
one point, 1..15 on the bar, a lone blot at every distance from every hitter, borne-off
checkers) and hypothesis boards. The kernels must also run as plain Python
(NUMBA_DISABLE_JIT=1) with the same results.
"""
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from numba import njit

from fastbg.evaluators import add_row_kernels as A
from fastbg.evaluators import feature_kernels as F
from fastbg.evaluators import input_kernels as G
from fastbg.evaluators import input_tables as T
from fastbg.evaluators import pip_loss_kernels as P
from fastbg.evaluators.net_kernels import to_gnubg
from reference import gnubginputs_ref as R
from strategies import positions, selfplay_positions

ROOT = Path(__file__).resolve().parent.parent
MORE = T.MORE_INPUTS


# ---------------------------------------------------------------- the comparison

def contact_inputs(mod, gb, fill):
    """Contact inputs (base + both halves + men off) of module ``mod`` into an array first
    filled with ``fill`` (so a slot left unwritten shows); returns (inputs, non-zero list,
    pip losses of both sides)."""
    inp = np.full(250, fill, np.float32)
    nz = np.full(250, -1, np.int64)
    scr = gnubg_scratch(mod, 7)
    c = mod.base_inputs(gb, inp, nz)
    mod.half_inputs(gb[1], gb[0], inp, 200, *scr)
    mod.half_inputs(gb[0], gb[1], inp, 200 + MORE, *scr)
    pl = mod.pip_loss(gb[1], gb[0], *scr) + mod.pip_loss(gb[0], gb[1], *scr)
    return inp, nz[:c].copy(), pl


def gnubg_scratch(mod, fill):
    """The hit / roll scratch arrays (hit, rp, rc) the reference's half_inputs and pip_loss
    take, as gnubg's do; the fast kernels take none (their counts come from bitmasks)."""
    if mod is not R:
        return ()
    return (np.full(39, fill, np.int64), np.full(21, fill, np.int64),
            np.full(21, fill, np.int64))


def all_contact_inputs(mod, gb, fill, contact250):
    """The contact nets' 250 inputs and non-zero list: ``mod.contact_inputs``, or for the
    reference the composition the network inputs were first made of (base, both halves, the
    contact250 men-off inputs, then the non-zero half inputs)."""
    inp = np.full(250, fill, np.float32)
    nz = np.full(250, -1, np.int64)
    if hasattr(mod, "contact_inputs"):
        c = mod.contact_inputs(gb, inp, nz, contact250)
        return inp, nz[:c].copy()
    hit, rp, rc = np.zeros(39, np.int64), np.zeros(21, np.int64), np.zeros(21, np.int64)
    c = mod.base_inputs(gb, inp, nz)
    mod.half_inputs(gb[1], gb[0], inp, 200, hit, rp, rc)
    mod.half_inputs(gb[0], gb[1], inp, 200 + MORE, hit, rp, rc)
    if contact250:
        mod._men_off_contact(gb[0], inp, 200 + T.I_OFF1)
        mod._men_off_contact(gb[1], inp, 200 + MORE + T.I_OFF1)
    for i in range(200, 250):
        if inp[i] != 0.0:
            nz[c] = i
            c += 1
    return inp, nz[:c].copy()


def race_inputs(mod, gb, fill):
    inp = np.full(250, fill, np.float32)
    nz = np.full(250, -1, np.int64)
    c = mod.race_inputs(gb, inp, nz)
    return inp[:214], nz[:c].copy()


def mismatch(gb, mods=(G, R)):
    """None when the fast and the reference kernels agree on gnubg board ``gb``, else a
    description of the first difference."""
    fast, ref = mods
    if gb[0].sum() and gb[1].sum():           # inputs are never asked of a finished game
        a, na, pa = contact_inputs(fast, gb, -3.0)
        b, nb, pb = contact_inputs(ref, gb, 5.0)
        bad = np.nonzero(a.view(np.int32) != b.view(np.int32))[0]
        if len(bad):
            return f"contact inputs {bad.tolist()}: {a[bad]} vs {b[bad]} for {gb.tolist()}"
        if not np.array_equal(na, nb):
            return f"non-zero lists {na.tolist()} vs {nb.tolist()} for {gb.tolist()}"
        if pa != pb or not all(type(x) is type(y) for x, y in zip(pa, pb)):
            return f"pip_loss {pa} vs {pb} for {gb.tolist()}"
        for s in range(2):
            if fast.made_mask(gb[s]) != ref.made_mask(gb[s]):
                return f"made_mask of {gb[s].tolist()}"
        for contact250 in (False, True):
            a, na = all_contact_inputs(fast, gb, -3.0, contact250)
            b, nb = all_contact_inputs(ref, gb, 5.0, contact250)
            bad = np.nonzero(a.view(np.int32) != b.view(np.int32))[0]
            if len(bad) or not np.array_equal(na, nb):
                return (f"contact_inputs({contact250}) {bad.tolist()} {na.tolist()} vs "
                        f"{nb.tolist()} for {gb.tolist()}")
    a, na = race_inputs(fast, gb, -3.0)
    b, nb = race_inputs(ref, gb, 5.0)
    bad = np.nonzero(a.view(np.int32) != b.view(np.int32))[0]
    if len(bad):
        return f"race inputs {bad.tolist()}: {a[bad]} vs {b[bad]} for {gb.tolist()}"
    if not np.array_equal(na, nb):
        return f"race non-zero lists {na.tolist()} vs {nb.tolist()} for {gb.tolist()}"
    return None


def decode_add(row, race, contact250=False, layout=None):
    """(input index, input value) that extended weight row ``row`` stands for
    (:func:`fastbg.evaluators.add_row_kernels.extended_weights`: an input's own row is the
    input 1, a product row a point's (n - 3) / 2, the race's crossings / 10 or a
    feature's value by its code in ``layout``, default the compiled one)."""
    lay = layout or A.LAYOUT
    half = T.RACE_HALF if race else 100
    if row < A.PRODUCT_ROW0:
        return row, np.float32(1.0)
    if row >= A.FEATURE_ROW0:
        assert not race
        j = int(np.flatnonzero((lay.row >= 0) & (lay.row <= row))[-1])
        f = j % MORE
        code = row - lay.row[j]
        assert code < lay.codes[f][0]
        return T.BASE_INPUTS + j, A.feature_value(f, code, contact250)
    if row < A.CROSS_ROW0:
        slot, n = divmod(row - A.PRODUCT_ROW0, A.N_COUNTS)
        side, point = divmod(slot, 25)
        assert n > 3 and (point < 23 or not race)
        return half * side + 4 * point + 3, T.POINT_ENC[n, 3]
    assert race
    side, c = divmod(row - A.CROSS_ROW0, A.MAX_CROSSINGS + 1)
    return T.RACE_HALF * side + T.RI_NCROSS, np.float32(c / 10.0)


def adds_mismatch(gb, contact250=False):
    """None when the lists of rows added without a multiply (base_adds, race_adds and
    race_adds_occupied) stand for exactly the non-zero inputs of base_inputs / race_inputs
    in order, and
    contact_features gives contact_inputs' features and their non-zero list; else what
    differs."""
    adds = np.full(A.MAX_ADDS, -1, np.int64)
    race_want = race_inputs(G, gb, 0.0)
    checks = [(A.race_adds, race_want, True), (A.race_adds_occupied, race_want, True)]
    if gb[0].sum() and gb[1].sum():
        inp = np.zeros(250, np.float32)
        nz = np.zeros(250, np.int64)
        c = G.base_inputs(gb, inp, nz)
        checks.append((A.base_adds, (inp, nz[:c]), False))
        want, want_nz = all_contact_inputs(G, gb, 0.0, contact250)
        feats = np.full(250, 7.0, np.float32)
        fnz = np.full(250, -1, np.int64)
        k = G.contact_features(gb, feats, fnz, contact250)
        got = [decode_add(e, False, contact250) if e >= A.N_CONTACT_INPUTS else (e, feats[e])
               for e in fnz[:k]]
        if not (np.array_equal(feats[200:].view(np.int32), want[200:].view(np.int32))
                and [i for i, _ in got] == want_nz[want_nz >= 200].tolist()
                and all(np.float32(x).view(np.int32) == want[i].view(np.int32)
                        for i, x in got)):
            return f"contact_features({contact250}) {fnz[:k].tolist()} for {gb.tolist()}"
    for kernel, (inp, nz), race in checks:
        occ = [int(sum(1 << i for i in range(25) if gb[s, i] > 0)) for s in range(2)]
        adds[:] = -1
        if kernel is A.race_adds:
            n = kernel(gb, adds)
        else:
            n = kernel(gb, occ[0], occ[1], adds)
        got = [decode_add(r, race) for r in adds[:n]]
        want = [(int(i), inp[i]) for i in nz]
        if [(i, float(x)) for i, x in got] != [(i, float(x)) for i, x in want]:
            return f"{kernel.__name__} {adds[:n].tolist()} for {gb.tolist()}"
    return None


def check_all(gbs):
    for gb in gbs:
        msg = mismatch(gb) or adds_mismatch(gb) or adds_mismatch(gb, True)
        assert msg is None, msg


def gnubg_board(board):
    gb = np.zeros((2, 25), np.int64)
    to_gnubg(np.asarray(board, np.int8), gb)
    return gb


# ---------------------------------------------------------------- positions

def game_boards(n, seed):
    """gnubg boards of every position of seeded random self-play games (all classes)."""
    return [gnubg_board(b) for b in selfplay_positions(n, seed)]


def random_boards(n, seed):
    """Random legal gnubg boards: piles, spread blots, crowded bars, borne-off checkers."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        gb = np.zeros((2, 25), np.int64)
        for s in (1, 0):
            count = 15 if rng.random() < 0.4 else int(rng.integers(1, 16))
            free = [i for i in range(24) if gb[1 - s, 23 - i] == 0] + [24]
            style = rng.integers(4)
            if style == 0:                      # anywhere
                pts = rng.choice(free, count)
            elif style == 1:                    # a few piles
                pts = rng.choice(rng.choice(free, min(len(free), int(rng.integers(1, 4)))),
                                 count)
            elif style == 2:                    # blots: distinct points where possible
                pts = rng.choice(free, count, replace=count > len(free))
            else:                               # the bar and the back
                w = np.array([3.0 if p == 24 else (1.0 + p / 8) for p in free])
                pts = rng.choice(free, count, p=w / w.sum())
            np.add.at(gb[s], pts, 1)
        if rng.random() < 0.5:
            gb = gb[::-1].copy()
        out.append(gb)
    return out


def edge_boards():
    """Hand-made cases."""
    out = []
    spread = [2, 0, 2, 0, 2, 2, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    for p in range(25):                         # 15 on one point, each side
        for s in range(2):
            gb = np.zeros((2, 25), np.int64)
            gb[s, p] = 15
            for i in range(24):
                if gb[s, 23 - i] == 0:
                    gb[1 - s, i] = spread[i]
            gb[1 - s, 24] = 15 - gb[1 - s].sum()
            out.append(gb)
    for bar in (1, 2, 3, 4, 15):                # checkers on the bar against every home board
        for home in range(64):
            for back in (0, 1):
                gb = np.zeros((2, 25), np.int64)
                gb[1, 24] = bar
                rest = 15 - bar
                for i in range(6):
                    if home >> i & 1:
                        gb[0, i] = 2
                gb[0, 12] = 15 - gb[0].sum() - back
                gb[0, 20] = back                # an opponent blot in our home board
                if rest:
                    gb[1, 23] += min(rest, 2 if back else 0)
                    gb[1, 5] = rest - gb[1, 23]
                out.append(gb)
                out.append(gb[::-1].copy())
    rng = np.random.default_rng(5)
    for blot in range(24):                      # one opponent blot (our numbering), one
        for hitter in range(25):                # hitter, at every distance
            if hitter == blot:
                continue
            for made in range(4):
                gb = np.zeros((2, 25), np.int64)
                gb[0, 23 - blot] = 1
                gb[1, hitter] = 1
                if made:                        # opponent points in between, home boards
                    for i in rng.choice(24, 6):
                        if gb[1, 23 - i] == 0 and gb[0, i] == 0:
                            gb[0, i] = 2
                    for i in range(6 if made >= 2 else 2):
                        if gb[0, 23 - i] == 0:
                            gb[1, i] += 2
                if made == 3:                   # a second blot: double hits
                    i = int(rng.integers(24))
                    if gb[1, 23 - i] == 0 and gb[0, i] == 0:
                        gb[0, i] = 1
                out.append(gb)
    for n in range(1, 15):                      # borne-off checkers, no blots
        gb = np.zeros((2, 25), np.int64)
        gb[1, 0] = n
        gb[0, 18] = 2
        gb[0, 0] = 13
        out.append(gb)
        out.append(gb[::-1].copy())
    return out


# ---------------------------------------------------------------- tests

def test_game_positions():
    check_all(game_boards(3000, 11))


def test_random_boards():
    check_all(random_boards(6000, 12))


def test_edge_cases():
    boards = edge_boards()
    assert len(boards) > 1500
    check_all(boards)


@settings(max_examples=300, deadline=None)
@given(positions())
def test_hypothesis_boards(board):
    gb = gnubg_board(board)
    msg = mismatch(gb) or adds_mismatch(gb) or adds_mismatch(gb, True)
    assert msg is None, msg


@njit
def rolls_both_ways(masks, fast, slow, bar1):
    """Each row (hitters, blots, open, oblots, made or, with ``bar1``, their made points)
    through the rolls' vector lanes and through the loops they replace."""
    for r in range(masks.shape[0]):
        h, b, o, ob, m = masks[r]
        if bar1:
            fast[r] = P.rolls_bar1_lanes(h, b, o, ob, m)
            slow[r] = P._rolls_bar1(h, b, o, ob, m)
        else:
            fast[r] = P.rolls_no_bar_lanes(h, b, o, ob, m)
            slow[r] = P._rolls_no_bar(h, b, o, ob, m)


def check_rolls(both, seed):
    """``both(masks, fast, slow)`` fills fast and slow (n, 3) from rows of masks (hitters,
    blots, open, oblots, made) two ways; they must agree on masks of the board's widths
    (hitters 25 bits with the bar, the others 24), dense or sparse."""
    rng = np.random.default_rng(seed)
    n = 20_000
    density = rng.random((n, 1))
    bits = lambda w: (rng.random((n, w)) < density) @ (1 << np.arange(w))   # noqa: E731
    masks = np.stack([bits(25), bits(24), bits(24), bits(24), bits(24)], axis=1)
    masks = masks.astype(np.int64)
    fast = np.zeros((n, 3), np.int64)
    slow = np.zeros((n, 3), np.int64)
    both(masks, fast, slow)
    assert (slow[:, 0] > 0).mean() > 0.5            # most masks have something to hit
    np.testing.assert_array_equal(fast, slow)


@pytest.mark.parametrize("bar1", [False, True])
def test_rolls_lanes_equal_the_loops(bar1):
    """The pip loss's rolls as 32-bit vector lanes give the loops' integers for any masks
    of the board's widths, dense or sparse, with nobody or one checker of ours on the
    bar."""
    check_rolls(lambda masks, fast, slow: rolls_both_ways(masks, fast, slow, bar1), 17 + bar1)


LAYOUTS = {"products": A.PRODUCTS_LAYOUT, "multiplied": A.MULTIPLIED_LAYOUT}


@pytest.mark.parametrize("layout", LAYOUTS)
def test_extended_weights_are_the_products(layout):
    """Each product row is its input's weights times the input's value in float32, as the
    kernels multiply; the input rows are the weights themselves. Both feature layouts
    (with the features' product rows, as AVX-512 CPUs compile, and without)."""
    lay = LAYOUTS[layout]
    assert lay.weight_rows == A.FEATURE_ROW0 + 2 * sum(v[0] for v in lay.codes.values())
    assert (len(lay.codes) == len(A.FEATURE_PRODUCT_CODES)) == (layout == "products")
    rng = np.random.default_rng(3)
    for race, n_in in ((False, 250), (True, 214)):
        w = rng.normal(0, 1, (n_in, 16)).astype(np.float32)
        ext = A.extended_weights(w, race, layout=lay)
        assert ext.shape == (lay.weight_rows, 16) and ext.dtype == np.float32
        np.testing.assert_array_equal(ext[:n_in], w)
        used = np.zeros(lay.weight_rows, bool)
        used[:n_in] = True
        for row in range(A.PRODUCT_ROW0, lay.weight_rows):
            slot, n = divmod(row - A.PRODUCT_ROW0, A.N_COUNTS)
            if (row < A.CROSS_ROW0 and n > 3 and (slot % 25 < 23 or not race)) or (
                    race and A.CROSS_ROW0 <= row < A.FEATURE_ROW0) or (
                    not race and row >= A.FEATURE_ROW0):
                i, x = decode_add(row, race, layout=lay)
                np.testing.assert_array_equal(ext[row].view(np.int32),
                                              (w[i] * x).view(np.int32))
                used[row] = True
        assert not ext[~used].any()
    if layout == "products":
        # the contact net's inputs count the borne-off checkers on another scale
        w = rng.normal(0, 1, (250, 16)).astype(np.float32)
        ext = A.extended_weights(w, False, True, layout=lay)
        j = T.MORE_INPUTS + T.I_OFF3
        for code in range(16):
            want = w[T.BASE_INPUTS + j] * np.float32(code / 3.0)
            np.testing.assert_array_equal(ext[lay.row[j] + code], want)


def test_the_compiled_layout_follows_the_cpu():
    """The features' product rows where the kernels compile for AVX-512, else none; the
    module's tables and the nets' weights are that layout's."""
    from fastbg.evaluators import cpu_variants as V
    assert A.LAYOUT is (A.PRODUCTS_LAYOUT if V.FEATURE_PRODUCTS else A.MULTIPLIED_LAYOUT)
    assert V.FEATURE_PRODUCTS == V.HAS_AVX512
    assert A.WEIGHT_ROWS == A.LAYOUT.weight_rows
    assert A.FEATURE_ROW is A.LAYOUT.row


def test_feature_codes_round_trip():
    """Each feature value of a code gives that code back (the kernels read a feature's
    product row from its float32 value), on both borne-off scales."""
    lay = A.PRODUCTS_LAYOUT
    for contact250 in (False, True):
        scale = lay.scale[int(contact250)]
        for j in np.flatnonzero(lay.row >= 0):
            f = j % MORE
            for code in range(lay.codes[f][0]):
                x = A.feature_value(f - lay.codes[f][3], code, contact250)
                got = int(np.float32(np.float32(x * scale[j]) + lay.offset[j]))
                assert got == code, (f, code, contact250)


def test_a_wrong_kernel_is_caught():
    """The comparison notices one input off by one float32 step and a pip loss off."""
    class Off:
        base_inputs = staticmethod(G.base_inputs)
        race_inputs = staticmethod(G.race_inputs)
        made_mask = staticmethod(G.made_mask)
        pip_loss = staticmethod(G.pip_loss)

        @staticmethod
        def half_inputs(board, opp, inp, o):
            G.half_inputs(board, opp, inp, o)
            inp[o + T.I_MOBILITY] = np.nextafter(inp[o + T.I_MOBILITY], np.float32(9))

    gb = game_boards(20, 3)[-1]
    assert mismatch(gb) is None
    assert "contact inputs" in mismatch(gb, (Off, R))

    class OffPip(Off):
        half_inputs = staticmethod(G.half_inputs)

        @staticmethod
        def pip_loss(board, opp):
            a, b, c = G.pip_loss(board, opp)
            return a, b, c + 1.0

    assert "pip_loss" in mismatch(gb, (OffPip, R))

    class OffList(OffPip):
        pip_loss = staticmethod(G.pip_loss)

        @staticmethod
        def contact_inputs(gb, inp, nz, contact250):
            return G.contact_inputs(gb, inp, nz, contact250) - 1

    assert "contact_inputs" in mismatch(gb, (OffList, R))


NOJIT_SCRIPT = r"""
import sys
import numpy as np
import numba
assert numba.config.DISABLE_JIT
from test_gnubginputs import all_contact_inputs, contact_inputs, random_boards, race_inputs
from fastbg.evaluators import input_kernels as G
out = []
for gb in random_boards(150, 21):
    inp, nz, pl = contact_inputs(G, gb, 0.0)
    rinp, rnz = race_inputs(G, gb, 0.0)
    cinp, cnz = all_contact_inputs(G, gb, 0.0, True)
    out.append(np.concatenate([inp.view(np.int32), nz, np.array(pl).view(np.int64),
                               rinp.view(np.int32), rnz, cinp.view(np.int32), cnz]))
np.save(sys.argv[1] + "/nojit.npy", np.concatenate(out))
"""


def test_kernels_run_without_jit(nojit):
    """Plain Python (NUMBA_DISABLE_JIT=1, tests/conftest.py) gives the reference's numbers too."""
    assert nojit.returncode == 0, nojit.stdout[-3000:]
    f = nojit.dir / "nojit.npy"
    want = []
    for gb in random_boards(150, 21):
        inp, nz, pl = contact_inputs(R, gb, 0.0)
        rinp, rnz = race_inputs(R, gb, 0.0)
        cinp, cnz = all_contact_inputs(R, gb, 0.0, True)
        want.append(np.concatenate([inp.view(np.int32), nz, np.array(pl).view(np.int64),
                                    rinp.view(np.int32), rnz, cinp.view(np.int32), cnz]))
    np.testing.assert_array_equal(np.load(f), np.concatenate(want))


@pytest.mark.parametrize("fn", ["base_inputs", "race_inputs", "half_inputs", "pip_loss",
                                "made_mask", "_men_off_contact", "contact_inputs"])
def test_public_kernels_kept(fn):
    """gnubgnet and the tools call these by name."""
    assert callable(getattr(G, fn))


def test_feature_reciprocals_equal_divisions():
    """The features multiply by reciprocals where gnubg divides: for every integer
    numerator in a range far beyond any feature's, the float32 input is the same."""
    x = np.arange(-20_000, 200_001, dtype=np.float64)
    for d, inv in T.FEATURE_RECIPROCALS:
        assert inv == 1.0 / d
        np.testing.assert_array_equal((x * inv).astype(np.float32), (x / d).astype(np.float32))


def test_small_divisions_by_multiply():
    """The features' integer divisions by 1..15 (a mean point, a moment) are multiplies:
    exact for every numerator below the limit, and the limit is above any feature's
    (15 checkers x 24 points, 15 x 24^2 + 14)."""
    assert T.DIV_SMALL_LIMIT > 15 * 24 * 24 + 14
    x = np.arange(T.DIV_SMALL_LIMIT, dtype=np.int64)
    for d in range(1, 16):
        np.testing.assert_array_equal((x * T.DIV_SMALL[d]) >> 32, x // d)


@njit
def timing_both_ways(boards, nobs, means, fast, slow):
    """Each board's timing sums through the 32-bit vector lanes and through the loop."""
    for r in range(boards.shape[0]):
        fast[r] = F.timing_sums_lanes(boards[r], nobs[r], means[r])
        slow[r] = F._timing_sums(boards[r], nobs[r], means[r])


def side_boards(n, rng):
    """n sides of 0..15 checkers on points 0..24 (bar included): spread out or stacked,
    and every point with all fifteen."""
    counts = rng.integers(0, 16, n)
    spread = rng.dirichlet(np.full(25, 0.3), n) if n else np.zeros((0, 25))
    boards = np.array([rng.multinomial(k, p) for k, p in zip(counts, spread)], np.int64)
    boards[:25] = 15 * np.eye(25, dtype=np.int64)
    assert boards.sum(axis=1).max() == 15
    return boards


def test_timing_lanes_equal_the_loop():
    """The timing features' point sums as vector lanes give the loop's six integers for
    sides of up to 15 checkers (bar included; the lanes are 16 bits, which every sum of
    a real side fits), any rearmost opponent checker (-1..23) and mean point; rows of a
    C board and strided columns alike."""
    rng = np.random.default_rng(23)
    n = 20_000
    boards = side_boards(n, rng)
    nobs = rng.integers(-1, 24, n)
    means = rng.integers(0, 25, n)
    means[:25] = 0                   # all fifteen on each point, beyond the lowest mean
    fast = np.zeros((n, 6), np.int64)
    slow = np.zeros((n, 6), np.int64)
    timing_both_ways(boards, nobs, means, fast, slow)
    assert slow[:, 3].max() > 1000 and (slow[:, 0] > 0).mean() > 0.5
    np.testing.assert_array_equal(fast, slow)
    strided = np.asfortranarray(boards)          # rows with a stride: the lane-by-lane load
    timing_both_ways(strided, nobs, means, fast, slow)
    np.testing.assert_array_equal(fast, slow)


@njit
def point_adds_both_ways(gbs, fast, slow, counts):
    """Each board's point add rows, both sides, through the vector lanes and the loop."""
    for r in range(gbs.shape[0]):
        c = np.uint64(3)                      # after some rows already listed
        d = np.uint64(3)
        for s in range(2):
            c = A.point_adds_lanes(gbs[r], s, fast[r], c)
            d = A._point_adds(gbs[r], s, slow[r], d)
        counts[r, 0] = c
        counts[r, 1] = d


def test_point_adds_lanes_equal_the_loop():
    """The base inputs' add rows of the 24 points by vector lanes are the loop's, in the
    same order and number, for 0..15 checkers on any point of either side."""
    rng = np.random.default_rng(29)
    n = 5_000
    gbs = (rng.integers(0, 16, (n, 2, 25)) * (rng.random((n, 2, 25)) < rng.random((n, 1, 1))))
    gbs = gbs.astype(np.int64)
    fast = np.full((n, 128), -1, np.int64)
    slow = np.full((n, 128), -1, np.int64)
    counts = np.zeros((n, 2), np.int64)
    point_adds_both_ways(gbs, fast, slow, counts)
    assert (counts[:, 1] > 60).any() and (counts[:, 1] < 10).any()
    np.testing.assert_array_equal(counts[:, 0], counts[:, 1])
    for r in range(n):                       # rows past the count are scratch
        np.testing.assert_array_equal(fast[r, :counts[r, 0]], slow[r, :counts[r, 1]])
