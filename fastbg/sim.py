"""Play many games: :func:`play` and its results object, :class:`GameResults`.

Games are cubeless for now. Each game is a pure function of (seed, game index): its dice
and the random bot's choices come from :mod:`fastbg._kernels.dice`, so results are
bit-identical for any thread count, any chunking, and when a run is split into shards of
game indices played separately (``game_offset``) and joined with
:meth:`GameResults.concat`.
"""
import math
import warnings
from dataclasses import dataclass, field

import numpy as np

from . import bots as _bots
from ._kernels import play as _play
from ._kernels.movegen import gather_rows as _gather_rows
from ._kernels import policies as _pol
from .board import validate
from .constants import BOARD_SIZE, START
from .moves import _batch as _legal_moves_batch
from .threads import resolve_threads, threads as _threads

# Games per chunk: bounds memory (state lives for the live chunk only) and sets how often
# progress is reported and Ctrl-C is noticed (about 0.3-1 s of work on two threads).
DEFAULT_CHUNK = 1 << 15
MAX_PLIES = 10_000          # a game this long is reported as an error, not played on
_TASKS_PER_THREAD = 8       # kernel tasks per thread, for load balance (game lengths vary)
_ERRORS = {
    _play.ERR_NAN: "returned a NaN score",
    _play.ERR_TOO_LONG: f"did not finish within {MAX_PLIES} plies",
    _play.ERR_INVARIANT: "made a move that broke a board invariant (debug check)",
}
OPENINGS = {"use": _play.OPENING_USE, "reroll": _play.OPENING_REROLL}


class BotError(RuntimeError):
    """A bot misbehaved (NaN score, wrong number of scores); the message names the game."""


