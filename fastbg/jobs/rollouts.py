"""Rollouts: a position's value estimated by playing it out many times.

A trial is one game from ``position`` with the player on roll (player 0) to roll first,
both sides played by the same bot. Trial k uses the dice of game k of the seed, so a
rollout is reproducible exactly, for any thread count and when resumed (see ``out``).

* Quasi-random dice (``rotate=True``): the first two rolls are stratified: every aligned
  block of 36 trials has each first roll once and every aligned block of 1,296 trials
  every pair of first two rolls once; later rolls stay counter-based random.
* Truncation after ``truncate`` plies: the position reached is scored by ``evaluator``.
* Variance reduction (``variance_reduction=True``, docs/rollouts.md section 5): before
  each move the evaluator's mean over the 36 rolls of the positions the bot would reach
  is compared with the position it reaches with the roll that came; the difference (the
  luck of that roll) is added to the trial's result, which removes most of the dice luck
  and keeps the estimate unbiased up to the evaluator's consistency.
* Cubeful equity with ``rules``: the same trials (same dice) are played again with the
  cube under the rules and cube strategies; money equity per unit of the initial cube, or
  the match-winning chance at the score.
"""
import math
from contextlib import closing
from dataclasses import asdict, dataclass, field

import numpy as np

from fastbg import journal as _journal
from fastbg.constants import BOARD_SIZE, ROLLS
from fastbg.cube.formulas import equity_of, swap_difference, swap_sides
from fastbg.cube.met import mwc_after
from fastbg.cube.rules import rules_dict
from fastbg.cube.strategies import strategy_names
from fastbg.distributed import LOCAL, resolve_backend
from fastbg.html_tables import html_block, html_table
from fastbg.parallel import threads as _threads
from fastbg.plugin_pointers import call_holding_interrupts
from fastbg.position.diagram import show
from fastbg.position.ids import position_id_checked, read_position
from fastbg.position.moves import legal_moves_rows as _legal_moves_rows
from fastbg.progress import progress_bar
from fastbg.sim import game_kernels as _play
from fastbg.sim.bots import strongest_bot
from fastbg.sim.games import open_journal, play_chunk
from fastbg.sim.results import Results
from fastbg.sim.setup import job_setup
from fastbg.validation import check_choice, check_int

JOB = "rollout"             # the job name in the results file's header
OUTPUTS = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")
DEFAULT_CHUNK = 1296
_WEIGHTS = np.array([1.0 if a == b else 2.0 for a, b in ROLLS]) / 36.0   # the 21 rolls
# the 21 rolls' chances on an opening-style first roll (no doubles)
_NO_DOUBLE_WEIGHTS = np.array([0.0 if a == b else 2.0 for a, b in ROLLS]) / 30.0


