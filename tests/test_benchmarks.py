"""Benchmark sets: scoring (fastbg.benchmarks.scoring), making (fastbg.benchmarks.making),
the classes, any bot's choices, and the commands.

* The scorer against a small file whose errors are computed here by hand (a bot that
  plays a chosen move, one not listed: the worst listed error), and a .bm file's losses.
* A held-out decisions file (positions from games, candidates and equities by a 1-ply
  hint) scores the gnubg 0-ply choice exactly as gnubg-nn's own best_move does, decision
  by decision, and ranks random > pubeval > gnubg.
* The classes equal gnubg-nn's classify; bot_choices equals each bot's own choice.
* Making: the rollouts of a set in two-sided bear-offs (where the gnubg bot is perfect)
  land on the optimal-play values of a DP written in tests/test_decision_rollouts.py, with
  the shipped set's settings; a journal cut short resumes to the same file; a real SIGINT
  to ``fastbg benchmark make`` then ``--resume`` gives the uninterrupted set.
"""
import gzip
import json
import math
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import fastbg
from fastbg.benchmarks import (BenchmarkFileError, Decision, MoveCandidate, read_benchmark,
                               write_decisions)
from fastbg.benchmarks.choices import bot_choices
from fastbg.benchmarks.classes import position_classes
from fastbg.benchmarks.gnubg_keys import gnubg_key, result_key
from fastbg.sim.bots import EvaluatorBot
from reference.movegen import make_board

START_ID = "4HPwATDgc/ABMA"


def _pid(board):
    return fastbg.position_id(np.asarray(board, np.int8))


def _result(board, dice, move):
    return fastbg.parse_move(board, move, dice)


def _picker(targets):
    """An EvaluatorBot that plays, in each decision, the result listed in ``targets``
    (a set of board bytes) and anything else only when no target is legal."""
    def evaluate(rows):
        return np.array([1.0 if r.tobytes() in targets else 0.0 for r in rows])
    return EvaluatorBot(evaluate, name="picker")


# ------------------------------------------------------------------ the scorer by hand

def _hand_set(tmp_path):
    s = fastbg.START
    a, b, c = (_result(s, (3, 1), m) for m in ("8/5 6/5", "24/21 6/5", "13/10 6/5"))
    run, split = (_result(s, (6, 5), m) for m in ("24/13", "24/18 13/8"))
    other = _result(s, (6, 5), "13/2")                       # not listed below
    four = _result(s, (4, 2), "8/4 6/4")
    decisions = [
        Decision(START_ID, (3, 1), [MoveCandidate(_pid(a), 0.20, 0.01),
                                    MoveCandidate(_pid(b), 0.10, 0.01),
                                    MoveCandidate(_pid(c), -0.05, None)],
                 {"class": "contact", "note": "kept"}, 0),
        Decision(START_ID, (6, 5), [MoveCandidate(_pid(run), 0.30, None),
                                    MoveCandidate(_pid(split), 0.05, None)], {}, 0),
        Decision(START_ID, (4, 2), [MoveCandidate(_pid(four), 0.25, None),
                                    MoveCandidate(_pid(_result(s, (4, 2), "24/20 13/11")),
                                                  0.0, None)], {"class": "opening"}, 0),
    ]
    path = tmp_path / "hand.jsonl"
    write_decisions(path, decisions)
    targets = {b.tobytes(), other.tobytes(), four.tobytes()}
    return path, _picker(targets)


def test_score_by_hand(tmp_path):
    path, bot = _hand_set(tmp_path)
    s = fastbg.score_benchmark(path, bot)
    # decision 1: played 24/21 6/5 (0.10 below the best); 2: played 13/2, not listed:
    # charged the worst listed one's error, 0.30 - 0.05; 3: played the best
    errors = [0.20 - 0.10, 0.30 - 0.05, 0.0]
    assert s.errors == pytest.approx(errors, abs=1e-15)
    mean = sum(errors) / 3
    sd = math.sqrt(sum((e - mean) ** 2 for e in errors) / 2)
    assert s.decisions == 3
    assert s.error_rate == pytest.approx(1000 * mean)
    assert s.ci95 == pytest.approx([1000 * (mean - 1.959964 * sd / math.sqrt(3)),
                                    1000 * (mean + 1.959964 * sd / math.sqrt(3))], rel=1e-6)
    assert s.best_found == pytest.approx(1 / 3) and s.not_listed == pytest.approx(1 / 3)
    # the file's classes where given, fastbg's otherwise (the start is contact)
    assert s.by_class["contact"]["decisions"] == 2
    assert s.by_class["contact"]["error_rate"] == pytest.approx(1000 * (errors[0] + errors[1]) / 2)
    assert s.by_class["opening"]["error_rate"] == 0.0
    # saved and read back
    s.save(tmp_path / "s.json")
    back = fastbg.BenchmarkScore.load(tmp_path / "s.json")
    assert back.to_dict() == s.to_dict()
    assert "3 decisions" in s.table()


