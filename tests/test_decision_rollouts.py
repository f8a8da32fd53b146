"""Decision rollouts (fastbg.jobs.decision_rollouts) and files of positions
(fastbg.jobs.position_files).

* Move rollouts: each candidate's figures are fastbg.rollout of the position after the
  move from the other side (same seed: common dice); a candidate listed twice differs from
  itself by exactly zero; paired errors are below unpaired ones; in small two-sided
  bear-offs the gnubg bot (perfect there, from its bear-off tables) lands within 3 SE of
  each candidate's winning chance by an optimal-play DP written here.
* Cube rollouts: last-roll positions (the mover bears off now with chance p or loses) have
  no double 2p - 1, double/take 2(2p - 1), double/pass 1, exactly when the trials are a
  multiple of 36 with the first roll stratified; the proper action follows.
* Results files: interrupted (cut) files resume to bit-identical figures; rollout_many
  lines equal fastbg.rollout of each position in any order; a bad line names its number.
* The command line: --dice, --cube-decision, --positions, --csv.
"""
import csv
import json
import pathlib
from fractions import Fraction
from functools import lru_cache

import numpy as np
import pytest

import fastbg
from fastbg.cube.formulas import swap_sides
from reference.movegen import legal_moves_ref, make_board

START_ID = "4HPwATDgc/ABMA"


def board(mine, theirs):
    """int8 board from {point: count}, each side in its own numbering."""
    return np.array(make_board(mine, {25 - p: n for p, n in theirs.items()}), np.int8)


@pytest.fixture(scope="module")
def net(gnubg_net):
    """GNU Backgammon's networks (tests/conftest.py)."""
    return gnubg_net


# ---- move rollouts ---------------------------------------------------------------------

def test_each_candidate_is_the_rollout_of_its_result():
    moves = ["8/5 6/5", "24/21 6/5", "13/10 6/5"]
    r = fastbg.rollout_moves(START_ID, (3, 1), moves=moves, trials=648, seed=4, bot="pubeval")
    assert [row.move for row in r] != [] and sorted(row.move for row in r) == sorted(moves)
    for row in r:
        after = np.array(row.board, np.int8)
        one = fastbg.rollout(fastbg.flip(after), trials=648, seed=4, bot="pubeval")
        np.testing.assert_allclose(row.probabilities, swap_sides(np.array(one.probabilities)),
                                   atol=1e-12)
        assert row.equity == pytest.approx(-one.equity, abs=1e-12)
        assert row.equity_se == pytest.approx(one.equity_se, rel=1e-9)
    eq = [row.equity for row in r]
    assert eq == sorted(eq, reverse=True) and r[0].diff == 0.0 and r[0].diff_se == 0.0
    for row in r[1:]:
        assert row.diff == pytest.approx(row.equity - r[0].equity, abs=1e-12)
        # common dice: the trials are positively correlated, so the paired error is below
        # the unpaired one (0.83 of it here: the games part ways after a few rolls)
        assert row.diff_se < np.hypot(row.equity_se, r[0].equity_se)


def test_a_candidate_twice_differs_from_itself_by_zero():
    r = fastbg.rollout_moves(START_ID, (6, 4), moves=["24/14", "24/14", "8/2 6/2"],
                             trials=360, seed=1, bot="greedy")
    same = [row for row in r if row.move == "24/14"]
    assert len(same) == 2 and same[0].equity == same[1].equity
    twice = fastbg.rollout_moves(START_ID, (6, 4), moves=["24/14", "24/14"], trials=360,
                                 seed=1, bot="greedy")
    assert twice[1].diff == 0.0 and twice[1].diff_se == 0.0
    assert twice[1].equity_se > 0.0


def test_every_move_and_notation_input():
    everything = fastbg.rollout_moves(START_ID, (2, 1), trials=36, bot="random")
    assert len(everything) == len(fastbg.legal_moves(fastbg.START, (2, 1)))
    boards = [fastbg.parse_move(fastbg.START, "13/11 6/5", (2, 1))]
    one = fastbg.rollout_moves(START_ID, (2, 1), moves=boards, trials=36, bot="random")
    assert one[0].move == "13/11 6/5"
    with pytest.raises(ValueError, match="not a legal move"):
        fastbg.rollout_moves(START_ID, (2, 1), moves=["13/9"], trials=36)
    with pytest.raises(ValueError, match="no dice"):
        fastbg.rollout_moves(START_ID, trials=36)
    with pytest.raises(ValueError, match="trials"):
        fastbg.rollout_moves(START_ID, (2, 1), trials=0)


