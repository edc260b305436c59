"""The shape rules of the package: small modules, no module reaching for another's private name,
one API rule (see ``pathfinding/__init__.py``) and one test file per module."""

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted((ROOT / "pathfinding").rglob("*.py")) + sorted((ROOT / "notebooks").rglob("*.py"))
TESTS = sorted((ROOT / "tests").glob("*.py")) + sorted((ROOT / "tools").glob("*.py"))
# Package-private modules: named with an underscore so users leave them alone, shared inside.
INTERNAL_MODULES = {
    "pathfinding.core._kernels",
    "pathfinding.core._power",
    "pathfinding.core._push",
    "pathfinding._validation",
    "pathfinding._lazy",
    "pathfinding._argtypes",
}


def _private_imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("pathfinding"):
            for alias in node.names:
                private_module = node.module not in INTERNAL_MODULES and any(
                    part.startswith("_") for part in node.module.split(".")
                )
                if alias.name.startswith("_") and f"{node.module}.{alias.name}" not in INTERNAL_MODULES:
                    found.append(f"from {node.module} import {alias.name}")
                elif private_module:
                    found.append(f"from {node.module} import ...")
        elif isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            base = node.value
            if isinstance(base, ast.Name) and base.id in {"ppr", "scoring", "cli", "findings", "bench"}:
                found.append(f"{base.id}.{node.attr}")
    return found


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_private_names_cross_modules(path):
    assert _private_imports(path) == []


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_modules_stay_under_600_lines(path):
    assert len(path.read_text().splitlines()) <= 600


# The layers, and what each may import (issue: the engine never reaches for the experiments, the
# course or the benchmark). Function-level imports count: a lazy import is still a dependency.
LAYERS = {
    "core": {"core"},
    "synthetic": {"core", "synthetic"},
    "hipporag": {"core", "hipporag"},
    "experiments": {"core", "synthetic", "hipporag", "experiments"},
    "course": {"core", "synthetic", "hipporag", "experiments", "course"},
    "bench": {"core", "synthetic", "hipporag", "experiments", "bench"},
    "cli": {"core", "synthetic", "hipporag", "experiments", "course", "bench", "cli"},
}
SHARED = {"errors", "_validation", "_lazy", "_argtypes"}  # plain helpers every layer may use


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


PACKAGE = sorted((ROOT / "pathfinding").rglob("*.py"))
MODULES = {_module_name(p): p for p in PACKAGE}


def _imports(path: Path, *, top_level_only: bool = False) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    nodes = tree.body if top_level_only else ast.walk(tree)
    found = set()
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("pathfinding"):
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                found.add(full if full in MODULES else node.module)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("pathfinding")}
    return found


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


@pytest.mark.parametrize("module", sorted(m for m in MODULES if _layer(m) in LAYERS))
def test_layers_import_only_what_they_may(module):
    allowed = LAYERS[_layer(module)] | SHARED
    wrong = sorted(d for d in _imports(MODULES[module]) if _layer(d) and _layer(d) not in allowed)
    assert wrong == [], f"{module} ({_layer(module)}) may import only {sorted(allowed)}"


def test_no_import_cycle():
    graph = {m: {d for d in _imports(p) if d in MODULES and d != m} for m, p in MODULES.items()}
    state: dict[str, int] = {}
    cycles = []

    def visit(node, stack):
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, stack)
        stack.pop()
        state[node] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [])
    assert cycles == []


# The engine's rooms, from the bottom up: each imports only the rooms before it and itself (the
# package docstring of ``pathfinding.hipporag`` says each one's job).
HIPPORAG_ROOMS = ["language", "storage", "transport", "io", "index", "extract", "retrieval", "evaluation"]