@dataclass
class GameResults:
    """Per-game outcomes of :func:`play` (arrays with one entry per game, in game order).

    winner : int8, 0 or 1, index into ``bots``
    kind   : int8, 1 single, 2 gammon, 3 backgammon
    points : int16, signed points from bot 0's view (cubeless: +-kind)
    plies  : int16, moves played (both sides)
    first  : int8, who moved first
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
        return "\n".join(rows)

    def __str__(self):
        return self.table()

    def save(self, path):
        """Write to a ``.npz`` file that :meth:`load` reads back exactly."""
        np.savez_compressed(
            path, winner=self.winner, kind=self.kind, points=self.points, plies=self.plies,
            first=self.first, bots=np.array(self.bots), seed=np.uint64(self.seed),
            game_offset=np.int64(self.game_offset), partial=np.bool_(self.partial))

    @classmethod
    def load(cls, path):
        with np.load(path, allow_pickle=False) as f:
            return cls(winner=f["winner"], kind=f["kind"], points=f["points"],
                       plies=f["plies"], first=f["first"], bots=tuple(str(b) for b in f["bots"]),
                       seed=int(f["seed"]), game_offset=int(f["game_offset"]),
                       partial=bool(f["partial"]))

    @classmethod
    def concat(cls, parts):
        """Join shards played with the same bots and seed over consecutive game ranges."""
        parts = list(parts)
        if not parts:
            raise ValueError("nothing to join")
        for a, b in zip(parts, parts[1:]):
            if (a.bots, a.seed) != (b.bots, b.seed):
                raise ValueError("shards must have the same bots and seed")
            if a.game_offset + a.n_games != b.game_offset:
                raise ValueError(f"shards are not consecutive: games end at "
                                 f"{a.game_offset + a.n_games}, next starts at {b.game_offset}")
        return cls(*(np.concatenate([getattr(p, f) for p in parts])
                     for f in ("winner", "kind", "points", "plies", "first")),
                   bots=parts[0].bots, seed=parts[0].seed, game_offset=parts[0].game_offset,
                   partial=any(p.partial for p in parts))


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


def play(n_games, bots=("random", "random"), seed=0, threads=None, start=None,
         progress=False, opening="use", game_offset=0, debug=False, chunk_size=DEFAULT_CHUNK):
    """Play ``n_games`` cubeless money games between two bots and return :class:`GameResults`.

    bots        : two bots, each a name (``"random"``, ``"pubeval"``, ``"greedy"``,
                  ``"gnubg"`` with the gnubg extra) or a :class:`~fastbg.bots.ScorerBot` /
                  :class:`~fastbg.bots.EvaluatorBot`. ``points`` are from bots[0]'s view.
    seed        : with ``game_offset``, fixes every game: game i of a run is game
                  ``game_offset + i`` of the seed, whatever the threads or chunking.
    start       : None for the opening roll (RULES.md section 2), else a board (the side
                  on roll is bot 0) or ``(board, side)``, the board seen from that side.
    opening     : ``"use"`` (the first player plays the opening dice) or ``"reroll"``.
    progress    : show a progress bar (tqdm).
    debug       : check invariants on every move (slower); a violation raises BotError.
    Ctrl-C returns the chunks of games finished so far, with ``partial=True``.

    >>> import fastbg
    >>> res = fastbg.play(1000, ("pubeval", "random"), seed=1)
    >>> res.summary()["win_rate"][0] > 0.9
    True
    """
    n_games = _check_int("n_games", n_games, 0)
    seed = _check_int("seed", seed, 0, 2**64 - 1)
    game_offset = _check_int("game_offset", game_offset, 0, 2**63 - 1 - n_games)
    chunk_size = _check_int("chunk_size", chunk_size, 1)
    if opening not in OPENINGS:
        raise ValueError(f"opening must be one of {sorted(OPENINGS)}, got {opening!r}")
    if not isinstance(bots, (tuple, list)) or len(bots) != 2:
        raise ValueError(f"bots is a pair of bots, got {bots!r}")
    resolved = [_bots.resolve(b) for b in bots]
    names = tuple(r[3] for r in resolved)
    policies = np.array([r[0] for r in resolved], np.int64)
    plugins = [r[1] for r in resolved]
    evaluators = [r[2] for r in resolved]
    start_board, start_side, use_start = _parse_start(start)
    n_threads = resolve_threads(threads)
    point, extra = _bots.pubeval_tables()

    out = {name: np.zeros(n_games, dt) for name, dt in
           (("winner", np.int8), ("kind", np.int8), ("plies", np.int16), ("first", np.int8),
            ("error", np.int8))}
    done = 0
    partial = False
    bar = _progress_bar(n_games, progress, names)
    try:
        with _threads(n_threads), warnings.catch_warnings():
            # Plug-in scorers make the kernel uncacheable; numba says so on each compile.
            warnings.filterwarnings("ignore", message="Cannot cache compiled function")
            while done < n_games:
                hi = min(n_games, done + chunk_size)
                view = {k: v[done:hi] for k, v in out.items()}
                args = (seed, game_offset + done, start_board, start_side, use_start,
                        OPENINGS[opening], policies, point, extra, plugins, evaluators,
                        debug, n_threads)
                if any(e is not None for e in evaluators):
                    _lockstep_chunk(*args, view)
                else:
                    _kernel_chunk(*args, view)
                _raise_for_errors(view["error"], game_offset + done, names, view["winner"])
                done = hi
                if bar is not None:
                    bar.update(hi - bar.n)
    except KeyboardInterrupt:
        partial = True
    finally:
        if bar is not None:
            bar.close()
    sl = slice(0, done)
    kind = out["kind"][sl]
    sign = np.where(out["winner"][sl] == 0, 1, -1).astype(np.int16)
    return GameResults(winner=out["winner"][sl].copy(), kind=kind.copy(),
                       points=sign * kind.astype(np.int16), plies=out["plies"][sl].copy(),
                       first=out["first"][sl].copy(), bots=names, seed=seed,
                       game_offset=game_offset, partial=partial)


def _progress_bar(total, enabled, names):
    if not enabled:
        return None
    from tqdm.auto import tqdm
    return tqdm(total=total, unit="game", unit_scale=True, desc=f"{names[0]} vs {names[1]}")


def _raise_for_errors(error, first_game, names, winner):
    bad = np.flatnonzero(error)
    if bad.size:
        g = int(bad[0])
        who = names[int(winner[g])]
        raise BotError(f"game {first_game + g}: {who} {_ERRORS[int(error[g])]}"
                       + (f" ({bad.size} games failed in this chunk)" if bad.size > 1 else ""))


def _kernel_chunk(seed, game0, start_board, start_side, use_start, opening, policies, point,
                  extra, plugins, evaluators, debug, n_threads, out):
    n = out["winner"].shape[0]
    _play.play_games(seed, game0, max(1, min(n, n_threads * _TASKS_PER_THREAD)), start_board,
                     start_side, use_start, opening, policies, point, extra, plugins[0],
                     plugins[1], MAX_PLIES, debug, out["winner"], out["kind"], out["plies"],
                     out["first"], out["error"])


def _lockstep_chunk(seed, game0, start_board, start_side, use_start, opening, policies, point,
                    extra, plugins, evaluators, debug, n_threads, out):
    """Play a chunk one ply per round, calling the Python evaluators between rounds."""
    n = out["winner"].shape[0]
    boards = np.zeros((n, BOARD_SIZE), np.int8)
    side = np.zeros(n, np.int8)
    ply = np.zeros(n, np.int64)
    d1 = np.zeros(n, np.int64)
    d2 = np.zeros(n, np.int64)
    alive = np.ones(n, np.bool_)
    _play.lockstep_start(seed, game0, start_board, start_side, use_start, boards, side, d1, d2,
                         out["first"])
    n_tasks = max(1, n_threads * _TASKS_PER_THREAD)
    while True:
        live = np.flatnonzero(alive)
        if live.size == 0:
            break
        dice = np.zeros((live.size, 2), np.int64)
        _play.lockstep_dice(seed, game0, live, ply, d1, d2, opening, dice)
        res, off = _legal_moves_batch(np.ascontiguousarray(boards[live]), dice, n_threads)
        choice = np.zeros(live.size, np.int64)
        _play.lockstep_choose(seed, game0, live, ply, side, policies, boards, res, off, point,
                              extra, plugins[0], plugins[1], n_tasks, choice)
        for s, evaluate in enumerate(evaluators):
            if evaluate is not None:
                _evaluate_pending(evaluate, s, live, side, res, off, choice, game0)
        _play.lockstep_apply(live, boards, res, off, choice, dice, side, ply, alive,
                             out["winner"], out["kind"], out["plies"], out["error"], MAX_PLIES,
                             debug)


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
