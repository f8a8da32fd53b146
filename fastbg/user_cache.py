"""fastbg's per-user cache: the bear-off tables and numba's compiled kernels.

Both live under one directory, ``$FASTBG_CACHE`` or else ``$XDG_CACHE_HOME/fastbg`` or
``~/.cache/fastbg``; the kernels in its ``numba/`` folder (``fastbg info`` prints where and
how much).

Why the kernels are not left where numba puts them by default (a ``__pycache__`` beside
each source file): in an installed package that is site-packages, and pip does not know
those files. ``pip install .`` then ``pip install -e .`` removed fastbg's own files and
left the ``__pycache__`` folders, and the empty ``fastbg/`` directory they kept shadowed
the editable install (``import fastbg`` gave an empty namespace package). A read-only or
shared site-packages cannot take them at all. So :func:`install_kernel_cache` puts a cache
locator in front of numba's own that claims fastbg's source files, and only those: the
user's own cached functions stay where numba puts them.

``NUMBA_CACHE_DIR``, when set, still wins (numba's own locator then takes every function,
fastbg's too): a benchmark of cold starts points it at an empty folder.

Each install gets its own subfolder (named after the source folder and a hash of its
path, numba's naming), so two checkouts never read each other's kernels; inside it, one
folder per state of the sources (:func:`source_stamp`, a hash of every ``.py`` file of
the package). numba checks a cached entry against its own source file only, but a kernel
holds the code of what it calls and inlines from other files too: after a change to
``fastbg/evaluators/simd.py`` alone, ``net_kernels.evaluate_rows`` was still loaded with
the old hidden sums (seen here: a benchmark timed the old code as the new). The stamp
makes any change to the sources compile every kernel afresh; the folders of earlier
stamps of the same install are removed once they have not been written for a while.

Several processes compiling at once (pytest's workers, Ray's workers on one node, two
jobs started together on a fresh cache) could make numba load one signature's machine
code for another: numba numbers a kernel's data files in the order they are saved, each
process reading the index, taking the first free number and writing the index and then
the file, so two processes saving two signatures of one kernel could both take number 1,
leaving the index naming the second signature and the file holding the first's code.
That code was then loaded without a check (a reproduction with two processes called
``f(5.0)`` and got ``f(5)``'s int code; a ``fastbg play`` child of the tests that failed
in numba's unboxing of a C callback, first taken for this, may as well have been a Ctrl-C
lost in that unboxing: :func:`fastbg.plugin_pointers.call_holding_interrupts`). :class:`KeyedCacheFile` names each data file
after its entry's key, writes it before the index, updates the index under a file lock
and checks the key stored in the file when it loads it: a clash is then a cache miss,
never another signature's code.
"""
import contextlib
import functools
import hashlib
import os
import pathlib
import shutil
import tempfile
import time

try:
    import fcntl
except ImportError:           # Windows: no lock; the stored key still refuses a clash
    fcntl = None

KERNEL_FOLDER = "numba"
STAMP_PREFIX = "src-"      # a kernel folder's subfolders: one per state of the sources
STALE_AFTER_S = 600        # other stamps' folders untouched this long are removed


def cache_root():
    """The per-user cache directory (not created here)."""
    root = os.environ.get("FASTBG_CACHE")
    if root:
        return pathlib.Path(root)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return pathlib.Path(base) / "fastbg"


def kernel_cache_dir():
    """Where fastbg's compiled kernels are cached: numba's ``NUMBA_CACHE_DIR`` when set,
    else ``cache_root() / "numba"``."""
    import numba
    if numba.config.CACHE_DIR:
        return pathlib.Path(numba.config.CACHE_DIR)
    return cache_root() / KERNEL_FOLDER


def folder_size(path):
    """(files, bytes) under ``path``; (0, 0) when it does not exist."""
    files = size = 0
    for dirpath, _, names in os.walk(path):
        for name in names:
            try:
                size += os.stat(os.path.join(dirpath, name)).st_size
            except OSError:          # removed while we walked
                continue
            files += 1
    return files, size


_PACKAGE = os.path.dirname(os.path.abspath(__file__))


@functools.cache
def source_stamp():
    """A hash of the contents of every ``.py`` file of the installed package (16 hex
    digits; computed once a process): it changes whenever any source does."""
    digest = hashlib.sha1()
    for dirpath, dirnames, names in os.walk(_PACKAGE):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(n for n in names if n.endswith(".py")):
            path = os.path.join(dirpath, name)
            digest.update(os.path.relpath(path, _PACKAGE).encode() + b"\0")
            with open(path, "rb") as f:
                digest.update(f.read())
            digest.update(b"\0")
    return digest.hexdigest()[:16]


def _drop_other_stamps(folder, keep, min_age=STALE_AFTER_S):
    """Remove the subfolders of other source stamps from an install's kernel folder (their
    kernels are never loaded again by these sources), except those written in the last
    ``min_age`` seconds: a process started before the sources changed may still save there."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    now = time.time()
    for entry in entries:
        try:
            stale = (entry.name.startswith(STAMP_PREFIX) and entry.name != keep
                     and entry.is_dir() and now - entry.stat().st_mtime > min_age)
        except OSError:
            continue
        if stale:
            shutil.rmtree(entry.path, ignore_errors=True)


def _numba_locator_base():
    """numba's user-directory locator and the class holding the locator list; their names
    lost the leading underscore in numba 0.61."""
    from numba.core import caching
    base = getattr(caching, "UserProvidedCacheLocator", None) or caching._UserProvidedCacheLocator
    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl
    return base, impl


@functools.cache
def _kernel_folder_names():
    """The names numba gives the cache folders of fastbg's source folders (the same under
    any root: fastbg's own or ``NUMBA_CACHE_DIR``)."""
    return frozenset(f.name for f in install_kernel_folders())