def _room(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if len(parts) >= 3 and parts[:2] == ["pathfinding", "hipporag"] else None


def test_every_engine_module_lives_in_a_room():
    loose = sorted(m for m in MODULES if m.startswith("pathfinding.hipporag.") and _room(m) is None)
    assert loose == [], "a module of the engine belongs in one of its rooms"
    rooms = {p.name for p in (ROOT / "pathfinding" / "hipporag").iterdir() if (p / "__init__.py").exists()}
    assert rooms == set(HIPPORAG_ROOMS)


@pytest.mark.parametrize("module", sorted(m for m in MODULES if _room(m)))
def test_engine_rooms_import_only_the_rooms_below_them(module):
    rank = HIPPORAG_ROOMS.index(_room(module))
    above = sorted(d for d in _imports(MODULES[module]) if _room(d) and HIPPORAG_ROOMS.index(_room(d)) > rank)
    assert above == [], f"{module} ({_room(module)}) imports from a room above it"


@pytest.mark.parametrize("room", HIPPORAG_ROOMS)
def test_a_room_face_only_describes_and_re_exports(room):
    """A package face holds its docstring and, at most, the lazy exports of its own modules."""
    tree = ast.parse((ROOT / "pathfinding" / "hipporag" / room / "__init__.py").read_text())
    doc = ast.get_docstring(tree)
    assert doc and doc.splitlines()[0].strip(), f"{room}: say the room's job in its first line"
    for node in tree.body[1:]:
        if isinstance(node, ast.ImportFrom):
            assert node.module == "pathfinding._lazy"
        else:
            assert isinstance(node, ast.Assign), f"{room}/__init__.py does work: {ast.unparse(node)[:60]}"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m.startswith("pathfinding.hipporag.index")))
def test_the_index_layer_imports_nothing_from_extraction(module):
    """Step 3 stands on its own: the embeddings encoder shares the transport and the cache with the
    chat client through their own modules, never through the extraction layer."""
    assert sorted(d for d in _imports(MODULES[module]) if d.startswith("pathfinding.hipporag.extract")) == []


@pytest.mark.parametrize(
    "folder", sorted({p.parent for p in PACKAGE}), ids=lambda p: str(p.relative_to(ROOT))
)
def test_no_folder_holds_more_than_15_modules(folder):
    assert len(list(folder.glob("*.py"))) <= 15


