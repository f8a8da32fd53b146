"""Rollouts of many positions: :func:`rollout_many` and files of positions (training data).

A file of positions holds one Position ID or XGID a line; blank lines and lines starting
with ``#`` are skipped (:func:`read_positions`). Each position is rolled out by
:func:`fastbg.rollout` with the same settings and seed, so its figures do not depend on
the file's order or on how the file is split into shards. With ``out=`` every finished
position is one line of a results journal (the keys of ``fastbg rollout --json`` plus
``"position"``), and ``resume=True`` carries on after the last one.
"""
import csv
import hashlib
import os
from contextlib import closing
from dataclasses import dataclass, field
from functools import partial as _partial

from fastbg import journal as _journal
from fastbg.distributed import LOCAL, LocalThreads, RayCluster, resolve_backend
from fastbg.extras import MissingPackage
from fastbg.jobs.rollouts import DEFAULT_CHUNK, OUTPUTS, rollout
from fastbg.position.ids import read_position
from fastbg.parallel import resolve_threads
from fastbg.progress import progress_bar
from fastbg.sim.bots import strongest_bot
from fastbg.sim.games import open_journal
from fastbg.sim.results import Results, nan_to_none

JOB = "rollout_many"


def read_positions(path):
    """The positions of a file: a list of (line number, text), blank lines and ``#``
    comments left out."""
    out = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            text = line.strip()
            if text and not text.startswith("#"):
                out.append((number, text))
    return out