@dataclass
class RolloutResult(Results):
    """The estimates of a rollout, for the player on roll.

    probabilities : the five cubeless probabilities (win, win gammon, win backgammon,
                    lose gammon, lose backgammon; gammons include backgammons)
    equity        : cubeless money equity (points per game, gammons 2, backgammons 3)
    cubeful       : with rules: money equity per unit of the initial cube, or the
                    match-winning chance at the score; else None
    *_se          : standard errors of the mean; ``ci95()`` gives 95% intervals
    """
    trials: int
    probabilities: list
    probabilities_se: list
    equity: float
    equity_se: float
    cubeful: object = None
    cubeful_se: object = None
    settings: dict = field(default_factory=dict)
    partial: bool = False

    def ci95(self):
        """95% intervals (mean +- 1.96 standard errors) of every estimate."""
        def iv(m, se):
            return [m - 1.96 * se, m + 1.96 * se]
        out = {name: iv(m, se) for name, m, se in
               zip(OUTPUTS, self.probabilities, self.probabilities_se)}
        out["equity"] = iv(self.equity, self.equity_se)
        if self.cubeful is not None:
            out["cubeful"] = iv(self.cubeful, self.cubeful_se)
        return out

    def summary(self):
        """Every estimate with its standard error and 95% interval, and the settings."""
        d = asdict(self)
        d["ci95"] = self.ci95()
        return d

    @classmethod
    def load(cls, path):
        """The result held by a rollout's results file (``out=``), complete or not."""
        settings, records, _ = _journal.read(path, JOB, _chunk_checker(None))
        if settings is None:
            raise _journal.JournalError(f"{path} holds no rollout header")
        return _result({r["lo"]: r for r in records}, settings, False)

    def table(self):
        p, se = self.probabilities, self.probabilities_se
        rows = [
            f"trials     {self.trials:,}" + ("  (partial: interrupted)" if self.partial else ""),
            "           " + "  ".join(f"{h:>7}" for h in ("win", "w-g", "w-bg", "l-g", "l-bg")),
            "estimate   " + "  ".join(f"{v:7.4f}" for v in p),
            "std err    " + "  ".join(f"{v:7.4f}" for v in se),
            f"cubeless equity  {self.equity:+.4f} +- {1.96 * self.equity_se:.4f} (95%)",
        ]
        if self.cubeful is not None:
            label = "match-winning chance" if self.settings.get("match") else "cubeful equity"
            rows.append(f"{label:16} {self.cubeful:+.4f} +- {1.96 * self.cubeful_se:.4f} (95%)")
        return "\n".join(rows)

    def show(self, width=None):
        """The position rolled out as a picture (:func:`fastbg.show`); None when the
        settings name no position."""
        return position_picture(self.settings, width)

    def _repr_html_(self):
        """The position's picture over the estimates, one row each (Jupyter draws it)."""
        ci = self.ci95()
        names = ("win", "win gammon", "win backgammon", "lose gammon", "lose backgammon")
        lines = [(name, m, se, ci[key], ".4f") for name, key, m, se in
                 zip(names, OUTPUTS, self.probabilities, self.probabilities_se)]
        lines.append(("cubeless equity", self.equity, self.equity_se, ci["equity"], "+.4f"))
        if self.cubeful is not None:
            label = "match-winning chance" if self.settings.get("match") else "cubeful equity"
            lines.append((label, self.cubeful, self.cubeful_se, ci["cubeful"], "+.4f"))
        rows = [[name, format(m, spec), f"{se:.4f}", f"{lo:{spec}} .. {hi:{spec}}"]
                for name, m, se, (lo, hi), spec in lines]
        caption = (f"rollout of {self.settings.get('position', 'a position')}: "
                   f"{self.trials:,} trials, bot {self.settings.get('bot')}"
                   + (" (partial: interrupted)" if self.partial else ""))
        picture = self.show()
        return html_block(picture and picture.svg, html_table(
            ["estimate", "value", "std err", "95% interval"], rows, caption, "lrrr"))


def position_picture(settings, width=None):
    """The picture (:func:`fastbg.show`) of the position a rollout's ``settings`` name,
    with the dice of a move rollout; None when they name none (a result built by hand)."""
    if not settings.get("position"):
        return None
    dice = settings.get("dice")             # "3-1"
    return show(settings["position"], dice and [int(d) for d in dice.split("-")],
                width=width)


