"""Compiled kernels go to the per-user cache, never beside the installed sources.

Each case runs in a child process: numba binds a kernel to its cache folder when the
kernel is decorated, that is when fastbg is first imported, so the environment has to be
set before that import.
"""
import json
import os
import subprocess
import sys
import textwrap

import fastbg

PACKAGE = os.path.dirname(fastbg.__file__)

# Every numba dispatcher of every fastbg module, with the folder its cache uses.
_LIST_CACHES = textwrap.dedent("""
    import importlib, json, pkgutil, sys
    import numba
    import fastbg
    found = {}
    for info in pkgutil.walk_packages(fastbg.__path__, "fastbg."):
        if info.name in ("fastbg.cli", "fastbg.__main__"):
            continue
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            cache = getattr(obj, "_cache", None)
            path = getattr(cache, "_cache_path", None)
            if isinstance(obj, numba.core.dispatcher.Dispatcher) and path:
                found[info.name + "." + name] = path
    # compiles and caches one small kernel (first_invalid_row), not movegen's seconds
    fastbg.position.board.validate(fastbg.START)
    user = sys.argv[1]
    spec = importlib.util.spec_from_file_location("user_mod", user)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    print(json.dumps({"fastbg": found, "user": mod.double._cache._cache_path}))
""")

_USER_MODULE = textwrap.dedent("""
    import numba

    @numba.njit(cache=True)
    def double(x):
        return 2 * x
""")


