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

import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

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


@pytest.fixture(scope="session")
def nojit_runs(tmp_path_factory):
    out = tmp_path_factory.mktemp("nojit")
    env = dict(os.environ, NUMBA_DISABLE_JIT="1",
               PYTHONPATH=os.pathsep.join([str(HERE.parent), str(HERE),
                                           os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, "-W", "ignore", "-c", _RUNNER, str(out),
                           *NOJIT_MODULES], cwd=HERE.parent, env=env, capture_output=True,
                          text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
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
