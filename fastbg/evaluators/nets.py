"""GNU Backgammon's neural networks evaluated in fastbg's own numba kernels.

:func:`gnubg_net` loads the networks of GNU Backgammon (the gnubg-nn weights, GPL) and
returns a :class:`GnubgNet`: 0-ply cubeless probabilities for the player on roll, equal to
``gnubg_nn.probabilities(board, 0)`` (the same classes, inputs, float32 arithmetic and
bear-off tables; see :mod:`fastbg.evaluators.net_kernels`), batched over boards and threads.
With GNU Backgammon's own weights files the evaluation is GNU Backgammon 1.x's instead
(``evaluation="gnubg"``: its race sanity rules and one-sided bear-offs; equal to
``gnubg.evaluate`` at 0-ply); ``gnubg_net(..., evaluation=...)`` chooses either.

fastbg does not ship the weights. They come from an installed ``gnubg-nn`` package
(``pip install 'fastbg[gnubg]'``), from GNU Backgammon itself (the ``gnubg`` package,
``pip install 'fastbg[gnubg-app]'``, or a Debian ``gnubg-data``), or from a weights file you
name (``gnubg_net(path)``: a file or a folder holding one). The bear-off tables are computed
by fastbg itself (:mod:`fastbg.evaluators.bearoff`) and need nothing.

Weights formats, told apart by content (docs/engine.md section 6 compares the evaluations):

* **gnubg-nn's text file** (its ``LoadNet``): a first line ``GNU Backgammon <version>``,
  then for each net a line naming it (``race``, ``crashed``, ``contact``, optionally
  followed by the name of its input function, or ``prune <name>`` for the small pruning
  nets of the pruned look-ahead, :mod:`fastbg.evaluators.prune_kernels`), a line ``inputs hidden outputs trained
  beta_hidden beta_output`` and the weights one per line: hidden weights input by input
  (``inputs x hidden``), output weights output by output (``outputs x hidden``), hidden
  thresholds, output thresholds.
* **GNU Backgammon's ``gnubg.weights``** (its eval.c and neuralnet.c ``NeuralNetLoad``):
  the same first line and nets, but no net is named: they come in a fixed order, contact
  (input function contact250), race, crashed (std250), then the three pruning nets
  (contact, crashed, race).
* **GNU Backgammon's ``gnubg.wd``** (``NeuralNetLoadBinary``): the float32 472.3782
  (its byte order is the file's), the version as a float32 (1.01), then each net in the
  order above as int32 inputs, hidden, outputs, trained, float32 two betas and its
  float32 weights in the text file's order.

The weights of version 1.01 are the same numbers in all three files (tests/test_gnubg_weights.py).
Each format has its engine's evaluation by default (:data:`FORMAT_EVALUATION`).
"""
import mmap
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from fastbg.evaluators import bearoff as _bearoff
from fastbg.evaluators import fastbg_weights as _fw
from fastbg.evaluators import net_kernels as _k
from fastbg.evaluators import prune_kernels as _pk
from fastbg.evaluators.add_row_kernels import extended_weights
from fastbg.evaluators.search import check_ply, mover_scores, nply_probabilities
from fastbg.cube.formulas import equity_of
from fastbg.position.board import validate
from fastbg.constants import BOARD_SIZE
from fastbg.extras import MissingWeights
from fastbg.parallel import resolve_threads, run_spans, thread_scratch

INSTALL_HINT = ("GNU Backgammon's networks are not installed: pip install 'fastbg[gnubg]' "
                "(package gnubg-nn), or give a gnubg.weights file: fastbg.gnubg_net(path=...)")

WEIGHTS_NAME = "gnubg.weights"
BINARY_NAME = "gnubg.wd"
# Default input function of each net when its line names none (gnubg-nn's evalNetsGen).
_DEFAULT_INPUTS = {"race": "race", "crashed": "std250", "contact": "std250"}
# GNU Backgammon's own files name no net: they hold contact, race, crashed, then the
# pruning nets (eval.c's EvalInitialise), with the input functions of its eval.c
# (CalculateContactInputs, CalculateRaceInputs, CalculateCrashedInputs).
_GNUBG_ORDER = (("contact", "contact250"), ("race", "race"), ("crashed", "std250"))
# ... and its pruning nets after them (its nnpContact, nnpCrashed, nnpRace).
_GNUBG_PRUNE_ORDER = ("contact", "crashed", "race")
_NET_INDEX = {"race": _k.NET_RACE, "crashed": _k.NET_CRASHED, "contact": _k.NET_CONTACT}
CLASS_NAMES = ("over", "bearoff2", "bearoff1", "race", "crashed", "contact")
# First float32 of a binary weights file (gnubg's WEIGHTS_MAGIC_BINARY; its byte order
# gives the file's), then the weights version as a float32.
BINARY_MAGIC = np.float32(472.3782)
_BINARY_HEADER = 6          # int32 inputs, hidden, outputs, trained; float32 two betas
TEXT_HEAD = "GNU Backgammon "
# The evaluation each weights format gets by default: its engine's.
FORMAT_EVALUATION = {"gnubg-nn": "gnubg-nn", "gnubg": "gnubg", "gnubg-binary": "gnubg",
                     "fastbg": "gnubg-nn"}


