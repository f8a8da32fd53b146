"""GNU Backgammon's neural networks evaluated in fastbg's own numba kernels.

:func:`gnubg_net` loads the networks of GNU Backgammon (the gnubg-nn weights, GPL) and
returns a :class:`GnubgNet`: 0-ply cubeless probabilities for the player on roll, equal to
``gnubg_nn.probabilities(board, 0)`` (the same classes, inputs, float32 arithmetic and
bear-off tables; see :mod:`fastbg.evaluators.net_kernels`), batched over boards and threads.

fastbg does not ship the weights. They come from an installed ``gnubg-nn`` package
(``pip install 'fastbg[gnubg]'``) or from a GNU Backgammon weights file you name
(``gnubg_net(path)``, a ``gnubg.weights`` text file or a folder holding one). The
bear-off tables are computed by fastbg itself (:mod:`fastbg.evaluators.bearoff`) and need nothing.

Weights format (gnubg-nn's ``LoadNet`` / ``NeuralNetLoad``): a first line
``GNU Backgammon <version>``, then for each net a line naming it (``race``, ``crashed``,
``contact``, optionally followed by the name of its input function, or ``prune <name>``
for the small pruning nets, which 0-ply evaluation does not use), a line
``inputs hidden outputs trained beta_hidden beta_output`` and the weights one per line:
hidden weights input by input (``inputs x hidden``), output weights output by output
(``outputs x hidden``), hidden thresholds, output thresholds.
"""
import os
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from fastbg.evaluators import bearoff as _bearoff
from fastbg.evaluators import net_kernels as _k
from fastbg.evaluators.search import check_ply, mover_scores, nply_probabilities
from fastbg.cube.formulas import equity_of
from fastbg.position.board import validate
from fastbg.constants import BOARD_SIZE
from fastbg.parallel import resolve_threads, run_spans

INSTALL_HINT = ("GNU Backgammon's network weights were not found: install them with "
                "pip install 'fastbg[gnubg]' (package gnubg-nn), or pass the path of a "
                "gnubg.weights file: fastbg.gnubg_net(path='.../gnubg.weights')")

WEIGHTS_NAME = "gnubg.weights"
# Default input function of each net when its line names none (gnubg-nn's evalNetsGen).
_DEFAULT_INPUTS = {"race": "race", "crashed": "std250", "contact": "std250"}
_NET_INDEX = {"race": _k.NET_RACE, "crashed": _k.NET_CRASHED, "contact": _k.NET_CONTACT}
CLASS_NAMES = ("over", "bearoff2", "bearoff1", "race", "crashed", "contact")



class WeightsError(ValueError):
    """A weights file that is not a GNU Backgammon networks file fastbg can evaluate."""


@dataclass(frozen=True)
class Weights:
    """Networks read from a weights file, as the kernels take them.

    ``arrays`` = (hidden weights f32 (3, inputs, hidden), hidden thresholds f32 (3, hidden),
    output weights f32 (3, 5, hidden), output thresholds f32 (3, 5), betas f32 (3, 2),
    inputs int64 (3,), hidden int64 (3,), input function int64 (3,)), nets in the order
    race, crashed, contact (a missing crashed net has 0 inputs: contact is used).
    """
    path: str
    version: str
    arrays: tuple


