"""The game loop: many cubeless games in parallel, each a pure function of (seed, game).

Two drivers share the per-ply helpers below:

* :func:`play_games` plays whole games inside one kernel, tasks of contiguous games (one
  scratch set per task) shared out to Python threads. Used whenever both bots run inside
  numba: the built-in policies and numba plug-in scorers.
* The lock-step kernels (:func:`lockstep_start`, :func:`lockstep_dice`,
  :func:`lockstep_apply`) advance every live game by one ply per round, so a Python
  evaluator can score the candidates of all live games in one call between rounds.

Game state (struct of arrays, one row per game): ``boards`` (n, 26) int8 from the view of
the player on roll, ``side`` (whose turn: 0 or 1, an index into the bots), ``ply`` (plies
played), and the outcome rows ``(winner, kind, plies, first, error)``: kind 1 single,
2 gammon, 3 backgammon, 0 when the game was truncated (then ``winner`` holds the side on
roll and the final board is kept); error 0 = fine, else an ERR_* code.

Per-run game settings travel as an int64 vector ``gcfg`` (indices G_*): the start
position's side and use, the opening mode, ply limits, debug checks, the match score
and the initial cube. ``rot`` (int64[r, 36]) holds permutations of the 36 ordered rolls
for quasi-random dice on the first ``r`` plies (see :func:`turn_dice`).

With the cube enabled (``cfg[C_ENABLED]``, see :mod:`fastbg.cube.decision_kernels`) each turn
starts with the cube phase, before the roll; the outcome then also holds the final cube
``value``, whether a double was ``dropped`` and the settled ``points`` (always from the
winner's side: the wrapper signs them).
"""
from collections import namedtuple

import numpy as np
from numba import njit, prange, types
from numba.extending import overload

from fastbg.cube import decision_kernels as _cube
from fastbg import dice as _dice
from fastbg.evaluators import net_kernels as _gn
from fastbg.position import movegen as _mg
from fastbg.sim import policy_kernels as _pol
from fastbg.sim import record_kernels as _rec
from fastbg.jit import HOT
from fastbg.constants import BAR, BOARD_SIZE, CHECKERS, HOME_TOP, MAX_RESULTS, OPP_BAR


ERR_NAN = 1          # a bot scored a candidate NaN
ERR_TOO_LONG = 2     # the game passed the ply limit
ERR_INVARIANT = 3    # debug mode: a step broke a board invariant
ERR_CUBE_OVERFLOW = 4  # with no cube limit, the stake passed what the results hold

# choose_segments: tasks, each with its scratch (enough for load balance on any machine).
SEGMENT_TASKS = 64
N_OUT_PROBS = 5          # win, win gammon, win backgammon, lose gammon, lose backgammon

# Opening modes (docs/rules.md section 2).
OPENING_USE = 0      # the first player plays the two opening dice
OPENING_REROLL = 1   # the first player rolls both dice afresh
OPENING_NO_DOUBLES = 2   # ply 0 is a fresh roll without doubles, as an opening roll
                         # (GNU Backgammon's "rollout as initial position")

# gcfg entries.
(G_START_SIDE, G_USE_START, G_OPENING, G_MAX_PLIES, G_TRUNCATE, G_DEBUG, G_AWAY0, G_AWAY1,
 G_CRAWFORD_GAME, G_CRAWFORD_AFTER, G_CUBE_VALUE, G_CUBE_OWNER, G_NO_FIRST_CUBE,
 G_SIZE) = range(14)


Bots = namedtuple("Bots", "policies point extra gnet gbo plugin0 plugin1")
Bots.__doc__ = """The two bots of a run, as the game kernels take them.

policies int64[2] policy code of bot 0 and bot 1 (fastbg.sim.policy_kernels: RANDOM ...);
point float64[2, 25, 31] and extra float64[2, 2] pubeval's tables
(:func:`fastbg.sim.policy_kernels.pubeval_tables`); gnet the gnubg net weights
(:class:`fastbg.evaluators.net_kernels.Net`) and gbo its bear-off tables
(:class:`fastbg.evaluators.net_kernels.Bearoff`), both None when no bot plays gnubg (the
networks are then not compiled in); plugin0, plugin1 the numba scorers of PLUGIN bots,
else None."""

Cubes = namedtuple("Cubes", "cfg strategies efficiencies met_pre met_post plugin0 plugin1")
Cubes.__doc__ = """The cube settings of a run (:mod:`fastbg.cube.decision_kernels`).

cfg int64[C_SIZE] the rules vector (C_*); strategies int64[2] cube strategy of each
player (CUBE_*); efficiencies float64[2] their Janowski cube efficiency; met_pre
float64[n, n] and met_post float64[2, n] the match equity tables (1x1 / 2x1 placeholders
in money play); plugin0, plugin1 the numba ``probs(board, out)`` of Janowski strategies,
:data:`NET_CUBE` for a Janowski strategy on the run's gnubg networks (``Bots.gnet``), else
None. Runs without the cube pass None instead of a Cubes."""

NetCube = namedtuple("NetCube", "tag")
NetCube.__doc__ = """The type of :data:`NET_CUBE`: a Janowski strategy's probabilities come from
the run's gnubg networks (``Bots.gnet`` and ``Bots.gbo``), evaluated by the cached network
kernels with the thread's net scratch, instead of a plug-in compiled once per process."""
NET_CUBE = NetCube(np.int64(0))