def _key_text(key):
    """A cache entry's key as text (signature, target, bytecode hashes): what a data file
    of :class:`KeyedCacheFile` is named after and stores to be checked."""
    return repr(key)


@contextlib.contextmanager
def _locked(path):
    """An exclusive lock on ``path`` (created) for the body, where the OS has one."""
    if fcntl is None:
        yield
        return
    with open(path, "a+b") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def keyed_cache_file_class():
    """numba's index-and-data cache file, safe for processes saving at once in fastbg's
    kernel folders (module docstring); elsewhere exactly numba's."""
    from numba.core import caching
    base = caching.IndexDataCacheFile
    if getattr(base, "_fastbg", False):
        return base

    class KeyedCacheFile(base):
        _fastbg = True

        def __init__(self, cache_path, filename_base, source_stamp):
            super().__init__(cache_path, filename_base, source_stamp)
            self._keyed = not _kernel_folder_names().isdisjoint(pathlib.Path(cache_path).parts)
            self._filename_base = filename_base

        def data_name(self, key):
            """The data file of ``key``: named after it, so that no other entry's process
            ever writes it."""
            digest = hashlib.sha1(_key_text(key).encode()).hexdigest()[:20]
            return f"{self._filename_base}.{digest}.nbc"

        def save(self, key, data):
            if not self._keyed:
                return super().save(key, data)
            name = self.data_name(key)
            # the file first: the index never names a file not yet written
            self._save_data(name, (_key_text(key), data))
            with _locked(self._index_path + ".lock"):      # no entry lost to a rewrite
                overloads = self._load_index()
                if overloads.get(key) != name:
                    overloads[key] = name
                    self._save_index(overloads)

        def load(self, key):
            if not self._keyed:
                return super().load(key)
            name = self._load_index().get(key)
            if name is None:
                return None
            try:
                stored = self._load_data(name)
            except Exception:                 # removed, cut short, unreadable: a miss
                return None
            if not (isinstance(stored, tuple) and len(stored) == 2
                    and stored[0] == _key_text(key)):
                return None                   # not this entry's code: compile it
            return stored[1]

    caching.IndexDataCacheFile = KeyedCacheFile
    return KeyedCacheFile


def install_kernel_cache():
    """Put fastbg's locator first in numba's list, and numba's cache files for fastbg's
    folders safe for concurrent processes (:func:`keyed_cache_file_class`), once. Call
    before any kernel module is imported: numba picks a function's locator and cache
    file when it is decorated."""
    base, impl = _numba_locator_base()
    keyed_cache_file_class()
    if any(getattr(cls, "_fastbg", False) for cls in impl._locator_classes):
        return

    class FastbgCacheLocator(base):
        """fastbg's source files -> the per-user kernel cache."""
        _fastbg = True

        _pruned = set()

        def __init__(self, py_func, py_file):
            super().__init__(py_func, py_file)
            folder = os.path.join(self._root, self.get_suitable_cache_subpath(py_file))
            stamp = STAMP_PREFIX + source_stamp()
            if folder not in self._pruned:
                self._pruned.add(folder)
                _drop_other_stamps(folder, stamp)
            self._cache_path = os.path.join(folder, stamp)

        @classmethod
        def from_function(cls, py_func, py_file):
            import numba
            if numba.config.CACHE_DIR:       # NUMBA_CACHE_DIR set: numba's locator decides
                return None
            if not os.path.abspath(py_file).startswith(_PACKAGE + os.sep):
                return None
            for root in (kernel_cache_dir(), _fallback_dir()):
                cls._root = str(root)
                # numba's base from_function makes the folder and checks it is writable.
                locator = super(base, cls).from_function(py_func, py_file)
                if locator is not None:
                    return locator
            return None

    impl._locator_classes.insert(0, FastbgCacheLocator)


def _fallback_dir():
    """A home directory that cannot be written (a sandbox, a service account): the
    system's temporary folder, per user, rather than site-packages."""
    return pathlib.Path(tempfile.gettempdir()) / f"fastbg-{getattr(os, 'getuid', lambda: 'user')()}" / KERNEL_FOLDER


def install_kernel_folders():
    """The folders of the kernel cache that hold this install's kernels: one per source
    folder of the package (numba's naming: the folder's name and a hash of its path),
    each with a subfolder per :func:`source_stamp`."""
    root = kernel_cache_dir()
    folders = []
    for dirpath, _, names in os.walk(_PACKAGE):
        if any(n.endswith(".py") for n in names):
            digest = hashlib.sha1(os.path.abspath(dirpath).encode()).hexdigest()
            folders.append(root / f"{os.path.basename(dirpath)}_{digest}")
    return folders


def clear_kernel_cache():
    """Remove this install's compiled kernels (other installs' and other programs' stay);
    returns (files, bytes) removed. The next call of each kernel compiles it afresh."""
    files = size = 0
    for folder in install_kernel_folders():
        f, s = folder_size(folder)
        shutil.rmtree(folder, ignore_errors=True)
        files, size = files + f, size + s
    return files, size