def rollout_cube_state(info, rules, dice_allowed=False):
    """(initial cube value, owner 0/1 or None, score, crawford game) for the cubeful run
    from an XGID's ``info`` (None: a centred cube at 0-0). ``dice_allowed``: the XGID may
    hold the dice (a move rollout), else the player on roll is still to roll."""
    if info is None:
        return 1, None, ((0, 0) if rules is not None and rules.is_match else None), False
    if info.double_offered or info.beavered or info.raccooned or (
            info.dice is not None and not dice_allowed):
        raise ValueError("rollout takes a position with the player on roll still to roll: "
                         "this XGID has dice rolled or a double pending")
    owner = {"on_roll": 0, "opponent": 1, None: None}[info.cube_owner_relative]
    score = None
    crawford = False
    if rules is not None and not rules.is_match and info.match_length:
        raise ValueError(f"the XGID is a {info.match_length}-point match but rules are "
                         "MoneyRules: pass MatchRules")
    if rules is not None and rules.is_match:
        if info.match_length != rules.length:
            raise ValueError(f"the XGID is a {info.match_length or 'money'} game but rules "
                             f"play a {rules.length}-point match")
        on_roll_bottom = info.turn == "bottom"
        me, opp = ((info.score_bottom, info.score_top) if on_roll_bottom
                   else (info.score_top, info.score_bottom))
        score = (me, opp)
        crawford = bool(info.crawford)
    return info.cube_value, owner, score, crawford


def rollout(position, trials=1296, bot=None, seed=0, rules=None, truncate=None,
            rotate=True, variance_reduction=False, evaluator=None, cube=("race", "race"),
            threads=None, progress=False, out=None, resume=False, chunk_size=DEFAULT_CHUNK,
            target_se=None, late=None, backend="local", first_roll="any"):
    """Roll ``position`` out ``trials`` times and return a :class:`RolloutResult`.

    position  : a board (player on roll, not yet rolled), a gnubg Position ID, or an XGID
                (whose cube and score are used for the cubeful part).
    bot       : the bot playing both sides (name or plug-in, see :func:`fastbg.play`);
                default the strongest installed: "gnubg" with its networks (the gnubg
                extra), else "fastbg", fastbg's own networks
                (:func:`fastbg.sim.bots.strongest_bot`).
    rules     : None (cubeless only), MoneyRules or MatchRules: adds the cubeful estimate,
                played with the two ``cube`` strategies.
    truncate  : stop trials after this many plies and score them with ``evaluator``.
    evaluator : probabilities for the player on roll, ``f(boards (m, 26)) -> (m, 5)``, or
                ``"race"`` / ``"gnubg"`` (the numba port of GNU Backgammon's nets) /
                ``"gnubg-nn"``; needed for truncation and variance reduction.
    late      : None, or (k, bot): from ply k of each trial on, ``bot`` plays both sides
                (GNU Backgammon's late evaluation: ``bot="gnubg-1ply", late=(2, "gnubg")``
                plays the first two plies at 1-ply, the rest at 0-ply); both bots are
                gnubg bots or EvaluatorBots.
    target_se : stop once the standard error (of the cubeful estimate with rules, else of
                the cubeless equity) is at most this, checked between chunks: the trials
                stay a multiple of ``chunk_size`` and the result a function of the seed.
    out       : a file to append results to as chunks finish (JSON lines); with
                ``resume=True`` chunks already in it are not played again, and the result is
                bit-identical to an uninterrupted run.
    backend   : where the chunks are played: "local" (this process, the default), "ray"
                (a Ray cluster at Ray's default address) or a :class:`fastbg.RayCluster`
                (another address, task CPUs; docs/cluster.md); the result is bit-identical.
    first_roll: "any" (the default) or "opening": the first roll of every trial has no
                doubles, as an opening roll (GNU Backgammon's "rollout as initial
                position"); with rotation each block of 30 trials has each of the 30
                rolls once (docs/rollouts.md section 4).

    >>> import fastbg
    >>> r = fastbg.rollout("4HPwATDgc/ABMA", trials=1296, seed=1, bot="pubeval")
    >>> abs(r.equity) < 0.25 and r.trials == 1296
    True
    """
    board, info = read_position(position, "rollout")
    if bot is None:
        bot = strongest_bot()
    trials = check_int("trials", trials, 1)
    chunk_size = check_int("chunk_size", chunk_size, 1)
    backend = resolve_backend(backend)
    check_rollout_options(truncate, variance_reduction, evaluator)
    evaluate = resolve_evaluator(evaluator)
    value, owner, score, crawford = rollout_cube_state(info, rules)
    common = dict(bots=(bot, bot), seed=seed, threads=threads, start=(board, 0),
                  opening=first_roll_opening(first_roll), truncate=truncate, rotate=rotate,
                  late=late_pair(late))
    cubeless = job_setup(**common)
    cubeful = None
    if rules is not None:
        cubeful = job_setup(**common, rules=rules, cube=cube, score=score,
                            crawford_game=crawford, cube_value=value, cube_owner=owner)
    if variance_reduction and (cubeless.lockstep or cubeless.has_plugins):
        raise ValueError("variance reduction supports the built-in bots")
    settings = {
        "position": _describe(position, board), "trials": trials, "bot": cubeless.names[0],
        "seed": int(cubeless.seed), "rules": rules_dict(rules), "cube": strategy_names(cube),
        "truncate": truncate, "rotate": bool(rotate),
        "variance_reduction": bool(variance_reduction), "evaluator": evaluator_name(evaluator),
        "chunk_size": chunk_size, "match": bool(rules is not None and rules.is_match),
        "initial_cube": value,
    }
    settings.update(late_setting(late), **target_setting(target_se),
                    **first_roll_setting(first_roll))
    journal = open_journal(out, JOB, settings, resume, _chunk_checker(settings))
    chunks = {} if journal is None else {rec["lo"]: rec for rec in journal.records}
    bar = progress_bar(trials, progress, "trial", f"rollout with {cubeless.names[0]}",
                       initial=sum(rec["hi"] - rec["lo"] for rec in chunks.values()))
    stop = None if target_se is None else (lambda done: _target_reached(done, settings))
    partial = run_grid(trials, chunk_size, chunks, journal, bar, lambda lo, hi: {
        "sums": _chunk(cubeless, cubeful, lo, hi, evaluate, variance_reduction, rules, score,
                       value)}, stop, backend, "fastbg rollout")
    return _result(chunks, _journal.canonical(settings), partial)


