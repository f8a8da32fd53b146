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
  addressing hash table of the four 64-bit words of the (32-byte padded) board, cleared
  by a generation stamp rather than by zeroing. A hit compares all four words.
"""
import numpy as np
from numba import njit, prange

from .bits import lowest_bit

# Board offsets and bounds, repeated here as plain ints so numba freezes them as constants.
BAR = 25
HOME_TOP = 6
BOARD_SIZE = 26
WORK_SIZE = 32          # working board padded to four 64-bit words for hashing
MAX_RESULTS = 3060      # gnubg's MAX_MOVES: the most distinct results any roll can have

HASH_BITS = 10          # 1,024 slots: a non-double has at most 2 x 15 x 15 = 450 sequences
HASH_SIZE = 1 << HASH_BITS
HASH_MASK = HASH_SIZE - 1

# Layout of the int64 stack scratch of the doubles search (see _generate_doubles).
_OWN, _SRC, _HIT, STACK_SIZE = 5, 9, 13, 17

_M0 = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xC2B2AE3D27D4EB4F)
_M2 = np.uint64(0x165667B19E3779F9)
_M3 = np.uint64(0x27D4EB2F165667C5)
_SHIFT = np.uint64(64 - HASH_BITS)


@njit(cache=True)
def own_mask(b):
    """Bit p set when the mover has a checker on p (1..25)."""
    m = 0
    for p in range(1, BAR + 1):
        if b[p] > 0:
            m |= 1 << p
    return m


@njit(cache=True)
def blocked_mask(b):
    """Bit p set when the opponent holds point p with two or more checkers."""
    m = 0
    for p in range(1, BAR):
        if b[p] <= -2:
            m |= 1 << p
    return m


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
def _after(own, b, s, d):
    """``own`` after a checker moved from ``s`` by ``d`` (``b`` already updated)."""
    if b[s] == 0:
        own &= ~(1 << s)
    t = s - d
    if t >= 1:
        own |= 1 << t
    return own


@njit(cache=True)
def _emit(work, out, row):
    for i in range(BOARD_SIZE):
        out[row, i] = work[i]


@njit(cache=True)
def _emit_unique(work, words, out, row0, count, keys, stamps, gen):
    """Append ``work`` to ``out`` unless already there; returns the new count."""
    w0, w1, w2, w3 = words[0], words[1], words[2], words[3]
    h = (w0 * _M0) ^ (w1 * _M1) ^ (w2 * _M2) ^ (w3 * _M3)
    i = np.int64(h >> _SHIFT)
    while stamps[i] == gen:
        if keys[i, 0] == w0 and keys[i, 1] == w1 and keys[i, 2] == w2 and keys[i, 3] == w3:
            return count
        i = (i + 1) & HASH_MASK
    stamps[i] = gen
    keys[i, 0] = w0
    keys[i, 1] = w1
    keys[i, 2] = w2
    keys[i, 3] = w3
    _emit(work, out, row0 + count)
    return count + 1


@njit(cache=True)
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
            for k in range(BOARD_SIZE):
                out[r, k] = work[k]
            count += 1
        stack[depth] = 0    # nothing to try below a leaf: the next pass undoes this step
    if best == 0:
        _emit(work, out, row0)
        count = 1
    return count


@njit(cache=True)
def _generate_mixed(work, words, d1, d2, own, blocked, out, row0, keys, stamps, gen):
    # make/undo and the dedupe are written out in place: as separate functions each call
    # passed the board arrays with reference counting, which cost about 2x here.
    count = 0
    for order in range(2):
        a, c = (d1, d2) if order == 0 else (d2, d1)
        ma = sources(own, blocked, a)
        while ma:
            s1 = lowest_bit(ma)
            ma &= ma - 1
            t1 = s1 - a
            h1 = False
            work[s1] -= 1
            o1 = own if work[s1] else own & ~(1 << s1)
            if t1 >= 1:
                o1 |= 1 << t1
                if work[t1] == -1:
                    work[t1] = 1
                    work[0] -= 1
                    h1 = True
                else:
                    work[t1] += 1
            mc = sources(o1, blocked, c)
            while mc:
                s2 = lowest_bit(mc)
                mc &= mc - 1
                t2 = s2 - c
                h2 = False
                work[s2] -= 1
                if t2 >= 1:
                    if work[t2] == -1:
                        work[t2] = 1
                        work[0] -= 1
                        h2 = True
                    else:
                        work[t2] += 1
                # Dedupe: open addressing on the four words of the padded board.
                w0, w1, w2, w3 = words[0], words[1], words[2], words[3]
                h = (w0 * _M0) ^ (w1 * _M1) ^ (w2 * _M2) ^ (w3 * _M3)
                i = np.int64(h >> _SHIFT)
                fresh = True
                while stamps[i] == gen:
                    if keys[i, 0] == w0 and keys[i, 1] == w1 and keys[i, 2] == w2 and keys[i, 3] == w3:
                        fresh = False
                        break
                    i = (i + 1) & HASH_MASK
                if fresh:
                    stamps[i] = gen
                    keys[i, 0] = w0
                    keys[i, 1] = w1
                    keys[i, 2] = w2
                    keys[i, 3] = w3
                    r = row0 + count
                    for k in range(BOARD_SIZE):
                        out[r, k] = work[k]
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


@njit(cache=True)
def generate(board, d1, d2, out, row0, work, stack, keys, stamps, gen):
    """Write every distinct result of ``board`` with roll (d1, d2) to ``out[row0:row0+k]``.

    board  : int8[26], a valid interchange board (not modified).
    out    : int8[:, 26] with at least ``row0 + MAX_RESULTS`` rows.
    work   : int8[32] scratch; stack: int64[STACK_SIZE] scratch; keys: uint64[HASH_SIZE, 4] and stamps: int64[HASH_SIZE]
             scratch for dedupe; ``gen`` must differ from every earlier value used with
             the same ``stamps`` (a per-thread counter starting at 1 does).
    Returns k >= 1 (the unchanged board alone when nothing can be played).
    """
    for i in range(BOARD_SIZE):
        work[i] = board[i]
    for i in range(BOARD_SIZE, WORK_SIZE):
        work[i] = 0
    own = own_mask(work)
    blocked = blocked_mask(work)
    if d1 == d2:
        return _generate_doubles(work, d1, own, blocked, out, row0, stack)
    words = work.view(np.uint64)
    return _generate_mixed(work, words, d1, d2, own, blocked, out, row0, keys, stamps, gen)


@njit(cache=True)
def new_scratch():
    """Per-thread scratch for :func:`generate`: (work, stack, keys, stamps)."""
    return (np.zeros(WORK_SIZE, np.int8), np.zeros(STACK_SIZE, np.int64), np.zeros((HASH_SIZE, 4), np.uint64),
            np.zeros(HASH_SIZE, np.int64))


@njit(cache=True)
def legal_moves_one(board, d1, d2):
    """All results of one position as a fresh ``(k, 26)`` array."""
    out = np.empty((MAX_RESULTS, BOARD_SIZE), np.int8)
    work, stack, keys, stamps = new_scratch()
    k = generate(board, d1, d2, out, 0, work, stack, keys, stamps, 1)
    return out[:k].copy()


@njit(parallel=True, cache=True)
def legal_moves_chunks(boards, dice, chunk_lo, chunk_hi, region_lo, region_hi, buf,
                       start, count, done):
    """Generate results for chunks of positions in parallel (one chunk per task).

    boards (n, 26) int8 and dice (n, 2) int8 are the positions; chunk c covers positions
    [chunk_lo[c], chunk_hi[c]) and writes into buf rows [region_lo[c], region_hi[c]).
    Per position i: start[i] (first row in buf) and count[i] are filled in. A chunk stops
    when fewer than MAX_RESULTS rows remain in its region; done[c] says how many of its
    positions were finished, so the caller can run the rest again.
    """
    for c in prange(chunk_lo.shape[0]):
        work, stack, keys, stamps = new_scratch()
        row = region_lo[c]
        finished = 0    # kept local: bumping done[c] per position was false sharing
        for i in range(chunk_lo[c], chunk_hi[c]):
            if region_hi[c] - row < MAX_RESULTS:
                break
            finished += 1
            k = generate(boards[i], dice[i, 0], dice[i, 1], buf, row, work, stack, keys,
                         stamps, finished)
            start[i] = row
            count[i] = k
            row += k
        done[c] = finished


@njit(parallel=True, cache=True)
def gather_rows(buf, start, count, positions, out, offsets):
    """Copy the rows of ``positions`` from ``buf`` to their final place in ``out``."""
    for j in prange(positions.shape[0]):
        i = positions[j]
        src = start[i]
        dst = offsets[i]
        for r in range(count[i]):
            for k in range(BOARD_SIZE):
                out[dst + r, k] = buf[src + r, k]

