"""Lazy package exports (pathfinding._lazy): a name is imported on first use, from its own module only."""

import subprocess
import sys

import pytest

FACE = """from pathfinding._lazy import lazy_exports

LOADS = []
plain = 1
__getattr__, __dir__ = lazy_exports(__name__, {"square": "fakepkg.ops", "cube": "fakepkg.more"})
"""
OPS = "import fakepkg\n\nfakepkg.LOADS.append('ops')\n\n\ndef square(x):\n    return x * x\n"
MORE = "import fakepkg\n\nfakepkg.LOADS.append('more')\n\n\ndef cube(x):\n    return x**3\n"


@pytest.fixture
def fakepkg(tmp_path, monkeypatch):
    """A package whose ``square`` lives in ``fakepkg.ops`` and ``cube`` in ``fakepkg.more``; each
    submodule records its load in ``fakepkg.LOADS``."""
    (tmp_path / "fakepkg").mkdir()
    for name, text in (("__init__", FACE), ("ops", OPS), ("more", MORE)):
        (tmp_path / "fakepkg" / f"{name}.py").write_text(text)
    monkeypatch.syspath_prepend(tmp_path)
    import fakepkg

    yield fakepkg
    for name in ("fakepkg", "fakepkg.ops", "fakepkg.more"):
        sys.modules.pop(name, None)


def test_a_name_loads_its_module_on_first_use_only(fakepkg):
    assert fakepkg.LOADS == []
    assert fakepkg.square(3) == 9
    assert fakepkg.LOADS == ["ops"]  # the other module stays unloaded
    assert "square" in vars(fakepkg)  # kept: later lookups skip __getattr__
    assert fakepkg.square(4) == 16 and fakepkg.LOADS == ["ops"]
    from fakepkg import cube

    assert cube(2) == 8 and fakepkg.LOADS == ["ops", "more"]


def test_an_unknown_name_is_an_attribute_error_naming_the_package(fakepkg):
    with pytest.raises(AttributeError, match="^module 'fakepkg' has no attribute 'sqaure'$"):
        fakepkg.sqaure  # noqa: B018
    assert not hasattr(fakepkg, "nope") and fakepkg.LOADS == []


def test_dir_lists_the_lazy_names_and_what_the_package_holds(fakepkg):
    names = dir(fakepkg)
    assert {"square", "cube", "plain", "LOADS"} <= set(names) and names == sorted(names)
    assert fakepkg.LOADS == []  # listing imports nothing


def test_a_real_package_face_imports_nothing_until_asked():
    code = (
        "import sys\nimport pathfinding.bench as b\n"
        "print('pathfinding.bench.run' in sys.modules, callable(b.run_benchmark), "
        "'pathfinding.bench.run' in sys.modules, 'pathfinding.bench.report' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True", "True", "False"]
