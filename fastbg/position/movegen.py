"""Legal-move generation: every distinct position one roll can produce.

Layout: the interchange board of :mod:`fastbg.constants` (``int8[26]``, mover positive,
mover's bar at 25, opponent's bar at 0). The mover moves from high to low points.

Technique (each piece checked against GNU Backgammon's results in tests/test_movegen.py):

* Bitmasks. ``own`` has bit p set when the mover has a checker on p (1..25, 25 = bar);
  ``blocked`` has bit p set when the opponent holds p (two or more). ``blocked`` cannot
  change during the mover's turn (a hit only ever removes a lone checker), so it is
  computed once per position; ``own`` is updated on every make/undo.
* Make/undo on one working board instead of copying boards.
* Doubles: moves are enumerated with non-increasing source points. Any legal sequence of
  equal steps can be reordered that way and stay legal, and two different multisets of
  sources give different positions, so this order visits each result exactly once and
  needs no dedupe.
* Non-doubles: both die orders are enumerated and duplicates removed by a small open-
  addressing hash table cleared by a generation stamp rather than by zeroing. The hash is
  linear in the board (sum of entry x random key), so each step updates it in O(1); a
  hash hit is confirmed by comparing the whole board. Measured on the perft non-double
  pairs: 295 ns a pair against 380 ns when hashing the board's four 64-bit words after
  each candidate (reading back bytes just written stalls).
"""
import numpy as np
from numba import njit

from fastbg.position.bits import copy_row, lowest_bit
from fastbg.jit import HOT, INNER
# Board offsets and bounds: module-level ints, which numba freezes as constants.
from fastbg.constants import BAR, BOARD_SIZE, HOME_TOP, MAX_RESULTS


HASH_BITS = 10          # 1,024 slots: a non-double has at most 2 x 15 x 15 = 450 sequences
HASH_SIZE = 1 << HASH_BITS
HASH_MASK = HASH_SIZE - 1

# Layout of the int64 stack scratch: the doubles search (see _generate_doubles) uses
# entries 0.._SWAP-1; the non-doubles keep one bitmask per point from _SWAP on.
_OWN, _SRC, _HIT, _SWAP = 5, 9, 13, 17
STACK_SIZE = _SWAP + BOARD_SIZE

# One random 64-bit key per board entry for the linear position hash (fixed seed: the
# hash only has to be the same within one call).
_KEYS = np.random.default_rng(20261130).integers(0, 2**63, BOARD_SIZE, dtype=np.uint64)
_SHIFT = np.uint64(64 - HASH_BITS)


@njit(**HOT)
def board_hash(b):
    """Linear hash of an interchange board: sum of b[i] * key[i] modulo 2**64."""
    h = np.uint64(0)
    for i in range(BOARD_SIZE):
        v = b[i]
        if v > 0:
            h += np.uint64(v) * _KEYS[i]
        elif v < 0:
            h -= np.uint64(-v) * _KEYS[i]
    return h


@njit(**HOT)
def own_mask(b):
    """Bit p set when the mover has a checker on p (1..25)."""
    m = 0
    for p in range(1, BAR + 1):
        if b[p] > 0:
            m |= 1 << p
    return m


@njit(**HOT)
def blocked_mask(b):
    """Bit p set when the opponent holds point p with two or more checkers."""
    m = 0
    for p in range(1, BAR):
        if b[p] <= -2:
            m |= 1 << p
    return m


@njit(**HOT)
def sources(own, blocked, d):
    """Bitmask of the points a checker may legally leave with one die ``d``."""
    if own & (1 << BAR):
        # Checkers on the bar must enter first; die d enters on point 25 - d.
        if (blocked >> (BAR - d)) & 1:
            return 0
        return 1 << BAR
    # Ordinary moves: source s >= d + 1 whose landing point s - d is not blocked.
    m = own & ~(blocked << d) & ~((2 << d) - 1)
    if (own >> (HOME_TOP + 1)) == 0:
        # Everything is home: bear off from point d, or from the highest point when
        # no checker stands above d.
        if (own >> d) & 1:
            m |= 1 << d
        elif (own >> (d + 1)) == 0:
            for p in range(d - 1, 0, -1):
                if (own >> p) & 1:
                    m |= 1 << p
                    break
    return m