class WeightsError(ValueError):
    """A weights file that is not a GNU Backgammon networks file fastbg can evaluate."""


@dataclass(frozen=True)
class Weights:
    """Networks read from a weights file, as the kernels take them.

    ``arrays`` = (hidden weights f32 (3, inputs, hidden), hidden thresholds f32 (3, hidden),
    output weights f32 (3, 5, hidden), output thresholds f32 (3, 5), betas f32 (3, 2),
    inputs int64 (3,), hidden int64 (3,), input function int64 (3,)), nets in the order
    race, crashed, contact (a missing crashed net has 0 inputs: contact is used).
    ``format``: ``"gnubg-nn"`` (text, each net named), ``"gnubg"`` (GNU Backgammon's own
    text file) or ``"gnubg-binary"`` (its ``gnubg.wd``). ``arrays.mode`` is the format's
    evaluation (:data:`FORMAT_EVALUATION`); :meth:`arrays_for` gives the other's.
    ``prune``: the small pruning nets (:class:`fastbg.evaluators.prune_kernels.PruneNet`)
    when the file has all three, else None (the pruned look-ahead needs them).
    """
    path: str
    version: str
    arrays: tuple
    format: str = "gnubg-nn"
    prune: tuple = None
    _variants: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def evaluation(self):
        """The evaluation of this file's engine: ``"gnubg-nn"`` or ``"gnubg"``."""
        return FORMAT_EVALUATION[self.format]

    def arrays_for(self, evaluation):
        """The kernels' arrays with ``evaluation`` (``"gnubg-nn"`` or ``"gnubg"``): the same
        weights, one object per evaluation (the game kernels tell sets of nets apart by
        identity)."""
        mode = _k.EVALUATIONS[evaluation]
        if mode == self.arrays.mode:
            return self.arrays
        if mode not in self._variants:
            self._variants[mode] = self.arrays._replace(mode=np.int64(mode))
        return self._variants[mode]

    def __reduce__(self):
        # Pickled by value (Ray workers, processes), unpickled with its float arrays on
        # cache lines again: pickle puts them wherever numpy's allocator does.
        return (_realigned, (self.path, self.version, self.arrays, self.format, self.prune))


def _realigned(path, version, arrays, format, prune):
    """A :class:`Weights` whose float32 arrays start on cache lines (copies where not)."""
    def align(t):
        if t is None:
            return None
        out = []
        for a in t:
            if (isinstance(a, np.ndarray) and a.dtype == np.float32
                    and a.ctypes.data % CACHE_LINE):
                b = _zeros_aligned(a.shape, a.dtype)
                b[...] = a
                a = b
            out.append(a)
        return type(t)(*out)
    return Weights(path, version, align(arrays), format, align(prune))


def _package_data(name):
    """The ``data`` folder of installed package ``name`` (found without importing it), or None."""
    try:
        import importlib.util
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError, AttributeError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for root in spec.submodule_search_locations:
        if (Path(root) / "data").is_dir():
            return Path(root) / "data"
    return None


def default_weights_path():
    """The weights file named by ``FASTBG_GNUBG_WEIGHTS``, else the installed gnubg-nn's,
    else the installed GNU Backgammon's (package ``gnubg``, extra ``gnubg-app``), or None."""
    env = os.environ.get("FASTBG_GNUBG_WEIGHTS")
    if env:
        return Path(env)
    for package in ("gnubg_nn", "gnubg"):
        data = _package_data(package)
        if data is not None and (data / WEIGHTS_NAME).is_file():
            return data / WEIGHTS_NAME
    return None


def _resolve_path(path):
    if path is None:
        p = default_weights_path()
        if p is None:
            raise MissingWeights(INSTALL_HINT, "gnubg")
    else:
        p = Path(path)
        if p.is_dir():
            cands = [d / name for d in (p, p / "data") for name in (WEIGHTS_NAME, BINARY_NAME)]
            p = next((c for c in cands if c.is_file()), cands[0])
    if not p.is_file():
        raise FileNotFoundError(f"no weights file at {p}. {INSTALL_HINT}")
    return p