def default_weights_path():
    """The weights file of the installed gnubg-nn package, or None."""
    env = os.environ.get("FASTBG_GNUBG_WEIGHTS")
    if env:
        return Path(env)
    try:
        import importlib.util
        spec = importlib.util.find_spec("gnubg_nn")
    except (ImportError, ValueError, AttributeError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for root in spec.submodule_search_locations:
        p = Path(root) / "data" / WEIGHTS_NAME
        if p.is_file():
            return p
    return None


def _resolve_path(path):
    if path is None:
        p = default_weights_path()
        if p is None:
            raise FileNotFoundError(INSTALL_HINT)
    else:
        p = Path(path)
        if p.is_dir():
            cands = [p / WEIGHTS_NAME, p / "data" / WEIGHTS_NAME]
            p = next((c for c in cands if c.is_file()), cands[0])
    if not p.is_file():
        raise FileNotFoundError(f"no weights file at {p}. {INSTALL_HINT}")
    return p


def load_weights(path=None):
    """Read a GNU Backgammon weights file (default: the installed gnubg-nn's) into
    :class:`Weights`. Raises FileNotFoundError with the install hint when there is none,
    :class:`WeightsError` for a malformed file."""
    p = _resolve_path(path)
    lines = p.read_text(encoding="ascii", errors="replace").split("\n")
    head = lines[0].strip()
    if not head.startswith("GNU Backgammon "):
        raise WeightsError(f"{p}: not a GNU Backgammon weights file (first line {head[:40]!r})")
    version = head[len("GNU Backgammon "):].strip()
    nets = {}
    i = 1
    n = len(lines)
    while i < n:
        name_line = lines[i].strip()
        i += 1
        if not name_line:
            continue
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
            n_in, n_hid, n_out = (int(x) for x in dims[:3])
            beta_h, beta_o = float(dims[4]), float(dims[5])
        except (ValueError, IndexError) as exc:
            raise WeightsError(f"{p}:{i + 1}: bad net header {lines[i]!r}") from exc
        i += 1
        count = n_in * n_hid + n_hid * n_out + n_hid + n_out
        if i + count > n:
            raise WeightsError(f"{p}: net {name_line!r} is cut short")
        try:
            vals = np.array(lines[i:i + count], dtype=np.float64).astype(np.float32)
        except ValueError as exc:
            raise WeightsError(f"{p}: net {name_line!r} holds a value that is not a number") from exc
        i += count
        kind = words[0]
        if prune or kind not in _NET_INDEX:
            continue                 # pruning nets and nets 0-ply evaluation does not use
        ifunc = words[1] if len(words) > 1 else _DEFAULT_INPUTS[kind]
        if ifunc not in _k.INPUT_FUNCS:
            raise WeightsError(f"{p}: net {kind!r} uses input function {ifunc!r}; fastbg "
                               f"implements {', '.join(sorted(_k.INPUT_FUNCS))}")
        code = _k.INPUT_FUNCS[ifunc]
        if n_in != _k.N_INPUTS[code] or n_out != _k.N_OUT or n_hid < 1:
            raise WeightsError(f"{p}: net {kind!r} has {n_in} inputs, {n_hid} hidden, {n_out} "
                               f"outputs; input function {ifunc!r} needs {_k.N_INPUTS[code]} "
                               f"inputs and 5 outputs")
        if not (beta_h > 0 and beta_o > 0):
            raise WeightsError(f"{p}: net {kind!r} has non-positive betas")
        a = n_in * n_hid
        b = a + n_hid * n_out
        nets[kind] = (vals[:a].reshape(n_in, n_hid), vals[a:b].reshape(n_out, n_hid),
                      vals[b:b + n_hid], vals[b + n_hid:], beta_h, beta_o, code)
    for need in ("race", "contact"):
        if need not in nets:
            raise WeightsError(f"{p}: no {need!r} net")
    hid = max(v[0].shape[1] for v in nets.values())
    if hid > 256:
        raise WeightsError(f"{p}: nets with more than 256 hidden units are not supported")
    w1 = np.zeros((_k.N_NETS, _k.MAX_INPUTS, hid), np.float32)
    b1 = np.zeros((_k.N_NETS, hid), np.float32)
    w2 = np.zeros((_k.N_NETS, _k.N_OUT, hid), np.float32)
    b2 = np.zeros((_k.N_NETS, _k.N_OUT), np.float32)
    beta = np.ones((_k.N_NETS, 2), np.float32)
    n_in = np.zeros(_k.N_NETS, np.int64)
    n_hid = np.zeros(_k.N_NETS, np.int64)
    ifunc = np.zeros(_k.N_NETS, np.int64)
    for kind, (h, o, th, to, bh, bo, code) in nets.items():
        k = _NET_INDEX[kind]
        w1[k, :h.shape[0], :h.shape[1]] = h
        w2[k, :, :h.shape[1]] = o
        b1[k, :h.shape[1]] = th
        b2[k] = to
        beta[k] = (bh, bo)
        n_in[k] = h.shape[0]
        n_hid[k] = h.shape[1]
        ifunc[k] = code
    return Weights(str(p), version, _k.Net(w1, b1, w2, b2, beta, n_in, n_hid, ifunc))


class GnubgNet:
    """GNU Backgammon's 0-ply evaluator: ``net(boards)`` is :meth:`probabilities`.

    Boards are interchange boards (26,) or (n, 26), player on roll. ``threads`` defaults
    to every numba thread. Usable wherever fastbg takes a probability evaluator (rollout
    truncation and variance reduction), as a bot (:meth:`bot`, or ``"gnubg"`` by name) and
    as a cube strategy (:meth:`cube`).
    """

    name = "gnubg"

    def __init__(self, weights, threads=None):
        if threads is not None:
            resolve_threads(threads)
        self.weights = weights
        self.threads = threads
        self.arrays = weights.arrays
        self.bearoff = _bearoff.tables()
        self._probs_kernel = None
        # gnubg's nets are 128 wide: the vector kernel; other widths: the plain one. (A
        # flag, not the kernel: a dispatcher held by an object pickles by value, and one
        # rebuilt in a cluster worker compiles everything again instead of loading it.)
        self._fast = _k.all_fast(self.arrays)

    def __repr__(self):
        return f"GnubgNet({self.weights.path!r}, version {self.weights.version!r})"

    def _run(self, boards):
        b = validate(boards)
        rows = np.ascontiguousarray(b.reshape(-1, BOARD_SIZE))
        return (b,) + self.evaluate_rows(rows)

    def evaluate_rows(self, rows, swapped=False):
        """(probabilities (m, 5) float64, classes (m,) int8) of valid C-contiguous int8
        boards ``rows`` (m, 26), unchecked (the callers inside fastbg have checked them):
        for the side on roll, or with ``swapped`` for the other side. All threads run the
        networks' one kernel (:func:`fastbg.evaluators.net_kernels.evaluate_rows`)."""
        m = rows.shape[0]
        probs = np.empty((m, _k.N_OUT), np.float64)
        classes = np.empty(m, np.int8)
        if m:
            flag = np.bool_(swapped)
            kernel = _k.evaluate_rows if self._fast else _k.evaluate_rows_plain
            run_spans(lambda lo, hi: kernel(rows, lo, hi, flag, self.arrays, self.bearoff,
                                            _thread_scratch(), probs, classes),
                      m, resolve_threads(self.threads))
        return probs, classes

    def probabilities(self, boards, ply=0):
        """(n, 5) float64 (or (5,) for one board): win, win gammon, win backgammon, lose
        gammon, lose backgammon for the player on roll (gammons include backgammons).

        ``ply`` 0..3: GNU Backgammon's n-ply look-ahead (docs/engine.md section 1), equal to
        ``gnubg_nn.probabilities(board, ply)``; 0 is the network itself."""
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

    def cube(self, x=0.68):
        """A :class:`fastbg.JanowskiCube` cube strategy on this net's cubeless
        probabilities, with cube efficiency ``x`` (gnubg uses about 0.68 in contact).

        The game kernels evaluate the net with their own network code, cached on disk
        like the gnubg bot's; lock-step runs use :meth:`probs_kernel`."""
        from fastbg.cube.strategies import JanowskiCube
        return JanowskiCube(self, x=x, name="gnubg-janowski")


_LOCAL = threading.local()


def _thread_scratch():
    """This thread's scratch of the networks' batch kernel (made on its first call)."""
    scr = getattr(_LOCAL, "scratch", None)
    if scr is None:
        scr = _LOCAL.scratch = _k.scratch()
    return scr


def _make_probs_kernel(arrays, bearoff):
    """An njit ``probs(board, out)`` closed over one net (its arrays become constants;
    the bear-off tables in their narrowest integer types to keep them small)."""
    from numba import njit
    binom, one, two, gam, rbg, ok = bearoff
    tabs = _k.Bearoff(binom, one.astype(np.uint16), two, gam.astype(np.int32), rbg, ok)
    net = arrays
    evaluate = _k.evaluate_board
    new_scratch = _k.new_scratch

    @njit
    def probs(board, out):
        scr = new_scratch()
        evaluate(board, net, tabs, scr, out)

    return probs


@dataclass(frozen=True, eq=False)
class GnubgBot:
    """A bot that plays GNU Backgammon's 0-ply cubeless choice with ``net`` inside the game
    kernel (``"gnubg"`` by name uses the installed networks)."""
    net: GnubgNet
    name: str = "gnubg"


_DEFAULT = {}


def gnubg_net(path=None, threads=None):
    """GNU Backgammon's networks as a :class:`GnubgNet`.

    ``path``: a gnubg weights file (or a folder holding ``gnubg.weights``); default the
    installed gnubg-nn's. Raises FileNotFoundError saying how to get them when there are
    none. Nets read from the same file are shared between calls.

    >>> import fastbg
    >>> net = fastbg.gnubg_net()                                   # doctest: +SKIP
    >>> net(fastbg.START).round(3)                                 # doctest: +SKIP
    array([0.521, 0.154, 0.008, 0.13 , 0.007])
    """
    p = str(_resolve_path(path).resolve())
    w = _DEFAULT.get(p)
    if w is None:
        w = _DEFAULT[p] = load_weights(p)
    return GnubgNet(w, threads=threads)