@dataclass
class ManyRollouts(Results):
    """The rollouts of a list or file of positions: ``records`` holds one dict per finished
    position (``"position"``, ``"line"`` (its line in the file, or its index + 1), then the
    keys of :meth:`fastbg.RolloutResult.to_dict`); ``partial`` when Ctrl-C stopped the run."""
    records: list
    settings: dict = field(default_factory=dict)
    partial: bool = False

    def summary(self):
        return {"positions": len(self.records), "settings": self.settings,
                "partial": self.partial, "records": self.records}

    def table(self):
        rows = [f"{len(self.records):,} positions rolled out"
                + ("  (partial: interrupted)" if self.partial else ""),
                f"{'line':>6}  {'position':<40} {'win':>6} {'equity':>8} {'se':>7}"]
        for r in self.records:
            rows.append(f"{r['line']:>6}  {r['position']:<40} {r['probabilities'][0]:6.3f} "
                        f"{r['equity']:+8.4f} {r['equity_se']:7.4f}")
        return "\n".join(rows)

    @classmethod
    def load(cls, path):
        """The positions finished in a results file of :func:`rollout_many`."""
        settings, records, _ = _journal.read(path, JOB)
        if settings is None:
            raise _journal.JournalError(f"{path} holds no rollout_many header")
        return cls(records=records, settings=settings,
                   partial=len(records) < settings["positions"])

    def to_csv(self, path):
        """One row per position: position, line, trials, the five probabilities and their
        standard errors, equity, cubeful (empty without rules) and their errors."""
        head = (["position", "line", "trials"] + list(OUTPUTS) + [f"{k}_se" for k in OUTPUTS]
                + ["equity", "equity_se", "cubeful", "cubeful_se"])
        with open(path, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(head)
            for r in self.records:
                w.writerow([r["position"], r["line"], r["trials"], *r["probabilities"],
                            *r["probabilities_se"], r["equity"], r["equity_se"],
                            "" if r["cubeful"] is None else r["cubeful"],
                            "" if r["cubeful_se"] is None else r["cubeful_se"]])

    def to_parquet(self, path):
        """The rows of :meth:`to_csv` as a Parquet file (needs pyarrow: the parquet extra)."""
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError as exc:
            raise MissingPackage("Parquet export needs pyarrow", "parquet") from exc
        cols = {"position": [r["position"] for r in self.records],
                "line": [r["line"] for r in self.records],
                "trials": [r["trials"] for r in self.records]}
        for i, k in enumerate(OUTPUTS):
            cols[k] = [r["probabilities"][i] for r in self.records]
            cols[f"{k}_se"] = [r["probabilities_se"][i] for r in self.records]
        for k in ("equity", "equity_se", "cubeful", "cubeful_se"):
            cols[k] = [r[k] for r in self.records]
        pq.write_table(pa.table(cols), path)


def _numbered(positions):
    if isinstance(positions, os.PathLike):
        return read_positions(positions)
    if isinstance(positions, str):
        raise TypeError("positions is a list of positions, or a pathlib.Path of a file of "
                        "them (a str is read as one position: pass [text])")
    return [(i + 1, p) for i, p in enumerate(positions)]


def _text(position):
    if isinstance(position, str):
        return position.strip()
    from fastbg.position.ids import position_id
    return position_id(read_position(position, "rollout_many")[0])


def _position_rollout(texts, trials, seed, options, i):
    """The rollout of position ``i`` of ``texts`` ((line number, text) pairs); ValueError
    naming the line when it cannot be read."""
    number, text = texts[i]
    try:
        read_position(text, "rollout_many")
    except ValueError as exc:
        raise ValueError(f"line {number}: {text!r}: {exc}") from None
    return rollout(text, trials=trials, seed=seed, **options)


def _positions_rollout(texts, trials, seed, options, lo, hi):
    """The rollouts of positions ``lo`` to ``hi - 1``: a list, stopped after the first one
    cut short (Ctrl-C), as :func:`_position_rollout` would give them one by one. A position
    that cannot be read ends the list as its ValueError, so that the driver keeps (and
    saves) the ones before it, as one position a task would."""
    out = []
    for i in range(lo, hi):
        try:
            out.append(_position_rollout(texts, trials, seed, options, i))
        except ValueError as exc:
            out.append(exc)
            break
        if out[-1].partial:
            break
    return out


class _Batches:
    """The spans of positions a cluster's tasks take, sized as they go: one position a
    task while the cluster is small or the positions slow, several where the driver
    (which merges and journals every task's results) would otherwise be the bottleneck:
    a task then lasts ``backend.chunk_target`` (docs/cluster.md section 5), estimated from
    the compute time of the tasks merged so far. The figures do not depend on the spans."""

    def __init__(self, start, end, backend):
        self.next, self.end, self.backend = start, end, backend
        self.size = 1
        self.done_positions = 0
        self.done_seconds = 0.0

    def record(self, positions, seconds):
        self.done_positions += positions
        self.done_seconds += seconds
        per = self.done_seconds / self.done_positions
        if per > 0:
            self.size = max(1, min(256, int(self.backend.chunk_target(per) / per)))

    def __iter__(self):
        while self.next < self.end:
            hi = min(self.end, self.next + self.size)
            yield (self.next, hi)
            self.next = hi


def rollout_many(positions, trials=1296, seed=0, bot=None, *, out=None, resume=False,
                 progress=False, backend="local", **options):
    """Roll out every position of ``positions`` (a list of boards, Position IDs or
    XGIDs, or a :class:`pathlib.Path` of a file of them, see :func:`read_positions`):
    a :class:`ManyRollouts`.

    Each position is ``fastbg.rollout(position, trials=trials, seed=seed, **options)``
    (the same figures whatever the order or the shard). With ``out`` each finished
    position is appended to that results file; ``resume=True`` continues it (the same
    positions and settings). A position that cannot be read stops the run with a
    ValueError naming its line and text; the positions before it are kept (and saved).
    Ctrl-C returns the finished positions with ``partial=True``. With ``backend="ray"``
    (or a :class:`fastbg.RayCluster`, docs/cluster.md) each position is rolled out by a
    task of that Ray cluster, the records merged in order, bit-identical.

    >>> import fastbg
    >>> r = fastbg.rollout_many(["4HPwATDgc/ABMA", "AACAkCRJqqoAAA"], trials=36, bot="pubeval")
    >>> [rec["line"] for rec in r.records]
    [1, 2]
    """
    backend = resolve_backend(backend)
    options["bot"] = strongest_bot() if bot is None else bot
    numbered = _numbered(positions)
    texts = [(n, _text(p) if not isinstance(p, str) else p.strip()) for n, p in numbered]
    digest = hashlib.sha256("\n".join(t for _, t in texts).encode()).hexdigest()
    settings = {"positions": len(texts), "digest": digest, "trials": trials, "seed": seed,
                **{k: _plain(v) for k, v in sorted(options.items())}}
    journal = open_journal(out, JOB, settings, resume)
    records = [] if journal is None else list(journal.records)
    for i, rec in enumerate(records):
        if rec.get("index") != i:
            raise _journal.JournalError(f"{out}: position records out of order at {i}")
    bar = progress_bar(len(texts), progress, "position", "rollouts", initial=len(records))
    partial = False
    backend, options = _spread(backend, options, trials, len(texts) - len(records))
    # a span of positions a task: one each here; on a cluster as many as keep the driver,
    # which merges and journals every task's results, from being the bottleneck
    specs = (_Batches(len(records), len(texts), backend) if isinstance(backend, RayCluster)
             else [(i, i + 1) for i in range(len(records), len(texts))])
    compute = _partial(_positions_rollout, texts, trials, seed, options)
    try:
        with closing(backend.map(compute, specs, "fastbg rollout_many")) as results:
            for spec, batch, seconds in results:
                if isinstance(specs, _Batches):
                    specs.record(len(batch), seconds)
                recs, failed = [], None
                for i, one in zip(range(spec[0], spec[0] + len(batch)), batch):
                    if isinstance(one, ValueError):
                        failed = one
                        break
                    if one.partial:
                        partial = True
                        break
                    number, text = texts[i]
                    recs.append({"index": i, "line": number, "position": text,
                                 **nan_to_none(one.to_dict())})
                with _journal.interrupts_held():
                    if journal is not None and recs:
                        journal.append_many(recs)      # one write and one fsync a task
                    records.extend(recs)
                bar.update(len(recs))
                if failed is not None:
                    raise failed
                if partial:
                    break
    except KeyboardInterrupt:
        partial = True
    finally:
        bar.close()
        if journal is not None:
            journal.close()
    return ManyRollouts(records=records, settings=_journal.canonical(settings),
                        partial=partial or len(records) < len(texts))


def _spread(backend, options, trials, n_positions):
    """(backend, options) for the run: here, positions whose trials make one chunk each
    (too few to keep every thread busy: a rollout of 36 trials spends half its time in
    Python) are rolled out several at once, each on one thread (:class:`LocalThreads`);
    thread counts change no figure. Otherwise as given."""
    if backend is not LOCAL or n_positions < 2:
        return backend, options
    n = resolve_threads(options.get("threads"))
    if n < 2 or trials > options.get("chunk_size", DEFAULT_CHUNK):
        return backend, options
    return LocalThreads(n), dict(options, threads=1)


def _plain(value):
    """An option as plain data for the results file's header."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    return getattr(value, "name", None) or getattr(value, "__name__", None) or repr(value)
