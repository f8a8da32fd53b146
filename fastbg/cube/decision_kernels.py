"""Cube decisions and settlement inside the game loop (docs/rules.md sections 6-9).

The rules travel as an int64 vector ``cfg`` (indices C_*), built by
:func:`fastbg.sim.games._cube_config` from MoneyRules / MatchRules; a game's cube state is a
handful of scalars (value, owner: -1 centred or the player 0/1, turned). Strategies:

* ``CUBE_NEVER``: never doubles; takes every double.
* ``CUBE_RACE``: in a race (no contact) doubles, redoubles and takes by Tom Keith's count
  (docs/cube.md section 4); in contact never doubles and always takes. Never beavers.
* ``CUBE_JANOWSKI``: a numba ``probs(board, out)`` plug-in gives the five cubeless
  probabilities of the player on roll; decisions compare cubeful equities. Money play:
  Janowski's model with cube efficiency x (no double / double-take / double-pass);
  beavers when the take is worth more than 0 to the taker, raccoons when the doubler still
  gains holding no cube. Match play: the same comparison in match-winning chances with a
  dead cube (cubeless MWC from the match equity table at the resulting scores).
* ``CUBE_ENGINE``: another engine (bgsage, GNU Backgammon: fastbg/sim/engines.py) decided
  from Python before the cube phase; its "probabilities" row holds its answers instead
  (``E_DOUBLE``: 1.0 when it doubles; ``E_ANSWER``: TAKE, DROP or BEAVER as a float, its
  answer were it doubled). After a beaver it accepts (never drops, never raccoons).

The probabilities come through :func:`probs_call`: a plug-in is a numba function, or a
kernel-side evaluator that a higher layer teaches :func:`probs_call` (the game loop's
built-in gnubg networks, fastbg/sim/game_cube_kernels.py), so that layer's code stays out of
this module and the built-in evaluator's kernels can be cached on disk.
"""
import numpy as np
from numba import njit, types
from numba.extending import overload

from fastbg.cube import keith_kernels as _race
from fastbg import dice as _dice
from fastbg.position.board_kernels import is_race
from fastbg.jit import HOT, INNER

C_ENABLED, C_MATCH, C_JACOBY, C_BEAVERS, C_RACCOONS, C_AUTO, C_AUTO_LIMIT, C_TRIPLE66, \
    C_MAX_CUBE, C_LENGTH, C_CRAWFORD_RULE, C_SIZE = range(12)

CUBE_NEVER = 0
CUBE_RACE = 1
CUBE_JANOWSKI = 2
CUBE_ENGINE = 3

OVERFLOW = -2          # cube_phase's winner when the stake passed CUBE_CAP

# Answers to a double.
TAKE = 0
DROP = 1
BEAVER = 2
RACCOON = 3

# Win chances this close to 0 or 1 take the dead-cube equity (as gnubg and fastbg.cube).
DEAD_EPS = 1e-7
# The largest stake the results hold (int32); with no cube limit a double past it stops
# the run with an error rather than wrapping around.
CUBE_CAP = 1 << 30

# Index of the probabilities: win, win gammon, win backgammon, lose gammon, lose backgammon.
P_WIN, P_WG, P_WBG, P_LG, P_LBG = 0, 1, 2, 3, 4
# Index of a CUBE_ENGINE strategy's answers in its row (the row of the probabilities).
E_DOUBLE, E_ANSWER = 0, 1


@njit(**HOT)
def under_limit(cfg, value):
    """True when a stake of ``value`` is within the cube limit."""
    return cfg[C_MAX_CUBE] < 0 or value <= cfg[C_MAX_CUBE]


@njit(**HOT)
def auto_double_stake(cfg, seed, game, ties):
    """The stake after ``ties`` tied opening throws under automatic doubles (money only)."""
    value = 1
    if cfg[C_MATCH] or not cfg[C_AUTO]:
        return value
    used = 0
    for t in range(ties):
        if cfg[C_AUTO_LIMIT] >= 0 and used >= cfg[C_AUTO_LIMIT]:
            break
        factor = 2
        if cfg[C_TRIPLE66] and _opening_tie_die(seed, game, t) == 6:
            factor = 3
        if not under_limit(cfg, value * factor) or value * factor > CUBE_CAP:
            continue        # as CubeGame.opening_tie: a tie past the limit is just re-thrown
        value *= factor
        used += 1
    return value