GameScratch = namedtuple("GameScratch",
                         "board prev out scores probs netp work stack hashes slots gscr")
GameScratch.__doc__ = """Per-thread scratch of the game loop (:func:`new_game_scratch`).

board int8[26] the game's board (the final position after :func:`play_one`); prev int8[26]
the board before the move (debug checks); out int8[MAX_RESULTS, 26] the legal results;
scores float64[MAX_RESULTS]; probs float64[5] cube probabilities; netp float64[5] the
gnubg networks' probabilities of the board for :data:`NET_CUBE`; work, stack, hashes,
slots the move generator's scratch (:func:`fastbg.position.movegen.new_scratch`); gscr a
:class:`fastbg.evaluators.net_kernels.NetScratch`, None without a gnubg net."""


def plain(x):
    """A named tuple as a plain tuple (None stays None): the form in which a parallel loop
    can take it in (numba's parfors cannot pass named tuples built elsewhere into the loop,
    nor nested ones)."""
    return None if x is None else tuple(x)


@overload(plain)
def _plain_impl(x):
    if isinstance(x, types.NoneType):
        return lambda x: None
    return lambda x: x[:]


def _rebuilder(cls, what):
    """:func:`plain`'s inverse for ``cls`` (None stays None), in Python and in kernels."""
    def rebuild(x):
        return None if x is None else cls(*x)
    rebuild.__doc__ = f":func:`plain`'s inverse for the gnubg {what}."

    @overload(rebuild)
    def _rebuild_impl(x):
        if isinstance(x, types.NoneType):
            return lambda x: None
        return lambda x: cls(*x)
    return rebuild


as_net = _rebuilder(_gn.Net, "net weights")
as_bearoff = _rebuilder(_gn.Bearoff, "bear-off tables")


