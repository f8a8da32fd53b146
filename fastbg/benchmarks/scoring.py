"""A bot's error rate on a benchmark set: :func:`score_benchmark` and :func:`compare_bots`.

The error of one decision is the equity the bot gives up: the best listed candidate's
cubeless equity minus that of the move it plays. A move outside the listed candidates is
charged the worst listed candidate's error, as GNU Backgammon's own benchmark scorer does
(the set lists what its filter found plausible; a move it left out is assumed no better
than the worst it kept). The error rate is 1000 x the mean error per decision (mEMG,
milli equivalent-to-money-game), its 95% interval the normal one of that mean over the
decisions (the noise of the rollouts behind the set is the set's, and the same for every
bot: it is not in the interval).

On a positions file (rolled-out probabilities) the figure is the mean absolute error of
the evaluator's cubeless equity against the rollout's.
"""
import json
import math
import os
import time
from dataclasses import asdict, dataclass, field

import numpy as np

from fastbg.benchmarks.choices import choices_checked
from fastbg.benchmarks.classes import CLASSES, class_codes, _NAME
from fastbg.benchmarks.formats import BenchmarkSet, read_benchmark
from fastbg.cube.formulas import equity_of
from fastbg.position.ids import board_from_position_id
from fastbg.sim.results import Results, Z95, nan_to_none

SHIPPED_SET = "data/benchmarks/fastbg-2026.jsonl.gz"    # package data (docs/benchmarks.md)


def shipped_set_path():
    """The path of the benchmark set shipped in the package (docs/benchmarks.md section 4)."""
    from importlib import resources
    return os.fspath(resources.files("fastbg").joinpath(SHIPPED_SET))


def load_set(source):
    """A :class:`BenchmarkSet` from a path, a set, or None (the shipped set)."""
    if isinstance(source, BenchmarkSet):
        return source
    if source is None:
        source = shipped_set_path()
        if not os.path.exists(source):
            raise FileNotFoundError(f"the shipped benchmark set {source} is missing from "
                                    "this install; name a file")
    return read_benchmark(os.fspath(source))


# ------------------------------------------------------------------ the set as arrays

@dataclass
class _DecisionArrays:
    """A set's decisions as arrays: boards (n, 26) and dice (n, 2) before the move, the
    candidates' boards (m, 26), equities (m,) and offsets (n + 1,), each decision's best
    and worst listed equity, and its class name."""
    boards: np.ndarray
    dice: np.ndarray
    cand_boards: np.ndarray
    cand_equity: np.ndarray
    cand_off: np.ndarray
    best: np.ndarray
    worst: np.ndarray
    classes: list


def decision_arrays(bset):
    """The :class:`_DecisionArrays` of ``bset`` (computed once per set and kept on it)."""
    cached = getattr(bset, "_arrays", None)
    if cached is not None:
        return cached
    ds = bset.decisions
    n = len(ds)
    boards = np.zeros((n, 26), np.int8)
    dice = np.zeros((n, 2), np.int64)
    counts = np.array([len(d.candidates) for d in ds], np.int64)
    off = np.zeros(n + 1, np.int64)
    np.cumsum(counts, out=off[1:])
    cand = np.zeros((int(off[-1]), 26), np.int8)
    eq = np.zeros(int(off[-1]))
    for i, d in enumerate(ds):
        boards[i] = board_from_position_id(d.position)
        dice[i] = d.dice
        for j, c in enumerate(d.candidates):
            cand[off[i] + j] = board_from_position_id(c.position)
            eq[off[i] + j] = c.equity
    best = np.maximum.reduceat(eq, off[:-1]) if n else np.zeros(0)
    worst = np.minimum.reduceat(eq, off[:-1]) if n else np.zeros(0)
    codes = class_codes(boards)
    classes = [d.extra.get("class") or _NAME[int(c)] for d, c in zip(ds, codes)]
    arrays = _DecisionArrays(boards, dice, cand, eq, off, best, worst, classes)
    bset._arrays = arrays
    return arrays


