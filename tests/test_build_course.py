"""What tools/build_course.py does to a notebook before the book renders it (nothing is executed here)."""

import ast
import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("jupytext")

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("build_course", ROOT / "tools" / "build_course.py")
build_course = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build_course)

NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.py"))
SOLUTIONS = sorted((ROOT / "notebooks" / "solutions").glob("[0-9][0-9]_*_sol.py"))


def _calls_a_check(source: str) -> bool:
    return any(
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("check", "expect")
        for node in ast.walk(ast.parse(source))
    )


def test_split_plumbing_keeps_the_computation_and_hides_only_the_checks():
    source = (
        "x = 1  # the computation\n"
        "print(x)\n"
        "check(x == 1, idea='one')\n"
        "for k in range(3):\n"
        "    check(k < 3, idea='small')\n"
        "# a comment about y\n"
        "y = 2\n"
        "assert y\n"
    )
    runs = build_course.split_plumbing(source)
    assert runs == [
        ("x = 1  # the computation\nprint(x)", False),
        ("check(x == 1, idea='one')\nfor k in range(3):\n    check(k < 3, idea='small')", True),
        ("# a comment about y\ny = 2", False),
        ("assert y", True),
    ]
    assert "".join(s for s, _ in runs).replace("\n", "") == source.replace("\n", "")


def test_a_loop_that_computes_is_not_plumbing():
    source = "for k in range(3):\n    total = k\n    check(total < 3, idea='small')\n"
    assert build_course.split_plumbing(source) == [(source.strip("\n"), False)]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_a_page_shows_no_check_and_links_its_solutions(path):
    solutions = f"../solutions/{path.stem}_sol"
    nb = build_course.prepare(path, solutions_doc=solutions, notebook_doc=None)
    shown = [
        c.source
        for c in nb.cells
        if c.cell_type == "code" and "remove-cell" not in c.metadata.get("tags", [])
    ]
    assert shown, f"{path.name}: no code left on the page"
    assert not [s for s in shown if _calls_a_check(s)], f"{path.name}: a check(...) cell is still shown"
    hidden = [c for c in nb.cells if "remove-cell" in c.metadata.get("tags", [])]
    assert all(_calls_a_check(c.source) or "assert" in c.source for c in hidden), "only checks may be hidden"
    markdown = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert f"{{doc}}`{solutions}`" in markdown, f"{path.name}: its exercises do not link the solutions"
    assert f"{{download}}`{path.name} <{path.name}>`" in markdown, f"{path.name}: no link to its source"


@pytest.mark.parametrize("path", SOLUTIONS, ids=[p.stem for p in SOLUTIONS])
def test_every_worked_solution_is_collapsed(path):
    nb = build_course.prepare(path, solutions_doc=None, notebook_doc="../notebooks/x")
    answers = [c.source for c in nb.cells if c.cell_type == "markdown" and "Solution " in c.source]
    assert answers, f"{path.name}: no solution found (expected markdown cells opening with **N.M**)"
    assert all(a.startswith("````{admonition} Solution") and ":class: dropdown" in a for a in answers)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert {"hide-cell", "remove-cell"} & set(cell.metadata.get("tags", [])), cell.source[:80]