@njit(**HOT)
def make_move(b, s, d):
    """Move one checker from ``s`` by ``d`` pips on ``b``; returns 1 if it hit a blot."""
    b[s] -= 1
    t = s - d
    if t >= 1:
        if b[t] == -1:
            b[t] = 1
            b[0] -= 1
            return 1
        b[t] += 1
    return 0


@njit(**HOT)
def undo_move(b, s, d, hit):
    """Exact inverse of :func:`make_move`."""
    t = s - d
    if t >= 1:
        if hit:
            b[t] = -1
            b[0] += 1
        else:
            b[t] -= 1
    b[s] += 1


@njit(**INNER)
def _after(own, b, s, d):
    """``own`` after a checker moved from ``s`` by ``d`` (``b`` already updated)."""
    if b[s] == 0:
        own &= ~(1 << s)
    t = s - d
    if t >= 1:
        own |= 1 << t
    return own


@njit(**INNER)
def _emit(work, out, row):
    copy_row(out, row, work)


@njit(**INNER)
def _generate_doubles(work, d, own, blocked, out, row0, stack):
    # Depth-first search over up to four steps, each source at most the previous one (see
    # the module doc), kept iterative with make/undo written in place: a helper function
    # per step passed the board with reference counting and cost about 1.5x.
    # stack[k] = untried sources at depth k (k = 0..4), stack[_OWN + k] = own mask at
    # depth k, stack[_SRC + k] = source played at depth k, stack[_HIT + k] = 1 if it hit.
    # Results of fewer steps are kept only while no longer sequence has been found.
    best = 0
    count = 0
    depth = 0
    stack[0] = sources(own, blocked, d)
    stack[_OWN] = own
    while True:
        m = stack[depth]
        if m == 0:
            if depth == 0:
                break
            depth -= 1
            s = stack[_SRC + depth]
            t = s - d
            if t >= 1:
                if stack[_HIT + depth]:
                    work[t] = -1
                    work[0] += 1
                else:
                    work[t] -= 1
            work[s] += 1
            continue
        s = lowest_bit(m)
        stack[depth] = m & (m - 1)
        t = s - d
        hit = 0
        work[s] -= 1
        o = stack[_OWN + depth] if work[s] else stack[_OWN + depth] & ~(1 << s)
        if t >= 1:
            o |= 1 << t
            if work[t] == -1:
                work[t] = 1
                work[0] -= 1
                hit = 1
            else:
                work[t] += 1
        stack[_SRC + depth] = s
        stack[_HIT + depth] = hit
        depth += 1
        nxt = 0
        if depth < 4:
            nxt = sources(o, blocked, d) & ((2 << s) - 1)
        if nxt and depth == 3:
            # The fourth step ends every sequence: write each result as a copy of the
            # board patched for that step instead of a make/emit/undo round trip
            # (doubles on the perft set: 540 -> 419 ns a pair).
            if best < 4:
                best = 4
                count = 0
            while nxt:
                s4 = lowest_bit(nxt)
                nxt &= nxt - 1
                r = row0 + count
                copy_row(out, r, work)
                out[r, s4] -= 1
                t4 = s4 - d
                if t4 >= 1:
                    if out[r, t4] == -1:
                        out[r, t4] = 1
                        out[r, 0] -= 1
                    else:
                        out[r, t4] += 1
                count += 1
            stack[depth] = 0
            continue
        if nxt:
            stack[depth] = nxt
            stack[_OWN + depth] = o
            continue
        # A leaf: no further step is possible from here.
        if depth > best:
            best = depth
            count = 0
        if depth == best:
            r = row0 + count
            copy_row(out, r, work)
            count += 1
        stack[depth] = 0    # nothing to try below a leaf: the next pass undoes this step
    if best == 0:
        _emit(work, out, row0)
        count = 1
    return count


