"""Results of games and matches, and the interface every results class shares.

Every results class (:class:`GameResults`, :class:`MatchResults`,
:class:`fastbg.RolloutResult`, :class:`fastbg.TournamentResults`) has ``summary()`` (the
figures as a dict), ``table()`` (the same as text; ``str()`` gives it), ``to_dict()``
(plain JSON data, NaN as None) and ``to_json()``; those holding per-game data also
``save(path)`` and ``load(path)``, which read back exactly.
"""
import base64
import json
from abc import ABC, abstractmethod
import math
from dataclasses import dataclass, field

import numpy as np

from fastbg.html_tables import html_block, html_table, html_text
from fastbg.sim.records import RecordArrays

Z95 = 1.959963984540054     # two-sided 95% normal quantile


def nan_to_none(x):
    """``x`` with every non-finite float replaced by None (JSON has no NaN)."""
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: nan_to_none(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [nan_to_none(v) for v in x]
    return x


def wilson_interval(p, n, z=1.96):
    """95% Wilson score interval of a proportion ``p`` observed in ``n`` trials.

    >>> lo, hi = wilson_interval(0.5, 100)
    >>> round(lo, 4), round(hi, 4)
    (0.4038, 0.5962)
    """
    if n == 0:
        return math.nan, math.nan
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


class Results(ABC):
    """The interface of every results class: ``summary``, ``table``, ``to_dict``,
    ``to_json`` and ``str``. Subclasses define ``summary`` and ``table``."""

    @abstractmethod
    def summary(self):
        """The figures as a dict."""

    @abstractmethod
    def table(self):
        """The figures as text."""

    def to_dict(self):
        """The figures as plain JSON data (NaN as None)."""
        return nan_to_none(self.summary())

    def to_json(self, indent=2):
        return json.dumps(self.to_dict(), indent=indent)

    def __str__(self):
        return self.table()


def encode_array(a):
    """An array as base64 text of its little-endian bytes (for a results journal)."""
    a = np.ascontiguousarray(a)
    return base64.b64encode(a.astype(a.dtype.newbyteorder("<")).tobytes()).decode("ascii")


def decode_array(text, dtype, shape_tail=()):
    """The inverse of :func:`encode_array`."""
    dt = np.dtype(dtype).newbyteorder("<")
    a = np.frombuffer(base64.b64decode(text), dtype=dt).astype(np.dtype(dtype))
    return a.reshape((-1,) + tuple(shape_tail))


class _PerGame(Results):
    """Shared by the classes holding one entry per game (match): arrays named in
    ``_ARRAYS`` (name -> dtype, trailing shape), the run's identity in ``_KEYS``."""
    _ARRAYS = {}
    _OFFSET = "game_offset"

    def __len__(self):
        return int(getattr(self, next(iter(self._ARRAYS))).shape[0])

    def arrays(self, lo=0, hi=None):
        """{name: array} of entries ``lo .. hi - 1``."""
        return {a: getattr(self, a)[lo:hi] for a in self._ARRAYS}

    @staticmethod
    def chunk_record(lo, hi, arrays):
        """The journal record of entries ``lo .. hi - 1`` with their ``arrays`` (base64)."""
        return {"lo": int(lo), "hi": int(hi),
                "arrays": {a: encode_array(v) for a, v in arrays.items()}}

    @classmethod
    def join_arrays(cls, records, parts):
        """{name: array}: the entries of journal ``records`` then of ``parts`` (dicts of
        arrays), in order."""
        out = {}
        if any("records" in p for p in parts):      # a recording run: join its records
            out["records"] = RecordArrays.concat([p.get("records") for p in parts])
        for a, (dt, tail) in cls._ARRAYS.items():
            pieces = [decode_array(r["arrays"][a], dt, tail) for r in records]
            pieces += [p[a] for p in parts]
            out[a] = (np.concatenate(pieces) if pieces
                      else np.zeros((0,) + tuple(tail), dt))
        return out

    def _identity(self):
        return {"bots": np.array(self.bots), "seed": np.uint64(self.seed),
                "offset": np.int64(getattr(self, self._OFFSET)),
                "partial": np.bool_(self.partial), "rules": np.array(self.meta.get("rules", ""))}

    def save(self, path):
        """Write to a ``.npz`` file that :meth:`load` reads back exactly."""
        np.savez_compressed(path, **self.arrays(), **self._identity(), **self._extra_saved())

    def _extra_saved(self):
        return {}

    @classmethod
    def load(cls, path):
        with np.load(path, allow_pickle=False) as f:
            kw = {a: f[a] for a in cls._ARRAYS}
            kw.update(bots=tuple(str(b) for b in f["bots"]), seed=int(f["seed"]),
                      partial=bool(f["partial"]), meta={"rules": str(f["rules"])})
            kw[cls._OFFSET] = int(f["offset"] if "offset" in f else f[cls._OFFSET])
            kw.update(cls._extra_loaded(f))
        return cls(**kw)

    @classmethod
    def _extra_loaded(cls, f):
        return {}


@dataclass(repr=False)
class GameResults(_PerGame):
    """Per-game outcomes of :func:`fastbg.play` (one entry per game, in game order).

    winner  : int8, 0 or 1, index into ``bots``
    kind    : int8, 1 single, 2 gammon, 3 backgammon (1 for a dropped double)
    points  : int32, signed points from bot 0's view, settled by the rules (cubeless: +-kind)
    plies   : int16, moves played (both sides)
    first   : int8, who moved first
    cube    : int32, final stake multiplier (1 when cubeless)
    dropped : bool, the game ended by a dropped double
    Games ``game_offset .. game_offset + n - 1`` of ``seed``; ``partial`` is True when the
    run was interrupted and holds only the games finished before that. ``records``: with
    ``record=True`` a :class:`fastbg.sim.records.Records` of :class:`fastbg.GameRecord`
    (docs/records.md), else None; not saved by :meth:`save`.
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
    records: object = field(default=None, compare=False)

    _ARRAYS = {"winner": (np.int8, ()), "kind": (np.int8, ()), "points": (np.int32, ()),
               "plies": (np.int16, ()), "first": (np.int8, ()), "cube": (np.int32, ()),
               "dropped": (np.bool_, ())}

    def __post_init__(self):
        n = self.winner.shape[0]
        if self.cube is None:
            self.cube = np.ones(n, np.int32)
        if self.dropped is None:
            self.dropped = np.zeros(n, np.bool_)

    def __repr__(self):
        return (f"GameResults({self.n_games} games, bots={self.bots}, seed={self.seed}, "
                f"game_offset={self.game_offset}, partial={self.partial})")

    @property
    def n_games(self):
        return len(self)

    def summary(self):
        """Win rates, points per game with a 95% interval, gammon and backgammon rates."""
        n = self.n_games
        pts = self.points.astype(np.float64)
        mean = float(pts.mean()) if n else math.nan
        sd = float(pts.std(ddof=1)) if n > 1 else math.nan
        half = Z95 * sd / math.sqrt(n) if n > 1 else math.nan
        wins0 = float(np.mean(self.winner == 0)) if n else math.nan
        return {
            "games": n,
            "bots": list(self.bots),
            "seed": self.seed,
            "game_offset": self.game_offset,
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

    def _repr_html_(self):
        """One row a bot, each from its own side (Jupyter draws it)."""
        s = self.summary()
        n = s["games"]
        lo, hi = s["points_per_game_ci95"]
        rows = []
        for i, (bot, sign) in enumerate(zip(self.bots, (1, -1))):
            won = self.winner == i
            ci = sorted((sign * lo, sign * hi))
            rows.append([i, bot, f"{int(won.sum()):,}", f"{s['win_rate'][i]:.4f}",
                         f"{sign * s['points_per_game']:+.4f} ({ci[0]:+.4f} .. {ci[1]:+.4f})",
                         f"{np.mean(won & (self.kind == 2)) if n else math.nan:.4f}",
                         f"{np.mean(won & (self.kind == 3)) if n else math.nan:.4f}"])
        caption = (f"{n:,} games, seed {self.seed}, {s['rules']}"
                   + (" (partial: interrupted)" if self.partial else ""))
        figures = f"mean plies {s['mean_plies']:.2f}"
        if s["rules"] != "cubeless":
            figures += (f", mean cube {s['mean_cube']:.3f}, dropped doubles "
                        f"{s['drop_rate']:.4f} of games")
        head = ["", "bot", "wins", "win rate", "points/game (95% CI)", "gammons won",
                "backgammons won"]
        return html_block(html_table(head, rows, caption, "rlrrrrr"), html_text(figures))

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


@dataclass(repr=False)
class MatchResults(_PerGame):
    """Outcomes of :func:`fastbg.play_matches`, one entry per match.

    winner : int8, 0 or 1 (index into ``bots``); games : int16, games played;
    score  : int16 (n, 2), final score of each player.
    records: with ``record=True`` a :class:`fastbg.sim.records.Records` of
    :class:`fastbg.MatchRecord` (docs/records.md), else None; not saved by :meth:`save`.
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
    records: object = field(default=None, compare=False)

    _ARRAYS = {"winner": (np.int8, ()), "games": (np.int16, ()), "score": (np.int16, (2,))}
    _OFFSET = "match_offset"

    def __repr__(self):
        return (f"MatchResults({self.n_matches} matches to {self.length}, bots={self.bots}, "
                f"seed={self.seed}, match_offset={self.match_offset}, partial={self.partial})")

    @property
    def n_matches(self):
        return len(self)

    def _extra_saved(self):
        return {"length": np.int64(self.length)}

    @classmethod
    def _extra_loaded(cls, f):
        return {"length": int(f["length"])}

    def summary(self):
        """Match-winning rate of bot 0 with a 95% Wilson score interval."""
        n = self.n_matches
        p = float(np.mean(self.winner == 0)) if n else math.nan
        lo, hi = wilson_interval(p, n)
        return {"matches": n, "length": self.length, "bots": list(self.bots), "seed": self.seed,
                "match_offset": self.match_offset,
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

    def _repr_html_(self):
        """One row a bot (Jupyter draws it)."""
        s = self.summary()
        rows = []
        for i, (bot, p) in enumerate(zip(self.bots, s["match_win_rate"])):
            lo, hi = wilson_interval(p, s["matches"])
            lo, hi = max(lo, 0.0), min(hi, 1.0)         # not "-0.0000" at p = 0 (rounding)
            rows.append([i, bot, f"{int(np.sum(self.winner == i)):,}",
                         f"{p:.4f} ({lo:.4f} .. {hi:.4f})"])
        caption = (f"{s['matches']:,} matches to {self.length} points, seed {self.seed}, "
                   f"{s['rules']}" + (" (partial: interrupted)" if self.partial else ""))
        return html_block(
            html_table(["", "bot", "match wins", "match win rate (95% CI)"], rows, caption,
                       "rlrr"),
            html_text(f"games per match {s['mean_games']:.2f}"))
