"""The results journal (fastbg/journal.py) on its own: layout, resume, damage, Ctrl-C."""
import json
import os
import signal

import pytest

from fastbg import journal as J


def _make(path, n=3):
    with J.Journal(path, "demo", {"a": 1, "b": [1, 2]}) as j:
        for i in range(n):
            j.append({"lo": i, "x": i * i})


def test_layout_header_then_one_line_per_record(tmp_path):
    path = tmp_path / "j.jsonl"
    _make(path)
    lines = path.read_bytes().split(b"\n")
    assert lines[-1] == b"" and len(lines) == 5
    assert json.loads(lines[0]) == {"fastbg_journal": 1, "job": "demo",
                                    "settings": {"a": 1, "b": [1, 2]}}
    assert lines[1] == b'{"lo":0,"x":0}'                 # canonical: sorted, no spaces
    settings, records, valid = J.read(path, "demo")
    assert settings == {"a": 1, "b": [1, 2]} and [r["x"] for r in records] == [0, 1, 4]
    assert valid == path.stat().st_size


def test_resume_keeps_records_and_appends(tmp_path):
    path = tmp_path / "j.jsonl"
    _make(path, 2)
    with J.Journal(path, "demo", {"b": (1, 2), "a": 1}, resume=True) as j:   # same settings
        assert [r["lo"] for r in j.records] == [0, 1]
        j.append({"lo": 2, "x": 4})
    other = tmp_path / "k.jsonl"
    _make(other, 3)
    assert path.read_bytes() == other.read_bytes()


def test_nothing_is_overwritten(tmp_path):
    path = tmp_path / "j.jsonl"
    _make(path)
    before = path.read_bytes()
    with pytest.raises(FileExistsError, match="resume"):
        J.Journal(path, "demo", {"a": 1, "b": [1, 2]})
    with pytest.raises(J.JournalError, match=r"a: 1 there, 2 here"):
        J.Journal(path, "demo", {"a": 2, "b": [1, 2]}, resume=True)
    with pytest.raises(J.JournalError, match="not a fastbg rollout file"):
        J.Journal(path, "rollout", {"a": 1, "b": [1, 2]}, resume=True)
    assert path.read_bytes() == before
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes")                          # no newline: not a header either
    with pytest.raises(J.JournalError, match="not a fastbg demo file"):
        J.Journal(notes, "demo", {}, resume=True)
    assert notes.read_text() == "my notes"


def test_a_damaged_last_line_is_dropped_and_cut_off(tmp_path):
    path = tmp_path / "j.jsonl"
    _make(path)
    whole = path.read_bytes()
    for cut in (whole[:-1], whole[:-5]):                  # no newline; cut inside the line
        path.write_bytes(cut)
        assert [r["lo"] for r in J.read(path, "demo")[1]] == [0, 1]
        with J.Journal(path, "demo", {"a": 1, "b": [1, 2]}, resume=True) as j:
            assert len(j.records) == 2
            j.append({"lo": 2, "x": 4})
        assert path.read_bytes() == whole
    header_only = whole.split(b"\n")[0][:10]              # a crash while the header was written
    path.write_bytes(header_only)
    with J.Journal(path, "demo", {"a": 1, "b": [1, 2]}, resume=True) as j:
        assert j.records == []
    assert J.read(path, "demo")[0] == {"a": 1, "b": [1, 2]}


def test_a_damaged_middle_line_is_refused_with_its_number(tmp_path):
    path = tmp_path / "j.jsonl"
    _make(path)
    lines = path.read_bytes().split(b"\n")
    lines[2] = lines[2][:5]
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(J.JournalError, match="line 3 is not valid JSON"):
        J.read(path, "demo")
    with pytest.raises(J.JournalError, match="line 3 is not valid JSON"):
        J.Journal(path, "demo", {"a": 1, "b": [1, 2]}, resume=True)


def test_a_record_refused_by_the_job_names_its_line(tmp_path):
    path = tmp_path / "j.jsonl"
    _make(path)

    def check(rec):
        if rec["x"] == 4:
            raise ValueError("not a chunk of this job")
    with pytest.raises(J.JournalError, match="line 4: not a chunk of this job"):
        J.read(path, "demo", check)


def test_write_is_atomic_and_readable(tmp_path):
    path = tmp_path / "w.jsonl"
    J.write(path, "demo", {"a": 1, "b": [1, 2]}, [{"lo": i, "x": i * i} for i in range(3)])
    _make(tmp_path / "j.jsonl")
    assert path.read_bytes() == (tmp_path / "j.jsonl").read_bytes()
    assert not (tmp_path / "w.jsonl.tmp").exists()


@pytest.fixture
def python_sigint():
    """Python's own SIGINT handler, as in a terminal (a run started in the background by a
    non-interactive shell inherits SIGINT ignored)."""
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, old)


def test_interrupts_held_until_the_block_ends(python_sigint):
    done = []
    with pytest.raises(KeyboardInterrupt):
        with J.interrupts_held():
            os.kill(os.getpid(), signal.SIGINT)           # a real signal, held here
            done.append("after the signal")
    assert done == ["after the signal"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    with J.interrupts_held():                             # no signal: nothing raised
        done.append("quiet")
    assert done[-1] == "quiet"
