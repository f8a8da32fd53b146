"""bench/ab.py: the renamed package copies of --same-process, and its children's code.

A copy must import as a package of its own, pulling in none of fastbg's modules (else
the two trees' code would mix in one process), keep fastbg's bare names ("fastbg" is a
bot's and an evaluator's name) and keep the files it did not change untouched from one
run to the next (numba's cache of the copy checks their times)."""
import os
import subprocess
import sys

from bench import ab

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_a_renamed_copy_imports_alone(tmp_path):
    out = ab.renamed_copy(ROOT, "fastbg_abtest", str(tmp_path))
    assert out == str(tmp_path / "fastbg_abtest")
    code = ("import sys, fastbg_abtest, fastbg_abtest.evaluators.nets as n; "
            "from fastbg_abtest.cube import met; met.load_default(); "
            "print(fastbg_abtest.__file__); "
            "print(sorted(m for m in sys.modules if m == 'fastbg' or m.startswith('fastbg.')))")
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    res = subprocess.run([sys.executable, "-c", code], env=env, cwd=str(tmp_path),
                         capture_output=True, text=True, check=True)
    lines = res.stdout.strip().splitlines()
    assert lines[0].startswith(str(tmp_path / "fastbg_abtest"))
    assert lines[1] == "[]"                     # no module of fastbg itself was imported
    with open(os.path.join(out, "jobs", "rollouts.py"), encoding="utf-8") as f:
        text = f.read()
    assert 'key == "fastbg"' in text            # a name, not the package
    assert "from fastbg_abtest." in text and "from fastbg." not in text
    with open(os.path.join(out, "cube", "met.py"), encoding="utf-8") as f:
        assert 'files("fastbg_abtest")' in f.read()    # the copy's own data files


def test_a_second_copy_leaves_unchanged_files_alone(tmp_path):
    out = ab.renamed_copy(ROOT, "fastbg_abtest", str(tmp_path))
    probe = os.path.join(out, "evaluators", "net_kernels.py")
    os.utime(probe, (1_000_000, 1_000_000))
    ab.renamed_copy(ROOT, "fastbg_abtest", str(tmp_path))
    assert os.path.getmtime(probe) == 1_000_000
    with open(probe, "a", encoding="utf-8") as f:     # a stale copy is rewritten
        f.write("\n# stale\n")
    ab.renamed_copy(ROOT, "fastbg_abtest", str(tmp_path))
    with open(probe, encoding="utf-8") as f:
        assert "# stale" not in f.read()


def test_the_children_hold_the_workloads():
    """Both child programs compile and carry the workload code themselves (an old
    checkout's bench package, first on their path, may not have it)."""
    for child in (ab.CHILD, ab.SAME_CHILD):
        compile(child, "child", "exec")
        assert "def workloads_of" in child and "__SHARED__" not in child
        assert "from bench.ab" not in child
    assert ab.selected("1-ply hints", ["HINTS"]) and not ab.selected("2-ply", ["hints"])
    assert ab.selected("anything", [])
