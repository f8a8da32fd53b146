"""The README's Python examples run as written (one namespace, in order)."""
import pathlib
import re

README = pathlib.Path(__file__).resolve().parent.parent / "README.md"


def test_readme_python_blocks_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)     # examples may write files
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert blocks, "README has no python examples"
    namespace = {}
    for i, code in enumerate(blocks):
        exec(compile(code, f"README block {i}", "exec"), namespace)  # noqa: S102


def test_quick_start_has_two_commands():
    text = README.read_text()
    section = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```bash\n(.*?)```", section, flags=re.S).group(1)
    commands = [line for line in block.splitlines() if line.strip()]
    assert len(commands) == 2
    ci = (README.parent / ".ci" / "run").read_text()
    assert commands[1].replace("python3 ", "") in ci.replace("python3 ", "")