@njit(**INNER)
def _generate_mixed(work, d1, d2, own, blocked, out, row0, stack, hashes, slots, gen):
    # make/undo and the dedupe are written out in place: as separate functions each call
    # passed the board arrays with reference counting, which cost about 1.4x here.
    #
    # Swap rule: if (x with d1, then y with d2) is legal and so is (y with d2, then x with
    # d1), both give the same position (same checkers, same landing points, so the same
    # hits). The first order records in stack[_SWAP + y] the bit of every such x, and the
    # second order skips those candidates before touching the board; the hash table
    # catches the remaining duplicates (one checker taking either intermediate point).
    # Perft non-double pairs: 238 ns a pair with the rule, 291 ns without.
    count = 0
    h0 = board_hash(work)
    for p in range(BOARD_SIZE):
        stack[_SWAP + p] = 0
    for order in range(2):
        a, c = (d1, d2) if order == 0 else (d2, d1)
        ma = sources(own, blocked, a)
        while ma:
            s1 = lowest_bit(ma)
            ma &= ma - 1
            t1 = s1 - a
            h1 = False
            hash1 = h0 - _KEYS[s1]
            work[s1] -= 1
            o1 = own if work[s1] else own & ~(1 << s1)
            if t1 >= 1:
                o1 |= 1 << t1
                if work[t1] == -1:
                    work[t1] = 1
                    work[0] -= 1
                    h1 = True
                    hash1 += _KEYS[t1] + _KEYS[t1] - _KEYS[0]
                else:
                    work[t1] += 1
                    hash1 += _KEYS[t1]
            mc = sources(o1, blocked, c)
            if order == 0:
                m = mc
                while m:
                    stack[_SWAP + lowest_bit(m)] |= 1 << s1
                    m &= m - 1
            else:
                mc &= ~stack[_SWAP + s1]
            while mc:
                s2 = lowest_bit(mc)
                mc &= mc - 1
                t2 = s2 - c
                h2 = False
                hash2 = hash1 - _KEYS[s2]
                work[s2] -= 1
                if t2 >= 1:
                    if work[t2] == -1:
                        work[t2] = 1
                        work[0] -= 1
                        h2 = True
                        hash2 += _KEYS[t2] + _KEYS[t2] - _KEYS[0]
                    else:
                        work[t2] += 1
                        hash2 += _KEYS[t2]
                # Dedupe: open addressing; slots[i] = (generation stamp, row of the result).
                # (Hashing from the step alone and patching a copy of the board, as the
                # doubles do, measured slower here: 360 against 291 ns a pair.)
                i = np.int64(hash2 >> _SHIFT)
                fresh = True
                while slots[i, 0] == gen:
                    if hashes[i] == hash2:
                        r = row0 + slots[i, 1]
                        same = True
                        for k in range(BOARD_SIZE):
                            if out[r, k] != work[k]:
                                same = False
                                break
                        if same:
                            fresh = False
                            break
                    i = (i + 1) & HASH_MASK
                if fresh:
                    slots[i, 0] = gen
                    slots[i, 1] = count
                    hashes[i] = hash2
                    r = row0 + count
                    copy_row(out, r, work)
                    count += 1
                if t2 >= 1:
                    if h2:
                        work[t2] = -1
                        work[0] += 1
                    else:
                        work[t2] -= 1
                work[s2] += 1
            if t1 >= 1:
                if h1:
                    work[t1] = -1
                    work[0] += 1
                else:
                    work[t1] -= 1
            work[s1] += 1
    if count:
        return count
    # Both dice cannot be used together: play the higher die if it can be played at all,
    # else the lower one. Different sources give different positions: no dedupe needed.
    hi, lo = (d1, d2) if d1 > d2 else (d2, d1)
    m = sources(own, blocked, hi)
    d = hi
    if m == 0:
        m = sources(own, blocked, lo)
        d = lo
    while m:
        s = lowest_bit(m)
        m &= m - 1
        h = make_move(work, s, d)
        _emit(work, out, row0 + count)
        count += 1
        undo_move(work, s, d, h)
    if count == 0:
        _emit(work, out, row0)
        count = 1
    return count


