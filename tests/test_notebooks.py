"""Execute every notebook (jupytext percent .py) in a fresh kernel, so a regression fails the notebook.

The kernel is started with this test process's own interpreter (``sys.executable``), not whatever
``python3`` a kernelspec would find on PATH: a kernel from another environment would import another
``pathfinding`` or none at all. A last cell appended to each notebook checks that.

The kernel runs with ``PATHFINDING_STRICT=1``: a notebook's checks (:mod:`pathfinding.course.teaching`)
print an explanation for a student in class, but raise here, so a taught number that changes fails
the suite. An exercise check shows its verdict (``correct: ...`` or ``not yet: ...``) as a cell's
result: every verdict a solution shows must be ``correct``, and every verdict an exercise shows must
be "no answer yet" (its ``...`` left in place), so a worked solution that stops passing its check, or
an exercise cell that judges something, fails here.
"""

import ast
import sys
from pathlib import Path

import pytest

jupytext = pytest.importorskip("jupytext")
nbclient = pytest.importorskip("nbclient")
nbformat = pytest.importorskip("nbformat")
from jupyter_client.manager import KernelManager  # noqa: E402

NOTEBOOK_DIR = Path(__file__).resolve().parents[1] / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("[0-9][0-9]_*.py"))
SOLUTIONS = sorted(NOTEBOOK_DIR.glob("solutions/[0-9][0-9]_*_sol.py"))
TIMEOUT = 120  # seconds per cell; each notebook runs in well under 30 s on 2 cores


class _ThisPythonKernelManager(KernelManager):
    """A kernel manager whose kernel is ``sys.executable -m ipykernel_launcher``, whatever PATH says."""

    def format_kernel_cmd(self, extra_arguments=None):
        cmd = [sys.executable, "-m", "ipykernel_launcher", "-f", self.connection_file]
        return cmd + list(extra_arguments or [])


def test_notebooks_are_found():
    assert len(NOTEBOOKS) >= 7, f"expected the chapter's notebooks in {NOTEBOOK_DIR}"


def test_every_notebook_has_exercises_and_a_solution():
    solved = {p.name.removesuffix("_sol.py") for p in SOLUTIONS}
    for path in NOTEBOOKS:
        assert "## Exercises" in path.read_text(encoding="utf-8"), f"{path.name} has no exercises"
        assert path.stem in solved, f"{path.name} has no solutions/{path.stem}_sol.py"


@pytest.mark.parametrize("path", NOTEBOOKS + SOLUTIONS, ids=[p.stem for p in NOTEBOOKS + SOLUTIONS])
def test_notebook_runs(path, monkeypatch, tmp_path):
    monkeypatch.setenv("PATHFINDING_STRICT", "1")  # inherited by the kernel
    nb = jupytext.read(path, fmt="py:percent")
    nb.cells.append(nbformat.v4.new_code_cell("import sys\nprint(sys.executable)"))
    client = nbclient.NotebookClient(
        nb,
        # Local sockets: over TCP without CurveZMQ keys ipykernel warns that traffic is unencrypted.
        # The socket path must be absolute, since the kernel runs in NOTEBOOK_DIR.
        km=_ThisPythonKernelManager(kernel_name="python3", transport="ipc", ip=str(tmp_path / "kernel")),
        timeout=TIMEOUT,
        resources={"metadata": {"path": str(NOTEBOOK_DIR)}},
    )
    try:
        client.execute()  # raises CellExecutionError, naming the cell, if any cell fails
    finally:
        client.km.shutdown_kernel(now=False)  # a kernel manager passed in is ours to shut down
    printed = "".join(out.get("text", "") for out in nb.cells[-1].outputs).strip()
    assert printed == sys.executable, f"the kernel ran {printed!r}, not this test's {sys.executable!r}"
    verdicts = [v for cell in nb.cells for v in _verdicts(cell)]
    if path in SOLUTIONS:
        checked = sum(_ends_with_check(cell) for cell in nb.cells)
        assert checked and len(verdicts) == checked, f"{path.name}: {checked} checks, verdicts {verdicts}"
        failed = [v for v in verdicts if not v.startswith("correct:")]
        assert not failed, f"{path.name}: a worked solution does not pass its check: {failed}"
    else:
        judged = [v for v in verdicts if not v.startswith("not yet: no answer yet")]
        assert not judged, f"{path.name}: an exercise cell judged an answer: {judged}"


def _verdicts(cell) -> list[str]:
    """The exercise verdicts a code cell shows as its result."""
    if cell.cell_type != "code":
        return []
    results = [out for out in cell.outputs if out.output_type == "execute_result"]
    shown = [out.get("data", {}).get("text/plain", "") for out in results]
    return [text for text in shown if text.startswith(("correct:", "not yet:"))]


def _ends_with_check(cell) -> bool:
    """Whether a code cell's last statement calls an exercise check (``exercises.check_...``)."""
    if cell.cell_type != "code" or not cell.source.strip():
        return False
    last = ast.parse(cell.source).body[-1]
    return (
        isinstance(last, ast.Expr)
        and isinstance(last.value, ast.Call)
        and isinstance(last.value.func, ast.Attribute)
        and last.value.func.attr.startswith("check_")
    )
