"""Making a benchmark set: :func:`make_benchmark` (docs/benchmarks.md section 3).

1. **Harvest.** Games are played by two chosen bots from the start, in lock-step (one
   :func:`fastbg.benchmarks.choices.bot_choices` call per side and ply for every live
   game), dice a pure function of (seed, game, ply). Every decision met is a candidate
   for the set except the openings (the first ``skip_plies`` plies of a game, which every
   set would share), forced ones (fewer than two legal results) and trivial ones (only
   one move within ``within`` of the best at the filter's ply). Decisions are kept by
   class (contact, crashed, race, bear-off; :mod:`fastbg.benchmarks.classes`) up to the
   counts asked for, drawn at random from all the games' eligible decisions, at most one
   of each class from a game (decisions of one game are alike) and one per position and
   roll.
2. **Candidates.** The best ``candidates`` moves within ``within`` of the best, ranked by
   :func:`fastbg.hint_batch` at ``filter_ply`` (GNU Backgammon's filter idea: what a
   strong player would consider).
3. **Rollouts.** Each decision's candidates rolled out on common dice by
   :func:`fastbg.rollout_moves` with the settings given (bot, trials, truncation,
   variance reduction...), the standard error kept per candidate (of its equity, and of
   its difference from the best in ``diff_se``).

Everything goes to a journal beside the output (``out + ".journal"``): its first record
the harvested decisions, then one record per decision rolled out, so Ctrl-C or a crash
loses at most the decision being rolled out, and ``resume=True`` continues with the same
decisions. The decisions file ``out`` is rewritten (atomically) from the journal after
every ``save_every`` decisions and at the end, in harvest order (classes interleaved, so
a set cut short keeps its mix).
"""
import math
import os
import time
from dataclasses import dataclass, field

import numpy as np

from fastbg import dice as _dice
from fastbg import journal as _journal
from fastbg.analysis.hints import hint_batch
from fastbg.benchmarks.choices import choices_checked
from fastbg.benchmarks.classes import CLASSES, class_codes, _NAME
from fastbg.benchmarks.formats import Decision, MoveCandidate, write_decisions
from fastbg.constants import START
from fastbg.distributed import resolve_backend
from fastbg.jobs.decision_rollouts import rollout_moves
from fastbg.position.ids import position_id_checked
from fastbg.position.moves import legal_moves_rows
from fastbg.progress import progress_bar
from fastbg.sim.bots import strongest_bot
from fastbg.sim.results import Results
from fastbg.validation import check_int

JOB = "make_benchmark"
DEFAULT_MIX = {"contact": 1, "crashed": 1, "race": 1}   # shares of the decisions
GAMES_PER_ROUND = 400       # games harvested at a time, until every class has its count
MAX_ROUNDS = 200            # then the classes still short are reported, not waited on


# ------------------------------------------------------------------ harvest

def _class_counts(decisions, mix):
    """{class: count}: the counts of ``mix`` as given when ``decisions`` is None, else
    ``decisions`` shared among the classes in the proportions of ``mix``."""
    if decisions is None:
        counts = dict(mix)
    else:
        total = check_int("decisions", decisions, 1)
        shares = {k: float(v) for k, v in mix.items()}
        s = sum(shares.values())
        counts = {k: int(total * v / s) for k, v in shares.items()}
        for k in list(counts)[: total - sum(counts.values())]:     # the remainder
            counts[k] += 1
    for k, v in counts.items():
        if k not in CLASSES:
            raise ValueError(f"mix names classes {', '.join(CLASSES)}; got {k!r}")
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise ValueError(f"the count of class {k!r} must be an int >= 0, got {v!r}")
    return {k: v for k, v in counts.items() if v > 0}


