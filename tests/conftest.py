"""Put tests/ on sys.path so test modules can import the shared helpers (``strategies``),
and run every module's plain-Python (``NUMBA_DISABLE_JIT=1``) check in one subprocess.

A test module that wants its kernels checked as plain Python defines a script string
``NOJIT_SCRIPT`` and lists itself in :data:`NOJIT_MODULES`; the script runs with
``sys.argv[1]`` a directory of its own for outputs, prints what it likes and may
``sys.exit(1)`` on failure. The ``nojit`` fixture runs all of them in one interpreter
(numba and fastbg are imported once, not once per module) and hands each test its
:class:`NojitRun`.
"""
import json
import os
import pathlib
import subprocess
import sys
from dataclasses import dataclass

try:
    import fcntl                   # POSIX: the workers of one run share the plain-Python run
except ImportError:
    fcntl = None

import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def _private_ray_token():
    """Ray (2.60) turns token authentication on and writes a token to ~/.ray/auth_token for
    a new local instance; it reads its mode and token once, when first imported. So before
    any test module imports ray, every process of the run gets a token of its own
    (RAY_AUTH_TOKEN_PATH, docs/cluster.md section 3): the user's file is never read or
    written, and the nodes and drivers that tests/test_ray.py starts inherit it."""
    import atexit
    import secrets
    import shutil
    import tempfile
    folder = tempfile.mkdtemp(prefix="fastbg-ray-token")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    path = os.path.join(folder, "auth_token")
    with open(path, "w") as f:
        f.write(secrets.token_hex(32))
    os.environ["RAY_AUTH_MODE"] = "token"
    os.environ["RAY_AUTH_TOKEN_PATH"] = path


_private_ray_token()

NOJIT_MODULES = ("test_movegen", "test_gnubginputs", "test_evaluators", "test_play")

_RUNNER = r"""
import contextlib, importlib, io, json, pathlib, sys, traceback
import numba
assert numba.config.DISABLE_JIT
out = pathlib.Path(sys.argv[1])
status = {}
for name in sys.argv[2:]:
    script = importlib.import_module(name).NOJIT_SCRIPT
    d = out / name
    d.mkdir(parents=True, exist_ok=True)
    buf = io.StringIO()
    sys.argv = [name, str(d)]
    rc = 0
    with contextlib.redirect_stdout(buf):
        try:
            exec(compile(script, name + " NOJIT_SCRIPT", "exec"), {"__name__": "__nojit__"})
        except SystemExit as e:
            rc = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        except BaseException:
            rc = 1
            buf.write(traceback.format_exc())
    (d / "stdout.txt").write_text(buf.getvalue())
    status[name] = rc
(out / "status.json").write_text(json.dumps(status))
"""


@dataclass
class NojitRun:
    """One module's plain-Python run: exit status, what it printed, its output folder."""
    returncode: int
    stdout: str
    dir: pathlib.Path


def _run_nojit(out):
    env = dict(os.environ, NUMBA_DISABLE_JIT="1",
               PYTHONPATH=os.pathsep.join([str(HERE.parent), str(HERE),
                                           os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, "-W", "ignore", "-c", _RUNNER, str(out),
                           *NOJIT_MODULES], cwd=HERE.parent, env=env, capture_output=True,
                          text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]


@pytest.fixture(scope="session")
def nojit_runs(tmp_path_factory, request):
    """The plain-Python runs, once per test run: under pytest-xdist the first worker to
    ask runs them (holding a lock in the run's shared temporary folder) and the others
    read its outputs."""
    shared = hasattr(request.config, "workerinput") and fcntl is not None
    if shared:
        root = tmp_path_factory.getbasetemp().parent
        out = root / "nojit"
        with open(root / "nojit.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not (out / "status.json").exists():
                out.mkdir(exist_ok=True)
                _run_nojit(out)
    else:
        out = tmp_path_factory.mktemp("nojit")
        _run_nojit(out)
    status = json.loads((out / "status.json").read_text())
    return {name: NojitRun(rc, (out / name / "stdout.txt").read_text(), out / name)
            for name, rc in status.items()}


@pytest.fixture
def nojit(request, nojit_runs):
    """The plain-Python run of the requesting test module's ``NOJIT_SCRIPT``."""
    name = request.module.__name__.rpartition(".")[2]
    assert name in NOJIT_MODULES, f"add {name} to NOJIT_MODULES in tests/conftest.py"
    return nojit_runs[name]



@pytest.fixture(scope="session")
def gnubg_net():
    """GNU Backgammon's networks (their weights come with gnubg-nn, in the test extra);
    the test is skipped, saying why, where they cannot be loaded."""
    import fastbg
    try:
        return fastbg.gnubg_net()
    except FileNotFoundError as err:
        pytest.skip(f"no gnubg weights: {err}")


# The slowest files of a fresh run (numba compiling included), slowest first. pytest-xdist
# hands out whole files (--dist loadfile) in collection order (--no-loadscope-reorder):
# starting with the long ones leaves short ones for the end, so no worker idles while
# another finishes a long file. The rest keep their order.
SLOW_FILES = ("tests/test_gnubgnet.py", "tests/test_rollout.py", "tests/test_engine_bots.py",
              "tests/test_cubeful_play.py", "tests/test_prune.py",
              "tests/test_interrupts.py", "tests/test_play.py", "tests/test_search.py",
              "tests/test_gnubginputs.py", "tests/test_ray.py", "tests/test_readme.py",
              "tests/test_decision_rollouts.py", "tests/test_notation.py",
              "tests/test_movegen.py", "tests/test_gnubg.py", "tests/test_records.py",
              "tests/test_lockstep_records.py", "tests/test_lockstep_matches.py",
              "tests/test_engine_cube.py", "tests/test_evaluators.py")


def pytest_collection_modifyitems(config, items):
    rank = {name: i for i, name in enumerate(SLOW_FILES)}
    items.sort(key=lambda item: rank.get(item.nodeid.partition("::")[0], len(rank)))
