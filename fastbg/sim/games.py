"""Play many games: :func:`play`, :func:`play_matches` and their results objects.

Each game is a pure function of (seed, game index): its dice and the random bot's choices
come from :mod:`fastbg.dice`, so results are bit-identical for any thread count,
any chunking, and when a run is split into shards of game indices played separately
(``game_offset``) and joined with :meth:`GameResults.concat`. Without ``rules`` games are
cubeless; with :class:`~fastbg.MoneyRules` or :class:`~fastbg.MatchRules` the kernel plays
the cube (automatic doubles, Jacoby, beavers, raccoons, Crawford, ``max_cube``).
"""
import math
import warnings
from dataclasses import dataclass, field

import numpy as np

from fastbg.sim import bots as _bots
from fastbg.cube import strategies as _cubes
from fastbg.cube import decision_kernels as _kcube
from fastbg.sim import game_kernels as _play
from fastbg.position.movegen import gather_rows as _gather_rows
from fastbg.position.board import validate
from fastbg.constants import BOARD_SIZE, START
from fastbg.position.moves import _batch as _legal_moves_batch
from fastbg.parallel import resolve_threads, threads as _threads

# Games per chunk: bounds memory (state lives for the live chunk only) and sets how often
# progress is reported and Ctrl-C is noticed (about 0.3-1 s of work on two threads).
DEFAULT_CHUNK = 1 << 15
MAX_PLIES = 10_000          # a game this long is reported as an error, not played on
_TASKS_PER_THREAD = 8       # kernel tasks per thread, for load balance (game lengths vary)
_ERRORS = {
    _play.ERR_NAN: "returned a NaN score",
    _play.ERR_TOO_LONG: f"did not finish within {MAX_PLIES} plies",
    _play.ERR_INVARIANT: "made a move that broke a board invariant (debug check)",
    _play.ERR_CUBE_OVERFLOW: ("doubled the cube past 2**30, the largest stake results hold "
                              "(set a max_cube)"),
}
OPENINGS = {"use": _play.OPENING_USE, "reroll": _play.OPENING_REROLL}


class BotError(RuntimeError):
    """A bot misbehaved (NaN score, wrong number of scores); the message names the game."""


