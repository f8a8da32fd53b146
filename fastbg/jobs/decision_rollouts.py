"""Rollouts of decisions: the candidate moves of a roll and the cube actions of a position,
each rolled out on common dice (docs/rollouts.md section 9).

* :func:`rollout_moves`: every candidate move of ``position`` with ``dice`` is rolled out
  from the position after it, the opponent on roll. Trial i of every candidate is game i
  of the seed, so all candidates see the same dice (common random numbers): the
  differences between candidates keep little of the dice luck, and their standard errors
  come from the paired per-trial differences.
* :func:`rollout_cube`: the position before the roll rolled out twice on common dice:
  no double (the player on roll may not double before this roll; both sides' cube
  strategies play the cube from then on) and double/take (the cube doubled and owned by
  the opponent); double/pass is known without a rollout.

Every trial plays with :func:`fastbg.rollout`'s machinery (the same bots, quasi-random
first two rolls, truncation and variance reduction), so a candidate's figures are those
of ``fastbg.rollout`` of the position after the move, from the other side, with the same
seed. Results are saved chunk by chunk with ``out=`` and resume bit-identically.
"""
import math
from dataclasses import asdict, dataclass, field

import numpy as np

from fastbg import journal as _journal
from fastbg.analysis.cube_actions import proper_cube_action
from fastbg.analysis.hints import hint_checked
from fastbg.cube.formulas import swap_sides
from fastbg.cube.met import mwc_after
from fastbg.cube.rules import MoneyRules, rules_dict
from fastbg.cube.strategies import strategy_names
from fastbg.distributed import LOCAL, resolve_backend
from fastbg.html_tables import html_block, html_table, html_text
from fastbg.position.ids import position_id_checked, read_position
from fastbg.position.moves import legal_moves_checked, validate_dice
from fastbg.position.notation import notation_table, parse_move_checked
from fastbg.progress import progress_bar
from fastbg.sim import game_kernels as _play
from fastbg.sim.bots import strongest_bot
from fastbg.sim.games import open_journal
from fastbg.sim.results import Results
from fastbg.sim.setup import job_setup
from fastbg.jobs.rollouts import (DEFAULT_CHUNK, OUTPUTS, bot_name, check_rollout_options,
                                  evaluator_name, first_roll_opening, first_roll_setting,
                                  late_pair, late_setting, mean_se, position_picture,
                                  resolve_evaluator, rollout_cube_state, run_grid,
                                  target_setting, trial_values)
from fastbg.validation import check_int

JOB_MOVES = "rollout_moves"     # the job names in the results files' headers
JOB_CUBE = "rollout_cube"
PAIRED = ("equity", "cubeful")  # the estimates whose paired differences are kept


# ------------------------------------------------------------------ the lines rolled out

@dataclass
class _Line:
    """One thing rolled out: trials from ``start`` (player 0 on roll), their values turned
    to the decider's view (``other``: player 0 is the decider's opponent), or the fixed
    values of a move that ends the game."""
    cubeless: object            # JobSetup, or None for the fixed values / cubeful only
    cubeful: object             # JobSetup of the same trials with the cube, or None
    other: bool
    fixed: dict = None
    value: int = 1


def _values(line, lo, hi, opts):
    """{name: float64 (hi - lo,)} of ``line``'s trials lo..hi-1, the decider's view."""
    n = hi - lo
    if line.fixed is not None:
        return {k: np.full(n, v) for k, v in line.fixed.items()}
    rules, score = opts["rules"], opts["score"]
    if line.cubeless is None:       # a cube line: only its cubeful value is wanted
        v = trial_values(line.cubeful, None, lo, hi, opts["evaluate"], False, rules, score,
                         line.value, cubeful_only=True)
    else:
        v = trial_values(line.cubeless, line.cubeful, lo, hi, opts["evaluate"], opts["vr"],
                         rules, score, line.value)
    if not line.other:
        return v
    probs = swap_sides(np.stack([v[k] for k in OUTPUTS], axis=1))
    out = {k: probs[:, i] for i, k in enumerate(OUTPUTS)}
    out["equity"] = -v["equity"]
    if "cubeful" in v:
        out["cubeful"] = 1.0 - v["cubeful"] if rules.is_match else -v["cubeful"]
    return out


