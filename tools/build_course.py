"""Build the course as a book: execute the notebooks once, then render a static Sphinx site.

``make course`` runs this. The notebooks stay jupytext percent scripts; this script turns each into
the ``.ipynb`` Sphinx (myst-nb) renders, in a staging folder ``build/course-src/`` next to the book's
own pages (``course/``), ``notes.md``, ``FINDINGS.md`` (a column every row of a table shares
becomes a line above it: :func:`findings_for_the_book`) and its figures:

* cells whose code is only ``check(...)``/``expect(...)``/``assert`` plumbing are tagged
  ``remove-cell`` (a mixed cell is split first), so a page shows prose, pictures and computation
  while the notebook keeps its checks;
* each page gets a line with its source ``.py`` and its executed ``.ipynb`` to download, and its
  exercises a link to its solutions page; on a solutions page each worked answer is collapsed;
* every notebook is executed here, by this interpreter, over local IPC sockets (over TCP without
  CurveZMQ keys ipykernel warns that the traffic is unencrypted), with ``PATHFINDING_STRICT=1`` (a
  taught number that changed fails the build instead of printing on the page),
  ``PATHFINDING_STATIC_EXPLORERS=1`` (an explorer's sliders switch among precomputed settings, with
  no kernel), ``PATHFINDING_BOKEHJS=page`` (an explorer leaves BokehJS to the page: the book ships
  one copy in ``_static/``, loaded by the pages that show an explorer); an ipywidget a cell left
  behind (tqdm's progress bar, say) is dropped from the page, which has no kernel to draw it and
  would show its text frozen at 0% (:func:`drop_widgets`).
  An executed notebook is cached under ``build/course-cache/``, keyed on the notebook and every file
  of the package, so a rebuild after editing only the book's pages executes nothing.

Sphinx then builds ``build/course/`` with warnings as errors. MathJax is served from the book itself
(``--mathjax``: the ``es5`` folder of the npm package ``mathjax`` v3), since no page may need a CDN;
only the parts a page loads are copied (:data:`MATHJAX_PARTS`). Source maps of the theme's scripts,
which no reader loads, are left out of the book.

    .venv/bin/python tools/build_course.py --mathjax .venv/npm/node_modules/mathjax/es5
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK_DIR = ROOT / "notebooks"
HIDDEN = "remove-cell"
PLUMBING_CALLS = {"check", "expect"}
# What the book's pages load of MathJax's es5 folder: the TeX-to-CHTML bundle, its fonts, the TeX
# extensions it loads on demand, and the menu's accessibility parts (the speech rule engine included).
MATHJAX_PARTS = ("tex-chtml.js", "output/chtml/fonts/woff-v2", "input/tex/extensions", "a11y", "ui", "sre")


def _is_plumbing(node: ast.stmt) -> bool:
    """A statement that only checks: ``check(...)``, ``expect(...)``, ``assert``, or a loop/if of them."""
    if isinstance(node, ast.Assert):
        return True
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        func = node.value.func
        name = func.id if isinstance(func, ast.Name) else None
        if (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id == "teaching"
        ):
            name = func.attr
        return name in PLUMBING_CALLS
    if isinstance(node, ast.For | ast.If):
        return all(_is_plumbing(n) for n in node.body + node.orelse)
    return False


def split_plumbing(source: str) -> list[tuple[str, bool]]:
    """Split a code cell into runs of statements, each marked whether it is check plumbing.

    A comment or blank line goes with the statement after it; a cell that does not parse is kept whole.
    """
    try:
        body = ast.parse(source).body
    except SyntaxError:
        return [(source, False)]
    if not body:
        return [(source, False)]
    lines = source.splitlines()
    runs: list[tuple[list[str], bool]] = []
    for i, node in enumerate(body):
        # a statement owns the lines after the previous one: its comments, decorators, blank lines
        start = body[i - 1].end_lineno if i else 0
        end = node.end_lineno if i + 1 < len(body) else len(lines)
        chunk, plumbing = lines[start:end], _is_plumbing(node)
        if runs and runs[-1][1] == plumbing:
            runs[-1][0].extend(chunk)
        else:
            runs.append((chunk, plumbing))
    return [("\n".join(chunk).strip("\n"), plumbing) for chunk, plumbing in runs if "".join(chunk).strip()]


def _title(nb) -> str:
    for cell in nb.cells:
        if cell.cell_type == "markdown" and cell.source.startswith("# "):
            return cell.source.splitlines()[0][2:].strip()
    raise ValueError("a course notebook must open with a '# Title' markdown cell")


def prepare(path: Path, *, solutions_doc: str | None, notebook_doc: str | None):
    """The notebook Sphinx renders: plumbing hidden, download links, solutions linked or collapsed."""
    import jupytext
    import nbformat

    nb = jupytext.read(path, fmt="py:percent")
    cells = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            cells.append(cell)
            continue
        runs = split_plumbing(cell.source)
        for source, plumbing in runs:
            new = nbformat.v4.new_code_cell(source, metadata=dict(cell.metadata))
            if plumbing:
                new.metadata["tags"] = sorted({*new.metadata.get("tags", []), HIDDEN})
            elif notebook_doc is not None:  # a worked solution, and what it prints: collapsed
                new.metadata["tags"] = sorted({*new.metadata.get("tags", []), "hide-cell"})
            cells.append(new)
    title_at = next(i for i, c in enumerate(cells) if c.cell_type == "markdown" and c.source.startswith("# "))
    links = (
        f"Source: {{download}}`{path.name} <{path.name}>` (jupytext percent script) · "
        f"{{download}}`{path.stem}.ipynb <{path.stem}.ipynb>` (executed notebook)."
    )
    if notebook_doc is not None:
        links += f" The exercises are at the end of {{doc}}`{notebook_doc}`."
    cells.insert(title_at + 1, nbformat.v4.new_markdown_cell(links))
    if solutions_doc is not None:
        at = next(i for i, c in enumerate(cells) if c.cell_type == "markdown" and "## Exercises" in c.source)
        cells.insert(
            at + 1,
            nbformat.v4.new_markdown_cell(
                f"Tried them? The worked solutions, executed: {{doc}}`{solutions_doc}`. "
                "Each answer is collapsed until you open it."
            ),
        )
    if notebook_doc is not None:
        for cell in cells:
            head = cell.source.lstrip()
            if cell.cell_type == "markdown" and head.startswith("**") and head[2:3].isdigit():
                label = head[2:].split("**", 1)[0].strip(" .")
                cell.source = f"````{{admonition}} Solution {label}\n:class: dropdown\n\n{cell.source}\n````"
    nb.cells = cells
    return nb


def strip_asserts(source: str) -> str:
    """``source`` without its ``assert`` statements, at any depth (a page shows no check plumbing)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source
    drop = {
        line
        for node in ast.walk(tree)
        if isinstance(node, ast.Assert)
        for line in range(node.lineno, node.end_lineno + 1)
    }
    kept = [text for n, text in enumerate(source.splitlines(), start=1) if n not in drop]
    return "\n".join(kept).strip("\n")