def decision_errors(arrays, chosen):
    """(errors (n,), listed (n,) bool, best (n,) bool) of the moves ``chosen`` (n, 26):
    best listed equity minus the chosen candidate's, or minus the worst listed one's for
    a move not listed."""
    counts = np.diff(arrays.cand_off)
    same = (arrays.cand_boards == np.repeat(chosen, counts, axis=0)).all(axis=1)
    n = chosen.shape[0]
    hit = np.full(n, -1, np.int64)
    rows = np.flatnonzero(same)
    owner = np.searchsorted(arrays.cand_off, rows, side="right") - 1
    hit[owner] = rows
    listed = hit >= 0
    value = np.where(listed, arrays.cand_equity[np.maximum(hit, 0)], arrays.worst)
    errors = arrays.best - value
    return errors, listed, listed & (value >= arrays.best)


# ------------------------------------------------------------------ results

def _rate(errors):
    """{"decisions", "error_rate", "ci95"} of per-decision errors (equity), in mEMG."""
    n = errors.size
    if n == 0:
        return {"decisions": 0, "error_rate": math.nan, "ci95": [math.nan, math.nan]}
    mean = 1000.0 * float(errors.mean())
    half = 1000.0 * Z95 * float(errors.std(ddof=1)) / math.sqrt(n) if n > 1 else math.nan
    return {"decisions": n, "error_rate": mean, "ci95": [mean - half, mean + half]}


@dataclass
class BenchmarkScore(Results):
    """A bot scored on a benchmark set.

    ``error_rate``: mEMG per decision (1000 x mean equity given up), ``ci95`` its 95%
    interval, ``decisions`` the move decisions scored, ``best_found`` the share where the
    bot played the best listed candidate, ``not_listed`` the share where it played a move
    the set does not list (charged the worst listed one's error), ``by_class`` the same
    figures per class (the file's "class" where given, else fastbg's classification),
    ``seconds`` the time the bot took to choose (the set read and checked before).
    On a positions file: ``positions``, ``mean_abs_equity_error`` (cubeless equity, not
    x 1000) and ``positions_by_class``. ``errors`` holds each decision's error, in the
    file's order, so that two bots can be compared decision by decision.
    """
    bot: str
    source: str
    decisions: int = 0
    error_rate: float = math.nan
    ci95: list = field(default_factory=lambda: [math.nan, math.nan])
    best_found: float = math.nan
    not_listed: float = math.nan
    by_class: dict = field(default_factory=dict)
    seconds: float = 0.0
    positions: int = 0
    mean_abs_equity_error: float = math.nan
    positions_by_class: dict = field(default_factory=dict)
    errors: list = field(default_factory=list, repr=False)

    @property
    def decisions_per_second(self):
        return self.decisions / self.seconds if self.seconds > 0 else math.nan

    def summary(self):
        out = asdict(self)
        out["decisions_per_second"] = self.decisions_per_second
        return out

    def table(self):
        rows = [f"{self.bot} on {self.source}"]
        if self.decisions:
            lo, hi = self.ci95
            rows.append(f"  {self.decisions:,} decisions: error rate {self.error_rate:.2f} mEMG "
                        f"(95% {lo:.2f} .. {hi:.2f}), best move {100 * self.best_found:.1f}%, "
                        f"not listed {100 * self.not_listed:.1f}%, "
                        f"{self.decisions_per_second:,.0f} decisions/s")
            for name, c in self.by_class.items():
                rows.append(f"    {name:<9} {c['decisions']:>6,}  {c['error_rate']:8.2f} mEMG"
                            f"  best {100 * c['best_found']:5.1f}%")
        if self.positions:
            rows.append(f"  {self.positions:,} positions: mean |equity error| "
                        f"{self.mean_abs_equity_error:.4f}")
            for name, c in self.positions_by_class.items():
                rows.append(f"    {name:<9} {c['positions']:>6,}  {c['mean_abs_equity_error']:.4f}")
        return "\n".join(rows)

    def save(self, path):
        """Write the score as JSON (:meth:`load` reads it back)."""
        write_json(path, self.to_dict())

    @classmethod
    def load(cls, path):
        return cls.from_dict(read_json(path))

    @classmethod
    def from_dict(cls, data):
        """The score of :meth:`to_dict`'s data (None figures back to NaN)."""
        data = {k: v for k, v in data.items() if k != "decisions_per_second"}
        return cls(**_nan_back(data))