@njit(**HOT)
def generate(board, d1, d2, out, row0, work, stack, hashes, slots, gen):
    """Write every distinct result of ``board`` with roll (d1, d2) to ``out[row0:row0+k]``.

    board  : int8[26], a valid interchange board (not modified).
    out    : int8[:, 26] with at least ``row0 + MAX_RESULTS`` rows.
    work, stack, hashes, slots : scratch from :func:`new_scratch`, one set per thread.
    gen    : must differ from every earlier value used with the same ``slots`` (a
             per-thread counter starting at 1 does).
    Returns k >= 1 (the unchanged board alone when nothing can be played).
    """
    for i in range(BOARD_SIZE):
        work[i] = board[i]
    own = own_mask(work)
    blocked = blocked_mask(work)
    if d1 == d2:
        return _generate_doubles(work, d1, own, blocked, out, row0, stack)
    return _generate_mixed(work, d1, d2, own, blocked, out, row0, stack, hashes, slots, gen)


@njit(cache=True)
def new_scratch():
    """Per-thread scratch for :func:`generate`: (work, stack, hashes, slots)."""
    return (np.zeros(BOARD_SIZE, np.int8), np.zeros(STACK_SIZE, np.int64),
            np.zeros(HASH_SIZE, np.uint64), np.zeros((HASH_SIZE, 2), np.int64))


@njit(cache=True)
def legal_moves_one(board, d1, d2):
    """All results of one position as a fresh ``(k, 26)`` array."""
    out = np.empty((MAX_RESULTS, BOARD_SIZE), np.int8)
    work, stack, hashes, slots = new_scratch()
    k = generate(board, d1, d2, out, np.int64(0), work, stack, hashes, slots, np.int64(1))
    return out[:k].copy()


@njit(nogil=True, cache=True)
def legal_moves_chunks(boards, dice, chunk_lo, chunk_hi, region_lo, region_hi, buf,
                       start, count, done, c_lo, c_hi):
    """Generate the results of chunks c_lo..c_hi-1 of positions (one span of
    :func:`fastbg.parallel.run_spans`: this kernel runs without the GIL on Python threads;
    a ``prange`` loop here cost numba a compile of the move generator in a gufunc of its
    own, 2-3 s of a fresh start).

    boards (n, 26) int8 and dice (n, 2) int8 are the positions; chunk c covers positions
    [chunk_lo[c], chunk_hi[c]) and writes into buf rows [region_lo[c], region_hi[c]).
    Per position i: start[i] (first row in buf) and count[i] are filled in. A chunk stops
    when fewer than MAX_RESULTS rows remain in its region; done[c] says how many of its
    positions were finished, so the caller can run the rest again.
    """
    work, stack, hashes, slots = new_scratch()
    gen = np.int64(0)       # one scratch for the span: each position a new generation
    for c in range(c_lo, c_hi):
        row = region_lo[c]
        finished = 0    # kept local: bumping done[c] per position was false sharing
        for i in range(chunk_lo[c], chunk_hi[c]):
            if region_hi[c] - row < MAX_RESULTS:
                break
            finished += 1
            gen += 1
            k = generate(boards[i], dice[i, 0], dice[i, 1], buf, row, work, stack, hashes,
                         slots, gen)
            start[i] = row
            count[i] = k
            row += k
        done[c] = finished


@njit(nogil=True, **HOT)
def gather_rows(buf, start, count, positions, out, offsets):
    """Copy the rows of ``positions`` from ``buf`` to their final place in ``out`` (one
    thread: a copy, not worth a parallel kernel's compile)."""
    for j in range(positions.shape[0]):
        i = positions[j]
        src = start[i]
        dst = offsets[i]
        for r in range(count[i]):
            copy_row(out, dst + r, buf[src + r])

