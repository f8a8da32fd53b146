"""The one builder of a run's settings: :func:`job_setup` -> :class:`JobSetup`.

Every job that plays games (:func:`fastbg.play`, :func:`fastbg.play_matches`,
:func:`fastbg.rollout`, :func:`fastbg.tournament`) describes its run here, with keyword
arguments only: bots, seed, threads, start position, opening, rules, cube strategies,
match score, truncation, quasi-random dice and the initial cube. The builder validates
everything once (clear errors, nothing played) and groups it as the game kernels take it
(:mod:`fastbg.sim.game_kernels`).
"""
from dataclasses import dataclass

import numpy as np
from numba.core.ccallback import CFunc

from fastbg.constants import START
from fastbg.cube import decision_kernels as _kcube
from fastbg.cube import strategies as _cubes
from fastbg.cube.rules import MatchRules, MoneyRules
from fastbg.parallel import resolve_threads
from fastbg.plugin_pointers import (is_placeholder, no_probs, no_scorer, probs_pointer,
                                    scorer_pointer)
from fastbg.position.board import validate
from fastbg.sim import bots as _bots
from fastbg.sim import engines as _engines
from fastbg.sim import game_kernels as _play
from fastbg.validation import check_choice, check_int

MAX_PLIES = 10_000          # a game this long is reported as an error, not played on
OPENINGS = {"use": _play.OPENING_USE, "reroll": _play.OPENING_REROLL,
            "no-doubles": _play.OPENING_NO_DOUBLES}


@dataclass(frozen=True)
class JobSetup:
    """A validated run, as the game kernels take it (build it with :func:`job_setup`).

    seed        : np.uint64, with the game index fixes every game
    names       : the two bots' display names
    bots        : :class:`fastbg.sim.game_tables.Bots`, the kernels' bot tables
                  (policy codes, pubeval and gnubg tables, plug-in scorers)
    cubes       : :class:`fastbg.sim.game_tables.Cubes` (rules vector, strategies,
                  efficiencies, match equity tables, probability plug-ins)
    evaluators  : per side, the EvaluatorBot's Python function or None
    nets        : per side, the GnubgNet a gnubg bot plays with, or None
    late_ply    : from this ply on the ``late_evaluators`` choose (-1: no switch)
    late_evaluators : per side, the scoring function of the bot that takes over
    cube_batch  : with a batch cube strategy (n-ply networks, an engine), per player the
                  function giving the cube's probabilities of a batch of boards, or the
                  engine's :class:`~fastbg.sim.engines.EngineCube` (None for "never" /
                  "race"), else None
    gcfg        : int64 game settings vector (``game_tables.G_*``)
    start_board : int8[26], the first position (the start when none was given)
    rot         : int64 (r, 36) quasi-random dice permutations, r = 0 when off
    n_threads   : threads the kernels run on
    rules       : the MoneyRules / MatchRules, or None (cubeless)
    rules_text  : the rules and cube strategies in words, for reports
    """
    seed: np.uint64
    names: tuple
    bots: tuple
    cubes: tuple
    evaluators: tuple
    nets: tuple
    gcfg: np.ndarray
    start_board: np.ndarray
    rot: np.ndarray
    n_threads: int
    rules: object
    rules_text: str
    late_ply: int = -1
    late_evaluators: tuple = (None, None)
    cube_batch: tuple = None

    @property
    def lockstep(self):
        """True when a Python evaluator plays, or decides the cube (``cube_batch``): games
        then advance one ply per round."""
        return self.cube_batch is not None or any(e is not None for e in self.evaluators)

    @property
    def cube_on(self):
        return bool(self.cubes.cfg[_kcube.C_ENABLED])

    @property
    def has_plugins(self):
        """True when a numba plug-in (scorer or cube probabilities) is compiled in: a
        numba function in a plug-in slot (the built-in markers, NET_CUBE and RACE_PROBS,
        are not plug-ins)."""
        return any(hasattr(p, "py_func") or (isinstance(p, CFunc) and not is_placeholder(p))
                   for p in (self.bots.plugin0, self.bots.plugin1,
                             self.cubes.plugin0, self.cubes.plugin1))


