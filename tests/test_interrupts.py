"""Ctrl-C for every job: a real SIGINT sent to a real ``fastbg`` process.

For play, matches, rollouts and tournaments the command is started with a results file
(``--out``); once its first chunk is on disk the process gets SIGINT. It must stop before
the end (the file holds fewer chunks than the whole job), exit with status 130, say how
to resume, and leave only whole chunk lines; ``--resume`` then finishes the job with
figures bit-identical to an uninterrupted run in this process. One more test does the
same through the Python API (``fastbg.rollout`` returns a partial result).
"""
import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import fastbg

pytest.importorskip("click", reason="the CLI needs the 'cli' extra (click)")

WAIT_S = 120        # generous: a cold compile cache on a busy 2-core machine


def _sigint_as_in_a_terminal():
    """The child takes SIGINT as in a terminal: a test run started in the background (by a
    non-interactive shell, as CI may) inherits SIGINT ignored, and so would the job."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start(args, tmp_path):
    """Start ``python -m fastbg ARGS`` (or a Python script with ``-c``) in ``tmp_path``."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    cmd = [sys.executable] + (args if args[0] == "-c" else ["-m", "fastbg"] + args)
    return subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=_sigint_as_in_a_terminal)


def _records(path):
    """The journal's record lines (all but the header), each parsed: a damaged line fails."""
    lines = path.read_text().splitlines() if path.exists() else []
    return [json.loads(line) for line in lines[1:]]


def _interrupt_after_first_chunk(proc, path):
    """Wait for the first chunk line in ``path``, send SIGINT; (stdout, stderr, rc)."""
    t0 = time.monotonic()
    while len(_records(path)) < 1:
        if proc.poll() is not None:
            out, err = proc.communicate()
            pytest.fail(f"the job ended before its first chunk was saved:\n{out}\n{err}")
        if time.monotonic() - t0 > WAIT_S:
            proc.kill()
            pytest.fail("no chunk was saved in time")
        time.sleep(0.005)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=WAIT_S)
    return out, err, proc.returncode


def _check_interrupted(out, err, rc, path, n_chunks_whole):
    assert rc == 130, (rc, out, err)
    assert "--resume" in err, err
    recs = _records(path)                      # every line parses: no half-written chunk
    assert 1 <= len(recs) < n_chunks_whole, (len(recs), n_chunks_whole)
    return recs


def _without_time(d):
    return {k: v for k, v in d.items() if k != "seconds"}