def test_top_k_by_hint_and_cubeful_columns(net):
    # pubeval plays the trials: a gnubg bot with the cube would compile the game kernel
    # with the networks and the cube together (about 50 s of the suite) for nothing more
    r = fastbg.rollout_moves(START_ID, (3, 1), moves=3, trials=72, bot="pubeval",
                             rules=fastbg.MoneyRules())
    h = fastbg.hint(START_ID, (3, 1))
    assert sorted(row.move for row in r) == sorted(c.move for c in h[:3])
    cf = [row.cubeful for row in r]
    assert all(c is not None for c in cf) and cf == sorted(cf, reverse=True)
    assert r[0].cubeful_diff == 0.0 and all(row.cubeful_diff <= 0 for row in r)


@lru_cache(maxsize=None)
def _win_optimal(key):
    """The player on roll's winning chance, both sides playing to win (no contact,
    no gammons possible): key = the board as a tuple."""
    b = list(key)
    total = Fraction(0)
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            best = Fraction(0)
            for r in legal_moves_ref(b, (d1, d2)):
                r = list(r)
                if sum(max(x, 0) for x in r[1:]) == 0:
                    v = Fraction(1)
                else:
                    v = 1 - _win_optimal(tuple(-x for x in r[::-1]))
                best = max(best, v)
            total += best / 36
    return total


@pytest.mark.parametrize("mine, theirs, dice", [
    ({6: 1, 5: 1, 3: 1}, {6: 1, 4: 1}, (2, 1)),
    ({5: 2, 4: 1}, {5: 1, 3: 1, 2: 1}, (4, 1)),
])
def test_gnubg_bot_in_bear_offs_matches_the_optimal_dp(net, mine, theirs, dice):
    b = board(mine, theirs)
    # the gnubg bot's choices made in lock-step from the networks' batch kernel: the same
    # as the in-kernel bot's (tests/test_gnubgnet.py), without compiling the game kernel
    # with the networks for this one test (about 40 s of a fresh suite)
    from fastbg.sim.bots import EvaluatorBot
    r = fastbg.rollout_moves(b, dice, trials=2592, seed=7,
                             bot=EvaluatorBot(net.scores_rows, name="gnubg"))
    assert len(r) >= 2
    for row in r:
        after = np.array(row.board, np.int8)
        want = 1 - _win_optimal(tuple(int(x) for x in (-after[::-1])))
        assert abs(row.probabilities[0] - float(want)) <= 3 * row.probabilities_se[0] + 1e-12, \
            (row.move, row.probabilities[0], float(want))
    # the rollout ranks the DP's best move first or within its error
    exact = {row.move: float(1 - _win_optimal(tuple(int(x) for x in -np.array(row.board)[::-1])))
             for row in r}
    assert exact[r[0].move] >= max(exact.values()) - 3 * max(row.diff_se for row in r) - 1e-12


def test_move_rollout_resumes_bit_identically(tmp_path):
    kw = dict(moves=["8/5 6/5", "24/21 6/5"], trials=1296, seed=2, bot="pubeval",
              chunk_size=324)
    full = tmp_path / "full.jsonl"
    want = fastbg.rollout_moves(START_ID, (3, 1), out=str(full), **kw)
    lines = full.read_text().splitlines()
    assert len(lines) == 5
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(lines[:3]) + "\n" + lines[3][:50])
    got = fastbg.rollout_moves(START_ID, (3, 1), out=str(cut), resume=True, **kw)
    assert got.to_dict() == want.to_dict()
    assert fastbg.MoveRollout.load(str(full)).to_dict() == want.to_dict()
    with pytest.raises(fastbg.JournalError, match="seed"):
        fastbg.rollout_moves(START_ID, (3, 1), out=str(full), resume=True,
                             **{**kw, "seed": 3})