@njit(**HOT)
def flip_inplace(b):
    """Turn ``b`` to the other player's view: new[i] = -old[25 - i]."""
    for i in range(BOARD_SIZE // 2):
        j = BAR - i
        x = b[i]
        b[i] = -b[j]
        b[j] = -x


@njit(**HOT)
def mover_checkers(b):
    """The mover's checkers still on the board or the bar."""
    n = 0
    for p in range(1, BAR + 1):
        if b[p] > 0:
            n += b[p]
    return n


@njit(**HOT)
def win_kind(b):
    """Kind of the win just completed by the mover of ``b`` (all 15 borne off).

    1 single if the opponent has borne off a checker; else 3 backgammon if the opponent
    still has a checker on the bar or in the mover's home board, else 2 gammon.
    """
    opp = -b[OPP_BAR]
    for p in range(1, BAR):
        if b[p] < 0:
            opp -= b[p]
    if opp < CHECKERS:
        return 1
    if b[OPP_BAR] < 0:
        return 3
    for p in range(1, HOME_TOP + 1):
        if b[p] < 0:
            return 3
    return 2


@njit(**HOT)
def start_game(seed, game, start_board, start_side, use_start, board):
    """Set ``board`` to the first position of ``game``; returns (side, d1, d2, ties).

    Without a start position this is the opening roll of docs/rules.md section 2: the higher
    single die moves first and plays both dice shown (d1 = its own die). With one, the
    given side rolls for ply 0.
    """
    for i in range(BOARD_SIZE):
        board[i] = start_board[i]
    if use_start:
        d1, d2 = _dice.roll(seed, game, np.int64(0))
        return start_side, d1, d2, 0
    side, a, b, ties = _dice.opening_roll(seed, game)
    if side == 0:
        return side, a, b, ties
    return side, b, a, ties


@njit(**HOT)
def no_cube_at_ply0(gcfg):
    """True when nobody may double before ply 0: it plays the opening throw (the first
    player has already rolled), or the run forbids it (the no-double line of a cube
    rollout, G_NO_FIRST_CUBE)."""
    return (gcfg[G_USE_START] == 0 and gcfg[G_OPENING] == OPENING_USE) or gcfg[G_NO_FIRST_CUBE] != 0


@njit(**HOT)
def turn_dice(seed, game, ply, d1, d2, opening, rot):
    """The dice of ``ply``.

    Quasi-random plies first (``ply < len(rot)``): game g takes ordered roll
    ``rot[0, g % 36]`` on ply 0 and ``rot[1, (g // 36 + g) % 36]`` on ply 1, so each
    aligned block of 36 games has every first roll (and every second roll) once and each
    aligned block of 1,296 games every pair of first two rolls once. Then the opening
    dice stand for ply 0 unless the opening is re-rolled; later plies are counter-based.
    OPENING_NO_DOUBLES: ply 0 takes ``rot[0, g % 30]`` (the setup puts the 30 ordered
    rolls without doubles first, :func:`fastbg.sim.setup.dice_rotation`), so each aligned
    block of 30 games has every one of them once; without rotation the opening throw's
    dice (uniform over the 30, from their own stream).
    """
    if ply < rot.shape[0]:
        if ply == 0:
            o = rot[0, game % (30 if opening == OPENING_NO_DOUBLES else 36)]
        else:
            o = rot[1, (game // 36 + game) % 36]
        return o // 6 + 1, o % 6 + 1
    if ply == 0 and opening == OPENING_USE:
        return d1, d2
    if ply == 0 and opening == OPENING_NO_DOUBLES:
        _, a, b, _ = _dice.opening_roll(seed, game)
        return a, b
    return _dice.roll(seed, game, ply)


@njit(**HOT)
def choose_builtin(policy, seed, game, ply, before, cands, k, point, extra, gnet, gbo, scores,
                   gscr):
    """Index of the result a built-in policy plays (-1 for a NaN score).

    point and extra are pubeval's tables, gnet and gbo the gnubg net arrays and bear-off
    tables (see ``bots``; both None when no bot plays gnubg, and then the networks are not
    compiled in); gscr is a gnubg scratch (:func:`fastbg.evaluators.net_kernels.new_scratch`).
    """
    if k == 1:
        return 0
    if policy == _pol.RANDOM:
        return _dice.uniform_index(seed, game, ply, k)
    if policy == _pol.PUBEVAL:
        _pol.pubeval_scores(before, cands, k, point, extra, scores)
    elif policy == _pol.GNUBG:
        # The None test is on an argument: numba then prunes the networks out of the
        # kernels of runs without gnubg (compiling them is most of a fresh start).
        if gnet is not None:
            _gn.scores(cands, k, gnet, gbo, gscr, scores)
    else:
        _pol.greedy_scores(before, cands, k, scores)
    return _pol.best_index(scores, k)


@njit(**HOT)
def cube_enabled(cubes):
    """True when the cube is in play: ``cubes`` is given (not None) and enables it.

    Runs without the cube pass ``cubes=None``; the cube helpers below test that on their
    argument, so numba prunes the cube decisions (and their kernels) out of those runs.
    """
    if cubes is None:
        return False
    return cubes.cfg[_cube.C_ENABLED] != 0


@njit(**HOT)
def opening_stake(cubes, seed, game, ties, value):
    """The stake after the opening ties (automatic doubles); ``value`` without the cube."""
    if cubes is None:
        return value
    return _cube.auto_double_stake(cubes.cfg, seed, game, ties)


def bind_probs(plug, netp):
    """A cube plug-in as :func:`fastbg.cube.decision_kernels.probs_call` takes it:
    :data:`NET_CUBE` becomes ``netp``, the networks' probabilities of the board computed
    beforehand (in :func:`play_one`); a numba function or None stays as it is."""
    return netp if isinstance(plug, NetCube) else plug


@overload(bind_probs)
def _bind_probs_impl(plug, netp):
    if isinstance(plug, types.BaseNamedTuple) and plug.instance_class is NetCube:
        return lambda plug, netp: netp
    return lambda plug, netp: plug


def uses_net_cube(cubes):
    """True when a strategy of ``cubes`` is :data:`NET_CUBE` (decided when compiling)."""
    return cubes is not None and any(isinstance(p, NetCube)
                                     for p in (cubes.plugin0, cubes.plugin1))


@overload(uses_net_cube)
def _uses_net_cube_impl(cubes):
    net = (not isinstance(cubes, types.NoneType)
           and any(isinstance(t, types.BaseNamedTuple) and t.instance_class is NetCube
                   for t in (cubes.types[cubes.fields.index("plugin0")],
                             cubes.types[cubes.fields.index("plugin1")])))
    return lambda cubes: net


@njit(**HOT)
def net_cube_wanted(cubes, side, owner, value, crawford_game):
    """True when a Janowski strategy may need the networks' probabilities of the board in
    this cube phase (the player on roll may double, and a Janowski strategy plays)."""
    if cubes is None or not uses_net_cube(cubes):
        return False
    c = cubes
    if crawford_game or not (owner < 0 or owner == side):
        return False
    if not _cube.under_limit(c.cfg, 2 * value):
        return False
    return (c.strategies[side] == _cube.CUBE_JANOWSKI
            or c.strategies[1 - side] == _cube.CUBE_JANOWSKI)


def net_probs_into(gnet, gbo, gscr, board, rows, scores, netp):
    """netp = the networks' probabilities of ``board`` (its player on roll's), by the call
    the gnubg bot makes (:func:`fastbg.evaluators.net_kernels.scores` of the board seen from
    the other side: a "result" whose opponent, the player on roll, the networks judge;
    the same numbers as ``evaluate_board``); a no-op without the networks. Inlined into
    the game loop: a call level of its own holding the networks would cost their
    optimisation and code generation again (the first gnubg game on a fresh cache took
    85 s so, 56 s without the cube)."""
    if gscr is None:
        return
    rows[0] = -board[::-1]
    _gn.scores(rows, 1, gnet, gbo, gscr, scores)
    netp[:] = gscr.res[0]


@overload(net_probs_into, inline="always")
def _net_probs_into_impl(gnet, gbo, gscr, board, rows, scores, netp):
    if isinstance(gscr, types.NoneType):
        return lambda gnet, gbo, gscr, board, rows, scores, netp: None

    def impl(gnet, gbo, gscr, board, rows, scores, netp):
        for i in range(BOARD_SIZE):
            rows[0, i] = -board[BOARD_SIZE - 1 - i]
        _gn.scores(rows, np.int64(1), gnet, gbo, gscr, scores)
        for i in range(N_OUT_PROBS):
            netp[i] = gscr.res[0, i]
    return impl


@njit(**HOT)
def cube_turn(cubes, side, board, value, owner, turned, away0, away1, crawford_game,
              crawford_after, probs, netp):
    """:func:`fastbg.cube.decision_kernels.cube_phase` with the ``cubes`` settings; netp
    holds the networks' probabilities of the board for :data:`NET_CUBE`."""
    if cubes is None:
        return value, owner, turned, False, 0, 0
    c = cubes
    return _cube.cube_phase(c.cfg, c.strategies, c.efficiencies, c.met_pre, c.met_post, side,
                            board, value, owner, turned, away0, away1, crawford_game,
                            crawford_after, bind_probs(c.plugin0, netp),
                            bind_probs(c.plugin1, netp), probs)


@njit(**HOT)
def settle_points(cubes, value, turned, kind, winner_away):
    """Points of a game played out: :func:`fastbg.cube.decision_kernels.settle`, or
    ``kind`` without the cube."""
    if cubes is None:
        return kind
    return _cube.settle(cubes.cfg, value, turned, kind, winner_away)


@njit(**HOT)
def call_scorer(plugin, before, cands, scores):
    """Run a plug-in scorer; a no-op when ``plugin`` is None.

    The None test must be on an argument of the function making the call: numba prunes
    the call only then (the built-in specialisations stay cacheable).
    """
    if plugin is not None:
        plugin(before, cands, scores)


@njit(**HOT)
def step_ok(before, after, d1, d2):
    """Debug check of one move: checker counts and the direction of travel.

    The opponent keeps all its checkers on board and bar (a hit only moves one to the
    bar) and its pips never fall; the mover never gains checkers and its pips fall by at
    most the dice total (less when bearing off with a high die).
    """
    mb = 0
    ma = 0
    ob = 0
    oa = 0
    pip_b = 0
    pip_a = 0
    opip_b = 0
    opip_a = 0
    for p in range(BOARD_SIZE):
        x = np.int64(before[p])     # int64: int8 products overflow when run as plain Python
        y = np.int64(after[p])
        if x > 0:
            mb += x
            pip_b += p * x
        elif x < 0:
            ob -= x
            opip_b -= (BAR - p) * x
        if y > 0:
            ma += y
            pip_a += p * y
        elif y < 0:
            oa -= y
            opip_a -= (BAR - p) * y
    top = d1 + d2 if d1 != d2 else 4 * d1
    if mb > CHECKERS or ob > CHECKERS or ma > mb or oa != ob:
        return False
    if opip_a < opip_b or pip_a > pip_b or pip_b - pip_a > top:
        return False
    return True


@njit(**HOT)
def play_one(seed, game, gcfg, start_board, rot, bots, cubes, scr, gen, rec):
    """Play one game to the end (or to the truncation ply) in the scratch ``scr``.

    bots  = :class:`Bots`; cubes = :class:`Cubes`, or None for a run without the cube
    scr   = :class:`GameScratch`; its board holds the final position afterwards.
    rec   = a :class:`fastbg.sim.record_kernels.Recorder` that receives the game's actions,
            or None (not recording: the record calls compile to nothing).
    Returns (winner, kind, plies, first, error, gen, value, dropped, points): ``gen`` is
    the caller's dedupe generation counter, advanced once per ply; ``points`` is what the
    winner scores (kind when the cube is off).
    """
    policies, point, extra, gnet, gbo = bots.policies, bots.point, bots.extra, bots.gnet, bots.gbo
    plugin0, plugin1 = bots.plugin0, bots.plugin1
    board, prev, out, scores, probs = scr.board, scr.prev, scr.out, scr.scores, scr.probs
    work, stack, hashes, slots, gscr = scr.work, scr.stack, scr.hashes, scr.slots, scr.gscr
    side, d1, d2, ties = start_game(seed, game, start_board, gcfg[G_START_SIDE],
                                    gcfg[G_USE_START] != 0, board)
    first = side
    if gcfg[G_USE_START] == 0:
        _rec.opening(rec, seed, game, side, d1, d2, ties)
    opening = gcfg[G_OPENING]
    debug = gcfg[G_DEBUG] != 0
    truncate = gcfg[G_TRUNCATE]
    cube_on = cube_enabled(cubes)
    away0 = gcfg[G_AWAY0]
    away1 = gcfg[G_AWAY1]
    value = gcfg[G_CUBE_VALUE]
    owner = gcfg[G_CUBE_OWNER]
    turned = owner >= 0
    if cube_on and gcfg[G_USE_START] == 0:
        value = opening_stake(cubes, seed, game, ties, value)
    # The opening throw is the first player's roll (docs/rules.md section 2): no cube before it.
    opens = no_cube_at_ply0(gcfg)
    # Counters start as np.int64, not a literal 0: a callee given a literal argument is
    # compiled once more for that literal type (numba types the loop before it unifies).
    ply = np.int64(0)
    while True:
        if truncate >= 0 and ply >= truncate:
            return side, 0, ply, first, 0, gen, value, False, 0
        if cube_on and not (ply == 0 and opens):
            stake = value
            if net_cube_wanted(cubes, side, owner, value, gcfg[G_CRAWFORD_GAME] != 0):
                net_probs_into(gnet, gbo, gscr, board, out, scores, scr.netp)
            value, owner, turned, over, w, pts = cube_turn(
                cubes, side, board, value, owner, turned, away0, away1,
                gcfg[G_CRAWFORD_GAME] != 0, gcfg[G_CRAWFORD_AFTER] != 0, probs, scr.netp)
            if over and w == _cube.OVERFLOW:
                return side, 0, ply, first, ERR_CUBE_OVERFLOW, gen, value, False, 0
            _rec.doubling(rec, side, stake, value, over, w)
            if over:
                return w, 1, ply, first, 0, gen, value, True, pts
        r1, r2 = turn_dice(seed, game, ply, d1, d2, opening, rot)
        gen += 1
        k = _mg.generate(board, r1, r2, out, np.int64(0), work, stack, hashes, slots, gen)
        policy = policies[side]
        if policy == _pol.PLUGIN and k > 1:
            if side == 0:
                call_scorer(plugin0, board, out[:k], scores[:k])
            else:
                call_scorer(plugin1, board, out[:k], scores[:k])
            idx = _pol.best_index(scores, k)
        elif policy == _pol.PLUGIN or k == 1:
            idx = 0
        elif policy == _pol.RANDOM:
            # Dispatched here rather than through choose_builtin: a call passing the gnubg
            # tables (dozens of arrays, each reference-counted) on every ply cost a third
            # of the random-vs-random speed (31.8k -> 21.0k games/s on one thread).
            idx = _dice.uniform_index(seed, game, ply, k)
        elif policy == _pol.PUBEVAL:
            _pol.pubeval_scores(board, out, k, point, extra, scores)
            idx = _pol.best_index(scores, k)
        else:
            idx = choose_builtin(policy, seed, game, ply, board, out, k, point, extra, gnet,
                                 gbo, scores, gscr)
        if idx < 0:
            return side, 0, ply, first, ERR_NAN, gen, value, False, 0
        _rec.move(rec, side, r1, r2, board, out[idx])
        if debug:
            for i in range(BOARD_SIZE):
                prev[i] = board[i]
        for i in range(BOARD_SIZE):
            board[i] = out[idx, i]
        if debug and not step_ok(prev, board, r1, r2):
            return side, 0, ply, first, ERR_INVARIANT, gen, value, False, 0
        ply += 1
        if mover_checkers(board) == 0:
            kind = win_kind(board)
            pts = kind
            if cube_on:
                pts = settle_points(cubes, value, turned, kind, away0 if side == 0 else away1)
            return side, kind, ply, first, 0, gen, value, False, pts
        if ply >= gcfg[G_MAX_PLIES]:
            return side, 0, ply, first, ERR_TOO_LONG, gen, value, False, 0
        flip_inplace(board)
        side ^= 1


def net_scratch(gnet):
    """A gnubg scratch (:func:`fastbg.evaluators.net_kernels.new_scratch`), or None when the
    run has no gnubg net (``gnet`` None). Chosen by the type of ``gnet`` when compiling
    (an ``is None`` branch would type as an optional scratch when ``gnet`` is a net)."""
    if gnet is None:
        return None
    return _gn.new_scratch()


@overload(net_scratch)
def _net_scratch_impl(gnet):
    if isinstance(gnet, types.NoneType):
        return lambda gnet: None
    return lambda gnet: _gn.new_scratch()


@njit(cache=True)
def new_game_scratch(gnet):
    """Scratch for one thread: a :class:`GameScratch` (its gnubg part None without a gnubg
    net ``gnet``)."""
    work, stack, hashes, slots = _mg.new_scratch()
    return GameScratch(np.zeros(BOARD_SIZE, np.int8), np.zeros(BOARD_SIZE, np.int8),
                       np.empty((MAX_RESULTS, BOARD_SIZE), np.int8), np.zeros(MAX_RESULTS),
                       np.zeros(5), np.zeros(5), work, stack, hashes, slots, net_scratch(gnet))


@njit(nogil=True, cache=True)
def play_games(seed, game0, t_lo, t_hi, n_tasks, gcfg, start_board, rot, bots, cubes,
               outcome, cube_out, final, rec):
    """Play tasks ``t_lo .. t_hi - 1`` of the games ``game0 .. game0 + n - 1`` (n =
    len(outcome)) cut into ``n_tasks`` contiguous tasks, each with its own scratch.

    outcome  (n, 5) int32: winner, kind, plies, first, error per game.
    cube_out (n, 3) int32: final cube value, dropped (0/1), points won by the winner.
    final    (n, 26) int8 receives each game's last board when truncating, else (0, 26).
    rec      None, or a :class:`fastbg.sim.record_kernels.RecordBuffers` (one region of
             rows per game) that receives each game's actions.
    The kernel runs without the GIL on Python threads (:func:`fastbg.parallel.run_spans`
    shares the tasks out), not in a ``prange`` loop: that compiled the whole game (with
    the networks, for a gnubg bot) a second time, in a gufunc of its own.
    """
    n = outcome.shape[0]
    keep = final.shape[0] == n
    for t in range(t_lo, t_hi):
        lo = t * n // n_tasks
        hi = (t + 1) * n // n_tasks
        scr = new_game_scratch(bots.gnet)
        gen = np.int64(0)
        for g in range(lo, hi):
            w, kd, pl, fi, err, gen, val, drp, pts = play_one(
                seed, game0 + g, gcfg, start_board, rot, bots, cubes, scr, gen,
                _rec.recorder_for(rec, g))
            outcome[g, 0] = w
            outcome[g, 1] = kd
            outcome[g, 2] = pl
            outcome[g, 3] = fi
            outcome[g, 4] = err
            cube_out[g, 0] = val
            cube_out[g, 1] = drp
            cube_out[g, 2] = pts
            if keep:
                board = scr.board
                for i in range(BOARD_SIZE):
                    final[g, i] = board[i]


@njit(**HOT)
def match_key(match, j):
    """The dice key of game ``j`` of match ``match``: ``(match << 16) | j`` (a match to N
    points has at most 2N - 1 games). Every driver of matches keys its games so, in the
    kernel or in lock-step, so that the same seed gives the same matches."""
    return (match << 16) | j


@njit(**HOT)
def match_game_cfg(cfg, length, s0, s1, crawford_done, g_cfg):
    """Set the match entries of ``g_cfg`` (G_AWAY0, G_AWAY1, G_CRAWFORD_GAME,
    G_CRAWFORD_AFTER) for the next game of a match to ``length`` at s0-s1 under the rules
    vector ``cfg``; ``crawford_done`` when a Crawford game was played already. Returns
    True when the next game is the Crawford game: the first game after a player first
    reaches ``length - 1`` (with ``cfg[C_CRAWFORD_RULE]``)."""
    a0 = length - s0
    a1 = length - s1
    craw = (cfg[_cube.C_CRAWFORD_RULE] != 0 and not crawford_done
            and (a0 == 1 or a1 == 1))
    g_cfg[G_AWAY0] = a0
    g_cfg[G_AWAY1] = a1
    g_cfg[G_CRAWFORD_GAME] = craw
    g_cfg[G_CRAWFORD_AFTER] = (cfg[_cube.C_CRAWFORD_RULE] != 0
                               and not crawford_done and not craw)
    return craw


@njit(**HOT)
def match_scored(length, s0, s1, craw, crawford_done, winner, points):
    """(s0, s1, crawford_done) after a game of a match to ``length`` (``craw``: it was the
    Crawford game) won by ``winner`` for ``points``: points past the length count only
    as a win."""
    if craw:
        crawford_done = True
    if winner == 0:
        s0 = min(length, s0 + points)
    else:
        s1 = min(length, s1 + points)
    return s0, s1, crawford_done


@njit(nogil=True, cache=True)
def play_matches(seed, match0, t_lo, t_hi, n_tasks, length, gcfg, start_board, rot, bots,
                 cubes, result, rec):
    """Play tasks ``t_lo .. t_hi - 1`` of whole matches to ``length`` points, matches
    ``match0 .. match0 + n - 1`` cut into ``n_tasks`` tasks (on Python threads, as
    :func:`play_games`).

    Every game starts from ``start_board`` (the starting position) with the opening roll.
    Game j of match m uses the game key ``(m << 16) | j`` for its dice (a match to N
    points has at most 2N - 1 games). result (n, 5) int32: winner, games played, final
    score of player 0, of player 1, error (first non-zero game error).
    rec: None, or a :class:`fastbg.sim.record_kernels.RecordBuffers` (one region of rows
    per match, heads per game) that receives every game's actions.
    The Crawford game is the first game after a player first reaches ``length - 1``
    (when ``cfg[C_CRAWFORD_RULE]``); points past the length count only as a win.
    """
    n = result.shape[0]
    cfg = cubes.cfg
    for t in range(t_lo, t_hi):
        lo = t * n // n_tasks
        hi = (t + 1) * n // n_tasks
        scr = new_game_scratch(bots.gnet)
        g_cfg = gcfg.copy()
        gen = np.int64(0)
        for m in range(lo, hi):
            s0 = 0
            s1 = 0
            games = 0
            crawford_done = False
            err = 0
            mrec = _rec.recorder_for(rec, m)
            while s0 < length and s1 < length:
                craw = match_game_cfg(cfg, length, s0, s1, crawford_done, g_cfg)
                key = match_key(match0 + m, games)
                row0 = _rec.rows_used(rec, m)
                got = play_one(seed, key, g_cfg, start_board, rot, bots, cubes, scr, gen, mrec)
                w, kd, pl, fi, e, gen, val, drp, pts = got
                _rec.game_head(rec, m, games, row0, s0, s1, craw, got)
                games += 1
                if e != 0:
                    err = e
                    break
                s0, s1, crawford_done = match_scored(length, s0, s1, craw, crawford_done, w,
                                                     pts)
            result[m, 0] = 0 if s0 >= length else 1
            result[m, 1] = games
            result[m, 2] = s0
            result[m, 3] = s1
            result[m, 4] = err


def game_key(game0, g):
    """The dice key of the game in row ``g`` of a lock-step run: ``game0 + g`` for a run of
    consecutive games, ``game0[g]`` when ``game0`` is an int64 array of keys (lock-step
    matches, each row the current game of its match: :func:`match_key`). Chosen by type
    when compiling, so runs of games compile as before."""
    if isinstance(game0, np.ndarray):
        return game0[g]
    return game0 + g


@overload(game_key)
def _game_key_impl(game0, g):
    if isinstance(game0, types.Array):
        return lambda game0, g: game0[g]
    return lambda game0, g: game0 + g


def game_cfg(gcfg, g):
    """The settings vector of the game in row ``g``: ``gcfg`` itself when the games of a
    call share it (int64 (G_SIZE,)), row ``g`` when each game has its own (int64 (n,
    G_SIZE): lock-step matches, each game at its match's score)."""
    if gcfg.ndim == 2:
        return gcfg[g]
    return gcfg


@overload(game_cfg)
def _game_cfg_impl(gcfg, g):
    if gcfg.ndim == 2:
        return lambda gcfg, g: gcfg[g]
    return lambda gcfg, g: gcfg


# ---- lock-step driver: one ply for every live game per round -------------------------
# Per-game state arrays: boards (n, 26), side, ply, d1/d2 (opening dice), value, owner,
# turned, alive; outcome and cube_out as in play_games.

@njit(parallel=True, cache=True)
def lockstep_start(seed, game0, gcfg, start_board, cfg, boards, side, d1, d2, value, owner,
                   turned, alive, outcome, rec):
    """Set up games game0 .. game0 + n - 1 (n = len(side)) for lock-step play.

    rec: None, or a :class:`fastbg.sim.record_kernels.RecordBuffers` (one region of rows
    per game) whose counts are reset here and which then receives the opening throws; the
    other lock-step kernels add each game's cube actions and moves, as :func:`play_one`
    writes them."""
    for g in prange(side.shape[0]):
        s, a, b, ties = start_game(seed, game0 + g, start_board, gcfg[G_START_SIDE],
                                   gcfg[G_USE_START] != 0, boards[g])
        r = _rec.recorder_for(rec, g)
        if gcfg[G_USE_START] == 0:
            _rec.opening(r, seed, game0 + g, s, a, b, ties)
        side[g] = s
        outcome[g, 3] = s
        d1[g] = a
        d2[g] = b
        value[g] = gcfg[G_CUBE_VALUE]
        owner[g] = gcfg[G_CUBE_OWNER]
        turned[g] = gcfg[G_CUBE_OWNER] >= 0
        if cfg[_cube.C_ENABLED] != 0 and gcfg[G_USE_START] == 0:
            value[g] = _cube.auto_double_stake(cfg, seed, game0 + g, ties)
        if gcfg[G_TRUNCATE] == 0:
            alive[g] = False
            outcome[g, 0] = s


@njit(parallel=True, cache=True)
def lockstep_cube(gcfg, cubes, live, boards, side, ply, value, owner, turned, alive, outcome,
                  cube_out, rec):
    """The cube phase of every live game (before its roll); ends games with a drop.
    rec: None, or the run's RecordBuffers (the cube actions are added to each game's rows)."""
    cplug0, cplug1 = cubes.plugin0, cubes.plugin1
    for j in prange(live.shape[0]):
        probs = np.zeros(5)
        _lockstep_cube_one(gcfg, cubes.cfg, cubes.strategies, cubes.efficiencies,
                           cubes.met_pre, cubes.met_post, live[j], boards, side, ply, value,
                           owner, turned, alive, outcome, cube_out, cplug0, cplug1, probs,
                           _rec.recorder_at(rec, live[j]))


@njit(parallel=True, cache=True)
def lockstep_cube_rows(gcfg, cubes, live, boards, side, ply, value, owner, turned, alive,
                       outcome, cube_out, rows0, rows1, rec):
    """:func:`lockstep_cube` for strategies whose probabilities were computed beforehand
    from Python (batch evaluators, e.g. the n-ply networks): rows0[j] / rows1[j] (float64,
    (len(live), 5)) are player 0's / player 1's cubeless probabilities of game live[j]'s
    board (its player on roll's view); unused rows may hold anything. rec as in
    :func:`lockstep_cube`."""
    for j in prange(live.shape[0]):
        probs = np.zeros(5)
        _lockstep_cube_one(gcfg, cubes.cfg, cubes.strategies, cubes.efficiencies,
                           cubes.met_pre, cubes.met_post, live[j], boards, side, ply, value,
                           owner, turned, alive, outcome, cube_out, rows0[j], rows1[j], probs,
                           _rec.recorder_at(rec, live[j]))


@njit(**HOT)
def _lockstep_cube_one(gcfg, cfg, strat, xeff, met_pre, met_post, g, boards, side, ply, value,
                       owner, turned, alive, outcome, cube_out, plug0, plug1, probs, r):
    """The cube phase of lock-step game ``g`` with the two players' probability plug-ins;
    ``r`` its Recorder (None: not recording)."""
    if ply[g] == 0 and no_cube_at_ply0(gcfg):
        return
    stake = value[g]
    v, o, tr, over, w, pts = _cube.cube_phase(
        cfg, strat, xeff, met_pre, met_post, side[g], boards[g], value[g], owner[g],
        turned[g], gcfg[G_AWAY0], gcfg[G_AWAY1], gcfg[G_CRAWFORD_GAME] != 0,
        gcfg[G_CRAWFORD_AFTER] != 0, plug0, plug1, probs)
    if over and w == _cube.OVERFLOW:
        alive[g] = False
        outcome[g, 0] = side[g]
        outcome[g, 2] = ply[g]
        outcome[g, 4] = ERR_CUBE_OVERFLOW
        return
    _rec.doubling(r, side[g], stake, v, over, w)
    value[g] = v
    owner[g] = o
    turned[g] = tr
    if over:
        alive[g] = False
        outcome[g, 0] = w
        outcome[g, 1] = 1
        outcome[g, 2] = ply[g]
        cube_out[g, 0] = v
        cube_out[g, 1] = 1
        cube_out[g, 2] = pts


@njit(**HOT)
def lockstep_dice(seed, game0, live, ply, d1, d2, gcfg, rot, dice):
    """dice[j] = the roll of game live[j] at its current ply (its key :func:`game_key`)."""
    for j in range(live.shape[0]):
        g = live[j]
        r1, r2 = turn_dice(seed, game_key(game0, g), ply[g], d1[g], d2[g], gcfg[G_OPENING],
                           rot)
        dice[j, 0] = r1
        dice[j, 1] = r2


@njit(parallel=True, cache=True)
def lockstep_choose(seed, game0, live, ply, side, bots, boards, res, off, n_tasks, choice):
    """choice[j] for game live[j] whose candidates are res[off[j]:off[j + 1]] (its key for
    the random bot :func:`game_key`).

    Built-in and plug-in bots choose here; games whose mover is a Python evaluator get
    -2 (to be filled by the caller) unless they have a single candidate; -1 marks a NaN.
    """
    policies, point, extra = bots.policies, bots.point, bots.extra
    plugin0, plugin1 = bots.plugin0, bots.plugin1
    gnet_t, gbo_t = plain(bots.gnet), plain(bots.gbo)
    m = live.shape[0]
    for t in prange(n_tasks):
        scores = np.zeros(MAX_RESULTS)
        gnet, gbo = as_net(gnet_t), as_bearoff(gbo_t)
        gscr = net_scratch(gnet)
        for j in range(t * m // n_tasks, (t + 1) * m // n_tasks):
            g = live[j]
            k = off[j + 1] - off[j]
            cands = res[off[j]:off[j + 1]]
            policy = policies[side[g]]
            if k == 1:
                choice[j] = 0
            elif policy == _pol.EVALUATOR:
                choice[j] = -2
            elif policy == _pol.PLUGIN:
                if side[g] == 0:
                    call_scorer(plugin0, boards[g], cands, scores[:k])
                else:
                    call_scorer(plugin1, boards[g], cands, scores[:k])
                choice[j] = _pol.best_index(scores, k)
            else:
                choice[j] = choose_builtin(policy, seed, game_key(game0, g), ply[g],
                                           boards[g], cands, k, point, extra, gnet, gbo,
                                           scores, gscr)


@njit(**HOT)
def segment_best(scores, seg_off, out):
    """out[i] = first index of the highest of scores[seg_off[i]:seg_off[i + 1]] (-1 if NaN)."""
    for i in range(seg_off.shape[0] - 1):
        lo = seg_off[i]
        out[i] = _pol.best_index(scores[lo:], seg_off[i + 1] - lo)


@njit(parallel=True, cache=True)
def lockstep_apply(live, boards, res, off, choice, dice, side, ply, alive, gcfg, cfg, value,
                   turned, outcome, cube_out, rec):
    """Play the chosen result of every game in ``live``; finish games that end.
    gcfg: the run's settings vector, or one per game (:func:`game_cfg`).
    rec: None, or the run's RecordBuffers (each move is added to its game's rows)."""
    for j in prange(live.shape[0]):
        g = live[j]
        gc = game_cfg(gcfg, g)
        c = choice[j]
        err = 0
        if c < 0:
            err = ERR_NAN
        elif gc[G_DEBUG] != 0 and not step_ok(boards[g], res[off[j] + c], dice[j, 0],
                                                 dice[j, 1]):
            err = ERR_INVARIANT
        if err == 0:
            b = boards[g]
            row = res[off[j] + c]
            _rec.move(_rec.recorder_at(rec, g), side[g], dice[j, 0], dice[j, 1], b, row)
            for i in range(BOARD_SIZE):
                b[i] = row[i]
            ply[g] += 1
            if mover_checkers(b) == 0:
                kind = win_kind(b)
                pts = kind
                if cfg[_cube.C_ENABLED] != 0:
                    away = gc[G_AWAY0] if side[g] == 0 else gc[G_AWAY1]
                    pts = _cube.settle(cfg, value[g], turned[g], kind, away)
                alive[g] = False
                outcome[g, 0] = side[g]
                outcome[g, 1] = kind
                outcome[g, 2] = ply[g]
                cube_out[g, 0] = value[g]
                cube_out[g, 2] = pts
                continue
            if ply[g] >= gc[G_MAX_PLIES]:
                err = ERR_TOO_LONG
            else:
                flip_inplace(b)
                side[g] ^= 1
                if gc[G_TRUNCATE] >= 0 and ply[g] >= gc[G_TRUNCATE]:
                    alive[g] = False        # truncated: kind 0, winner = side on roll
                    outcome[g, 0] = side[g]
                    outcome[g, 2] = ply[g]
                    cube_out[g, 0] = value[g]
                continue
        alive[g] = False
        outcome[g, 0] = side[g]
        outcome[g, 2] = ply[g]
        outcome[g, 4] = err


@njit(parallel=True, cache=True)
def choose_segments(policy, seed, game0, games, ply, befores, res, off, bots, choice):
    """choice[i]: a built-in policy's pick among res[off[i]:off[i + 1]] for game games[i].

    Used by rollouts with variance reduction, which score every roll's move; the random
    policy draws the same index it would draw in play (same game, ply and count).
    ``bots`` the run's :class:`Bots` (its tables; the policy is ``policy``).
    """
    n = games.shape[0]
    n_tasks = min(n, SEGMENT_TASKS)
    point, extra = bots.point, bots.extra
    gnet_t, gbo_t = plain(bots.gnet), plain(bots.gbo)
    for t in prange(n_tasks):
        scores = np.zeros(MAX_RESULTS)
        gnet, gbo = as_net(gnet_t), as_bearoff(gbo_t)
        gscr = net_scratch(gnet)
        for i in range(t * n // n_tasks, (t + 1) * n // n_tasks):
            g = games[i]
            k = off[i + 1] - off[i]
            choice[i] = choose_builtin(policy, seed, game0 + g, ply[g], befores[i],
                                       res[off[i]:off[i + 1]], k, point, extra, gnet, gbo,
                                       scores, gscr)
