"""The counter-based dice (fastbg/dice.py) against the pure-Python reference of its
documented scheme (tests/reference/game.py), and sanity of their distribution.

The kernel functions are called with numpy-typed arguments (uint64 seed, int64 counters), as
the game kernel passes them.
"""
import numpy as np

from fastbg import dice as kd
from reference import game as ref

MAX64 = 2**64 - 1
MAX63 = 2**63 - 1

SEEDS = [0, 1, 2, 7, 12345, 2**31 - 1, 2**32, 2**32 + 1, 2**63 - 1, 2**63, MAX64 - 1, MAX64,
         0x9E3779B97F4A7C15, (MAX64 - 0x9E3779B97F4A7C15) + 1]
GAMES = [0, 1, 2, 3, 999, 2**20 + 7, 2**32 - 1, 2**40 + 3, 2**62, MAX63 - 1, MAX63]
TURNS = [0, 1, 2, 5, 63, 255, 256, 9999]


def _k(seed, game, turn=0, stream=0):
    return np.uint64(seed), np.int64(game), np.int64(turn), np.int64(stream)


def _keys(n, seed=20240601):
    """Random (seed, game, turn, stream) keys over the whole range, seeded."""
    rng = np.random.default_rng(seed)
    seeds = [int(x) for x in rng.integers(0, MAX64, n, dtype=np.uint64, endpoint=True)]
    games = [int(x) for x in rng.integers(0, MAX63, n, dtype=np.int64, endpoint=True)]
    turns = [int(x) for x in rng.integers(0, 10_000, n)]
    streams = [int(x) for x in rng.integers(0, 4, n)]
    return list(zip(seeds, games, turns, streams))


def test_reference_mix_is_splitmix64_finaliser():
    # Known SplitMix64 outputs: the generator's first value from state 0 is
    # mix(0 + golden) = 0xE220A8397B1DCDAF (Steele, Lea & Flood; Vigna's splitmix64.c).
    assert ref.mix64(0x9E3779B97F4A7C15) == 0xE220A8397B1DCDAF
    assert ref.mix64((2 * 0x9E3779B97F4A7C15) & ref.MASK64) == 0x6E789E6AA1B965F4
    assert ref.mix64(0) == 0


def test_mix64_equals_reference():
    values = [0, 1, 2, 255, 2**32 - 1, 2**32, MAX63, 2**63, MAX64] + [k[0] for k in _keys(200)]
    for x in values:
        assert int(kd.mix64(np.uint64(x))) == ref.mix64(x), x


def test_rand64_equals_reference_on_edges():
    for seed in SEEDS:
        for game in GAMES:
            for turn in TURNS[:4]:
                for stream in range(4):
                    got = int(kd.rand64(*_k(seed, game, turn, stream)))
                    assert got == ref.rand64(seed, game, turn, stream), (seed, game, turn, stream)


def test_rand64_equals_reference_random_keys():
    for key in _keys(3000):
        assert int(kd.rand64(*_k(*key))) == ref.rand64(*key), key


def test_rand64_keys_are_separated():
    # Each of the four key parts changes the bits (no accidental aliasing of turn and stream).
    base = ref.rand64(5, 6, 7, 0)
    others = {ref.rand64(6, 6, 7, 0), ref.rand64(5, 7, 7, 0), ref.rand64(5, 6, 8, 0),
              ref.rand64(5, 6, 7, 1), ref.rand64(5, 6, 7, 2), ref.rand64(5, 6, 7, 3)}
    assert base not in others and len(others) == 6
    assert int(kd.rand64(*_k(5, 6, 7, 1))) != int(kd.rand64(*_k(5, 6, 7, 0)))


def _kroll(seed, game, turn):
    return tuple(int(d) for d in kd.roll(np.uint64(seed), np.int64(game), np.int64(turn)))


def test_roll_equals_reference():
    for seed in SEEDS:
        for game in GAMES:
            for turn in TURNS:
                assert _kroll(seed, game, turn) == ref.roll(seed, game, turn), (seed, game, turn)
    for seed, game, turn, _ in _keys(3000, seed=7):
        assert _kroll(seed, game, turn) == ref.roll(seed, game, turn), (seed, game, turn)