def test_target_se_stops_at_a_chunk_boundary_reproducibly(tmp_path):
    kw = dict(moves=["8/5 6/5", "24/21 6/5"], trials=12960, seed=2, bot="pubeval",
              chunk_size=324, target_se=0.05)
    r = fastbg.rollout_moves(START_ID, (3, 1), **kw)
    assert r.trials % 324 == 0 and 324 < r.trials < 12960 and not r.partial
    assert max(row.equity_se for row in r) <= 0.05
    shorter = fastbg.rollout_moves(START_ID, (3, 1), **{**kw, "trials": r.trials - 324,
                                                        "target_se": None})
    assert max(row.equity_se for row in shorter) > 0.05      # it stopped at the first chunk
    path = tmp_path / "t.jsonl"
    fastbg.rollout_moves(START_ID, (3, 1), out=str(path), **kw)
    assert fastbg.MoveRollout.load(str(path)).to_dict() == r.to_dict()
    one = fastbg.rollout(START_ID, trials=12960, seed=2, bot="pubeval", chunk_size=324,
                         target_se=0.04)
    assert one.equity_se <= 0.04 and one.trials < 12960 and not one.partial
    with pytest.raises(ValueError, match="target_se"):
        fastbg.rollout_cube(START_ID, trials=36, bot="pubeval", target_se=-1)


def test_pruning_drops_clearly_worse_moves_and_keeps_the_dice(tmp_path):
    kw = dict(trials=1620, seed=3, bot="pubeval", chunk_size=324)
    full = fastbg.rollout_moves(START_ID, (3, 1), **kw)
    path = tmp_path / "p.jsonl"
    pruned = fastbg.rollout_moves(START_ID, (3, 1), prune=3.0, out=str(path), **kw)
    dropped = [row for row in pruned if row.trials < 1620]
    kept = [row for row in pruned if row.trials == 1620]
    assert dropped and kept and all(row.trials % 324 == 0 for row in dropped)
    assert pruned[0].trials == 1620 and pruned[0].move == full[0].move
    # the candidates that played on are those of the unpruned run, bit for bit (same dice)
    same = {row.move: row for row in full}
    for row in kept:
        assert (row.equity, row.equity_se, row.probabilities) == (
            same[row.move].equity, same[row.move].equity_se, same[row.move].probabilities)
    # a dropped one holds the first trials it played: those of a rollout of that length,
    # and it was clearly worse than the best over them (the best did not change here)
    best = pruned[0].move
    for row in dropped:
        short = {r.move: r for r in fastbg.rollout_moves(
            START_ID, (3, 1), moves=[row.move, best], **{**kw, "trials": row.trials})}
        assert (row.equity, row.equity_se) == (short[row.move].equity,
                                              short[row.move].equity_se)
        assert row.diff == pytest.approx(short[row.move].equity - short[best].equity,
                                         abs=1e-12)
        assert row.diff + 3.0 * row.diff_se < 0.0
    assert "dropped after" in pruned.table()
    # the drops are a function of the finished chunks: a cut file resumes to the same
    lines = path.read_text().splitlines()
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(lines[:3]) + "\n")
    again = fastbg.rollout_moves(START_ID, (3, 1), prune=3.0, out=str(cut), resume=True, **kw)
    assert again.to_dict() == pruned.to_dict()
    assert fastbg.MoveRollout.load(str(path)).to_dict() == pruned.to_dict()
    for bad in (0, -1, True, "4"):
        with pytest.raises(ValueError, match="prune"):
            fastbg.rollout_moves(START_ID, (3, 1), prune=bad, **kw)
    with pytest.raises(ValueError, match="backend='local'"):
        fastbg.rollout_moves(START_ID, (3, 1), prune=3.0, backend=fastbg.RayCluster(), **kw)


# ---- cube rollouts ---------------------------------------------------------------------

@pytest.mark.parametrize("mine, p, action", [
    ({3: 1, 2: 1}, Fraction(25, 36), "double, take"),
    ({2: 1, 1: 1}, Fraction(1), "double, pass"),
    ({6: 1, 5: 1}, Fraction(6, 36), "no double, take"),
])
def test_last_roll_cube_decisions_are_exact(mine, p, action):
    b = board(mine, {1: 1})           # the opponent bears off his last checker next roll
    hits = sum(any(int(np.clip(r[1:], 0, None).sum()) == 0
                   for r in fastbg.legal_moves(b, (d1, d2)))
               for d1 in range(1, 7) for d2 in range(1, 7))
    assert Fraction(hits, 36) == p
    r = fastbg.rollout_cube(b, trials=72, seed=3, bot="pubeval", cube=("never", "never"))
    nd, dt = float(2 * p - 1), float(2 * (2 * p - 1))
    assert r.no_double == pytest.approx(nd, abs=1e-12)
    assert r.double_take == pytest.approx(dt, abs=1e-12)
    assert r.double_pass == 1.0 and r.action == action
    assert r.take_minus_no_double == pytest.approx(dt - nd, abs=1e-12)