def load_weights(path=None):
    """Read a GNU Backgammon weights file (default: see :func:`default_weights_path`) into
    :class:`Weights`: gnubg-nn's text file, GNU Backgammon's own ``gnubg.weights`` or its
    binary ``gnubg.wd``, or fastbg's own weights file (:mod:`fastbg.evaluators.fastbg_weights`,
    the networks fastbg trains), told apart by their content. Raises FileNotFoundError with the
    install hint when there is none, :class:`WeightsError` (a ValueError naming the file)
    for a malformed one."""
    p = _resolve_path(path)
    data = p.read_bytes()
    order = _binary_order(data)
    if _fw.is_weights_file(data):
        version, nets = _read_fastbg(p, data)
        fmt = "fastbg"
    elif order is not None:
        version, nets = _read_binary(p, data, order)
        fmt = "gnubg-binary"
    else:
        version, nets, fmt = _read_text(p, data)
    main = [n for n in nets if not n[0].startswith("prune ")]
    prune = [(n[0][len("prune "):],) + n[1:] for n in nets if n[0].startswith("prune ")]
    return Weights(str(p), version, _assemble(p, main, _k.EVALUATIONS[FORMAT_EVALUATION[fmt]]),
                   fmt, _assemble_prune(p, prune))


def _read_fastbg(p, data):
    """(version, nets) of fastbg's own weights file, the nets as :func:`_read_text` lists them."""
    try:
        version, _meta, found = _fw.read_weights(data, str(p))
    except ValueError as exc:
        raise WeightsError(str(exc)) from exc
    nets = []
    for kind, (ifunc, w1, b1, w2, b2, beta) in found.items():
        n_in, n_hid = w1.shape
        where = f"{p}: net {kind!r}"
        _check_dims(where, n_in, n_hid, w2.shape[0], 0, float(beta[0]), float(beta[1]))
        vals = np.concatenate([w1.ravel(), w2.ravel(), b1.ravel(), b2.ravel()])
        nets.append((kind, ifunc, n_in, n_hid, w2.shape[0], float(beta[0]), float(beta[1]),
                     vals, where))
    return version, nets       # the pruning nets as "prune race" ... (load_weights splits them)


def _binary_order(data):
    """The byte order ('<' or '>') of a binary weights file, or None for any other file."""
    if len(data) < 4:
        return None
    for order in "<>":
        if np.frombuffer(data, order + "f4", 1)[0] == BINARY_MAGIC:
            return order
    return None


def _read_binary(p, data, order):
    """(version, nets) of binary weights: the magic, the version, then each net as a header
    of six 4-byte numbers and its float32 weights (gnubg's NeuralNetSaveBinary)."""
    if len(data) < 8:
        raise WeightsError(f"{p}: binary weights file cut short in its header")
    version = f"{float(np.frombuffer(data, order + 'f4', 1, 4)[0]):.2f}"
    nets = []
    pos = 8
    while pos < len(data):
        where = f"{p}: net {len(nets) + 1} at byte {pos}"
        if len(data) - pos < 4 * _BINARY_HEADER:
            raise WeightsError(f"{where}: cut short in its header")
        dims = np.frombuffer(data, order + "i4", 4, pos)
        betas = np.frombuffer(data, order + "f4", 2, pos + 16)
        n_in, n_hid, n_out, trained = (int(x) for x in dims)
        _check_dims(where, n_in, n_hid, n_out, trained, float(betas[0]), float(betas[1]))
        _check_gnubg_net(where, len(nets), n_in, n_out)
        pos += 4 * _BINARY_HEADER
        count = n_in * n_hid + n_hid * n_out + n_hid + n_out
        if len(data) - pos < 4 * count:
            raise WeightsError(f"{where}: cut short ({n_in} inputs, {n_hid} hidden, "
                               f"{n_out} outputs need {4 * count} bytes, "
                               f"{len(data) - pos} left)")
        vals = np.frombuffer(data, order + "f4", count, pos).astype(np.float32)
        pos += 4 * count
        nets.append((None, n_in, n_hid, n_out, float(betas[0]), float(betas[1]), vals, where))
    return version, _name_gnubg_nets(p, nets)


def _check_dims(where, n_in, n_hid, n_out, trained, beta_h, beta_o):
    """gnubg's own checks of a net's header (NeuralNetLoad)."""
    if n_in < 1 or n_hid < 1 or n_out < 1 or trained < 0:
        raise WeightsError(f"{where}: bad net header ({n_in} inputs, {n_hid} hidden, "
                           f"{n_out} outputs, {trained} trained)")
    if not (beta_h > 0 and beta_o > 0):
        raise WeightsError(f"{where}: non-positive betas ({beta_h}, {beta_o})")


