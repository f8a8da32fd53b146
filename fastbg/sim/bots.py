"""Bots: who chooses the move. Built-in names and the two plug-in kinds.

A bot is given the board before its move and the distinct legal results (still seen from
the mover) and plays the result it scores highest (the first one on ties).

* ``"random"``: uniform over the distinct legal results (counter-based random numbers).
* ``"pubeval"``: Tesauro's public evaluator (1993, public domain), weights shipped as
  package data (``fastbg/data/pubeval.json``).
* ``"greedy"``: a hand-made heuristic (:func:`fastbg.sim.policy_kernels.greedy_score`):
  hits, made points, borne-off checkers, minus exposed blots and pips left.
* ``"gnubg-1ply"``, ``"gnubg-2ply"``, ``"gnubg-3ply"``: GNU Backgammon's checker play
  at that ply (:func:`nply_bot`; docs/engine.md section 4), as gnubg-nn plays it.
  ``"gnubg-1ply-prune"``, ``"gnubg-2ply-prune"``: as GNU Backgammon 1.x plays by default
  (its Normal move filter, its pruning nets inside the look-ahead): faster.
* ``"fastbg"``, ``"fastbg-1ply"``, ``"fastbg-1ply-prune"`` ...: the same bots on fastbg's
  own networks (:func:`fastbg.evaluators.own_nets.fastbg_net`, shipped with the package,
  pruning nets included).
* ``"gnubg"``: GNU Backgammon's 0-ply cubeless choice, its networks evaluated inside the
  game kernel (:mod:`fastbg.evaluators.nets`; the weights come from the gnubg extra). A
  :class:`fastbg.evaluators.nets.GnubgNet` (or its ``.bot()``) plays the same with other weights.
  ``"gnubg-nn"`` is the same choice made by the gnubg-nn package, one Python call per
  candidate (slow; kept for cross-checks).
* ``"bgsage"`` (``"bgsage-2ply"`` ... ``"bgsage-4ply"``) and ``"gnubg-app"``
  (``"gnubg-app-1ply"``, ``"gnubg-app-2ply"``): the moves of other engines, bgsage and
  GNU Backgammon itself (optional extras; :mod:`fastbg.sim.engines`).
* :class:`ScorerBot`: a numba-jitted ``score(before, candidates, out)`` run inside the
  game kernel (the fast path for your own policies).
* :class:`EvaluatorBot`: a Python ``evaluate(positions) -> scores`` called once per
  lock-step round for the candidates of all live games together (numpy or torch nets).

The two plug-in kinds are defined in :mod:`fastbg.sim.plugin_bots` and named here too.
"""
import json
import re
from functools import lru_cache
from importlib import resources
from typing import NamedTuple

from fastbg.extras import MissingWeights
from fastbg.sim import engines as _engines
from fastbg.sim import policy_kernels as _pol
# The plug-in kinds live below both this registry and the engine bots (which are
# EvaluatorBots), so the registry resolves engine names without a circular import;
# fastbg.sim.bots.ScorerBot / EvaluatorBot stay their public address.
from fastbg.sim.plugin_bots import EvaluatorBot, ScorerBot

EVALUATOR = _pol.EVALUATOR
BUILTIN = {"random": _pol.RANDOM, "pubeval": _pol.PUBEVAL, "greedy": _pol.GREEDY,
           "gnubg": _pol.GNUBG, "fastbg": _pol.GNUBG}
# The networks a bot's name plays with: GNU Backgammon's (the gnubg extra) or fastbg's own
# (shipped, MIT), both in GNU Backgammon's layout and run by the same kernels.
NET_FAMILIES = ("gnubg", "fastbg")


def net_family(name):
    """Whose networks a bot's or cube strategy's name plays: "fastbg" for ``"fastbg"``,
    ``"fastbg-1ply"`` ..., else "gnubg"."""
    return "fastbg" if name.strip().lower().startswith("fastbg") else "gnubg"


@lru_cache(maxsize=1)
def pubeval_weights():
    """pubeval's weights from the package data: ``{"race": [...122], "contact": [...122]}``."""
    text = resources.files("fastbg").joinpath("data/pubeval.json").read_text()
    data = json.loads(text)
    return {"race": data["race"], "contact": data["contact"]}


@lru_cache(maxsize=1)
def pubeval_tables():
    """pubeval folded into per-point lookup tables for the kernel (see policies.py)."""
    w = pubeval_weights()
    return _pol.pubeval_tables(w["race"], w["contact"])


