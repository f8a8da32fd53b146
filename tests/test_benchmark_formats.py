"""GNU Backgammon's position keys and the benchmark-set files (fastbg.benchmarks).

Keys are checked against a slow reference encoder written here from the format's
description, against the Position ID (the same 80 bits in base64) and, where the package
is installed, against gnubg_nn's own encoder and decoder. The readers are fed files
written by hand from real positions, and every kind of bad line must be reported with
its file and line number.
"""
import base64
import gzip
import json
import re

import numpy as np
import pytest
from hypothesis import given, settings

import fastbg
from fastbg.benchmarks import (BenchmarkFileError, Decision, MoveCandidate, PositionTarget,
                               board_from_gnubg_key, decision_from_dict, gnubg_key,
                               position_from_dict, read_benchmark, write_decisions,
                               write_positions)
from fastbg.benchmarks.gnubg_keys import result_board_from_key, result_key
from fastbg.evaluators.gnubg_nn import to_gnubg
from strategies import positions, selfplay_positions

# GNU Backgammon's key of the starting position (gnubg_nn.key_of_board): each side's row is
# 5 zeros, 5 ones (the 6-point), 0, 0, 111 (8), 0, 0000, 11111 (13), 0, ten zeros, 11 (24),
# 0, 0 = bytes 224, 115, 240, 1, 48.
START_KEY = "OAHDPAABDAOAHDPAABDA"
# After 8/5 6/5 from the start, the opponent on roll (gnubg_nn.best_move(.., 3, 1, b=1)).
START_31_RESULT_KEY = "LAGHPAABDAOAHDPAABDA"
PROBS = [0.55, 0.15, 0.01, 0.12, 0.005]


def _reference_key(rows):
    """The key of gnubg rows [[not on roll], [on roll]], straight from the description."""
    bits = "".join("1" * count + "0" for row in rows for count in row).ljust(80, "0")
    data = [int(bits[i:i + 8][::-1], 2) for i in range(0, 80, 8)]     # LSB first
    return "".join(chr(65 + (b >> 4)) + chr(65 + (b & 15)) for b in data)