@dataclass
class GameResults:
    """Per-game outcomes of :func:`play` (arrays with one entry per game, in game order).

    winner  : int8, 0 or 1, index into ``bots``
    kind    : int8, 1 single, 2 gammon, 3 backgammon (1 for a dropped double)
    points  : int32, signed points from bot 0's view, settled by the rules (cubeless: +-kind)
    plies   : int16, moves played (both sides)
    first   : int8, who moved first
    cube    : int32, final stake multiplier (1 when cubeless)
    dropped : bool, the game ended by a dropped double
    Games ``game_offset .. game_offset + n - 1`` of ``seed``; ``partial`` is True when the
    run was interrupted and holds only the games finished before that.
    """
    winner: np.ndarray
    kind: np.ndarray
    points: np.ndarray
    plies: np.ndarray
    first: np.ndarray
    bots: tuple
    seed: int
    game_offset: int = 0
    partial: bool = False
    meta: dict = field(default_factory=dict)
    cube: np.ndarray = None
    dropped: np.ndarray = None

    def __post_init__(self):
        n = self.winner.shape[0]
        if self.cube is None:
            self.cube = np.ones(n, np.int32)
        if self.dropped is None:
            self.dropped = np.zeros(n, np.bool_)

    _ARRAYS = ("winner", "kind", "points", "plies", "first", "cube", "dropped")

    @property
    def n_games(self):
        return int(self.winner.shape[0])

    def __len__(self):
        return self.n_games

    def summary(self):
        """Win rates, points per game with a 95% interval, gammon and backgammon rates."""
        n = self.n_games
        pts = self.points.astype(np.float64)
        mean = float(pts.mean()) if n else math.nan
        sd = float(pts.std(ddof=1)) if n > 1 else math.nan
        half = 1.96 * sd / math.sqrt(n) if n > 1 else math.nan
        wins0 = float(np.mean(self.winner == 0)) if n else math.nan
        return {
            "games": n,
            "bots": list(self.bots),
            "seed": self.seed,
            "partial": self.partial,
            "win_rate": [wins0, 1.0 - wins0 if n else math.nan],
            "points_per_game": mean,
            "points_per_game_ci95": [mean - half, mean + half],
            "gammon_rate": float(np.mean(self.kind == 2)) if n else math.nan,
            "backgammon_rate": float(np.mean(self.kind == 3)) if n else math.nan,
            "mean_plies": float(self.plies.mean()) if n else math.nan,
            "mean_cube": float(self.cube.mean()) if n else math.nan,
            "drop_rate": float(self.dropped.mean()) if n else math.nan,
            "rules": self.meta.get("rules", "cubeless"),
        }

    def table(self):
        """The summary as a small text table."""
        s = self.summary()
        lo, hi = s["points_per_game_ci95"]
        rows = [
            f"games            {s['games']:,}" + ("  (partial: interrupted)" if self.partial else ""),
            f"bots             {self.bots[0]} (0) vs {self.bots[1]} (1), seed {self.seed}",
            f"win rate         {s['win_rate'][0]:.4f} / {s['win_rate'][1]:.4f}",
            f"points per game  {s['points_per_game']:+.4f}  (95% CI {lo:+.4f} .. {hi:+.4f}, bot 0's view)",
            f"gammons          {s['gammon_rate']:.4f} of games",
            f"backgammons      {s['backgammon_rate']:.4f} of games",
            f"mean plies       {s['mean_plies']:.2f}",
        ]
        if s["rules"] != "cubeless":
            rows[1:1] = [f"rules            {s['rules']}"]
            rows += [f"mean cube        {s['mean_cube']:.3f}",
                     f"dropped doubles  {s['drop_rate']:.4f} of games"]
        return "\n".join(rows)

    def __str__(self):
        return self.table()

    def save(self, path):
        """Write to a ``.npz`` file that :meth:`load` reads back exactly."""
        np.savez_compressed(
            path, **{a: getattr(self, a) for a in self._ARRAYS}, bots=np.array(self.bots),
            seed=np.uint64(self.seed), game_offset=np.int64(self.game_offset),
            partial=np.bool_(self.partial), rules=np.array(self.meta.get("rules", "cubeless")))

    @classmethod
    def load(cls, path):
        with np.load(path, allow_pickle=False) as f:
            return cls(**{a: f[a] for a in cls._ARRAYS}, bots=tuple(str(b) for b in f["bots"]),
                       seed=int(f["seed"]), game_offset=int(f["game_offset"]),
                       partial=bool(f["partial"]), meta={"rules": str(f["rules"])})

    @classmethod
    def concat(cls, parts):
        """Join shards played with the same bots and seed over consecutive game ranges."""
        parts = list(parts)
        if not parts:
            raise ValueError("nothing to join")
        for a, b in zip(parts, parts[1:]):
            if (a.bots, a.seed, a.meta.get("rules")) != (b.bots, b.seed, b.meta.get("rules")):
                raise ValueError("shards must have the same bots, rules and seed")
            if a.game_offset + a.n_games != b.game_offset:
                raise ValueError(f"shards are not consecutive: games end at "
                                 f"{a.game_offset + a.n_games}, next starts at {b.game_offset}")
        return cls(**{a: np.concatenate([getattr(p, a) for p in parts]) for a in cls._ARRAYS},
                   bots=parts[0].bots, seed=parts[0].seed, game_offset=parts[0].game_offset,
                   partial=any(p.partial for p in parts), meta=dict(parts[0].meta))


def _check_int(name, value, lo, hi=None):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if value < lo or (hi is not None and value > hi):
        raise ValueError(f"{name} must be in [{lo}, {hi if hi is not None else 'inf'}], got {value}")
    return int(value)


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


@dataclass
class _Setup:
    """Everything the game kernels need besides the game range, built once per run."""
    seed: np.uint64
    names: tuple
    bots: tuple          # (policies, (pubeval point table, gnubg net, gnubg bear-off),
    #                       pubeval extra, plugin0, plugin1)
    cubes: tuple         # (cfg, strategies, efficiencies, met_pre, met_post, plugin0, plugin1)
    evaluators: list
    gcfg: np.ndarray     # per-run game settings (fastbg.sim.game_kernels G_*)
    start_board: np.ndarray
    rot: np.ndarray      # quasi-random dice permutations, (0, 36) when off
    n_threads: int
    rules_text: str

    @property
    def lockstep(self):
        return any(e is not None for e in self.evaluators)

    @property
    def cube_on(self):
        return bool(self.cubes[0][_kcube.C_ENABLED])


def _cube_config(rules):
    """The kernel's int64 rules vector (see fastbg/_kernels/cube.py) for ``rules``."""
    from fastbg.cube.rules import MatchRules, MoneyRules
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