def job_setup(*, bots, seed=0, threads=None, start=None, opening="use", debug=False,
              rules=None, cube=None, score=None, crawford_game=False, truncate=None,
              rotate=False, cube_value=1, cube_owner=None, first_cube=True, late=None):
    """Validate a run's settings and build its :class:`JobSetup`.

    bots          : two bots (names or bot objects, see :mod:`fastbg.sim.bots`)
    seed          : integer in [0, 2**64 - 1]
    threads       : kernel threads (None: every numba thread)
    start         : None (the opening roll), a board (bot 0 on roll) or (board, side)
    opening       : "use" (the opening dice are the first player's roll), "reroll" (ply 0
                    rolls afresh) or "no-doubles" (ply 0 rolls afresh without doubles, as an
                    opening roll)
    debug         : check board invariants after every move
    rules         : None (cubeless), MoneyRules or MatchRules
    cube          : two cube strategies (default "never"); they need rules
    score, crawford_game : match play: the score (points of bot 0, bot 1) and whether this
                    is the Crawford game
    truncate      : stop each game after this many plies (None: play to the end)
    rotate        : quasi-random dice on the first two plies (rollouts)
    cube_value, cube_owner : the initial cube (owner 0, 1 or None for centred)
    first_cube    : False: the player on roll may not double before the first roll (the
                    no-double line of a cube rollout); the cube plays from the next turn
    late          : None, or (k, (bot0, bot1)): from ply k on these bots choose the moves
                    (GNU Backgammon's late evaluation: e.g. 1-ply for the first plies, then
                    0-ply). Every bot of such a run scores batches: an EvaluatorBot, a
                    gnubg bot or an n-ply gnubg bot; the games are played in lock-step.

    >>> st = job_setup(bots=("pubeval", "random"), seed=3)
    >>> st.names, st.lockstep
    (('pubeval', 'random'), False)
    """
    seed = check_int("seed", seed, 0, 2**64 - 1)
    check_choice("opening", opening, OPENINGS)
    if not isinstance(bots, (tuple, list)) or len(bots) != 2:
        raise ValueError(f"bots is a pair of bots, got {bots!r}")
    resolved = [_bots.resolve(b) for b in bots]
    nets = tuple(_bots.gnubg_net_of(b) for b in bots)
    cfg = _cube_config(rules)
    if cube is None:
        cube = ("never", "never")
    if not isinstance(cube, (tuple, list)) or len(cube) != 2:
        raise ValueError(f"cube is a pair of cube strategies, got {cube!r}")
    cubes = [resolve_cube(c) for c in cube]
    if rules is None and any(c.code != _kcube.CUBE_NEVER for c in cubes):
        raise ValueError("cube strategies need rules (MoneyRules(...) or MatchRules(...))")
    # a batch cube strategy (the n-ply networks, an engine's own cube action) is evaluated
    # between lock-step rounds
    batch_cube = rules is not None and any(c.batch is not None or c.engine is not None
                                           for c in cubes)
    late_ply, late_evaluators, late_names = _late_bots(late)
    if late_ply >= 0:               # both phases score batches in lock-step
        resolved = [r._replace(code=_bots.EVALUATOR, evaluator=e)
                    for r, e in zip(resolved, _batch_scorers(resolved, nets))]
    elif (batch_cube or any(r.evaluator is not None for r in resolved)
          or _two_sets_of_nets(nets)):
        # Lock-step games: a gnubg bot scores its candidates in the networks' batch kernel
        # (the same choice, bit for bit), so the round's kernels compile without them. Two
        # sets of networks ("fastbg" against "gnubg") play so too: a game kernel holds one.
        resolved = [r._replace(code=_bots.EVALUATOR, evaluator=net.scores_rows)
                    if net is not None else r for r, net in zip(resolved, nets)]
    start_board, start_side, use_start = _parse_start(start)
    away0, away1, craw, craw_after = _match_state(rules, score, crawford_game)
    truncate = check_int("truncate", truncate, 0, MAX_PLIES, none=True)
    check_int("cube_value", cube_value, 1)
    if cube_owner not in (None, 0, 1):
        raise ValueError(f"cube_owner is 0, 1 or None (centred), got {cube_owner!r}")
    gcfg = np.zeros(_play.G_SIZE, np.int64)
    gcfg[_play.G_START_SIDE] = start_side
    gcfg[_play.G_USE_START] = use_start
    gcfg[_play.G_OPENING] = OPENINGS[opening]
    gcfg[_play.G_MAX_PLIES] = MAX_PLIES
    gcfg[_play.G_TRUNCATE] = -1 if truncate is None else truncate
    gcfg[_play.G_DEBUG] = bool(debug)
    gcfg[_play.G_AWAY0], gcfg[_play.G_AWAY1] = away0, away1
    gcfg[_play.G_CRAWFORD_GAME], gcfg[_play.G_CRAWFORD_AFTER] = craw, craw_after
    gcfg[_play.G_CUBE_VALUE] = cube_value
    gcfg[_play.G_CUBE_OWNER] = -1 if cube_owner is None else cube_owner
    gcfg[_play.G_NO_FIRST_CUBE] = not first_cube
    point, extra = _bots.pubeval_tables()
    lockstep = batch_cube or any(r.evaluator is not None for r in resolved)
    gnet, gbo = (None, None) if lockstep else _bots.gnubg_tables(bots)
    plugs, gnet, gbo = _cube_plugs(cubes, lockstep, gnet, gbo)
    met_pre, met_post = _met_arrays(rules)
    # Empty plug-in slots: in games played inside the kernels, placeholders of the
    # plug-ins' type (one compiled game kernel for built-in bots and plug-ins alike); in
    # lock-step games None, as their kernels are called every round and numba types a
    # tuple holding a C callback in Python at each call (about 70 us against 1-4 us for
    # arrays and None, measured on the 2-core AMD EPYC, Zen 3)
    no_score, no_prob = (None, None) if lockstep else (no_scorer(), no_probs())
    return JobSetup(
        seed=np.uint64(seed),
        names=tuple(r.name + late_names[i] for i, r in enumerate(resolved)),
        bots=_play.Bots(np.array([r.code for r in resolved], np.int64), point, extra, gnet,
                        gbo, *(no_score if r.scorer is None else scorer_pointer(r.scorer)
                               for r in resolved)),
        cubes=_play.Cubes(cfg, np.array([c.code for c in cubes], np.int64),
                          np.array([c.x for c in cubes], np.float64), met_pre, met_post,
                          *(no_prob if p is None else p for p in plugs)),
        evaluators=tuple(r.evaluator for r in resolved), nets=nets, gcfg=gcfg, start_board=start_board,
        rot=(dice_rotation(seed, no_doubles_first=opening == "no-doubles") if rotate
             else np.zeros((0, 36), np.int64)),
        n_threads=resolve_threads(threads), rules=rules,
        rules_text="cubeless" if rules is None else f"{rules!r}, cube {cubes[0].name}/{cubes[1].name}",
        cube_batch=_cube_batch(cubes, plugs) if batch_cube else None,
        late_ply=late_ply, late_evaluators=late_evaluators)