def _fence(text: str, info: str) -> str:
    """A fenced block that no run of backticks inside ``text`` can close early (at least three)."""
    ticks = "`" * 3
    while ticks in text:
        ticks += "`"
    return f"{ticks}{info}\n{text.rstrip()}\n{ticks}"


def _outputs_as_markdown(outputs, *, images: Path, name: str) -> list[str]:
    """A code cell's outputs as MyST: text in fenced blocks, pictures as files, HTML as raw HTML."""
    import base64

    blocks = []
    for out in outputs:
        if out.get("output_type") == "stream":
            blocks.append(_fence(out["text"], "text"))
            continue
        data = out.get("data", {})
        if "image/png" in data:
            path = images / f"{name}_{len(blocks)}.png"  # name is unique per code cell
            path.write_bytes(base64.b64decode(data["image/png"]))
            blocks.append(f"![output]({path.name})")
        elif "text/html" in data:
            blocks.append(f'<div class="cell_output">{"".join(data["text/html"])}</div>')
        elif "text/plain" in data:
            blocks.append(_fence("".join(data["text/plain"]), "text"))
    return blocks


def fold_solutions(nb, *, images: Path, stem: str):
    """One toggle per solution: each worked answer's code and output move into its dropdown.

    ``prepare`` collapses a solution's prose in a dropdown and its code cells one by one; after the
    notebook ran, the code (without its ``assert`` lines) and what it printed or drew join the prose
    inside the dropdown, so a student opens a solution with one click; so does prose that follows a
    solution's code, until the next heading or solution. Hidden plumbing cells go.
    """
    cells, open_at = [], None
    for number, cell in enumerate(nb.cells):
        tags = set(cell.metadata.get("tags", []))
        if cell.cell_type == "markdown":
            if open_at is not None and not cell.source.lstrip().startswith(("#", "````{admonition}")):
                # prose after a solution's code still explains that solution: it goes in its dropdown
                body, closing = cells[open_at].source.rsplit("\n````", 1)
                cells[open_at].source = f"{body}\n\n{cell.source}\n````{closing}"
                continue
            open_at = len(cells) if cell.source.startswith("````{admonition} Solution") else None
            cells.append(cell)
            continue
        if HIDDEN in tags:
            continue
        if open_at is None:  # set-up code before the first solution stays a collapsed cell
            cells.append(cell)
            continue
        answer = cells[open_at]
        code = strip_asserts(cell.source)
        blocks = ([_fence(code, "python")] if code.strip() else []) + _outputs_as_markdown(
            cell.get("outputs", []), images=images, name=f"{stem}_{number}"
        )
        body, closing = answer.source.rsplit("\n````", 1)
        answer.source = "\n\n".join([body, *blocks]) + "\n````" + closing
    nb.cells = cells
    return nb


