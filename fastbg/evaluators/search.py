"""n-ply evaluation over any evaluator (docs/engine.md section 1).

:func:`nply_probabilities` looks ``ply`` moves ahead as GNU Backgammon does: each of the 21
rolls played with the best 0-ply move, the result evaluated at ``ply - 1``, averaged with
the rolls' weights. The evaluator is a :class:`fastbg.GnubgNet` (its batched kernels) or
any numba ``probs(board, out)`` plug-in, which then gets n-ply for free.

For example, the race formula's plug-in at 1-ply (tests/test_search.py checks this path
against a plain recursion; a plug-in reaches the search as a C callback,
:mod:`fastbg.plugin_pointers`, so the search compiles once for every plug-in and is
cached on disk)::

    from fastbg.evaluators.race_kernels import race_probabilities
    p1 = nply_probabilities(race_probabilities, boards, 1)
"""
import numpy as np

from fastbg.constants import BOARD_SIZE, MAX_RESULTS, ROLLS
from fastbg.evaluators import search_kernels as _k
from fastbg.evaluators.net_kernels import C_BEAROFF2
from fastbg.parallel import (resolve_threads, run_spans, set_thread_scratch, thread_array,
                             thread_scratch, threads as _threads)
from fastbg.plugin_pointers import call_holding_interrupts, probs_pointer
from fastbg.position.board import validate
from fastbg.position.moves import legal_moves_rows
from fastbg.validation import check_flag, check_int

MAX_PLY = _k.MAX_PLY
# Tasks per thread: roots cost from one evaluation to a whole tree, so several tasks a
# thread keep the threads busy to the end.
_TASKS_PER_THREAD = 8


def check_ply(ply):
    """``ply`` as an int in 0..MAX_PLY, else ValueError."""
    return check_int("ply", ply, 0, MAX_PLY)


def evaluator_args(evaluator):
    """(net, plugin) for ``evaluator``: a gnubg net (it has the
    ``probabilities_and_classes`` of :class:`fastbg.GnubgNet`) or a numba plug-in."""
    if hasattr(evaluator, "probabilities_and_classes"):
        return evaluator, None
    if hasattr(evaluator, "py_func") and callable(evaluator):
        return None, evaluator
    raise TypeError("the evaluator must be a fastbg.GnubgNet or a numba probs(board, out) "
                    f"plug-in (an @njit function); got {evaluator!r}")


def nply_probabilities(evaluator, boards, ply, threads=None, return_ties=False, prune=False):
    """The ``ply``-ply probabilities of boards (26,) or (n, 26), player on roll.

    Returns float64 (n, 5) (or (5,) for one board): win, win gammon, win backgammon, lose
    gammon, lose backgammon. With ``return_ties`` also an int64 (n,) count of the move
    choices inside each search that had an exact tie for the best 0-ply score (GNU
    Backgammon breaks those by its own sort; fastbg takes the first in its move order).
    ``threads`` defaults to every numba thread; ply 0..3.

    ``prune`` (gnubg nets only): GNU Backgammon 1.x's "use pruning nets": inside the
    look-ahead a roll of n candidates of one class keeps the best 5 + floor(log2 n) by
    the small pruning nets, and only those are scored by the full network
    (:mod:`fastbg.evaluators.prune_kernels`; docs/engine.md section 1). Faster, and what
    GNU Backgammon's own n-ply evaluations do; gnubg-nn's ``probabilities`` do not prune.
    """
    ply = check_ply(ply)
    prune = check_flag("prune", prune)
    net, plugin = evaluator_args(evaluator)
    if prune and plugin is not None:
        raise ValueError("prune=True needs the gnubg networks (their pruning nets); "
                         "a plug-in evaluator has none")
    if prune and net.weights.prune is None:
        raise ValueError(f"prune=True: the weights {net.weights.path} have no pruning nets")
    b = validate(boards)
    rows = np.ascontiguousarray(b.reshape(-1, BOARD_SIZE))
    m = rows.shape[0]
    probs = np.zeros((m, 5))
    ties = np.zeros(m, np.int64)
    if m:
        n = resolve_threads(threads)
        if plugin is None:
            with _threads(n):
                for lo in range(0, m, _ROOTS_PER_CHUNK[ply]):
                    hi = min(m, lo + _ROOTS_PER_CHUNK[ply])
                    probs[lo:hi], ties[lo:hi] = _gnubg_values(net, rows[lo:hi], ply, n,
                                                              prune)
        else:
            tasks = max(1, min(m, n * _TASKS_PER_THREAD))
            with _threads(n):
                call_holding_interrupts(_k.probabilities_batch, rows, ply,
                                        _probs_pointer(plugin), tasks, probs, ties)
    if b.ndim == 1:
        probs, ties = probs[0], int(ties[0])
    return (probs, ties) if return_ties else probs