def test_bm_file_losses(tmp_path):
    s = fastbg.START
    a, b = _result(s, (3, 1), "8/5 6/5"), _result(s, (3, 1), "24/21 6/5")
    path = tmp_path / "one.bm"
    path.write_text(f"s some settings\nm {gnubg_key(s)} 3 1 {result_key(a)} "
                    f"{result_key(b)} 0.125\n")
    score = fastbg.score_benchmark(path, _picker({b.tobytes()}))
    assert score.errors == [0.125]
    with gzip.open(tmp_path / "one.bm.gz", "wt") as f:
        f.write(path.read_text())
    assert fastbg.score_benchmark(tmp_path / "one.bm.gz", _picker({a.tobytes()})).errors == [0.0]


def test_positions_file_scores_an_evaluator(tmp_path, gnubg_net):
    from fastbg.benchmarks import PositionTarget, write_positions
    boards = [fastbg.START, fastbg.board_from_position_id("4HPwATDgc/ABMA")]
    probs = gnubg_net.probabilities(np.stack(boards))
    shifted = [PositionTarget(_pid(b), [float(p[0]) - 0.01, *map(float, p[1:])], None, {}, 0)
               for b, p in zip(boards, probs)]
    path = tmp_path / "p.jsonl"
    write_positions(path, shifted)
    s = fastbg.score_benchmark(path, gnubg_net)
    assert s.positions == 2 and s.mean_abs_equity_error == pytest.approx(0.02, abs=1e-9)
    with pytest.raises(ValueError, match="gives no probabilities"):
        fastbg.score_benchmark(path, "pubeval")


# ------------------------------------------------------------------ classes, choices

def _game_positions(n, seed):
    """(board, dice) met in games mixing random and pubeval moves (many classes)."""
    rng = np.random.default_rng(seed)
    out = []
    b = fastbg.START.copy()
    while len(out) < n:
        dice = tuple(int(d) for d in rng.integers(1, 7, 2))
        res = fastbg.legal_moves(b, dice)
        if len(res) >= 2:
            out.append((b.copy(), dice))
        if rng.random() < 0.3:
            pick = res[rng.integers(len(res))]
        else:
            r, o, c = bot_choices("pubeval", b[None], [dice])
            pick = r[c[0]]
        b = fastbg.START.copy() if not (pick[1:] > 0).any() else fastbg.flip(pick)
    return out


def test_classes_equal_gnubg_nn():
    gnubg_nn = pytest.importorskip("gnubg_nn", reason="gnubg-nn (the gnubg extra) is the oracle")
    from fastbg.evaluators.gnubg_nn import to_gnubg
    names = {gnubg_nn.c_contact: "contact", gnubg_nn.c_crashed: "crashed",
             gnubg_nn.c_race: "race", gnubg_nn.c_bearoff: "bear-off"}
    pairs = _game_positions(600, seed=4)
    ours = position_classes(np.stack([b for b, _ in pairs]))
    theirs = [names.get(gnubg_nn.classify(to_gnubg(b)), "bear-off") for b, _ in pairs]
    assert ours == theirs
    assert {"contact", "crashed", "race", "bear-off"} <= set(ours)


def test_bot_choices_are_the_bots_own(gnubg_net):
    pairs = _game_positions(120, seed=5)
    boards = np.stack([b for b, _ in pairs])
    dice = [d for _, d in pairs]
    res, off, choice = bot_choices("gnubg-1ply", boards, dice)
    hints = fastbg.hint_batch(boards, np.array(dice), ply=1)
    for i, h in enumerate(hints):
        assert (res[off[i] + choice[i]] == h[0].board).all()
    res, off, choice = bot_choices("pubeval", boards, dice)
    again = bot_choices("pubeval", boards, dice)[2]
    assert (choice == again).all() and (choice >= 0).all() and (choice < np.diff(off)).all()
    with pytest.raises(ValueError, match="shape"):
        bot_choices("pubeval", boards[0], dice[:1])


# ------------------------------------------------------------------ held out: gnubg 0-ply

