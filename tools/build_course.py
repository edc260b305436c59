"""Execute every course notebook and write it as HTML, figures embedded, to build/course/.

``make course`` runs this with the ``pathfinding`` kernel it registers inside ``.venv``, so the
notebooks import this checkout's package and not whatever another interpreter has. The executed
``.ipynb`` is written beside each page, for opening in Jupyter with its outputs.

    .venv/bin/python tools/build_course.py [--kernel pathfinding] [--out build/course] [notebooks...]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def build(path: Path, out: Path, kernel: str, timeout: int) -> tuple[float, int]:
    import jupytext
    import nbformat
    from nbclient import NotebookClient
    from nbconvert import HTMLExporter

    nb = jupytext.read(path, fmt="py:percent")
    nb.metadata["kernelspec"] = {"name": kernel, "display_name": f"Python ({kernel})", "language": "python"}
    start = time.perf_counter()
    NotebookClient(
        nb, kernel_name=kernel, timeout=timeout, resources={"metadata": {"path": str(path.parent)}}
    ).execute()
    seconds = time.perf_counter() - start
    nbformat.write(nb, out / f"{path.stem}.ipynb")
    html, _ = HTMLExporter().from_notebook_node(nb, resources={"metadata": {"name": path.stem}})
    (out / f"{path.stem}.html").write_text(html, encoding="utf-8")
    return seconds, html.count('src="data:image/png;base64')


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: notebooks/NN_*.py")
    parser.add_argument("--kernel", default="pathfinding", help="kernel name (default: %(default)s)")
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "course")
    parser.add_argument("--timeout", type=int, default=300, help="seconds per cell")
    args = parser.parse_args(argv)
    paths = args.notebooks or sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.py"))
    args.out.mkdir(parents=True, exist_ok=True)
    failed = []
    for path in paths:
        seconds, figures = build(path.resolve(), args.out, args.kernel, args.timeout)
        print(f"{path.stem}: {seconds:5.1f} s, {figures} figures -> {args.out / (path.stem + '.html')}")
        if figures == 0:
            failed.append(path.stem)
    if failed:
        print(f"no figure in: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
