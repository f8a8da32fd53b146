"""Without the optional parts: every command works or answers in one line, status 2.

The install with the cli extra alone is simulated in child processes: a ``sitecustomize``
put first on their path hides the optional packages (``sys.modules[name] = None``: the
import fails and ``importlib.util.find_spec`` finds nothing), as a fresh virtual
environment would. CI also runs the same checks in a real one (.ci/run).
"""
import json
import os
import subprocess
import sys
import pathlib

import numpy as np
import pytest

import fastbg
from fastbg.extras import (EXTRAS, MissingExtra, MissingPackage, MissingWeights,
                           install_command, is_installed)

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import check_commands  # noqa: E402

HIDDEN = ("gnubg_nn", "gnubg", "bgsage", "bgbot_cpp", "ray", "matplotlib", "pyarrow")


@pytest.fixture(scope="module")
def cli_alone(tmp_path_factory):
    """An environment whose Python sees fastbg with the cli extra alone."""
    site = tmp_path_factory.mktemp("site")
    (site / "sitecustomize.py").write_text(
        "import sys\n" + "".join(f"sys.modules[{m!r}] = None\n" for m in HIDDEN))
    env = {k: v for k, v in os.environ.items() if k != "FASTBG_GNUBG_WEIGHTS"}
    env["PYTHONPATH"] = os.pathsep.join([str(site), str(ROOT)])
    return env


def _python(env, code):
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=300)


def test_the_simulation_hides_every_optional_part(cli_alone):
    out = _python(cli_alone, "import json, fastbg.extras as e; "
                             "print(json.dumps({x.name: e.is_installed(x.name) for x in e.EXTRAS}))")
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout)
    assert seen == {e.name: e.name == "cli" for e in EXTRAS}


# The checks of scripts/check_commands.py whose extra is missing in the simulation, and a
# few that need none (the cli extra's own), each a child process.
_NEEDING = [c for c in check_commands.CHECKS if c.needs is not None]
_CORE = [c for c in check_commands.CHECKS
         if c.needs is None and c.args[0] in ("info", "moves", "rollout")]


@pytest.mark.parametrize("check", _NEEDING + _CORE, ids=lambda c: " ".join(c.args[:4]))
def test_command_works_or_names_the_missing_extra(check, cli_alone, tmp_path, monkeypatch):
    for key, value in cli_alone.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("FASTBG_GNUBG_WEIGHTS", raising=False)
    (tmp_path / "mat").mkdir()        # fastbg analyse opens a match file first
    (tmp_path / "mat" / "pubeval-vs-greedy-00001.mat").write_bytes(
        (ROOT / "tests" / "data" / "gnubg-3pt-seed7.mat").read_bytes())
    ok, status, why, _ = check_commands.run_check(check, str(tmp_path),
                                                  installed=check.needs is None)
    assert ok, why
    assert status == (0 if check.needs is None else check_commands.EXIT_MISSING_EXTRA)


def test_missing_extra_errors_are_the_usual_exceptions_too():
    """A Python caller catches them as ImportError / FileNotFoundError, as before."""
    e = MissingPackage("the plot needs matplotlib", "plot")
    assert isinstance(e, ImportError) and isinstance(e, MissingExtra)
    assert str(e) == "the plot needs matplotlib: pip install 'fastbg[plot]'"
    w = MissingWeights("no networks: pip install 'fastbg[gnubg]'", "gnubg")
    assert isinstance(w, FileNotFoundError) and w.extra == "gnubg"
    assert str(w).count("pip install") == 1          # not repeated when the text has it
    with pytest.raises(ValueError, match="unknown extra"):
        install_command("gpu")


def test_is_installed_ignores_a_bare_folder_of_the_name(tmp_path, monkeypatch):
    """Ray leaves /tmp/ray: from /tmp, Python sees a namespace package 'ray'."""
    from fastbg import extras
    monkeypatch.setitem(extras.BY_NAME, "fake", extras.Extra("fake", ("fastbg_fake_pkg",), ""))
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "fastbg_fake_pkg").mkdir()
    assert not is_installed("fake")
    (tmp_path / "fastbg_fake_pkg" / "__init__.py").write_text("")
    assert is_installed("fake")


# --- one vocabulary: the command line's cube names are the API's -----------------------

def test_api_takes_the_cli_cube_names(gnubg_net):
    rules = fastbg.MoneyRules()
    by_name = fastbg.play(300, ("pubeval", "greedy"), seed=5, rules=rules, cube=("gnubg", "race"))
    by_object = fastbg.play(300, ("pubeval", "greedy"), seed=5, rules=rules,
                            cube=(gnubg_net.cube(), "race"))
    assert np.array_equal(by_name.points, by_object.points)
    assert np.array_equal(by_name.cube, by_object.cube)
    assert by_name.cube.max() > 1            # the named strategy really doubled
    one = fastbg.play(8, ("pubeval", "greedy"), seed=5, rules=rules,
                      cube=("gnubg-1ply", "never"))
    assert len(one) == 8


def test_cli_cube_names_equal_the_api_run(gnubg_net, tmp_path):
    from click.testing import CliRunner
    from fastbg.cli import main
    js = tmp_path / "s.json"
    res = CliRunner().invoke(main, ["play", "--bots", "pubeval,greedy", "--money", "--cube",
                                    "gnubg,race", "--games", "300", "--seed", "5",
                                    "--no-progress", "--json", str(js)])
    assert res.exit_code == 0, res.output
    api = fastbg.play(300, ("pubeval", "greedy"), seed=5, rules=fastbg.MoneyRules(),
                      cube=("gnubg", "race"))
    assert json.loads(js.read_text())["points_per_game"] == pytest.approx(
        api.summary()["points_per_game"], abs=0)


def test_unknown_cube_name_is_one_clear_error():
    with pytest.raises(ValueError, match="unknown cube strategy 'gnubb'"):
        fastbg.play(10, ("pubeval", "greedy"), seed=1, rules=fastbg.MoneyRules(),
                    cube=("gnubb", "race"))