def _key_of_bits(ones):
    """A key with exactly the given bit numbers set (for keys no position has)."""
    data = [0] * 10
    for i in ones:
        data[i // 8] |= 1 << (i % 8)
    return "".join(chr(65 + (b >> 4)) + chr(65 + (b & 15)) for b in data)


def _start_31():
    """The start with 3-1: its legal results with the best (8/5 6/5) first."""
    best = fastbg.parse_move(fastbg.START, "8/5 6/5", (3, 1))
    others = [r for r in fastbg.legal_moves(fastbg.START, (3, 1)) if not np.array_equal(r, best)]
    return best, others


def _decision(board, dice, results, equities, **extra):
    """A Decision of boards: candidates ``results`` with ``equities``, no standard errors."""
    candidates = [MoveCandidate(fastbg.position_id(r), e, None)
                  for r, e in zip(results, equities)]
    return Decision(fastbg.position_id(board), tuple(dice), candidates, extra)


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


# ---------------------------------------------------------------- keys

def test_start_key_is_gnubgs():
    assert gnubg_key(fastbg.START) == START_KEY
    assert _reference_key(to_gnubg(fastbg.START)) == START_KEY
    assert np.array_equal(board_from_gnubg_key(START_KEY), fastbg.START)


def test_result_key_has_the_opponent_on_roll():
    best, _ = _start_31()
    assert result_key(best) == START_31_RESULT_KEY
    assert np.array_equal(result_board_from_key(START_31_RESULT_KEY), best)
    # the opponent's row (row 1 of the key) is untouched by the mover's 3-1
    assert START_31_RESULT_KEY[10:] == START_KEY[10:]


@settings(max_examples=300, deadline=None)
@given(positions())
def test_keys_round_trip_and_match_the_reference(board):
    key = gnubg_key(board)
    assert key == _reference_key(to_gnubg(board))
    # the same 80 bits as the Position ID, written as letters instead of base64
    data = base64.b64decode(fastbg.position_id(board) + "==")
    assert key == "".join(chr(65 + (b >> 4)) + chr(65 + (b & 15)) for b in data)
    back = board_from_gnubg_key(key)
    assert back.dtype == np.int8 and np.array_equal(back, board)
    assert np.array_equal(result_board_from_key(result_key(board)), board)


def test_keys_equal_gnubg_nns():
    gnubg_nn = pytest.importorskip("gnubg_nn", reason="gnubg_nn (fastbg[gnubg]) not installed")
    boards = selfplay_positions(300, seed=7)
    for b in boards:
        gb = to_gnubg(b)
        key = gnubg_key(b)
        assert key == gnubg_nn.key_of_board(gb)
        assert [list(row) for row in gnubg_nn.board_from_position_key(key)] == gb
    for b in boards[:40]:
        for d in ((3, 1), (6, 6), (5, 2)):
            _, key = gnubg_nn.best_move(to_gnubg(b), *d, 0, b=1)
            chosen = result_board_from_key(key)
            assert any(np.array_equal(chosen, r) for r in fastbg.legal_moves(b, d))
            assert result_key(chosen) == key


def test_empty_board_key():
    assert np.array_equal(board_from_gnubg_key("A" * 20), np.zeros(26, np.int8))


@pytest.mark.parametrize("key, match", [
    ("OAHDPAABDA", "has 20 letters, got 10"),
    ("OAHDPAABDAOAHDPAABDQ", "letters outside A-P: 'Q'"),
    ("oahdpaabdaoahdpaabda", "letters outside A-P"),
    ("P" * 20, "runs past its 80 bits"),
    (_key_of_bits([60]), "bits set after its last point"),
    (_reference_key([[0] * 25, [0] * 5 + [16] + [0] * 19]), "on roll has 16 checkers"),
    (_reference_key([[0] * 18 + [1] + [0] * 6, [0] * 5 + [2] + [0] * 19]),
     "point 6 is held by both sides"),
])
def test_bad_keys(key, match):
    with pytest.raises(ValueError, match=match):
        board_from_gnubg_key(key)


def test_key_of_a_bad_board():
    with pytest.raises(ValueError, match="more than 15 checkers"):
        gnubg_key(np.array([0] * 6 + [16] + [0] * 19, np.int8))
    with pytest.raises(TypeError):
        board_from_gnubg_key(12)


# ---------------------------------------------------------------- GNU Backgammon files

def test_read_gnubg_bm(tmp_path):
    best, others = _start_31()
    bar = np.array(fastbg.START)
    bar[24], bar[25], bar[3], bar[1] = 1, 1, -1, -1                 # one of ours on the bar
    bar_results = fastbg.legal_moves(bar, (6, 4))
    path = _write(tmp_path, "contact.bm", "\n".join([
        "# a hand-made benchmark",
        "s 1296 0",
        f"m {START_KEY} 3 1 {result_key(best)} {result_key(others[0])} 0.153 "
        f"{result_key(others[5])} 0.4",
        "r 17",
        f"o {gnubg_key(bar)} " + " ".join(map(str, PROBS)),
        "",
        f"m {gnubg_key(bar)} 6 4 {result_key(bar_results[2])}",
    ]) + "\n")
    bs = read_benchmark(path)
    assert bs.format == "gnubg-bm" and bs.path == str(path)
    assert bs.decisions == [
        _decision(fastbg.START, (3, 1), [best, others[0], others[5]], [0.0, -0.153, -0.4]),
        _decision(bar, (6, 4), [bar_results[2]], [0.0])]
    assert [d.line for d in bs.decisions] == [3, 7]
    assert bs.decisions[0].candidates[0].equity == 0.0
    assert repr(bs.decisions[0].candidates[0].equity) == "0.0"            # not -0.0
    assert bs.positions == [PositionTarget(fastbg.position_id(bar), PROBS, None, {})]
    assert bs.positions[0].line == 5


def test_read_gnubg_training_data_gzipped(tmp_path):
    boards = selfplay_positions(20, seed=3)
    text = "".join(f"{gnubg_key(b)} " + " ".join(f"{p:.5f}" for p in PROBS) + "\n"
                   for b in boards)
    path = tmp_path / "contact-train-data.gz"
    path.write_bytes(gzip.compress(text.encode()))
    bs = read_benchmark(path)
    assert bs.format == "gnubg-train" and bs.decisions == []
    assert [p.position for p in bs.positions] == [fastbg.position_id(b) for b in boards]
    assert all(p.probs == PROBS and p.se is None for p in bs.positions)
    assert [p.line for p in bs.positions] == list(range(1, 21))


# ---------------------------------------------------------------- JSON Lines

def test_jsonl_mixed_file(tmp_path):
    best, others = _start_31()
    pid = fastbg.position_id(fastbg.START)
    lines = [
        {"position": pid, "dice": [3, 1], "candidates": [
            {"position": fastbg.position_id(best), "equity": 0.15, "se": 0.002},
            {"position": fastbg.position_id(others[1]), "equity": -0.1}],
         "class": "contact", "source": "hand"},
        {"position": pid, "probs": PROBS, "se": [0.001] * 5, "note": [1, 2]},
    ]
    path = _write(tmp_path, "set.jsonl",
                  "# comment\n\n" + "\n".join(json.dumps(x) for x in lines) + "\n")
    bs = read_benchmark(path)
    assert bs.format == "jsonl"
    [d] = bs.decisions
    assert d == Decision(pid, (3, 1), [MoveCandidate(fastbg.position_id(best), 0.15, 0.002),
                                       MoveCandidate(fastbg.position_id(others[1]), -0.1, None)],
                         {"class": "contact", "source": "hand"})
    assert d.line == 3
    [p] = bs.positions
    assert p == PositionTarget(pid, PROBS, [0.001] * 5, {"note": [1, 2]}) and p.line == 4


@pytest.mark.parametrize("name", ["decisions.jsonl", "decisions.jsonl.gz"])
def test_jsonl_round_trip(tmp_path, name):
    rng = np.random.default_rng(11)
    decisions, targets = [], []
    for i, b in enumerate(selfplay_positions(30, seed=5)):
        dice = tuple(int(x) for x in rng.integers(1, 7, 2))
        results = fastbg.legal_moves(b, dice)
        pick = rng.permutation(len(results))[:4]
        decisions.append(Decision(fastbg.position_id(b), dice, [
            MoveCandidate(fastbg.position_id(results[j]), float(rng.normal()),
                          None if k else 0.01) for k, j in enumerate(pick)],
            {"class": "contact", "index": i, "tags": ["a", {"b": None}]}))
        targets.append(PositionTarget(fastbg.position_id(b), PROBS,
                                      None if i % 2 else [0.01] * 5, {"source": "hand"}))
    path = tmp_path / name
    write_decisions(path, decisions)
    assert path.read_bytes().startswith(b"\x1f\x8b") == name.endswith(".gz")
    back = read_benchmark(path)
    assert back.decisions == decisions and back.positions == []
    assert [d.line for d in back.decisions] == list(range(1, 31))
    assert [decision_from_dict(d.to_dict()) for d in decisions] == decisions
    data = path.read_bytes()
    text = (gzip.decompress(data) if name.endswith(".gz") else data).decode()
    first = json.loads(text.splitlines()[0])
    assert list(first)[:3] == ["position", "dice", "candidates"]
    assert list(first["candidates"][0]) == ["position", "equity", "se"]
    pos_path = tmp_path / ("p" + name)
    write_positions(pos_path, targets)
    assert read_benchmark(pos_path).positions == targets
    assert [position_from_dict(t.to_dict()) for t in targets] == targets


def test_empty_file_reads_as_empty_jsonl(tmp_path):
    write_decisions(tmp_path / "none.jsonl", [])
    bs = read_benchmark(tmp_path / "none.jsonl")
    assert (bs.format, bs.decisions, bs.positions) == ("jsonl", [], [])


def test_write_checks_first_and_keeps_the_old_file(tmp_path):
    path = tmp_path / "set.jsonl"
    best, others = _start_31()
    good = _decision(fastbg.START, (3, 1), [best], [0.1])
    write_decisions(path, [good])
    before = path.read_bytes()
    illegal = _decision(fastbg.START, (6, 6), [best], [0.1])
    where = re.escape(f"{path}:2: candidate 0 ")
    with pytest.raises(BenchmarkFileError, match=where + ".*not a legal"):
        write_decisions(path, [good, illegal])
    clash = _decision(fastbg.START, (3, 1), [best], [0.1], probs=[1])
    with pytest.raises(BenchmarkFileError, match="clash"):
        write_decisions(path, [clash])
    with pytest.raises(TypeError, match="not a Decision"):
        write_decisions(path, [good.to_dict()])
    with pytest.raises(TypeError):                                  # not JSON
        write_decisions(path, [_decision(fastbg.START, (3, 1), [best], [0.1], x=object())])
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["set.jsonl"]   # no temp file left


# ---------------------------------------------------------------- bad lines

def _jsonl_cases():
    best, others = _start_31()
    pid, good = fastbg.position_id(fastbg.START), fastbg.position_id(best)
    cand = {"position": good, "equity": 0.0}

    def dec(**kw):
        return json.dumps({"position": pid, "dice": [3, 1], "candidates": [cand], **kw})

    def pos(**kw):
        return json.dumps({"position": pid, "probs": PROBS, **kw})

    return [
        ('{"position": ', "bad JSON"),
        ('[1, 2]', "a line must be a JSON object"),
        (json.dumps({"dice": [3, 1], "candidates": [cand]}), "missing key 'position'"),
        (json.dumps({"position": pid, "dice": [3, 1]}), "missing key 'candidates'"),
        (dec(position=5), "position must be a Position ID"),
        (dec(position="4HPwATDgc/ABM!"), "position: .*outside base64"),
        (dec(dice=[3]), "dice must be two whole numbers"),
        (dec(dice=[0, 7]), "dice must be two whole numbers"),
        (dec(dice=[3.0, 1]), "dice must be two whole numbers"),
        (dec(dice=[True, 1]), "dice must be two whole numbers"),
        (dec(candidates=[]), "candidates must be a non-empty list"),
        (dec(candidates=["x"]), "candidate 0 must be a JSON object"),
        (dec(candidates=[{"position": good}]), "candidate 0 is missing key 'equity'"),
        (dec(candidates=[{**cand, "loss": 1}]), "candidate 0 has unknown keys"),
        (dec(candidates=[{**cand, "position": pid}]), "candidate 0 .* is not a legal result"),
        (dec(dice=[6, 6]), "not a legal result of .* with 6-6"),
        (dec(candidates=[cand, {**cand, "equity": -1}]), "candidate 1 .* is a duplicate"),
        (dec(candidates=[{**cand, "equity": "0.1"}]), "candidate 0 equity must be a finite"),
        (dec(candidates=[{**cand, "equity": None}]), "candidate 0 equity must be a finite"),
        (dec().replace('"equity": 0.0', '"equity": 1e999'), "equity must be a finite"),
        (dec().replace('"equity": 0.0', '"equity": NaN'), "bad JSON: NaN is not JSON"),
        (dec(candidates=[{**cand, "se": -0.1}]), "candidate 0 se must be >= 0"),
        (dec(probs=PROBS), "not both"),
        (json.dumps({"position": pid, "class": "x"}), "neither a decision"),
        (pos(probs=PROBS[:4]), "probs must be 5 probabilities"),
        (pos(probs="0.5"), "probs must be 5 probabilities"),
        (pos(probs=[1.5, 0, 0, 0, 0]), r"probs must lie in \[0, 1\]"),
        (pos(probs=[0.5, 0.1, 0.0, 0.1, -0.1]), r"must lie in \[0, 1\]"),
        (pos(probs=[0.5, 0.6, 0.0, 0.1, 0.0]), "each gammon within"),
        (pos(probs=[0.9, 0.1, 0.0, 0.3, 0.0]), "each gammon within"),
        (pos(probs=[0.5, 0.1, 0.2, 0.1, 0.0]), "each backgammon within"),
        (pos(probs=[0.5, 0.1, 0.0, 0.1, "x"]), r"probs\[4\] must be a finite number"),
        (pos(se=[0.1] * 4), "se must be None or 5 standard errors"),
        (pos(se=[0.1, 0.1, 0.1, 0.1, -1]), r"se\[4\] must be >= 0"),
        (pos(position=None), "position must be a Position ID"),
    ]


@pytest.mark.parametrize("line, match", _jsonl_cases())
def test_bad_jsonl_lines(tmp_path, line, match):
    good = json.dumps({"position": fastbg.position_id(fastbg.START), "probs": PROBS})
    path = _write(tmp_path, "bad.jsonl", f"{good}\n# comment\n{line}\n{good}\n")
    with pytest.raises(BenchmarkFileError, match=re.escape(f"{path}:3: ") + ".*" + match):
        read_benchmark(path)


def _bm_cases():
    best, others = _start_31()
    ok = f"m {START_KEY} 3 1 {result_key(best)}"
    return [
        (f"m {START_KEY} 3 1", "a move line is 'm <key>"),
        (f"{ok} {result_key(others[0])}", "a move line is 'm <key>"),
        (f"m {START_KEY[:-1]}Z 3 1 {result_key(best)}", "position: .*letters outside A-P"),
        (f"m {START_KEY} 3 x {result_key(best)}", "dice must be two whole numbers"),
        (f"m {START_KEY} 7 1 {result_key(best)}", "dice must be two whole numbers 1..6"),
        (f"m {START_KEY} 3 1 {'P' * 20}", "best move: .*runs past"),
        (f"{ok} {result_key(others[0])} big", "loss of move 1 must be a number"),
        (f"{ok} {result_key(others[0])} nan", "loss of move 1 must be a finite number"),
        (f"{ok} {result_key(others[0])} -0.2", "loss of move 1 must be >= 0"),
        (f"{ok} {result_key(best)} 0.2", "candidate 1 .* is a duplicate"),
        (f"m {START_KEY} 3 1 {gnubg_key(best)}", "candidate 0 .* is not a legal result"),
        (f"o {START_KEY} 0.5 0.1 0.0 0.1", "a position line is <key> and 5 probabilities"),
        (f"o {START_KEY} 0.5 0.1 0.0 0.1 2", r"must lie in \[0, 1\]"),
        (f"o {START_KEY} 0.5 0.1 0.0 0.1 z", "probability 5 must be a number"),
    ]


@pytest.mark.parametrize("line, match", _bm_cases())
def test_bad_bm_lines(tmp_path, line, match):
    best, _ = _start_31()
    good = f"m {START_KEY} 3 1 {result_key(best)}"
    path = _write(tmp_path, "bad.bm", f"s settings\n{good}\n{line}\n")
    with pytest.raises(BenchmarkFileError, match=re.escape(f"{path}:3: ") + ".*" + match):
        read_benchmark(path)


@pytest.mark.parametrize("line, match", [
    (f"{START_KEY} 0.5 0.1 0.0 0.1", "a position line is <key> and 5 probabilities"),
    (f"{START_KEY[:-1]}Q 0.5 0.1 0.0 0.1 0.0", "letters outside A-P"),
    ("A" * 19 + " 0.5 0.1 0.0 0.1 0.0", "has 20 letters, got 19"),
    (f"{START_KEY} 0.5 0.1 0.0 0.1 inf", "probability 5 must be a finite number"),
])
def test_bad_training_lines(tmp_path, line, match):
    path = _write(tmp_path, "train.txt", f"{START_KEY} 0.5 0.1 0.0 0.1 0.0\n\n{line}\n")
    with pytest.raises(BenchmarkFileError, match=re.escape(f"{path}:3: ") + ".*" + match):
        read_benchmark(path)


def test_unknown_format_and_bad_gzip(tmp_path):
    path = _write(tmp_path, "what.txt", "\n# hello\nposition probs\n")
    with pytest.raises(BenchmarkFileError, match=re.escape(f"{path}:3: ") + "not a benchmark"):
        read_benchmark(path)
    gz = tmp_path / "broken.bm.gz"
    gz.write_bytes(gzip.compress(b"m x y")[:12])
    with pytest.raises(BenchmarkFileError, match=re.escape(f"{gz}:0: ") + "not a readable gzip"):
        read_benchmark(gz)


def test_dict_helpers_name_memory():
    with pytest.raises(BenchmarkFileError, match="^<memory>:0: dice"):
        decision_from_dict({"position": fastbg.position_id(fastbg.START), "dice": [9, 9],
                            "candidates": []})
    with pytest.raises(BenchmarkFileError, match="^here.json:4: a position must be"):
        position_from_dict([], path="here.json", line=4)