def _make_setup(bots, seed, threads, start, opening, debug, rules, cube, score=None,
                crawford_game=False, truncate=None, rotate=False, cube_state=(1, None)):
    """Validate the run's settings and group them for the kernels."""
    seed = _check_int("seed", seed, 0, 2**64 - 1)
    if opening not in OPENINGS:
        raise ValueError(f"opening must be one of {sorted(OPENINGS)}, got {opening!r}")
    if not isinstance(bots, (tuple, list)) or len(bots) != 2:
        raise ValueError(f"bots is a pair of bots, got {bots!r}")
    resolved = [_bots.resolve(b) for b in bots]
    cfg = _cube_config(rules)
    if cube is None:
        cube = ("never", "never")
    if not isinstance(cube, (tuple, list)) or len(cube) != 2:
        raise ValueError(f"cube is a pair of cube strategies, got {cube!r}")
    cubes = [_cubes.resolve(c) for c in cube]
    if rules is None and any(c[0] != _kcube.CUBE_NEVER for c in cubes):
        raise ValueError("cube strategies need rules (MoneyRules(...) or MatchRules(...))")
    start_board, start_side, use_start = _parse_start(start)
    away0, away1, craw, craw_after = _match_state(rules, score, crawford_game)
    if truncate is not None:
        truncate = _check_int("truncate", truncate, 0, MAX_PLIES)
    value, owner = cube_state
    gcfg = np.zeros(_play.G_SIZE, np.int64)
    gcfg[_play.G_START_SIDE] = start_side
    gcfg[_play.G_USE_START] = use_start
    gcfg[_play.G_OPENING] = OPENINGS[opening]
    gcfg[_play.G_MAX_PLIES] = MAX_PLIES
    gcfg[_play.G_TRUNCATE] = -1 if truncate is None else truncate
    gcfg[_play.G_DEBUG] = bool(debug)
    gcfg[_play.G_AWAY0], gcfg[_play.G_AWAY1] = away0, away1
    gcfg[_play.G_CRAWFORD_GAME], gcfg[_play.G_CRAWFORD_AFTER] = craw, craw_after
    gcfg[_play.G_CUBE_VALUE] = value
    gcfg[_play.G_CUBE_OWNER] = -1 if owner is None else owner
    point, extra = _bots.pubeval_tables()
    gnet, gbo = _bots.gnubg_tables(bots)
    met_pre, met_post = _met_arrays(rules)
    return _Setup(
        seed=np.uint64(seed), names=tuple(r[3] for r in resolved),
        bots=_play.Bots(np.array([r[0] for r in resolved], np.int64), point, extra, gnet, gbo,
                        resolved[0][1], resolved[1][1]),
        cubes=_play.Cubes(cfg, np.array([c[0] for c in cubes], np.int64),
                          np.array([c[2] for c in cubes], np.float64), met_pre, met_post,
                          cubes[0][1], cubes[1][1]),
        evaluators=[r[2] for r in resolved], gcfg=gcfg, start_board=start_board,
        rot=_rotation(seed) if rotate else np.zeros((0, 36), np.int64),
        n_threads=resolve_threads(threads),
        rules_text="cubeless" if rules is None else f"{rules!r}, cube {cubes[0][3]}/{cubes[1][3]}")


def _rotation(seed):
    """Two seeded permutations of the 36 ordered rolls for the quasi-random first plies."""
    rng = np.random.default_rng([seed, 0x524F54])       # "ROT": its own stream of the seed
    return np.stack([rng.permutation(36) for _ in range(2)]).astype(np.int64)


def _met_arrays(rules):
    """The match equity table for the kernel (a 1x1 placeholder outside match play)."""
    if rules is None or not rules.is_match:
        return np.zeros((1, 1)), np.zeros((2, 1))
    from fastbg.cube import met as _met
    table = _met.load_default()
    return (np.ascontiguousarray(table.pre_crawford, np.float64),
            np.ascontiguousarray(table.post_crawford, np.float64))


