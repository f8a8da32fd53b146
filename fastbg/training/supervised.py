"""Supervised rounds: positions from the networks' own games, their rollouts as targets,
and the networks fitted to them.

The round after TD self-play (docs/training.md section 3): :func:`selfplay_positions`
draws positions from games of a generation against itself, ``fastbg.rollout_many``
rolls them out (with that generation's bot: fastbg's data alone), :func:`rollout_targets`
turns the rollouts into targets, and :func:`fit_positions` moves the networks towards
them epoch by epoch, a share of the positions held out to measure the fit. Kernels in
:mod:`fastbg.training.fit_kernels`.
"""
import os
import time
from dataclasses import dataclass, field

import numpy as np

from fastbg.benchmarks.formats import PositionTarget, read_benchmark
from fastbg.constants import BOARD_SIZE, START
from fastbg.evaluators import bearoff as _bearoff
from fastbg.position.ids import board_from_position_id
from fastbg.training import fit_kernels as _fit
from fastbg.training.weights import load_net, load_prune, new_prune, save_weights


def selfplay_positions(path, games, per_game=2, seed=0, game0=0):
    """Up to ``per_game`` positions (int8 boards (m, 26), the player on roll, before
    rolling) from each of games ``game0 .. game0 + games - 1`` of ``seed`` played by the
    networks of weights file ``path`` against themselves at 0-ply; positions the bear-off
    tables answer are left out."""
    games, per_game = int(games), int(per_game)
    if games < 0 or per_game < 1:
        raise ValueError(f"games must be >= 0 and per_game >= 1 (got {games}, {per_game})")
    net, _, _ = load_net(path)
    out = np.zeros((games * per_game, BOARD_SIZE), np.int8)
    kept = np.zeros(games, np.int64)
    _fit.selfplay_positions(seed, game0, games, per_game, np.array(START), net,
                            _bearoff.tables(), out, kept)
    rows = (np.arange(per_game)[None, :] < kept[:, None]).ravel()
    return out[rows]


def rollout_targets(rollouts):
    """:class:`fastbg.benchmarks.PositionTarget` s of a ``fastbg.rollout_many`` result (or
    its records): each position's rolled-out probabilities, made consistent (see
    :func:`consistent`), and their standard errors."""
    records = getattr(rollouts, "records", rollouts)
    return [PositionTarget(rec["position"], consistent(rec["probabilities"]),
                           [float(x) for x in rec["probabilities_se"]],
                           {"trials": rec.get("trials")})
            for rec in records]


def consistent(probs):
    """Five probabilities clipped to what they can be: each in [0, 1], gammons at most the
    wins (losses) they are part of, backgammons at most the gammons. Rollouts with
    variance reduction estimate each one apart and can step outside by a little (a
    gammon rate of -0.001 where none can happen)."""
    win = min(1.0, max(0.0, float(probs[0])))
    wg = min(win, max(0.0, float(probs[1])))
    wbg = min(wg, max(0.0, float(probs[2])))
    lg = min(1.0 - win, max(0.0, float(probs[3])))
    lbg = min(lg, max(0.0, float(probs[4])))
    return [win, wg, wbg, lg, lbg]


@dataclass
class FitRun:
    """What :func:`fit_positions` did: ``path`` the weights file, ``positions`` fitted and
    ``held_out``, per epoch the mean absolute error of the win output before each step
    (``train_error``) and on the held-out positions after the epoch (``holdout_error``),
    ``seconds``."""
    path: str
    positions: int
    held_out: int
    train_error: list = field(default_factory=list)
    holdout_error: list = field(default_factory=list)
    seconds: float = 0.0


def _targets(source):
    """(boards int8 (n, 26), targets float32 (n, 5)) of a positions file or a list of
    PositionTarget s."""
    if isinstance(source, (str, os.PathLike)):
        source = read_benchmark(source).positions
    if not source:
        raise ValueError("no positions to fit")
    boards = np.stack([board_from_position_id(p.position) for p in source])
    targets = np.array([p.probs for p in source], np.float32)
    return boards, targets


