"""The results journal: the one file format of fastbg's long jobs (games, rollouts,
tournaments), so that any of them can be interrupted, resumed and reloaded alike.

A journal is a text file of JSON lines (docs/rollouts.md, "The results file"):

* line 1, the header: ``{"fastbg_journal": 1, "job": "rollout", "settings": {...}}``,
  the job's whole configuration;
* then one line per finished chunk, a JSON object the job defines.

Every line is written in one call ending in a newline, then flushed and fsynced before
the job goes on, so a crash or Ctrl-C can only cut the *last* line short. Reading drops
such a line (no final newline, or not valid JSON) and the job plays that chunk again; a
damaged line anywhere else is refused with its line number, since it means the file was
edited or corrupted, and guessing would give wrong figures. Resuming checks that the
header holds the same settings and names every one that differs.

JSON is written canonically (sorted keys, no spaces): equal runs give equal bytes.
"""
import json
import os
import signal
import threading
from contextlib import contextmanager

FORMAT = 1
_HEADER_START = b'{"fastbg_journal":'      # how every header line begins (canonical JSON)


class JournalError(ValueError):
    """A journal cannot be read or continued: another job or configuration, or damaged."""


@contextmanager
def interrupts_held():
    """Hold a Ctrl-C (SIGINT) that arrives inside the block until the block ends.

    A finished chunk is written to the journal and kept in memory together; a Ctrl-C
    between the two would leave a chunk on disk that the interrupted job does not report
    (or the reverse). Outside the main thread, where Python takes no signals, this does
    nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held = []
    old = signal.signal(signal.SIGINT, lambda signum, frame: held.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)
        if held:
            if callable(old):
                old(signal.SIGINT, None)          # Python's handler: KeyboardInterrupt
            elif old == signal.SIG_DFL:
                os.kill(os.getpid(), signal.SIGINT)


def dumps(obj):
    """Canonical JSON text of ``obj`` (sorted keys, no spaces)."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def canonical(obj):
    """``obj`` as a journal holds it (tuples become lists, keys strings...)."""
    return json.loads(dumps(obj))


def read(path, job, check=None):
    """(settings or None, records, bytes of the valid prefix) of the journal at ``path``.

    ``settings`` is None when the file holds no complete header yet (empty, or cut short
    while the header was written). ``check(record)`` may raise ValueError to refuse a
    record; the error is raised as :class:`JournalError` with the record's line number.
    """
    settings, numbered, pos = _scan(os.fspath(path), job)
    _check_records(path, numbered, check)
    return settings, [rec for _, rec in numbered], pos


def _check_records(path, numbered, check):
    if check is None:
        return
    for number, rec in numbered:
        try:
            check(rec)
        except (ValueError, KeyError, TypeError) as exc:
            raise JournalError(f"{path}: line {number}: {exc}") from None


def _scan(path, job):
    """(settings or None, [(line number, record)], bytes of the valid prefix)."""
    with open(path, "rb") as f:
        data = f.read()
    settings, records, pos, number = None, [], 0, 0
    while pos < len(data):
        nl = data.find(b"\n", pos)
        if nl < 0:
            break                          # the last line, cut short before its newline
        number += 1
        last = nl + 1 == len(data)
        try:
            rec = json.loads(data[pos:nl])
            if not isinstance(rec, dict):
                raise ValueError("not a JSON object")
        except ValueError:
            if last:
                break                      # the last line, cut short inside
            raise JournalError(f"{path}: line {number} is not valid JSON; the file is "
                               "damaged (only a last line cut short by a crash is dropped)"
                               ) from None
        if settings is None:
            if rec.get("fastbg_journal") != FORMAT or not isinstance(rec.get("settings"), dict):
                raise JournalError(f"{path} is not a fastbg {job} file (results file format "
                                   f"{FORMAT})")
            if rec.get("job") != job:
                raise JournalError(f"{path} is not a fastbg {job} file: it holds a "
                                   f"{rec.get('job')}")
            settings = rec["settings"]
        else:
            records.append((number, rec))
        pos = nl + 1
    if settings is None and not _HEADER_START.startswith(data[:len(_HEADER_START)]):
        # Not even the start of a header cut short: some other file, never overwritten.
        raise JournalError(f"{path} is not a fastbg {job} file")
    return settings, records, pos


def _differences(old, new):
    return [f"{key}: {old.get(key)!r} there, {new.get(key)!r} here"
            for key in sorted(set(old) | set(new)) if old.get(key) != new.get(key)]


class Journal:
    """An open journal: the records already in it, and :meth:`append` for new ones.

    ``Journal(path, job, settings, resume=False)``:

    * a missing or empty file is started with the header;
    * an existing file is continued only with ``resume=True`` (else FileExistsError, so
      nothing is overwritten by accident); its header must hold ``settings``; a last line
      cut short is cut off, and :attr:`records` holds the chunks already there.

    Use it as a context manager, or call :meth:`close`.
    """

    def __init__(self, path, job, settings, *, resume=False, check=None):
        self.path = os.fspath(path)
        self.job = job
        self.settings = canonical(settings)
        self.records = []
        size = os.path.getsize(self.path) if os.path.exists(self.path) else 0
        if size and not resume:
            raise FileExistsError(f"{self.path} already exists: resume it (resume=True, "
                                  "--resume) or choose another file")
        old, numbered, valid = None, [], 0
        if size:
            old, numbered, valid = _scan(self.path, job)
        if old is not None:
            diffs = _differences(old, self.settings)
            if diffs:
                raise JournalError(f"{self.path} holds a different {job}, so it cannot be "
                                   f"resumed with these settings ({'; '.join(diffs)})")
            _check_records(self.path, numbered, check)
            self.records = [rec for _, rec in numbered]
            if valid < size:
                os.truncate(self.path, valid)      # drop a last line cut short by a crash
            self._file = open(self.path, "a", encoding="utf-8")
        else:
            self._file = open(self.path, "w", encoding="utf-8")   # new, or header cut short
            self.append({"fastbg_journal": FORMAT, "job": job, "settings": self.settings})

    def append(self, record):
        """Write ``record`` as one line and make it durable before returning."""
        self._file.write(dumps(record) + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())

    def append_many(self, records):
        """Write ``records`` as lines, in one call, and make them durable before
        returning (one fsync for all: the driver of a large cluster journals many chunks
        a second). A crash can cut only the last of them short, as with :meth:`append`."""
        self._file.write("".join(dumps(r) + "\n" for r in records))
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self):
        self._file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def write(path, job, settings, records):
    """Write a whole journal at once (atomically: a temporary file, then renamed)."""
    path = os.fspath(path)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(dumps({"fastbg_journal": FORMAT, "job": job,
                       "settings": canonical(settings)}) + "\n")
        for rec in records:
            f.write(dumps(rec) + "\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