def _chunk(lines, lo, hi, opts, active=None):
    """A chunk's record fields: per line {name: [sum, sum of squares]}, and for the
    paired estimates the sums of products of every two lines' trials. Lines not
    ``active`` (dropped by the pruning rule) are not played: None in their places."""
    k = len(lines)
    active = [True] * k if active is None else active
    values = [_values(line, lo, hi, opts) if on else None for line, on in zip(lines, active)]
    sums = [None if v is None else {n: [math.fsum(x), math.fsum(x * x)] for n, x in v.items()}
            for v in values]
    cross = {}
    for name in PAIRED:
        if all(name in v for v in values if v is not None):
            cross[name] = [[math.fsum(values[i][name] * values[j][name])
                            if values[i] is not None and values[j] is not None else None
                            for j in range(k)] for i in range(k)]
    return {"sums": sums, "cross": cross}


@dataclass
class _Totals:
    """The sums of every finished chunk. A line dropped by the pruning rule has fewer
    trials than the others (``counts``); a difference of two lines is taken over the
    trials both played (every line plays a prefix of the chunks)."""
    n: int
    sums: list          # per line {name: [sum, sum of squares]}
    counts: list        # trials per line
    pair_n: list        # k x k: trials lines i and j both played
    pair: dict          # {name: k x k x 3: over the trials i and j both played, the sum
                        #  of i's values, of i's squares, and of the products of i's and j's}
    playing: list       # per line: it played the last chunk (not dropped by pruning)

    def mean_se(self, i, name):
        s, s2 = self.sums[i][name]
        return mean_se(s, s2, self.counts[i])

    def diff_se(self, i, j, name):
        """Mean and standard error of line i's value minus line j's, trial by trial."""
        si, qi, cij = self.pair[name][i][j]
        sj, qj, _ = self.pair[name][j][i]
        return mean_se(si - sj, qi + qj - 2.0 * cij, self.pair_n[i][j])


def _totals(chunks, k):
    recs = [chunks[lo] for lo in sorted(chunks)]
    n = sum(r["hi"] - r["lo"] for r in recs)
    mine = [[r for r in recs if r["sums"][i] is not None] for i in range(k)]
    counts = [sum(r["hi"] - r["lo"] for r in mine[i]) for i in range(k)]
    sums = [{name: [math.fsum(r["sums"][i][name][0] for r in mine[i]),
                    math.fsum(r["sums"][i][name][1] for r in mine[i])]
             for name in (mine[i][0]["sums"][i] if mine[i] else ())} for i in range(k)]
    # every line plays a prefix of the chunks: two lines share the shorter one's chunks
    both = [[mine[i] if counts[i] <= counts[j] else mine[j] for j in range(k)]
            for i in range(k)]
    pair_n = [[sum(r["hi"] - r["lo"] for r in both[i][j]) for j in range(k)] for i in range(k)]
    pair = {}
    for name in (recs[0]["cross"] if recs else {}):
        pair[name] = [[(math.fsum(r["sums"][i][name][0] for r in both[i][j]),
                        math.fsum(r["cross"][name][i][i] for r in both[i][j]),
                        math.fsum(r["cross"][name][i][j] for r in both[i][j]))
                       for j in range(k)] for i in range(k)]
    playing = [not recs or recs[-1]["sums"][i] is not None for i in range(k)]
    return _Totals(n, sums, counts, pair_n, pair, playing)


def _active(chunks, k, prune, key):
    """Which lines the next chunk plays under the pruning rule: a line that played the
    last chunk goes on unless its mean ``key`` is more than ``prune`` paired standard
    errors below the best such line's; a dropped line never comes back. A function of the
    finished chunks only, so where each line stops is fixed by the seed and the settings."""
    if prune is None or not chunks:
        return None
    totals = _totals(chunks, k)
    on = list(totals.playing)
    live = [i for i in range(k) if on[i] and key in totals.sums[i]]
    if totals.n < 2 or len(live) < 2:
        return on
    best = max(live, key=lambda i: totals.mean_se(i, key)[0])
    for i in live:
        if i != best:
            d, se = totals.diff_se(i, best, key)
            if d + prune * se < 0.0:
                on[i] = False
    return on
def _read(path, job):
    """(settings, chunks by first trial) of a decision rollout's results file."""
    settings, records, _ = _journal.read(path, job)
    if settings is None:
        raise _journal.JournalError(f"{path} holds no {job} header")
    return settings, {r["lo"]: r for r in records}


def _chunk_checker(settings, k):
    def check(rec):
        lo, hi, sums, cross = rec["lo"], rec["hi"], rec["sums"], rec["cross"]
        size, trials = settings["chunk_size"], settings["trials"]
        if lo % size or hi != min(trials, lo + size):
            raise ValueError(f"trials {lo}..{hi} are not a chunk of this rollout")
        if not isinstance(sums, list) or len(sums) != k or not isinstance(cross, dict):
            raise ValueError(f"a chunk line holds the sums of {k} lines and their products")
    return check