@pytest.mark.parametrize("bot", ["gnubg-1ply", "gnubg-1ply-2x0.03-prune"])
def test_nply_bot_cube_rollout_defaults_to_its_nply_cube(net, bot):
    # the last-roll position of fastbg.rollout_cube's docstring: exact over 36 trials
    # whatever the cube strategies do after the decision (the game ends within two plies)
    r = fastbg.rollout_cube("AQAAKAAAAAAAAA", trials=36, bot=bot)
    assert r.settings["cube"] == ["gnubg-1ply-janowski"] * 2
    assert (round(r.no_double * 36, 9), round(r.double_take * 36, 9), r.action) == (
        14.0, 28.0, "double, take")


def test_cube_rollout_match_and_errors():
    b = board({3: 1, 2: 1}, {1: 1})
    r = fastbg.rollout_cube(b, rules=fastbg.MatchRules(5), trials=36, bot="pubeval",
                            cube=("never", "never"))
    from fastbg.cube.met import mwc_after
    p = 25 / 36
    assert r.no_double == pytest.approx(p * mwc_after(5, 5, 1) + (1 - p) * mwc_after(5, 5, -1))
    assert r.double_take == pytest.approx(p * mwc_after(5, 5, 2) + (1 - p) * mwc_after(5, 5, -2))
    assert r.double_pass == pytest.approx(mwc_after(5, 5, 1))
    owned = fastbg.xgid(b, cube_value=2, cube_owner="top")     # bottom is on roll
    with pytest.raises(ValueError, match="opponent owns the cube"):
        fastbg.rollout_cube(owned, trials=36, bot="pubeval")


def test_cube_rollout_resumes_bit_identically(tmp_path):
    kw = dict(trials=1296, seed=4, bot="pubeval", chunk_size=324)
    full = tmp_path / "c.jsonl"
    want = fastbg.rollout_cube(START_ID, out=str(full), **kw)
    lines = full.read_text().splitlines()
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(lines[:2]) + "\n" + lines[2][:40])
    got = fastbg.rollout_cube(START_ID, out=str(cut), resume=True, **kw)
    assert got.to_dict() == want.to_dict() == fastbg.CubeRollout.load(str(full)).to_dict()
    assert cut.read_text() == full.read_text()


def test_no_double_line_forbids_the_first_double():
    """With cube strategies that would double at once, the no-double line must not."""
    b = board({3: 1, 2: 1}, {1: 1})
    r = fastbg.rollout_cube(b, trials=72, seed=3, bot="pubeval", cube=("race", "never"))
    assert r.no_double == pytest.approx(14 / 36, abs=1e-12)


# ---- files of positions ----------------------------------------------------------------

POSITIONS = [START_ID, "AACAkCRJqqoAAA", "4HPwATDgc/ABMA"]


def test_rollout_many_equals_rollout_in_any_order(tmp_path):
    kw = dict(trials=72, seed=5, bot="pubeval")
    r = fastbg.rollout_many(POSITIONS, **kw)
    back = fastbg.rollout_many(POSITIONS[::-1], **kw)
    for rec, again in zip(r.records, back.records[::-1]):
        one = fastbg.rollout(rec["position"], **kw).to_dict()
        assert {k: rec[k] for k in one} == json.loads(json.dumps(one))
        assert {k: again[k] for k in one} == {k: rec[k] for k in one}
    path = tmp_path / "many.jsonl"
    fastbg.rollout_many(POSITIONS, out=str(path), **kw)
    lines = path.read_text().splitlines()
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(lines[:2]) + "\n" + lines[2][:30])
    resumed = fastbg.rollout_many(POSITIONS, out=str(cut), resume=True, **kw)
    assert resumed.records == fastbg.ManyRollouts.load(str(path)).records
    assert cut.read_text() == path.read_text()