def run_grid(trials, chunk_size, chunks, journal, bar, compute, stop=None, backend=LOCAL,
             label="fastbg rollout"):
    """The chunk loop of a rollout job: trials on a fixed grid of ``chunk_size`` (so a
    resumed run plays the same chunks), ``compute(lo, hi)`` -> the chunk's record fields
    (computed by ``backend``, :mod:`fastbg.distributed`), each record appended to
    ``journal`` (when given) and put in ``chunks`` (by ``lo``) as one step, in grid order.
    Chunks already in ``chunks`` are skipped. ``stop(chunks)``, asked before each new chunk
    is merged, ends the run early (a stopping rule: it sees whole chunks only, so where it
    stops is a function of the seed and the settings, on any backend). Returns True when
    Ctrl-C stopped the loop: the interrupted chunk is never recorded; the journal is
    closed either way.
    """
    def todo():                 # asked for ahead of the merge on a cluster
        for lo in range(0, trials, chunk_size):
            if lo in chunks:
                continue
            if stop is not None and stop(chunks):
                return
            yield lo, min(trials, lo + chunk_size)

    try:
        with closing(backend.map(compute, todo(), label)) as results:
            for (lo, hi), fields, _ in results:
                if stop is not None and stop(chunks):     # a cluster computed ahead
                    break
                rec = {"lo": lo, "hi": hi, **fields}
                with _journal.interrupts_held():     # on disk and in memory, or neither
                    if journal is not None:
                        journal.append(rec)
                    chunks[lo] = rec
                bar.update(hi - lo)
    except KeyboardInterrupt:
        return True
    finally:
        bar.close()
        if journal is not None:
            journal.close()
    return False


def _target_reached(chunks, settings):
    """True when the chunks' standard error of the estimate is at most the target."""
    target = settings.get("target_se")
    if target is None or not chunks:
        return False
    key = "cubeful" if settings["rules"] is not None else "equity"
    recs = list(chunks.values())
    n = sum(r["hi"] - r["lo"] for r in recs)
    if n < 2:
        return False
    return mean_se(math.fsum(r["sums"][key][0] for r in recs),
                   math.fsum(r["sums"][key][1] for r in recs), n)[1] <= target