SHARED_COLUMNS = ("command", "seed", "trials", "resamples")


def _row(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def findings_for_the_book(text: str) -> str:
    """FINDINGS.md as the book shows it: a column of :data:`SHARED_COLUMNS` that holds one value in
    every row of a table becomes one line above the table, so the columns that differ fit a page.

    FINDINGS.md itself keeps every column on every row (each row names its command); this is only
    the book's layout of the same cells.
    """
    lines, out, i = text.splitlines(), [], 0
    while i < len(lines):
        if not (lines[i].startswith("| # |") and i + 1 < len(lines) and set(lines[i + 1]) <= set("|-: ")):
            out.append(lines[i])
            i += 1
            continue
        end = i + 2
        while end < len(lines) and lines[end].startswith("|"):
            end += 1
        header, rows = _row(lines[i]), [_row(line) for line in lines[i + 2 : end]]
        shared = [
            k for k, name in enumerate(header)
            if name in SHARED_COLUMNS and len({r[k] for r in rows if k < len(r)}) == 1
        ]  # fmt: skip
        if shared and rows:
            said = "; ".join(f"{header[k]} {rows[0][k]}" for k in shared)
            out += [f"*Every row of this table: {said}.*", ""]
        keep = [k for k in range(len(header)) if k not in shared]
        for cells in [header, ["---"] * len(header), *rows]:
            out.append("| " + " | ".join(cells[k] for k in keep if k < len(cells)) + " |")
        i = end
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def drop_widgets(nb):
    """``nb`` without the ipywidget outputs a cell displayed and the widgets' saved state.

    A page has no kernel and loads no widget JavaScript, so a widget would show only its plain-text
    stand-in (tqdm's bar as ``0%|          | 0/64``); the explorers a page shows are Bokeh, not
    widgets.
    """
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = [out for out in cell.get("outputs", []) if WIDGET_VIEW not in out.get("data", {})]
    nb.metadata.pop("widgets", None)
    return nb


def _pythonpath() -> str:
    """This checkout first, so a kernel started in notebooks/ imports it and not an installed copy."""
    return os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))


def _package_digest() -> str:
    digest = hashlib.sha256(sys.version.encode())
    for file in sorted((ROOT / "pathfinding").rglob("*")):
        if file.is_file() and "__pycache__" not in file.parts:
            digest.update(str(file.relative_to(ROOT)).encode())
            digest.update(file.read_bytes())
    return digest.hexdigest()


def execute(nb, *, cache: Path, package: str, timeout: int) -> tuple[object, float | None]:
    """Execute ``nb`` in a kernel of this interpreter, or take it from the cache. Returns (nb, seconds)."""
    import nbformat
    from jupyter_client.manager import KernelManager
    from nbclient import NotebookClient

    # cell ids are drawn at random on every read, so the key is what the cells say, not the file
    cells = [[c.cell_type, c.source, c.metadata.get("tags", [])] for c in nb.cells]
    key = hashlib.sha256((package + json.dumps(cells)).encode()).hexdigest()[:20]
    cached = cache / f"{key}.ipynb"
    if cached.exists():
        return nbformat.read(cached, as_version=4), None

    class ThisPython(KernelManager):
        def format_kernel_cmd(self, extra_arguments=None):
            return [sys.executable, "-m", "ipykernel_launcher", "-f", self.connection_file]

    env = {
        "PATHFINDING_STRICT": "1",
        "PATHFINDING_STATIC_EXPLORERS": "1",
        "PATHFINDING_BOKEHJS": "page",
        "PYTHONPATH": _pythonpath(),
    }
    with tempfile.TemporaryDirectory(prefix="pf-kernel-") as sockets:
        km = ThisPython(kernel_name="python3", transport="ipc", ip=str(Path(sockets) / "k"))
        start = time.perf_counter()
        previous = {name: os.environ.get(name) for name in env}
        os.environ.update(env)  # the kernel inherits this process's environment
        try:
            NotebookClient(
                nb, km=km, timeout=timeout, resources={"metadata": {"path": str(NOTEBOOK_DIR)}}
            ).execute()
        finally:
            if km.has_kernel:  # a kernel manager passed in is the caller's to shut down
                km.shutdown_kernel(now=False)
            for name, value in previous.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
        seconds = time.perf_counter() - start
    cache.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, cached)
    return nb, seconds