@njit(**INNER)
def _opening_tie_die(seed, game, t):
    """The die both players showed on tied opening throw ``t``."""
    r = _dice.rand64(seed, game, t, _dice.STREAM_OPENING)
    return _dice.die_from_bits(r >> np.uint64(32))


@njit(**HOT)
def settle(cfg, value, turned, kind, winner_away):
    """Points for a game played out: stake x kind, with the Jacoby rule and match cap."""
    mult = kind
    if not cfg[C_MATCH] and cfg[C_JACOBY] and not turned:
        mult = 1
    pts = value * mult
    if cfg[C_MATCH] and pts > winner_away:
        pts = winner_away           # points past the match length count only as a win
    return pts


# ---- Janowski (money) -----------------------------------------------------------------

@njit(**INNER)
def _win_loss(p):
    w = p[P_WIN]
    big_w = 1.0 + (p[P_WG] + p[P_WBG]) / w if w > 0 else 1.0
    big_l = 1.0 + (p[P_LG] + p[P_LBG]) / (1.0 - w) if w < 1 else 1.0
    return big_w, big_l


@njit(**INNER)
def _interp(x, x0, y0, x1, y1):
    if x1 <= x0:
        return y1
    return y0 + (y1 - y0) * (x - x0) / (x1 - x0)


@njit(**HOT)
def money_cubeful(p, state, x, jacoby_active):
    """Janowski cubeful equity per unit stake for the player on roll.

    state: 0 centred, 1 owned by the player on roll, 2 owned by the opponent.
    E = E_dead (1 - x) + E_live x, with gnubg's piecewise-linear live equity
    (docs/cube.md section 2; the same formulas as :func:`fastbg.cube.janowski_equity`,
    which the tests compare). With the Jacoby rule active (centred cube, not yet turned)
    gammons do not count: E_dead = 2 P(win) - 1 and the outer live segments are flat at
    -1 and +1, the take and cash points staying those of the real W and L.
    """
    w = p[P_WIN]
    big_w, big_l = _win_loss(p)
    jac = jacoby_active and state == 0
    if jac:
        dead = 2.0 * w - 1.0
    else:
        dead = 2.0 * w - 1.0 + (p[P_WG] - p[P_LG]) + (p[P_WBG] - p[P_LBG])
    if w <= DEAD_EPS or w >= 1.0 - DEAD_EPS:
        return dead
    tp = (big_l - 0.5) / (big_w + big_l + 0.5)
    cp = (big_l + 1.0) / (big_w + big_l + 0.5)
    low = -1.0 if jac else _interp(w, 0.0, -big_l, tp, -1.0)
    high = 1.0 if jac else _interp(w, cp, 1.0, 1.0, big_w)
    if state == 0:
        if w < tp:
            live = low
        elif w < cp:
            live = _interp(w, tp, -1.0, cp, 1.0)
        else:
            live = high
    elif state == 1:
        live = _interp(w, 0.0, -big_l, cp, 1.0) if w < cp else high
    else:
        live = low if w < tp else _interp(w, tp, -1.0, 1.0, big_w)
    return dead * (1.0 - x) + live * x


@njit(**HOT)
def money_decision(p, owned, x, jacoby_active):
    """(no double, double/take, double/pass) per unit of the current stake, doubler's view."""
    nd = money_cubeful(p, 1 if owned else 0, x, jacoby_active)
    dt = 2.0 * money_cubeful(p, 2, x, False)     # a taken double turns the cube
    return nd, dt, 1.0


# ---- match equity (dead cube) -----------------------------------------------------------

@njit(**HOT)
def mwc(met_pre, met_post, away0, away1, crawford_game):
    """Match-winning chance of player 0 needing ``away0`` against one needing ``away1``.

    ``crawford_game`` marks the game being decided as the Crawford game (pre-Crawford table);
    a side at 1-away outside it plays post-Crawford, ``met_post[player, away - 1]`` being the
    trailer's chance (the conventions of :func:`fastbg.met.equity` and gnubg's getME).
    """
    if away0 <= 0:
        return 1.0
    if away1 <= 0:
        return 0.0
    if crawford_game or (away0 > 1 and away1 > 1):
        return met_pre[away0 - 1, away1 - 1]
    if away0 == 1:
        return 1.0 - met_post[1, away1 - 1]
    return met_post[0, away0 - 1]


