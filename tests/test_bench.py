"""The benchmark's package face (pathfinding.bench): every name it lists resolves to the module that
defines it, and registering the command loads none of the peers, probes or plotting."""

import importlib
import subprocess
import sys

import pathfinding.bench as bench


def test_every_exported_name_is_its_modules_own():
    assert bench.__all__ == sorted(bench._EXPORTS)
    for name, home in bench._EXPORTS.items():
        assert getattr(bench, name) is getattr(importlib.import_module(home), name)


def test_importing_the_face_loads_no_measurement_module():
    code = (
        "import sys\nimport pathfinding.bench\n"
        "print(sorted(m for m in sys.modules if m.startswith('pathfinding.bench.') or m == 'matplotlib'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