def _run(job, lines, settings, trials, chunk_size, opts, out, resume, progress, desc,
         key=None, backend=LOCAL):
    """Roll out ``lines`` on common dice (the chunks computed by ``backend``): (totals,
    partial). With ``settings["target_se"]`` the run stops once every line's standard
    error of ``key`` is at most that target (of the lines still playing); with
    ``settings["prune"]`` each chunk plays the lines :func:`_active` keeps (chunks are then
    computed here, one after another: each one's lines depend on those before it)."""
    k = len(lines)
    journal = open_journal(out, job, settings, resume, _chunk_checker(settings, k))
    chunks = {} if journal is None else {rec["lo"]: rec for rec in journal.records}
    bar = progress_bar(trials, progress, "trial", desc,
                       initial=sum(rec["hi"] - rec["lo"] for rec in chunks.values()))
    target = settings.get("target_se")
    stop = None if target is None else (lambda done: _reached(_totals(done, k), target, key))
    prune = settings.get("prune")
    partial = run_grid(trials, chunk_size, chunks, journal, bar,
                       lambda lo, hi: _chunk(lines, lo, hi, opts,
                                             _active(chunks, k, prune, key)),
                       stop, backend, f"fastbg {job}")
    totals = _totals(chunks, k)
    if totals.n == 0:
        if partial:
            raise KeyboardInterrupt         # interrupted before the first chunk finished
        raise _journal.JournalError("the results file holds no finished chunk yet")
    return totals, _partial(totals, settings, key) or partial


def _reached(totals, target, key):
    """True when every line's standard error of ``key`` is at most ``target`` (after two
    trials at least: one gives no error)."""
    if totals.n < 2:
        return False
    return all(totals.mean_se(i, key)[1] <= target for i in range(len(totals.sums))
               if key in totals.sums[i] and totals.playing[i])


def _partial(totals, settings, key):
    """Fewer trials than asked for, and not because the target error was reached."""
    target = settings.get("target_se")
    return totals.n < settings["trials"] and not (
        target is not None and _reached(totals, target, key))


def _common(bot, seed, threads, truncate, rotate, variance_reduction, evaluator, trials,
            chunk_size):
    """The checked settings every decision rollout shares."""
    bot = strongest_bot() if bot is None else bot
    trials = check_int("trials", trials, 1)
    chunk_size = check_int("chunk_size", chunk_size, 1)
    check_rollout_options(truncate, variance_reduction, evaluator)
    return bot, trials, chunk_size, resolve_evaluator(evaluator)


# ------------------------------------------------------------------ move rollouts

@dataclass
class MoveRolloutRow:
    """One candidate of a move rollout, for the player who moves.

    ``move`` its notation, ``board`` the position after it (the mover's view), the five
    cubeless ``probabilities``, cubeless ``equity``, ``diff`` = equity minus the best
    candidate's, and with rules ``cubeful`` (money: per unit of the cube; match: the
    match-winning chance) and ``cubeful_diff``; each with its standard error (``*_se``);
    differences from the paired per-trial differences of the common dice (over the trials
    both played, when pruning dropped one); ``trials`` the trials it played.
    """
    move: str
    board: list
    probabilities: list
    probabilities_se: list
    equity: float
    equity_se: float
    diff: float
    diff_se: float
    cubeful: object = None
    cubeful_se: object = None
    cubeful_diff: object = None
    cubeful_diff_se: object = None
    trials: object = None       # the trials it played (fewer when pruning dropped it)


