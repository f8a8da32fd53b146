"""The game loop: many cubeless games in parallel, each a pure function of (seed, game).

Two drivers share the per-ply helpers below:

* :func:`play_games` plays whole games inside one parallel kernel (prange over chunks of
  games, one scratch set per chunk). Used whenever both bots run inside numba: the
  built-in policies and numba plug-in scorers.
* The lock-step kernels (:func:`lockstep_start`, :func:`lockstep_roll`,
  :func:`lockstep_apply`) advance every live game by one ply per round, so a Python
  evaluator can score the candidates of all live games in one call between rounds.

Game state (struct of arrays, one row per game): ``boards`` (n, 26) int8 from the view of
the player on roll, ``side`` (whose turn: 0 or 1, an index into the bots), ``ply`` (plies
played), and the outcome arrays ``winner``, ``kind`` (1 single, 2 gammon, 3 backgammon),
``plies``, ``first`` and ``error`` (0 = fine, else an ERR_* code).

The cube is not played here yet; a cube decision would go at the start of a turn, before
the roll (see :func:`turn_dice`), and settle through the outcome arrays.
"""
import numpy as np
from numba import njit, prange

from . import dice as _dice
from . import movegen as _mg
from . import policies as _pol

BAR = 25
OPP_BAR = 0
BOARD_SIZE = 26
CHECKERS = 15
HOME_TOP = 6
MAX_RESULTS = _mg.MAX_RESULTS

ERR_NAN = 1          # a bot scored a candidate NaN
ERR_TOO_LONG = 2     # the game passed the ply limit
ERR_INVARIANT = 3    # debug mode: a step broke a board invariant

# Opening modes (RULES.md section 2).
OPENING_USE = 0      # the first player plays the two opening dice
OPENING_REROLL = 1   # the first player rolls both dice afresh


