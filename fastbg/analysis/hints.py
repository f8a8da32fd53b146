"""Ranked moves (GNU Backgammon's ``hint``) at n-ply, one position or many at once.

:func:`hint` lists the legal moves of a position and roll best first (docs/engine.md
section 3). At ``ply`` 0 every candidate is ranked by the network's 0-ply score; at ply
p >= 1 the default filter (``"gnubg"``, gnubg-nn's ``FindBestMove``) keeps the best 0-ply
candidates (8 at 1-ply, 4 deeper) and ranks them by their p-ply equity, the others
following at 0-ply; ``"normal"`` is GNU Backgammon's default move filter (at most 8
candidates within 0.16 of the best 0-ply equity, none when only the best is within:
it is then played as is), and ``"tiny"``, ``"narrow"``, ``"large"``, ``"huge"`` its other
presets (:data:`MOVE_FILTERS`); any other (n, t) is a pair or its text "NxT" (``(2, 0.03)``
or ``"2x0.03"``: bgsage's rollouts choose their moves with that one inside their trials);
``filter=None`` evaluates every candidate at p. ``prune=True``
prunes inside the look-ahead as GNU Backgammon 1.x does (its pruning nets:
:func:`fastbg.evaluators.search.nply_probabilities`).

A candidate's p-ply value is that of the position after the move, the opponent on roll,
looked ahead p plies (:func:`fastbg.evaluators.search.nply_probabilities` of the flipped
result), turned back to the mover's side.
"""
import math
import re
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from fastbg.analysis.cube_actions import cube_efficiency
from fastbg.constants import BOARD_SIZE
from fastbg.cube import formulas
from fastbg.cube.rules import MatchRules, MoneyRules
from fastbg.cube.formulas import equity_of, swap_sides
from fastbg.evaluators.own_nets import default_net
from fastbg.evaluators.search import check_ply, mover_scores, nply_probabilities
from fastbg.html_tables import html_block, html_table
from fastbg.position.board import validate
from fastbg.position.diagram import show as _show
from fastbg.position.ids import read_position
from fastbg.position.moves import legal_moves_rows, validate_dice
from fastbg.position.notation import move_notation
from fastbg.parallel import resolve_threads
from fastbg.validation import check_choice, check_flag, check_int

# gnubg-nn's FindBestMove: how many of the best 0-ply candidates are looked at more deeply.
CANDIDATES = {1: 8}
DEEP_CANDIDATES = 4
# GNU Backgammon's move filters (its movefilters.inc) at 1 and 2 plies: at most this many
# moves, the best included, within this much of the best 0-ply equity. (At 3 plies they
# add a 2-ply stage, not implemented: these filters take ply 1 and 2.) "normal" is GNU
# Backgammon's default for play and rollouts, "large" (16, 0.32) its analysis default.
MOVE_FILTERS = {"tiny": (5, 0.08), "narrow": (8, 0.12), "normal": (8, 0.16),
                "large": (16, 0.32), "huge": (20, 0.44)}
FILTERS = ("gnubg", None) + tuple(MOVE_FILTERS)
# Any other filter of that kind: a pair (at most n moves, within t), or its text "NxT"
# ("2x0.03": at most 2 moves within 0.03 of the best, the filter bgsage's rollouts use
# inside their trials; docs/engine.md section 3).
_FILTER_TEXT = re.compile(r"^\s*(\d+)\s*x\s*(\d*\.?\d+)\s*$")
# Pairs ranked together: their candidates (about 20 a pair, up to 3,060) and probabilities
# stay a few MB however many pairs hint_batch is given.
PAIRS_PER_CHUNK = 4096