def _nan_back(d):
    """A saved score's None figures (JSON has no NaN) back to NaN, by class too."""
    for k in ("error_rate", "best_found", "not_listed", "mean_abs_equity_error"):
        if k in d and d[k] is None:
            d[k] = math.nan
    if "ci95" in d:
        d["ci95"] = [math.nan if v is None else v for v in d["ci95"]]
    for c in d.get("by_class", {}).values():
        _nan_back(c)
    return d


def read_json(path):
    with open(os.fspath(path), encoding="utf-8") as f:
        return json.load(f)


def write_json(path, data):
    """Write ``data`` as JSON, atomically (a failure leaves any old file as it was)."""
    path = os.fspath(path)
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(nan_to_none(data), f, indent=1)
    os.replace(tmp, path)


def bot_label(bot):
    return bot if isinstance(bot, str) else getattr(bot, "name", type(bot).__name__)


def score_benchmark(source=None, bot="gnubg", *, seed=0, threads=None):
    """Score ``bot`` on a benchmark set: a :class:`BenchmarkScore`.

    source : a decisions or positions file (JSON Lines, GNU Backgammon's .bm or training
             data; docs/benchmarks.md), a :class:`BenchmarkSet` already read, or None for
             the set shipped with fastbg.
    bot    : any bot :func:`fastbg.play` takes for the move decisions (a name such as
             "pubeval", "gnubg", "gnubg-2ply", "bgsage", or a plug-in). The positions of a
             positions file need an evaluator of probabilities: "gnubg", "gnubg-<n>ply" or a
             :class:`fastbg.GnubgNet`.
    seed   : the random bot's draws (decision i is game i of the seed).

    >>> import fastbg, pathlib, tempfile
    >>> d = fastbg.benchmarks.Decision("4HPwATDgc/ABMA", (3, 1), [
    ...     fastbg.benchmarks.MoveCandidate("4HPwATCwZ/ABMA", 0.16, None),    # 8/5 6/5
    ...     fastbg.benchmarks.MoveCandidate("4HPwATDQc/ABIg", 0.0, None)], {}, 0)
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "one.jsonl"
    >>> fastbg.benchmarks.write_decisions(path, [d])
    >>> s = fastbg.score_benchmark(path, "greedy")
    >>> s.decisions, s.best_found
    (1, 1.0)
    """
    bset = load_set(source)
    label = bot_label(bot)
    score = BenchmarkScore(bot=label, source=os.path.basename(bset.path) if bset.path else "")
    if bset.decisions:
        arrays = decision_arrays(bset)
        t0 = time.perf_counter()
        res, off, choice = choices_checked(bot, arrays.boards, arrays.dice, seed, threads)
        score.seconds += time.perf_counter() - t0
        chosen = res[off[:-1] + choice]
        errors, listed, best = decision_errors(arrays, chosen)
        rate = _rate(errors)
        score.decisions, score.error_rate, score.ci95 = (rate["decisions"], rate["error_rate"],
                                                         rate["ci95"])
        score.best_found = float(best.mean())
        score.not_listed = float((~listed).mean())
        score.errors = errors.tolist()
        score.by_class = _by_class(arrays.classes, errors, best)
    if bset.positions:
        _score_positions(score, bset, bot)
    return score


def _by_class(classes, errors, best):
    names = np.array(classes, dtype=object)
    out = {}
    for name in list(CLASSES) + sorted(set(classes) - set(CLASSES)):
        mask = names == name
        if mask.any():
            c = _rate(errors[mask])
            c["best_found"] = float(best[mask].mean())
            out[name] = c
    return out


