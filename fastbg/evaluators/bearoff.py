"""Bear-off tables for the gnubg evaluator, computed here by dynamic programming.

:func:`tables` returns the tuple the kernels of :mod:`fastbg.evaluators.net_kernels` take:
``(binomials, one-sided, two-sided, first-checker-off, race backgammon, race backgammon
present, gammon distributions)``; see :mod:`fastbg.evaluators.bearoff_kernels` for what each holds and how it is built.
They take a few seconds to compute, so the result is kept in a cache file
(``$FASTBG_CACHE`` or ``~/.cache/fastbg``) and read back on later runs; a damaged or
foreign file is recomputed.

The one-sided (win and gammon distributions) and two-sided tables equal GNU Backgammon's
``gnubg_os0.bd`` and ``gnubg_ts0.bd`` entry for entry (:func:`read_gnubg_one_sided` and
:func:`read_gnubg_two_sided` read those files, for the tests).
"""
import functools
import os
import threading
from fractions import Fraction
from pathlib import Path

import numpy as np

from fastbg.evaluators import bearoff_kernels as _bo
from fastbg.user_cache import cache_root

CACHE_VERSION = 2           # 2: the gammon distributions
_LOCK = threading.Lock()


def _cache_file():
    return cache_root() / f"bearoff-v{CACHE_VERSION}.npz"


_NAMES = ("one_sided", "two_sided", "gammon", "race_bg", "race_bg_ok", "gammon_dist")
_SHAPES = {"one_sided": (_bo.N_ONE_SIDED, _bo.MAX_ROLLS), "two_sided": (924, 924),
           "gammon": (_bo.N_ONE_SIDED, 4), "race_bg": (924, _bo.RBG_ROLLS), "race_bg_ok": (924,),
           "gammon_dist": (_bo.N_ONE_SIDED - _bo.N_GAMMON_LIMIT, _bo.MAX_ROLLS)}


def compute():
    """Compute the tables (a few seconds). Returns a dict of arrays."""
    binom = _bo.BINOM
    positions = _bo.all_positions(binom)
    one = _bo.one_sided_table(positions, binom)
    succ, count = _bo.successors(positions, _bo.N_TWO_SIDED, binom)
    two = _bo.two_sided_table(succ, count)
    gam = _bo.gammon_table(positions, binom)
    rbg, ok = race_bg_table(positions)
    gdist = _bo.gammon_dist_table(positions, binom)
    return {"one_sided": one, "two_sided": two, "gammon": gam, "race_bg": rbg,
            "race_bg_ok": ok, "gammon_dist": gdist}


@functools.lru_cache(maxsize=1)
def _load():
    with _LOCK:
        path = _cache_file()
        try:
            with np.load(path, allow_pickle=False) as f:
                data = {k: f[k] for k in _NAMES}
            if all(data[k].shape == _SHAPES[k] for k in _NAMES):
                return data
        except (OSError, KeyError, ValueError):
            pass
        data = compute()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f"{path.stem}.{os.getpid()}.tmp.npz")
            np.savez_compressed(tmp, **data)
            os.replace(tmp, path)
        except OSError:
            pass                    # read-only home: recompute next time
        return data


@functools.lru_cache(maxsize=1)
def tables():
    """The kernels' bear-off tables, a :class:`fastbg.evaluators.net_tables.Bearoff`
    (binomials, one-sided int64 (54264, 32), two-sided uint16 (924, 924), first-checker-off
    int64 (54264, 4), race backgammon int64 (924, 5), its presence bool (924,), gammon
    distributions int64 (15504, 32) of the 15-checker positions)."""
    from fastbg.evaluators.net_kernels import Bearoff
    d = _load()
    return Bearoff(_bo.BINOM, d["one_sided"].astype(np.int64),
                   np.ascontiguousarray(d["two_sided"]), d["gammon"].astype(np.int64),
                   d["race_bg"].astype(np.int64), d["race_bg_ok"].astype(np.bool_),
                   d["gammon_dist"].astype(np.int64))


# ---- race backgammon table (exact rational DP, small: 462 positions) ------------------

def _escape_moves(c, d0, d1):
    """Distinct results of playing d0-d1 with checkers c[k] k + 1 pips from leaving the
    zone (any die at least that far takes one out), in GNU Backgammon's move order."""
    found = []
    orders = [(d0,) * 4] if d0 == d1 else [(d0, d1), (d1, d0)]

    def rec(cur, dice, start):
        if not dice or not any(cur):
            key = tuple(cur)
            if key not in found:
                found.append(key)
            return
        d = dice[0]
        for p in range(start, -1, -1):
            if cur[p]:
                nxt = list(cur)
                nxt[p] -= 1
                if p - d >= 0:
                    nxt[p - d] += 1
                rec(nxt, dice[1:], p if d0 == d1 else 4)

    for dice in orders:
        rec(list(c), dice, 4)
    return found