@njit(**HOT)
def match_cubeless(p, met_pre, met_post, away_me, away_opp, stake, crawford_after):
    """Cubeless MWC for the player on roll with the five probabilities ``p`` at ``stake``."""
    w = p[P_WIN]
    wg = p[P_WG]
    wbg = p[P_WBG]
    lg = p[P_LG]
    lbg = p[P_LBG]
    win1 = mwc(met_pre, met_post, away_me - stake, away_opp, crawford_after)
    win2 = mwc(met_pre, met_post, away_me - 2 * stake, away_opp, crawford_after)
    win3 = mwc(met_pre, met_post, away_me - 3 * stake, away_opp, crawford_after)
    lose1 = mwc(met_pre, met_post, away_me, away_opp - stake, crawford_after)
    lose2 = mwc(met_pre, met_post, away_me, away_opp - 2 * stake, crawford_after)
    lose3 = mwc(met_pre, met_post, away_me, away_opp - 3 * stake, crawford_after)
    return ((w - wg) * win1 + (wg - wbg) * win2 + wbg * win3
            + (1.0 - w - lg) * lose1 + (lg - lbg) * lose2 + lbg * lose3)


# ---- strategy decisions -----------------------------------------------------------------

@njit(**HOT)
def race_wants_double(board, owned):
    """Keith count: double (redouble when ``owned``) in a race; never in contact."""
    if not is_race(board):
        return False
    bits = _race.keith_decision(board)
    return (bits & (_race.RACE_REDOUBLE if owned else _race.RACE_DOUBLE)) != 0


@njit(**HOT)
def race_takes(board):
    """The taker's answer by Keith count, ``board`` seen from the doubler (on roll)."""
    if not is_race(board):
        return True
    return (_race.keith_decision(board) & _race.RACE_TAKE) != 0


def probs_call(plug, board, p):
    """Write the five probabilities of ``board``'s player on roll into ``p`` with ``plug``:
    a numba ``probs(board, out)`` function here; other kernel-side evaluators register
    their own overload of this function for their type."""
    plug(board, p)


@overload(probs_call)
def _probs_call_function(plug, board, p):
    if isinstance(plug, (types.Dispatcher, types.FunctionType)):
        # a numba function, or the C callback of one (fastbg.plugin_pointers)
        def call(plug, board, p):
            plug(board, p)
        return call
    if isinstance(plug, types.Array):
        # the board's probabilities computed beforehand (float64[5]): a batch evaluator's
        # row, :func:`fastbg.sim.lockstep_kernels.lockstep_cube_rows`
        def copy(plug, board, p):
            for i in range(p.shape[0]):
                p[i] = plug[i]
        return copy
    return None


@njit(**INNER)
def _probs(side, board, plug0, plug1, p):
    if side == 0:
        if plug0 is not None:
            probs_call(plug0, board, p)
    else:
        if plug1 is not None:
            probs_call(plug1, board, p)


@njit(**HOT)
def cube_phase(cfg, strat, xeff, met_pre, met_post, side, board, value, owner, turned,
               away0, away1, crawford_game, crawford_after, plug0, plug1, p):
    """The cube at the start of ``side``'s turn, before the roll (board seen from ``side``).

    Returns (value, owner, turned, over, winner, points): ``over`` when a double was
    dropped, ``winner`` then the player who won and ``points`` what the drop paid (in
    match play at most what the winner needs). ``winner == OVERFLOW`` (with ``over``) marks
    a stake past CUBE_CAP with no cube limit set: the caller reports an error.
    """
    v, o, t, over, w, pts = _cube_decisions(cfg, strat, xeff, met_pre, met_post, side, board,
                                            value, owner, turned, away0, away1, crawford_game,
                                            crawford_after, plug0, plug1, p)
    if v > CUBE_CAP:
        return value, owner, turned, True, OVERFLOW, 0
    if over and cfg[C_MATCH] != 0:
        need = away0 if w == 0 else away1
        if pts > need:
            pts = need          # points past the match length count only as a win
    return v, o, t, over, w, pts