def _check_gnubg_net(where, place, n_in, n_out):
    """GNU Backgammon's net number ``place`` (from 0) has the size its place says."""
    if place < len(_GNUBG_ORDER):
        kind, ifunc = _GNUBG_ORDER[place]
        need = _k.N_INPUTS[_k.INPUT_FUNCS[ifunc]]
        if n_in != need or n_out != _k.N_OUT:
            raise WeightsError(f"{where}: GNU Backgammon's net {place + 1} is its {kind!r} "
                               f"net ({need} inputs, 5 outputs); this one has {n_in} "
                               f"inputs, {n_out} outputs")


def _name_gnubg_nets(p, nets):
    """Names and input functions of GNU Backgammon's unnamed nets, by their place."""
    if len(nets) < len(_GNUBG_ORDER):
        raise WeightsError(f"{p}: holds {len(nets)} nets; GNU Backgammon's weights hold "
                           f"contact, race and crashed nets (then the pruning nets)")
    named = []
    for i, net in enumerate(nets):
        if i < len(_GNUBG_ORDER):
            kind, ifunc = _GNUBG_ORDER[i]
            named.append((kind, ifunc) + net[1:])
        elif i < len(_GNUBG_ORDER) + len(_GNUBG_PRUNE_ORDER):
            named.append(("prune " + _GNUBG_PRUNE_ORDER[i - len(_GNUBG_ORDER)], "base")
                         + net[1:])
    return named


def _read_text(p, data):
    """(version, nets, format) of a text weights file: gnubg-nn's (a line naming each net)
    or GNU Backgammon's (nets in a fixed order, unnamed)."""
    lines = data.decode("ascii", errors="replace").split("\n")
    head = lines[0].strip()
    if not head.startswith(TEXT_HEAD):
        raise WeightsError(f"{p}: not a GNU Backgammon weights file (first line {head[:40]!r})")
    version = head[len(TEXT_HEAD):].strip()
    nets = []
    i = 1
    n = len(lines)
    unnamed = None
    while i < n:
        name_line = lines[i].strip()
        if not name_line:
            i += 1
            continue
        first = name_line.split()[0]
        if unnamed is None:
            unnamed = first.lstrip("-").isdigit()
        if unnamed:
            name_line = f"net {len(nets) + 1}"
        else:
            i += 1
        words = name_line.split()
        prune = words[0] == "prune"
        if prune:
            words = words[1:]
        if not words:
            raise WeightsError(f"{p}:{i}: empty net name")
        if i >= n:
            raise WeightsError(f"{p}:{i}: net {name_line!r} has no header line")
        try:
            dims = lines[i].split()
            n_in, n_hid, n_out, trained = (int(x) for x in dims[:4])
            beta_h, beta_o = float(dims[4]), float(dims[5])
        except (ValueError, IndexError) as exc:
            raise WeightsError(f"{p}:{i + 1}: bad net header {lines[i]!r}") from exc
        where = f"{p}:{i + 1}: net {name_line!r}"
        _check_dims(where, n_in, n_hid, n_out, trained, beta_h, beta_o)
        if unnamed:
            _check_gnubg_net(where, len(nets), n_in, n_out)
        i += 1
        count = n_in * n_hid + n_hid * n_out + n_hid + n_out
        if i + count > n:
            raise WeightsError(f"{p}: net {name_line!r} is cut short")
        try:
            vals = np.array(lines[i:i + count], dtype=np.float64).astype(np.float32)
        except ValueError as exc:
            raise WeightsError(f"{p}: net {name_line!r} holds a value that is not a number") from exc
        i += count
        if unnamed:
            nets.append((None, n_in, n_hid, n_out, beta_h, beta_o, vals, where))
            continue
        kind = words[0]
        if kind not in _NET_INDEX:
            continue                 # nets fastbg's evaluations do not use
        if prune:
            nets.append(("prune " + kind, "base", n_in, n_hid, n_out, beta_h, beta_o, vals,
                         where))
            continue
        ifunc = words[1] if len(words) > 1 else _DEFAULT_INPUTS[kind]
        nets.append((kind, ifunc, n_in, n_hid, n_out, beta_h, beta_o, vals, where))
    if unnamed:
        return version, _name_gnubg_nets(p, nets), "gnubg"
    return version, nets, "gnubg-nn"


CACHE_LINE = 64


HUGE_PAGE = 1 << 21