def _play_round(bots, seed, game0, n, skip_plies, threads):
    """The eligible decisions of games game0 .. game0 + n - 1: boards (m, 26) and dice
    (m, 2), in order of play (those with at least two legal results, from ply
    ``skip_plies`` on)."""
    boards = np.repeat(START[None], n, axis=0)
    side = np.zeros(n, np.int64)
    ply = np.zeros(n, np.int64)
    dice = np.zeros((n, 2), np.int64)
    for g in range(n):      # the opening roll: the higher die moves first, both dice
        first, a, b, _ = _dice.opening_roll(np.uint64(seed), game0 + g)
        side[g] = first
        dice[g] = (a, b) if first == 0 else (b, a)
    live = np.arange(n)
    kept_boards, kept_dice, kept_games = [], [], []
    while live.size:
        for g in live[ply[live] > 0]:
            dice[g] = _dice.roll(np.uint64(seed), game0 + g, ply[g])
        res, off = legal_moves_rows(np.ascontiguousarray(boards[live]),
                                    np.ascontiguousarray(dice[live]), 1)
        counts = np.diff(off)
        keep = (ply[live] >= skip_plies) & (counts >= 2)
        kept_boards.append(boards[live[keep]].copy())
        kept_dice.append(dice[live[keep]].copy())
        kept_games.append(game0 + live[keep])
        chosen = np.zeros((live.size, 26), np.int8)
        for s in (0, 1):
            rows = np.flatnonzero(side[live] == s)
            if rows.size == 0:
                continue
            r, o, c = choices_checked(bots[s], np.ascontiguousarray(boards[live[rows]]),
                                      np.ascontiguousarray(dice[live[rows]]), seed, threads)
            chosen[rows] = r[o[:-1] + c]
        over = ~(chosen[:, 1:] > 0).any(axis=1)
        nxt = -chosen[:, ::-1]          # the opponent's view: new[i] = -old[25 - i]
        boards[live] = nxt
        side[live] = 1 - side[live]
        ply[live] += 1
        live = live[~over]
    return np.concatenate(kept_boards), np.concatenate(kept_dice), np.concatenate(kept_games)


def _plausible(boards, dice, n_cands, within, ply, threads):
    """Per decision the boards after its best moves at ``ply`` within ``within`` of the
    best (at most ``n_cands``; the best always)."""
    out = []
    for h in hint_batch(boards, dice, ply=ply, threads=threads):
        best = h[0].equity
        out.append([c.board for c in h[:n_cands] if best - c.equity <= within])
    return out


def _candidates(boards, dice, n_cands, within, ply, threads):
    """:func:`_plausible`, None for a decision with fewer than two (a trivial one)."""
    return [c if len(c) >= 2 else None
            for c in _plausible(boards, dice, n_cands, within, ply, threads)]


def harvest(counts, bots, seed, *, skip_plies=2, candidates=5, within=0.16, filter_ply=0,
            threads=None, bar=None):
    """The decisions of a set: a list of dicts {"position", "dice", "class",
    "candidates" (Position IDs)}, classes interleaved; and the games played."""
    rng = np.random.default_rng(seed)
    pools = {k: [] for k in counts}
    seen = set()        # (position, dice) already in the set
    used = set()        # (game, class): one decision of each class per game
    games = 0
    for round_ in range(MAX_ROUNDS):
        if all(len(pools[k]) >= counts[k] for k in counts):
            break
        b, d, g = _play_round(bots, seed, games, GAMES_PER_ROUND, skip_plies, threads)
        games += GAMES_PER_ROUND
        names = [_NAME[int(c)] for c in class_codes(np.ascontiguousarray(b))]
        # rank only what could still be needed: twice each class's shortfall (some
        # turn out trivial), in random order
        short = {k: 2 * (counts[k] - len(pools[k])) for k in counts}
        picked, taken = [], set()
        for i in rng.permutation(len(names)):
            slot = (int(g[i]), names[i])
            if short.get(names[i], 0) > 0 and slot not in used and slot not in taken:
                picked.append(i)
                taken.add(slot)
                short[names[i]] -= 1
        if not picked:
            continue
        picked = np.array(picked)
        cands = _candidates(np.ascontiguousarray(b[picked]), np.ascontiguousarray(d[picked]),
                            candidates, within, filter_ply, threads)
        for i, c in zip(picked, cands):
            cls = names[i]
            key = (position_id_checked(b[i]), int(d[i, 0]), int(d[i, 1]))
            if (c is None or key in seen or (int(g[i]), cls) in used
                    or len(pools[cls]) >= counts[cls]):
                continue
            seen.add(key)
            used.add((int(g[i]), cls))
            pools[cls].append({"position": key[0], "dice": [key[1], key[2]], "class": cls,
                               "candidates": [position_id_checked(x) for x in c]})
        if bar is not None:
            bar.update(1)
            bar.set_postfix_str(" ".join(f"{k} {len(v)}/{counts[k]}" for k, v in pools.items()))
    out = []
    for i in range(max(counts.values())):
        for k in counts:
            if i < len(pools[k]):
                out.append(pools[k][i])
    return out, games