class ResolvedBot(NamedTuple):
    """A bot as the game kernels see it."""
    code: int            # policy code (fastbg.sim.policy_kernels RANDOM .. GNUBG)
    scorer: object       # the ScorerBot's numba function, else None
    evaluator: object    # the EvaluatorBot's Python function, else None
    name: str            # display name


def resolve(bot):
    """The :class:`ResolvedBot` of a name or a bot object (ValueError / TypeError if none)."""
    if isinstance(bot, str):
        key = bot.strip().lower()
        if key in BUILTIN:
            return ResolvedBot(BUILTIN[key], None, None, key)
        extra = _extra_bot(key)
        if extra is not None:
            return resolve(extra)
        raise ValueError(f"unknown bot {bot!r}; built-in bots: {', '.join(sorted(BUILTIN))} "
                         "('fastbg', 'fastbg-1ply' ... on fastbg's own networks; "
                         "'gnubg', 'gnubg-1ply', 'gnubg-2ply' with the gnubg extra; "
                         "'gnubg-nn' for gnubg-nn's own choice; 'bgsage', 'bgsage-2ply' ... "
                         "with bgsage; 'gnubg-app', 'gnubg-app-1ply', 'gnubg-app-2ply' with "
                         "GNU Backgammon's gnubg package), or a ScorerBot / EvaluatorBot")
    net = gnubg_net_of(bot)
    if net is not None:
        return ResolvedBot(_pol.GNUBG, None, None, getattr(bot, "name", "gnubg"))
    if isinstance(bot, ScorerBot):
        return ResolvedBot(_pol.PLUGIN, bot.score, None, bot.name)
    if isinstance(bot, EvaluatorBot):
        return ResolvedBot(_pol.EVALUATOR, None, bot.evaluate, bot.name)
    raise TypeError(f"a bot is a name or a ScorerBot / EvaluatorBot, got {type(bot).__name__}")


PRUNE_SUFFIX = "-prune"
# The n-ply bots' names: gnubg-<ply>ply, then optionally a move filter (a name of
# fastbg.analysis.hints.MOVE_FILTERS or "NxT": at most N moves within T), then optionally
# -prune. Without a filter: gnubg-nn's ("gnubg"), or with -prune GNU Backgammon's Normal.
_NPLY_NAME = re.compile(r"^(gnubg|fastbg)-([1-3])ply"
                        r"(?:-(tiny|narrow|normal|large|huge|\d+x\d*\.?\d+))?(-prune)?$")


class NplySpec(NamedTuple):
    """An n-ply bot's settings, read from its name (:func:`nply_spec`)."""
    ply: int
    filter: object       # as fastbg.analysis.hints.check_filter returns it
    prune: bool
    nets: str = "gnubg"  # whose networks: "gnubg" or "fastbg" (NET_FAMILIES)


def nply_spec(name):
    """The :class:`NplySpec` of an n-ply bot's name ("gnubg-1ply", "gnubg-1ply-prune",
    "gnubg-1ply-tiny", "gnubg-1ply-2x0.03-prune", ...), or None when ``name`` is not one
    (ValueError for a name of that form whose settings are not valid)."""
    if not isinstance(name, str):
        return None
    m = _NPLY_NAME.match(name.strip().lower())
    if m is None:
        return None
    from fastbg.analysis.hints import check_filter
    ply, prune = int(m.group(2)), m.group(4) is not None
    text = m.group(3)
    filter = ("normal" if prune else "gnubg") if text is None else text
    return NplySpec(ply, check_filter(filter, ply), prune, m.group(1))


def nply_ply(name):
    """The ply of a named n-ply bot, or None when ``name`` is not one."""
    spec = nply_spec(name)
    return None if spec is None else spec.ply


def _extra_bot(key):
    """Bots from optional extras, by name; None when the name is not one of them."""
    if key == "gnubg-nn":
        return gnubg_nn_bot()
    spec = nply_spec(key)
    if spec is not None:
        return nply_bot(spec.ply, net=gnubg_net_of(spec.nets), prune=spec.prune,
                        filter=spec.filter, name=key)
    if key in _engines.BGSAGE_LEVELS:
        return _engines.bgsage_bot(key)
    if key in _engines.GNUBG_APP_PLIES:
        return _engines.gnubg_app_bot(key)
    return None