def test_die_from_bits_edges():
    for bits, face in [(0, 1), (2**32 - 1, 6), ((2**32) // 6 - 1, 1), (-(-(2**32) // 6), 2),
                       (2**31, 4), (2**31 - 1, 3)]:
        assert ref.die(bits) == face
        assert int(kd.die_from_bits(np.uint64(bits))) == face, bits


def test_opening_roll_equals_reference():
    for seed in SEEDS:
        for game in GAMES + list(range(200)):
            got = tuple(int(x) for x in kd.opening_roll(np.uint64(seed), np.int64(game)))
            assert got == ref.opening_roll(seed, game), (seed, game)


def test_uniform_index_equals_reference():
    for i, (seed, game, turn, _) in enumerate(_keys(2000, seed=11)):
        k = 1 + i % 60 if i % 3 else 1 + (i * 7919) % 3060
        got = int(kd.uniform_index(np.uint64(seed), np.int64(game), np.int64(turn), np.int64(k)))
        assert got == ref.uniform_index(seed, game, turn, k)
        assert 0 <= got < k


def _kernel_rolls(seed, n_games, turns):
    return np.array([[kd.roll(np.uint64(seed), np.int64(g), np.int64(t)) for t in range(turns)]
                     for g in range(n_games)], np.int64).reshape(-1, 2)


def test_die_frequencies():
    rolls = _kernel_rolls(2024, 1000, 30)            # 30,000 rolls, 60,000 dice
    dice = rolls.ravel()
    counts = np.bincount(dice, minlength=7)[1:]
    assert counts.sum() == 60_000 and dice.min() == 1 and dice.max() == 6
    expected = 10_000
    # sd of one face count is about 91: six sigma is generous
    assert np.all(np.abs(counts - expected) < 600), counts
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    assert chi2 < 30, chi2                             # 5 dof: P(chi2 > 30) ~ 1.5e-5
    # the pair: all 36 ordered outcomes, doubles about 1/6
    pairs = np.bincount((rolls[:, 0] - 1) * 6 + rolls[:, 1] - 1, minlength=36)
    exp_pair = rolls.shape[0] / 36
    chi2_pairs = float(((pairs - exp_pair) ** 2 / exp_pair).sum())
    assert chi2_pairs < 80, chi2_pairs                 # 35 dof: P(chi2 > 80) ~ 2e-5
    doubles = np.mean(rolls[:, 0] == rolls[:, 1])
    assert abs(doubles - 1 / 6) < 0.015, doubles


def test_die_frequencies_large_seed_and_games():
    rolls = np.array([kd.roll(np.uint64(MAX64), np.int64(MAX63 - g), np.int64(3))
                      for g in range(12_000)], np.int64)
    counts = np.bincount(rolls.ravel(), minlength=7)[1:]
    assert np.all(np.abs(counts - 4000) < 400), counts


def test_consecutive_turns_not_correlated():
    rolls = _kernel_rolls(99, 2000, 10).reshape(2000, 10, 2)
    a = rolls[:, :-1, 0].ravel().astype(float)
    b = rolls[:, 1:, 0].ravel().astype(float)
    assert abs(np.corrcoef(a, b)[0, 1]) < 0.03
    assert abs(np.corrcoef(rolls[..., 0].ravel(), rolls[..., 1].ravel())[0, 1]) < 0.03


def test_opening_roll_never_ties_and_first_is_fair():
    n = 20_000
    firsts = np.empty(n, np.int64)
    ties = np.empty(n, np.int64)
    pairs = np.zeros((7, 7), np.int64)
    for g in range(n):
        first, a, b, t = (int(x) for x in kd.opening_roll(np.uint64(31337), np.int64(g)))
        assert a != b and 1 <= a <= 6 and 1 <= b <= 6
        assert first == (0 if a > b else 1)
        firsts[g], ties[g] = first, t
        pairs[a, b] += 1
    assert abs(firsts.mean() - 0.5) < 0.02, firsts.mean()
    # each of the 30 non-tie pairs about 1/30
    off_diag = pairs[1:, 1:][~np.eye(6, dtype=bool)]
    assert np.all(np.abs(off_diag - n / 30) < 200), off_diag
    # ties before the opening: geometric with P(tie) = 1/6, mean 1/5
    assert abs(ties.mean() - 0.2) < 0.02, ties.mean()
    assert ties.max() >= 2