def play(n_games, bots=("random", "random"), seed=0, threads=None, start=None,
         progress=False, opening="use", game_offset=0, debug=False, chunk_size=DEFAULT_CHUNK,
         rules=None, cube=None, score=None, crawford_game=False):
    """Play ``n_games`` games between two bots and return :class:`GameResults`.

    bots        : two bots, each a name (``"random"``, ``"pubeval"``, ``"greedy"``,
                  ``"gnubg"`` with the gnubg extra) or a :class:`~fastbg.sim.bots.ScorerBot` /
                  :class:`~fastbg.sim.bots.EvaluatorBot`. ``points`` are from bots[0]'s view.
    seed        : with ``game_offset``, fixes every game: game i of a run is game
                  ``game_offset + i`` of the seed, whatever the threads or chunking.
    start       : None for the opening roll (RULES.md section 2), else a board (the side
                  on roll is bot 0) or ``(board, side)``, the board seen from that side.
    opening     : ``"use"`` (the first player plays the opening dice) or ``"reroll"``.
    rules       : None (cubeless), :class:`~fastbg.MoneyRules` or :class:`~fastbg.MatchRules`.
    cube        : two cube strategies (``"never"``, ``"race"`` or a
                  :class:`~fastbg.cube.strategies.JanowskiCube`); default never.
    score, crawford_game : match play only: every game is played at this score (default
                  0-0), as the Crawford game or not; points are capped at what the winner
                  needs. For whole matches use :func:`play_matches`.
    progress    : show a progress bar (tqdm).
    debug       : check invariants on every move (slower); a violation raises BotError.
    Ctrl-C returns the chunks of games finished so far, with ``partial=True``.

    >>> import fastbg
    >>> res = fastbg.play(1000, ("pubeval", "random"), seed=1)
    >>> res.summary()["win_rate"][0] > 0.9
    True
    """
    n_games = _check_int("n_games", n_games, 0)
    game_offset = _check_int("game_offset", game_offset, 0, 2**63 - 1 - n_games)
    chunk_size = _check_int("chunk_size", chunk_size, 1)
    st = _make_setup(bots, seed, threads, start, opening, debug, rules, cube, score,
                     crawford_game)
    outcome, cube_out, _, partial = run_games(st, n_games, game_offset, progress, chunk_size)
    winner = outcome[:, 0].astype(np.int8)
    return GameResults(
        winner=winner, kind=outcome[:, 1].astype(np.int8),
        points=np.where(winner == 0, cube_out[:, 2], -cube_out[:, 2]).astype(np.int32),
        plies=outcome[:, 2].astype(np.int16), first=outcome[:, 3].astype(np.int8),
        bots=st.names, seed=int(st.seed), game_offset=game_offset, partial=partial,
        meta={"rules": st.rules_text}, cube=cube_out[:, 0].copy(),
        dropped=cube_out[:, 1].astype(np.bool_))


def run_games(st, n_games, game_offset, progress=False, chunk_size=DEFAULT_CHUNK,
              keep_final=False, on_chunk=None):
    """Play games ``game_offset ..`` of setup ``st`` chunk by chunk.

    Returns (outcome (k, 5) int32, cube_out (k, 3) int32, final boards (k, 26) int8 or
    None, partial): k = n_games unless Ctrl-C stopped the run early (``partial``).
    ``on_chunk(lo, hi, outcome, cube_out, final)`` is called after each chunk with the
    rows of games ``lo .. hi - 1`` (relative to ``game_offset``).
    """
    outcome = np.zeros((n_games, 5), np.int32)
    cube_out = np.zeros((n_games, 3), np.int32)
    final = np.zeros((n_games if keep_final else 0, BOARD_SIZE), np.int8)
    done = 0
    partial = False
    bar = _progress_bar(n_games, progress, st.names, "game")
    try:
        with _threads(st.n_threads), warnings.catch_warnings():
            # Plug-ins make the kernel uncacheable; numba says so on each compile.
            warnings.filterwarnings("ignore", message="Cannot cache compiled function")
            while done < n_games:
                hi = min(n_games, done + chunk_size)
                rows = (outcome[done:hi], cube_out[done:hi], final[done:hi] if keep_final
                        else final)
                if st.lockstep:
                    _lockstep_chunk(st, game_offset + done, *rows)
                else:
                    _kernel_chunk(st, game_offset + done, *rows)
                _raise_for_errors(outcome[done:hi], game_offset + done, st.names)
                if on_chunk is not None:
                    on_chunk(done, hi, *rows)
                done = hi
                if bar is not None:
                    bar.update(hi - bar.n)
    except KeyboardInterrupt:
        partial = True
    finally:
        if bar is not None:
            bar.close()
    return (outcome[:done], cube_out[:done], final[:done] if keep_final else None, partial)


