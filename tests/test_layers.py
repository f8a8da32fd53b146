"""The package's layers import only downwards (docs/architecture.md):
base modules -> position -> cube -> evaluators -> sim -> jobs -> public API -> cli.

Every ``import``/``from ... import`` of a fastbg module, at module level or inside a
function, is read from the source with :mod:`ast`, so a lazy upward import fails too.
"""
import ast
import pathlib

import fastbg

PACKAGE = pathlib.Path(fastbg.__file__).parent
BASE = {"constants", "jit", "dice", "parallel", "validation", "progress", "journal",
        "distributed", "user_cache", "extras", "html_tables", "plugin_pointers"}
LAYERS = {name: 0 for name in BASE}
# The public API (fastbg/__init__.py) gathers the areas; the command line is built on it.
LAYERS.update({"position": 1, "cube": 2, "evaluators": 3, "analysis": 4, "sim": 5, "files": 6,
               "jobs": 7, "benchmarks": 8, "training": 8, "__init__": 9, "cli": 10, "__main__": 11})


def _layer(module):
    """The layer of ``fastbg.a.b`` (by its first component under fastbg)."""
    parts = module.split(".")
    assert parts[0] == "fastbg", module
    if len(parts) == 1:
        return LAYERS["__init__"]
    return LAYERS[parts[1]]


def _is_module(name):
    rel = pathlib.Path(*name.split(".")[1:])
    return (PACKAGE / rel).with_suffix(".py").exists() or (PACKAGE / rel).is_dir()


def _imports(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("fastbg"):
                    yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path}:{node.lineno}: use absolute imports"
            if node.module and node.module.startswith("fastbg"):
                for alias in node.names:     # "from fastbg import dice": the module imported
                    sub = f"{node.module}.{alias.name}"
                    yield node.lineno, sub if _is_module(sub) else node.module


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).with_suffix("")
        yield path, rel.parts[0]


def test_every_module_has_a_layer():
    missing = sorted({top for _, top in _modules() if top not in LAYERS})
    assert not missing, f"modules with no layer in docs/architecture.md: {missing}"


def test_imports_point_down():
    bad = []
    for path, top in _modules():
        own = LAYERS[top]
        for line, target in _imports(path):
            if _layer(target) > own:
                bad.append(f"{path.relative_to(PACKAGE)}:{line} imports {target}")
    assert not bad, "upward imports:\n" + "\n".join(bad)


def test_no_module_shares_a_name_with_a_function_or_class():
    """``fastbg.jobs.rollouts`` was once a module and a function at once; no name may mean both."""
    modules = {p.stem for p in PACKAGE.rglob("*.py")} | {p.name for p in PACKAGE.iterdir()
                                                       if p.is_dir()}
    public = set()
    for path, _ in _modules():
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                public.add(node.name)
    clash = sorted(modules & public)
    assert not clash, f"names that are both a module and a function/class: {clash}"


def _module_name(path):
    """``fastbg.a.b`` of a source file (a package's ``__init__.py`` is the package)."""
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(("fastbg", *parts))


def test_no_import_cycles():
    """No fastbg modules import each other, directly or round a longer loop, counting lazy
    imports inside functions: each module sits above everything it imports.
    (``fastbg.sim.bots`` and ``fastbg.sim.engines`` once did, through function bodies.)"""
    graph = {}
    for path, _ in _modules():
        name = _module_name(path)
        graph[name] = sorted({target for _, target in _imports(path) if target != name})
    # Depth-first search; a module met again while still on the path closes a cycle.
    done, path_now, cycles = set(), [], []

    def visit(module):
        path_now.append(module)
        for target in graph.get(module, ()):
            if target in path_now:
                cycles.append(" -> ".join(path_now[path_now.index(target):] + [target]))
            elif target not in done:
                visit(target)
        path_now.pop()
        done.add(module)

    for module in sorted(graph):
        if module not in done:
            visit(module)
    assert not cycles, "import cycles:\n" + "\n".join(cycles)