@dataclass
class MoveRollout(Results):
    """The candidates of a move rollout, best first (by cubeful value with rules, else by
    cubeless equity): a list of :class:`MoveRolloutRow` in ``rows``."""
    trials: int
    rows: list
    settings: dict = field(default_factory=dict)
    partial: bool = False

    def __getitem__(self, i):
        return self.rows[i]

    def __len__(self):
        return len(self.rows)

    @property
    def best(self):
        return self.rows[0]

    def summary(self):
        return asdict(self)

    @classmethod
    def load(cls, path):
        """The result held by a move rollout's results file (``out=``), complete or not."""
        settings, chunks = _read(path, JOB_MOVES)
        return _move_result(chunks, settings, False)

    def table(self):
        cubeful = self.rows[0].cubeful is not None
        match = bool(self.settings.get("match"))
        head = (f"{self.settings.get('position')} {self.settings.get('dice')}: "
                f"{self.trials:,} trials a move, bot {self.settings.get('bot')}"
                + ("  (partial: interrupted)" if self.partial else ""))
        lines = [head, f"{'#':>3}  {'move':<24} {'win':>6} {'w-g':>6} {'l-g':>6} "
                       f"{'equity':>8} {'se':>6} {'diff':>8} {'se':>6}"
                 + (f"  {'MWC' if match else 'cubeful':>8} {'se':>6} {'diff':>8} {'se':>6}"
                    if cubeful else "")]
        for i, r in enumerate(self.rows):
            p = r.probabilities
            row = (f"{i + 1:>3}. {r.move or 'Cannot move':<24} {p[0]:6.3f} {p[1]:6.3f} "
                   f"{p[3]:6.3f} {r.equity:+8.4f} {r.equity_se:6.4f} {r.diff:+8.4f} "
                   f"{r.diff_se:6.4f}")
            if cubeful:
                row += (f"  {r.cubeful:+8.4f} {r.cubeful_se:6.4f} {r.cubeful_diff:+8.4f} "
                        f"{r.cubeful_diff_se:6.4f}")
            if r.trials is not None and r.trials < self.trials:
                row += f"  (dropped after {r.trials:,} trials)"
            lines.append(row)
        return "\n".join(lines)

    def show(self, width=None):
        """The position and dice as a picture (:func:`fastbg.show`); None when the
        settings name no position."""
        return position_picture(self.settings, width)

    def _repr_html_(self):
        """The position's picture over the candidates, one row each (Jupyter draws it)."""
        cubeful = bool(self.rows) and self.rows[0].cubeful is not None
        match = bool(self.settings.get("match"))
        head = ["#", "move", "win", "w-g", "l-g", "equity", "se", "diff", "se"]
        if cubeful:
            head += ["MWC" if match else "cubeful", "se", "diff", "se"]
        head.append("trials")
        rows = []
        for i, r in enumerate(self.rows, 1):
            p = r.probabilities
            row = [i, r.move or "Cannot move", f"{p[0]:.3f}", f"{p[1]:.3f}", f"{p[3]:.3f}",
                   f"{r.equity:+.4f}", f"{r.equity_se:.4f}", f"{r.diff:+.4f}",
                   f"{r.diff_se:.4f}"]
            if cubeful:
                row += [f"{r.cubeful:+.4f}", f"{r.cubeful_se:.4f}", f"{r.cubeful_diff:+.4f}",
                        f"{r.cubeful_diff_se:.4f}"]
            rows.append(row + [f"{self.trials if r.trials is None else r.trials:,}"])
        caption = (f"{self.settings.get('position')} {self.settings.get('dice')}: "
                   f"{self.trials:,} trials a move, bot {self.settings.get('bot')}"
                   + (" (partial: interrupted)" if self.partial else ""))
        picture = self.show()
        return html_block(picture and picture.svg, html_table(
            head, rows, caption, "rl" + "r" * (len(head) - 2)))


def _candidates(board, dice, moves, bot, results, table):
    """The candidate results: all, the top ``moves`` by :func:`fastbg.hint`, or given.
    ``board`` and ``dice`` (a pair of ints) are checked, ``results`` their legal moves and
    ``table`` their :func:`fastbg.position.notation.notation_table`: nothing here checks
    the board or generates its moves again."""
    if moves is None:
        return list(results)
    if isinstance(moves, (int, np.integer)) and not isinstance(moves, bool):
        k = check_int("moves", moves, 1)
        ply = _bot_ply(bot)
        return [c.board for c in hint_checked(board, dice, ply, results)[:k]]
    if isinstance(moves, str) or not hasattr(moves, "__iter__"):
        raise TypeError("moves is None (all), a number k (the best k by fastbg.hint) or a "
                        "list of moves (boards or notation)")
    out = []
    for m in moves:
        b = (parse_move_checked(board, m, dice, table) if isinstance(m, str)
             else np.asarray(m, np.int8))
        if b.shape != (26,) or not table.is_legal(b, dice):
            raise ValueError(f"{m!r} is not a legal move of this position with "
                             f"{dice[0]}-{dice[1]}")
        out.append(b.copy())
    if not out:
        raise ValueError("moves is an empty list")
    return out


def _bot_ply(bot):
    """The ply a named n-ply bot plays at (0 for the others)."""
    from fastbg.sim.bots import nply_ply
    return (nply_ply(bot) or 0) if isinstance(bot, str) else 0


def _over_values(result, rules, score, value, owner):
    """The fixed values (mover's view) of a move that bears off the last checker."""
    kind = int(_play.win_kind(result))
    probs = [1.0, float(kind >= 2), float(kind == 3), 0.0, 0.0]
    fixed = {k: p for k, p in zip(OUTPUTS, probs)}
    fixed["equity"] = float(kind)
    if rules is not None:
        if rules.is_match:
            a0, a1 = rules.length - score[0], rules.length - score[1]
            fixed["cubeful"] = mwc_after(a0, a1, min(a0, kind * value))
        else:
            jacoby = rules.jacoby and owner is None
            fixed["cubeful"] = 1.0 if jacoby else float(kind)
    return fixed


