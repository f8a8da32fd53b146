"""Benchmark sets on disk: move decisions with their candidates' equities, and positions
with their rollout probabilities.

:func:`read_benchmark` reads three formats, told apart by their content (a gzip file is
read through gzip), and checks every line, raising :class:`BenchmarkFileError` that starts
``path:line:`` for the first bad one:

* ``"jsonl"`` (fastbg's own, written by :func:`write_decisions` and :func:`write_positions`):
  one JSON object a line, a decision ``{"position", "dice", "candidates": [{"position",
  "equity", "se"}, ...], ...}`` or a position ``{"position", "probs", "se", ...}``, both
  kinds possibly in one file; every other key of a line is kept in ``extra``.
* ``"gnubg-bm"`` (GNU Backgammon's benchmark files): ``m <key> <d1> <d2> <best> [<key>
  <loss>]...`` is a move decision whose best result has equity 0 and each other result
  equity ``-loss``; ``o <key> <p1> .. <p5>`` a position with its probabilities; every other
  line ('s', 'r', comments) is skipped. Results are keyed with the opponent on roll.
* ``"gnubg-train"`` (GNU Backgammon's training data): ``<key> <p1> .. <p5>`` a line.

Keys are GNU Backgammon's 20-letter position keys (:mod:`fastbg.benchmarks.gnubg_keys`);
everything read is stored as Position IDs. Positions are seen by the player on roll, a
candidate by the player who moved (as :func:`fastbg.legal_moves` returns it); equities are
that player's cubeless money equities and probabilities are win, win gammon, win
backgammon, lose gammon, lose backgammon of the player on roll (gammons count backgammons).
"""
import gzip
import json
import math
import os
import tempfile
from dataclasses import dataclass, field

from fastbg.benchmarks.gnubg_keys import (KEY_LENGTH, board_from_gnubg_key,
                                          result_board_from_key)
from fastbg.constants import DIE_MAX, DIE_MIN
from fastbg.position.ids import board_from_position_id, position_id_checked
from fastbg.position.moves import legal_moves

FORMATS = ("jsonl", "gnubg-bm", "gnubg-train")
N_PROBS = 5
_GZIP_MAGIC = b"\x1f\x8b"
# Probabilities are printed rounded (GNU Backgammon's files keep 4 to 6 decimals), so the
# order checks between them (gammons within wins, ...) allow this much.
_ROUNDING = 1e-4
_DECISION_KEYS = ("position", "dice", "candidates")
_CANDIDATE_KEYS = ("position", "equity", "se")
_POSITION_KEYS = ("position", "probs", "se")


class BenchmarkFileError(ValueError):
    """A line of a benchmark file (or an entry in memory) that is not what it should be;
    the message starts with ``path:line:``."""


@dataclass
class MoveCandidate:
    """One candidate of a decision: ``position`` the Position ID of the result seen by the
    player who moved, ``equity`` that player's cubeless money equity, ``se`` its standard
    error (None when unknown)."""
    position: str
    equity: float
    se: float | None = None

    def to_dict(self):
        return {"position": self.position, "equity": self.equity, "se": self.se}


@dataclass
class Decision:
    """A move decision: ``position`` (Position ID, player on roll) with ``dice`` ``(d1,
    d2)`` and its ``candidates`` (:class:`MoveCandidate`, distinct legal results). ``extra``
    holds the line's other keys ("class", "source", ...); ``line`` is its line in the file
    (0 when made in memory) and takes no part in ``==``."""
    position: str
    dice: tuple
    candidates: list
    extra: dict = field(default_factory=dict)
    line: int = field(default=0, compare=False)

    def to_dict(self):
        """The JSON object of this decision: position, dice, candidates, then ``extra``."""
        return {"position": self.position, "dice": list(self.dice),
                "candidates": [c.to_dict() for c in self.candidates], **self.extra}


@dataclass
class PositionTarget:
    """A position (Position ID, player on roll) and its ``probs``, the five probabilities of
    the player on roll; ``se`` their five standard errors or None. ``extra`` and ``line`` as
    in :class:`Decision`."""
    position: str
    probs: list
    se: list | None = None
    extra: dict = field(default_factory=dict)
    line: int = field(default=0, compare=False)

    def to_dict(self):
        """The JSON object of this position: position, probs, se, then ``extra``."""
        return {"position": self.position, "probs": list(self.probs),
                "se": None if self.se is None else list(self.se), **self.extra}


