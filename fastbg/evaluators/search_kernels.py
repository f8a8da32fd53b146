"""n-ply evaluation of numba plug-in evaluators: GNU Backgammon's look-ahead as a kernel.

The definition is docs/engine.md section 1 (gnubg's ``EvaluatePositionFull``): a position
with the player on roll is worth, at ``ply`` p > 0, the average over the 21 rolls (weight
1/36 a double, 2/36 otherwise) of the position after the move he plays with that roll,
evaluated at p - 1 from the opponent's side and turned back to his. The move played is
the one with the best 0-ply score (the mover's cubeless equity of the result, the first
best in move-generation order). A finished game is not searched.

This kernel serves any numba ``probs(board, out)`` plug-in (out float64[5], the
probabilities of the player on roll of board int8[26]); the gnubg net's n-ply runs level
by level on its one batch kernel instead (:mod:`fastbg.evaluators.search`), so that no
second kernel compiles the network. The tree is walked breadth-first one root at a time,
level by level (level d holds the 21^d positions after d moves): "expand a node" generates
the moves of its 21 rolls, scores every candidate and keeps each roll's best; the
probabilities of each roll's best result, computed to score it, are the child's, so the
last level is never evaluated again.
"""
from collections import namedtuple

import numpy as np
from numba import njit, prange

from fastbg.constants import BOARD_SIZE, MAX_RESULTS, DIE_MAX, CHECKERS, BAR, OPP_BAR, HOME_TOP
from fastbg.jit import HOT, INNER
from fastbg.position import movegen as _mg
from fastbg.position.bits import flip_row, row_words