def _zeros_aligned(shape, dtype):
    """np.zeros(shape, dtype) whose data starts on a 64-byte cache line. The hidden layer
    loads each weight row as 64-byte vectors, and numpy put the weights 32 bytes into a
    line in 5 of 6 processes (16 or 0 in the others), every load then spanning two lines.
    evaluate_rows with aligned weights, against the same code with the weights 32 / 16
    bytes into a line: 1.05-1.07x / 1.11-1.14x (contact positions and move candidates,
    one thread, in the same process).

    Arrays of a megabyte or more (the input weights with their product rows,
    :func:`fastbg.evaluators.add_row_kernels.extended_weights`, 3.2 MB, 1.8 MB without
    AVX-512) start on a 2 MB boundary of their own mapping, advised as a transparent huge
    page where the system allows it: the hidden layer reads ~50 rows of 512 bytes a
    position from anywhere in them, and on 4 KB pages that is a TLB miss for most
    (contact positions 0.538 -> 0.517 us, medians of 5 processes in turn, one thread)."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape))
    size = n * dtype.itemsize
    if size >= HUGE_PAGE // 2 and hasattr(mmap, "MADV_HUGEPAGE"):
        pages = -(-size // HUGE_PAGE) * HUGE_PAGE        # whole huge pages, plus one to align
        buf = mmap.mmap(-1, pages + HUGE_PAGE)
        arr = np.frombuffer(buf, np.uint8)
        off = -arr.ctypes.data % HUGE_PAGE
        try:
            buf.madvise(mmap.MADV_HUGEPAGE, off, pages)
        except OSError:
            pass
        return arr[off:off + size].view(dtype).reshape(shape)
    buf = np.zeros(size + CACHE_LINE, np.uint8)
    off = -buf.ctypes.data % CACHE_LINE
    return buf[off:off + size].view(dtype).reshape(shape)


def _layer_arrays(n_inputs, hidden):
    """(w1, b1, w2, b2, beta) of three nets of ``n_inputs`` inputs and ``hidden`` hidden
    units, zeros (betas ones), the weights on cache lines: filled net by net."""
    return (_zeros_aligned((_k.N_NETS, n_inputs, hidden), np.float32),
            _zeros_aligned((_k.N_NETS, hidden), np.float32),
            _zeros_aligned((_k.N_NETS, _k.N_OUT, hidden), np.float32),
            np.zeros((_k.N_NETS, _k.N_OUT), np.float32), np.ones((_k.N_NETS, 2), np.float32))


def _assemble(p, nets, mode):
    """The kernels' arrays (:class:`fastbg.evaluators.net_tables.Net`) of the named nets
    ``(kind, input function, inputs, hidden, outputs, beta hidden, beta output, values,
    where)``, each checked against what its input function needs, with evaluation
    ``mode`` (EVAL_*)."""
    found = {}
    for kind, ifunc, n_in, n_hid, n_out, beta_h, beta_o, vals, where in nets:
        if ifunc not in _k.INPUT_FUNCS:
            raise WeightsError(f"{p}: net {kind!r} uses input function {ifunc!r}; fastbg "
                               f"implements {', '.join(sorted(_k.INPUT_FUNCS))}")
        code = _k.INPUT_FUNCS[ifunc]
        if n_in != _k.N_INPUTS[code] or n_out != _k.N_OUT:
            raise WeightsError(f"{p}: net {kind!r} has {n_in} inputs, {n_hid} hidden, {n_out} "
                               f"outputs; input function {ifunc!r} needs {_k.N_INPUTS[code]} "
                               f"inputs and 5 outputs")
        a = n_in * n_hid
        b = a + n_hid * n_out
        found[kind] = (vals[:a].reshape(n_in, n_hid), vals[a:b].reshape(n_out, n_hid),
                       vals[b:b + n_hid], vals[b + n_hid:], beta_h, beta_o, code)
    for need in ("race", "contact"):
        if need not in found:
            raise WeightsError(f"{p}: no {need!r} net")
    hid = max(v[0].shape[1] for v in found.values())
    if hid > 256:
        raise WeightsError(f"{p}: nets with more than 256 hidden units are not supported")
    w1, b1, w2, b2, beta = _layer_arrays(_k.WEIGHT_ROWS, hid)
    n_in = np.zeros(_k.N_NETS, np.int64)
    n_hid = np.zeros(_k.N_NETS, np.int64)
    ifunc = np.zeros(_k.N_NETS, np.int64)
    for kind, (h, o, th, to, bh, bo, code) in found.items():
        k = _NET_INDEX[kind]
        w1[k, :, :h.shape[1]] = extended_weights(h, code == _k.IF_RACE,
                                                 code == _k.IF_CONTACT250)
        w2[k, :, :h.shape[1]] = o
        b1[k, :h.shape[1]] = th
        b2[k] = to
        beta[k] = (bh, bo)
        n_in[k] = h.shape[0]
        n_hid[k] = h.shape[1]
        ifunc[k] = code
    return _k.Net(w1, b1, w2, b2, beta, n_in, n_hid, ifunc, np.int64(mode),
                  _k.plain_marker(w1, n_in, n_hid))


def _assemble_prune(p, nets):
    """The pruning nets' arrays (:class:`fastbg.evaluators.prune_kernels.PruneNet`) of
    ``(kind, "base", inputs, hidden, outputs, betas, values, where)``, or None unless
    the race, crashed and contact pruning nets are all there."""
    found = {}
    for kind, _, n_in, n_hid, n_out, beta_h, beta_o, vals, where in nets:
        if n_in != _pk.PRUNE_INPUTS or n_out != _k.N_OUT or n_hid > _pk.MAX_PRUNE_HIDDEN:
            raise WeightsError(f"{where}: a pruning net has {_pk.PRUNE_INPUTS} inputs, at "
                               f"most {_pk.MAX_PRUNE_HIDDEN} hidden units and 5 outputs; "
                               f"this one {n_in}, {n_hid}, {n_out}")
        found[kind] = (n_in, n_hid, vals, beta_h, beta_o)
    if set(found) != set(_NET_INDEX):
        return None
    hid = _pk.MAX_PRUNE_HIDDEN
    w1, b1, w2, b2, beta = _layer_arrays(_pk.PRUNE_INPUTS, hid)
    n_hid = np.zeros(_k.N_NETS, np.int64)
    for kind, (n_in, nh, vals, beta_h, beta_o) in found.items():
        k = _NET_INDEX[kind]
        a = n_in * nh
        b = a + nh * _k.N_OUT
        w1[k, :, :nh] = vals[:a].reshape(n_in, nh)
        w2[k, :, :nh] = vals[a:b].reshape(_k.N_OUT, nh)
        b1[k, :nh] = vals[b:b + nh]
        b2[k] = vals[b + nh:b + nh + _k.N_OUT]
        beta[k] = (beta_h, beta_o)
        n_hid[k] = nh
    enc, ones = _pk.encoding_sums(w1)
    enc_aligned = _zeros_aligned(enc.shape, enc.dtype)   # rows of 16 hidden sums: 64 bytes
    enc_aligned[...] = enc
    return _pk.PruneNet(w1, b1, w2, b2, beta, n_hid, enc_aligned, ones)


class GnubgNet:
    """GNU Backgammon's 0-ply evaluator: ``net(boards)`` is :meth:`probabilities`.

    Boards are interchange boards (26,) or (n, 26), player on roll. ``threads`` defaults
    to every numba thread. ``evaluation``: ``"gnubg-nn"`` (gnubg-nn's evaluation) or
    ``"gnubg"`` (GNU Backgammon 1.x's), default the weights file's own
    (:attr:`Weights.evaluation`). Usable wherever fastbg takes a probability evaluator
    (rollout truncation and variance reduction), as a bot (:meth:`bot`, or ``"gnubg"`` by
    name) and as a cube strategy (:meth:`cube`).
    """

    name = "gnubg"

    def __init__(self, weights, threads=None, evaluation=None):
        if threads is not None:
            resolve_threads(threads)
        self.weights = weights
        self.threads = threads
        self.evaluation = check_evaluation(evaluation) or weights.evaluation
        self.arrays = weights.arrays_for(self.evaluation)
        self.bearoff = _bearoff.tables()
        self._probs_kernel = None
        # gnubg's nets are 128 wide: the vector kernel; other widths: the plain one. (A
        # flag, not the kernel: a dispatcher held by an object pickles by value, and one
        # rebuilt in a cluster worker compiles everything again instead of loading it.)
        self._fast = _k.all_fast(self.arrays)

    def __setstate__(self, state):
        self.__dict__.update(state)
        # the unpickled weights' (realigned) arrays, in this net's evaluation
        self.arrays = self.weights.arrays_for(self.evaluation)

    def __repr__(self):
        return (f"GnubgNet({self.weights.path!r}, version {self.weights.version!r}, "
                f"evaluation {self.evaluation!r})")

    def _run(self, boards):
        b = validate(boards)
        rows = np.ascontiguousarray(b.reshape(-1, BOARD_SIZE))
        return (b,) + self.evaluate_rows(rows)

    def evaluate_rows(self, rows, swapped=False, threads=None, out=None):
        """(probabilities (m, 5) float64, classes (m,) int8) of valid C-contiguous int8
        boards ``rows`` (m, 26), unchecked (the callers inside fastbg have checked them):
        for the side on roll, or with ``swapped`` for the other side. ``threads`` (default
        the net's) run the networks' one kernel
        (:func:`fastbg.evaluators.net_kernels.evaluate_rows`). ``out``: None, or the two
        arrays to fill and return (C-contiguous, of those shapes and types)."""
        m = rows.shape[0]
        if out is None:
            probs = np.empty((m, _k.N_OUT), np.float64)
            classes = np.empty(m, np.int8)
        else:
            probs, classes = out
        if m:
            flag = np.bool_(swapped)
            kernel = _k.evaluate_rows if self._fast else _k.evaluate_rows_plain
            run_spans(lambda lo, hi: kernel(rows, lo, hi, flag, self.arrays, self.bearoff,
                                            _thread_scratch(), probs, classes),
                      m, resolve_threads(self.threads if threads is None else threads))
        return probs, classes

    def prune_rows(self, rows, swapped=False, threads=None):
        """(probabilities (m, 5) float64, classes (m,) int8) of valid C-contiguous int8
        boards ``rows`` (m, 26), unchecked, by the pruning nets
        (:func:`fastbg.evaluators.prune_kernels.prune_rows`: rows of a class below race
        keep probabilities 0). ValueError when the weights have no pruning nets."""
        pnet = self.weights.prune
        if pnet is None:
            raise ValueError(f"the weights {self.weights.path} have no pruning nets (prune "
                             f"race, crashed and contact): the pruned look-ahead needs them")
        m = rows.shape[0]
        probs = np.zeros((m, _k.N_OUT), np.float64)
        classes = np.empty(m, np.int8)
        if m:
            flag = np.bool_(swapped)
            run_spans(lambda lo, hi: _pk.prune_rows(rows, lo, hi, flag, pnet, self.bearoff,
                                                    _thread_scratch(), probs, classes),
                      m, resolve_threads(self.threads if threads is None else threads))
        return probs, classes

    def probabilities(self, boards, ply=0):
        """(n, 5) float64 (or (5,) for one board): win, win gammon, win backgammon, lose
        gammon, lose backgammon for the player on roll (gammons include backgammons).

        ``ply`` 0..3: GNU Backgammon's n-ply look-ahead (docs/engine.md section 1), equal to
        ``gnubg_nn.probabilities(board, ply)``; 0 is the network itself (with evaluation
        ``"gnubg"``, ``gnubg.evaluate`` at 0 plies)."""
        if check_ply(ply):
            return nply_probabilities(self, boards, ply, self.threads)
        b, probs, _ = self._run(boards)
        return probs[0] if b.ndim == 1 else probs

    __call__ = probabilities

    def probabilities_and_classes(self, boards):
        """(probabilities (n, 5) float64, classes (n,) int8) of a batch (n, 26), in one
        pass of the network's batch kernel (what the n-ply search builds on)."""
        _, probs, classes = self._run(boards)
        return probs, classes

    def classes(self, boards):
        """gnubg's position class of each board: 0 over, 1 two-sided bear-off, 2 one-sided
        bear-off, 3 race, 4 crashed, 5 contact (names in :data:`CLASS_NAMES`)."""
        b, _, classes = self._run(boards)
        return int(classes[0]) if b.ndim == 1 else classes.astype(np.int64)

    def equity(self, boards, ply=0):
        """Cubeless money equity of the player on roll at ``ply``: 2 win - 1 + wg - lg +
        wbg - lbg."""
        return equity_of(self.probabilities(boards, ply))

    def scores(self, results):
        """0-ply scores of candidate results (m, 26), each seen from the player who moved:
        his cubeless money equity with the opponent on roll, in gnubg's float32 (what
        ``gnubg_nn.best_move(..., n=0)`` ranks moves by; the bot plays the first best)."""
        b = validate(results)
        if b.ndim != 2:
            raise ValueError(f"scores takes a batch of shape (m, {BOARD_SIZE}); got {b.shape}")
        return self.scores_rows(np.ascontiguousarray(b))

    def scores_rows(self, rows):
        """:meth:`scores` of valid C-contiguous int8 results (m, 26), unchecked (for
        fastbg's own callers: the results of its move generator)."""
        return mover_scores(self.evaluate_rows(rows, swapped=True)[0])

    def bot(self):
        """This net as a bot for :func:`fastbg.play` (0-ply, best cubeless equity)."""
        return GnubgBot(self)

    def probs_kernel(self):
        """This net as a numba ``probs(board, out)`` plug-in (the signature of
        :class:`fastbg.JanowskiCube` and the evaluators' kernels): out float64[5] gets the
        probabilities of the player on roll of board int8[26].

        The weights and bear-off tables are compiled in as constants (about 7 MB; a few
        seconds to compile, once per net and process; plug-ins are not cached on disk).
        """
        if self._probs_kernel is None:
            self._probs_kernel = _make_probs_kernel(self.arrays, self.bearoff)
        return self._probs_kernel

    def cube(self, x=0.68, ply=0):
        """A :class:`fastbg.JanowskiCube` cube strategy on this net's cubeless
        probabilities at ``ply``, with cube efficiency ``x`` (gnubg uses about 0.68 in
        contact).

        At 0-ply the game kernels evaluate the net with their own network code, cached on
        disk like the gnubg bot's (lock-step runs use :meth:`probs_kernel`). At ply >= 1
        the n-ply search runs on each batch of positions where a double may come, between
        the rounds of games played in lock-step (:class:`NplyProbs`): the cube of the n-ply
        bots ("gnubg-1ply" ...)."""
        from fastbg.cube.strategies import JanowskiCube
        if check_ply(ply) == 0:
            return JanowskiCube(self, x=x, name="gnubg-janowski")
        return JanowskiCube(NplyProbs(self, ply), x=x, name=f"gnubg-{ply}ply-janowski")


def _thread_scratch():
    """This thread's scratch of the networks' batch kernel (made on its first call)."""
    return thread_scratch("net_scratch", _k.scratch)


def _make_probs_kernel(arrays, bearoff):
    """An njit ``probs(board, out)`` closed over one net (its arrays become constants;
    the bear-off tables in their narrowest integer types to keep them small)."""
    from numba import njit
    binom, one, two, gam, rbg, ok, gdist = bearoff
    tabs = _k.Bearoff(binom, one.astype(np.uint16), two, gam.astype(np.int32), rbg, ok,
                      gdist.astype(np.uint16))
    net = arrays
    evaluate = _k.evaluate_board
    new_scratch = _k.new_scratch

    @njit
    def probs(board, out):
        scr = new_scratch()
        evaluate(board, net, tabs, scr, out)

    return probs


@dataclass(frozen=True, eq=False)
class NplyProbs:
    """GNU Backgammon's n-ply cubeless probabilities of ``net`` as a batch evaluator (the
    probabilities of a JanowskiCube of ``GnubgNet.cube(ply=ply)``)."""
    net: GnubgNet
    ply: int
    # fastbg's lock-step games may call it on several threads at once
    # (fastbg.sim.games._side_by_side)
    runs_side_by_side = True

    def batch_probabilities(self, boards):
        """(m, 5) probabilities at ``ply`` of boards (m, 26), player on roll."""
        return self.net.probabilities(boards, ply=self.ply)


@dataclass(frozen=True, eq=False)
class GnubgBot:
    """A bot that plays GNU Backgammon's 0-ply cubeless choice with ``net`` inside the game
    kernel (``"gnubg"`` by name uses the installed networks)."""
    net: GnubgNet
    name: str = "gnubg"


_DEFAULT = {}


def check_evaluation(evaluation):
    """``evaluation`` checked: None, ``"gnubg-nn"`` or ``"gnubg"``; else a ValueError."""
    if evaluation is None or (isinstance(evaluation, str) and evaluation in _k.EVALUATIONS):
        return evaluation
    raise ValueError(f"evaluation must be 'gnubg' (GNU Backgammon 1.x's evaluation) or "
                     f"'gnubg-nn' (gnubg-nn's), or None for the weights file's own; "
                     f"got {evaluation!r}")


def gnubg_net(path=None, threads=None, evaluation=None):
    """GNU Backgammon's networks as a :class:`GnubgNet`.

    ``path``: a weights file (gnubg-nn's or GNU Backgammon's ``gnubg.weights``, or its
    binary ``gnubg.wd``), or a folder holding ``gnubg.weights`` or ``gnubg.wd``; default
    :func:`default_weights_path`. Raises FileNotFoundError saying how to get them when
    there are none, :class:`WeightsError` (a ValueError) for a damaged file. Nets read
    from the same file are shared between calls (read again once the file changes).

    ``evaluation``: the code around the networks (docs/engine.md section 6).
    ``"gnubg-nn"``: gnubg-nn's, equal to ``gnubg_nn.probabilities``; ``"gnubg"``: GNU
    Backgammon 1.x's, equal to ``gnubg.evaluate`` (its race sanity rules, one-sided
    bear-offs from the win and gammon distributions). Default: the weights file's engine's
    (gnubg-nn's file: ``"gnubg-nn"``; GNU Backgammon's ``gnubg.weights`` or ``gnubg.wd``:
    ``"gnubg"``). Anything else raises a ValueError.

    >>> import fastbg
    >>> net = fastbg.gnubg_net()                                   # doctest: +SKIP
    >>> net(fastbg.START).round(3)                                 # doctest: +SKIP
    array([0.521, 0.154, 0.008, 0.13 , 0.007])
    """
    check_evaluation(evaluation)
    p = str(_resolve_path(path).resolve())
    st = os.stat(p)
    key = (p, st.st_mtime_ns, st.st_size)       # a file rewritten (a net in training) is read again
    w = _DEFAULT.get(key)
    if w is None:
        w = _DEFAULT[key] = load_weights(p)
    return GnubgNet(w, threads=threads, evaluation=evaluation)