@dataclass(frozen=True, eq=False)
class Candidate:
    """One legal move of a hint list.

    move: GNU Backgammon's notation (written when first read); board: the position after
    it, mover's view (int8 (26,)); probabilities: the mover's five probabilities after it
    (float64 (5,)); equity: his cubeless money equity, or with rules his cubeful money
    equity per unit of the cube (money) or match-winning chance (match); diff: equity
    minus the best's (<= 0); ply: the depth it was evaluated at (the filtered-out
    candidates keep 0); cubeless_equity: his cubeless money equity.
    """
    board: np.ndarray
    probabilities: np.ndarray
    equity: float
    diff: float
    ply: int
    cubeless_equity: float
    before: np.ndarray = field(repr=False)
    dice: tuple = field(repr=False)

    @classmethod
    def _fast(cls, board, probabilities, equity, diff, ply, cubeless_equity, before, dice):
        """A candidate from values already checked and typed, its fields set directly
        (the frozen dataclass's ``__init__`` sets each through ``object.__setattr__``)."""
        c = object.__new__(cls)
        d = c.__dict__
        d["board"], d["probabilities"], d["equity"], d["diff"] = board, probabilities, equity, diff
        d["ply"], d["cubeless_equity"], d["before"], d["dice"] = ply, cubeless_equity, before, dice
        return c

    @cached_property
    def move(self):
        return move_notation(self.before, self.board, self.dice)

    def to_dict(self):
        return {"move": self.move, "board": self.board.tolist(),
                "probabilities": self.probabilities.tolist(), "equity": self.equity,
                "diff": self.diff, "ply": self.ply, "cubeless_equity": self.cubeless_equity}


class Hint(list):
    """The candidates of one position and roll, best first (a list of :class:`Candidate`),
    with the position, dice and ply; ``str()`` gives GNU Backgammon's hint layout."""

    def __init__(self, candidates, board, dice, ply, value="cubeless"):
        super().__init__(candidates)
        self.board, self.dice, self.ply = board, dice, ply
        self.value = value      # what .equity is: "cubeless", "money" (cubeful) or "match"

    @property
    def best(self):
        return self[0]

    def to_dict(self):
        return {"board": self.board.tolist(), "dice": list(self.dice), "ply": self.ply,
                "value": self.value, "candidates": [c.to_dict() for c in self]}

    def text(self, show_probabilities=True):
        """GNU Backgammon's hint layout: rank, depth, move, equity and difference; the
        mover's win, gammon and backgammon chances, and the opponent's, below each."""
        width = max([len(c.move) for c in self] + [4])
        lines = []
        for i, c in enumerate(self, 1):
            if self.value == "match":
                diff = "" if i == 1 else f"({100 * c.diff:+.2f}%)"
                figure = f"MWC: {100 * c.equity:6.2f}%"
            else:
                diff = "" if i == 1 else f"({c.diff:+.3f})"
                figure = f"Eq.: {c.equity:+.3f}"
            lines.append(f"{i:>4}. {c.ply}-ply  {c.move:<{width}}  {figure} {diff}".rstrip())
            if show_probabilities:
                p = c.probabilities
                lines.append(f"       {p[0]:.3f} {p[1]:.3f} {p[2]:.3f} - {1 - p[0]:.3f} "
                             f"{p[3]:.3f} {p[4]:.3f}")
        return "\n".join(lines)

    __str__ = text

    def show(self, width=None):
        """The position and dice as a picture (:func:`fastbg.show`)."""
        return _show(self.board, self.dice, width=width)

    def _repr_html_(self):
        """The position's picture over a table of the candidates (Jupyter draws it)."""
        match = self.value == "match"
        rows = []
        for i, c in enumerate(self, 1):
            p = c.probabilities
            figure = f"{100 * c.equity:.2f}%" if match else f"{c.equity:+.3f}"
            diff = "" if i == 1 else (f"{100 * c.diff:+.2f}%" if match else f"{c.diff:+.3f}")
            rows.append([i, f"{c.ply}-ply", c.move, figure, diff,
                         *(f"{v:.3f}" for v in (p[0], p[1], p[2], p[3], p[4]))])
        what = {"cubeless": "cubeless equity", "money": "cubeful equity", "match": "MWC"}
        head = ["#", "depth", "move", what.get(self.value, self.value), "diff",
                "win", "w-g", "w-bg", "l-g", "l-bg"]
        caption = f"{len(self)} candidates for {self.dice[0]}-{self.dice[1]}"
        return html_block(self.show().svg, html_table(head, rows, caption, "rrlrrrrrrr"))


def _net(net):
    if net is None:
        return default_net()
    return net


