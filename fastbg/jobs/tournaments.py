"""Round-robin tournaments between bots: :func:`tournament` and :class:`TournamentResults`.

Every pair of bots plays ``games`` games (matches with ``match_length``). With
``duplicate=True`` (the default) each deal is played twice with the same dice and the seats
swapped, the standard way to take the luck of the dice out of a bot comparison.

Reproducibility
    Pair ``(i, j)`` (``i < j``, indices into ``bots``) plays under its own seed,
    :func:`pair_seed`: the first 8 bytes, little-endian, of BLAKE2b over the text
    ``"fastbg-tournament:{seed}:{i}:{j}"``. Game ``g`` of the pair is game ``g`` of that
    seed in :func:`fastbg.play` with bot ``i`` in seat 0; with ``duplicate=True`` it is
    played again as ``fastbg.play(..., (bot j, bot i), pair_seed(...), game_offset=g)``,
    which gives each seat the same opening roll and the same dice at every ply (the dice
    are a pure function of seed, game and ply), so each bot gets the other's dice. Matches
    use :func:`fastbg.play_matches` and ``match_offset`` the same way. Pairs are
    independent of one another, and appending bots to the list keeps the earlier pairs'
    games.

The output file (``out=``)
    JSON lines: a header ``{"fastbg_tournament": 1, "config": {...}}`` with the whole
    configuration (bots, games, seed, rules, match length, cube, duplicate, chunk size,
    fastbg version), then one line per finished chunk: ``{"pair": [i, j], "chunk": c,
    "start": g0, "n": deals, "stats": {...}}``, written, flushed and fsynced as the chunk
    finishes. The stats are integer sufficient statistics (counts, sums and sums of
    squares, over games and, with duplicate play, over the combined score of each deal),
    so every figure is recomputed exactly from the file: a run that is interrupted and
    resumed (``resume=True``) ends with figures bit-identical to an uninterrupted one.
    A truncated last line (a crash mid-write) is ignored, and cut off when resuming.

Figures
    Per pair, from the first bot's view: points per game with a 95% interval (over deals
    with duplicate play: the variance is that of the per-deal sum, the only valid one
    when the two games of a deal are correlated), win rate, gammon and backgammon rates,
    and for matches the match-winning rate with a 95% interval. Per bot, the same over all
    its games, and an Elo rating: the maximum-likelihood Bradley-Terry fit to the game
    wins (match wins for matches), ``P(i beats j) = 1 / (1 + 10 ** (-(r_i - r_j) / 400))``,
    with the ratings' mean fixed at 0. Its 95% interval is from the sandwich covariance
    ``I^+ V I^+``: ``I`` is the Fisher information of the fit and ``V`` the observed
    variance of each pair's win count (over deals with duplicate play), so it stays
    valid when the model does not fit exactly and when duplicate games are correlated.
    When a bot won (or lost) every game the maximum does not exist; then half a virtual
    win and half a virtual loss are added to every pair and the figures say so (and a
    pair whose games all went one way, having no observed variance, takes the model's).
"""
import hashlib
import math
import os
from contextlib import closing
from dataclasses import dataclass, field
from functools import cached_property, partial as _partial

import numpy as np

from fastbg import journal as _journal
from fastbg.constants import VERSION
from fastbg.cube import strategies as _cubes
from fastbg.cube.rules import MatchRules, rules_dict
from fastbg.distributed import resolve_backend
from fastbg.files.mat import write_mat
from fastbg.evaluators.nets import GnubgNet
from fastbg.html_tables import html_block, html_table, html_text
from fastbg.jobs.duels import duel_chunk, duel_setup
from fastbg.jobs.plots import check_plot, plot_matrix  # noqa: F401  (check_plot: the CLI's)
from fastbg.jobs.ratings import elo_ratings
from fastbg.jobs.rollouts import evaluator_name, resolve_evaluator
from fastbg.progress import progress_bar
from fastbg.sim import bots as _bots
from fastbg.sim.games import play
from fastbg.sim.matches import play_matches
from fastbg.sim.records import money_session
from fastbg.sim.setup import resolve_cube
from fastbg.sim.results import Results, Z95, wilson_interval
from fastbg.validation import check_flag, check_int

# Games per pair between saves: about 0.1-0.3 s of built-in bots on two threads. Measured
# on 2 cores (noisy): 3 pairs x 20,000 games ran 10-15% slower than with 10,000 (each
# fastbg.play call waits for its longest game), a fair price for losing at most a chunk.
DEFAULT_CHUNK = 2_000
JOB = "tournament"          # the job name in the results file's header
_MONEY_STATS = ("games", "points", "points_sq", "wins", "gammons_won", "gammons_lost",
                "backgammons_won", "backgammons_lost", "plies", "cube", "dropped")
_MATCH_STATS = ("games", "wins", "match_games")
_DEAL_STATS = ("deals", "deal_points", "deal_points_sq", "deal_wins", "deal_wins_sq")
# With luck_adjust: the luck-adjusted points (floats, summed in chunk order), per game and
# per deal; with speed (or luck_adjust): each bot's decisions and the seconds they took.
_LUCK_STATS = ("adjusted", "adjusted_sq")
_DEAL_LUCK_STATS = ("deal_adjusted", "deal_adjusted_sq")
_SPEED_STATS = ("decisions_first", "decisions_second", "seconds_first", "seconds_second")


#: The results file cannot be read or continued (another configuration, or damaged).
TournamentFileError = _journal.JournalError