@dataclass
class BenchmarkSet:
    """What :func:`read_benchmark` read: the file's ``path``, its ``format`` (one of
    :data:`FORMATS`), its ``decisions`` and its ``positions``, each in file order."""
    path: str
    format: str
    decisions: list
    positions: list


# ---------------------------------------------------------------- checks of one entry

def _fail(where, message):
    raise BenchmarkFileError(f"{where}: {message}")


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _finite(where, name, value):
    """``value`` as a float, or an error unless it is a finite number."""
    if not _is_number(value) or not math.isfinite(value):
        _fail(where, f"{name} must be a finite number, got {value!r}")
    return float(value)


def _standard_error(where, name, value):
    if value is None:
        return None
    se = _finite(where, name, value)
    if se < 0:
        _fail(where, f"{name} must be >= 0, got {se!r}")
    return se


def _board(where, name, pid):
    """The board of a Position ID, or an error naming the key it came from."""
    if not isinstance(pid, str):
        _fail(where, f"{name} must be a Position ID (a string), got {pid!r}")
    try:
        return board_from_position_id(pid)
    except ValueError as exc:
        _fail(where, f"{name}: {exc}")


def _dice(where, dice):
    if (not isinstance(dice, (list, tuple)) or len(dice) != 2
            or not all(isinstance(d, int) and not isinstance(d, bool)
                       and DIE_MIN <= d <= DIE_MAX for d in dice)):
        _fail(where, f"dice must be two whole numbers {DIE_MIN}..{DIE_MAX}, got {dice!r}")
    return (int(dice[0]), int(dice[1]))


def _probabilities(where, name, probs):
    """Five probabilities in [0, 1], gammons within wins and backgammons within gammons."""
    if not isinstance(probs, (list, tuple)) or len(probs) != N_PROBS:
        _fail(where, f"{name} must be {N_PROBS} probabilities (win, win gammon, win "
                     f"backgammon, lose gammon, lose backgammon), got {probs!r}")
    p = [_finite(where, f"{name}[{i}]", x) for i, x in enumerate(probs)]
    if not all(0.0 <= x <= 1.0 for x in p):
        _fail(where, f"{name} must lie in [0, 1], got {p!r}")
    win, win_g, win_bg, lose_g, lose_bg = p
    if (win_g > win + _ROUNDING or win_bg > win_g + _ROUNDING
            or lose_g > 1.0 - win + _ROUNDING or lose_bg > lose_g + _ROUNDING):
        _fail(where, f"{name} {p!r} are not win, win gammon, win backgammon, lose gammon, "
                     "lose backgammon (each gammon within its wins or losses, each "
                     "backgammon within its gammons)")
    return p


def _checked_decision(where, board, dice, results, equities, ses, extra, line):
    """A :class:`Decision` of a decoded board, checked dice and candidate result boards:
    each result must be a distinct legal result of ``board`` with ``dice``."""
    legal = {row.tobytes() for row in legal_moves(board, dice)}
    seen = set()
    candidates = []
    for i, (result, equity, se) in enumerate(zip(results, equities, ses)):
        pid = position_id_checked(result)
        if result.tobytes() not in legal:
            _fail(where, f"candidate {i} ({pid}) is not a legal result of "
                         f"{position_id_checked(board)} with {dice[0]}-{dice[1]}")
        if pid in seen:
            _fail(where, f"candidate {i} ({pid}) is a duplicate of an earlier candidate")
        seen.add(pid)
        candidates.append(MoveCandidate(pid, equity, se))
    return Decision(position_id_checked(board), dice, candidates, extra, line)


def _object(where, obj, what):
    if not isinstance(obj, dict):
        _fail(where, f"{what} must be a JSON object, got {obj!r}")


def _require(where, obj, keys, what):
    missing = [k for k in keys if k not in obj]
    if missing:
        _fail(where, f"{what} is missing key {missing[0]!r}")