def hint(position, dice=None, ply=0, filter="gnubg", net=None, threads=None, rules=None,
         score=None, cube=None, owner=None, crawford=None, prune=False):
    """The legal moves of ``position`` with ``dice``, best first, as a :class:`Hint`.

    position: a board int8[26] (player on roll), a Position ID or an XGID (whose dice are
    used when ``dice`` is None). ply: 0..3. filter: "gnubg" (the best 0-ply candidates
    looked at more deeply, see the module), "normal" (GNU Backgammon's default; its
    other presets "tiny", "narrow", "large", "huge"), a pair (n, t) or its text "NxT" (at
    most n candidates within t of the best, e.g. (2, 0.03)) or None (every candidate at
    ``ply``). prune: GNU Backgammon 1.x's pruning nets inside
    the look-ahead. net: the evaluator (default ``fastbg.default_net()``: GNU
    Backgammon's networks where installed, else fastbg's own).

    Cubeful ranking (docs/engine.md section 3): with ``rules`` (``fastbg.MoneyRules()`` or
    ``fastbg.MatchRules(n)``), or an XGID of a match, each candidate's ``equity`` is the
    mover's cubeful equity per unit of the cube (money) or match-winning chance (match):
    Janowski's model on the opponent's probabilities after the move, at gnubg's cube
    efficiency of that position, with the cube ``cube`` (default 1) owned by ``owner``
    (None centred, "on_roll" the mover, "opponent"), at ``score`` (the mover's points,
    the opponent's) and ``crawford``. An XGID supplies what is not given.

    >>> import fastbg
    >>> h = fastbg.hint(fastbg.START, (3, 1))                          # doctest: +SKIP
    >>> h[0].move                                                      # doctest: +SKIP
    '8/5 6/5'
    """
    board, info = read_position(position, "hint")
    if dice is None:
        if info is None or info.dice is None:
            raise ValueError("no dice: pass dice=(d1, d2), or an XGID that has them")
        dice = info.dice
    cubeful = cube_state(info, rules, score, cube, owner, crawford)
    ply, filter, prune = _check_options(ply, filter, prune)
    d = validate_dice([dice], 1)
    # read_position checked the board: it goes on as it is
    return _hints_checked(board[None], d, ply, filter, net, threads, cubeful, prune)[0]


def hint_checked(board, dice, ply, legal):
    """``hint(board, dice, ply=ply)`` (cubeless, the gnubg filter, gnubg's networks) of a
    board and dice already checked (a valid int8 (26,) and a pair of ints 1..6) whose legal
    moves ``legal`` (``legal_moves(board, dice)``, in its order) are already generated:
    nothing is checked or generated again (a move rollout's candidates)."""
    ply, filter, prune = _check_options(ply, "gnubg", False)
    legal = (legal, np.array([0, len(legal)], np.int64))
    return _hints_checked(board[None], np.array([dice], np.int64), ply, filter, None, None,
                          None, prune, legal)[0]


def cube_state(info, rules, score, cube, owner, crawford):
    """The cube state a hint ranks under: None (cubeless) or (rules, away, cube, owner,
    crawford), owner seen from the mover; an XGID's ``info`` fills what is not given."""
    if info is not None:
        if rules is None and info.match_length:
            rules = MatchRules(info.match_length)
        if rules is not None and rules.is_match and score is None and \
                info.match_length == rules.length:
            on_bottom = info.turn == "bottom"
            score = ((info.score_bottom, info.score_top) if on_bottom
                     else (info.score_top, info.score_bottom))
            crawford = info.crawford if crawford is None else crawford
        if rules is not None:
            cube = info.cube_value if cube is None else cube
            owner = info.cube_owner_relative if owner is None else owner
    if rules is None:
        if any(v is not None for v in (score, cube, owner, crawford)):
            raise ValueError("score, cube, owner and crawford rank cubefully: pass rules= "
                             "(fastbg.MoneyRules() or fastbg.MatchRules(n))")
        return None
    if not isinstance(rules, (MoneyRules, MatchRules)):
        raise TypeError(f"rules must be fastbg.MoneyRules(...) or fastbg.MatchRules(n), got "
                        f"{type(rules).__name__}")
    cube = check_int("cube", 1 if cube is None else cube, 1)
    if cube & (cube - 1):
        raise ValueError(f"the cube shows a power of two (1, 2, 4, ...), got {cube}")
    owner = check_choice("owner", owner, _OWNER_VIEW)
    if not rules.is_match:
        if score is not None or crawford:
            raise ValueError("score and crawford apply to match play (fastbg.MatchRules(n))")
        return rules, None, cube, owner, False
    mine, theirs = (0, 0) if score is None else score
    for v in (mine, theirs):
        check_int("score", v, 0, rules.length - 1)
    return rules, (rules.length - mine, rules.length - theirs), cube, owner, bool(crawford)