def mean_se(s, s2, n):
    """(mean, standard error of the mean) from n values' sum and sum of squares."""
    mean = s / n
    var = max(0.0, (s2 - n * mean * mean) / (n - 1)) if n > 1 else 0.0
    return mean, math.sqrt(var / n)


def _chunk_checker(settings):
    """The check of a results file's chunk lines: on this rollout's grid of chunks."""
    def check(rec):
        lo, hi, sums = rec["lo"], rec["hi"], rec["sums"]
        if settings is not None:
            size, trials = settings["chunk_size"], settings["trials"]
            if lo % size or hi != min(trials, lo + size):
                raise ValueError(f"trials {lo}..{hi} are not a chunk of this rollout")
        if not isinstance(sums, dict) or not all(
                isinstance(v, list) and len(v) == 2 for v in sums.values()):
            raise ValueError("a chunk line holds a sum and a sum of squares per estimate")
    return check


def _describe(position, board):
    return position if isinstance(position, str) else position_id_checked(board)


def bot_name(bot):
    """A bot's name for a results file: the name given, or the bot object's ``name``."""
    return bot if isinstance(bot, str) else getattr(bot, "name", "bot")


def evaluator_name(evaluator):
    """An evaluator's name for a results file (None for none)."""
    if evaluator is None or isinstance(evaluator, str):
        return evaluator
    return getattr(evaluator, "__name__", type(evaluator).__name__)


def late_pair(late):
    """``late=(k, bot)`` of a rollout as job_setup takes it: (k, (bot, bot))."""
    if late is None:
        return None
    if not isinstance(late, (tuple, list)) or len(late) != 2:
        raise ValueError(f"late is (k, bot): from ply k on, bot plays; got {late!r}")
    return (late[0], (late[1], late[1]))


def target_setting(target_se):
    """The results file's record of a stopping rule (nothing without one)."""
    if target_se is None:
        return {}
    if not isinstance(target_se, (int, float)) or not target_se > 0:
        raise ValueError(f"target_se is a standard error > 0, got {target_se!r}")
    return {"target_se": float(target_se)}


#: first_roll= of the rollouts -> the game setup's opening mode. "any": ply 0 takes the
#: trial's own roll (there is no opening throw); "opening": a roll without doubles.
FIRST_ROLLS = {"any": "reroll", "opening": "no-doubles"}


def first_roll_opening(first_roll):
    """The :func:`fastbg.sim.setup.job_setup` opening mode of a rollout's ``first_roll``."""
    check_choice("first_roll", first_roll, FIRST_ROLLS)
    return FIRST_ROLLS[first_roll]


def first_roll_setting(first_roll):
    """The results file's record of ``first_roll`` (nothing for the default)."""
    return {} if first_roll == "any" else {"first_roll": first_roll}


def late_setting(late):
    """The results file's record of ``late`` (nothing without one)."""
    if late is None:
        return {}
    return {"late": [late[0], bot_name(late[1])]}


def check_rollout_options(truncate, variance_reduction, evaluator):
    """ValueError when truncation or variance reduction has no evaluator."""
    if (truncate is not None or variance_reduction) and evaluator is None:
        raise ValueError("truncation and variance reduction need an evaluator "
                         "(evaluator='race', 'gnubg' or a function boards -> probabilities)")