def _progress_bar(total, enabled, names, unit, desc=None):
    """A tqdm bar (None when not ``enabled``) labelled ``desc`` or "bot vs bot"."""
    if not enabled:
        return None
    from tqdm.auto import tqdm
    return tqdm(total=total, unit=unit, unit_scale=True,
                desc=desc or f"{names[0]} vs {names[1]}")


def _raise_for_errors(outcome, first_game, names, what="game"):
    bad = np.flatnonzero(outcome[:, 4])
    if bad.size:
        g = int(bad[0])
        who = names[int(outcome[g, 0])]
        raise BotError(f"{what} {first_game + g}: {who} {_ERRORS[int(outcome[g, 4])]}"
                       + (f" ({bad.size} failed in this chunk)" if bad.size > 1 else ""))


def _kernel_chunk(st, game0, outcome, cube_out, final):
    n = outcome.shape[0]
    _play.play_games(st.seed, np.int64(game0), max(1, min(n, st.n_threads * _TASKS_PER_THREAD)),
                     st.gcfg, st.start_board, st.rot, st.bots,
                     st.cubes if st.cube_on else None, outcome, cube_out,
                     final)


def _lockstep_chunk(st, game0, outcome, cube_out, final):
    """Play a chunk one ply per round, calling the Python evaluators between rounds."""
    n = outcome.shape[0]
    seed, game0 = st.seed, np.int64(game0)
    boards = np.zeros((n, BOARD_SIZE), np.int8)
    side = np.zeros(n, np.int8)
    ply = np.zeros(n, np.int64)
    d1 = np.zeros(n, np.int64)
    d2 = np.zeros(n, np.int64)
    value = np.ones(n, np.int64)
    owner = np.full(n, -1, np.int64)
    turned = np.zeros(n, np.bool_)
    alive = np.ones(n, np.bool_)
    cfg = st.cubes[0]
    _play.lockstep_start(seed, game0, st.gcfg, st.start_board, cfg, boards, side, d1, d2,
                         value, owner, turned, alive, outcome)
    cube_out[:, 0] = value
    n_tasks = max(1, st.n_threads * _TASKS_PER_THREAD)
    while True:
        live = np.flatnonzero(alive)
        if live.size and st.cube_on:
            _play.lockstep_cube(st.gcfg, st.cubes, live, boards, side, ply, value, owner,
                                turned, alive, outcome, cube_out)
            live = np.flatnonzero(alive)
        if live.size == 0:
            break
        dice = np.zeros((live.size, 2), np.int64)
        _play.lockstep_dice(seed, game0, live, ply, d1, d2, st.gcfg, st.rot, dice)
        res, off = _legal_moves_batch(np.ascontiguousarray(boards[live]), dice, st.n_threads)
        choice = np.zeros(live.size, np.int64)
        _play.lockstep_choose(seed, game0, live, ply, side, st.bots, boards, res, off, n_tasks,
                              choice)
        for s, evaluate in enumerate(st.evaluators):
            if evaluate is not None:
                _evaluate_pending(evaluate, s, live, side, res, off, choice, game0)
        _play.lockstep_apply(live, boards, res, off, choice, dice, side, ply, alive, st.gcfg,
                             cfg, value, turned, outcome, cube_out)
    if final.shape[0] == n:
        final[:] = boards


def _evaluate_pending(evaluate, s, live, side, res, off, choice, game0):
    """Fill ``choice`` for the games where evaluator bot ``s`` is to move."""
    pending = np.flatnonzero((choice == -2) & (side[live] == s))
    if pending.size == 0:
        return
    counts = off[pending + 1] - off[pending]
    seg = np.zeros(pending.size + 1, np.int64)
    np.cumsum(counts, out=seg[1:])
    dest = np.zeros(off.size - 1, np.int64)
    dest[pending] = seg[:-1]
    rows = np.empty((int(seg[-1]), BOARD_SIZE), np.int8)
    _gather_rows(res, off[:-1], np.diff(off), pending, rows, dest)
    scores = np.asarray(evaluate(rows), dtype=np.float64)
    if scores.shape != (rows.shape[0],):
        raise BotError(f"evaluator of bot {s} returned scores of shape {scores.shape} for "
                       f"{rows.shape[0]} positions (games {game0 + live[pending[0]]}..); "
                       "it must return one score per position")
    best = np.zeros(pending.size, np.int64)
    _play.segment_best(np.ascontiguousarray(scores), seg, best)
    choice[pending] = best