def rollout_moves(position, dice=None, moves=None, trials=1296, bot=None, seed=0,
                  rules=None, truncate=None, rotate=True, variance_reduction=False,
                  evaluator=None, cube=("race", "race"), threads=None, progress=False,
                  out=None, resume=False, chunk_size=DEFAULT_CHUNK, target_se=None,
                  late=None, backend="local", prune=None, first_roll="any"):
    """Roll out the candidate moves of ``position`` with ``dice``: a :class:`MoveRollout`,
    best first.

    position : a board (player on roll), a Position ID or an XGID (its dice are used when
               ``dice`` is None, its cube and score with ``rules``).
    moves    : None (every legal move), k (the best k of :func:`fastbg.hint` at the bot's
               ply) or a list of moves (boards after the move, or notation "8/5 6/5").
    bot      : plays both sides of every trial (default
               :func:`fastbg.sim.bots.strongest_bot`: the gnubg bot when its networks are
               installed, else the fastbg bot).
    late     : (k, bot): from ply k of each trial on, ``bot`` plays (see fastbg.rollout).
    target_se: stop once every candidate's standard error (of its cubeful value with rules,
               else of its equity) is at most this, checked between chunks (so the trials
               stay a multiple of ``chunk_size``, and of 36 with the default).
    prune    : None, or k > 0: after each chunk, drop the candidates whose value (cubeful
               with rules, else the equity) is more than k paired standard errors below
               the best's (GNU Backgammon's "stop when the best move is clearly better");
               the others play on with the same dice. A dropped candidate keeps the trials
               it played (its row's ``trials``) and is ranked after those that finished.
               Checked between chunks (a smaller ``chunk_size`` checks more often); the
               chunks then run here (``backend="local"``).
    The other arguments are those of :func:`fastbg.rollout` (``backend``: "local", "ray"
    or a :class:`fastbg.RayCluster` to play the chunks on). Trial i of every candidate uses the dice of game i of ``seed``.

    >>> import fastbg
    >>> r = fastbg.rollout_moves(fastbg.START, (3, 1), moves=["8/5 6/5", "24/21 6/5"],
    ...                          trials=72, bot="pubeval")
    >>> sorted(row.move for row in r), r[0].diff, r[1].diff <= 0
    (['24/21 6/5', '8/5 6/5'], 0.0, True)
    """
    board, info = read_position(position, "rollout_moves")
    if dice is None:
        if info is None or info.dice is None:
            raise ValueError("no dice: pass dice=(d1, d2), or an XGID that has them")
        dice = info.dice
    dice = tuple(int(d) for d in validate_dice(dice))
    backend = resolve_backend(backend)
    if prune is not None:
        if isinstance(prune, bool) or not isinstance(prune, (int, float)) or not prune > 0:
            raise ValueError(f"prune is a number of standard errors > 0, got {prune!r}")
        if backend is not LOCAL:
            raise ValueError("prune plays each chunk after the one before it: it runs with "
                             "backend='local'")
    bot, trials, chunk_size, evaluate = _common(bot, seed, threads, truncate, rotate,
                                                variance_reduction, evaluator, trials,
                                                chunk_size)
    value, owner, score, crawford = rollout_cube_state(info, rules, dice_allowed=True)
    # The board (read_position) and dice are checked once, here, and the roll's legal
    # moves generated once: the candidates, their notation and the hint take them as they are.
    results = legal_moves_checked(board, dice[0], dice[1])
    table = notation_table(board, dice, results)
    cands = _candidates(board, dice, moves, bot, results, table)
    # After the move the opponent is on roll: player 0 of each candidate's trials; the
    # mover is player 1 (the cube owner and the score seen from the opponent).
    opp_owner = None if owner is None else 1 - owner
    opp_score = None if score is None else (score[1], score[0])
    lines = []
    for c in cands:
        if _play.mover_checkers(c) == 0:
            lines.append(_Line(None, None, False,
                               fixed=_over_values(c, rules, score, value, owner)))
            continue
        flipped = np.ascontiguousarray(-c[::-1])        # fastbg.flip of a checked board
        common = dict(bots=(bot, bot), seed=seed, threads=threads, start=(flipped, 0),
                      opening=first_roll_opening(first_roll), truncate=truncate,
                      rotate=rotate, late=late_pair(late))
        cubeless = job_setup(**common)
        if variance_reduction and (cubeless.lockstep or cubeless.has_plugins):
            raise ValueError("variance reduction supports the built-in bots")
        cubeful = None
        if rules is not None:
            cubeful = job_setup(**common, rules=rules, cube=cube, score=opp_score,
                                crawford_game=crawford, cube_value=value,
                                cube_owner=opp_owner)
        lines.append(_Line(cubeless, cubeful, True, value=value))
    names = [table.notation(c, dice) for c in cands]
    settings = {
        "position": position if isinstance(position, str) else position_id_checked(board),
        "dice": f"{dice[0]}-{dice[1]}", "moves": names,
        "candidates": [position_id_checked(c) for c in cands], "trials": trials,
        "bot": bot_name(bot),
        "seed": int(seed), "rules": rules_dict(rules), "cube": strategy_names(cube),
        "truncate": truncate, "rotate": bool(rotate),
        "variance_reduction": bool(variance_reduction),
        "evaluator": evaluator_name(evaluator),
        "chunk_size": chunk_size, "match": bool(rules is not None and rules.is_match),
        "initial_cube": value, **target_setting(target_se), **late_setting(late),
        **({} if prune is None else {"prune": float(prune)}),
        **first_roll_setting(first_roll),
    }
    opts = {"rules": rules, "score": opp_score, "evaluate": evaluate,
            "vr": bool(variance_reduction)}
    totals, partial = _run(JOB_MOVES, lines, settings, trials, chunk_size, opts, out, resume,
                           progress, f"{len(lines)} moves",
                           key="equity" if rules is None else "cubeful", backend=backend)
    return _rank(totals, _journal.canonical(settings), partial, cands)