def _two_sets_of_nets(nets):
    """True when both bots play networks and not the same ones."""
    return (nets[0] is not None and nets[1] is not None
            and nets[0].arrays is not nets[1].arrays)


def gnubg_cube_ply(strategy):
    """0 for ``"gnubg"`` or ``"fastbg"``, n for an n-ply bot's name (``"gnubg-1ply"``,
    ``"gnubg-2ply-prune"``, ``"fastbg-1ply"`` ...): the cube strategy of that name is
    Janowski's on those networks at that ply (``GnubgNet.cube(ply=n)``), the names the command
    line's --cube takes; None for any other strategy (ValueError for an n-ply name whose
    settings are not valid)."""
    if not isinstance(strategy, str):
        return None
    if strategy.strip().lower() in _bots.NET_FAMILIES:
        return 0
    return _bots.nply_ply(strategy)



def resolve_cube(strategy):
    """The :class:`~fastbg.cube.strategies.ResolvedCube` of a cube strategy: an engine's
    name (``"gnubg-app"``, ``"bgsage-2ply"`` ...: its own cube action,
    :func:`fastbg.sim.engines.engine_cube`; ImportError without the engine), a gnubg
    name (:func:`gnubg_cube_ply`; MissingWeights without the networks) or whatever
    :func:`fastbg.cube.strategies.resolve` takes."""
    if _engines.is_engine_name(strategy):
        strategy = _engines.engine_cube(strategy)
    ply = gnubg_cube_ply(strategy)
    if ply is not None:
        strategy = _bots.gnubg_net_of(_bots.net_family(strategy)).cube(ply=ply)
    return _cubes.resolve(strategy)