def _probs_pointer(plugin):
    """The plug-in as the search kernels take it: its C callback, one numba type for every
    plug-in, so the search compiles once and loads from the disk cache in the next process
    (as a dispatcher each plug-in compiled it again in each process: a second process's
    first 1-ply search of the race formula took 6.1 s, now 0.7 s, on a 2-core Zen 3)."""
    return probs_pointer(plugin)


# ------------------------------------------------------------------ the gnubg net

# Roots searched together: a 1-ply root makes about 450 candidates, a 2-ply one about
# 9,500, a 3-ply one 200,000 (26 bytes and 5 probabilities each), so about 100 MB a chunk.
_ROOTS_PER_CHUNK = {0: 1 << 16, 1: 1024, 2: 48, 3: 2}
_WEIGHTS = np.where(ROLLS[:, 0] == ROLLS[:, 1], 1.0, 2.0)
N_ROLLS = len(ROLLS)


def mover_scores(opp_probs):
    """gnubg's 0-ply scores of moves from the probabilities ``opp_probs`` (m, 5) of their
    results with the opponent on roll: the mover's cubeless equity in float32, computed as
    :func:`fastbg.evaluators.net_kernels._mover_equity` does (the same bits as
    ``GnubgNet.scores``)."""
    q = np.asarray(opp_probs).astype(np.float32)
    win = (np.float32(1.0) - q[:, 0]).astype(np.float64)
    s = win * 2.0 - 1.0 + q[:, 3] + q[:, 4] - q[:, 1] - q[:, 2]
    return s.astype(np.float32).astype(np.float64)


def _swap(p):
    """Probabilities of the other side (docs/engine.md section 1)."""
    return np.stack([1.0 - p[..., 0], p[..., 3], p[..., 4], p[..., 1], p[..., 2]], axis=-1)


def _gnubg_values(net, rows, ply, n_threads, prune=False):
    """(probabilities, ties) of rows (k, 26) at ``ply`` with the gnubg net, level by level:
    every node of a level expanded together, so the whole level's candidates are one
    batch of the net's one kernel (no kernel of its own to compile)."""
    probs, classes = net.evaluate_rows(rows, threads=n_threads)
    ties = np.zeros(len(rows), np.int64)
    if ply == 0:
        return probs, ties
    nodes = np.flatnonzero(classes > C_BEAROFF2)         # the others are known exactly
    if nodes.size:
        probs[nodes], ties[nodes] = _expand(net, rows[nodes], ply, n_threads, prune)
    return probs, ties


def _expand(net, nodes, ply, n_threads, prune=False):
    """The ``ply``-ply values of ``nodes`` (k, 26), each searched (docs/engine.md
    section 1): the 21 rolls' moves, the best of each by its 0-ply score (the first best),
    the child evaluated at ply - 1 from the other side; and the ties met.

    Each node's distinct results are evaluated once, in one batch for the whole level
    (:func:`fastbg.evaluators.search_kernels.distinct_results`: about one result in nine
    comes from two rolls of the same node), and each distinct node is searched once: many
    rolls can lead to the same child (every roll that dances from the bar, bear-offs), a
    quarter of the second level of a 2-ply search (measured on positions of pubeval
    games)."""
    rows = np.ascontiguousarray(nodes).view(np.dtype((np.void, BOARD_SIZE))).ravel()
    _, first, inverse = np.unique(rows, return_index=True, return_inverse=True)
    if len(first) < len(nodes):
        values, ties = _expand(net, nodes[first], ply, n_threads, prune)
        return values[inverse], ties[inverse]
    k = len(nodes)
    if ply == 1 and n_threads > 1 and k >= _WHOLE_LEVEL_NODES:
        # The last level, whole on each thread: each span of nodes goes through every
        # step below on one thread, so that no thread waits for the others between steps
        # (and for the numpy work between them, on one thread): hints 1.25x, 1-ply
        # positions 1.05x, measured on two threads (docs/engine.md section 1). Guided
        # spans, from _MAX_PART nodes down to _MIN_PART, claimed in turn, so that the
        # threads finish together (node costs vary) after few spans (each costs its Python
        # steps) that keep their data in the second-level cache: against equal spans, up
        # to 16 a thread, 2-ply 495 -> 532 positions/s, hints and 1-ply 1% (medians of 10
        # interleaved repetitions, two threads).
        values = np.empty((k, 5))
        ties = np.empty(k, np.int64)

        def part(lo, hi):
            values[lo:hi], ties[lo:hi] = _expand_level(net, nodes[lo:hi], ply, 1, prune)
        run_spans(part, k, n_threads, min_span=_MIN_PART, guided=True, max_span=_MAX_PART)
        return values, ties
    return _expand_level(net, nodes, ply, n_threads, prune)