# The cube owner seen by the opponent after the move (the formulas' words), from the
# mover's: centred stays centred, the mover's cube is unavailable to him, his own is owned.
_OWNER_VIEW = {None: "centred", "centred": "centred", "on_roll": "unavailable",
               "opponent": "owned"}


def _cubeful_values(opp_probs, opp_boards, state):
    """The mover's cubeful value of each result: minus (money) or one minus (match) the
    opponent's Janowski value of his own probabilities, at his position's efficiency."""
    rules, away, cube, owner, crawford = state
    opp_owner = _OWNER_VIEW[owner]
    out = np.empty(len(opp_probs))
    xs = np.atleast_1d(cube_efficiency(opp_boards)) if len(opp_boards) else []
    for i, (q, x) in enumerate(zip(opp_probs, xs)):
        if away is None:
            jac = rules.jacoby and cube == 1 and opp_owner == "centred"
            out[i] = -float(formulas.janowski_equity(q, opp_owner, x, jacoby=jac))
        else:
            out[i] = 1.0 - float(formulas.janowski_mwc(q, away[1], away[0], x, cube, opp_owner,
                                                       crawford=crawford))
    return out


def hint_batch(boards, dice, ply=0, filter="gnubg", net=None, threads=None, rules=None,
               score=None, cube=None, owner=None, crawford=None, prune=False):
    """:func:`hint` for many (board, roll) pairs at once: boards (n, 26), dice (n, 2).

    All candidates of all pairs go to the evaluator as one batch at 0-ply, and the ones
    looked at more deeply as one n-ply batch. Returns a list of n :class:`Hint`. The cube
    arguments, shared by all pairs, rank cubefully as in :func:`hint`.
    """
    state = cube_state(None, rules, score, cube, owner, crawford)
    return _hints(boards, dice, ply, filter, net, threads, state, prune)


def check_filter(filter, ply):
    """``filter`` checked against the filters and the ply it is used at: "gnubg", None, a
    name of :data:`MOVE_FILTERS`, or a pair (n, t) / its text "NxT" (at most n >= 1 moves
    within t >= 0 of the best 0-ply equity), returned as the pair (int, float)."""
    if isinstance(filter, str) and _FILTER_TEXT.match(filter):
        m = _FILTER_TEXT.match(filter)
        filter = (int(m.group(1)), float(m.group(2)))
    if isinstance(filter, (tuple, list)):
        filter = _check_pair(filter)
    elif filter not in FILTERS:
        raise ValueError(f"filter must be one of {sorted(FILTERS, key=repr)} or a pair (n, t) "
                         f"(its text 'NxT', e.g. '2x0.03'), got {filter!r}")
    if filter_pair(filter) is not None and ply > 2:
        raise ValueError(f"filter {filter!r} takes ply 1 or 2 (GNU Backgammon's 3-ply stage "
                         f"is not implemented), got ply {ply}: use filter 'gnubg' or None")
    return filter


def _check_pair(pair):
    """A filter pair (n, t) as (int, float), or a ValueError that says what is wrong."""
    bad = ValueError(f"a move filter pair is (at most n moves, within t of the best), n >= 1 "
                     f"and t >= 0, e.g. (2, 0.03) or '2x0.03'; got {pair!r}")
    if len(pair) != 2 or isinstance(pair[0], bool) or isinstance(pair[1], bool):
        raise bad
    most, threshold = pair
    try:
        ok = int(most) == most and most >= 1 and math.isfinite(threshold) and threshold >= 0
    except (TypeError, ValueError):
        raise bad from None
    if not ok:
        raise bad
    return int(most), float(threshold)


def filter_pair(filter):
    """(at most n, within t) of a checked filter, or None for "gnubg" and None."""
    if isinstance(filter, tuple):
        return filter
    return MOVE_FILTERS.get(filter)