def _cube_plugs(cubes, lockstep, gnet, gbo):
    """The kernels' probability plug-ins of the two resolved cube strategies, and the run's
    gnubg tables: a strategy on GNU Backgammon's networks runs on the game kernels' own,
    disk-cached network code (``NET_CUBE``, the networks joining the run's tables when no
    bot brought them). Lock-step runs, and a second set of weights beside the bots', fall
    back to the net's plug-in (compiled once per process)."""
    plugs = []
    for c in cubes:
        if c.batch is not None or c.engine is not None:
            plugs.append(None)               # its rows come with the call (lockstep_cube_rows)
        elif c.net is None:
            plugs.append(_kernel_plug(c.probs))
        elif not lockstep and (gnet is None or gnet is c.net.arrays):
            gnet, gbo = c.net.arrays, c.net.bearoff
            plugs.append(_play.NET_CUBE)
        else:
            plugs.append(probs_pointer(c.net.probs_kernel()))
    if gnet is not None:
        # the strategies that take no probabilities ("never", "race") get the net's marker
        # too: all in-kernel runs with the networks then have one type of cube settings,
        # so one game kernel (compiled once, cached) serves them all
        plugs = [_play.NET_CUBE if p is None else p for p in plugs]
    return plugs, gnet, gbo


def _kernel_plug(probs):
    """A Janowski strategy's probabilities as the game kernels take them: the built-in race
    formula as its marker, any other plug-in as its C callback (:func:`probs_pointer`):
    kernel types numba caches on disk, the same for every plug-in. None (a strategy
    that takes no probabilities) stays None."""
    from fastbg.evaluators import race_kernels
    if probs is race_kernels.race_probabilities:
        return race_kernels.RACE_PROBS
    return None if probs is None else probs_pointer(probs)


def _cube_batch(cubes, plugs):
    """Per player, a function giving the cubeless probabilities of a batch of boards (m,
    26) -> (m, 5) for a run with a batch cube strategy (its lock-step rounds compute them
    before each cube phase): the batch evaluator, a net's own batch evaluation, a numba
    plug-in board by board, an engine's :class:`~fastbg.sim.engines.EngineCube` (its
    answers instead of probabilities), or None for "never" and "race" (they need none)."""
    out = []
    for c, plug in zip(cubes, plugs):
        if c.engine is not None:
            out.append(c.engine)
        elif c.batch is not None:
            out.append(c.batch)
        elif c.net is not None:
            out.append(c.net.probabilities)
        elif plug is not None:
            out.append(_plugin_rows(c.probs))
        else:
            out.append(None)
    return tuple(out)


def _plugin_rows(probs):
    def rows(boards):
        out = np.zeros((boards.shape[0], 5))
        for i in range(boards.shape[0]):
            probs(boards[i], out[i])
        return out
    return rows


def _batch_scorers(resolved, nets):
    """Each bot's function scoring a batch of candidates (for runs in lock-step): its
    EvaluatorBot function, or its gnubg net's scores; ValueError for the other bots."""
    out = []
    for r, net in zip(resolved, nets):
        if r.evaluator is None and net is None:
            raise ValueError(f"bot {r.name!r} cannot take part in a switch of bots after k "
                             "plies: that takes gnubg bots (gnubg, gnubg-1ply ...) or "
                             "EvaluatorBots")
        out.append(r.evaluator if r.evaluator is not None else net.scores_rows)
    return out


def _late_bots(late):
    """(late ply or -1, the late bots' batch scorers, name suffixes) of ``late``."""
    if late is None:
        return -1, (None, None), ("", "")
    if not isinstance(late, (tuple, list)) or len(late) != 2:
        raise ValueError(f"late is (k, (bot0, bot1)): from ply k on these bots play; got {late!r}")
    k, bots = late
    k = check_int("late plies", k, 1, MAX_PLIES)
    if not isinstance(bots, (tuple, list)) or len(bots) != 2:
        raise ValueError(f"late is (k, (bot0, bot1)), got {late!r}")
    late_resolved = [_bots.resolve(b) for b in bots]
    late_nets = [_bots.gnubg_net_of(b) for b in bots]
    scorers = tuple(_batch_scorers(late_resolved, late_nets))
    return k, scorers, tuple(f", then {r.name} from ply {k}" for r in late_resolved)