def race_bg_table(positions=None):
    """For up to six checkers within five pips of leaving the opponent's home board: the
    dice sequences (of 36^(j+1)) in which the last leaves on roll j + 1 (j < 4) and, in the
    last entry, on roll 5 or later (of 36^5), leaving as soon as possible on average.
    Returns (table int64 (924, 5) by bear-off index, present bool (924,))."""
    rolls = [(int(a), int(b)) for a, b in _bo.ROLLS]
    memo = {}

    def dist(c):
        if c in memo:
            return memo[c]
        if not any(c):
            memo[c] = ([1], Fraction(0))
            return memo[c]
        acc = []
        for d0, d1 in rolls:
            w = 1 if d0 == d1 else 2
            best = None
            for m in _escape_moves(c, d0, d1):
                dm, mean = dist(m)
                if best is None or mean < best[1]:
                    best = (dm, mean)
            dm = best[0]
            while len(acc) < len(dm) + 1:
                acc.append(0)
            for k, v in enumerate(dm):
                acc[k + 1] += w * v
        mean = sum(Fraction(k * v, 36 ** k) for k, v in enumerate(acc))
        memo[c] = (acc, mean)
        return memo[c]

    table = np.zeros((924, _bo.RBG_ROLLS), np.int64)
    ok = np.zeros(924, np.bool_)
    full = 36 ** _bo.RBG_ROLLS
    for a in range(7):
        for b in range(7 - a):
            for c in range(7 - a - b):
                for d in range(7 - a - b - c):
                    for e in range(7 - a - b - c - d):
                        pos = (a, b, c, d, e)
                        if not any(pos):
                            continue
                        cnt, _ = dist(pos)
                        row = [cnt[k + 1] if k + 1 < len(cnt) else 0 for k in range(4)]
                        done = sum(row[k] * 36 ** (_bo.RBG_ROLLS - 1 - k) for k in range(4))
                        row.append(full - done)
                        idx = _bo.position_index(np.array(pos + (0,), np.int64), _bo.BINOM)
                        table[idx] = row
                        ok[idx] = True
    return table, ok


# ---- GNU Backgammon's files (for comparisons) ------------------------------------------

def read_gnubg_one_sided(path):
    """The win distributions of a gnubg one-sided file (6 points, 15 checkers):
    uint16 (54264, 32), gammon distributions dropped."""
    raw = Path(path).read_bytes()
    header = raw[:40].decode("ascii", "replace")
    if not header.startswith("gnubg-OS-06-15"):
        raise ValueError(f"{path}: not a 6-point one-sided gnubg bear-off file ({header[:20]!r})")
    n = _bo.N_ONE_SIDED
    compressed = header[17] == "1"
    out = np.zeros((n, 32), np.uint16)
    if not compressed:
        gammon = header[15] == "1"
        step = 64 if gammon else 32
        data = np.frombuffer(raw, np.uint16, count=n * step, offset=40).reshape(n, step)
        out[:] = data[:, :32]
        return out
    idx = np.frombuffer(raw, np.uint8, count=8 * n, offset=40).reshape(n, 8).astype(np.int64)
    off = idx[:, 0] | idx[:, 1] << 8 | idx[:, 2] << 16 | idx[:, 3] << 24
    data = np.frombuffer(raw, np.uint16, offset=40 + 8 * n)
    for p in range(n):
        nz, start = idx[p, 4], idx[p, 5]
        out[p, start:start + nz] = data[off[p]:off[p] + nz]
    return out


def read_gnubg_two_sided(path):
    """The cubeless values of a gnubg two-sided file (6 points, 6 checkers): uint16
    (924, 924), ``[side on roll, other side]``."""
    raw = Path(path).read_bytes()
    header = raw[:40].decode("ascii", "replace")
    if not header.startswith("gnubg-TS-06-06"):
        raise ValueError(f"{path}: not a 6x6 two-sided gnubg bear-off file ({header[:20]!r})")
    k = 4 if header[15] == "1" else 1
    data = np.frombuffer(raw, np.uint16, count=924 * 924 * k, offset=40).reshape(924 * 924, k)
    return data[:, 0].reshape(924, 924).copy()
