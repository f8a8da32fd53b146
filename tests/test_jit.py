"""Kernels compiled without reference counting (fastbg.jit.HOT) must not return
arrays: the caller would release a reference that was never taken and free memory still
in use. (Creating arrays there is refused by numba at compile time.)"""
import importlib
import pkgutil

import numpy as np

import fastbg
from fastbg import jit
from numba.core.registry import CPUDispatcher


def hot_dispatchers():
    """Every HOT kernel of the package (kernels live beside their wrappers in each area)."""
    for info in pkgutil.walk_packages(fastbg.__path__, "fastbg."):
        if info.name == "fastbg.__main__":
            continue
        mod = importlib.import_module(info.name)
        for name, obj in vars(mod).items():
            if (isinstance(obj, CPUDispatcher) and obj.__module__ == mod.__name__
                    and obj.targetoptions.get("_nrt") is False):
                yield f"{info.name}.{name}", obj


def test_hot_options():
    assert jit.HOT == {"cache": True, "_nrt": False}
    assert jit.COLD == {"cache": True}
    # The option reaches numba: a HOT kernel is compiled without reference counting.
    from fastbg.position import movegen
    assert movegen.generate.targetoptions["_nrt"] is False
    assert len(list(hot_dispatchers())) >= 20


def test_feature_parts_are_inlined():
    """A side's features and its pip loss are compiled into their caller
    (fastbg.jit.INLINED, contact_features_from), a race position's add list and record
    into the batch kernel: the option reaches numba, and only there. (Their absence from the batch kernel's profile shows in ``python -m
    bench.profile 0ply``: numba keeps no code to inspect for cached kernels.)"""
    assert jit.INLINED == dict(jit.INNER, forceinline=True)
    from fastbg.evaluators import feature_kernels, input_kernels, net_kernels
    from fastbg.evaluators import pip_loss_kernels
    from fastbg.evaluators import add_row_kernels, race_refine_kernels
    for kernel in (feature_kernels._half_from, pip_loss_kernels._pip_loss,
                   race_refine_kernels.race_record, add_row_kernels.race_adds_occupied):
        assert kernel.targetoptions.get("forceinline") is True, kernel.__name__
    # the batch kernel's other parts are calls: each kernel holding it compiles it again
    for kernel in (net_kernels._flush, net_kernels.evaluate_rows,
                   input_kernels.contact_features_from):
        assert not kernel.targetoptions.get("forceinline"), kernel.__name__


def test_hot_kernels_return_no_arrays():
    # Compile the hot paths: games (random, pubeval, greedy, gnubg; cubeful), moves, nets.
    fastbg.legal_moves(fastbg.START, (6, 5))
    fastbg.play(20, ("random", "greedy"), seed=1)
    fastbg.play(20, ("pubeval", "pubeval"), seed=1, rules=fastbg.MoneyRules(),
                cube=("race", "race"))
    try:
        net = fastbg.gnubg_net()
    except FileNotFoundError:
        net = None
    # Hot kernels called directly (a warm disk cache compiles nothing below the entry
    # points above): move generation, and with the weights the gnubg scoring path.
    from fastbg.evaluators import net_kernels as kg
    from fastbg.position import movegen as mg
    out = np.empty((mg.MAX_RESULTS, 26), np.int8)
    k = mg.generate(np.asarray(fastbg.START, np.int8), 6, 5, out, 0, *mg.new_scratch(), 1)
    assert k > 1
    if net is not None:
        fastbg.play(4, ("gnubg", "pubeval"), seed=1)
        net(np.stack([fastbg.START]))
        scores = np.empty(k)
        kg.scores(out, k, net.arrays, net.bearoff, kg.new_scratch(), scores)
        probs = np.empty(5)
        kg.evaluate_board(np.asarray(fastbg.START, np.int8), net.arrays, net.bearoff,
                          kg.new_scratch(), probs)
    checked = 0
    for name, disp in hot_dispatchers():
        for sig in disp.nopython_signatures:
            checked += 1
            assert "array" not in str(sig.return_type).lower(), (name, sig.return_type)
    # Kernels loaded from numba's disk cache are not compiled one by one, so with a warm
    # cache only the entry points are seen here; from a fresh cache (as in CI) every hot
    # kernel these workloads reach is.
    assert checked >= 3