# ------------------------------------------------------------------ results

@dataclass
class MadeBenchmark(Results):
    """What :func:`make_benchmark` made: ``path`` the decisions file, ``decisions`` those
    rolled out (of ``planned``), ``by_class`` their counts and mean paired standard error
    of the candidates' differences from the best, ``games`` harvested, ``seconds`` this
    run's time, ``partial`` when stopped before the end (resume it), ``settings``."""
    path: str
    decisions: int
    planned: int
    by_class: dict
    games: int
    seconds: float
    partial: bool
    settings: dict = field(default_factory=dict)

    def summary(self):
        return {k: getattr(self, k) for k in ("path", "decisions", "planned", "by_class",
                                              "games", "seconds", "partial", "settings")}

    def table(self):
        rows = [f"{self.decisions:,} of {self.planned:,} decisions rolled out into {self.path}"
                + ("  (partial: resume to finish)" if self.partial else ""),
                f"{'class':<9} {'decisions':>9} {'mean diff se':>13}"]
        for k, v in self.by_class.items():
            rows.append(f"{k:<9} {v['decisions']:>9,} {v['mean_diff_se']:13.4f}")
        return "\n".join(rows)


# ------------------------------------------------------------------ making

def _decision_of(rec):
    extra = {k: rec[k] for k in ("class", "moves", "diff_se", "trials", "source")}
    cands = [MoveCandidate(c["position"], c["equity"], c["se"]) for c in rec["candidates"]]
    return Decision(rec["position"], tuple(rec["dice"]), cands, extra, 0)


def _summary_by_class(records):
    out = {}
    for k in CLASSES:
        rs = [r for r in records if r["class"] == k]
        if rs:
            se = [s for r in rs for s in r["diff_se"][1:] if s is not None]
            out[k] = {"decisions": len(rs),
                      "mean_diff_se": float(np.mean(se)) if se else math.nan}
    return out