def _expand_level(net, nodes, ply, n_threads, prune):
    """:func:`_expand` of distinct ``nodes`` on ``n_threads``."""
    k = len(nodes)
    # The level's large arrays are this thread's, kept from one span and call to the next
    # (fresh ones cost a page fault a page: 7.7% of a one-thread 1-ply search on Zen 4);
    # each depth has its own, as a deeper level runs while this one's are in use.
    tag = f"search{ply}_"
    n_distinct = np.empty(k, np.int64)
    base = np.zeros(k + 1, np.int64)
    if n_threads == 1:
        # one kernel call for the level: the moves generated and the distinct results
        # packed in place, nothing to gather
        off, uniq, local = _level_results(tag, nodes, n_distinct)
        np.cumsum(n_distinct, out=base[1:])
    else:
        boards = thread_array(tag + "boards", (k, N_ROLLS, BOARD_SIZE), nodes.dtype)
        boards[:] = nodes[:, None, :]
        boards = boards.reshape(k * N_ROLLS, BOARD_SIZE)
        dice = _tiled("rolls", _ROLLS64, k)
        res, off = legal_moves_rows(boards, dice, n_threads, reuse=tag + "results")
        flipped = thread_array(tag + "flipped", res.shape, res.dtype)
        local = thread_array(tag + "local", len(res), np.int64)
        run_spans(lambda lo, hi: _k.distinct_results(res, off, lo, hi, flipped, local,
                                                     n_distinct, _node_hash()),
                  k, n_threads, min_span=_NODES_PER_SPAN)
        np.cumsum(n_distinct, out=base[1:])
        uniq = np.empty((int(base[-1]), BOARD_SIZE), res.dtype)
        run_spans(lambda lo, hi: _k.gather_distinct(flipped, off, n_distinct, base, lo, hi,
                                                    uniq),
                  k, n_threads, min_span=_NODES_PER_SPAN)
    n_res = int(off[-1])
    pairs = k * N_ROLLS
    if prune:
        q, cls, keep = _pruned_values(net, uniq, off, local, base, pairs, n_threads)
    else:
        q, cls = net.evaluate_rows(uniq, threads=n_threads,
                                   out=(thread_array(tag + "probs", (len(uniq), 5), np.float64),
                                        thread_array(tag + "classes", len(uniq), np.int8)))
        keep = _tiled("ones", _ONE, n_res)
    child = np.empty(pairs, np.int64)
    tied = np.empty(pairs, np.int64)
    leaf = np.bool_(ply == 1)
    scores = thread_array(tag + "scores", n_res, np.float64)
    run_spans(lambda lo, hi: _k.pick_best(q, off, local, base, keep, leaf, lo, hi, child,
                                          tied, scores),
              pairs, n_threads, min_span=_NODES_PER_SPAN * N_ROLLS)
    child_probs = q[child]
    child_ties = np.zeros(pairs, np.int64)
    if ply > 1:
        deeper = np.flatnonzero(cls[child] > C_BEAROFF2)
        if deeper.size:
            child_probs[deeper], child_ties[deeper] = _expand(net, uniq[child[deeper]],
                                                              ply - 1, n_threads, prune)
    values = (_swap(child_probs).reshape(k, N_ROLLS, 5)
              * _WEIGHTS[None, :, None]).sum(axis=1) / 36.0
    ties = (tied + child_ties).reshape(k, N_ROLLS).sum(axis=1)
    return values, ties