def fit_positions(path, source, epochs=4, alpha=0.01, seed=0, holdout=0.1, note=None):
    """Fit the networks of weights file ``path`` to the targets of ``source`` (a positions
    file, fastbg's JSON Lines or GNU Backgammon's training data, or a list of
    :class:`fastbg.benchmarks.PositionTarget`): ``epochs`` passes at rate ``alpha``, each
    in its own order drawn from ``seed``, the last ``holdout`` share of the positions (in a
    shuffle of ``seed``) held out. The networks are saved after each epoch, their meta
    gaining a segment. Returns a :class:`FitRun`."""
    if not (alpha > 0 and np.isfinite(alpha)):
        raise ValueError(f"alpha must be a positive number (got {alpha!r})")
    if not 0 <= holdout < 1:
        raise ValueError(f"holdout is a share in [0, 1) (got {holdout!r})")
    boards, targets = _targets(source)
    net, version, meta = load_net(path)
    prune = load_prune(path)
    bo = _bearoff.tables()
    rng = np.random.default_rng(seed)
    perm = rng.permutation(len(boards))
    n_out = int(round(holdout * len(boards)))
    train, test = perm[:len(boards) - n_out], perm[len(boards) - n_out:]
    run = FitRun(str(path), len(train), n_out)
    t0 = time.perf_counter()
    for _ in range(int(epochs)):
        order = rng.permutation(train).astype(np.int64)
        errors = np.zeros(len(order))
        _fit.fit_epoch(boards, targets, order, float(alpha), net, bo, errors)
        run.holdout_error.append(_holdout_error(net, bo, boards, targets, test))
        meta = _save_epoch(path, net, version, meta, prune, run, errors, t0, note, {
            "method": "supervised", "positions": len(train), "held_out": n_out,
            "alpha": alpha, "seed": seed, "holdout_error": round(run.holdout_error[-1], 5)})
    run.seconds = time.perf_counter() - t0
    return run


def _save_epoch(path, net, version, meta, prune, run, errors, t0, note, segment):
    """After an epoch: its mean error of the win output into ``run.train_error``, and the
    networks saved with the epoch's record (``segment`` and the common fields) added to
    the meta, which is returned."""
    run.train_error.append(float(np.nanmean(errors)) if len(errors) else float("nan"))
    segment = dict(segment, epoch=len(run.train_error),
                   train_error=round(run.train_error[-1], 5),
                   seconds=round(time.perf_counter() - t0, 1))
    if note:
        segment["note"] = note
    meta = dict(meta, segments=meta.get("segments", []) + [segment])
    save_weights(path, net, version, meta, prune)
    return meta


def candidate_positions(boards, seed=0):
    """What a roll's pruning step scores: for each board (player on roll) a roll drawn
    from ``seed`` and every legal result of it, turned to the opponent's view (int8
    (m, 26)); finished games left out."""
    from fastbg.position.board import flip
    from fastbg.position.moves import legal_moves
    rng = np.random.default_rng(seed)
    out = []
    for b, (d1, d2) in zip(boards, rng.integers(1, 7, (len(boards), 2))):
        for r in legal_moves(b, (int(d1), int(d2))):
            if (r[1:] > 0).any():
                out.append(flip(r))
    return np.array(out, np.int8).reshape(-1, BOARD_SIZE)


def fit_prune(path, boards, epochs=4, alpha=0.05, seed=0, hidden=None, note=None):
    """Train the pruning nets of weights file ``path`` (fresh ones of ``hidden`` units,
    default 16, when it has none) to give what its networks give at 0-ply on ``boards``
    (int8 (m, 26), the player on roll; say :func:`candidate_positions` of self-play
    positions): fastbg's own figures, nothing else's. ``epochs`` passes at rate
    ``alpha`` in orders drawn from ``seed``; saved after each, with a record in the meta.
    Returns a :class:`FitRun` (its errors those of the win output, nothing held out)."""
    from fastbg.evaluators.nets import GnubgNet, load_weights
    if not (alpha > 0 and np.isfinite(alpha)):
        raise ValueError(f"alpha must be a positive number (got {alpha!r})")
    boards = np.ascontiguousarray(boards, np.int8)
    targets = GnubgNet(load_weights(path)).probabilities(boards).astype(np.float32)
    net, version, meta = load_net(path)
    prune = load_prune(path)
    if prune is None or (hidden is not None and int(prune.n_hid[0]) != hidden):
        prune = new_prune(hidden or 16, seed)
    bo = _bearoff.tables()
    rng = np.random.default_rng(seed)
    run = FitRun(str(path), len(boards), 0)
    t0 = time.perf_counter()
    for _ in range(int(epochs)):
        order = rng.permutation(len(boards)).astype(np.int64)
        errors = np.zeros(len(order))
        _fit.prune_fit_epoch(boards, targets, order, float(alpha), prune, bo, errors)
        meta = _save_epoch(path, net, version, meta, prune, run, errors, t0, note, {
            "method": "prune-distillation", "positions": len(boards), "alpha": alpha,
            "seed": seed})
    run.seconds = time.perf_counter() - t0
    return run


def _holdout_error(net, bo, boards, targets, test):
    """The mean absolute error of the win output on the held-out positions (NaN: none)."""
    from fastbg.evaluators.net_kernels import evaluate_rows_plain, scratch
    if not len(test):
        return float("nan")
    rows = np.ascontiguousarray(boards[test])
    probs = np.zeros((len(rows), 5))
    evaluate_rows_plain(rows, 0, len(rows), False, net, bo, scratch(), probs,
                        np.zeros(len(rows), np.int8))
    return float(np.mean(np.abs(probs[:, 0] - targets[test, 0])))
