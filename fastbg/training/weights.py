"""Networks being trained: fresh ones, and their checkpoints and weights files.

A network set in training is a :class:`fastbg.evaluators.net_tables.Net` whose input
weights hold the input rows alone (``w1`` float32[3, 250, H]): the TD kernels
(:mod:`fastbg.training.td_kernels`) update it in place and evaluate it with the plain
path. Saved, it is fastbg's weights file (:func:`save_weights`, a ``.npz``: each net's
arrays under ``race/``, ``crashed/``, ``contact/`` with its input function, the version
and a JSON ``meta`` of its provenance), which :func:`fastbg.evaluators.nets.load_weights`
reads like GNU Backgammon's files, so every evaluator, bot, search and rollout of fastbg
runs it unchanged. :func:`export_gnubg_text` writes gnubg-nn's text layout of the same
numbers, for other tools.
"""
import json
import os

import numpy as np

from fastbg.evaluators import net_kernels as _k
from fastbg.evaluators.fastbg_weights import FORMAT_TAG, INPUTS, KINDS, read_weights
from fastbg.evaluators.prune_kernels import PRUNE_HIDDEN, PRUNE_INPUTS, PruneNet

HIDDEN = 128


def new_net(hidden=HIDDEN, seed=0, scale=0.1):
    """Fresh networks: weights uniform in [-scale, scale] from ``seed`` (numpy's
    generator, once, outside any kernel), thresholds zero, betas one."""
    rng = np.random.default_rng(seed)
    w1 = np.zeros((_k.N_NETS, _k.MAX_INPUTS, hidden), np.float32)
    w2 = np.zeros((_k.N_NETS, _k.N_OUT, hidden), np.float32)
    n_in = np.zeros(_k.N_NETS, np.int64)
    ifunc = np.zeros(_k.N_NETS, np.int64)
    for kind in KINDS:
        k = _index(kind)
        code = _k.INPUT_FUNCS[INPUTS[kind]]
        n_in[k] = _k.N_INPUTS[code]
        ifunc[k] = code
        w1[k, :n_in[k]] = rng.uniform(-scale, scale, (n_in[k], hidden))
        w2[k] = rng.uniform(-scale, scale, (_k.N_OUT, hidden))
    n_hid = np.full(_k.N_NETS, hidden, np.int64)
    return _k.Net(w1, np.zeros((_k.N_NETS, hidden), np.float32), w2,
                  np.zeros((_k.N_NETS, _k.N_OUT), np.float32),
                  np.ones((_k.N_NETS, 2), np.float32), n_in, n_hid, ifunc,
                  np.int64(_k.EVAL_GNUBG_NN), _k.plain_marker(w1, n_in, n_hid))


def _index(kind):
    return {"race": _k.NET_RACE, "crashed": _k.NET_CRASHED, "contact": _k.NET_CONTACT}[kind]


def new_prune(hidden=PRUNE_HIDDEN, seed=0, scale=0.1):
    """Fresh pruning nets (:class:`fastbg.evaluators.prune_kernels.PruneNet` arrays,
    without the encoding sums the loader adds): race, crashed and contact nets on the 200
    base inputs, weights uniform in [-scale, scale] from ``seed``."""
    rng = np.random.default_rng(seed)
    w1 = rng.uniform(-scale, scale, (_k.N_NETS, PRUNE_INPUTS, hidden)).astype(np.float32)
    w2 = rng.uniform(-scale, scale, (_k.N_NETS, _k.N_OUT, hidden)).astype(np.float32)
    empty = np.zeros((1, 1), np.float32)
    return PruneNet(w1, np.zeros((_k.N_NETS, hidden), np.float32), w2,
                    np.zeros((_k.N_NETS, _k.N_OUT), np.float32),
                    np.ones((_k.N_NETS, 2), np.float32), np.full(_k.N_NETS, hidden, np.int64),
                    empty, np.zeros(1, np.float32))