@njit(**INNER)
def _cube_decisions(cfg, strat, xeff, met_pre, met_post, side, board, value, owner, turned,
                    away0, away1, crawford_game, crawford_after, plug0, plug1, p):
    if (crawford_game or (owner >= 0 and owner != side)
            or not under_limit(cfg, 2 * value)):
        return value, owner, turned, False, -1, 0
    taker = 1 - side
    s_me = strat[side]
    s_opp = strat[taker]
    match = cfg[C_MATCH] != 0
    away_me = away0 if side == 0 else away1
    away_opp = away1 if side == 0 else away0
    jacoby = (not match) and cfg[C_JACOBY] != 0 and not turned
    # Does the player on roll double?
    if s_me == CUBE_NEVER:
        return value, owner, turned, False, -1, 0
    if s_me == CUBE_RACE:
        if not race_wants_double(board, owner == side):
            return value, owner, turned, False, -1, 0
    elif s_me == CUBE_ENGINE:
        _probs(side, board, plug0, plug1, p)
        if not p[E_DOUBLE] > 0.5:
            return value, owner, turned, False, -1, 0
    else:
        _probs(side, board, plug0, plug1, p)
        if match:
            nd = match_cubeless(p, met_pre, met_post, away_me, away_opp, value, crawford_after)
            dt = match_cubeless(p, met_pre, met_post, away_me, away_opp, 2 * value,
                                crawford_after)
            dp = mwc(met_pre, met_post, away_me - value, away_opp, crawford_after)
        else:
            nd, dt, dp = money_decision(p, owner == side, xeff[side], jacoby)
        if not min(dt, dp) > nd:
            return value, owner, turned, False, -1, 0
    # The taker answers (all answers are judged from the doubler's board and view).
    answer = TAKE
    e_unavail = 0.0
    if s_opp == CUBE_RACE:
        answer = TAKE if race_takes(board) else DROP
    elif s_opp == CUBE_ENGINE:
        _probs(taker, board, plug0, plug1, p)   # the taker's engine, doubler on roll
        answer = DROP if p[E_ANSWER] == DROP else TAKE
        # a beaver the rules (or the cube limit) do not allow is a take (the wrapper asks
        # the engines with beavers off where they are not allowed)
        if p[E_ANSWER] == BEAVER and cfg[C_BEAVERS] != 0 and under_limit(cfg, 4 * value):
            answer = BEAVER
    elif s_opp == CUBE_JANOWSKI:
        _probs(taker, board, plug0, plug1, p)   # the taker's evaluator, doubler on roll
        if match:
            dt = match_cubeless(p, met_pre, met_post, away_me, away_opp, 2 * value,
                                crawford_after)
            dp = mwc(met_pre, met_post, away_me - value, away_opp, crawford_after)
            answer = TAKE if dt <= dp else DROP
        else:
            e_unavail = money_cubeful(p, 2, xeff[taker], False)
            if 2.0 * e_unavail > 1.0:
                answer = DROP
            elif (e_unavail < 0.0 and cfg[C_BEAVERS] != 0
                  and under_limit(cfg, 4 * value)):
                answer = BEAVER
    if answer == DROP:
        return value, owner, turned, True, side, value
    if answer == TAKE:
        return 2 * value, taker, True, False, -1, 0
    # Beaver: the taker accepts 2v, keeps the cube and offers 4v back to the doubler.
    value *= 2
    if s_me == CUBE_JANOWSKI:
        # The doubler judges the beaver with his own evaluator, holding no cube.
        _probs(side, board, plug0, plug1, p)
        e_me = money_cubeful(p, 2, xeff[side], False)
        if 2.0 * e_me < -1.0:
            return value, taker, True, True, taker, value        # drops: pays 2v
        if e_me > 0.0 and cfg[C_RACCOONS] != 0 and under_limit(cfg, 4 * value):
            value *= 2                                            # raccoon: 4v accepted
            if s_opp == CUBE_JANOWSKI:
                _probs(taker, board, plug0, plug1, p)
                if 2.0 * money_cubeful(p, 2, xeff[taker], False) > 1.0:
                    return value, taker, True, True, side, value  # taker drops: pays 4v
            return 2 * value, taker, True, False, -1, 0
    return 2 * value, taker, True, False, -1, 0


@njit(**HOT)
def money_cubeful_rows(probs, state, x, jacoby_active, out):
    """out[i] = :func:`money_cubeful` of probs[i] (probs (m, 5) float64, out (m,) float64):
    the kernel's Janowski equity for :func:`fastbg.cube.janowski_equity`, so the Python
    side and the game loop share one implementation."""
    for i in range(probs.shape[0]):
        out[i] = money_cubeful(probs[i], state, x, jacoby_active)
