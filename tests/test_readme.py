"""The README's and docs/' Python examples run as written (one namespace per page, in
order), the Quick start stays two commands, and docs/architecture.md names every module."""
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))


def _run_python_blocks(page):
    blocks = re.findall(r"```python\n(.*?)```", page.read_text(), flags=re.S)
    namespace = {}
    for i, code in enumerate(blocks):
        exec(compile(code, f"{page.name} block {i}", "exec"), namespace)  # noqa: S102
    return len(blocks)


def test_readme_python_blocks_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)     # examples may write files
    assert _run_python_blocks(README), "README has no python examples"


@pytest.mark.parametrize("page", DOCS, ids=[p.name for p in DOCS])
def test_docs_python_blocks_run(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _run_python_blocks(page)


def test_docs_exist_and_readme_points_at_them():
    names = {p.name for p in DOCS}
    assert {"rules.md", "formats.md", "cube.md", "rollouts.md", "architecture.md"} <= names
    assert "docs/" in README.read_text()


def test_architecture_names_every_module():
    """Every module and subpackage of fastbg appears in docs/architecture.md's tree."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    tree = text.split("## Where things live", 1)[1].split("```", 2)[1]
    listed = {line.split()[0] for line in tree.splitlines() if line.strip()}
    package = ROOT / "fastbg"
    missing = [str(p.relative_to(package)) for p in sorted(package.rglob("*.py"))
               if p.name != "__init__.py" and p.name not in listed]
    missing += [p.name + "/" for p in sorted(package.iterdir())
                if p.is_dir() and (p / "__init__.py").exists() and p.name + "/" not in listed]
    assert not missing, f"modules missing from docs/architecture.md: {missing}"
    for name in listed:                      # and nothing listed that is not there
        if name.endswith(".py") and name != "__init__.py":
            assert list(package.rglob(name)), f"docs/architecture.md lists {name}, not in the tree"


def test_quick_start_has_two_commands():
    text = README.read_text()
    section = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```bash\n(.*?)```", section, flags=re.S).group(1)
    commands = [line for line in block.splitlines() if line.strip()]
    assert len(commands) == 2
    assert commands[0].endswith("fastbg demo") and commands[1].endswith("pytest")
    ci = (README.parent / ".ci" / "run").read_text()
    # CI reads the two commands from the README and runs them in order
    assert "/^## Quick start/" in ci and 'bash -c "$command"' in ci


def _readme_commands():
    """The README's command lines outside the Quick start (which installs): every
    ``fastbg ...`` and ``python3 -m bench...`` line of its bash blocks."""
    text = README.read_text()
    rest = text.split("## Quick start", 1)[1].split("\n## ", 1)[1]
    blocks = re.findall(r"```bash\n(.*?)```", rest, flags=re.S)
    return [line.strip() for b in blocks for line in b.splitlines()
            if line.strip().startswith(("fastbg ", "python3 -m bench."))]


def test_readme_has_commands():
    assert len(_readme_commands()) >= 5


@pytest.mark.parametrize("command", _readme_commands())
def test_readme_commands_run(command, tmp_path):
    """Each command of the tour runs as written; one that needs an optional part that is
    not installed says so in one line with status 2 (docs/cli.md)."""
    import shlex
    import subprocess
    import sys
    words = shlex.split(command, comments=True)
    if words[0] == "fastbg":            # the installed command, as this interpreter runs it
        args, cwd = ["-m", "fastbg", *words[1:]], tmp_path
    else:                               # python3 -m bench.X: the repository's scripts
        args, cwd = words[1:], ROOT
    out = subprocess.run([sys.executable, *args], capture_output=True, text=True,
                         timeout=600, cwd=cwd)
    assert "Traceback" not in out.stderr, out.stderr
    if out.returncode == 2 and "pip install 'fastbg[" in out.stderr:
        pytest.skip(f"needs an optional part that is not installed: {out.stderr.strip()}")
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip()