@njit(cache=True)
def flip_inplace(b):
    """Turn ``b`` to the other player's view: new[i] = -old[25 - i]."""
    for i in range(BOARD_SIZE // 2):
        j = BAR - i
        x = b[i]
        b[i] = -b[j]
        b[j] = -x


@njit(cache=True)
def mover_checkers(b):
    """The mover's checkers still on the board or the bar."""
    n = 0
    for p in range(1, BAR + 1):
        if b[p] > 0:
            n += b[p]
    return n


@njit(cache=True)
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


@njit(cache=True)
def start_game(seed, game, start_board, start_side, use_start, board):
    """Set ``board`` to the first position of ``game``; returns (side on roll, d1, d2).

    Without a start position this is the opening roll of RULES.md section 2: the higher
    single die moves first and plays both dice shown (d1 = its own die). With one, the
    given side rolls for ply 0.
    """
    for i in range(BOARD_SIZE):
        board[i] = start_board[i]
    if use_start:
        d1, d2 = _dice.roll(seed, game, 0)
        return start_side, d1, d2
    side, a, b, ties = _dice.opening_roll(seed, game)
    if side == 0:
        return side, a, b
    return side, b, a


@njit(cache=True)
def turn_dice(seed, game, ply, d1, d2, opening):
    """The dice of ``ply``: the opening dice stand for ply 0 unless the opening is re-rolled."""
    if ply == 0 and opening == OPENING_USE:
        return d1, d2
    return _dice.roll(seed, game, ply)


@njit(cache=True)
def choose_builtin(policy, seed, game, ply, before, cands, k, point, extra, scores):
    """Index of the result a built-in policy plays (-1 for a NaN score)."""
    if k == 1:
        return 0
    if policy == _pol.RANDOM:
        return _dice.uniform_index(seed, game, ply, k)
    if policy == _pol.PUBEVAL:
        _pol.pubeval_scores(before, cands, k, point, extra, scores)
    else:
        _pol.greedy_scores(before, cands, k, scores)
    return _pol.best_index(scores, k)


@njit(cache=True)
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
        x = before[p]
        y = after[p]
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


@njit(cache=True)
def play_one(seed, game, start_board, start_side, use_start, opening, policies, point,
             extra, plugin0, plugin1, max_plies, debug, board, prev, out, scores, work,
             stack, hashes, slots, gen):
    """Play one game to the end in the given scratch.

    Returns (winner, kind, plies, first, error, gen): ``gen`` is the caller's dedupe
    generation counter, advanced once per ply.
    """
    side, d1, d2 = start_game(seed, game, start_board, start_side, use_start, board)
    first = side
    ply = 0
    while True:
        r1, r2 = turn_dice(seed, game, ply, d1, d2, opening)
        gen += 1
        k = _mg.generate(board, r1, r2, out, 0, work, stack, hashes, slots, gen)
        policy = policies[side]
        if policy == _pol.PLUGIN and k > 1:
            if side == 0:
                if plugin0 is not None:
                    plugin0(board, out[:k], scores[:k])
            else:
                if plugin1 is not None:
                    plugin1(board, out[:k], scores[:k])
            idx = _pol.best_index(scores, k)
        elif policy == _pol.PLUGIN:
            idx = 0
        else:
            idx = choose_builtin(policy, seed, game, ply, board, out, k, point, extra, scores)
        if idx < 0:
            return side, 0, ply, first, ERR_NAN, gen
        if debug:
            for i in range(BOARD_SIZE):
                prev[i] = board[i]
        for i in range(BOARD_SIZE):
            board[i] = out[idx, i]
        if debug and not step_ok(prev, board, r1, r2):
            return side, 0, ply, first, ERR_INVARIANT, gen
        ply += 1
        if mover_checkers(board) == 0:
            return side, win_kind(board), ply, first, 0, gen
        if ply >= max_plies:
            return side, 0, ply, first, ERR_TOO_LONG, gen
        flip_inplace(board)
        side ^= 1


@njit(cache=True)
def new_game_scratch():
    """Scratch for one thread: board, previous board, results buffer, scores, movegen."""
    work, stack, hashes, slots = _mg.new_scratch()
    return (np.zeros(BOARD_SIZE, np.int8), np.zeros(BOARD_SIZE, np.int8),
            np.empty((MAX_RESULTS, BOARD_SIZE), np.int8), np.zeros(MAX_RESULTS),
            work, stack, hashes, slots)


@njit(parallel=True, cache=True)
def play_games(seed, game0, n_tasks, start_board, start_side, use_start, opening, policies,
               point, extra, plugin0, plugin1, max_plies, debug,
               winner, kind, plies, first, error):
    """Play games ``game0 .. game0 + n - 1`` (n = len(winner)) in ``n_tasks`` parallel tasks.

    Outcome arrays (n,): winner int8, kind int8, plies int32, first int8, error int8.
    Each task plays a contiguous slice of games with its own scratch, allocated once.
    """
    n = winner.shape[0]
    for t in prange(n_tasks):
        lo = t * n // n_tasks
        hi = (t + 1) * n // n_tasks
        board, prev, out, scores, work, stack, hashes, slots = new_game_scratch()
        gen = 0
        for g in range(lo, hi):
            w, kd, pl, fi, err, gen = play_one(
                seed, game0 + g, start_board, start_side, use_start, opening, policies,
                point, extra, plugin0, plugin1, max_plies, debug, board, prev, out, scores,
                work, stack, hashes, slots, gen)
            winner[g] = w
            kind[g] = kd
            plies[g] = pl
            first[g] = fi
            error[g] = err


# ---- lock-step driver: one ply for every live game per round -------------------------

@njit(parallel=True, cache=True)
def lockstep_start(seed, game0, start_board, start_side, use_start, boards, side, d1, d2,
                   first):
    """Set up games game0 .. game0 + n - 1 (n = len(side)) for lock-step play."""
    for g in prange(side.shape[0]):
        s, a, b = start_game(seed, game0 + g, start_board, start_side, use_start, boards[g])
        side[g] = s
        first[g] = s
        d1[g] = a
        d2[g] = b


@njit(cache=True)
def lockstep_dice(seed, game0, live, ply, d1, d2, opening, dice):
    """dice[j] = the roll of game live[j] at its current ply."""
    for j in range(live.shape[0]):
        g = live[j]
        r1, r2 = turn_dice(seed, game0 + g, ply[g], d1[g], d2[g], opening)
        dice[j, 0] = r1
        dice[j, 1] = r2


@njit(parallel=True, cache=True)
def lockstep_choose(seed, game0, live, ply, side, policies, boards, res, off, point, extra,
                    plugin0, plugin1, n_tasks, choice):
    """choice[j] for game live[j] whose candidates are res[off[j]:off[j + 1]].

    Built-in and plug-in bots choose here; games whose mover is a Python evaluator get
    -2 (to be filled by the caller) unless they have a single candidate; -1 marks a NaN.
    """
    m = live.shape[0]
    for t in prange(n_tasks):
        scores = np.zeros(MAX_RESULTS)
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
                    if plugin0 is not None:
                        plugin0(boards[g], cands, scores[:k])
                else:
                    if plugin1 is not None:
                        plugin1(boards[g], cands, scores[:k])
                choice[j] = _pol.best_index(scores, k)
            else:
                choice[j] = choose_builtin(policy, seed, game0 + g, ply[g], boards[g], cands,
                                           k, point, extra, scores)


@njit(cache=True)
def segment_best(scores, seg_off, out):
    """out[i] = first index of the highest of scores[seg_off[i]:seg_off[i + 1]] (-1 if NaN)."""
    for i in range(seg_off.shape[0] - 1):
        lo = seg_off[i]
        out[i] = _pol.best_index(scores[lo:], seg_off[i + 1] - lo)


@njit(parallel=True, cache=True)
def lockstep_apply(live, boards, res, off, choice, dice, side, ply, alive, winner, kind,
                   plies, error, max_plies, debug):
    """Play the chosen result of every game in ``live``; finish games that end."""
    for j in prange(live.shape[0]):
        g = live[j]
        c = choice[j]
        if c < 0:
            error[g] = ERR_NAN
            winner[g] = side[g]
            plies[g] = ply[g]
            alive[g] = False
            continue
        b = boards[g]
        row = res[off[j] + c]
        if debug and not step_ok(b, row, dice[j, 0], dice[j, 1]):
            error[g] = ERR_INVARIANT
            winner[g] = side[g]
            plies[g] = ply[g]
            alive[g] = False
            continue
        for i in range(BOARD_SIZE):
            b[i] = row[i]
        ply[g] += 1
        if mover_checkers(b) == 0:
            winner[g] = side[g]
            kind[g] = win_kind(b)
            plies[g] = ply[g]
            alive[g] = False
        elif ply[g] >= max_plies:
            error[g] = ERR_TOO_LONG
            winner[g] = side[g]
            plies[g] = ply[g]
            alive[g] = False
        else:
            flip_inplace(b)
            side[g] ^= 1