def make_benchmark(out, decisions=300, *, mix=None, game_bots=None, seed=0,
                   skip_plies=2, candidates=5, within=0.16, filter_ply=0, trials=1296,
                   bot=None, truncate=10, variance_reduction=True, evaluator=None,
                   chunk_size=216, late=None, threads=None, backend="local", resume=False,
                   progress=False, save_every=20, journal=None, positions=None,
                   target_se=None):
    """Make a benchmark set: a decisions file ``out`` (JSON Lines, docs/benchmarks.md) of
    ``decisions`` move decisions from games of ``game_bots``, each with its best
    ``candidates`` moves within ``within`` (at ``filter_ply``) rolled out on common dice.
    Returns a :class:`MadeBenchmark`. ``game_bots`` default: the strongest bot installed
    against itself (:func:`fastbg.sim.bots.strongest_bot`: the gnubg bot, else fastbg's).

    mix        : class shares of the decisions ({"contact": 1, "crashed": 1, "race": 1}
                 by default; "bear-off" too), or with ``decisions=None`` the counts per class.
    bot        : plays the rollouts (default the strongest installed, the gnubg bot);
                 ``trials``, ``truncate``, ``variance_reduction``, ``evaluator`` (default:
                 the bot's network when it has one; a bot without one and no evaluator
                 plays every trial to the end, without variance reduction),
                 ``chunk_size``, ``late`` and
                 ``backend`` ("local", "ray" or a RayCluster) as :func:`fastbg.rollout_moves`.
    journal    : the journal's path (default ``out + ".journal"``); ``resume=True``
                 continues it (the same settings).
    target_se  : stop each decision's rollout once every candidate's standard error is at
                 most this (checked between chunks; ``trials`` is then the most).
    positions  : instead of harvesting games, these decisions: a list of (position, dice)
                 (a board, Position ID or XGID; two dice), each rolled out with its
                 candidates picked as above (``decisions``, ``mix`` and ``game_bots``
                 unused; a decision with one plausible move keeps its one candidate).

    >>> import fastbg, pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "tiny.jsonl"
    >>> made = fastbg.make_benchmark(path, decisions=2, mix={"race": 1}, game_bots=("pubeval",
    ...     "pubeval"), trials=36, chunk_size=36, bot="pubeval", truncate=None,
    ...     variance_reduction=False, filter_ply=0)  # doctest: +SKIP
    """
    t0 = time.perf_counter()
    out = os.fspath(out)
    counts = _class_counts(decisions, DEFAULT_MIX if mix is None else mix)
    bot = strongest_bot() if bot is None else bot
    game_bots = (strongest_bot(),) * 2 if game_bots is None else tuple(game_bots)
    if evaluator is None and (truncate is not None or variance_reduction):
        # the bot's own network scores truncated trials and the luck; a bot without one
        # (pubeval, say) plays them out whole
        evaluator = bot_network(bot)
        if evaluator is None:
            truncate, variance_reduction = None, False
    for name, v in (("trials", trials), ("candidates", candidates),
                    ("skip_plies", skip_plies), ("save_every", save_every)):
        check_int(name, v, 0 if name == "skip_plies" else 1)
    if not (isinstance(within, (int, float)) and within >= 0):
        raise ValueError(f"within is an equity >= 0, got {within!r}")
    backend = resolve_backend(backend)
    given = None if positions is None else _given(positions, candidates, within, filter_ply,
                                                  threads)
    settings = {"counts": counts, "game_bots": [_label(b) for b in game_bots],
                "seed": int(seed), "skip_plies": skip_plies, "candidates": candidates,
                "within": float(within), "filter_ply": filter_ply, "trials": trials,
                "bot": _label(bot), "truncate": truncate,
                "variance_reduction": bool(variance_reduction),
                "evaluator": None if evaluator is None else _label(evaluator),
                "chunk_size": chunk_size, "late": None if late is None else
                [late[0], _label(late[1])]}
    if target_se is not None:
        settings["target_se"] = float(target_se)
    if given is not None:           # the decisions themselves are the set's definition
        settings["positions"] = [[d["position"], d["dice"]] for d in given]
        settings.pop("counts")
    journal = _journal.Journal(out + ".journal" if journal is None else os.fspath(journal),
                               JOB, settings, resume=resume)
    partial = False
    try:
        records = list(journal.records)
        if records:
            plan, games = records[0]["decisions"], records[0]["games"]
        elif given is not None:
            plan, games = given, 0
            journal.append({"decisions": plan, "games": 0})
            records = [None]
        else:
            bar = progress_bar(None, progress, "round", "harvest")
            try:
                plan, games = harvest(counts, game_bots, seed, skip_plies=skip_plies,
                                      candidates=candidates, within=within,
                                      filter_ply=filter_ply, threads=threads, bar=bar)
            finally:
                bar.close()
            rec = {"decisions": plan, "games": games}
            journal.append(rec)
            records = [rec]
        done = records[1:]
        bar = progress_bar(len(plan), progress, "decision", "rollouts", initial=len(done))
        try:
            for i in range(len(done), len(plan)):
                rec = _roll_out(plan[i], i, seed, trials, bot, truncate, variance_reduction,
                                evaluator, chunk_size, late, threads, backend, target_se)
                if rec is None:
                    partial = True
                    break
                with _journal.interrupts_held():
                    journal.append(rec)
                    done.append(rec)
                bar.update(1)
                if len(done) % save_every == 0:
                    write_decisions(out, [_decision_of(r) for r in done])
        except KeyboardInterrupt:
            partial = True
        finally:
            bar.close()
    finally:
        journal.close()
    write_decisions(out, [_decision_of(r) for r in done])
    return MadeBenchmark(path=out, decisions=len(done), planned=len(plan),
                         by_class=_summary_by_class(done), games=games,
                         seconds=time.perf_counter() - t0,
                         partial=partial or len(done) < len(plan),
                         settings=_journal.canonical(settings))