def position_evaluator(bot):
    """A function boards (n, 26) -> probabilities (n, 5) for the evaluator named by
    ``bot``: "gnubg" (0-ply), "gnubg-<n>ply", or a GnubgNet; ValueError otherwise."""
    from fastbg.evaluators.nets import GnubgNet
    from fastbg.sim.bots import gnubg_net_of, nply_spec
    net, ply = (bot, 0) if isinstance(bot, GnubgNet) else (None, 0)
    if net is None:
        spec = nply_spec(bot) if isinstance(bot, str) else None
        if spec is not None:
            net, ply = gnubg_net_of("gnubg"), spec.ply
        else:
            net = gnubg_net_of(bot)
    if net is None:
        raise ValueError(f"{bot_label(bot)} chooses moves but gives no probabilities: a "
                         "positions file scores an evaluator ('gnubg', 'gnubg-1ply', "
                         "'gnubg-2ply' or a GnubgNet)")
    return lambda boards: net.probabilities(boards, ply)


def _score_positions(score, bset, bot):
    evaluate = position_evaluator(bot)
    boards = np.stack([board_from_position_id(p.position) for p in bset.positions])
    target = equity_of(np.array([p.probs for p in bset.positions], np.float64))
    t0 = time.perf_counter()
    probs = np.asarray(evaluate(boards), np.float64)
    score.seconds += time.perf_counter() - t0
    errors = np.abs(equity_of(probs) - target)
    score.positions = len(bset.positions)
    score.mean_abs_equity_error = float(errors.mean())
    codes = class_codes(np.ascontiguousarray(boards))
    names = np.array([p.extra.get("class") or _NAME[int(c)]
                      for p, c in zip(bset.positions, codes)], dtype=object)
    for name in list(CLASSES) + sorted(set(names) - set(CLASSES)):
        mask = names == name
        if mask.any():
            score.positions_by_class[name] = {"positions": int(mask.sum()),
                                              "mean_abs_equity_error": float(errors[mask].mean())}


# ------------------------------------------------------------------ several bots

@dataclass
class BenchmarkComparison(Results):
    """Several bots scored on one set, best (lowest error rate) first: ``scores`` a list of
    :class:`BenchmarkScore`."""
    source: str
    scores: list

    def summary(self):
        return {"source": self.source, "scores": [s.summary() for s in self.scores]}

    def table(self):
        classes = [c for c in CLASSES if any(c in s.by_class for s in self.scores)]
        head = (f"{'bot':<22} {'decisions':>9} {'mEMG':>8} {'95% interval':>17} "
                f"{'best':>6}" + "".join(f" {c:>9}" for c in classes) + f" {'decisions/s':>12}")
        rows = [f"benchmark {self.source}: error rate per decision (mEMG), lower is better",
                head]
        for s in self.scores:
            lo, hi = s.ci95
            rows.append(f"{s.bot:<22} {s.decisions:>9,} {s.error_rate:8.2f} "
                        f"{lo:8.2f} ..{hi:7.2f} {100 * s.best_found:5.1f}%"
                        + "".join(f" {s.by_class[c]['error_rate']:9.2f}" if c in s.by_class
                                  else f" {'':>9}" for c in classes)
                        + f" {s.decisions_per_second:12,.0f}")
        return "\n".join(rows)

    def save(self, path):
        write_json(path, self.to_dict())

    @classmethod
    def load(cls, path):
        data = read_json(path)
        return cls(source=data["source"],
                   scores=[BenchmarkScore.from_dict(s) for s in data["scores"]])

    def plot(self, path=None):
        """Error rates with their 95% intervals as a PNG bar chart (a
        :class:`fastbg.jobs.plots.PngPicture`, also written to ``path`` unless None)."""
        from fastbg.benchmarks.plots import plot_error_rates
        return plot_error_rates(self, path)


def compare_bots(source=None, bots=("pubeval", "gnubg"), *, seed=0, threads=None,
                 progress=False):
    """:func:`score_benchmark` of each of ``bots`` on one set (read once): a
    :class:`BenchmarkComparison`, lowest error rate first."""
    from fastbg.progress import progress_bar
    bset = load_set(source)
    bar = progress_bar(len(bots), progress, "bot", "benchmark")
    scores = []
    try:
        for bot in bots:
            scores.append(score_benchmark(bset, bot, seed=seed, threads=threads))
            bar.update(1)
    finally:
        bar.close()
    scores.sort(key=lambda s: (math.inf if math.isnan(s.error_rate) else s.error_rate))
    return BenchmarkComparison(source=os.path.basename(bset.path) if bset.path else "",
                               scores=scores)