def resolve_evaluator(evaluator):
    """The evaluator function of a name ('race', 'gnubg', 'fastbg', 'gnubg-nn') or a function."""
    if evaluator is None:
        return None
    if isinstance(evaluator, str):
        key = evaluator.strip().lower()
        if key == "race":
            from fastbg.evaluators.race import race_evaluator
            return race_evaluator()
        if key == "gnubg":
            from fastbg.evaluators.nets import gnubg_net
            return gnubg_net()               # GNU Backgammon's nets in numba, batched
        if key == "fastbg":
            from fastbg.evaluators.own_nets import fastbg_net
            return fastbg_net()              # fastbg's own nets, the same kernels
        if key == "gnubg-nn":
            from fastbg.evaluators.gnubg_nn import probabilities
            return probabilities             # gnubg-nn itself, one call per position
        raise ValueError(f"unknown evaluator {evaluator!r}: 'race', 'gnubg', 'fastbg', "
                         "'gnubg-nn' or a function")
    if not callable(evaluator):
        raise TypeError("evaluator must be a function boards (m, 26) -> probabilities (m, 5)")
    return evaluator


def _probabilities(evaluate, boards):
    """The evaluator's (m, 5) probabilities, checked."""
    if boards.shape[0] == 0:
        return np.zeros((0, 5))
    p = np.asarray(evaluate(boards), dtype=np.float64)
    if p.shape != (boards.shape[0], 5):
        raise ValueError(f"the evaluator returned shape {p.shape} for {boards.shape[0]} "
                         "positions; it must return (m, 5) probabilities")
    if not np.all(np.isfinite(p)):
        raise ValueError("the evaluator returned a non-finite probability")
    return p


def _outcome_probs(winner, kind):
    """Indicator probabilities (player 0's view) of finished games."""
    p = np.zeros((winner.shape[0], 5))
    won = winner == 0
    p[won, 0] = 1.0
    p[won, 1] = kind[won] >= 2
    p[won, 2] = kind[won] == 3
    lost = ~won
    p[lost, 3] = kind[lost] >= 2
    p[lost, 4] = kind[lost] == 3
    return p


def _chunk(cubeless, cubeful, lo, hi, evaluate, vr, rules, score, value):
    """Per-trial values of trials lo..hi-1, summed: {name: [sum, sum of squares]}."""
    values = trial_values(cubeless, cubeful, lo, hi, evaluate, vr, rules, score, value)
    return {k: [math.fsum(v), math.fsum(v * v)] for k, v in values.items()}


def trial_values(cubeless, cubeful, lo, hi, evaluate, vr, rules, score, value,
                 cubeful_only=False):
    """The values of trials lo..hi-1 for player 0: {name: float64 (n,)} for the five
    probabilities (:data:`OUTPUTS`), ``"equity"`` and, with ``cubeful`` (the setup of the
    same trials with the cube), ``"cubeful"`` (money: per unit of ``value``; match: the
    match-winning chance); with ``cubeful_only`` just ``"cubeful"``, of the setup
    ``cubeless``. A KeyboardInterrupt passes through: the caller records only whole
    chunks."""
    if cubeful_only:
        return {"cubeful": _cubeful_values(cubeless, lo, hi, evaluate, rules, score, value)}
    if vr:
        probs = _vr_trials(cubeless, lo, hi, evaluate)
    else:
        rows = play_chunk(cubeless, lo, hi - lo, keep_final=True)
        probs = _trial_probs(rows.outcome, rows.final, evaluate)
    values = {name: probs[:, i] for i, name in enumerate(OUTPUTS)}
    values["equity"] = equity_of(probs)
    if cubeful is not None:
        values["cubeful"] = _cubeful_values(cubeful, lo, hi, evaluate, rules, score, value)
    return values


def _trial_probs(outcome, final, evaluate):
    """Player 0's probabilities per trial: indicators, or the evaluator at truncation."""
    probs = _outcome_probs(outcome[:, 0], outcome[:, 1])
    cut = np.flatnonzero(outcome[:, 1] == 0)
    if cut.size:
        p = _probabilities(evaluate, np.ascontiguousarray(final[cut]))
        p0 = np.where((outcome[cut, 0] == 0)[:, None], p, swap_sides(p))
        probs[cut] = p0
    return probs


