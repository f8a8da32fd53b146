"""Counter-based random numbers: a pure function of (seed, game, turn, stream).

Every random number a game uses is computed, not drawn from a generator state: the value
for (seed, game, turn, stream) is a hash of those four integers. So a game's dice do not
depend on which thread plays it, on how games are chunked, or on which machine plays a
shard of game indices; the same seed always replays the same games.

Scheme: each key is folded in with a SplitMix64 finaliser (Steele, Lea & Flood 2014),
a bijective mixer with full avalanche:

    h = mix(seed + C);  h = mix(h ^ game);  h = mix(h ^ (turn << 8 | stream))

with 64-bit wrap-around. ``turn`` is the ply index (0 for the first move) and ``stream``
separates the uses of one turn (dice, opening, policy, cube). A die is taken from 32 bits
of the hash as ``1 + (bits * 6) >> 32`` (bias below 2**-29).
"""
import numpy as np
from numba import njit

from fastbg.jit import HOT

STREAM_DICE = 0       # the two dice of a turn
STREAM_OPENING = 1    # the opening roll; ``turn`` counts the re-rolls after ties
STREAM_POLICY = 2     # a bot's own randomness (the random bot's choice)

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_C1 = np.uint64(0xBF58476D1CE4E5B9)
_C2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S32 = np.uint64(32)
_S8 = np.uint64(8)
_LOW32 = np.uint64(0xFFFFFFFF)
_SIX = np.uint64(6)


@njit(**HOT)
def mix64(x):
    """SplitMix64 finaliser: a bijection of uint64 with full avalanche."""
    x = (x ^ (x >> _S30)) * _C1
    x = (x ^ (x >> _S27)) * _C2
    return x ^ (x >> _S31)


# Inlined by numba: its callers pass literal streams and turns, each literal type a
# signature of its own otherwise (6 compiles).
@njit(cache=True, inline="always")
def rand64(seed, game, turn, stream):
    """The 64 random bits for (seed, game, turn, stream); all four are non-negative ints."""
    h = mix64(np.uint64(seed) + _GOLDEN)
    h = mix64(h ^ np.uint64(game))
    return mix64(h ^ ((np.uint64(turn) << _S8) | np.uint64(stream)))


@njit(**HOT)
def die_from_bits(bits32):
    """A die 1..6 from 32 random bits."""
    return np.int64((bits32 * _SIX) >> _S32) + 1


@njit(**HOT)
def roll(seed, game, turn):
    """The two dice of ply ``turn`` of ``game``."""
    r = rand64(seed, game, turn, STREAM_DICE)
    return die_from_bits(r >> _S32), die_from_bits(r & _LOW32)


@njit(**HOT)
def opening_roll(seed, game):
    """The opening roll: each player throws one die, ties throw again (docs/rules.md section 2).

    Returns (first player 0/1, die of player 0, die of player 1, ties before it); the
    number of ties matters for automatic doubles.
    """
    t = 0
    while True:
        r = rand64(seed, game, t, STREAM_OPENING)
        a = die_from_bits(r >> _S32)
        b = die_from_bits(r & _LOW32)
        if a != b:
            return (0 if a > b else 1), a, b, t
        t += 1


@njit(**HOT)
def uniform_index(seed, game, turn, k):
    """An index 0..k-1, uniform, for the random bot's choice at ply ``turn``."""
    r = rand64(seed, game, turn, STREAM_POLICY) >> _S32
    return np.int64((r * np.uint64(k)) >> _S32)