def _run(tmp_path, **env_changes):
    user = tmp_path / "user_mod.py"
    user.write_text(_USER_MODULE)
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env.update(env_changes)
    out = subprocess.run([sys.executable, "-c", _LIST_CACHES, str(user)], env=env,
                         capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_every_kernel_caches_in_fastbg_cache_and_user_code_is_left_alone(tmp_path):
    cache = tmp_path / "cache"
    found = _run(tmp_path, FASTBG_CACHE=str(cache))
    assert len(found["fastbg"]) > 50            # the walk really saw the kernels
    outside = {k: p for k, p in found["fastbg"].items()
               if not p.startswith(str(cache / "numba") + os.sep)}
    assert not outside, f"kernels cached elsewhere: {sorted(outside)[:5]}"
    assert not any(p.startswith(PACKAGE) for p in found["fastbg"].values())
    written = [f for _, _, fs in os.walk(cache / "numba") for f in fs if f.endswith(".nbi")]
    assert written, "validate compiled nothing into the cache"
    # A user's own cached function is numba's business: beside its source.
    assert found["user"] == str(tmp_path / "__pycache__")


def test_numba_cache_dir_still_wins(tmp_path):
    numba_dir = tmp_path / "numba-dir"
    found = _run(tmp_path, FASTBG_CACHE=str(tmp_path / "unused"), NUMBA_CACHE_DIR=str(numba_dir))
    assert all(p.startswith(str(numba_dir)) for p in found["fastbg"].values())
    assert not (tmp_path / "unused").exists()


def test_unwritable_cache_falls_back_to_temp_not_site_packages(tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache folder would go")
    found = _run(tmp_path, FASTBG_CACHE=str(blocker))
    paths = set(found["fastbg"].values())
    assert paths and not any(p.startswith(PACKAGE) for p in paths)
    assert all(f"fastbg-{os.getuid()}" in p for p in paths)


def test_kernels_are_cached_per_state_of_the_sources(tmp_path):
    """A kernel's folder is named after a hash of every source file, not only its own
    (a kernel holds the code it inlines from other files); other states' folders that
    have not been written for a while are removed, recent ones kept."""
    from fastbg import user_cache
    cache = tmp_path / "cache"
    folder = user_cache.install_kernel_folders()[0]
    folder = cache / "numba" / folder.name
    old, recent = folder / "src-0000000000000000", folder / "src-1111111111111111"
    for f in (old, recent):
        f.mkdir(parents=True)
        (f / "k.nbi").write_bytes(b"x")
    os.utime(old, (1, 1))
    found = _run(tmp_path, FASTBG_CACHE=str(cache))
    stamp = user_cache.STAMP_PREFIX + user_cache.source_stamp()
    paths = set(found["fastbg"].values())
    assert paths and all(os.path.basename(p) == stamp for p in paths)
    assert str(folder / stamp) in paths
    assert not old.exists() and (recent / "k.nbi").exists()


def test_source_stamp_changes_with_any_source(tmp_path, monkeypatch):
    from fastbg import user_cache
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "a.py").write_text("A = 1\n")
    (pkg / "sub" / "b.py").write_text("B = 1\n")
    (pkg / "notes.txt").write_text("not a source")
    monkeypatch.setattr(user_cache, "_PACKAGE", str(pkg))
    monkeypatch.setattr(user_cache, "source_stamp", user_cache.source_stamp.__wrapped__)

    def stamp():
        return user_cache.source_stamp()
    first = stamp()
    assert stamp() == first and len(first) == 16
    (pkg / "notes.txt").write_text("other text")
    assert stamp() == first                      # only .py files count
    (pkg / "sub" / "b.py").write_text("B = 2\n")
    second = stamp()
    assert second != first
    (pkg / "sub" / "b.py").write_text("B = 1\n")
    assert stamp() == first                      # the contents, not the time stamps


# A child that compiles one layout of a small kernel and saves it to the cache in a set
# interleaving with another child: both wait at a barrier (a file each) inside their
# first save step, then sleep their own delays before writing the index and the data.
_SAVE_IN_STEP = textwrap.dedent("""
    import os, sys, time
    import numpy as np
    import fastbg
    from numba.core import caching
    from fastbg.position.board_kernels import first_invalid_row
    me, other, index_delay, data_delay, layout = sys.argv[1:6]
    cls = caching.IndexDataCacheFile
    save_index, save_data = cls._save_index, cls._save_data
    met = []

    def barrier():
        if not met:
            open(me, "w").close()
            while not os.path.exists(other):
                time.sleep(0.01)
            met.append(1)

    def slow_index(self, overloads):
        barrier(); time.sleep(float(index_delay)); save_index(self, overloads)

    def slow_data(self, name, data):
        barrier(); time.sleep(float(data_delay)); save_data(self, name, data)

    cls._save_index, cls._save_data = slow_index, slow_data
    boards = np.zeros((8, 26), np.int8)
    boards[6, 25] = -1                  # the mover's bar negative: row 6 is invalid
    print(first_invalid_row(boards if layout == "C" else boards[::2]))
""")

_LOAD_ONE = textwrap.dedent("""
    import json, sys
    import numpy as np
    import fastbg
    from fastbg.position.board_kernels import first_invalid_row
    boards = np.zeros((8, 26), np.int8)
    boards[6, 25] = -1
    got = first_invalid_row(boards if sys.argv[1] == "C" else boards[::2])
    print(json.dumps([int(got), [str(s) for s in first_invalid_row.signatures],
                      sum(first_invalid_row.stats.cache_hits.values())]))
""")


def test_two_processes_saving_two_signatures_at_once_load_their_own_code(tmp_path):
    """Two processes save two signatures of one kernel at once, in the interleaving that
    made numba's numbered data files cross (both read the empty index; the first writes
    the index, the second the index and its file, the first its file last): a third
    process then finds each signature in the cache with its own code, nothing else
    compiled or loaded."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["FASTBG_CACHE"] = str(tmp_path / "cache")
    a, b = str(tmp_path / "ready-a"), str(tmp_path / "ready-b")
    children = [subprocess.Popen([sys.executable, "-c", _SAVE_IN_STEP, *args], env=env,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 cwd=tmp_path)
                for args in ((a, b, "0", "0.8", "C"), (b, a, "0.3", "0", "A"))]
    outs = [c.communicate(timeout=600) for c in children]
    for c, (out, err) in zip(children, outs):
        assert c.returncode == 0, err
    assert [o.strip() for o, _ in outs] == ["6", "3"]
    for layout, want in (("A", 3), ("C", 6)):
        res = subprocess.run([sys.executable, "-c", _LOAD_ONE, layout], env=env,
                             capture_output=True, text=True, timeout=600, cwd=tmp_path)
        assert res.returncode == 0, res.stderr
        got, sigs, hits = json.loads(res.stdout.strip().splitlines()[-1])
        assert got == want
        assert sigs == [f"(Array(int8, 2, '{layout}', False, aligned=True),)"], sigs
        assert hits == 1


def test_a_data_file_of_another_entry_is_a_miss(tmp_path):
    """An index naming a file that holds another entry's code (as numba's numbered files
    could after a clash) loads nothing: the kernel compiles instead."""
    from fastbg import user_cache
    cls = user_cache.keyed_cache_file_class()
    folder = tmp_path / user_cache.install_kernel_folders()[0].name / "src-0"
    folder.mkdir(parents=True)
    f = cls(str(folder), "k-1.py311", "stamp")
    assert f._keyed
    f.save(("sig-a", "cpu"), {"code": "a"})
    f.save(("sig-b", "cpu"), {"code": "b"})
    assert f.load(("sig-a", "cpu")) == {"code": "a"}
    assert f.load(("sig-b", "cpu")) == {"code": "b"}
    assert f.data_name(("sig-a", "cpu")) != f.data_name(("sig-b", "cpu"))
    crossed = f._load_index()
    crossed[("sig-b", "cpu")] = f.data_name(("sig-a", "cpu"))
    f._save_index(crossed)
    assert f.load(("sig-b", "cpu")) is None
    assert f.load(("sig-a", "cpu")) == {"code": "a"}
    # outside fastbg's folders numba's own files, unchanged
    other = tmp_path / "elsewhere"
    other.mkdir()
    g = cls(str(other), "k-1.py311", "stamp")
    assert not g._keyed
    g.save(("sig-a", "cpu"), {"code": "a"})
    assert sorted(os.listdir(other)) == ["k-1.py311.1.nbc", "k-1.py311.nbi"]