def test_rollout_many_spreads_positions_of_few_trials_over_threads():
    """Positions whose trials make one chunk are rolled out several at once, one thread
    each; the figures are those of the one-thread run, position for position."""
    from fastbg.distributed import LOCAL, LocalThreads
    from fastbg.jobs.position_files import _spread
    backend, options = _spread(LOCAL, {"threads": 2}, 72, 5)
    assert isinstance(backend, LocalThreads) and options["threads"] == 1
    assert _spread(LOCAL, {"threads": 2}, 2592, 5)[0] is LOCAL         # two chunks each
    assert _spread(LOCAL, {"threads": 1}, 72, 5)[0] is LOCAL
    assert _spread(LOCAL, {"threads": 2}, 72, 1)[0] is LOCAL
    ids = [fastbg.position_id(b) for b in fastbg.legal_moves(fastbg.START, (6, 5))]
    kw = dict(trials=72, seed=3, bot="pubeval")
    spread = fastbg.rollout_many(ids * 3, threads=2, **kw)
    one = fastbg.rollout_many(ids * 3, threads=1, **kw)
    assert [r["line"] for r in spread.records] == list(range(1, 3 * len(ids) + 1))
    assert spread.records == one.records


def test_local_threads_hands_results_back_in_order_and_stops_when_closed():
    import threading
    import time
    from fastbg.distributed import LocalThreads
    started = []
    lock = threading.Lock()

    def unit(i):
        with lock:
            started.append(i)
        time.sleep(0.002 * (i % 3))             # later units may finish first
        if i == 7:
            raise RuntimeError("unit 7 failed")
        return i * i

    got = [(spec, res) for spec, res, _ in LocalThreads(3).map(unit, [(i,) for i in range(7)])]
    assert got == [((i,), i * i) for i in range(7)]
    started.clear()
    results = LocalThreads(2).map(unit, [(i,) for i in range(100)])
    assert next(results)[1] == 0
    results.close()                             # the job stopped taking results
    assert len(started) <= 1 + 2 * 2            # at most two a thread ahead, then none
    with pytest.raises(RuntimeError, match="unit 7"):
        list(LocalThreads(2).map(unit, [(i,) for i in range(10)]))


def test_a_bad_line_names_its_number_and_keeps_the_lines_before(tmp_path):
    f = tmp_path / "p.txt"
    f.write_text(f"# a comment\n{START_ID}\n\nnot-a-position\n{START_ID}\n")
    out = tmp_path / "o.jsonl"
    with pytest.raises(ValueError, match=r"line 4: 'not-a-position'"):
        fastbg.rollout_many(pathlib.Path(f), trials=36, bot="pubeval", out=str(out))
    recs = [json.loads(x) for x in out.read_text().splitlines()[1:]]
    assert [r["line"] for r in recs] == [2]
    with pytest.raises(TypeError, match="list of positions"):
        fastbg.rollout_many(START_ID, trials=36)


# ---- command line ----------------------------------------------------------------------

click_testing = pytest.importorskip("click.testing", reason="the CLI needs click")
from fastbg.cli import main  # noqa: E402


def cli(*args):
    return click_testing.CliRunner().invoke(main, ["rollout", *map(str, args)])