def _cubeful_values(st, lo, hi, evaluate, rules, score, value):
    """Per-trial cubeful values: money points per unit of the initial cube, or player 0's
    match-winning chance after the game. A truncated trial counts the evaluator's outcome
    probabilities at the cube value reached."""
    rows = play_chunk(st, lo, hi - lo, keep_final=True)
    outcome, cube_out, final = rows.outcome, rows.cube_out, rows.final
    pts = np.where(outcome[:, 0] == 0, cube_out[:, 2], -cube_out[:, 2]).astype(np.int64)
    cut = np.flatnonzero((outcome[:, 1] == 0) & (cube_out[:, 1] == 0))
    p_cut = None
    if cut.size:
        p = _probabilities(evaluate, np.ascontiguousarray(final[cut]))
        p_cut = np.where((outcome[cut, 0] == 0)[:, None], p, swap_sides(p))   # player 0
    if not rules.is_match:
        out = pts.astype(np.float64)
        if cut.size:
            out[cut] = equity_of(p_cut) * cube_out[cut, 0]
        return out / value
    a0, a1 = rules.length - score[0], rules.length - score[1]
    out = np.array([mwc_after(a0, a1, int(x)) if x else 0.0 for x in pts])
    for row, i in enumerate(cut):
        v = int(cube_out[i, 0])
        w, wg, wbg, lg, lbg = p_cut[row]
        out[i] = ((w - wg) * mwc_after(a0, a1, v) + (wg - wbg) * mwc_after(a0, a1, 2 * v)
                  + wbg * mwc_after(a0, a1, 3 * v) + (1 - w - lg) * mwc_after(a0, a1, -v)
                  + (lg - lbg) * mwc_after(a0, a1, -2 * v) + lbg * mwc_after(a0, a1, -3 * v))
    return out


def _vr_trials(st, lo, hi, evaluate):
    """Cubeless trials with luck adjustment, played in lock-step (player 0's view)."""
    n = hi - lo
    seed, game0 = st.seed, np.int64(lo)
    boards = np.repeat(st.start_board[None, :], n, axis=0)
    side = np.zeros(n, np.int8)
    ply = np.zeros(n, np.int64)
    alive = np.ones(n, np.bool_)
    result = np.zeros((n, 5))
    corr = np.zeros((n, 5))
    truncate = st.gcfg[_play.G_TRUNCATE]
    policy = int(st.bots.policies[0])
    net = st.nets[0]
    no_doubles_first = st.gcfg[_play.G_OPENING] == _play.OPENING_NO_DOUBLES
    bots = st.bots._replace(gnet=None, gbo=None)        # choose_segments without the networks
    rolls = np.asarray(ROLLS, np.int64)
    with _threads(st.n_threads):
        while True:
            live = np.flatnonzero(alive)
            if truncate >= 0 and live.size:
                cut = live[ply[live] >= truncate]
                if cut.size:
                    p = _probabilities(evaluate, np.ascontiguousarray(boards[cut]))
                    result[cut] = np.where((side[cut] == 0)[:, None], p, swap_sides(p))
                    alive[cut] = False
                    live = np.flatnonzero(alive)
            if live.size == 0:
                break
            m = live.size
            # Every roll: the bot's choice and its value for the mover.
            b21 = np.repeat(boards[live], len(rolls), axis=0)
            d21 = np.tile(rolls, (m, 1))
            res, off = _legal_moves_rows(b21, d21, st.n_threads)
            games21 = np.repeat(live, len(rolls))
            choice = np.zeros(m * len(rolls), np.int64)
            if net is not None:
                # the gnubg bot's choice from the networks' batch kernel (the evaluator's
                # kernel too: one compilation of the networks for the whole rollout)
                _play.segment_best(net.scores_rows(res), off, choice)
            else:
                call_holding_interrupts(_play.choose_segments, policy, seed, game0, games21,
                                        ply, b21, res, off, bots, choice)
            chosen = res[off[:-1] + choice]
            v_mover = mover_values(chosen, evaluate)                  # (m * 21, 5)
            v_mover = v_mover.reshape(m, len(rolls), 5)
            expected = np.einsum("r,mrk->mk", _WEIGHTS, v_mover)
            if no_doubles_first and np.any(ply[live] == 0):
                first = ply[live] == 0          # their roll comes from the 30 non-doubles
                expected[first] = np.einsum("r,mrk->mk", _NO_DOUBLE_WEIGHTS, v_mover[first])
            # The roll that came, and the luck it brought.
            dice = np.zeros((m, 2), np.int64)
            d1 = np.zeros(n, np.int64)
            d2 = np.zeros(n, np.int64)
            _play.lockstep_dice(seed, game0, live, ply, d1, d2, st.gcfg, st.rot, dice)
            r_idx = roll_index(dice)
            actual = v_mover[np.arange(m), r_idx]
            luck = expected - actual                                    # mover's view
            mover0 = side[live] == 0
            corr[live] += np.where(mover0[:, None], luck, swap_difference(luck))
            # Play the move of the roll that came.
            new = chosen.reshape(m, len(rolls), BOARD_SIZE)[np.arange(m), r_idx]
            boards[live] = new
            ply[live] += 1
            done = ~new[:, 1:].clip(0, None).any(axis=1)      # the mover bore off all 15
            if done.any():
                g = live[done]
                kind = _win_kinds(new[done])
                won0 = side[g] == 0
                result[g] = _outcome_probs(np.where(won0, 0, 1), kind)
                alive[g] = False
            rest = live[~done]
            boards[rest] = -boards[rest][:, ::-1]
            side[rest] ^= 1
    return result + corr


