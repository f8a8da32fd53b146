"""The command line, driven through click's test runner."""
import json

import pytest

click_testing = pytest.importorskip("click.testing", reason="the CLI needs the 'cli' extra (click)")
from fastbg.cli import main  # noqa: E402


def run(*args):
    return click_testing.CliRunner().invoke(main, list(args))


def test_help_lists_commands():
    res = run("--help")
    assert res.exit_code == 0
    for cmd in ("demo", "moves"):
        assert cmd in res.output


def test_moves_from_start():
    res = run("moves", "4HPwATDgc/ABMA", "3-1")
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert lines[0] == "16 distinct results"
    assert len(lines) == 17
    assert "4HPwATDgc/ABMA" not in lines[1:]   # 3-1 always changes the start position


@pytest.mark.parametrize("args, fragment", [
    (("moves", "not-an-id", "3-1"), "Position ID"),
    (("moves", "4HPwATDgc/ABMA", "7-1"), "between 1 and 6"),
    (("moves", "4HPwATDgc/ABMA", "x"), "dice look like"),
])
def test_moves_bad_input(args, fragment):
    res = run(*args)
    assert res.exit_code != 0
    assert fragment in res.output


def test_demo_checks_perft_totals(tmp_path):
    out = tmp_path / "demo.json"
    res = run("demo", "--repeat", "1", "--threads", "1", "--json", str(out))
    assert res.exit_code == 0, res.output
    assert "agrees" in res.output
    figures = json.loads(out.read_text())
    assert figures["results"] == figures["results_expected"] == 667_603
    assert figures["pairs"] == 42_000 and figures["pairs_per_s"] > 0
