"""TD(0) self-play training of networks in GNU Backgammon's layout, resumable.

:func:`train_td` plays games of the networks against themselves, learning after every move
(:mod:`fastbg.training.td_kernels`), in chunks of games; after each chunk the networks are
saved to their weights file (:mod:`fastbg.training.weights`), whose ``meta`` holds the run:
the games played so far, the seed, every segment's settings, time and learning curve. A
run stopped (Ctrl-C, a crash, the end of a session) resumes from that file, in another
process or on another machine, and learns exactly what a run never stopped learns: each
game's dice are a pure function of (seed, game, ply) and the updates are sequential.
"""
import os
import time
from dataclasses import dataclass, field

import numpy as np

from fastbg.constants import START
from fastbg.evaluators import bearoff as _bearoff
from fastbg.progress import progress_bar
from fastbg.training import td_kernels as _td
from fastbg.training.weights import HIDDEN, load_net, load_prune, new_net, save_weights

KIND_NAMES = ("race", "crashed", "contact")


@dataclass
class TDRun:
    """What :func:`train_td` did: ``path`` the weights file, ``games`` played in all (this
    call's and earlier ones'), ``played`` by this call, ``seconds`` this call's,
    ``td_error`` the mean absolute temporal difference of the win output per net over this
    call's updates, ``gammon_rate`` the share of this call's games won with a gammon or
    backgammon, ``partial`` True when stopped before ``games``."""
    path: str
    games: int
    played: int
    seconds: float
    td_error: dict = field(default_factory=dict)
    gammon_rate: float = float("nan")
    partial: bool = False

    @property
    def games_per_second(self):
        return self.played / self.seconds if self.seconds > 0 else float("nan")


def train_td(path, games, *, alpha=0.1, seed=1, hidden=HIDDEN, init_seed=0, chunk=1000,
             progress=False, version=None, note=None):
    """Train the networks of weights file ``path`` by TD(0) self-play until ``games``
    games in all have been played: a fresh set (``hidden`` units, weights from
    ``init_seed``) when ``path`` does not exist, else the set saved there, continued from
    the game it reached (``seed`` and ``hidden`` must then be the file's). Learning rate
    ``alpha`` for the games this call plays; the file is rewritten after every ``chunk``
    games. Ctrl-C stops after the chunk in hand, saved, and returns with ``partial``.
    Returns a :class:`TDRun`."""
    games, chunk = int(games), int(chunk)
    if games < 0 or chunk < 1:
        raise ValueError(f"games must be >= 0 and chunk >= 1 (got {games}, {chunk})")
    if not (alpha > 0 and np.isfinite(alpha)):
        raise ValueError(f"alpha must be a positive number (got {alpha!r})")
    prune = None
    if os.path.exists(path):
        net, version_was, meta = load_net(path)
        prune = load_prune(path)                 # kept as they are (they are not trained here)
        if meta.get("seed") != seed:
            raise ValueError(f"{path} was trained with seed {meta.get('seed')}, not {seed}: "
                             f"pass seed={meta.get('seed')} to continue it")
        version = version or version_was
    else:
        net = new_net(hidden, init_seed)
        meta = {"seed": seed, "hidden": hidden, "init_seed": init_seed, "games": 0,
                "method": "td0-self-play", "segments": []}
        version = version or "0"
    done = int(meta["games"])
    bo = _bearoff.tables()
    start = np.array(START)
    stats = np.zeros(_td.S_SIZE)
    t0 = time.perf_counter()
    first = done
    partial = False
    bar = progress_bar(total=max(0, games - done), enabled=progress, unit="game",
                       desc="TD self-play")
    try:
        while done < games:
            n = min(chunk, games - done)
            _td.td_games(seed, done, n, float(alpha), start, net, bo, stats)
            done += n
            _save(path, net, version, meta, done, first, alpha, stats, t0, note, prune)
            bar.update(n)
    except KeyboardInterrupt:
        partial = True
    finally:
        bar.close()
    if done == first:
        _save(path, net, version, meta, done, first, alpha, stats, t0, note, prune)
    return _report(path, done, first, stats, time.perf_counter() - t0, partial)


def _td_errors(stats):
    out = {}
    for k, name in enumerate(KIND_NAMES):
        n = stats[_td.S_UPDATES_RACE + k]
        out[name] = float(stats[_td.S_ERR_RACE + k] / n) if n else float("nan")
    return out


def _save(path, net, version, meta, done, first, alpha, stats, t0, note, prune):
    """The weights and the run so far: this call's segment replaced as it grows."""
    segment = {"games_from": first, "games_to": done, "alpha": alpha,
               "seconds": round(time.perf_counter() - t0, 1),
               "td_error": {k: round(v, 5) for k, v in _td_errors(stats).items()},
               "plies_per_game": round(stats[_td.S_PLIES] / max(1.0, stats[_td.S_GAMES]), 2)}
    if note:
        segment["note"] = note
    segments = [s for s in meta["segments"] if s.get("games_from") != first]
    meta = dict(meta, games=done, segments=segments + ([segment] if done > first else []))
    save_weights(path, net, version, meta, prune)
    return meta


def _report(path, done, first, stats, seconds, partial):
    games = stats[_td.S_GAMES]
    gammons = stats[_td.S_GAMMONS] / games if games else float("nan")
    return TDRun(str(path), done, done - first, seconds, _td_errors(stats), gammons, partial)