def _given(positions, n_cands, within, ply, threads):
    """The plan of :func:`make_benchmark` for decisions given as (position, dice)."""
    from fastbg.position.ids import read_position
    from fastbg.position.moves import validate_dice
    boards, dice = [], []
    for k, item in enumerate(positions):
        try:
            position, roll = item
            board, _ = read_position(position, "make_benchmark")
            roll = validate_dice(roll)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"positions[{k}] is not (position, dice): {exc}") from None
        boards.append(board)
        dice.append([int(roll[0]), int(roll[1])])
    b = np.ascontiguousarray(np.stack(boards))
    d = np.ascontiguousarray(np.array(dice, np.int64))
    names = [_NAME[int(c)] for c in class_codes(b)]
    return [{"position": position_id_checked(b[i]), "dice": dice[i], "class": names[i],
             "candidates": [position_id_checked(x) for x in near]}
            for i, near in enumerate(_plausible(b, d, n_cands, within, ply, threads))]


def bot_network(bot):
    """The evaluator of the networks a bot plays with, as rollouts take it: ``"gnubg"`` or
    ``"fastbg"`` for a bot's name, the net itself for a net; None for a bot without one."""
    from fastbg.sim.bots import NET_FAMILIES, gnubg_net_of, net_family, nply_spec
    if isinstance(bot, str):
        if nply_spec(bot) is not None or bot.strip().lower() in NET_FAMILIES:
            return net_family(bot)
        return None
    try:
        return gnubg_net_of(bot)
    except ImportError:
        return None


def _label(x):
    return x if isinstance(x, (str, type(None))) else getattr(x, "name", type(x).__name__)


def decision_seed(seed, i):
    """The rollout seed of decision ``i``: its own dice, so that the decisions' errors are
    independent (the candidates of one decision share theirs)."""
    return (int(seed) * 1_000_003 + i) % (1 << 63)


def _roll_out(d, i, seed, trials, bot, truncate, vr, evaluator, chunk_size, late, threads,
              backend, target_se=None):
    """The journal record of decision ``d`` rolled out, or None when interrupted."""
    from fastbg.position.ids import board_from_position_id
    moves = [board_from_position_id(p) for p in d["candidates"]]
    r = rollout_moves(d["position"], tuple(d["dice"]), moves=moves, trials=trials, bot=bot,
                      seed=decision_seed(seed, i), truncate=truncate,
                      variance_reduction=vr, evaluator=evaluator, chunk_size=chunk_size,
                      late=late, threads=threads, backend=backend,
                      **({} if target_se is None else {"target_se": target_se}))
    if r.partial:
        return None
    rows = {position_id_checked(np.asarray(row.board, np.int8)): row for row in r.rows}
    ordered = [rows[p] for p in d["candidates"]]
    ordered.sort(key=lambda row: -row.equity)
    return {"index": i, "position": d["position"], "dice": d["dice"], "class": d["class"],
            "candidates": [{"position": position_id_checked(np.asarray(row.board, np.int8)),
                            "equity": row.equity, "se": row.equity_se} for row in ordered],
            "diff_se": [row.diff_se for row in ordered], "trials": r.trials,
            "moves": [row.move for row in ordered], "source": "fastbg make_benchmark"}