def test_cli_move_and_cube_rollouts(tmp_path):
    j = tmp_path / "m.json"
    res = cli(START_ID, "--dice", "3-1", "--moves", "8/5 6/5;24/21 6/5", "--trials", 72,
              "--bot", "pubeval", "--no-progress", "--json", j)
    assert res.exit_code == 0, res.output
    assert "8/5 6/5" in res.output and "diff" in res.output
    api = fastbg.rollout_moves(START_ID, (3, 1), moves=["8/5 6/5", "24/21 6/5"], trials=72,
                               bot="pubeval").to_dict()
    d = json.loads(j.read_text())
    assert {k: d[k] for k in api} == json.loads(json.dumps(api))
    b = board({3: 1, 2: 1}, {1: 1})
    res = cli(fastbg.position_id(b), "--cube-decision", "--trials", 72, "--bot", "pubeval",
              "--cube", "never,never", "--no-progress")
    assert res.exit_code == 0 and "Proper cube action: Double, take" in res.output, res.output
    res = cli(START_ID, "--dice", "3-1", "--cube-decision")
    assert res.exit_code != 0 and "choose one" in res.output
    res = cli(START_ID, "--dice", "3-1", "--trials", 972, "--chunk", 324, "--prune", 2,
              "--bot", "pubeval", "--no-progress")
    assert res.exit_code == 0 and "dropped after 324 trials" in res.output, res.output
    res = cli(START_ID, "--dice", "3-1", "--moves", "8/5 6/5", "--trials", 60, "--bot",
              "pubeval", "--first-roll", "opening", "--no-progress", "--json", j)
    api = fastbg.rollout_moves(START_ID, (3, 1), moves=["8/5 6/5"], trials=60, bot="pubeval",
                               first_roll="opening").to_dict()
    assert res.exit_code == 0 and json.loads(j.read_text())["rows"] == json.loads(
        json.dumps(api["rows"])), res.output
    res = cli(START_ID, "--prune", 2, "--trials", 36)
    assert res.exit_code != 0 and "--prune needs --dice" in res.output


def test_cli_positions_file_and_csv(tmp_path):
    f = tmp_path / "p.txt"
    f.write_text("\n".join(POSITIONS) + "\n")
    c = tmp_path / "p.csv"
    res = cli("--positions", f, "--trials", 36, "--bot", "pubeval", "--no-progress",
              "--out", tmp_path / "p.jsonl", "--csv", c)
    assert res.exit_code == 0, res.output
    rows = list(csv.DictReader(c.open()))
    assert [r["position"] for r in rows] == POSITIONS
    want = fastbg.rollout(POSITIONS[1], trials=36, bot="pubeval")
    assert float(rows[1]["equity"]) == pytest.approx(want.equity, abs=1e-12)
    pq = pytest.importorskip("pyarrow.parquet", reason="pyarrow (the parquet extra)")
    many = fastbg.ManyRollouts.load(str(tmp_path / "p.jsonl"))
    many.to_parquet(str(tmp_path / "p.parquet"))
    table = pq.read_table(str(tmp_path / "p.parquet")).to_pydict()
    assert table["position"] == POSITIONS and table["equity"][1] == want.equity


# ---- late evaluation: another bot from ply k on ------------------------------------------

def test_late_switch_of_bots(net):
    from fastbg.sim.bots import EvaluatorBot
    same = EvaluatorBot(net.scores, name="gnubg-batch")
    worst = EvaluatorBot(lambda rows: -net.scores(rows), name="worst")
    kw = dict(trials=72, seed=3)
    a = fastbg.rollout(START_ID, bot=same, late=(2, "gnubg"), **kw)
    b = fastbg.rollout(START_ID, bot=same, **kw)
    assert a.probabilities == b.probabilities            # the same choices, ply by ply
    cut = dict(kw, evaluator="gnubg")
    early = fastbg.rollout(START_ID, bot=worst, late=(1, "gnubg"), truncate=1, **cut)
    assert early.probabilities == fastbg.rollout(START_ID, bot=worst, truncate=1,
                                                 **cut).probabilities
    switched = fastbg.rollout(START_ID, bot=worst, late=(1, "gnubg"), truncate=2, **cut)
    assert switched.probabilities != fastbg.rollout(START_ID, bot=worst, truncate=2,
                                                    **cut).probabilities
    assert "then gnubg from ply 1" in fastbg.sim.setup.job_setup(
        bots=(worst, worst), late=(1, ("gnubg", "gnubg"))).names[0]
    with pytest.raises(ValueError, match="cannot take part"):
        fastbg.rollout(START_ID, bot="pubeval", late=(2, "gnubg"), trials=36)
    m = fastbg.rollout_moves(START_ID, (3, 1), moves=["8/5 6/5", "24/21 6/5"],
                             bot=same, late=(2, "gnubg"), trials=36)
    assert m.settings["late"] == [2, "gnubg"]
    res = cli(START_ID, "--ply", 0, "--late", "1,gnubg", "--trials", 36, "--no-progress")
    assert res.exit_code == 0, res.output
    res = cli(START_ID, "--bot", "pubeval", "--late", "x", "--trials", 36)
    assert res.exit_code != 0 and "K,BOT" in res.output