def test_rollout_ctrl_c_then_resume_is_bit_identical(tmp_path):
    args = ["rollout", "4HPwATDgc/ABMA", "--bot", "pubeval", "--trials", "19440", "--chunk",
            "324", "--seed", "5", "--threads", "1", "--no-progress", "--out", "r.jsonl"]
    path = tmp_path / "r.jsonl"
    out, err, rc = _interrupt_after_first_chunk(_start(args, tmp_path), path)
    recs = _check_interrupted(out, err, rc, path, 60)
    assert "partial: interrupted" in out
    assert all(r["hi"] - r["lo"] == 324 for r in recs)
    done = subprocess.run([sys.executable, "-m", "fastbg"] + args + ["--resume", "--json", "r.json"],
                          cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    want = fastbg.rollout("4HPwATDgc/ABMA", trials=19440, chunk_size=324, seed=5,
                          bot="pubeval")
    got = json.loads((tmp_path / "r.json").read_text())
    assert _without_time(got) == json.loads(json.dumps(want.to_dict()))
    assert fastbg.RolloutResult.load(path).to_dict() == want.to_dict()


def _move_rollout_ctrl_c_then_resume(tmp_path, bot, trials, chunk, seed, threads):
    """Ctrl-C a move rollout of two moves of the opening 3-1 after its first chunk, resume
    it, and compare with the same rollout uninterrupted in this process."""
    args = ["rollout", "4HPwATDgc/ABMA", "--dice", "3-1", "--moves", "8/5 6/5;24/21 6/5",
            "--bot", bot, "--trials", str(trials), "--chunk", str(chunk), "--seed", str(seed),
            "--threads", str(threads), "--no-progress", "--out", "m.jsonl"]
    path = tmp_path / "m.jsonl"
    out, err, rc = _interrupt_after_first_chunk(_start(args, tmp_path), path)
    _check_interrupted(out, err, rc, path, trials // chunk)
    done = subprocess.run([sys.executable, "-m", "fastbg"] + args + ["--resume", "--json", "m.json"],
                          cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    want = fastbg.rollout_moves("4HPwATDgc/ABMA", (3, 1), moves=["8/5 6/5", "24/21 6/5"],
                                trials=trials, chunk_size=chunk, seed=seed, bot=bot)
    got = json.loads((tmp_path / "m.json").read_text())
    assert _without_time(got) == json.loads(json.dumps(want.to_dict()))


def test_move_rollout_ctrl_c_then_resume_is_bit_identical(tmp_path):
    _move_rollout_ctrl_c_then_resume(tmp_path, "pubeval", 6480, 162, 5, 1)


def test_nply_move_rollout_on_two_threads_ctrl_c_then_resume(tmp_path):
    """A 1-ply bot's chunks are played in one part per thread (fastbg.sim.games): Ctrl-C
    stops both, and the resumed run equals one uninterrupted."""
    pytest.importorskip("gnubg_nn", reason="gnubg-nn (the gnubg extra) is not installed")
    _move_rollout_ctrl_c_then_resume(tmp_path, "gnubg-1ply-2x0.03-prune", 288, 36, 6, 2)


def _positions_ctrl_c_then_resume(tmp_path, copies, trials, threads, check):
    """``fastbg rollout --positions`` of the 6-5 results, ``copies`` times over: SIGINT once
    the first position is saved, then ``--resume``; positions ``check`` (indices) of the
    finished file against fastbg.rollout. Returns the records kept by the interrupted run."""
    ids = [fastbg.position_id(b) for b in fastbg.legal_moves(fastbg.START, (6, 5))] * copies
    (tmp_path / "p.txt").write_text("\n".join(ids) + "\n")
    args = ["rollout", "--positions", "p.txt", "--bot", "pubeval", "--trials", str(trials),
            "--seed", "5", "--threads", str(threads), "--no-progress", "--out", "p.jsonl"]
    path = tmp_path / "p.jsonl"
    out, err, rc = _interrupt_after_first_chunk(_start(args, tmp_path), path)
    kept = _check_interrupted(out, err, rc, path, len(ids))
    done = subprocess.run([sys.executable, "-m", "fastbg"] + args + ["--resume"],
                          cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    recs = _records(path)
    assert [r["index"] for r in recs] == list(range(len(ids)))
    for i in check(len(ids)):
        want = fastbg.rollout(ids[i], trials=trials, seed=5, bot="pubeval").to_dict()
        assert {k: recs[i][k] for k in want} == json.loads(json.dumps(want))
    return kept


def test_positions_rollout_ctrl_c_then_resume_is_bit_identical(tmp_path):
    _positions_ctrl_c_then_resume(tmp_path, 2, 1296, 1, lambda n: [n - 1])


def test_positions_of_few_trials_on_two_threads_ctrl_c_then_resume(tmp_path):
    """Positions of one chunk each are rolled out two at a time (LocalThreads): Ctrl-C
    keeps the finished positions in order and no other; the resume completes the file."""
    kept = _positions_ctrl_c_then_resume(tmp_path, 300, 36, 2,
                                         lambda n: [0, n // 2, n - 1])
    assert [r["index"] for r in kept] == list(range(len(kept)))


def test_play_ctrl_c_then_resume_is_bit_identical(tmp_path):
    args = ["play", "--bots", "pubeval,greedy", "--games", "16000", "--seed", "9",
            "--threads", "1", "--no-progress", "--out", "g.jsonl"]
    path = tmp_path / "g.jsonl"
    out, err, rc = _interrupt_after_first_chunk(_start(args, tmp_path), path)
    recs = _check_interrupted(out, err, rc, path, 10**9)
    assert recs[-1]["hi"] < 16000 and "partial: interrupted" in out
    done = subprocess.run([sys.executable, "-m", "fastbg"] + args
                          + ["--resume", "--json", "s.json", "--save", "g.npz"],
                          cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    want = fastbg.play(16000, ("pubeval", "greedy"), seed=9)
    got = fastbg.GameResults.load(tmp_path / "g.npz")
    for name in ("winner", "kind", "points", "plies", "first", "cube", "dropped"):
        assert np.array_equal(getattr(got, name), getattr(want, name)), name
    summary = json.loads((tmp_path / "s.json").read_text())
    assert {k: summary[k] for k in ("points_per_game", "win_rate", "gammon_rate")} == {
        k: json.loads(json.dumps(want.summary()))[k]
        for k in ("points_per_game", "win_rate", "gammon_rate")}


def test_matches_ctrl_c_then_resume_is_bit_identical(tmp_path):
    args = ["play", "--bots", "pubeval,greedy", "--match", "5", "--games", "5000",
            "--cube", "race,race", "--seed", "4", "--threads", "1", "--no-progress",
            "--out", "m.jsonl"]
    path = tmp_path / "m.jsonl"
    out, err, rc = _interrupt_after_first_chunk(_start(args, tmp_path), path)
    recs = _check_interrupted(out, err, rc, path, 10**9)
    assert recs[-1]["hi"] < 5000
    done = subprocess.run([sys.executable, "-m", "fastbg"] + args
                          + ["--resume", "--save", "m.npz"],
                          cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    want = fastbg.play_matches(5000, 5, ("pubeval", "greedy"), seed=4, cube=("race", "race"))
    got = fastbg.MatchResults.load(tmp_path / "m.npz")
    for name in ("winner", "games", "score"):
        assert np.array_equal(getattr(got, name), getattr(want, name)), name


def test_tournament_ctrl_c_then_resume_is_bit_identical(tmp_path):
    args = ["tournament", "--bots", "random,greedy,pubeval", "--games", "2000", "--chunk",
            "100", "--seed", "3", "--threads", "1", "--no-progress", "--out", "t.jsonl"]
    path = tmp_path / "t.jsonl"
    out, err, rc = _interrupt_after_first_chunk(_start(args, tmp_path), path)
    _check_interrupted(out, err, rc, path, 3 * 20)
    done = subprocess.run([sys.executable, "-m", "fastbg"] + args + ["--resume", "--json", "-"],
                          cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    want = fastbg.tournament(["random", "greedy", "pubeval"], 2000, seed=3, chunk_size=100)
    assert json.loads(done.stdout) == json.loads(want.to_json())


def test_python_api_ctrl_c_returns_the_finished_chunks(tmp_path):
    script = textwrap.dedent("""
        import json, fastbg
        r = fastbg.rollout("4HPwATDgc/ABMA", trials=64800, chunk_size=648, seed=2,
                           threads=1, out="r.jsonl", bot="pubeval")
        print(json.dumps({"partial": r.partial, "trials": r.trials}))
    """)
    path = tmp_path / "r.jsonl"
    out, err, rc = _interrupt_after_first_chunk(_start(["-c", script], tmp_path), path)
    assert rc == 0, err                        # the call returned: Ctrl-C is not an error
    got = json.loads(out.strip().splitlines()[-1])
    recs = _records(path)
    assert got["partial"] and got["trials"] == 648 * len(recs) < 64800



def test_demo_ctrl_c_in_its_tournament_ends_the_demo(tmp_path):
    """The tournament returns the chunks it finished when Ctrl-C reaches it; the demo then
    stops (status 130, saying so) instead of going on to its rollout."""
    proc = _start(["demo", "--no-progress", "--plot", "none", "--games", "400000",
                   "--trials", "36", "--bot", "pubeval"], tmp_path)
    t0 = time.monotonic()
    while "1/2  tournament" not in proc.stdout.readline():
        if proc.poll() is not None or time.monotonic() - t0 > WAIT_S:
            proc.kill()
            pytest.fail(f"the tournament did not start: {proc.communicate()}")
    time.sleep(2.0)                     # compiling or playing its games
    assert proc.poll() is None
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=WAIT_S)
    assert proc.returncode == 130, (proc.returncode, out, err)
    assert "interrupted" in err and "2/2" not in out, (out, err)


# A kernel taking C callbacks (as the game kernels' Bots and Cubes hold them), called with
# Ctrl-C arriving while numba unboxes the callbacks: numba's memo of unpickled signatures
# is replaced by one whose next lookup sends SIGINT to the process, so the signal is taken
# inside the unpickling of the second callback's signature.
_CALLBACK_SCRIPT = textwrap.dedent("""
    import os, signal, sys
    import numpy as np
    from numba import njit
    from numba.core import serialize
    from fastbg import plugin_pointers as pp

    @njit
    def twice(board, out):
        for i in range(5):
            out[i] = 2.0 * board[i]

    @njit
    def apply(f, g, board, out, done):
        f(board, out)
        g(board, out)
        done[0] = 1

    f = pp.probs_pointer(twice)
    board = np.arange(26, dtype=np.int8)
    out, done = np.zeros(5), np.zeros(1, np.int64)
    apply(f, f, board, out, done)                       # compiled before

    class Sending(dict):
        armed = True
        def __getitem__(self, key):
            if Sending.armed:
                Sending.armed = False
                os.kill(os.getpid(), signal.SIGINT)
            return dict.__getitem__(self, key)
    serialize._unpickled_memo = Sending(serialize._unpickled_memo)
    done[0] = 0
    try:
        if sys.argv[1] == "held":
            pp.call_holding_interrupts(apply, f, f, board, out, done)
        else:
            apply(f, f, board, out, done)
    except BaseException as e:
        print(type(e).__name__, int(done[0]), out.tolist() == [0.0, 2.0, 4.0, 6.0, 8.0])
    else:
        print("none", int(done[0]))
""")


def test_ctrl_c_while_numba_unboxes_a_callback_is_held_to_the_end_of_the_call(tmp_path):
    """numba drops a KeyboardInterrupt raised while it unboxes a C callback argument and
    fails the call with a TypeError instead (the demo's Ctrl-C test failed so once in a
    tournament's game kernel): call_holding_interrupts holds the Ctrl-C until the kernel
    has returned, then raises it. The plain call shows the signal lands before the kernel
    runs."""
    results = {}
    for mode in ("plain", "held"):
        proc = _start(["-c", _CALLBACK_SCRIPT, mode], tmp_path)
        out, err = proc.communicate(timeout=WAIT_S)
        assert proc.returncode == 0, err
        results[mode] = out.split()
    assert results["plain"][:2] in (["TypeError", "0"], ["KeyboardInterrupt", "0"])
    assert results["held"] == ["KeyboardInterrupt", "1", "True"]
