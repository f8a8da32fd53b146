"""Every maintenance script in scripts/ answers --help (and is listed in its README)."""
import pathlib
import subprocess
import sys

import pytest

SCRIPTS = pathlib.Path(__file__).resolve().parents[1] / "scripts"
ALL = sorted(SCRIPTS.glob("*.py"))


def test_there_are_scripts():
    assert ALL, "scripts/ holds no scripts"


@pytest.mark.parametrize("script", ALL, ids=[p.name for p in ALL])
def test_script_has_help_and_is_listed(script):
    out = subprocess.run([sys.executable, str(script), "--help"], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "usage:" in out.stdout.lower() and len(out.stdout.splitlines()) > 3
    assert f"`{script.name}`" in (SCRIPTS / "README.md").read_text()