def _check_options(ply, filter, prune):
    """(ply, filter, prune) checked."""
    ply = check_ply(ply)
    return ply, check_filter(filter, ply), check_flag("prune", prune)


def _hints(boards, dice, ply, filter, net, threads, state, prune=False):
    """:func:`hint_batch` once the cube state is known."""
    ply, filter, prune = _check_options(ply, filter, prune)
    b = validate(boards)
    if b.ndim != 2:
        raise ValueError(f"hint_batch takes boards of shape (n, {BOARD_SIZE}), got {b.shape}")
    d = validate_dice(dice, b.shape[0])
    return _hints_checked(b, d, ply, filter, net, threads, state, prune)


def _hints_checked(b, d, ply, filter, net, threads, state, prune, legal=None):
    """:func:`_hints` of checked boards ``b`` (n, 26) int8, dice ``d`` (n, 2) int64 and
    options. ``legal``: None, or the pairs' legal moves already generated, (results,
    offsets) as ``legal_moves_rows`` gives them, for at most PAIRS_PER_CHUNK pairs."""
    net = _net(net)
    n_threads = resolve_threads(threads)
    if legal is not None:
        if b.shape[0] > PAIRS_PER_CHUNK:
            raise ValueError(f"legal moves are passed for one chunk of at most "
                             f"{PAIRS_PER_CHUNK} pairs")
        return _hint_chunk(b, d, ply, filter, net, n_threads, state, prune, legal)
    out = []
    for lo in range(0, b.shape[0], PAIRS_PER_CHUNK):
        hi = min(b.shape[0], lo + PAIRS_PER_CHUNK)
        out.extend(_hint_chunk(b[lo:hi], d[lo:hi], ply, filter, net, n_threads, state,
                               prune))
    return out


def _hint_chunk(b, d, ply, filter, net, n_threads, state, prune, legal=None):
    """The hints of pairs (b, d): one 0-ply batch and one n-ply batch of candidates (of
    the legal moves ``legal``, (results, offsets), when they are already generated)."""
    res, off = legal_moves_rows(b, d, n_threads) if legal is None else legal
    opp = np.ascontiguousarray(-res[:, ::-1])          # flipped: the opponent on roll
    opp_probs = net.probabilities(opp)
    if state is None:
        deep = deep_rows(mover_scores(opp_probs), off, ply, filter)
    else:
        deep = deep_rows(_cubeful_values(opp_probs, opp, state), off, ply, filter)
    depth = np.zeros(len(res), np.int64)
    if ply and deep.size:
        opp_probs[deep] = nply_probabilities(net, opp[deep], ply, n_threads, prune=prune)
        depth[deep] = ply
    probs = swap_sides(opp_probs)                       # the mover's
    cubeless = np.asarray(equity_of(probs), np.float64) if len(res) else np.zeros(0)
    equity = cubeless if state is None else _cubeful_values(opp_probs, opp, state)
    value = "cubeless" if state is None else "money" if state[1] is None else "match"
    out = []
    # Python numbers and rows made in bulk (each candidate's own copy of its rows: one
    # copy of the chunk's arrays, a view each, split in one call), one sort for the whole
    # chunk, then the candidates without the frozen dataclass's per-field checks
    # (:meth:`Candidate._fast`): the Python part of 300 1-ply hints 14-27 -> 6-13 ms (of
    # about 210 ms), then with the one sort and the split 4.6 -> 2.4 ms (of 170).
    boards, probs = list(res.copy()), list(np.ascontiguousarray(probs))
    eq, cub, dep = equity.tolist(), cubeless.tolist(), depth.tolist()
    # pair by pair, the deeper first, each group by equity (ties keep the move order)
    pair = np.repeat(np.arange(b.shape[0]), np.diff(off))
    order = np.lexsort((-equity, -depth, pair)).tolist()
    bounds = off.tolist()
    dice = d.tolist()
    befores = list(b.copy())
    fast = Candidate._fast
    for i in range(b.shape[0]):
        group = order[bounds[i]:bounds[i + 1]]
        best = eq[group[0]]
        dice_i = tuple(dice[i])
        before = befores[i]
        out.append(Hint([fast(boards[j], probs[j], eq[j], eq[j] - best, dep[j], cub[j], before,
                              dice_i) for j in group], before, dice_i, ply, value))
    return out


