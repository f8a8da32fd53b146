"""What a new process compiles: run a script in a fresh interpreter with a listener on
numba's ``numba:compile`` events (a compile, not a load from the disk cache) and return
the names of the kernels it compiled. The disk-cache tests of the plug-in kernels
(tests/test_play.py, tests/test_cubeful_play.py, tests/test_search.py) use it.
"""
import subprocess
import sys
import textwrap

_LISTENER = """\
import numba
from numba.core import event
_compiled = []
class _Listener(event.Listener):
    def on_start(self, ev):
        f = getattr(ev.data.get('dispatcher'), 'py_func', None)
        _compiled.append(getattr(f, '__qualname__', ''))
    def on_end(self, ev):
        pass
event.register('numba:compile', _Listener())
"""


def compiled_in_new_process(tmp_path, body, *args, prefixes=("play",)):
    """The sorted names (starting with one of ``prefixes``) of the kernels that ``body``
    (Python source; ``sys.argv[1:]`` are ``args``) compiled, run in a new process."""
    script = tmp_path / "compile_events_run.py"
    script.write_text(_LISTENER + textwrap.dedent(body) + textwrap.dedent(f"""
        print(sorted(set(c for c in _compiled if c.startswith({tuple(prefixes)!r}))))
        """))
    out = subprocess.run([sys.executable, str(script), *map(str, args)], capture_output=True,
                         text=True, cwd=tmp_path, timeout=600)
    assert out.returncode == 0, out.stderr
    return eval(out.stdout.strip().splitlines()[-1])