def test_held_out_file_scores_gnubg_as_gnubg_nn_does(tmp_path, gnubg_net):
    gnubg_nn = pytest.importorskip("gnubg_nn", reason="gnubg-nn (the gnubg extra) is the oracle")
    from fastbg.evaluators.gnubg_nn import from_gnubg, to_gnubg
    pairs = _game_positions(400, seed=9)
    boards = np.stack([b for b, _ in pairs])
    hints = fastbg.hint_batch(boards, np.array([d for _, d in pairs]), ply=1)
    decisions = []
    for (b, d), h in zip(pairs, hints):
        near = [c for c in h[:5] if h[0].equity - c.equity <= 0.16]
        if len(near) >= 2:
            decisions.append(Decision(_pid(b), d, [MoveCandidate(_pid(c.board), c.equity, None)
                                                   for c in near], {}, 0))
    assert len(decisions) >= 150
    path = tmp_path / "held-out.jsonl"
    write_decisions(path, decisions)
    # gnubg 0-ply's choice through fastbg's networks in lock-step (the in-kernel bot's
    # choice is the same, tests/test_gnubgnet.py), without compiling that kernel here
    got = fastbg.score_benchmark(path, EvaluatorBot(gnubg_net.scores_rows, name="gnubg"))
    want = []
    for d in decisions:          # gnubg-nn's best move, looked up by hand
        b = fastbg.board_from_position_id(d.position)
        _, key = gnubg_nn.best_move(to_gnubg(b), d.dice[0], d.dice[1], 0, b=1)
        played = _pid(fastbg.flip(from_gnubg(gnubg_nn.board_from_position_key(key))))
        eq = {c.position: c.equity for c in d.candidates}
        best = max(eq.values())
        want.append(best - eq.get(played, min(eq.values())))
    assert got.errors == want
    rates = {bot: fastbg.score_benchmark(path, bot).error_rate for bot in ("random", "pubeval")}
    assert rates["random"] > rates["pubeval"] > got.error_rate
    comparison = fastbg.compare_bots(path, ["pubeval", "random"])
    assert [s.bot for s in comparison.scores] == ["pubeval", "random"]


# ------------------------------------------------------------------ making

def test_set_rollouts_match_exact_bear_offs(tmp_path, gnubg_net):
    from test_decision_rollouts import _win_optimal
    cases = [(make_board({6: 1, 5: 1, 3: 1}, {25 - 6: 1, 25 - 4: 1}), (2, 1)),
             (make_board({5: 2, 4: 1}, {25 - 5: 1, 25 - 3: 1, 25 - 2: 1}), (4, 1))]
    # the shipped set's settings (variance reduction needs the in-kernel gnubg bot)
    made = fastbg.make_benchmark(tmp_path / "bo.jsonl", positions=[
        (np.array(b, np.int8), d) for b, d in cases], bot="gnubg", within=2.0, trials=216,
        truncate=10, variance_reduction=True, chunk_size=72)
    assert made.decisions == 2 and not made.partial
    got = read_benchmark(tmp_path / "bo.jsonl")
    for d in got.decisions:
        assert d.extra["class"] == "bear-off" and len(d.candidates) >= 2
        for c in d.candidates:
            after = fastbg.board_from_position_id(c.position)
            p = float(1 - _win_optimal(tuple(int(x) for x in -after[::-1])))
            assert abs(c.equity - (2 * p - 1)) <= 3 * c.se + 1e-9, (c, 2 * p - 1)


PUBEVAL_SET = dict(mix={"contact": 2, "race": 2}, decisions=None, game_bots=("pubeval", "random"),
                   bot="pubeval", trials=72, chunk_size=36, seed=3)


def test_make_harvests_and_resumes(tmp_path):
    full = fastbg.make_benchmark(tmp_path / "a.jsonl", **PUBEVAL_SET)
    assert full.decisions == 4 and full.by_class.keys() == {"contact", "race"}
    assert full.settings["truncate"] is None        # pubeval has no network: whole trials
    bset = read_benchmark(tmp_path / "a.jsonl")
    assert [d.extra["class"] for d in bset.decisions] == ["contact", "race"] * 2
    for d in bset.decisions:
        assert len(d.candidates) >= 2 and d.extra["diff_se"][0] == 0.0
        eq = [c.equity for c in d.candidates]
        assert eq == sorted(eq, reverse=True)
    # a crash after two decisions: the journal cut to them, then resumed
    journal = tmp_path / "b.jsonl.journal"
    lines = (tmp_path / "a.jsonl.journal").read_text().splitlines(keepends=True)
    journal.write_text("".join(lines[:4]) + lines[4][:20])
    again = fastbg.make_benchmark(tmp_path / "b.jsonl", resume=True, **PUBEVAL_SET)
    assert again.decisions == 4
    assert (tmp_path / "b.jsonl").read_bytes() == (tmp_path / "a.jsonl").read_bytes()
    with pytest.raises(fastbg.JournalError, match="trials"):
        fastbg.make_benchmark(tmp_path / "b.jsonl", resume=True, **{**PUBEVAL_SET, "trials": 36})
    with pytest.raises(FileExistsError):
        fastbg.make_benchmark(tmp_path / "b.jsonl", **PUBEVAL_SET)
    with pytest.raises(ValueError, match="classes"):
        fastbg.make_benchmark(tmp_path / "c.jsonl", mix={"opening": 1})


