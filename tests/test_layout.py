"""The shape rules of the package: small modules, and no module reaching for another's private name."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted((ROOT / "pathfinding").rglob("*.py")) + sorted((ROOT / "notebooks").rglob("*.py"))
# Package-private modules: named with an underscore so users leave them alone, shared inside.
INTERNAL_MODULES = {
    "pathfinding._kernels", "pathfinding._power", "pathfinding._push", "pathfinding._validation"
}


def _private_imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("pathfinding"):
            for alias in node.names:
                private_module = node.module not in INTERNAL_MODULES and any(
                    part.startswith("_") for part in node.module.split(".")
                )
                if alias.name.startswith("_") and f"pathfinding.{alias.name}" not in INTERNAL_MODULES:
                    found.append(f"from {node.module} import {alias.name}")
                elif private_module:
                    found.append(f"from {node.module} import ...")
        elif isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            base = node.value
            if isinstance(base, ast.Name) and base.id in {"ppr", "ranking", "cli", "findings", "bench"}:
                found.append(f"{base.id}.{node.attr}")
    return found


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_private_names_cross_modules(path):
    assert _private_imports(path) == []


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_modules_stay_under_600_lines(path):
    assert len(path.read_text().splitlines()) <= 600