def _move_result(chunks, settings, partial):
    from fastbg.position.ids import board_from_position_id
    cands = [board_from_position_id(p) for p in settings["candidates"]]
    totals = _totals(chunks, len(cands))
    if totals.n == 0:
        raise _journal.JournalError("the results file holds no finished chunk yet")
    key = "equity" if settings["rules"] is None else "cubeful"
    return _rank(totals, settings, partial or _partial(totals, settings, key), cands)


def _rank(totals, settings, partial, cands):
    k = len(cands)
    key = "cubeful" if "cubeful" in totals.sums[0] else "equity"
    means = [totals.mean_se(i, key)[0] for i in range(k)]
    # the candidates that played every chunk first, then those pruning dropped; stable:
    # move order on ties
    order = sorted(range(k), key=lambda i: (not totals.playing[i], -means[i]))
    best = order[0]
    rows = []
    for i in order:
        ps = [totals.mean_se(i, name) for name in OUTPUTS]
        eq, eq_se = totals.mean_se(i, "equity")
        d, d_se = totals.diff_se(i, best, "equity")
        row = MoveRolloutRow(move=settings["moves"][i], board=cands[i].tolist(),
                             probabilities=[m for m, _ in ps],
                             probabilities_se=[s for _, s in ps], equity=eq, equity_se=eq_se,
                             diff=d, diff_se=d_se, trials=totals.counts[i])
        if key == "cubeful":
            row.cubeful, row.cubeful_se = totals.mean_se(i, "cubeful")
            row.cubeful_diff, row.cubeful_diff_se = totals.diff_se(i, best, "cubeful")
        rows.append(row)
    return MoveRollout(trials=totals.n, rows=rows, settings=settings, partial=partial)


# ------------------------------------------------------------------ cube rollouts