def decision_from_dict(obj, path="<memory>", line=0):
    """The :class:`Decision` of a JSON object (as :meth:`Decision.to_dict` makes it),
    checked: raises :class:`BenchmarkFileError` starting ``path:line:``."""
    where = f"{path}:{line}"
    _object(where, obj, "a decision")
    _require(where, obj, _DECISION_KEYS, "a decision")
    board = _board(where, "position", obj["position"])
    dice = _dice(where, obj["dice"])
    candidates = obj["candidates"]
    if not isinstance(candidates, list) or not candidates:
        _fail(where, f"candidates must be a non-empty list, got {candidates!r}")
    results, equities, ses = [], [], []
    for i, c in enumerate(candidates):
        _object(where, c, f"candidate {i}")
        _require(where, c, ("position", "equity"), f"candidate {i}")
        unknown = sorted(set(c) - set(_CANDIDATE_KEYS))
        if unknown:
            _fail(where, f"candidate {i} has unknown keys {unknown} "
                         f"(a candidate has {', '.join(_CANDIDATE_KEYS)})")
        results.append(_board(where, f"candidate {i} position", c["position"]))
        equities.append(_finite(where, f"candidate {i} equity", c["equity"]))
        ses.append(_standard_error(where, f"candidate {i} se", c.get("se")))
    extra = {k: v for k, v in obj.items() if k not in _DECISION_KEYS}
    return _checked_decision(where, board, dice, results, equities, ses, extra, line)


def position_from_dict(obj, path="<memory>", line=0):
    """The :class:`PositionTarget` of a JSON object (as :meth:`PositionTarget.to_dict`
    makes it), checked: raises :class:`BenchmarkFileError` starting ``path:line:``."""
    where = f"{path}:{line}"
    _object(where, obj, "a position")
    _require(where, obj, ("position", "probs"), "a position")
    board = _board(where, "position", obj["position"])
    probs = _probabilities(where, "probs", obj["probs"])
    se = obj.get("se")
    if se is not None:
        if not isinstance(se, (list, tuple)) or len(se) != N_PROBS:
            _fail(where, f"se must be None or {N_PROBS} standard errors, got {se!r}")
        se = [_standard_error(where, f"se[{i}]", x) for i, x in enumerate(se)]
    extra = {k: v for k, v in obj.items() if k not in _POSITION_KEYS}
    return PositionTarget(position_id_checked(board), probs, se, extra, line)


# ---------------------------------------------------------------- reading

def _no_constant(name):
    """json's hook for NaN and Infinity, which JSON does not have."""
    raise ValueError(f"{name} is not JSON")


def _jsonl_entry(path, number, text, decisions, positions):
    where = f"{path}:{number}"
    try:
        obj = json.loads(text, parse_constant=_no_constant)
    except ValueError as exc:
        _fail(where, f"bad JSON: {exc}")
    _object(where, obj, "a line")
    is_decision = "dice" in obj or "candidates" in obj
    if is_decision and "probs" in obj:
        _fail(where, "a line is a decision (dice, candidates) or a position (probs), not both")
    if is_decision:
        decisions.append(decision_from_dict(obj, path, number))
    elif "probs" in obj:
        positions.append(position_from_dict(obj, path, number))
    else:
        _fail(where, "neither a decision (keys dice, candidates) nor a position (key probs)")


def _key_board(where, name, key, decode=board_from_gnubg_key):
    try:
        return decode(key)
    except ValueError as exc:
        _fail(where, f"{name}: {exc}")


def _number(where, name, text):
    try:
        value = float(text)
    except ValueError:
        _fail(where, f"{name} must be a number, got {text!r}")
    return _finite(where, name, value)


def _key_position(path, number, fields):
    """A position of ``<key> <p1> .. <p5>`` (training data, or an 'o' line less its 'o')."""
    where = f"{path}:{number}"
    if len(fields) != 1 + N_PROBS:
        _fail(where, f"a position line is <key> and {N_PROBS} probabilities, got "
                     f"{len(fields)} fields")
    board = _key_board(where, "position", fields[0])
    probs = [_number(where, f"probability {i + 1}", x) for i, x in enumerate(fields[1:])]
    probs = _probabilities(where, "probabilities", probs)
    return PositionTarget(position_id_checked(board), probs, None, {}, number)


def _bm_decision(path, number, fields):
    """A decision of ``m <key> <d1> <d2> <best> [<key> <loss>]...`` (fields less the 'm')."""
    where = f"{path}:{number}"
    if len(fields) < 4 or len(fields) % 2:
        _fail(where, "a move line is 'm <key> <d1> <d2> <best move key> [<key> <loss>]...'")
    board = _key_board(where, "position", fields[0])
    try:
        dice = [int(d) for d in fields[1:3]]
    except ValueError:
        _fail(where, f"dice must be two whole numbers, got {' '.join(fields[1:3])!r}")
    dice = _dice(where, dice)
    results = [_key_board(where, "best move", fields[3], result_board_from_key)]
    equities = [0.0]
    for i in range(4, len(fields), 2):
        k = i // 2 - 1
        results.append(_key_board(where, f"move {k}", fields[i], result_board_from_key))
        loss = _number(where, f"loss of move {k}", fields[i + 1])
        if loss < 0:
            _fail(where, f"loss of move {k} must be >= 0 (the best move comes first), got "
                         f"{loss!r}")
        equities.append(0.0 - loss)      # 0.0 - 0.0 is 0.0 where -0.0 would be -0.0
    return _checked_decision(where, board, dice, results, equities, [None] * len(results),
                             {}, number)


