"""The Ray backend (fastbg/distributed.py): every job run as Ray tasks gives the bits of the
same job run in this process.

A real cluster of three Ray nodes on this machine (a head and two workers, one CPU each,
started with ``ray start`` as docs/cluster.md says, token authentication on, with a
private token) serves the module; it is stopped at the end, and the module checks that
none of its processes is left and that the user's ~/.ray/auth_token was not touched. The
sizes are small and the bots cheap (pubeval, random, greedy): what is checked is that
chunks computed elsewhere merge into the same results, journals and errors, not the bots
themselves. The failure scenarios (a killed worker, a killed node, a driver interrupted
or killed, a lost head) are marked ``cluster``: they run apart from the suite, in
``python3 -m pytest -m cluster`` (.ci/run runs it after the suite).
"""
import importlib.util
import json
import os
import pickle
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import sys
import threading
import time

import numpy as np
import pytest

import fastbg
from fastbg.distributed import RayCluster, resolve_backend

ray = pytest.importorskip("ray", reason="the Ray backend needs ray: pip install 'fastbg[ray]'")

GAME_FIELDS = ("winner", "kind", "points", "plies", "first", "cube", "dropped")
WAIT_S = 120
USER_TOKEN = os.path.expanduser("~/.ray/auth_token")


def _children():
    """{pid: parent pid} of every process on the machine (from /proc)."""
    out = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as f:
                    stat = f.read()
            except OSError:
                continue
            fields = stat.rpartition(")")[2].split()
            if fields[0] != "Z":                    # zombies are gone but for their entry
                out[int(name)] = int(fields[1])
    return out


def _descendants(pid):
    parents = _children()
    found, frontier = set(), {pid}
    while frontier:
        frontier = {p for p, pp in parents.items() if pp in frontier} - found
        found |= frontier
    return found


