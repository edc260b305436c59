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


def test_a_solution_folds_its_code_and_output_into_one_dropdown(tmp_path):
    import base64

    import nbformat

    png = base64.b64encode(b"\x89PNG fake").decode()
    setup = nbformat.v4.new_code_cell("import numpy as np", metadata={"tags": ["hide-cell"]})
    answer = nbformat.v4.new_markdown_cell(
        "````{admonition} Solution 1.1\n:class: dropdown\n\n**1.1** Why.\n````"
    )
    code = nbformat.v4.new_code_cell(
        "x = 2\nfor k in range(2):\n    assert k < 2\nprint(x)", metadata={"tags": ["hide-cell"]}
    )
    code.outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="2\n"),
        nbformat.v4.new_output("display_data", data={"image/png": png, "text/plain": "<Figure>"}),
    ]
    plumbing = nbformat.v4.new_code_cell("assert x == 2", metadata={"tags": ["remove-cell"]})
    after = nbformat.v4.new_markdown_cell("And that is why.")
    nb = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_markdown_cell("# Solutions"), setup, answer, code, plumbing, after]
    )
    folded = build_course.fold_solutions(nb, images=tmp_path, stem="s")
    assert [c.cell_type for c in folded.cells] == ["markdown", "code", "markdown"]
    text = folded.cells[2].source
    assert text.startswith("````{admonition} Solution 1.1") and text.endswith("\n````")
    assert "```python\nx = 2\nfor k in range(2):\nprint(x)\n```" in text
    assert "```text\n2\n```" in text and "And that is why." in text
    assert "assert" not in text
    (image,) = tmp_path.glob("*.png")
    assert f"![output]({image.name})" in text and image.read_bytes() == b"\x89PNG fake"


def test_the_books_findings_states_a_column_every_row_shares_once_above_its_table():
    text = (
        "intro\n\n| # | claim | value | command | seed | trials |\n|---|---|---|---|---|---|\n"
        "| F1 | a | 1.0 | `python -m pathfinding findings` | 0 | 100 |\n"
        "| F2 | b | 2.0 | `python -m pathfinding findings` | 0 | 200 |\n\nafter\n"
    )
    shown = build_course.findings_for_the_book(text)
    assert "*Every row of this table: command `python -m pathfinding findings`; seed 0.*" in shown
    assert "| # | claim | value | trials |" in shown  # trials differ between rows: kept per row
    assert "| F2 | b | 2.0 | 200 |" in shown and shown.endswith("after\n")
    real = (ROOT / "FINDINGS.md").read_text(encoding="utf-8")
    book = build_course.findings_for_the_book(real)
    from pathfinding.course.quotes import parse_findings

    rows, book_rows = parse_findings(real), parse_findings(book)
    assert set(rows) == set(book_rows)  # every row is still there, with every cell that differs
    assert all(book_rows[r].items() <= rows[r].items() for r in rows)


def test_a_widget_a_cell_left_behind_is_dropped_from_the_page():
    import nbformat

    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("build()")
    bar = {"text/plain": "synonymy pairs:   0%|          | 0/64", build_course.WIDGET_VIEW: {"model_id": "x"}}
    cell.outputs = [
        nbformat.v4.new_output("display_data", data=bar),
        nbformat.v4.new_output("stream", name="stdout", text="43 passages\n"),
    ]
    nb.cells.append(cell)
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {}}
    shown = build_course.drop_widgets(nb)
    assert [out.output_type for out in shown.cells[0].outputs] == ["stream"]
    assert "widgets" not in shown.metadata