def strongest_bot():
    """The strongest bot available, the default of rollouts: ``"gnubg"`` when GNU
    Backgammon's networks are installed (the gnubg extra), else ``"fastbg"`` (fastbg's own
    networks, always there; docs/training.md measures the two)."""
    from fastbg.evaluators.own_nets import gnubg_installed
    return "gnubg" if gnubg_installed() else "fastbg"


def nply_bot(ply, net=None, prune=False, filter=None, name=None):
    """GNU Backgammon's checker play at ``ply`` (1..3) as an :class:`EvaluatorBot`: the best
    move of :func:`fastbg.hint` with the gnubg filter (gnubg-nn's ``best_move(n=ply)``),
    all games' candidates evaluated as one batch per lock-step round. ``net`` defaults to
    the installed networks (``"gnubg-1ply"``, ``"gnubg-2ply"``, ``"gnubg-3ply"`` by name).

    ``prune``: GNU Backgammon 1.x's default settings instead (``"gnubg-1ply-prune"``,
    ``"gnubg-2ply-prune"``; ply 1 or 2): its Normal move filter (the candidates within
    0.16 of the best 0-ply equity, at most 8) and its pruning nets inside the look-ahead
    (docs/engine.md section 1). ``filter``: another move filter, as :func:`fastbg.hint`
    takes it (by name: ``"gnubg-1ply-tiny-prune"``, ``"gnubg-1ply-2x0.03"``; docs/engine.md
    section 4). ``name``: the bot's name (default: the one that gives these settings)."""
    from fastbg.analysis.hints import NplyScorer
    if net is None:
        net = gnubg_net_of("gnubg")
    if ply == 0:
        return net.bot()
    if filter is None:
        filter = "normal" if prune else "gnubg"
    if prune and net.weights.prune is None:
        raise ValueError(f"the {getattr(net, 'name', 'gnubg')} networks have no pruning nets: "
                         "the -prune bots need them (play without -prune)")
    scorer = NplyScorer(net, ply, filter=filter, prune=prune)
    if name is None:
        family = "fastbg" if getattr(net, "name", "gnubg") == "fastbg" else "gnubg"
        name = f"{family}-{ply}ply{_filter_name(scorer.filter, prune)}{PRUNE_SUFFIX * prune}"
    return EvaluatorBot(scorer, name=name)


def _filter_name(filter, prune):
    """The name part of a checked filter ("" for the bot's default)."""
    if filter == ("normal" if prune else "gnubg"):
        return ""
    if isinstance(filter, tuple):
        return f"-{filter[0]}x{filter[1]:g}"
    return f"-{filter}"


def gnubg_nn_bot():
    """A :class:`EvaluatorBot` that plays GNU Backgammon's 0-ply cubeless choice through
    the gnubg-nn package itself (one Python call per position, for cross-checks).

    Raises ImportError (with the install hint) when ``gnubg_nn`` is not installed. It uses
    the net gnubg_nn has active (its own default unless ``gnubg_nn.net_use`` changed it).
    """
    from fastbg.evaluators import gnubg_nn
    gnubg_nn.require()
    return EvaluatorBot(gnubg_nn.evaluate, name="gnubg-nn")


def gnubg_net_of(bot):
    """The GnubgNet a bot plays with (the installed one for "gnubg"), or None."""
    from fastbg.evaluators.nets import GnubgBot, GnubgNet, gnubg_net
    if isinstance(bot, str):
        key = bot.strip().lower()
        if key == "fastbg":
            from fastbg.evaluators.own_nets import fastbg_net
            return fastbg_net()
        if key != "gnubg":
            return None
        try:
            return gnubg_net()
        except MissingWeights as exc:
            raise MissingWeights(f"the {bot.strip()} bot needs GNU Backgammon's networks, which "
                                 "are not installed", "gnubg") from exc
        except FileNotFoundError as exc:
            raise ImportError(f"the gnubg bot needs GNU Backgammon's networks: {exc}") from exc
    if isinstance(bot, GnubgBot):
        return bot.net
    if isinstance(bot, GnubgNet):
        return bot
    return None


def gnubg_tables(bots):
    """(net arrays, bear-off tables) of the gnubg networks the bots play with, or (None,
    None) when none does: the game kernels are then compiled without the networks."""
    nets = [n for n in (gnubg_net_of(b) for b in bots) if n is not None]
    if not nets:
        return None, None
    if any(n.arrays is not nets[0].arrays for n in nets[1:]):
        raise ValueError("both bots use GNU Backgammon's networks with different weights "
                         "or evaluations; a run takes one set of networks")
    return nets[0].arrays, nets[0].bearoff