def _read_text(path):
    with open(path, "rb") as f:
        data = f.read()
    if data.startswith(_GZIP_MAGIC):
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            _fail(f"{path}:0", f"not a readable gzip file: {exc}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        _fail(f"{path}:0", f"not UTF-8 text: {exc}")


def _detect(path, lines):
    """The format of a file from its first line that is neither blank nor a '#' comment
    (an empty file is JSON Lines with nothing in it)."""
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        first = text.split()[0]
        if text.startswith("{"):
            return "jsonl"
        if len(first) == 1 and first.isalpha():
            return "gnubg-bm"
        if len(first) == KEY_LENGTH:
            return "gnubg-train"
        _fail(f"{path}:{number}", "not a benchmark file: a line should be a JSON object "
                                  "(fastbg), 'm'/'o'/'s' lines (GNU Backgammon .bm) or "
                                  "'<key> <5 probabilities>' (GNU Backgammon training data)")
    return "jsonl"


def read_benchmark(path):
    """The :class:`BenchmarkSet` of a benchmark file of any of :data:`FORMATS` (the module
    docstring describes them), gzipped or not; every line is checked and the first bad one
    raises :class:`BenchmarkFileError` (``path:line: what is wrong``)."""
    path = os.fspath(path)
    lines = _read_text(path).splitlines()
    fmt = _detect(path, lines)
    decisions, positions = [], []
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        if fmt == "jsonl":
            _jsonl_entry(path, number, text, decisions, positions)
        elif fmt == "gnubg-train":
            positions.append(_key_position(path, number, text.split()))
        else:
            kind, *fields = text.split()
            if kind == "m":
                decisions.append(_bm_decision(path, number, fields))
            elif kind == "o":
                positions.append(_key_position(path, number, fields))
    return BenchmarkSet(path, fmt, decisions, positions)


# ---------------------------------------------------------------- writing

def _json_lines(path, entries, kind, reserved, from_dict):
    """Each entry checked (as the reader will check it) and written as one JSON line."""
    out = []
    for number, entry in enumerate(entries, 1):
        if not isinstance(entry, kind):
            raise TypeError(f"entry {number - 1} is a {type(entry).__name__}, "
                            f"not a {kind.__name__}")
        clash = sorted(set(entry.extra) & set(reserved))
        if clash:
            _fail(f"{path}:{number}", f"extra keys {clash} clash with the keys of a "
                                      f"{kind.__name__}")
        checked = from_dict(entry.to_dict(), path, number)
        out.append(json.dumps(checked.to_dict(), allow_nan=False) + "\n")
    return "".join(out)


def _write_atomically(path, text):
    """Write ``text`` (gzipped for a ``.gz`` path) to a temporary file beside ``path``, then
    rename it over ``path``: a failure leaves the old file whole."""
    data = text.encode("utf-8")
    if path.endswith(".gz"):
        data = gzip.compress(data, mtime=0)
    folder, name = os.path.split(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        umask = os.umask(0)         # mkstemp makes the file private; give it the usual mode
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def write_decisions(path, decisions):
    """Write :class:`Decision` s to ``path`` as JSON Lines (gzipped when it ends ``.gz``),
    atomically. Each is checked first as :func:`read_benchmark` will check it, so the file
    always reads back equal (line numbers aside)."""
    path = os.fspath(path)
    reserved = _DECISION_KEYS + ("probs",)          # "probs" would make it a position
    _write_atomically(path, _json_lines(path, decisions, Decision, reserved,
                                        decision_from_dict))


def write_positions(path, positions):
    """Write :class:`PositionTarget` s to ``path`` as JSON Lines (gzipped when it ends
    ``.gz``), atomically, each checked first; they read back equal (line numbers aside)."""
    path = os.fspath(path)
    reserved = _POSITION_KEYS + ("dice", "candidates")   # those would make it a decision
    _write_atomically(path, _json_lines(path, positions, PositionTarget, reserved,
                                        position_from_dict))