def stage(src: Path, mathjax: Path, cache: Path, timeout: int) -> None:
    """Write everything Sphinx reads into ``src``."""
    import nbformat

    if src.exists():
        shutil.rmtree(src)
    shutil.copytree(ROOT / "course", src)
    shutil.copy(ROOT / "notes.md", src / "notes.md")
    (src / "findings.md").write_text(
        findings_for_the_book((ROOT / "FINDINGS.md").read_text(encoding="utf-8")), encoding="utf-8"
    )
    shutil.copytree(ROOT / "figures", src / "figures")
    if not (mathjax / "tex-chtml.js").is_file():
        raise SystemExit(
            f"MathJax not found: {mathjax / 'tex-chtml.js'} is missing. `make course` installs it with "
            "`npm install --prefix .venv/npm mathjax@3`; pass its es5 folder with --mathjax."
        )
    for part in MATHJAX_PARTS:
        copy = shutil.copytree if (mathjax / part).is_dir() else shutil.copy
        (src / "_mathjax" / "mathjax" / part).parent.mkdir(parents=True, exist_ok=True)
        copy(mathjax / part, src / "_mathjax" / "mathjax" / part)
    from pathfinding.course.page_explorers import bokehjs_files

    (src / "_bokeh").mkdir()
    for js in bokehjs_files():  # one copy for every explorer page (conf.py loads it where needed)
        shutil.copy(js, src / "_bokeh" / js.name)
    package = _package_digest()
    notebooks = sorted(NOTEBOOK_DIR.glob("[0-9][0-9]_*.py"))
    for folder in ("notebooks", "solutions"):
        (src / folder).mkdir()
    for path in notebooks:
        solution = NOTEBOOK_DIR / "solutions" / f"{path.stem}_sol.py"
        jobs = [
            (
                path,
                src / "notebooks",
                {"solutions_doc": f"../solutions/{solution.stem}", "notebook_doc": None},
            )
        ]
        if solution.exists():
            jobs.append(
                (
                    solution,
                    src / "solutions",
                    {"solutions_doc": None, "notebook_doc": f"../notebooks/{path.stem}"},
                )
            )
        for source, folder, links in jobs:
            nb = prepare(source, **links)
            nb, seconds = execute(nb, cache=cache, package=package, timeout=timeout)
            nb = drop_widgets(nb)
            if links["notebook_doc"] is not None:
                nb = fold_solutions(nb, images=folder, stem=source.stem)
            nbformat.write(nb, folder / f"{source.stem}.ipynb")
            shutil.copy(source, folder / source.name)
            figures = sum(
                "image/png" in out.get("data", {}) for c in nb.cells for out in c.get("outputs", [])
            )
            took = "cached" if seconds is None else f"executed in {seconds:.1f} s"
            print(f"{source.stem}: {took}, {figures} figures")
            if figures == 0 and folder.name == "notebooks":
                raise SystemExit(f"{source.name} drew no figure: every course page teaches with a picture")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "course")
    parser.add_argument(
        "--mathjax", type=Path, default=Path(sys.prefix) / "npm" / "node_modules" / "mathjax" / "es5",
        help="the es5 folder of the npm package mathjax@3 (default: %(default)s)",
    )  # fmt: skip
    parser.add_argument("--timeout", type=int, default=300, help="seconds per cell")
    args = parser.parse_args(argv)
    build = ROOT / "build"
    start = time.perf_counter()
    src = build / "course-src"
    stage(src, args.mathjax.resolve(), build / "course-cache", args.timeout)
    staged = time.perf_counter()
    # A whole Sphinx build every time (seconds): an incremental one would keep the files of earlier
    # builds in the book and not repeat the warnings of pages it does not read again.
    for stale in (args.out, build / "course-doctrees"):
        shutil.rmtree(stale, ignore_errors=True)
    cmd = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html"]
    cmd += ["-d", str(build / "course-doctrees"), str(src), str(args.out)]
    # conf.py computes the landing page's numbers: with this checkout's package, as the notebooks do
    env = {**os.environ, "PYTHONPATH": _pythonpath()}
    done = subprocess.run(cmd, check=False, env=env)
    if done.returncode:
        return done.returncode
    for source_map in args.out.rglob("*.map"):  # the theme's source maps: for its developers' tools
        source_map.unlink()
    end = time.perf_counter()
    print(f"book: {args.out / 'index.html'} (notebooks {staged - start:.0f} s, Sphinx {end - staged:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