@dataclass
class CubeRollout(Results):
    """A cube decision settled by rollouts, for the player on roll (the doubler).

    ``no_double`` and ``double_take``: rolled out on common dice (money: cubeful equity
    per unit of the current cube; match: match-winning chance), ``double_pass`` by
    definition; each with its standard error; ``take_minus_no_double`` (double/take minus
    no double) and its paired standard error; ``double``, ``take`` and ``action`` (GNU
    Backgammon's words, as :class:`fastbg.CubeDecision`) from the estimates;
    ``probabilities`` the cubeless probabilities of the no-double trials.
    """
    trials: int
    no_double: float
    no_double_se: float
    double_take: float
    double_take_se: float
    double_pass: float
    take_minus_no_double: float
    take_minus_no_double_se: float
    double: bool
    take: bool
    action: str
    probabilities: list
    probabilities_se: list
    settings: dict = field(default_factory=dict)
    partial: bool = False

    @property
    def decision(self):
        """The proper cube action (as ``action``)."""
        return self.action

    def summary(self):
        return asdict(self)

    @classmethod
    def load(cls, path):
        """The result held by a cube rollout's results file (``out=``), complete or not."""
        settings, chunks = _read(path, JOB_CUBE)
        totals = _totals(chunks, 2)
        if totals.n == 0:
            raise _journal.JournalError("the results file holds no finished chunk yet")
        return _cube_result(totals, settings, _partial(totals, settings, "cubeful"))

    def table(self):
        match = bool(self.settings.get("match"))

        def fmt(v, se=None):
            text = f"{100 * v:7.2f}%" if match else f"{v:+8.4f}"
            if se is not None:
                text += f" +- {1.96 * (100 * se if match else se):.4f}"
            return text
        p = self.probabilities
        return "\n".join([
            f"{self.settings.get('position')}: {self.trials:,} trials, bot "
            f"{self.settings.get('bot')}, cube strategies {'/'.join(self.settings['cube'])}"
            + ("  (partial: interrupted)" if self.partial else ""),
            "cubeless   " + "  ".join(f"{h} {v:.4f}" for h, v in
                                      zip(("win", "w-g", "w-bg", "l-g", "l-bg"), p)),
            f"No double     {fmt(self.no_double, self.no_double_se)}",
            f"Double, take  {fmt(self.double_take, self.double_take_se)}",
            f"Double, pass  {fmt(self.double_pass)}",
            f"take - no double {self.take_minus_no_double:+.4f} "
            f"+- {1.96 * self.take_minus_no_double_se:.4f} (95%, paired)",
            f"Proper cube action: {self.action[0].upper()}{self.action[1:]}",
        ])

    def show(self, width=None):
        """The position as a picture (:func:`fastbg.show`); None when the settings name
        no position."""
        return position_picture(self.settings, width)

    def _repr_html_(self):
        """The position's picture, the three actions' values and the proper action."""
        match = bool(self.settings.get("match"))

        def fmt(v):
            return f"{100 * v:.2f}%" if match else f"{v:+.4f}"

        def se(v):
            return f"{100 * v:.2f}%" if match else f"{v:.4f}"
        rows = [["No double", fmt(self.no_double), se(self.no_double_se)],
                ["Double, take", fmt(self.double_take), se(self.double_take_se)],
                ["Double, pass", fmt(self.double_pass), ""],
                ["take - no double (paired)", f"{self.take_minus_no_double:+.4f}",
                 f"{self.take_minus_no_double_se:.4f}"]]
        caption = (f"{self.settings.get('position')}: {self.trials:,} trials, bot "
                   f"{self.settings.get('bot')}, cube strategies "
                   f"{'/'.join(self.settings.get('cube') or ())}"
                   + (" (partial: interrupted)" if self.partial else ""))
        cubeless = html_table(["cubeless", "win", "w-g", "w-bg", "l-g", "l-bg"],
                              [["estimate", *(f"{v:.4f}" for v in self.probabilities)]],
                              align="lrrrrr")
        picture = self.show()
        return html_block(
            picture and picture.svg,
            html_table(["action", "MWC" if match else "equity", "std err"], rows, caption,
                       "lrr"),
            html_text(f"Proper cube action: {self.action[0].upper()}{self.action[1:]}"),
            cubeless)