def test_importing_the_engine_loads_no_experiment_course_bench_llm_client_or_compiler():
    """Nor numba or bm25s (which imports numba): a question from the shell never needs them when
    its walk is certified without the compiled kernels (tests/test_oneshot.py)."""
    code = (
        "import sys\n"
        "import pathfinding.hipporag\n"
        "from pathfinding.hipporag.retrieval.retrieve import HippoRetriever\n"
        "from pathfinding.hipporag.retrieval.oneshot import OneShotRetriever\n"
        "from pathfinding.hipporag.retrieval.querycache import load_for_query\n"
        "from pathfinding.hipporag.index.persistence import load_index\n"
        "heavy = ('pathfinding.experiments', 'pathfinding.course', 'pathfinding.bench',\n"
        "         'pathfinding.hipporag.extract.llm', 'pathfinding.hipporag.extract.openie', 'matplotlib',\n"
        "         'pathfinding.hipporag.transport.http', 'pathfinding.hipporag.transport.cache',\n"
        "         'urllib.request',\n"
        "         'sqlite3',\n"
        "         'numba', 'bm25s')\n"
        "print(sorted(m for m in sys.modules if m.startswith(heavy)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"


# The API rule (the package docstring of ``pathfinding``): every layer package exports its own names
# lazily, no module's __all__ lists a name it imports, the top level exports the entry points and
# every public exception, and the engine never leads to the experiments or the benchmark.
LAYER_PACKAGES = [
    "pathfinding.core",
    "pathfinding.synthetic",
    "pathfinding.hipporag",
    "pathfinding.hipporag.index",
    "pathfinding.hipporag.extract",
    "pathfinding.hipporag.io",
    "pathfinding.course.exercises",
    "pathfinding.bench",
]
ENTRY_POINTS = [
    "personalized_pagerank", "ppr_top_k", "prepare_graph", "node_specificity", "restart_vector",
    "passage_scores", "rank_of", "make_instance", "star_pair", "meet_node_toy", "RANKERS",
    "HippoRetriever", "build_index", "load_index", "save_index", "add_passages", "delete_passages",
    "load_corpus",
]


def _top_level(path: Path) -> tuple[set[str], set[str], list[str] | None]:
    """Names a module defines, names it imports, and its ``__all__`` (``None`` if it has none)."""
    defined, imported, listed = set(), set(), None
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            defined.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            imported |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
            defined |= names
            if "__all__" in names:
                value = node.value
                lazy = isinstance(value, ast.Call) and ast.unparse(value) == "sorted(_EXPORTS)"
                listed = [] if lazy else ast.literal_eval(value)
    return defined, imported, listed


@pytest.mark.parametrize("package", LAYER_PACKAGES)
def test_layer_packages_export_their_own_names_lazily(package):
    module = importlib.import_module(package)
    assert module.__getattr__.__module__ == "pathfinding._lazy", f"{package} must use lazy_exports"
    assert module._EXPORTS, f"{package} exports nothing"
    for name, home in module._EXPORTS.items():
        assert home.startswith(package + "."), f"{package} exports {name} from {home}, outside it"
        assert name in _top_level(MODULES[home])[0], f"{package}.{name} is not defined in {home}"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_module_lists_an_imported_name_in_all(module):
    """A name has one home: ``__all__`` lists what the module defines, never a neighbour's name."""
    _, imported, listed = _top_level(MODULES[module])
    assert sorted(set(listed or []) & imported) == []


def _defines(module: str) -> set[str]:
    """What ``from module import name`` may take: names the module defines, its lazy exports, and
    its submodules."""
    path = MODULES[module]
    names = _top_level(path)[0] | {m.rpartition(".")[2] for m in MODULES if m.rpartition(".")[0] == module}
    if path.name == "__init__.py":
        package = importlib.import_module(module)
        names |= set(getattr(package, "_EXPORTS", {}))
    return names


@pytest.mark.parametrize("path", SOURCES + TESTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_name_is_imported_from_its_home(path):
    """A name is taken from the module that defines it, never from a neighbour that imported it (a
    re-export by the back door; the API rule in ``pathfinding/__init__.py``)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if not isinstance(node, ast.ImportFrom) or node.level != 0:
            continue
        if (node.module or "").startswith("pathfinding"):
            home = _defines(node.module)
            found += [f"from {node.module} import {a.name}" for a in node.names if a.name not in home]
    assert found == []


def test_top_level_exports_the_entry_points_and_every_error():
    import pathfinding
    import pathfinding.errors

    errors = pathfinding.errors.__all__
    assert sorted(set(ENTRY_POINTS + errors) - set(pathfinding.__all__)) == []
    for package in ["pathfinding", *LAYER_PACKAGES]:
        module = importlib.import_module(package)
        for name in module.__all__:
            assert getattr(module, name) is not None, f"{package}.{name}"
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        pathfinding.nope  # noqa: B018
    from pathfinding.core import personalized_pagerank
    from pathfinding.synthetic import make_instance

    assert personalized_pagerank is pathfinding.personalized_pagerank
    assert make_instance is pathfinding.make_instance


_ERROR_BASES = ("Error", "Exception", "Warning")


@pytest.mark.parametrize("path", PACKAGE, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_public_exception_lives_in_errors(path):
    """One home for what a caller may catch: a public exception class outside errors.py is a second one."""
    if path.name == "errors.py" and path.parent.name == "pathfinding":
        return
    public = [
        node.name
        for node in ast.parse(path.read_text()).body
        if isinstance(node, ast.ClassDef)
        and not node.name.startswith("_")
        and any(ast.unparse(b).split(".")[-1].endswith(_ERROR_BASES) for b in node.bases)
    ]
    assert public == []


def test_the_engine_leads_to_no_experiment_course_or_bench_module():
    """Every name the engine's packages export resolves without loading the layers above it."""
    packages = [p for p in LAYER_PACKAGES if _layer(p) in {"core", "synthetic", "hipporag"}]
    code = (
        "import importlib, sys\n"
        f"for p in {packages!r}:\n"
        "    m = importlib.import_module(p)\n"
        "    [getattr(m, n) for n in m.__all__]\n"
        "above = ('pathfinding.experiments', 'pathfinding.course', 'pathfinding.bench')\n"
        "print(sorted(m for m in sys.modules if m.startswith(above)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("path", PACKAGE, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_rejection_is_the_packages_own_error(path):
    """A bare ValueError/TypeError escapes the command line's one-line errors: use pathfinding.errors."""
    plain = [
        node.lineno
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Raise)
        and isinstance(node.exc, ast.Call)
        and isinstance(node.exc.func, ast.Name)
        and node.exc.func.id in {"ValueError", "TypeError"}
    ]
    assert plain == []


# Tests that check several modules end to end, named for what they check rather than for a module.
CROSS_MODULE_TESTS = {
    "test_book.py": "the built course book in a browser",
    "test_build_course.py": "tools/build_course.py, which prepares the notebooks for the book",
    "test_cli_stranger.py": "the command line as a stranger meets it, every case in a subprocess",
    "test_layout.py": "the shape of the package",
    "test_mutation_tool.py": "tools/mutation.py, the sampled mutation run",
    "test_nojit.py": "every kernel as plain Python against the compiled one",
    "test_notebooks.py": "every notebook, executed",
}


def _test_file_names() -> dict[str, str]:
    """Module -> its test file: ``test_<leaf>.py``, with parent folders prefixed while the leaf is shared.

    A module's leading underscore is dropped (``core/_power.py`` -> ``test_power.py``) and a package
    is named by its folder (``hipporag/io/__init__.py`` -> ``test_io.py``).
    """
    parts = {
        m: [p.lstrip("_") for p in m.split(".")[1:]]
        for m in MODULES
        if m != "pathfinding" and not m.endswith("__main__")
    }
    names = {}
    for module, own in parts.items():
        for k in range(1, len(own) + 1):
            name = "_".join(own[-k:])
            shared = [o for o in parts.values() if len(o) >= k and "_".join(o[-k:]) == name]
            if k == len(own) or len(shared) == 1:
                names[module] = f"test_{name}.py"
                break
    return names


def test_every_test_file_is_named_after_one_module_or_is_listed_as_cross_module():
    names = _test_file_names()
    files = sorted(p.name for p in (ROOT / "tests").glob("test_*.py"))
    assert sorted(set(CROSS_MODULE_TESTS) - set(files)) == []
    assert sorted(set(CROSS_MODULE_TESTS) & set(names.values())) == []
    stray = [f for f in files if f not in CROSS_MODULE_TESTS and f not in names.values()]
    assert stray == [], "name a test file after the module it tests (see _test_file_names)"


def test_every_module_has_its_own_test_file():
    """A module that is not a package face is guarded by a test file of its own, which kills its
    plausible bugs by itself (a neighbour's tests catching them is luck, not a guard)."""
    names = _test_file_names()
    missing = sorted(
        f"{module} -> tests/{name}"
        for module, name in names.items()
        if MODULES[module].name != "__init__.py" and not (ROOT / "tests" / name).exists()
    )
    assert missing == [], "write the test file of each (named by _test_file_names)"


def test_no_module_has_two_test_files():
    """Each module has exactly one possible test file name, and no two modules share one."""
    names = _test_file_names()
    shared = {n: sorted(m for m in names if names[m] == n) for n in set(names.values())}
    assert {n: ms for n, ms in shared.items() if len(ms) > 1} == {}
    assert (names["pathfinding.cli.openie"], names["pathfinding.hipporag.extract.openie"]) == (
        "test_cli_openie.py",
        "test_extract_openie.py",
    )
    assert names["pathfinding.hipporag.io"] == "test_io.py"