def _title(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Nodes:
    """A Ray cluster of real nodes on this machine, as docs/cluster.md section 3 starts
    one: ``ray start --head`` and ``ray start --address`` for each worker node, on the
    loopback address, with token authentication and a private token file (a user's
    ~/.ray/auth_token is never read or written) and a private temp dir. Each node runs
    ``--block`` in a process group of its own, so that a node can be killed whole and
    every process of the cluster is accounted for at the end. ``connect``: this process
    joins as the cluster's driver once the head is up."""

    def __init__(self, workers=2, connect=False):
        self.root = tempfile.mkdtemp(prefix="fbray")     # short: Ray's socket paths
        self.token = os.environ["RAY_AUTH_TOKEN_PATH"]     # tests/conftest.py's, private
        self.env = {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN_PATH": self.token,
                    "RAY_USAGE_STATS_ENABLED": "0"}
        self.port = _free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.procs = []
        self.connected = False
        common = ["--node-ip-address=127.0.0.1", "--num-cpus=1",
                  f"--object-store-memory={80 * 2**20}", "--block"]
        try:
            self._start(["--head", f"--port={self.port}", f"--temp-dir={self.root}/ray",
                         "--include-dashboard=false", "--disable-usage-stats"] + common, 1)
            if connect:
                ray.init(address=self.address, log_to_driver=False)
                self.connected = True
            for n in range(workers):          # one at a time: two at once clash on sockets
                self._start([f"--address={self.address}"] + common, n + 2)
        except BaseException:
            self.stop()
            raise

    def _start(self, args, nodes_after):
        log = open(os.path.join(self.root, f"node{len(self.procs)}.log"), "w")
        self.procs.append(subprocess.Popen(
            [sys.executable, "-m", "ray.scripts.scripts", "start"] + args,
            env=dict(os.environ, **self.env), stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True))
        t0 = time.monotonic()
        while self.alive_nodes() < nodes_after:
            if self.procs[-1].poll() is not None or time.monotonic() - t0 > WAIT_S:
                log.flush()
                raise RuntimeError(f"ray start {' '.join(args)} failed:\n"
                                   + open(log.name).read()[-3000:])
                time.sleep(0.2)

    def alive_nodes(self):
        if self.connected:
            return sum(1 for n in ray.nodes() if n["Alive"])
        if not self.procs:
            return 0
        try:                                  # the head's GCS takes connections yet?
            socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
        except OSError:
            return 0
        out = subprocess.run([sys.executable, "-m", "ray.scripts.scripts", "status",
                              f"--address={self.address}"], env=dict(os.environ, **self.env),
                             capture_output=True, text=True)
        active = out.stdout.split("Active:")[-1].split("Pending:")[0]
        return sum(1 for line in active.splitlines() if " node_" in line)

    def kill(self, n, sig=signal.SIGKILL):
        """Send ``sig`` to every process of node ``n`` (0: the head)."""
        try:
            os.killpg(self.procs[n].pid, sig)
        except ProcessLookupError:
            pass

    def stop(self):
        for n in range(len(self.procs)):
            self.kill(n, signal.SIGTERM)
        deadline = time.monotonic() + 5
        for proc in self.procs:
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
        for n in range(len(self.procs)):                # anything the nodes left behind
            self.kill(n)
            self.procs[n].wait()


@pytest.fixture(scope="module")
def nodes():
    """Three nodes on this machine (a head and two workers, one CPU each), and this
    process their driver (the token in its environment, tests/conftest.py, as a user's
    would be)."""
    before = os.path.getmtime(USER_TOKEN) if os.path.exists(USER_TOKEN) else None
    cluster = Nodes(connect=True)
    started = set()
    try:
        # This module's functions (the NaN bot) travel by value: workers cannot import tests/.
        ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
        yield cluster
        started = {p for p in _descendants(os.getpid()) if "ray" in _title(p)}
    finally:
        ray.shutdown()
        cluster.stop()
        shutil.rmtree(cluster.root, ignore_errors=True)
    assert started, "no process of the Ray cluster was seen"
    t0 = time.monotonic()
    while started & set(_children()) and time.monotonic() - t0 < 30:
        time.sleep(0.2)
    left = {p: _title(p) for p in started & set(_children())}
    assert not left, f"Ray processes left after the nodes were stopped: {left}"
    after = os.path.getmtime(USER_TOKEN) if os.path.exists(USER_TOKEN) else None
    assert after == before, "the user's ~/.ray/auth_token was written"


@pytest.fixture(scope="module")
def cluster(nodes):
    """A RayCluster using the three nodes (this process is their driver)."""
    return RayCluster()


def test_arguments_and_a_missing_ray(monkeypatch):
    """(First: Ray is not started yet while ``import ray`` is made to fail.)"""
    assert resolve_backend("local") is resolve_backend(" Local ")
    assert resolve_backend(fastbg.RayCluster("auto")).address == "auto"
    for bad in (None, 3, "auto"):
        with pytest.raises(ValueError, match="RayCluster"):
            fastbg.play(10, backend=bad)
    monkeypatch.setitem(sys.modules, "ray", None)        # as if it were not installed
    with pytest.raises(ImportError, match=r"pip install 'fastbg\[ray\]'"):
        fastbg.play(10, backend="ray")


def test_a_task_runs_on_its_own_cpus():
    """Inside task_threads every thread count asked for is the task's, restored after."""
    import numba
    from fastbg.parallel import resolve_threads, task_threads
    before = numba.get_num_threads()
    with task_threads(1):
        assert numba.get_num_threads() == 1 and resolve_threads(2) == resolve_threads(None) == 1
        with fastbg.threads(2) as n:
            assert n == 1 and numba.get_num_threads() == 1
    assert numba.get_num_threads() == before and resolve_threads(None) == before


def _same_games(a, b):
    for name in GAME_FIELDS:
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert not a.partial and not b.partial


def test_the_nodes_and_their_token(nodes):
    """Three nodes joined with the token; a driver without it is refused, naming it."""
    assert nodes.alive_nodes() == 3
    assert len({n["NodeID"] for n in ray.nodes() if n["Alive"]}) == 3
    env = dict(os.environ, RAY_AUTH_MODE="token", RAY_AUTH_TOKEN_PATH=nodes.token + ".wrong")
    with open(env["RAY_AUTH_TOKEN_PATH"], "w") as f:
        f.write(secrets.token_hex(32))
    proc = subprocess.Popen([sys.executable, "-c", "import ray; ray.init(address="
                             f"{nodes.address!r}); print('joined')"], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:                                    # Ray retries for a while before it gives up
        out, err = proc.communicate(timeout=8)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
    assert "joined" not in out and "InvalidAuthToken" in err, (out, err[-2000:])


def test_play_cubeless_and_money(cluster):
    local = fastbg.play(3000, ("pubeval", "random"), seed=3)
    _same_games(fastbg.play(3000, ("pubeval", "random"), seed=3, backend=cluster), local)
    assert len(cluster.last) > 1                        # it was split into tasks
    rules = fastbg.MoneyRules(beavers=True)
    local = fastbg.play(600, ("pubeval", "greedy"), seed=4, rules=rules, cube=("race", "race"),
                        chunk_size=128)
    _same_games(fastbg.play(600, ("pubeval", "greedy"), seed=4, rules=rules,
                            cube=("race", "race"), backend="ray"), local)


def test_a_scorer_bot_plays_on_the_cluster(cluster):
    """A ScorerBot travels to the workers (its njit function pickled; each worker makes
    its own C callback, fastbg.plugin_pointers) and plays the games played here."""
    import numba

    @numba.njit
    def most_home(before, cands, out):
        for i in range(cands.shape[0]):
            out[i] = cands[i, 1:7].clip(0, 15).sum()
    bot = fastbg.ScorerBot(most_home, "home")
    local = fastbg.play(400, (bot, "pubeval"), seed=6)
    _same_games(fastbg.play(400, (bot, "pubeval"), seed=6, chunk_size=100, backend=cluster),
                local)
    assert len(cluster.last) > 1


def test_play_matches(cluster):
    local = fastbg.play_matches(120, 3, ("pubeval", "greedy"), seed=2)
    far = fastbg.play_matches(120, 3, ("pubeval", "greedy"), seed=2, chunk_size=40,
                              backend=cluster)
    assert len(cluster.last) == 3
    for name in ("winner", "games", "score"):
        assert np.array_equal(getattr(far, name), getattr(local, name)), name


@pytest.mark.parametrize("options", [
    {"truncate": 5, "evaluator": "race", "rules": fastbg.MoneyRules()},
    {"variance_reduction": True, "evaluator": "race"},
], ids=["truncated-cubeful", "variance-reduction"])
def test_rollout(cluster, options):
    args = ("4HPwATDgc/ABMA",)
    kw = dict(trials=72, chunk_size=36, bot="pubeval", seed=7, **options)
    local = fastbg.rollout(*args, **kw)
    far = fastbg.rollout(*args, **kw, backend=cluster)
    assert far.to_dict() == local.to_dict()
    assert [spec for spec, *_ in cluster.last] == [(0, 36), (36, 72)]


def test_rollout_with_gnubg_evaluator(cluster, gnubg_net):
    """The networks' weights travel in the job's one shipped context. (The run here comes
    first: it leaves the networks' kernel in the compile cache the workers read.)"""
    kw = dict(trials=72, chunk_size=36, bot="pubeval", truncate=3, evaluator="gnubg", seed=1)
    local = fastbg.rollout("4HPwATDgc/ABMA", **kw).to_dict()
    assert fastbg.rollout("4HPwATDgc/ABMA", **kw, backend=cluster).to_dict() == local


def test_decision_rollouts(cluster):
    kw = dict(trials=72, chunk_size=36, bot="pubeval", seed=5)
    moves = ["8/5 6/5", "24/21 6/5", "13/10 6/5"]
    local = fastbg.rollout_moves(fastbg.START, (3, 1), moves=moves, **kw)
    assert (fastbg.rollout_moves(fastbg.START, (3, 1), moves=moves, backend=cluster, **kw).to_dict()
            == local.to_dict())
    local = fastbg.rollout_cube("4HPwATDgc/ABMA", **kw)
    assert fastbg.rollout_cube("4HPwATDgc/ABMA", backend=cluster, **kw).to_dict() == local.to_dict()


def test_tasks_run_on_every_node(cluster):
    """A job's tasks are spread over the three nodes (Ray node ids in ``last``)."""
    local = fastbg.rollout_many(["4HPwATDgc/ABMA", "4HPwATDgc/ABMA", "jGfkASjg8wcBMA"] * 3,
                                trials=1296, seed=2, bot="pubeval")
    far = fastbg.rollout_many(["4HPwATDgc/ABMA", "4HPwATDgc/ABMA", "jGfkASjg8wcBMA"] * 3,
                              trials=1296, seed=2, bot="pubeval", backend=cluster)
    assert far.records == local.records
    assert len({t.node for t in cluster.last}) == 3, cluster.last


def test_many_positions_a_task_and_an_unreadable_line(cluster, tmp_path):
    """Quick positions go several to a task (the driver journals a task's positions in one
    write), the results file has the bytes of a run here, and an unreadable line stops
    both runs at the same line with the positions before it saved."""
    ids = [f"{p}" for p in ("4HPwATDgc/ABMA", "jGfkASjg8wcBMA", "AACAkCRJqqoAAA")] * 12
    ids[30] = "not a position"
    kw = dict(trials=36, bot="pubeval", seed=4)
    with pytest.raises(ValueError, match="line 31") as here:
        fastbg.rollout_many(ids, out=tmp_path / "l.jsonl", **kw)
    with pytest.raises(ValueError, match="line 31") as there:
        fastbg.rollout_many(ids, out=tmp_path / "r.jsonl", backend=cluster, **kw)
    assert str(there.value) == str(here.value)
    assert (tmp_path / "r.jsonl").read_bytes() == (tmp_path / "l.jsonl").read_bytes()
    assert len((tmp_path / "r.jsonl").read_text().splitlines()) == 1 + 30
    assert max(t.spec[1] - t.spec[0] for t in cluster.last) > 1, cluster.last


def test_a_benchmark_set_made_on_the_cluster(cluster, tmp_path):
    """Issue 16's job: a benchmark set harvested and rolled out on the nodes is the file
    made here, bytes for bytes, journal and all."""
    kw = dict(mix={"contact": 2, "race": 2}, decisions=None, game_bots=("pubeval", "random"),
              bot="pubeval", trials=72, chunk_size=36, seed=3)
    fastbg.make_benchmark(tmp_path / "l.jsonl", **kw)
    fastbg.make_benchmark(tmp_path / "r.jsonl", backend=cluster, **kw)
    assert (tmp_path / "r.jsonl").read_bytes() == (tmp_path / "l.jsonl").read_bytes()
    assert len(cluster.last) > 1


def test_rollout_many_and_tournament(cluster, tmp_path):
    ids = ["4HPwATDgc/ABMA", "AACAkCRJqqoAAA", "4HPhASLgc/ABMA"]
    local = fastbg.rollout_many(ids, trials=36, bot="pubeval", out=tmp_path / "l.jsonl")
    far = fastbg.rollout_many(ids, trials=36, bot="pubeval", backend=cluster,
                              out=tmp_path / "r.jsonl")
    assert far.to_dict() == local.to_dict()
    assert (tmp_path / "r.jsonl").read_bytes() == (tmp_path / "l.jsonl").read_bytes()
    bots = ["random", "greedy", "pubeval"]
    local = fastbg.tournament(bots, 200, seed=1, chunk_size=100)
    assert fastbg.tournament(bots, 200, seed=1, chunk_size=100, backend=cluster).to_dict() == \
        local.to_dict()
    assert len(cluster.last) == 6                     # 3 pairs x 2 chunks of 50 deals


@pytest.mark.skipif(importlib.util.find_spec("bgsage") is None
                    or importlib.util.find_spec("gnubg") is None,
                    reason="the engine bots need bgsage and GNU Backgammon's gnubg package")
def test_engine_bots_and_cubes_travel_by_name(cluster):
    """Engine bots and the engines' cube strategies pickle by name (their engines, a GNU
    Backgammon child process and bgsage's C++ networks, do not): each worker builds its
    own, and games, matches and rollouts are those played here. (Before, a job with an
    engine bot could not be sent.)"""
    from fastbg.sim import engines
    bgsage = fastbg.bgsage_bot()                       # an object: it travels by name too
    assert pickle.loads(pickle.dumps(bgsage)).evaluate is engines.engine_chooser("bgsage")
    bots = (bgsage, "gnubg-app")
    local = fastbg.play(4, bots, seed=3, chunk_size=2)
    _same_games(fastbg.play(4, bots, seed=3, chunk_size=2, backend=cluster), local)
    assert len(cluster.last) == 2
    kw = dict(cube=("gnubg-app", "bgsage"), seed=2, chunk_size=1)
    local = fastbg.play_matches(2, 3, bots, **kw)
    far = fastbg.play_matches(2, 3, bots, backend=cluster, **kw)
    for name in ("winner", "games", "score"):
        assert np.array_equal(getattr(far, name), getattr(local, name)), name
    kw = dict(trials=36, chunk_size=18, bot="gnubg-app", truncate=4, evaluator="race", seed=1)
    local = fastbg.rollout("4HPwATDgc/ABMA", **kw).to_dict()
    assert fastbg.rollout("4HPwATDgc/ABMA", backend=cluster, **kw).to_dict() == local


def test_resume_a_cut_journal_on_ray(cluster, tmp_path):
    """A results file cut short by a crash is finished on Ray: the same file, the same
    figures as an uninterrupted run here."""
    kw = dict(trials=360, chunk_size=36, bot="pubeval", seed=11)
    local = fastbg.rollout("4HPwATDgc/ABMA", out=tmp_path / "l.jsonl", **kw)
    path = tmp_path / "r.jsonl"
    fastbg.rollout("4HPwATDgc/ABMA", out=path, backend=cluster, **kw)
    whole = path.read_bytes()
    assert whole == (tmp_path / "l.jsonl").read_bytes()
    lines = whole.split(b"\n")
    path.write_bytes(b"\n".join(lines[:4]) + b"\n" + lines[4][:20])    # 3 chunks and a bit
    res = fastbg.rollout("4HPwATDgc/ABMA", out=path, resume=True, backend=cluster, **kw)
    assert res.to_dict() == local.to_dict()
    assert path.read_bytes() == whole
    assert [spec[0] for spec, *_ in cluster.last] == list(range(108, 360, 36))


def _nan_score(positions):
    """A bot that scores NaN whenever the opponent has three checkers on the bar."""
    s = -np.abs(positions[:, 1:7]).sum(axis=1).astype(np.float64)
    s[positions[:, 0] <= -3] = np.nan
    return s


def test_a_chunk_failing_on_its_own_stops_the_job_naming_the_game(cluster, tmp_path):
    bots = (fastbg.EvaluatorBot(_nan_score, "nanbot"), "pubeval")
    with pytest.raises(fastbg.BotError) as here:
        fastbg.play(400, bots, seed=0, chunk_size=50, out=tmp_path / "l.jsonl")
    with pytest.raises(fastbg.BotError) as there:
        fastbg.play(400, bots, seed=0, chunk_size=50, out=tmp_path / "r.jsonl", backend=cluster)
    assert str(there.value) == str(here.value) and "nanbot returned a NaN" in str(here.value)
    # the chunks before the failing one are merged and saved, as here
    assert (tmp_path / "r.jsonl").read_bytes() == (tmp_path / "l.jsonl").read_bytes()
    assert len((tmp_path / "r.jsonl").read_text().splitlines()) > 1


@pytest.mark.cluster
def test_a_killed_worker_has_its_task_retried(cluster):
    """SIGKILL to a worker of this instance while it plays a chunk: Ray runs the chunk
    again elsewhere and the games are those of a run here."""
    kw = dict(seed=6, chunk_size=3000)
    local = fastbg.play(24000, ("pubeval", "pubeval"), **kw)
    killed = {}
    done = threading.Event()

    def kill_one():
        while not done.is_set():
            for pid in _descendants(os.getpid()):
                title = _title(pid)
                if title.startswith("ray::fastbg games "):
                    os.kill(pid, signal.SIGKILL)
                    killed[pid] = title.split()[2]
                    return
            time.sleep(0.002)

    killer = threading.Thread(target=kill_one)
    killer.start()
    try:
        far = fastbg.play(24000, ("pubeval", "pubeval"), backend=cluster, **kw)
    finally:
        done.set()
        killer.join()
    _same_games(far, local)
    assert len(killed) == 1, "no worker was seen playing a chunk"
    (pid, span), = killed.items()
    lo, hi = (int(x) for x in span.split(".."))
    done_by = {t.spec: t.pid for t in cluster.last}
    assert done_by[(lo, hi)] != pid          # the chunk was played again by another worker


@pytest.mark.cluster
def test_ctrl_c_on_a_ray_job_then_resume(cluster, tmp_path):
    """A real SIGINT to a real ``fastbg rollout --ray ADDRESS`` process (a driver of its
    own on this module's instance): it stops, keeps the chunks merged so far, says how to
    resume and exits 130; resuming (here, in this process) gives the bits of an
    uninterrupted run."""
    address = ray.get_runtime_context().gcs_address
    args = ["rollout", "4HPwATDgc/ABMA", "--bot", "pubeval", "--trials", "12960", "--chunk",
            "324", "--seed", "5", "--no-progress", "--out", "r.jsonl", f"--ray={address}"]
    proc = subprocess.Popen([sys.executable, "-m", "fastbg"] + args, cwd=tmp_path,
                            env=dict(os.environ, PYTHONUNBUFFERED="1"), text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    path = tmp_path / "r.jsonl"
    t0 = time.monotonic()
    while not path.exists() or len(path.read_text().splitlines()) < 2:
        if proc.poll() is not None or time.monotonic() - t0 > WAIT_S:
            proc.kill()
            pytest.fail("no chunk was saved:\n" + "\n".join(proc.communicate()))
        time.sleep(0.005)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=WAIT_S)
    assert proc.returncode == 130, (out, err)
    assert "--resume" in err and "partial: interrupted" in out
    recs = [json.loads(line) for line in path.read_text().splitlines()[1:]]
    assert 1 <= len(recs) < 40 and [r["lo"] for r in recs] == list(range(0, 324 * len(recs), 324))
    kw = dict(trials=12960, chunk_size=324, seed=5, bot="pubeval")
    res = fastbg.rollout("4HPwATDgc/ABMA", out=path, resume=True, **kw)
    assert res.to_dict() == fastbg.rollout("4HPwATDgc/ABMA", **kw).to_dict()


def _chunks_in(path):
    """The lines of a rollout journal after its header, parsed: every line but a last
    one cut short must be whole JSON (None stands for a cut last line)."""
    lines = path.read_bytes().split(b"\n")
    whole, cut = lines[1:-1], lines[-1]
    recs = [json.loads(line) for line in whole]
    return recs + ([None] if cut else [])


def _driver_saving_chunks(args, cwd, chunks=2):
    """A ``fastbg`` process running ``args`` in ``cwd`` (its results file r.jsonl there),
    once that file holds ``chunks`` chunks after its header: (the process, the file)."""
    proc = subprocess.Popen([sys.executable, "-m", "fastbg"] + args, cwd=cwd,
                            env=dict(os.environ, PYTHONUNBUFFERED="1"), text=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    path = cwd / "r.jsonl"
    t0 = time.monotonic()
    while not path.exists() or len(path.read_text().splitlines()) < 1 + chunks:
        if proc.poll() is not None or time.monotonic() - t0 > WAIT_S:
            proc.kill()
            pytest.fail("no chunk was saved:\n" + proc.communicate()[1])
        time.sleep(0.002)
    return proc, path


@pytest.mark.cluster
def test_a_killed_driver_then_resume(cluster, tmp_path):
    """SIGKILL to a ``fastbg rollout --ray`` driver mid-job (no Ctrl-C, no clean-up): the
    results file holds whole chunks in order, none twice (at most a last line cut short);
    ``--resume`` on the cluster finishes it with the bytes of an uninterrupted run."""
    address = ray.get_runtime_context().gcs_address
    args = ["rollout", "4HPwATDgc/ABMA", "--bot", "pubeval", "--trials", "12960", "--chunk",
            "324", "--seed", "7", "--no-progress", "--out", "r.jsonl", f"--ray={address}"]
    proc, path = _driver_saving_chunks(args, tmp_path)
    proc.kill()
    proc.wait()
    recs = _chunks_in(path)
    whole = [r for r in recs if r is not None]
    assert 2 <= len(whole) < 40
    assert [r["lo"] for r in whole] == list(range(0, 324 * len(whole), 324))
    out = subprocess.run([sys.executable, "-m", "fastbg"] + args + ["--resume"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=WAIT_S * 2)
    assert out.returncode == 0, out.stderr
    assert all(r is not None for r in _chunks_in(path))
    fastbg.rollout("4HPwATDgc/ABMA", trials=12960, chunk_size=324, seed=7, bot="pubeval",
                   out=tmp_path / "l.jsonl")
    assert path.read_bytes() == (tmp_path / "l.jsonl").read_bytes()


@pytest.mark.cluster
def test_a_whole_worker_node_killed_mid_job(nodes, cluster, tmp_path):
    """SIGKILL to every process of a worker node (its raylet, its workers, its ``ray
    start``) while a job's tasks run there: Ray runs its chunks again on the nodes left,
    and the games and their results file are those of a run here. (Last in the module: the
    cluster has one node fewer afterwards.)"""
    kw = dict(seed=8, chunk_size=2000)
    local = fastbg.play(40000, ("pubeval", "pubeval"), out=tmp_path / "l.jsonl", **kw)
    victim = nodes.procs[2]
    seen = threading.Event()
    done = threading.Event()

    def kill_when_busy():
        while not done.is_set():
            # a task of this job under way on the victim's node: its worker is a
            # descendant of the victim's process group
            if any(_title(p).startswith("ray::fastbg games ")
                   for p in _descendants(victim.pid)):
                nodes.kill(2)
                seen.set()
                return
            time.sleep(0.002)

    killer = threading.Thread(target=kill_when_busy)
    killer.start()
    try:
        far = fastbg.play(40000, ("pubeval", "pubeval"), out=tmp_path / "r.jsonl",
                          backend=cluster, **kw)
    finally:
        done.set()
        killer.join()
    assert seen.is_set(), "no task was seen on the worker node"
    _same_games(far, local)
    assert (tmp_path / "r.jsonl").read_bytes() == (tmp_path / "l.jsonl").read_bytes()
    assert len({t.node for t in cluster.last}) >= 2
    assert victim.wait(timeout=WAIT_S) == -signal.SIGKILL       # the node was gone


@pytest.mark.cluster
def test_the_head_node_lost_mid_job(tmp_path):
    """SIGKILL to every process of the head node while a ``fastbg rollout --ray`` driver
    (a process apart from the head's) waits for its tasks: within two minutes the driver
    says in one line that the cluster is gone and how to resume, and exits 69; its
    results file holds whole chunks in order; resumed on this machine it gives the bytes
    of an uninterrupted run. (A cluster of its own: its head does not come back.)"""
    cluster = Nodes(workers=1)
    try:
        args = ["rollout", "4HPwATDgc/ABMA", "--bot", "pubeval", "--trials", "129600",
                "--chunk", "324", "--seed", "9", "--no-progress", "--out", "r.jsonl"]
        proc, path = _driver_saving_chunks(args + [f"--ray={cluster.address}"], tmp_path)
        cluster.kill(0)
        t0 = time.monotonic()
        err = proc.communicate(timeout=180)[1]
        gone_after = time.monotonic() - t0
        said = [line for line in err.splitlines() if line.strip()
                and "INFO worker.py:" not in line]    # Ray's own, as it connected
        assert proc.returncode == 69, err
        assert len(said) == 1 and "is gone" in said[0] and "--resume" in said[0], err
        assert gone_after < 120
        recs = _chunks_in(path)
        assert all(r is not None for r in recs)
        assert [r["lo"] for r in recs] == list(range(0, 324 * len(recs), 324))
        out = subprocess.run([sys.executable, "-m", "fastbg"] + args + ["--resume"],
                             cwd=tmp_path, capture_output=True, text=True, timeout=600)
        assert out.returncode == 0, out.stderr
        fastbg.rollout("4HPwATDgc/ABMA", trials=129600, chunk_size=324, seed=9,
                       bot="pubeval", out=tmp_path / "l.jsonl")
        assert path.read_bytes() == (tmp_path / "l.jsonl").read_bytes()
    finally:
        cluster.stop()
        shutil.rmtree(cluster.root, ignore_errors=True)


@pytest.mark.cluster
def test_the_docs_setup_commands(tmp_path):
    """docs/cluster.md section 3 as written, on one machine: two "machines" are two home
    folders (the token made with ``ray get-auth-token --generate`` in the head's, copied
    to the other's), RAY_AUTH_MODE=token everywhere, ``ray start --head``, ``ray start
    --address``, ``ray status``, then a ``fastbg play --ray`` driver on the other
    "machine" gives the games of a run here. Only the port (a free one, not 6379), the
    loopback address and ``--block`` (to stop exactly these nodes) differ."""
    homes = [tmp_path / "head", tmp_path / "other"]
    for h in homes:
        h.mkdir()
    env = [dict(os.environ, HOME=str(h), RAY_AUTH_MODE="token", RAY_USAGE_STATS_ENABLED="0")
           for h in homes]
    for e in env:
        e.pop("RAY_AUTH_TOKEN_PATH", None)          # the docs' default: ~/.ray/auth_token
    ray_cli = [sys.executable, "-m", "ray.scripts.scripts"]
    made = subprocess.run(ray_cli + ["get-auth-token", "--generate"], env=env[0],
                          capture_output=True, text=True, timeout=WAIT_S)
    assert made.returncode == 0, made.stderr
    token = homes[0] / ".ray" / "auth_token"
    assert token.read_text().strip()
    (homes[1] / ".ray").mkdir()
    shutil.copy(token, homes[1] / ".ray" / "auth_token")           # the docs' scp
    port = _free_port()
    root = tempfile.mkdtemp(prefix="fbdoc")
    procs = []
    try:
        for args, e in ((["--head", f"--port={port}", f"--temp-dir={root}"], env[0]),
                        ([f"--address=127.0.0.1:{port}"], env[1])):
            procs.append(subprocess.Popen(
                ray_cli + ["start", "--node-ip-address=127.0.0.1", "--num-cpus=1",
                           "--block"] + args, env=e, start_new_session=True,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            t0 = time.monotonic()
            while True:
                status = subprocess.run(ray_cli + ["status", f"--address=127.0.0.1:{port}"],
                                        env=e, capture_output=True, text=True)
                active = status.stdout.split("Active:")[-1].split("Pending:")[0]
                if active.count(" node_") == len(procs):
                    break
                assert time.monotonic() - t0 < WAIT_S, status.stderr[-2000:]
                time.sleep(0.5)
        out = subprocess.run([sys.executable, "-m", "fastbg", "play", "--bots",
                              "pubeval,random", "--games", "2000", "--seed", "3", "--out",
                              "g.jsonl", "--no-progress", "--ray", f"127.0.0.1:{port}"],
                             cwd=tmp_path, env=env[1], capture_output=True, text=True,
                             timeout=WAIT_S * 2)
        assert out.returncode == 0, out.stderr[-3000:]
    finally:
        for p in procs:
            os.killpg(p.pid, signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
        shutil.rmtree(root, ignore_errors=True)
    # the same games (the chunks, sized by measured speed, may differ from a run here)
    saved = fastbg.play(2000, ("pubeval", "random"), seed=3, out=tmp_path / "g.jsonl",
                        resume=True)                 # all there: read back, not played
    _same_games(saved, fastbg.play(2000, ("pubeval", "random"), seed=3))