def rollout_cube(position, rules=None, trials=1296, bot=None, seed=0, truncate=None,
                 rotate=True, variance_reduction=False, evaluator=None, cube=None,
                 threads=None, progress=False, out=None, resume=False,
                 chunk_size=DEFAULT_CHUNK, target_se=None, late=None, backend="local",
                 first_roll="any"):
    """Settle the cube decision of the player on roll of ``position`` by rollouts: a
    :class:`CubeRollout`.

    position : a board, Position ID or XGID (its cube and score are used), player on roll
               still to roll. rules: MoneyRules() by default, or MatchRules(n).
    cube     : the two cube strategies played after the decision (default: the bot's
               own: gnubg's networks for a gnubg bot, else "race").
    target_se: stop once both standard errors are at most this (between chunks).
    backend  : "local", "ray" or a :class:`fastbg.RayCluster`, as in :func:`fastbg.rollout`.
    first_roll: "any" or "opening" (no doubles on the first roll), as in :func:`fastbg.rollout`.
    Trial i of no double and of double/take uses the dice of game i of ``seed``.

    The player on roll bears off his two checkers (on his 3 and 2 points) with 25 rolls
    of 36; otherwise the opponent bears off his last one: no double 2p - 1 = 14/36,
    double/take twice that, exactly over 72 stratified trials:

    >>> import fastbg
    >>> r = fastbg.rollout_cube("AQAAKAAAAAAAAA", trials=72, bot="pubeval",
    ...                         cube=("never", "never"))
    >>> round(r.no_double * 36, 9), round(r.double_take * 36, 9), r.action
    (14.0, 28.0, 'double, take')
    """
    board, info = read_position(position, "rollout_cube")
    backend = resolve_backend(backend)
    rules = MoneyRules() if rules is None else rules
    bot, trials, chunk_size, evaluate = _common(bot, seed, threads, truncate, rotate,
                                                variance_reduction, evaluator, trials,
                                                chunk_size)
    value, owner, score, crawford = rollout_cube_state(info, rules)
    if owner == 1:
        raise ValueError("the opponent owns the cube: the player on roll cannot double")
    if rules.max_cube is not None and 2 * value > rules.max_cube:
        raise ValueError(f"the cube is at {value}: doubling passes max_cube={rules.max_cube}")
    if cube is None:
        cube = _default_cube(bot)
    common = dict(bots=(bot, bot), seed=seed, threads=threads, start=(board, 0),
                  opening=first_roll_opening(first_roll), truncate=truncate, rotate=rotate,
                  rules=rules,
                  cube=cube, score=score, crawford_game=crawford, late=late_pair(late))
    if crawford:
        raise ValueError("no cube in the Crawford game")
    nd = job_setup(**common, cube_value=value, cube_owner=owner, first_cube=False)
    dt = job_setup(**common, cube_value=2 * value, cube_owner=1)
    cubeless = job_setup(bots=(bot, bot), seed=seed, threads=threads, start=(board, 0),
                         opening=first_roll_opening(first_roll), truncate=truncate,
                         rotate=rotate,
                         late=late_pair(late))
    if variance_reduction and (cubeless.lockstep or cubeless.has_plugins):
        raise ValueError("variance reduction supports the built-in bots")
    lines = [_Line(cubeless, nd, False, value=value), _Line(None, dt, False, value=value)]
    names = strategy_names(cube)
    settings = {
        "position": position if isinstance(position, str) else position_id_checked(board),
        "trials": trials, "bot": bot_name(bot),
        "seed": int(seed), "rules": rules_dict(rules), "cube": names,
        "truncate": truncate, "rotate": bool(rotate),
        "variance_reduction": bool(variance_reduction),
        "evaluator": evaluator_name(evaluator),
        "chunk_size": chunk_size, "match": bool(rules.is_match), "initial_cube": value,
        "owner": owner, "score": None if score is None else list(score),
        **target_setting(target_se), **late_setting(late),
        **first_roll_setting(first_roll),
    }
    opts = {"rules": rules, "score": score, "evaluate": evaluate, "vr": bool(variance_reduction)}
    totals, partial = _run(JOB_CUBE, lines, settings, trials, chunk_size, opts, out, resume,
                           progress, "no double, double/take", key="cubeful", backend=backend)
    return _cube_result(totals, _journal.canonical(settings), partial)


def _default_cube(bot):
    """The cube strategies that go with ``bot``: gnubg's networks (Janowski on their
    probabilities, at the bot's ply: "gnubg-1ply" doubles on 1-ply) for the gnubg bots,
    else "race"."""
    from fastbg.sim.bots import gnubg_net_of, nply_ply
    name = bot.strip().lower() if isinstance(bot, str) else None
    ply = nply_ply(name)
    if name != "gnubg" and ply is None:
        return ("race", "race")
    net = gnubg_net_of("gnubg")
    strategy = net.cube(ply=ply or 0)
    return (strategy, strategy)


def _cube_result(totals, settings, partial):
    from fastbg.cube.rules import rules_from_dict
    rules = rules_from_dict(settings["rules"])
    value = settings["initial_cube"]
    nd, nd_se = totals.mean_se(0, "cubeful")
    dt, dt_se = totals.mean_se(1, "cubeful")
    diff, diff_se = totals.diff_se(1, 0, "cubeful")
    if rules.is_match:
        score = settings["score"]
        dp = mwc_after(rules.length - score[0], rules.length - score[1], value)
        beaver = False
    else:
        dp = 1.0
        fits = rules.max_cube is None or 4 * value <= rules.max_cube
        beaver = bool(rules.beavers and fits and dt < 0.0)
    take = dt <= dp
    ps = [totals.mean_se(0, name) for name in OUTPUTS]
    gammon = ps[1][0] > 0.0
    double, action = proper_cube_action(nd, 2.0 * dt if beaver else dt, dp, take, beaver,
                                        settings["owner"] == 0, gammon)
    return CubeRollout(trials=totals.n, no_double=nd, no_double_se=nd_se, double_take=dt,
                       double_take_se=dt_se, double_pass=dp, take_minus_no_double=diff,
                       take_minus_no_double_se=diff_se, double=double, take=take,
                       action=action, probabilities=[m for m, _ in ps],
                       probabilities_se=[s for _, s in ps], settings=settings,
                       partial=partial)