# ------------------------------------------------------------------ the commands

def test_score_command(tmp_path):
    from click.testing import CliRunner
    from fastbg.cli import main
    path, _ = _hand_set(tmp_path)
    r = CliRunner().invoke(main, ["benchmark", "score", str(path), "--bots", "random,greedy",
                                  "--json", str(tmp_path / "c.json"), "--no-progress"])
    assert r.exit_code == 0, r.output
    assert "mEMG" in r.output and "greedy" in r.output
    back = fastbg.BenchmarkComparison.load(tmp_path / "c.json")
    rates = [s.error_rate for s in back.scores]
    assert rates == sorted(rates) and {s.bot for s in back.scores} == {"random", "greedy"}
    bad = CliRunner().invoke(main, ["benchmark", "score", str(path), "--bots", "nobody"])
    assert bad.exit_code == 1 and "unknown bot" in bad.output
    broken = tmp_path / "broken.jsonl"
    broken.write_text(path.read_text() + '{"position": "nonsense", "dice": [3, 1]}\n')
    bad = CliRunner().invoke(main, ["benchmark", "score", str(broken), "--bots", "greedy"])
    assert bad.exit_code == 1 and "broken.jsonl:4:" in bad.output


def _sigint_as_in_a_terminal():
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_make_command_ctrl_c_then_resume(tmp_path):
    pytest.importorskip("click", reason="the CLI needs the 'cli' extra (click)")
    args = [sys.executable, "-m", "fastbg", "benchmark", "make", "s.jsonl", "--mix",
            "contact=6", "--game-bots", "pubeval,random", "--bot", "pubeval", "--trials",
            "1296", "--chunk", "1296", "--seed", "4", "--threads", "1", "--no-progress"]
    proc = subprocess.Popen(args, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=dict(os.environ, PYTHONUNBUFFERED="1"),
                            preexec_fn=_sigint_as_in_a_terminal)
    journal = tmp_path / "s.jsonl.journal"
    t0 = time.monotonic()
    while not journal.exists() or len(journal.read_text().splitlines()) < 3:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() - t0 < 120, "no decision was saved in time"
        time.sleep(0.01)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, (out, err)
    assert "--resume" in err
    records = [json.loads(x) for x in journal.read_text().splitlines()[2:]]
    assert 1 <= len(records) < 6
    done = subprocess.run(args + ["--resume"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    want = fastbg.make_benchmark(tmp_path / "w.jsonl", decisions=None, mix={"contact": 6},
                                 game_bots=("pubeval", "random"), bot="pubeval", trials=1296,
                                 chunk_size=1296, seed=4, threads=1)
    assert want.decisions == 6
    assert (tmp_path / "s.jsonl").read_bytes() == (tmp_path / "w.jsonl").read_bytes()


def test_bad_file_is_refused_with_its_line(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_text('{"position": "4HPwATDgc/ABMA", "dice": [3, 7], "candidates": []}\n')
    with pytest.raises(BenchmarkFileError, match="x.jsonl:1:"):
        fastbg.score_benchmark(path, "pubeval")


# ------------------------------------------------------------------ the shipped set

def test_shipped_set_reads_and_says_where_it_came_from():
    from fastbg.benchmarks.scoring import shipped_set_path
    path = shipped_set_path()
    bset = read_benchmark(path)                 # every line checked: legal, distinct moves
    with open(path.replace(".jsonl.gz", ".json"), encoding="utf-8") as f:
        provenance = json.load(f)
    assert provenance["decisions"] == len(bset.decisions) > 0
    assert provenance["settings"]["trials"] == 1296 and provenance["sessions"]
    assert "MIT" in provenance["licence"] and provenance["command"].startswith("python3 scripts/")
    classes = [d.extra["class"] for d in bset.decisions]
    counts = {k: classes.count(k) for k in ("contact", "crashed", "race")}
    assert max(counts.values()) - min(counts.values()) <= 1      # interleaved: a cut keeps the mix
    for d in bset.decisions:
        assert d.extra["trials"] == 1296 and len(d.candidates) >= 2
        assert d.extra["diff_se"][0] == 0.0 and all(s >= 0 for s in d.extra["diff_se"])
    # the command scores on it when no file is named
    from click.testing import CliRunner
    from fastbg.cli import main
    r = CliRunner().invoke(main, ["benchmark", "score", "--bots", "pubeval", "--no-progress"])
    assert r.exit_code == 0 and "fastbg-2026.jsonl.gz" in r.output, r.output