def save_weights(path, net, version, meta=None, prune=None):
    """Write ``net`` (and the pruning nets ``prune``, where given) as fastbg's weights
    file (``.npz``), atomically (a temporary file renamed over ``path``): what
    :func:`load_net`, :func:`load_prune` and :func:`fastbg.evaluators.nets.load_weights`
    read."""
    arrays = {"format": np.array(FORMAT_TAG), "version": np.array(str(version)),
              "meta": np.array(json.dumps(meta or {}, sort_keys=True))}
    for kind in KINDS:
        k = _index(kind)
        n, h = int(net.n_in[k]), int(net.n_hid[k])
        arrays[f"{kind}/inputs"] = np.array(INPUTS[kind] if n else "")
        arrays[f"{kind}/w1"] = np.ascontiguousarray(net.w1[k, :n, :h])
        arrays[f"{kind}/b1"] = np.ascontiguousarray(net.b1[k, :h])
        arrays[f"{kind}/w2"] = np.ascontiguousarray(net.w2[k, :, :h])
        arrays[f"{kind}/b2"] = np.ascontiguousarray(net.b2[k])
        arrays[f"{kind}/beta"] = np.ascontiguousarray(net.beta[k])
    if prune is not None:
        for kind in KINDS:
            k = _index(kind)
            h = int(prune.n_hid[k])
            name = f"prune {kind}"
            arrays[f"{name}/inputs"] = np.array("base")
            arrays[f"{name}/w1"] = np.ascontiguousarray(prune.w1[k, :, :h])
            arrays[f"{name}/b1"] = np.ascontiguousarray(prune.b1[k, :h])
            arrays[f"{name}/w2"] = np.ascontiguousarray(prune.w2[k, :, :h])
            arrays[f"{name}/b2"] = np.ascontiguousarray(prune.b2[k])
            arrays[f"{name}/beta"] = np.ascontiguousarray(prune.beta[k])
    tmp = f"{path}.tmp"
    with open(tmp, "wb") as f:
        np.savez_compressed(f, **arrays)
    os.replace(tmp, path)


def load_prune(path):
    """The pruning nets of a weights file, for training (see :func:`new_prune`), or None
    when it has none."""
    with open(path, "rb") as f:
        _, _, nets = read_weights(f.read(), path)
    found = {kind[len("prune "):]: v for kind, v in nets.items() if kind.startswith("prune ")}
    if set(found) != set(KINDS):
        return None
    hidden = max(v[1].shape[1] for v in found.values())
    prune = new_prune(hidden, scale=0.0)
    for kind, (_, w1, b1, w2, b2, beta) in found.items():
        k, h = _index(kind), w1.shape[1]
        prune.w1[k, :, :h] = w1
        prune.b1[k, :h] = b1
        prune.w2[k, :, :h] = w2
        prune.b2[k] = b2
        prune.beta[k] = beta
        prune.n_hid[k] = h
    return prune


def load_net(path):
    """(networks for training (see :func:`new_net`), version, meta) from a weights file
    (its pruning nets: :func:`load_prune`)."""
    with open(path, "rb") as f:
        version, meta, nets = read_weights(f.read(), path)
    nets = {kind: v for kind, v in nets.items() if not kind.startswith("prune ")}
    hidden = max(v[1].shape[1] for v in nets.values())
    net = new_net(hidden, scale=0.0)
    for kind, (inputs, w1, b1, w2, b2, beta) in nets.items():
        k = _index(kind)
        n, h = w1.shape
        net.w1[k, :n, :h] = w1
        net.b1[k, :h] = b1
        net.w2[k, :, :h] = w2
        net.b2[k] = b2
        net.beta[k] = beta
        net.n_in[k] = n
        net.n_hid[k] = h
        net.ifunc[k] = _k.INPUT_FUNCS[inputs]
    return net, version, meta


def export_gnubg_text(path, net, version):
    """Write ``net`` in gnubg-nn's text layout (a line naming each net and its input
    function, its header, then its weights one per line), which
    :func:`fastbg.evaluators.nets.load_weights` reads too."""
    lines = [f"GNU Backgammon {version}"]
    for kind in ("contact", "crashed", "race"):
        k = _index(kind)
        n, h = int(net.n_in[k]), int(net.n_hid[k])
        if not n:
            continue
        lines.append(f"{kind} {INPUTS[kind]}")
        lines.append(f"{n} {h} {_k.N_OUT} 0 {float(net.beta[k, 0])!r} {float(net.beta[k, 1])!r}")
        for block in (net.w1[k, :n, :h], net.w2[k, :, :h], net.b1[k, :h], net.b2[k]):
            lines.extend(repr(float(x)) for x in np.asarray(block, np.float32).ravel())
    tmp = f"{path}.tmp"
    with open(tmp, "w", encoding="ascii") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, path)