def deep_rows(scores0, off, ply, filter):
    """Rows of the candidates looked at at ``ply``: all of them (filter None), or per pair
    the best ``CANDIDATES.get(ply, DEEP_CANDIDATES)`` by 0-ply score (the first on ties)
    ("gnubg"), or the best, at most n, within t of the best, none when that is the best
    alone (a filter (n, t): a name of :data:`MOVE_FILTERS` or a pair; GNU Backgammon's
    FindnSaveBestMoves). ``filter`` as :func:`check_filter` returns it.

    Every pair at once: one stable sort by pair and score, each candidate's rank in its
    pair from that (:func:`deep_rows_loop`, the pair-by-pair loop it replaced, is the
    tests' reference: 1.0 -> 0.1 ms for 300 hints, and each turn of an n-ply bot)."""
    if ply == 0:
        return np.zeros(0, np.int64)
    n = int(off[-1])
    if filter is None:
        return np.arange(n, dtype=np.int64)
    if n == 0:
        return np.zeros(0, np.int64)
    scores = np.asarray(scores0)
    counts = np.diff(off)
    pair = np.repeat(np.arange(len(counts)), counts)
    order = np.lexsort((-scores, pair))          # stable: ties keep the candidates' order
    first = np.asarray(off[:-1], np.int64)[pair]
    rank = np.arange(n) - first
    most = filter_pair(filter)
    if most is None:
        keep = rank < CANDIDATES.get(ply, DEEP_CANDIDATES)
    else:
        most, threshold = most
        ranked = scores[order]
        keep = (rank < most) & (ranked >= ranked[first] - threshold)
        kept = np.bincount(pair[keep], minlength=len(counts))
        keep &= kept[pair] > 1
    return np.sort(order[keep])


def deep_rows_loop(scores0, off, ply, filter):
    """:func:`deep_rows` pair by pair (its reference)."""
    if ply == 0:
        return np.zeros(0, np.int64)
    if filter is None:
        return np.arange(off[-1], dtype=np.int64)
    keep = CANDIDATES.get(ply, DEEP_CANDIDATES)
    pair = filter_pair(filter)
    rows = []
    for i in range(off.shape[0] - 1):
        lo, hi = off[i], off[i + 1]
        order = np.argsort(-scores0[lo:hi], kind="stable")
        if pair is not None:
            most, threshold = pair
            s = scores0[lo:hi][order]
            n = int(np.count_nonzero(s[:most] >= s[0] - threshold)) if len(s) else 0
            order = order[:n] if n > 1 else order[:0]
        else:
            order = order[:keep]
        rows.append(lo + order)
    return np.sort(np.concatenate(rows)) if rows else np.zeros(0, np.int64)


class NplyScorer:
    """The choice of an n-ply bot ("gnubg-1ply", ...): the best move of :func:`hint` at
    ``ply`` with the gnubg filter, as scores for the lock-step game loop.

    Called with every candidate of every pending game and the segment offsets (games.py
    passes them to evaluators that have ``takes_segments``): the best 0-ply candidates of
    each game get their n-ply equity, the others their 0-ply score minus 10 (below any
    equity), so the highest score is the move gnubg-nn's ``best_move(n=ply)`` plays.
    """
    takes_segments = True
    # fastbg's lock-step games may run it on several threads at once, each on its own
    # games (fastbg.sim.games._side_by_side): it keeps no state between calls
    runs_side_by_side = True

    def __init__(self, net, ply, threads=None, filter="gnubg", prune=False):
        self.net, self.ply, self.threads = net, check_ply(ply), threads
        self.filter, self.prune = check_filter(filter, self.ply), check_flag("prune", prune)

    def __call__(self, rows, seg):
        opp = np.ascontiguousarray(-rows[:, ::-1])              # flipped: opponent on roll
        s0 = mover_scores(self.net.probabilities(opp))
        scores = s0 - 10.0
        deep = deep_rows(s0, seg, self.ply, self.filter)
        if deep.size:
            p = nply_probabilities(self.net, opp[deep], self.ply, self.threads,
                                   prune=self.prune)
            scores[deep] = -np.asarray(equity_of(p))
        return scores