@dataclass
class MatchResults:
    """Outcomes of :func:`play_matches`, one entry per match.

    winner : int8, 0 or 1 (index into ``bots``); games : int16, games played;
    score  : int16 (n, 2), final score of each player.
    """
    winner: np.ndarray
    games: np.ndarray
    score: np.ndarray
    bots: tuple
    length: int
    seed: int
    match_offset: int = 0
    partial: bool = False
    meta: dict = field(default_factory=dict)

    @property
    def n_matches(self):
        return int(self.winner.shape[0])

    def __len__(self):
        return self.n_matches

    def summary(self):
        """Match-winning rate of bot 0 with a 95% Wilson score interval."""
        n = self.n_matches
        p = float(np.mean(self.winner == 0)) if n else math.nan
        lo, hi = _wilson(p, n)
        return {"matches": n, "length": self.length, "bots": list(self.bots), "seed": self.seed,
                "partial": self.partial, "match_win_rate": [p, 1 - p if n else math.nan],
                "match_win_rate_ci95": [lo, hi],
                "mean_games": float(self.games.mean()) if n else math.nan,
                "rules": self.meta.get("rules", "")}

    def table(self):
        s = self.summary()
        lo, hi = s["match_win_rate_ci95"]
        return "\n".join([
            f"matches          {s['matches']:,} to {self.length} points"
            + ("  (partial: interrupted)" if self.partial else ""),
            f"bots             {self.bots[0]} (0) vs {self.bots[1]} (1), seed {self.seed}",
            f"rules            {s['rules']}",
            f"match wins       {s['match_win_rate'][0]:.4f} / {s['match_win_rate'][1]:.4f}"
            f"  (95% CI for bot 0 {lo:.4f} .. {hi:.4f})",
            f"games per match  {s['mean_games']:.2f}",
        ])

    def __str__(self):
        return self.table()


def _wilson(p, n, z=1.96):
    """95% Wilson score interval of a proportion ``p`` observed in ``n`` trials."""
    if n == 0:
        return math.nan, math.nan
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def play_matches(n, length, bots=("random", "random"), cube=("race", "race"), seed=0,
                 threads=None, crawford=True, max_cube=64, opening="use", match_offset=0,
                 progress=False, chunk_size=1 << 12):
    """Play ``n`` whole matches to ``length`` points and report match-winning rates.

    Each match is played game by game with the cube (MatchRules: Crawford rule, no Jacoby,
    beavers or automatic doubles). Game j of match m takes the dice key
    ``(m << 16) | j``, so matches are reproducible exactly like games in :func:`play`.

    >>> import fastbg
    >>> res = fastbg.play_matches(200, 3, ("pubeval", "random"), seed=1)
    >>> res.summary()["match_win_rate"][0] > 0.8
    True
    """
    from fastbg.cube.rules import MatchRules
    rules = MatchRules(length, crawford=crawford, max_cube=max_cube)
    n = _check_int("n", n, 0)
    match_offset = _check_int("match_offset", match_offset, 0, (2**47) - 1 - n)
    chunk_size = _check_int("chunk_size", chunk_size, 1)
    if 2 * length - 1 >= 1 << 16:
        raise ValueError("matches longer than 32,767 points are not supported")
    st = _make_setup(bots, seed, threads, None, opening, False, rules, cube, None, False)
    if st.lockstep:
        raise ValueError("play_matches runs inside numba: use built-in or ScorerBot bots")
    result = np.zeros((n, 5), np.int32)
    done = 0
    partial = False
    bar = _progress_bar(n, progress, st.names, "match")
    try:
        with _threads(st.n_threads), warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Cannot cache compiled function")
            while done < n:
                hi = min(n, done + chunk_size)
                r = result[done:hi]
                _play.play_matches(st.seed, np.int64(match_offset + done),
                                   max(1, min(hi - done, st.n_threads * _TASKS_PER_THREAD)),
                                   length, st.gcfg, st.start_board, st.rot, st.bots, st.cubes, r)
                _raise_for_errors(r, match_offset + done, st.names, "match")
                done = hi
                if bar is not None:
                    bar.update(hi - bar.n)
    except KeyboardInterrupt:
        partial = True
    finally:
        if bar is not None:
            bar.close()
    r = result[:done]
    return MatchResults(winner=r[:, 0].astype(np.int8), games=r[:, 1].astype(np.int16),
                        score=r[:, 2:4].astype(np.int16), bots=st.names, length=length,
                        seed=int(st.seed), match_offset=match_offset, partial=partial,
                        meta={"rules": st.rules_text})