def mover_values(chosen, evaluate):
    """Probabilities for the player who just moved, of each chosen result."""
    m = chosen.shape[0]
    finished = ~chosen[:, 1:].clip(0, None).any(axis=1)
    v = np.zeros((m, 5))
    if finished.any():
        kind = _win_kinds(chosen[finished])
        v[finished] = _outcome_probs(np.zeros(kind.shape[0], np.int64), kind)
    rest = np.flatnonzero(~finished)
    if rest.size:
        flipped = np.ascontiguousarray(-chosen[rest][:, ::-1])
        v[rest] = swap_sides(_probabilities(evaluate, flipped))
    return v


def _win_kinds(boards):
    return np.array([_play.win_kind(b) for b in boards], np.int64)


def roll_index(dice):
    """Index into ROLLS (higher die first) of each (d1, d2)."""
    hi = np.maximum(dice[:, 0], dice[:, 1])
    lo = np.minimum(dice[:, 0], dice[:, 1])
    lookup = {(int(a), int(b)): i for i, (a, b) in enumerate(ROLLS)}
    return np.array([lookup[(int(a), int(b))] for a, b in zip(hi, lo)], np.int64)


def _result(chunks, settings, partial):
    recs = [chunks[k] for k in sorted(chunks)]
    n = sum(r["hi"] - r["lo"] for r in recs)
    if n == 0:
        if partial:
            raise KeyboardInterrupt         # interrupted before the first chunk finished
        raise _journal.JournalError("the results file holds no finished chunk yet")
    names = list(recs[0]["sums"])
    total = {k: [math.fsum(r["sums"][k][0] for r in recs),
                 math.fsum(r["sums"][k][1] for r in recs)] for k in names}

    def stat(k):
        return mean_se(*total[k], n)

    probs = [stat(k) for k in OUTPUTS]
    eq = stat("equity")
    cf = stat("cubeful") if "cubeful" in total else (None, None)
    return RolloutResult(trials=n, probabilities=[m for m, _ in probs],
                         probabilities_se=[s for _, s in probs], equity=eq[0], equity_se=eq[1],
                         cubeful=cf[0], cubeful_se=cf[1], settings=settings,
                         partial=partial or (n < settings["trials"]
                                             and not _target_reached(chunks, settings)))