def pair_seed(seed, i, j):
    """The seed pair ``(i, j)`` plays under: BLAKE2b-64 of ``"fastbg-tournament:{seed}:{i}:{j}"``.

    >>> pair_seed(0, 0, 1) == pair_seed(0, 0, 1) != pair_seed(0, 0, 2)
    True
    """
    text = f"fastbg-tournament:{int(seed)}:{int(i)}:{int(j)}".encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "little")


# ----------------------------------------------------------------------------- configuration

def _bot_name(bot):
    return _bots.resolve(bot).name


def _units(config):
    """(deals per pair, deals per chunk, chunks per pair) of a configuration."""
    dup = config["duplicate"]
    deals = config["games"] // 2 if dup else config["games"]
    per_chunk = max(1, config["chunk_size"] // 2) if dup else config["chunk_size"]
    return deals, per_chunk, -(-deals // per_chunk)


def _schedule(config):
    """Every (i, j, chunk) in the order they are played: chunk by chunk, pair by pair."""
    return [(i, j, c) for c in range(_units(config)[2]) for i, j in _pairs(config)]


def _make_config(bots, games, seed, rules, match_length, duplicate, cube, chunk_size,
                 luck_adjust=None, speed=False):
    if not isinstance(bots, (list, tuple)) or len(bots) < 2:
        raise ValueError(f"a tournament needs at least two bots, got {bots!r}")
    names = [_bot_name(b) for b in bots]
    seen = set()
    for name in names:
        if name.lower() in seen:
            raise ValueError(f"bot {name!r} appears twice; every bot in a tournament needs "
                             "its own name")
        seen.add(name.lower())
    games = check_int("games", games, 1)
    seed = check_int("seed", seed, 0, 2**64 - 1)
    chunk_size = check_int("chunk_size", chunk_size, 1)
    check_flag("duplicate", duplicate)
    if duplicate and games % 2:
        raise ValueError(f"with duplicate play every deal is played twice, so games per pair "
                         f"must be even, got {games}")
    if match_length is not None:
        match_length = check_int("match_length", match_length, 1)
        if rules is None:
            rules = MatchRules(match_length)
        elif not (isinstance(rules, MatchRules) and rules.length == match_length):
            raise ValueError(f"match_length={match_length} disagrees with rules={rules!r}")
    rules_d = rules_dict(rules)
    match = rules_d is not None and rules_d["type"] == "match"
    if cube is None:
        cube = "never" if rules is None else "race"
    resolved_cube = resolve_cube(cube)     # names of engines too (their own cube action)
    cube_name = resolved_cube.name
    if rules is None and resolved_cube.code != _cubes.BUILTIN["never"]:
        raise ValueError("cube strategies need rules (MoneyRules(...), MatchRules(...) or "
                         "match_length)")
    config = {"bots": names, "games": games, "seed": seed, "duplicate": duplicate,
              "rules": rules_d, "match_length": rules.length if match else None,
              "cube": cube_name, "chunk_size": chunk_size, "fastbg": VERSION}
    # Added only when set, so that the files of earlier versions still resume.
    check_flag("speed", speed)
    if match and speed:
        # the timed duels play single games; matches are played whole, untimed
        raise ValueError("speed=True times the bots in games, not in matches: matches "
                         "are not timed")
    if luck_adjust is not None:
        if match:
            raise ValueError("luck_adjust measures money points; matches are not adjusted")
        # a GnubgNet is GNU Backgammon's networks (other weights are named in the docs)
        config["luck_adjust"] = ("gnubg" if isinstance(luck_adjust, GnubgNet)
                                 else evaluator_name(luck_adjust))
    if speed or luck_adjust is not None:
        config["speed"] = True
    return config, rules, cube


# ----------------------------------------------------------------------------- playing

def _play_chunk(config, bots, rules, cube, i, j, start, n, threads, luck=None):
    """The stats of deals ``start .. start + n - 1`` of pair (i, j), from bot i's view."""
    seed = pair_seed(config["seed"], i, j)
    seatings = [(bots[i], bots[j])] + ([(bots[j], bots[i])] if config["duplicate"] else [])
    views = []                # per seating: (value from bot i's view, win of bot i, result)
    duels = []                # per seating, with speed or luck: duel_chunk's dict
    for s, seated in enumerate(seatings):
        if config.get("speed"):
            st = duel_setup(seated, seed=seed, threads=threads, rules=rules,
                            cube=None if rules is None else (cube, cube))
            duels.append(duel_chunk(st, start, n, luck))
            r = _DuelGames(duels[-1])
        elif config["match_length"]:
            r = play_matches(n, config["match_length"], seated, cube=(cube, cube), seed=seed,
                             threads=threads, crawford=rules.crawford, max_cube=rules.max_cube,
                             match_offset=start)
        else:
            r = play(n, seated, seed=seed, threads=threads, game_offset=start, rules=rules,
                     cube=None if rules is None else (cube, cube))
        if r.partial:                     # play() caught a Ctrl-C: the chunk is not whole
            raise KeyboardInterrupt
        win = (r.winner == s).astype(np.int64)
        value = (r.points.astype(np.int64) * (1 if s == 0 else -1)
                 if not config["match_length"] else win)
        views.append((value, win, r))
    st = {}
    if config["match_length"]:
        st["games"] = n * len(views)
        st["wins"] = sum(int(w.sum()) for _, w, _ in views)
        st["match_games"] = sum(int(r.games.astype(np.int64).sum()) for _, _, r in views)
    else:
        st = dict.fromkeys(_MONEY_STATS, 0)
        for value, win, r in views:
            kind = r.kind
            st["games"] += n
            st["points"] += int(value.sum())
            st["points_sq"] += int((value * value).sum())
            st["wins"] += int(win.sum())
            st["gammons_won"] += int(((kind == 2) & (win == 1)).sum())
            st["gammons_lost"] += int(((kind == 2) & (win == 0)).sum())
            st["backgammons_won"] += int(((kind == 3) & (win == 1)).sum())
            st["backgammons_lost"] += int(((kind == 3) & (win == 0)).sum())
            st["plies"] += int(r.plies.astype(np.int64).sum())
            st["cube"] += int(r.cube.astype(np.int64).sum())
            st["dropped"] += int(r.dropped.sum())
    if config["duplicate"]:
        deal_value = views[0][0] + views[1][0]
        deal_wins = views[0][1] + views[1][1]
        st["deals"] = n
        if not config["match_length"]:
            st["deal_points"] = int(deal_value.sum())
            st["deal_points_sq"] = int((deal_value * deal_value).sum())
        st["deal_wins"] = int(deal_wins.sum())
        st["deal_wins_sq"] = int((deal_wins * deal_wins).sum())
    if duels:
        st.update(_duel_stats(config, duels))
    return st


class _DuelGames:
    """duel_chunk's arrays as the attributes _play_chunk reads of GameResults."""
    partial = False

    def __init__(self, d):
        self.__dict__.update(d)


def _duel_stats(config, duels):
    """The luck-adjusted and speed stats of a chunk's seatings (bot i first, then bot j
    first), from bot i's view."""
    st = {}
    if config.get("luck_adjust") is not None:
        adj = [(d["points"] - d["luck"]) * (1.0 if s == 0 else -1.0)
               for s, d in enumerate(duels)]
        st["adjusted"] = float(sum(a.sum() for a in adj))
        st["adjusted_sq"] = float(sum((a * a).sum() for a in adj))
        if config["duplicate"]:
            deal = adj[0] + adj[1]
            st["deal_adjusted"] = float(deal.sum())
            st["deal_adjusted_sq"] = float((deal * deal).sum())
    # seat s of seating k is bot i when s == k
    st["decisions_first"] = sum(int(d["decisions"][k]) for k, d in enumerate(duels))
    st["decisions_second"] = sum(int(d["decisions"][1 - k]) for k, d in enumerate(duels))
    st["seconds_first"] = sum(float(d["seconds"][k]) for k, d in enumerate(duels))
    st["seconds_second"] = sum(float(d["seconds"][1 - k]) for k, d in enumerate(duels))
    return st


def _play_scheduled(config, bots, rules, cube, threads, i, j, c, luck=None):
    """The stats of chunk ``c`` of pair (i, j) (an entry of :func:`_schedule`)."""
    deals, per_chunk, _ = _units(config)
    start = c * per_chunk
    return _play_chunk(config, bots, rules, cube, i, j, start, min(per_chunk, deals - start),
                       threads, luck)


def _chunk_checker(config):
    """The check of a tournament file's chunk lines (raises ValueError, with the journal
    adding the line number): a chunk of this tournament, not recorded twice."""
    deals, per_chunk, n_chunks = _units(config)
    seen = {}

    def check(rec):
        try:
            i, j = rec["pair"]
            c, start, n, stats = rec["chunk"], rec["start"], rec["n"], rec["stats"]
            ok = (0 <= i < j < len(config["bots"]) and 0 <= c < n_chunks
                  and start == c * per_chunk and n == min(per_chunk, deals - start)
                  and isinstance(stats, dict))
        except (KeyError, TypeError, ValueError):
            ok = False
        if not ok:
            raise ValueError("not a chunk of this tournament")
        key = (i, j, c)
        if key in seen and seen[key] != stats:
            raise ValueError(f"chunk {c} of pair {key[:2]} is recorded again with other figures")
        seen[key] = stats
    return check


def _chunks_of(records):
    return {(r["pair"][0], r["pair"][1], r["chunk"]): r["stats"] for r in records}


def _chunk_record(config, i, j, c, stats):
    deals, per_chunk, _ = _units(config)
    start = c * per_chunk
    return {"pair": [i, j], "chunk": c, "start": start, "n": min(per_chunk, deals - start),
            "stats": stats}


# ----------------------------------------------------------------------------- the API

def tournament(bots, games, seed=0, rules=None, match_length=None, duplicate=True, *,
               cube=None, out=None, resume=False, progress=False, threads=None,
               chunk_size=DEFAULT_CHUNK, backend="local", record=False, luck_adjust=None,
               speed=False):
    """Play a round robin between ``bots`` and return :class:`TournamentResults`.

    bots         : two or more bots with distinct names (``"random"``, ``"pubeval"``,
                   ``"greedy"``, ``"gnubg"``, or :class:`~fastbg.ScorerBot` /
                   :class:`~fastbg.EvaluatorBot`).
    games        : games per pair (matches with ``match_length``); with ``duplicate`` an
                   even number, ``games / 2`` deals each played both ways.
    seed         : fixes every game; pair (i, j) plays under :func:`pair_seed`.
    rules        : None (cubeless money games), :class:`~fastbg.MoneyRules` (money play with
                   the cube) or :class:`~fastbg.MatchRules` (whole matches).
    match_length : play whole matches to this many points (``MatchRules(match_length)``).
    cube         : every bot's cube strategy with rules (default ``"race"``).
    out          : a file to append results to, chunk by chunk (see the module notes); an
                   existing non-empty file is only continued with ``resume=True``.
    resume       : continue ``out`` (which must hold this configuration), playing only the
                   chunks it lacks; a missing file starts afresh.
    chunk_size   : games per pair between saves (with duplicate rounded down to even).
    progress     : a progress bar (tqdm) over all games, with games/s and time left.
    backend      : where the chunks are played: "local" (this process), "ray" or a
                   :class:`fastbg.RayCluster` (docs/cluster.md), bit-identical.
    record       : keep every game's record: ``res.records[(i, j)]`` (a
                   :class:`TournamentRecords`, docs/records.md section 7).
    luck_adjust  : an evaluator ("gnubg", "race", a :class:`fastbg.GnubgNet` or a function
                   boards -> probabilities): each pair also reports its luck-adjusted points
                   per game, points minus the luck of every roll as the evaluator sees it
                   (:mod:`fastbg.jobs.duels`), with a 95% interval and how much narrower
                   it is than the plain one (docs/tournaments.md section 1). Money games
                   only; turns ``speed`` on.
    speed        : play in lock-step and time each bot's choices: every pair and bot then
                   reports decisions per second (moves chosen among two or more, per second
                   of its own calls). The games are the same either way. Not with
                   ``match_length``: matches (with any bots, lock-step ones too) are not
                   timed.
    Ctrl-C returns the chunks finished so far with ``partial=True`` (all of them are in
    ``out``); errors leave ``out`` valid too.

    >>> res = tournament(["pubeval", "random"], games=200, seed=1)
    >>> res.bots[0]["rating"] > res.bots[1]["rating"]
    True
    """
    config, rules, cube = _make_config(bots, games, seed, rules, match_length, duplicate,
                                       cube, chunk_size, luck_adjust, speed)
    check_flag("record", record)
    luck = resolve_evaluator(luck_adjust)
    bots = list(bots)
    backend = resolve_backend(backend)
    _dry_run(config, bots, rules, cube, threads)
    journal = None
    if out is not None:
        journal = _journal.Journal(out, JOB, config, resume=resume, check=_chunk_checker(config))
    elif resume:
        raise ValueError("resume=True continues the results file given by out=")
    chunks = {} if journal is None else _chunks_of(journal.records)
    todo = [t for t in _schedule(config) if t not in chunks]
    total = config["games"] * len(_pairs(config))
    bar = progress_bar(total, progress, "game", "tournament",
                       initial=sum(s["games"] for s in chunks.values()))
    partial = False
    try:
        with closing(backend.map(_partial(_play_scheduled, config, bots, rules, cube, threads,
                                          luck=luck),
                                 todo, "fastbg tournament")) as results:
            for (i, j, c), stats, _ in results:
                with _journal.interrupts_held():     # on disk and in memory, or neither
                    if journal is not None:
                        journal.append(_chunk_record(config, i, j, c, stats))
                    chunks[(i, j, c)] = stats
                bar.set_postfix_str(f"{config['bots'][i]} vs {config['bots'][j]}",
                                    refresh=False)
                bar.update(stats["games"])
    except KeyboardInterrupt:
        partial = True          # the interrupted chunk was never recorded
    finally:
        bar.close()
        if journal is not None:
            journal.close()
    partial = partial or len(chunks) < len(_schedule(config))
    records = (TournamentRecords(config, bots, rules, cube, threads)
               if record and not partial else None)    # an interrupted run: none
    return TournamentResults(config, chunks, partial=partial, records=records)


class TournamentRecords:
    """``res.records`` of ``tournament(..., record=True)``: for each pair ``(i, j)``
    (i < j), a tuple of :class:`fastbg.sim.records.Records`, one per seating: bots (i, j),
    then (j, i) with duplicate play. Each holds that seating's games (matches) in deal
    order, exactly ``play(deals, (bot_a, bot_b), seed=pair_seed(seed, i, j), rules=...,
    cube=..., record=True).records`` (``play_matches`` for matches): every game is a pure
    function of its seed and index, so a pair's games are played again, once, when the
    pair is first asked for (tournaments keep only statistics while they run).
    """

    def __init__(self, config, bots, rules, cube, threads):
        self.config, self._bots, self._rules, self._cube = config, bots, rules, cube
        self._threads = threads
        self._cache = {}

    def keys(self):
        return list(_pairs(self.config))

    def __len__(self):
        return len(self.keys())

    def __iter__(self):
        return iter(self.keys())

    def items(self):
        return [(k, self[k]) for k in self.keys()]

    def __getitem__(self, pair):
        i, j = (int(x) for x in pair)
        if (i, j) not in self.keys():
            raise KeyError(f"no pair {pair!r}: pairs are (i, j) with i < j < {len(self._bots)}")
        if (i, j) not in self._cache:
            config = self.config
            deals = _units(config)[0]
            seed = pair_seed(config["seed"], i, j)
            seatings = [(i, j)] + ([(j, i)] if config["duplicate"] else [])
            out = []
            for a, b in seatings:
                seated = (self._bots[a], self._bots[b])
                if config["match_length"]:
                    r = play_matches(deals, config["match_length"], seated,
                                     cube=(self._cube, self._cube), seed=seed,
                                     threads=self._threads, crawford=self._rules.crawford,
                                     max_cube=self._rules.max_cube, record=True)
                else:
                    r = play(deals, seated, seed=seed, threads=self._threads, rules=self._rules,
                             cube=None if self._rules is None else (self._cube, self._cube),
                             record=True)
                out.append(r.records)
            self._cache[(i, j)] = tuple(out)
        return self._cache[(i, j)]

    def write_mat(self, directory):
        """Write every pair's games as .mat files GNU Backgammon opens, into
        ``directory`` (made if missing): per pair and seating, money and cubeless games as
        one session ``A-vs-B.mat`` (a "0 point match" with running scores,
        :func:`fastbg.money_session`), matches one file each ``A-vs-B-00001.mat`` (A the
        first seat). Returns the paths written."""
        os.makedirs(directory, exist_ok=True)
        names = self.config["bots"]
        paths = []
        for i, j in self.keys():
            for (a, b), recs in zip([(i, j), (j, i)], self[(i, j)]):
                stem = os.path.join(directory, f"{names[a]}-vs-{names[b]}")
                if self.config["match_length"]:
                    for k, m in enumerate(recs, 1):
                        paths.append(f"{stem}-{k:05d}.mat")
                        write_mat(m, paths[-1])
                else:
                    paths.append(f"{stem}.mat")
                    write_mat(money_session(recs), paths[-1])
        return paths


def _dry_run(config, bots, rules, cube, threads):
    """Check bots, rules, cube and threads by playing nothing, before any file is touched."""
    for b in range(len(bots)):
        pair = (bots[b], bots[(b + 1) % len(bots)])
        if config["match_length"]:
            play_matches(0, config["match_length"], pair, cube=(cube, cube), threads=threads,
                         crawford=rules.crawford, max_cube=rules.max_cube)
        else:
            play(0, pair, threads=threads, rules=rules,
                 cube=None if rules is None else (cube, cube))


def _pairs(config):
    k = len(config["bots"])
    return [(i, j) for i in range(k) for j in range(i + 1, k)]


# ----------------------------------------------------------------------------- figures

def _var_sum(n, s, sq):
    """Sample variance (ddof 1) from a count, a sum and a sum of squares (ints: exact)."""
    if n < 2:
        return math.nan
    return (n * sq - s * s) / (n * (n - 1))


def _ratio(a, b):
    return a / b if b else math.nan


@dataclass
class TournamentResults(Results):
    """Results of :func:`tournament`: per-pair and per-bot figures, all derived from the
    integer statistics in ``chunks`` (``{(i, j, chunk): stats}``, as in the output file).

    pairs    : one dict per pair (first bot's view; see :attr:`pairs`).
    bots     : one dict per bot, in the order given, with its rating and rank.
    matrix   : (k, k) points per game (match-winning rate for matches) of row vs column.
    partial  : True when not every chunk was played (interrupted, or loaded mid-run).
    records  : with ``record=True``, every game's record per pair (:class:`TournamentRecords`)
    """
    config: dict
    chunks: dict = field(repr=False)
    partial: bool = False
    records: object = field(default=None, repr=False, compare=False)   # record=True

    def __post_init__(self):
        # the configuration as the file holds it (sorted keys, lists): equal runs print alike
        self.config = _journal.canonical(self.config)

    # -- totals (each figure is computed once: the results do not change) ---------------
    @cached_property
    def _totals(self):
        keys = (_MATCH_STATS if self.match else _MONEY_STATS)
        keys += (_DEAL_STATS if self.config["duplicate"] else ())
        if self.luck_adjusted:
            keys += _LUCK_STATS + (_DEAL_LUCK_STATS if self.config["duplicate"] else ())
        if self.timed:
            keys += _SPEED_STATS
        tot = {p: dict.fromkeys(keys, 0) for p in _pairs(self.config)}
        for (i, j, _), st in sorted(self.chunks.items()):
            for key, v in st.items():
                tot[(i, j)][key] += v
        return tot

    @property
    def match(self):
        return self.config["match_length"] is not None

    @property
    def luck_adjusted(self):
        """True when the pairs report luck-adjusted points (``luck_adjust=``)."""
        return self.config.get("luck_adjust") is not None

    @property
    def timed(self):
        """True when the bots' decisions were timed (``speed=True`` or ``luck_adjust``)."""
        return bool(self.config.get("speed"))

    def _adjusted_stats(self, t):
        """(mean, variance of the mean) of the pair's luck-adjusted points per game."""
        n = t["games"]
        if self.config["duplicate"]:
            d = t["deals"]
            var = _var_sum(d, t["deal_adjusted"], t["deal_adjusted_sq"])
            return _ratio(t["adjusted"], n), (var / (4 * d) if d else math.nan)
        return (_ratio(t["adjusted"], n),
                _var_sum(n, t["adjusted"], t["adjusted_sq"]) / n if n else math.nan)

    @property
    def names(self):
        return list(self.config["bots"])

    @property
    def games_played(self):
        return sum(st["games"] for st in self.chunks.values())

    @property
    def games_total(self):
        return self.config["games"] * len(_pairs(self.config))

    def _value_stats(self, t):
        """(mean, variance of the mean) of the pair's value per game (points; match wins)."""
        n = t["games"]
        s, sq = (t["wins"], t["wins"]) if self.match else (t["points"], t["points_sq"])
        if self.config["duplicate"]:
            d = t["deals"]
            if self.match:
                var = _var_sum(d, t["deal_wins"], t["deal_wins_sq"])
            else:
                var = _var_sum(d, t["deal_points"], t["deal_points_sq"])
            return _ratio(s, n), (var / (4 * d) if d else math.nan)
        return _ratio(s, n), (_var_sum(n, s, sq) / n if n else math.nan)

    def _win_variance(self, t):
        """Estimated variance of the pair's win count (the meat of the rating covariance)."""
        if self.config["duplicate"]:
            d = t["deals"]
            return d * _var_sum(d, t["deal_wins"], t["deal_wins_sq"]) if d else math.nan
        n = t["games"]
        return n * _var_sum(n, t["wins"], t["wins"]) if n else math.nan

    # -- pairs -------------------------------------------------------------------------
    @cached_property
    def pairs(self):
        """Per pair (first bot's view): games, points per game with a 95% interval, win rate,
        gammon and backgammon rates [won, lost], mean plies (money); matches, match-winning
        rate with a 95% interval, games per match (matches)."""
        rows = []
        names = self.names
        for (i, j), t in self._totals.items():
            n = t["games"]
            mean, var = self._value_stats(t)
            half = Z95 * math.sqrt(var)                  # NaN with fewer than two games
            row = {"bots": [names[i], names[j]], "index": [i, j]}
            if self.config["duplicate"]:
                row["deals"] = t["deals"]
            if self.match:
                if self.config["duplicate"]:
                    lo, hi = max(0.0, mean - half), min(1.0, mean + half)
                else:
                    lo, hi = wilson_interval(mean, n)
                row.update({"matches": n, "match_win_rate": mean,
                            "match_win_rate_ci95": [lo, hi],
                            "games_per_match": _ratio(t["match_games"], n)})
            else:
                row.update({
                    "games": n, "points_per_game": mean,
                    "points_per_game_ci95": [mean - half, mean + half],
                    "win_rate": _ratio(t["wins"], n),
                    "gammon_rate": [_ratio(t["gammons_won"], n), _ratio(t["gammons_lost"], n)],
                    "backgammon_rate": [_ratio(t["backgammons_won"], n),
                                        _ratio(t["backgammons_lost"], n)],
                    "mean_plies": _ratio(t["plies"], n)})
                if self.config["rules"] is not None:
                    row.update({"mean_cube": _ratio(t["cube"], n),
                                "drop_rate": _ratio(t["dropped"], n)})
                if self.luck_adjusted:
                    amean, avar = self._adjusted_stats(t)
                    ahalf = Z95 * math.sqrt(avar)
                    row.update({"luck_adjusted_points_per_game": amean,
                                "luck_adjusted_points_per_game_ci95": [amean - ahalf,
                                                                       amean + ahalf],
                                # NaN where the plain interval is empty (two bots that
                                # play alike: duplicate deals cancel exactly), not 0
                                "luck_narrowing": _ratio(half, ahalf) if half else math.nan})
            if self.timed:
                row["decisions_per_second"] = [
                    _ratio(t["decisions_first"], t["seconds_first"]),
                    _ratio(t["decisions_second"], t["seconds_second"])]
            rows.append(row)
        return rows

    # -- ratings -----------------------------------------------------------------------
    def ratings(self):
        """Elo ratings (mean 0), their 95% half-widths and a note (see the module notes)."""
        return self._ratings

    @cached_property
    def _ratings(self):
        k = len(self.names)
        tot = self._totals
        data = [(i, j, t["games"], t["wins"], self._win_variance(t))
                for (i, j), t in tot.items() if t["games"] > 0]
        return elo_ratings(k, data)

    # -- bots --------------------------------------------------------------------------
    @cached_property
    def bots(self):
        """Per bot, over all its games: rating with 95% interval, rank, games, points per
        game with a 95% interval, win, gammon and backgammon rates (money) or match-winning
        rate (matches)."""
        names = self.names
        k = len(names)
        rating, half, _ = self.ratings()
        acc = [dict.fromkeys(("n", "value", "wins", "gw", "gl", "bw", "bl", "mg", "adj", "dec",
                              "sec"), 0) | {"var": 0.0, "adj_var": 0.0} for _ in names]
        for (i, j), t in self._totals.items():
            n = t["games"]
            _, var = self._value_stats(t)
            value = t["wins"] if self.match else t["points"]
            for b, sign, won in ((i, 1, t["wins"]), (j, -1, n - t["wins"])):
                a = acc[b]
                if self.luck_adjusted:
                    a["adj"] += sign * t["adjusted"]
                    a["adj_var"] += self._adjusted_stats(t)[1] * n * n if n else 0.0
                if self.timed:
                    which = "first" if sign == 1 else "second"
                    a["dec"] += t[f"decisions_{which}"]
                    a["sec"] += t[f"seconds_{which}"]
                a["n"] += n
                a["value"] += value if sign == 1 else (n - value if self.match else -value)
                a["var"] += var * n * n if n else 0.0
                a["wins"] += won
                if self.match:
                    a["mg"] += t["match_games"]
                else:
                    a["gw"] += t["gammons_won"] if sign == 1 else t["gammons_lost"]
                    a["gl"] += t["gammons_lost"] if sign == 1 else t["gammons_won"]
                    a["bw"] += t["backgammons_won"] if sign == 1 else t["backgammons_lost"]
                    a["bl"] += t["backgammons_lost"] if sign == 1 else t["backgammons_won"]
        order = sorted(range(k), key=lambda b: (math.inf if math.isnan(rating[b])
                                                else -rating[b], b))
        rank = {b: (None if math.isnan(rating[b]) else r + 1) for r, b in enumerate(order)}
        rows = []
        for b, a in enumerate(acc):
            n = a["n"]
            mean = _ratio(a["value"], n)
            h = Z95 * math.sqrt(a["var"]) / n if n else math.nan
            row = {"bot": names[b], "rank": rank[b], "rating": rating[b],
                   "rating_ci95": [rating[b] - half[b], rating[b] + half[b]]}
            if self.match:
                row.update({"matches": n, "match_win_rate": mean,
                            "match_win_rate_ci95": [mean - h, mean + h],
                            "games_per_match": _ratio(a["mg"], n)})
            else:
                row.update({"games": n, "points_per_game": mean,
                            "points_per_game_ci95": [mean - h, mean + h],
                            "win_rate": _ratio(a["wins"], n),
                            "gammon_rate": [_ratio(a["gw"], n), _ratio(a["gl"], n)],
                            "backgammon_rate": [_ratio(a["bw"], n), _ratio(a["bl"], n)]})
                if self.luck_adjusted:
                    amean = _ratio(a["adj"], n)
                    ah = Z95 * math.sqrt(a["adj_var"]) / n if n else math.nan
                    row.update({"luck_adjusted_points_per_game": amean,
                                "luck_adjusted_points_per_game_ci95": [amean - ah, amean + ah]})
            if self.timed:
                row["decisions_per_second"] = _ratio(a["dec"], a["sec"])
            rows.append(row)
        return rows

    @cached_property
    def matrix(self):
        """(k, k) float array: points per game (match-winning rate) of row bot vs column
        bot; NaN on the diagonal and for pairs not played yet."""
        k = len(self.names)
        m = np.full((k, k), np.nan)
        key = "match_win_rate" if self.match else "points_per_game"
        for row in self.pairs:
            i, j = row["index"]
            v = row[key]
            m[i, j] = v
            m[j, i] = (1.0 - v) if self.match else -v
        return m

    # -- output ------------------------------------------------------------------------
    def describe(self):
        """One line: what was played."""
        c = self.config
        if self.match:
            r = c["rules"]
            crawford = "on" if r["crawford"] else "off"
            what = (f"{c['match_length']}-point matches (Crawford {crawford}, cube {c['cube']}, "
                    f"max cube {r['max_cube']})")
        elif c["rules"] is None:
            what = "cubeless money games"
        else:
            r = c["rules"]
            opts = [o for o in ("jacoby", "beavers", "raccoons", "auto_doubles") if r[o]]
            what = (f"money games with the cube ({', '.join(opts) or 'no options'}, cube "
                    f"{c['cube']}, max cube {r['max_cube']})")
        unit = "matches" if self.match else "games"
        return (f"{what}; {c['games']:,} {unit} per pair"
                f"{' (duplicate)' if c['duplicate'] else ''}, seed {c['seed']}")

    def summary(self):
        """Every figure (``to_dict()`` gives it as plain data, NaN as None; equal runs give
        equal dicts)."""
        rating_note = self.ratings()[2]
        return {
            "config": self.config, "partial": self.partial,
            "games_played": self.games_played, "games_total": self.games_total,
            "bots": self.bots, "pairs": self.pairs,
            "matrix": {"of": "match_win_rate" if self.match else "points_per_game",
                       "bots": self.names, "rows": self.matrix.tolist()},
            "ratings": {"scale": "Elo: 400 points per factor 10 in odds, mean 0",
                        "fit": "Bradley-Terry maximum likelihood on "
                               + ("match wins" if self.match else "game wins"),
                        "ci95": "sandwich covariance (Fisher information, observed variance"
                                + (" over deals" if self.config["duplicate"] else "") + ")",
                        "note": rating_note},
        }

    def _report(self):
        """The report that :meth:`table` prints and :meth:`_repr_html_` draws: its
        heading lines, then its three tables as (title, head, rows, align, note) with
        ``align`` one letter a column for :func:`_grid` (l / r / <)."""
        heading = [f"tournament: {', '.join(self.names)}", self.describe()]
        if self.partial:
            heading.append(f"PARTIAL: {self.games_played:,} of {self.games_total:,} "
                           f"{'matches' if self.match else 'games'} played")
        bots = sorted(self.bots, key=lambda r: (r["rank"] is None, r["rank"] or 0))
        if self.match:
            head = ["#", "bot", "Elo (95% CI)", "matches", "match wins (95% CI)", "games/match"]
            rows = [[str(r["rank"] or "-"), r["bot"], _elo_text(r), f"{r['matches']:,}",
                     _ci_text(r["match_win_rate"], r["match_win_rate_ci95"], ".4f"),
                     _f(r["games_per_match"], ".2f")] for r in bots]
        else:
            head = ["#", "bot", "Elo (95% CI)", "games", "points/game (95% CI)", "wins",
                    "gammons", "backgammons"]
            rows = [[str(r["rank"] or "-"), r["bot"], _elo_text(r), f"{r['games']:,}",
                     _ci_text(r["points_per_game"], r["points_per_game_ci95"]),
                     _f(r["win_rate"], ".4f"), _f(r["gammon_rate"][0], ".4f"),
                     _f(r["backgammon_rate"][0], ".4f")] for r in bots]
        align = "rl<r<rrr"
        if not self.match and self.luck_adjusted:
            head.append(f"luck-adjusted ({self.config['luck_adjust']}, 95% CI)")
            align += "<"
            for row, r in zip(rows, bots):
                row.append(_ci_text(r["luck_adjusted_points_per_game"],
                                    r["luck_adjusted_points_per_game_ci95"]))
        if self.timed:
            head.append("decisions/s")
            align += "r"
            for row, r in zip(rows, bots):
                row.append(_f(r["decisions_per_second"], ",.0f"))
        note = self.ratings()[2]
        tables = [("bots", head, rows, align, f"({note})" if note else None)]
        if self.match:
            head = ["pair", "matches", "first bot's match wins (95% CI)", "games/match"]
            rows = [[" - ".join(r["bots"]), f"{r['matches']:,}",
                     _ci_text(r["match_win_rate"], r["match_win_rate_ci95"], ".4f"),
                     _f(r["games_per_match"], ".2f")] for r in self.pairs]
        else:
            head = ["pair", "games", "points/game, first bot (95% CI)", "wins",
                    "gammons won/lost"]
            rows = [[" - ".join(r["bots"]), f"{r['games']:,}",
                     _ci_text(r["points_per_game"], r["points_per_game_ci95"]),
                     _f(r["win_rate"], ".4f"),
                     f"{_f(r['gammon_rate'][0], '.4f')} / {_f(r['gammon_rate'][1], '.4f')}"]
                    for r in self.pairs]
        align = "lr<rr"
        if not self.match and self.luck_adjusted:
            head += ["luck-adjusted (95% CI)", "narrower"]
            align += "<r"
            for row, r in zip(rows, self.pairs):
                row += [_ci_text(r["luck_adjusted_points_per_game"],
                                 r["luck_adjusted_points_per_game_ci95"]),
                        _f(r["luck_narrowing"], ".2f") + "x"
                        if not math.isnan(r["luck_narrowing"]) else "-"]
        tables.append(("pairs", head, rows, align, None))
        m = self.matrix
        k = len(self.names)
        rows = [[name] + ["." if a == b else _f(m[a, b], ".4f" if self.match else "+.3f")
                          for b in range(k)] for a, name in enumerate(self.names)]
        tables.append((("match-winning rate" if self.match else "points per game")
                       + " of row vs column", [""] + self.names, rows, "l" + "r" * k, None))
        return heading, tables

    def table(self):
        """A readable text report: bots by rating, the pairs, and the matrix."""
        heading, (bots, pairs, matrix) = self._report()
        lines = heading + [""]
        for _, head, rows, align, note in (bots, pairs):
            lines += _grid(head, rows, align) + ([note] if note else []) + [""]
        title, head, rows, align, _ = matrix
        return "\n".join(lines + [title] + _grid(head, rows, align))

    def _repr_html_(self):
        """The same report as HTML tables, one row a bot, a pair, a matrix row (Jupyter
        draws it)."""
        heading, tables = self._report()
        parts = [html_text(line) for line in heading]
        for title, head, rows, align, note in tables:
            parts += [html_table(head, rows, title, align.replace("<", "l")),
                      note and html_text(note)]
        return html_block(*parts)

    def plot(self, path=None):
        """:attr:`matrix` as a PNG heat map (needs matplotlib: the ``plot`` extra): a
        picture a notebook draws in place (``.png`` its bytes, ``.save(path)``), also
        written to ``path`` unless it is None."""
        return plot_matrix(self.matrix, self.names, self.match, self.partial, self.describe(),
                           path)

    # -- files -------------------------------------------------------------------------
    def save(self, path):
        """Write the results as a tournament file (header and chunk lines), which
        :meth:`load` reads back and :func:`tournament` can resume."""
        _journal.write(path, JOB, self.config,
                       [_chunk_record(self.config, *key, self.chunks[key])
                        for key in _schedule(self.config) if key in self.chunks])

    @classmethod
    def load(cls, path):
        """Read a tournament file (complete or not; a cut-short last line is ignored)."""
        path = os.fspath(path)
        config, records, _ = _journal.read(path, JOB)
        if config is None:
            raise TournamentFileError(f"{path} holds no tournament header")
        _journal.read(path, JOB, _chunk_checker(config))      # every chunk line, numbered
        chunks = _chunks_of(records)
        return cls(config, chunks, partial=len(chunks) < len(_schedule(config)))


def _grid(head, rows, align):
    """Text rows of a table: ``align`` per column, l / r / < (left, padded)."""
    widths = [max(len(x) for x in col) for col in zip(head, *rows)]

    def fmt(cells):
        out = [c.ljust(w) if a in "l<" else c.rjust(w) for c, w, a in zip(cells, widths, align)]
        return "  ".join(out).rstrip()
    return [fmt(head)] + [fmt(r) for r in rows]


def _f(x, spec):
    return "-" if x is None or math.isnan(x) else format(x, spec)


def _ci_text(mean, ci, spec="+.4f"):
    if math.isnan(mean):
        return "-"
    if math.isnan(ci[0]):
        return format(mean, spec)
    return f"{mean:{spec}} ({ci[0]:{spec}} .. {ci[1]:{spec}})"


def _elo_text(r):
    if math.isnan(r["rating"]):
        return "-"
    lo, hi = r["rating_ci95"]
    if math.isnan(lo):
        return f"{r['rating']:+7.1f}"
    return f"{r['rating']:+7.1f} ({lo:+.0f} .. {hi:+.0f})"