def _level_results(tag, nodes, n_distinct):
    """(off, uniq, local) of a level's ``nodes`` on this thread by one
    :func:`fastbg.evaluators.search_kernels.level_results` call (more when the results
    outgrow the first guess of their room, each with twice the room): off int64
    (21 k + 1) the results' offsets per (node, roll) pair, uniq the distinct results
    flipped, node after node, local each result's row among its node's distinct ones;
    n_distinct[j] is set to node j's count."""
    k = len(nodes)
    cap = k * N_ROLLS * _LEVEL_ROWS_PER_PAIR + MAX_RESULTS
    res = thread_array(tag + "results", (cap, BOARD_SIZE), nodes.dtype)
    flipped = thread_array(tag + "flipped", (cap, BOARD_SIZE), nodes.dtype)
    local = thread_array(tag + "local", cap, np.int64)
    off = np.empty(k * N_ROLLS + 1, np.int64)
    off[0] = 0
    done, run = _k.level_results(nodes, _ROLLS64, 0, k, res, off, flipped, local,
                                 n_distinct, _node_hash(), _move_scratch(), 0)
    while done < k:
        used = int(off[N_ROLLS * done])
        cap = 2 * cap
        res = _grown(res, used, cap)
        flipped = _grown(flipped, run, cap)
        local = _grown(local, used, cap)
        done, run = _k.level_results(nodes, _ROLLS64, done, k, res, off, flipped, local,
                                     n_distinct, _node_hash(), _move_scratch(), run)
    return off, flipped[:run], local


def _grown(a, keep, rows):
    """A fresh array of ``rows`` rows holding a[:keep]."""
    out = np.empty((rows,) + a.shape[1:], a.dtype)
    out[:keep] = a[:keep]
    return out


def _pruned_values(net, uniq, off, local, base, pairs, n_threads):
    """(probabilities, classes, keep) of a level's distinct results ``uniq`` with pruning:
    the pruning nets score them all, each pair keeps its best few
    (:func:`fastbg.evaluators.search_kernels.prune_select`), and only the distinct results
    a kept one uses are evaluated in full (the others' probabilities are never read)."""
    pq, cls = net.prune_rows(uniq, threads=n_threads)
    pscore = mover_scores(pq)
    keep = np.zeros(off[-1], np.int8)
    need = np.zeros(len(uniq), np.int8)
    run_spans(lambda lo, hi: _k.prune_select(pscore, cls, off, local, base, _prune_slots(), lo,
                                             hi, keep, need),
              pairs, n_threads, min_span=_NODES_PER_SPAN * N_ROLLS)
    full = np.flatnonzero(need)
    q = pq
    if full.size:
        q[full] = net.evaluate_rows(np.ascontiguousarray(uniq[full]), threads=n_threads)[0]
    return q, cls, keep


# Nodes a span of the level kernels takes at least (a node is a few hundred results).
_NODES_PER_SPAN = 16
# Room for a level's results at first, per (node, roll) pair (plus one roll's most); a
# level with more asks for more (:func:`_level_results`).
_LEVEL_ROWS_PER_PAIR = 32
# Nodes of a last level from which each thread takes spans of it whole, and those spans'
# sizes (guided: from the most down to the least; :func:`_expand`).
_WHOLE_LEVEL_NODES = 64
_MIN_PART, _MAX_PART = 16, 40
_ROLLS64 = ROLLS.astype(np.int64)
_ONE = np.ones(1, np.int8)


def _tiled(key, unit, count):
    """``count`` copies of the array ``unit`` one after another along its first axis: a
    view of this thread's table of them, kept and grown (not to be written to)."""
    table = thread_scratch(key, lambda: unit[:0])
    if len(table) < count * len(unit):
        copies = max(count, 2 * len(table) // len(unit), 64)
        table = np.tile(unit, (copies,) + (1,) * (unit.ndim - 1))
        set_thread_scratch(key, table)
    return table[:count * len(unit)]


def _prune_slots():
    """This thread's scratch of :func:`fastbg.evaluators.search_kernels.prune_select`."""
    return thread_scratch("prune_slots", lambda: np.zeros(_k.MAX_PRUNE_MOVES, np.int64))


def _move_scratch():
    """This thread's move generator scratch of
    :func:`fastbg.evaluators.search_kernels.level_results`."""
    return thread_scratch("move_scratch", _k.new_move_scratch)


def _node_hash():
    """This thread's table of :func:`fastbg.evaluators.search_kernels.distinct_results`."""
    return thread_scratch("node_hash", _k.new_node_hash)