def _parse_start(start):
    """(board, side on roll, use_start) from ``start``."""
    if start is None:
        return np.array(START), 0, False
    if isinstance(start, tuple):
        if len(start) != 2:
            raise ValueError("start is a board or a (board, side on roll) pair")
        board, side = start
        if side not in (0, 1):
            raise ValueError(f"the side on roll must be 0 or 1, got {side!r}")
    else:
        board, side = start, 0
    b = validate(board)
    if b.ndim != 1:
        raise ValueError("start takes one board of shape (26,)")
    if _play.mover_checkers(b) == 0 or _play.mover_checkers(-b[::-1].copy()) == 0:
        raise ValueError("start position is already over (a side has no checkers left)")
    return b.copy(), int(side), True


def _cube_config(rules):
    """The kernel's int64 rules vector (see fastbg/cube/decision_kernels.py) for ``rules``."""
    cfg = np.zeros(_kcube.C_SIZE, np.int64)
    if rules is None:
        cfg[_kcube.C_MAX_CUBE] = -1
        return cfg
    if not isinstance(rules, (MoneyRules, MatchRules)):
        raise TypeError(f"rules must be MoneyRules, MatchRules or None, got {type(rules).__name__}")
    cfg[_kcube.C_ENABLED] = 1
    cfg[_kcube.C_MAX_CUBE] = -1 if rules.max_cube is None else rules.max_cube
    if rules.is_match:
        cfg[_kcube.C_MATCH] = 1
        cfg[_kcube.C_LENGTH] = rules.length
        cfg[_kcube.C_CRAWFORD_RULE] = int(rules.crawford)
    else:
        cfg[_kcube.C_JACOBY] = int(rules.jacoby)
        cfg[_kcube.C_BEAVERS] = int(rules.beavers)
        cfg[_kcube.C_RACCOONS] = int(rules.raccoons)
        cfg[_kcube.C_AUTO] = int(rules.auto_doubles)
        cfg[_kcube.C_AUTO_LIMIT] = -1 if rules.auto_double_limit is None else rules.auto_double_limit
        cfg[_kcube.C_TRIPLE66] = int(rules.triple_on_66)
    return cfg


def _match_state(rules, score, crawford_game):
    """(away0, away1, crawford_game, crawford_after) for games at ``score``."""
    if rules is None or not rules.is_match:
        if score is not None or crawford_game:
            raise ValueError("score and crawford_game apply to match play (rules=MatchRules(...))")
        return 0, 0, 0, 0
    score = (0, 0) if score is None else score
    if (not isinstance(score, (tuple, list)) or len(score) != 2
            or not all(isinstance(s, (int, np.integer)) and 0 <= s < rules.length for s in score)):
        raise ValueError(f"score is two points totals each in [0, {rules.length - 1}] for a "
                         f"{rules.length}-point match, got {score!r}")
    a0, a1 = rules.length - score[0], rules.length - score[1]
    if crawford_game and not (rules.crawford and 1 in (a0, a1)):
        raise ValueError("a Crawford game needs the Crawford rule and a player 1-away")
    # With a player already 1-away and this not the Crawford game, the Crawford game has
    # been played: the rest of the match is post-Crawford.
    crawford_after = rules.crawford and not crawford_game and 1 not in (a0, a1)
    return a0, a1, int(bool(crawford_game)), int(crawford_after)


def dice_rotation(seed, no_doubles_first=False):
    """Two seeded permutations of the 36 ordered rolls for the quasi-random first plies;
    ``no_doubles_first``: the first one's 30 rolls without doubles first, in the order
    the permutation gives them (the first roll of opening-style rollouts)."""
    rng = np.random.default_rng([seed, 0x524F54])       # "ROT": its own stream of the seed
    rot = np.stack([rng.permutation(36) for _ in range(2)]).astype(np.int64)
    if no_doubles_first:
        doubles = rot[0] // 6 == rot[0] % 6
        rot[0] = np.concatenate([rot[0][~doubles], rot[0][doubles]])
    return rot


def _met_arrays(rules):
    """The match equity table for the kernel (a 1x1 placeholder outside match play)."""
    if rules is None or not rules.is_match:
        return np.zeros((1, 1)), np.zeros((2, 1))
    from fastbg.cube import met as _met
    table = _met.load_default()
    # writable copies: the table's own arrays are read-only, and numba types a read-only
    # array apart from a writable one, so the money and match runs would compile the game
    # kernels twice
    return (np.array(table.pre_crawford, np.float64), np.array(table.post_crawford, np.float64))