MAX_PLY = 3
C_RACE = 3      # gnubg's class race, as fastbg.evaluators.net_kernels.C_RACE (a test checks)
# GNU Backgammon's pruning: a roll of n candidates keeps MIN_PRUNE_MOVES + floor(log2 n)
# (eval.c; at most MAX_PRUNE_MOVES for the 5,000-odd results a roll can have).
MIN_PRUNE_MOVES = 5
MAX_PRUNE_MOVES = MIN_PRUNE_MOVES + MAX_RESULTS.bit_length()
N_ROLLS = 21
N_OUT = 5
# Rows of level d start at LEVEL_START[d]: 1 + 21 + ... + 21^(d-1).
LEVEL_START = np.array([(N_ROLLS ** d - 1) // (N_ROLLS - 1) for d in range(MAX_PLY + 1)],
                       np.int64)

# The 21 rolls, higher die first, and their weights out of 36.
_ROLL_LIST = [(a, b) for a in range(DIE_MAX, 0, -1) for b in range(a, 0, -1)]
ROLL_D1 = np.array([r[0] for r in _ROLL_LIST], np.int64)
ROLL_D2 = np.array([r[1] for r in _ROLL_LIST], np.int64)
ROLL_W = np.array([1.0 if a == b else 2.0 for a, b in _ROLL_LIST], np.float64)

# Node states in a search tree.
NODE_UNUSED, NODE_LEAF, NODE_EXPAND = 0, 1, 2

SearchScratch = namedtuple("SearchScratch",
                           "nodes probs state cands roll_of cand_score cand_probs best_score best_row "
                           "tmp p5 work stack hashes slots gen ties")
SearchScratch.__doc__ = """Per-thread scratch of the search (:func:`new_scratch`).

nodes int8[R, 26] the tree's positions, level after level (R = LEVEL_START[ply] + 21^ply
rows); probs float64[R, 5] their probabilities (player on roll of each); state int8[R]
NODE_*; cands int8[21 * MAX_RESULTS, 26] the candidates of one node's 21 rolls; roll_of
int64[21 * MAX_RESULTS] their roll; cand_score float64[21 * MAX_RESULTS] their 0-ply
scores; cand_probs float64[21 * MAX_RESULTS, 5] their 0-ply probabilities (the
opponent on roll); best_score float64[21], best_row int64[21] each roll's
best so far; tmp int8[26] and p5 float64[5] for plug-ins; work, stack, hashes, slots the
move generator's scratch; gen int64[1] its generation counter; ties int64[1] how many
move choices of the current search had an exact tie for the best score."""


@njit(cache=True)
def new_scratch(ply):
    """A :class:`SearchScratch` for trees of depth ``ply`` (0..MAX_PLY)."""
    rows = LEVEL_START[ply] + N_ROLLS ** ply
    work, stack, hashes, slots = _mg.new_scratch()
    return SearchScratch(np.zeros((rows, BOARD_SIZE), np.int8), np.zeros((rows, N_OUT)),
                         np.zeros(rows, np.int8),
                         np.zeros((N_ROLLS * MAX_RESULTS, BOARD_SIZE), np.int8),
                         np.zeros(N_ROLLS * MAX_RESULTS, np.int64),
                         np.zeros(N_ROLLS * MAX_RESULTS), np.zeros((N_ROLLS * MAX_RESULTS, N_OUT)),
                         np.zeros(N_ROLLS),
                         np.zeros(N_ROLLS, np.int64), np.zeros(BOARD_SIZE, np.int8),
                         np.zeros(N_OUT), work, stack, hashes, slots, np.zeros(1, np.int64),
                         np.zeros(1, np.int64))


@njit(**HOT)
def flip_into(src, dst):
    """dst = src seen by the other player (docs/rules.md section 1)."""
    for i in range(1, BAR):
        dst[BAR - i] = -src[i]
    dst[BAR] = -src[OPP_BAR]
    dst[OPP_BAR] = -src[BAR]


@njit(**HOT)
def over_probs(b, out):
    """The probabilities of the player on roll of a finished game (the opponent has borne
    off every checker): he has lost, a gammon if he has borne off none, a backgammon if
    also a checker of his is on the bar or in the winner's home board (his points 19..24)."""
    mine = 0
    deep = 0
    for i in range(1, BAR + 1):
        if b[i] > 0:
            mine += b[i]
            if i > BAR - 1 - HOME_TOP:
                deep += b[i]
    for i in range(N_OUT):
        out[i] = 0.0
    if mine == CHECKERS:
        out[3] = 1.0
        if deep > 0:
            out[4] = 1.0


@njit(**HOT)
def opponent_off(b):
    """True when the opponent of the player on roll has no checker left (game over)."""
    if b[OPP_BAR] < 0:
        return False
    for i in range(1, BAR):
        if b[i] < 0:
            return False
    return True


@njit(**HOT)
def mover_equity(q):
    """The mover's cubeless equity from ``q``, the probabilities of his opponent on roll."""
    return (1.0 - q[0]) * 2.0 - 1.0 + q[3] + q[4] - q[1] - q[2]


@njit(**INNER)
def _gen(scr, board, d1, d2, row0):
    scr.gen[0] += 1
    return _mg.generate(board, d1, d2, scr.cands, row0, scr.work, scr.stack, scr.hashes,
                        scr.slots, scr.gen[0])


@njit(**HOT)
def expand(scr, node, child0, leaf_level, plugin):
    """Children of tree row ``node`` at rows child0 .. child0 + 20 (one per roll): the best
    0-ply result of each roll, seen by the opponent (now on roll), with its 0-ply
    probabilities; each child a leaf when ``leaf_level`` or known exactly, else to expand."""
    cands, roll_of, bscore, brow = scr.cands, scr.roll_of, scr.best_score, scr.best_row
    total = 0
    for r in range(N_ROLLS):
        k = _gen(scr, scr.nodes[node], ROLL_D1[r], ROLL_D2[r], total)
        for i in range(total, total + k):
            roll_of[i] = r
        total += k
        bscore[r] = -1e300
        brow[r] = -1
    tmp, p5 = scr.tmp, scr.p5
    for i in range(total):
        flip_into(cands[i], tmp)
        if opponent_off(tmp):
            over_probs(tmp, p5)
            known = True
        else:
            plugin(tmp, p5)
            known = False
        s = mover_equity(p5)
        scr.cand_score[i] = s
        for o in range(N_OUT):
            scr.cand_probs[i, o] = p5[o]
        r = roll_of[i]
        if s > bscore[r]:
            bscore[r] = s
            brow[r] = i
            c = child0 + r
            for o in range(N_OUT):
                scr.probs[c, o] = p5[o]
            scr.state[c] = NODE_LEAF if leaf_level or known else NODE_EXPAND
    _count_ties(scr, total, leaf_level)
    for r in range(N_ROLLS):
        flip_into(cands[brow[r]], scr.nodes[child0 + r])


@njit(**INNER)
def _count_ties(scr, total, leaf_level):
    """Add to scr.ties the rolls where another candidate's 0-ply score equals the best's
    exactly and the choice can matter: gnubg then picks one by its C library's sort, which
    fastbg cannot follow (docs/engine.md section 1). On the last level the child's value is
    its 0-ply probabilities, so only a tie with different probabilities counts."""
    seen = scr.tmp                  # a flag per roll (tmp is free here)
    for r in range(N_ROLLS):
        seen[r] = 0
    for i in range(total):
        r = scr.roll_of[i]
        b = scr.best_row[r]
        if seen[r] or i == b or scr.cand_score[i] != scr.best_score[r]:
            continue
        if not leaf_level:
            seen[r] = 1
        else:
            for o in range(N_OUT):
                if scr.cand_probs[i, o] != scr.cand_probs[b, o]:
                    seen[r] = 1
    for r in range(N_ROLLS):
        scr.ties[0] += seen[r]


@njit(**HOT)
def root_probs(scr, plugin, out):
    """0-ply probabilities of tree row 0 into out; True when it must be searched."""
    if opponent_off(scr.nodes[0]):
        over_probs(scr.nodes[0], out)
        return False
    plugin(scr.nodes[0], out)
    return True


@njit(**HOT)
def search_tree(board, ply, plugin, scr, out):
    """The ``ply``-ply probabilities of ``board`` (player on roll) into out float64[5]."""
    for i in range(BOARD_SIZE):
        scr.nodes[0, i] = board[i]
    scr.ties[0] = 0
    searched = root_probs(scr, plugin, out)
    if ply == 0 or not searched:
        return
    scr.state[0] = NODE_EXPAND
    for d in range(ply):
        lo = LEVEL_START[d]
        hi = LEVEL_START[d + 1]
        for node in range(lo, hi):
            c0 = hi + (node - lo) * N_ROLLS
            if scr.state[node] == NODE_EXPAND:
                expand(scr, node, c0, d + 1 == ply, plugin)
            elif d + 1 < ply:
                for r in range(N_ROLLS):
                    scr.state[c0 + r] = NODE_UNUSED
    # back up: an expanded node is the weighted mean of its children, sides swapped
    for d in range(ply - 1, -1, -1):
        lo = LEVEL_START[d]
        hi = LEVEL_START[d + 1]
        for node in range(lo, hi):
            if scr.state[node] != NODE_EXPAND:
                continue
            c0 = hi + (node - lo) * N_ROLLS
            acc = scr.probs[node]
            for o in range(N_OUT):
                acc[o] = 0.0
            for r in range(N_ROLLS):
                q = scr.probs[c0 + r]
                w = ROLL_W[r]
                acc[0] += w * (1.0 - q[0])
                acc[1] += w * q[3]
                acc[2] += w * q[4]
                acc[3] += w * q[1]
                acc[4] += w * q[2]
            for o in range(N_OUT):
                acc[o] /= 36.0
    for o in range(N_OUT):
        out[o] = scr.probs[0, o]


@njit(parallel=True, cache=True)
def probabilities_batch(boards, ply, plugin, n_tasks, probs, ties):
    """probs[i] (float64[5]) = the ``ply``-ply probabilities of boards[i], in tasks;
    ties[i] = the move choices of its search that had an exact tie (:func:`_count_ties`)."""
    n = boards.shape[0]
    for t in prange(n_tasks):
        scr = new_scratch(ply)
        for i in range(t * n // n_tasks, (t + 1) * n // n_tasks):
            search_tree(boards[i], ply, plugin, scr, probs[i])
            ties[i] = scr.ties[0]


# ------------------------------------------------------------ the gnubg net's levels
#
# The gnubg net's search (:mod:`fastbg.evaluators.search`) expands a whole level of nodes
# at once: the move generator's batch kernel makes every (node, roll) pair's results, the
# two kernels below turn them into one batch for the network's batch kernel (each node's
# distinct results, seen by the opponent) and pick each roll's best from its outputs.
# Neither holds the network: the only kernel that does is compiled once
# (:func:`fastbg.evaluators.net_kernels.evaluate_rows`).

# Results of one node's 21 rolls: at most 21 x MAX_RESULTS (a bound far above what
# positions make, a few hundred), so a table of 2^17 slots is never more than half full.
NODE_HASH_SIZE = 1 << 17

NodeHash = namedtuple("NodeHash", "hashes slots gen")
NodeHash.__doc__ = """Per-thread scratch of :func:`distinct_results` (:func:`new_node_hash`):
hashes uint64[NODE_HASH_SIZE] and slots int64[NODE_HASH_SIZE, 2] (generation stamp, first
result row) an open-addressing table, gen int64[1] its generation counter (a new one per
node: the table is never cleared)."""


MoveScratch = namedtuple("MoveScratch", "work stack hashes slots gen")
MoveScratch.__doc__ = """The move generator's scratch of :func:`level_results`, one per thread:
work, stack, hashes, slots as :func:`fastbg.position.movegen.new_scratch` makes them and
gen int64[1] its generation counter."""


def new_move_scratch():
    """A :class:`MoveScratch` (plain numpy: made once per thread in Python)."""
    return MoveScratch(*_mg.new_scratch(), np.zeros(1, np.int64))


def new_node_hash():
    """A :class:`NodeHash` (plain numpy: made once per thread in Python)."""
    return NodeHash(np.zeros(NODE_HASH_SIZE, np.uint64), np.zeros((NODE_HASH_SIZE, 2), np.int64),
                    np.zeros(1, np.int64))


@njit(nogil=True, **HOT)
def distinct_results(res, off, n_lo, n_hi, flipped, local, n_distinct, nh, packed=False):
    """Nodes n_lo..n_hi-1 of a level: node j's results are rows off[21 j] .. off[21 j + 21]
    of ``res`` (int8 (m, 26), the mover's view; 21 (node, roll) pairs a node, in ROLL order).

    The same result can come from two rolls of a node (6-1 and 5-2 both play 24/17): each
    distinct one is evaluated once. Node j's distinct results go, seen by the opponent
    (flipped), to flipped[off[21 j] + u] for u < n_distinct[j] in order of first
    appearance; local[c] = u of result row c. (Within one roll the generator's results are
    already distinct.)

    With ``packed`` the nodes' distinct results follow each other from flipped[0] instead
    (node n_lo's first): no gathering is then needed when one call takes a whole level
    (:func:`gather_distinct`; 2% of a 1-ply search). Returns how many rows were written
    then (0 otherwise).

    A row is hashed and compared as four machine words and flipped by one masked vector
    load and store (:mod:`fastbg.position.bits`): 19.2 -> 9.0 ns a result against an
    element loop for each (one thread, the last level of 400 1-ply searches)."""
    run = 0
    for j in range(n_lo, n_hi):
        c0 = off[N_ROLLS * j]
        u = _distinct_node(res, c0, off[N_ROLLS * j + N_ROLLS], flipped,
                           run if packed else c0, local, nh)
        n_distinct[j] = u
        run += u
    return run if packed else 0


@njit(**INNER)
def _distinct_node(res, c0, c1, flipped, out0, local, nh):
    """One node of :func:`distinct_results`: its results are rows c0..c1-1 of ``res``;
    its distinct ones go, flipped, to flipped[out0:out0 + u]. Returns u."""
    hashes, slots = nh.hashes, nh.slots
    nh.gen[0] += 1
    gen = nh.gen[0]
    # a table at most half full, in as few slots as that allows: the whole table of a
    # few hundred results stays in the L1 cache (the full one cost 20% more)
    bits = 6
    while (1 << bits) < 2 * (c1 - c0):
        bits += 1
    shift = np.uint64(64 - bits)
    mask = (1 << bits) - 1
    u = 0
    for c in range(c0, c1):
        w0, w1, w2, w3 = row_words(res, c)
        h = _words_hash(w0, w1, w2, w3)
        i = np.int64(h >> shift)
        found = -1
        while slots[i, 0] == gen:
            if hashes[i] == h:
                first = slots[i, 1]
                f0, f1, f2, f3 = row_words(res, first)
                if (f0 == w0) & (f1 == w1) & (f2 == w2) & (f3 == w3):
                    found = local[first]
                    break
            i = (i + 1) & mask
        if found >= 0:
            local[c] = found
            continue
        slots[i, 0] = gen
        slots[i, 1] = c
        hashes[i] = h
        local[c] = u
        flip_row(res, c, flipped, out0 + u)
        u += 1
    return u


@njit(nogil=True, **HOT)
def level_results(nodes, dice, n_lo, n_hi, res, off, flipped, local, n_distinct, nh, mg,
                  run0):
    """Nodes n_lo..n_hi-1 of a level on one thread, in one call: the moves of each node's
    21 rolls generated into ``res`` (node j's roll r at rows off[21 j + r] .. off[21 j +
    r + 1]; the caller sets off[21 n_lo]) and at once, while they are in the cache, the
    node's distinct results flipped and packed into ``flipped`` from row ``run0`` on, as
    :func:`distinct_results` with ``packed`` (local and n_distinct the same).

    ``dice`` int64 (21, 2) the rolls in ROLL order; ``mg`` a :class:`MoveScratch`. Returns (the first node not done, the
    next free row of ``flipped``): a node stops when fewer than MAX_RESULTS rows of
    ``res`` remain for a roll's moves, and the caller runs it again with more room.

    Against :func:`fastbg.position.moves.legal_moves_rows`, :func:`distinct_results` and
    the numpy steps between them (copies and offsets made under the GIL, which the other
    threads' spans then wait for), one kernel call a span."""
    work, stack, hashes, slots, gen = mg.work, mg.stack, mg.hashes, mg.slots, mg.gen
    run = run0
    cap = res.shape[0]
    for j in range(n_lo, n_hi):
        row = off[N_ROLLS * j]
        for r in range(N_ROLLS):
            if cap - row < MAX_RESULTS:
                return j, run
            gen[0] += 1
            row += _mg.generate(nodes[j], dice[r, 0], dice[r, 1], res, row, work, stack,
                                hashes, slots, gen[0])
            off[N_ROLLS * j + r + 1] = row
        u = _distinct_node(res, off[N_ROLLS * j], row, flipped, run, local, nh)
        n_distinct[j] = u
        run += u
    return n_hi, run


@njit(**INNER)
def _words_hash(w0, w1, w2, w3):
    """A hash of a board row's four words (:func:`fastbg.position.bits.row_words`): each
    times an odd key, summed, modulo 2^64 (the table's index is the top bits)."""
    return (w0 * np.uint64(0x9E3779B97F4A7C15) + w1 * np.uint64(0xC2B2AE3D27D4EB4F)
            + w2 * np.uint64(0x165667B19E3779F9) + w3 * np.uint64(0xD6E8FEB86659FD93))


@njit(nogil=True, **HOT)
def gather_distinct(flipped, off, n_distinct, base, n_lo, n_hi, out):
    """Node j's distinct results (:func:`distinct_results`) to out[base[j]:base[j + 1]]."""
    for j in range(n_lo, n_hi):
        c0 = off[N_ROLLS * j]
        b = base[j]
        for u in range(n_distinct[j]):
            for k in range(BOARD_SIZE):
                out[b + u, k] = flipped[c0 + u, k]


@njit(nogil=True, **HOT)
def prune_select(pscore, cls, off, local, base, slots, p_lo, p_hi, keep, need):
    """GNU Backgammon's pruning (:mod:`fastbg.evaluators.prune_kernels`) for pairs
    p_lo..p_hi-1 of a level (pair p: node p // 21, roll p % 21; results and distinct rows
    as in :func:`pick_best`; ``pscore`` the mover's scores of the distinct results by the
    pruning nets, ``cls`` their classes). A pair of n results, all of one class race or
    above, keeps (keep[c] = 1) only the best k = MIN_PRUNE_MOVES + floor(log2 n) by
    ``pscore`` when n > k, chosen as eval.c's FindBestMoveInEval does (slots[0] the
    worst kept; a later result replaces it only when strictly better); every other pair
    keeps all. need[u] = 1 for each distinct row u a kept result uses (to be evaluated in
    full). keep and need start as zeros; ``slots`` is scratch int64[MAX_PRUNE_MOVES]."""
    for p in range(p_lo, p_hi):
        b = base[p // N_ROLLS]
        c0, c1 = off[p], off[p + 1]
        n = c1 - c0
        n_keep = MIN_PRUNE_MOVES
        while (2 << (n_keep - MIN_PRUNE_MOVES)) <= n:      # + floor(log2 n)
            n_keep += 1
        prune = n > n_keep
        if prune:
            first = cls[b + local[c0]]
            if first < C_RACE:
                prune = False
            else:
                for c in range(c0 + 1, c1):
                    if cls[b + local[c]] != first:
                        prune = False
                        break
        if not prune:
            for c in range(c0, c1):
                keep[c] = 1
                need[b + local[c]] = 1
            continue
        for i in range(n_keep):
            c = c0 + i
            slots[i] = c
            if pscore[b + local[c]] < pscore[b + local[slots[0]]]:
                slots[i] = slots[0]
                slots[0] = c
        for c in range(c0 + n_keep, c1):
            if pscore[b + local[c]] > pscore[b + local[slots[0]]]:
                slots[0] = c
                m = 0
                for k in range(1, n_keep):
                    if pscore[b + local[slots[k]]] < pscore[b + local[slots[m]]]:
                        m = k
                slots[0] = slots[m]
                slots[m] = c
        for i in range(n_keep):
            keep[slots[i]] = 1
            need[b + local[slots[i]]] = 1


@njit(nogil=True, **HOT)
def pick_best(q, off, local, base, keep, leaf_level, p_lo, p_hi, child, tied, scores):
    """For pairs p_lo..p_hi-1 of a level (pair p: node p // 21, roll p % 21): child[p] =
    the row of ``q`` (the 0-ply probabilities of the distinct results, opponent on roll,
    node j's from base[j]) of the move played, the first of the best 0-ply score
    (gnubg's float32 mover's equity, :func:`mover_score`) among the results c with
    keep[c] (all of them without pruning); tied[p] = 1 when another result has that
    score exactly and the choice can matter (on the last level only one with other
    probabilities: the child's value is its 0-ply probabilities), else 0. ``scores``
    float64 (at least off[p_hi]) holds each result's score for the ties' pass (computed
    once, each row read in place: 12.8 -> 8.3 ns a result, one thread, on the last level
    of 400 1-ply searches)."""
    for p in range(p_lo, p_hi):
        b = base[p // N_ROLLS]
        best = -1e300
        pick = -1
        for c in range(off[p], off[p + 1]):
            u = b + local[c]
            s = _mover_score_at(q, u)
            scores[c] = s
            if keep[c] and s > best:
                best = s
                pick = u
        child[p] = pick
        tie = 0
        for c in range(off[p], off[p + 1]):
            u = b + local[c]
            if not keep[c] or u == pick or scores[c] != best:
                continue
            if not leaf_level:
                tie = 1
                break
            for o in range(N_OUT):
                if q[u, o] != q[pick, o]:
                    tie = 1
            if tie:
                break
        tied[p] = tie


@njit(**INNER)
def _mover_score_at(q, u):
    """:func:`mover_score` of row ``u`` of ``q``, read in place (no row view)."""
    win = np.float32(1.0) - np.float32(q[u, 0])
    s = np.float64(win) * 2.0 - 1.0 + np.float32(q[u, 3]) + np.float32(q[u, 4]) \
        - np.float32(q[u, 1]) - np.float32(q[u, 2])
    return np.float64(np.float32(s))


@njit(**INNER)
def mover_score(q):
    """gnubg's 0-ply score of a move whose result has the probabilities ``q`` (opponent on
    roll, float32 values widened): the mover's cubeless equity in float32 (gnubg's
    ``InvertEvaluation`` + ``Utility``), widened; the same bits as
    :func:`fastbg.evaluators.search.mover_scores`."""
    win = np.float32(1.0) - np.float32(q[0])
    s = np.float64(win) * 2.0 - 1.0 + np.float32(q[3]) + np.float32(q[4]) \
        - np.float32(q[1]) - np.float32(q[2])
    return np.float64(np.float32(s))
