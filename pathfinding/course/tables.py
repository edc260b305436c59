"""Small tables for the course pages: HTML in Jupyter and in the book, aligned text anywhere else.

A notebook that prints a table with f-strings gets a fixed-width block that a narrow page cuts off
or scrolls sideways. :func:`show_table` gives the same rows to Jupyter (and to the book built from
the executed notebooks) as an HTML table, whose cells wrap, and to a plain ``python notebook.py`` run
as aligned text. pandas is not a dependency: a course table is a few rows of numbers and names.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from numbers import Real

from pathfinding.errors import InvalidTypeError, InvalidValueError

__all__ = ["Table", "explanation_rows", "show_explanation", "show_paper_table", "show_table"]


class Table:
    """Rows under a header, shown as an HTML table by Jupyter and as aligned text by ``print``.

    Parameters
    ----------
    rows : sequence of sequence
        One sequence of cells per row, each as long as ``header``. A cell is any object; a real number
        is written with its column's entry of ``formats``, anything else with ``str``.
    header : sequence of str
    formats : sequence of str or None, optional
        One format spec per column (``".4f"``, ``"g"``, ``".1%"``) for the real numbers in it;
        ``None`` (the default, or an entry) writes a number with ``str``.
    caption : str, optional
        A line above the table.

    Raises
    ------
    InvalidValueError
        If a row or ``formats`` does not have one entry per column of ``header``, or the header is empty.

    Examples
    --------
    >>> print(Table([["a", 0.5], ["bb", 0.25]], header=["node", "mass"], formats=[None, ".2f"]))
    node  mass
    a     0.50
    bb    0.25
    >>> ">0.50</td>" in Table([["a", 0.5]], header=["node", "mass"], formats=[None, ".2f"])._repr_html_()
    True
    """

    def __init__(self, rows, *, header: Sequence[str], formats=None, caption: str | None = None):
        if isinstance(header, str) or not isinstance(header, Sequence) or not header:
            raise InvalidValueError(f"header must be a non-empty sequence of column names, got {header!r}")
        self.header = [str(h) for h in header]
        n = len(self.header)
        formats = [None] * n if formats is None else list(formats)
        if len(formats) != n:
            raise InvalidValueError(f"formats must have one entry per column ({n}), got {len(formats)}")
        self.rows = []
        for i, row in enumerate(rows):
            if isinstance(row, str) or not isinstance(row, Sequence):
                raise InvalidTypeError(f"rows[{i}] must be a sequence of cells, got {type(row).__name__}")
            if len(row) != n:
                raise InvalidValueError(f"rows[{i}] has {len(row)} cells; the header has {n} columns")
            self.rows.append([_cell(value, spec) for value, spec in zip(row, formats, strict=True)])
        self.numeric = [
            bool(rows_ := [r[k] for r in self.rows]) and all(_is_number(v) for v in rows_) for k in range(n)
        ]
        self.caption = caption

    def __str__(self) -> str:
        widths = [max(len(c) for c in col) for col in zip(self.header, *self.rows, strict=True)]
        lines = [self.caption] if self.caption else []
        for row in [self.header, *self.rows]:
            columns = zip(row, widths, self.numeric, strict=True)
            cells = [c.rjust(w) if num else c.ljust(w) for c, w, num in columns]
            lines.append("  ".join(cells).rstrip())
        return "\n".join(lines)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        def cells(row, tag):
            return "".join(
                f'<{tag} style="text-align: right">{html.escape(c)}</{tag}>' if num and tag == "td"
                else f"<{tag}>{html.escape(c)}</{tag}>"
                for c, num in zip(row, self.numeric, strict=True)
            )  # fmt: skip

        caption = f"<caption>{html.escape(self.caption)}</caption>" if self.caption else ""
        body = "".join(f"<tr>{cells(row, 'td')}</tr>" for row in self.rows)
        return (
            f'<table class="pathfinding-table">{caption}<thead><tr>{cells(self.header, "th")}</tr></thead>'
            f"<tbody>{body}</tbody></table>"
        )


def show_paper_table(name: str, *, columns=None) -> None:
    """Display one of the paper's tables, with its source and caption, as :func:`show_table` does.

    Parameters
    ----------
    name : str
        A key of :data:`pathfinding.experiments.step9.paper.TABLES`.
    columns : sequence of str, optional
        The columns to show, in order (default: all of them).

    Raises
    ------
    ValueError
        As :func:`pathfinding.experiments.step9.paper.table_columns`.

    Examples
    --------
    >>> show_paper_table("Table 6", columns=["2Wiki AR@5"])  # doctest: +ELLIPSIS +NORMALIZE_WHITESPACE
    Table 6 (Gutiérrez et al., HippoRAG, NeurIPS 2024, arXiv:2405.14831): ...
              2Wiki AR@5
    ColBERTv2       37.1
    HippoRAG        75.7
    """
    from pathfinding.experiments.step9 import paper

    cols = paper.table_columns(name, columns)
    table = paper.TABLES[name]
    counts = [all(isinstance(row[c], int) for row in table.values()) for c in cols]
    show_table(
        [[label, *(row[c] for c in cols)] for label, row in table.items()],
        header=["", *cols],
        formats=[None, *("," if count else ".1f" for count in counts)],
        caption=f"{name} ({paper.CITATION}): {paper.CAPTIONS[name]}",
    )


def explanation_rows(why, *, passages: int = 3, nodes: int = 2) -> list[list]:
    """One row per explained passage (at most ``passages``): rank, title, score, its parts as
    percentages, and its ``nodes`` best nodes, each with what it brings and one walk per seed
    (``why``: an :class:`~pathfinding.hipporag.retrieval.explain.Explanation`)."""
    rows = []
    for rank, pe in enumerate(why.passages[:passages], start=1):
        parts = " + ".join(f"{p.source} {p.share:.0%}" for p in pe.parts if abs(p.share) >= 0.005)
        via = []
        for v in pe.via[:nodes]:
            shares = [(s, m / v.mass) for s, m in v.parts.items() if v.mass > 0 and m >= 0.005 * v.mass]
            walks = [
                f"{seed}: {steps[0].source}" + "".join(f" –{st.label}– {st.target}" for st in steps)
                for seed, steps in v.paths.items()
            ]
            split = ", ".join(f"{s} {x:.0%}" for s, x in shares)
            via.append(f"{v.node} ×{v.count:g} ({split})" + ("; " + "; ".join(walks) if walks else ""))
        rows.append([rank, pe.title or f"passage {pe.passage}", pe.score, parts, " | ".join(via)])
    return rows


def show_explanation(why, *, passages: int = 3, nodes: int = 2, caption: str | None = None) -> None:
    """Display :func:`explanation_rows` as a table (HTML in Jupyter and the book, text elsewhere)."""
    show_table(
        explanation_rows(why, passages=passages, nodes=nodes),
        header=["rank", "passage", "score", "parts of the score", "nodes it came through, and the walks"],
        formats=[None, None, ".4g", None, None],
        caption=caption,
    )


def _is_number(text: str) -> bool:
    try:
        float(text.rstrip("%").replace(",", ""))
    except ValueError:
        return False
    return True


def _cell(value, spec) -> str:
    if spec is not None and isinstance(value, Real) and not isinstance(value, bool):
        return format(value, spec)
    return str(value)


def show_table(rows, *, header: Sequence[str], formats=None, caption: str | None = None) -> None:
    """Display :class:`Table` ``(rows, header=..., ...)``: HTML in Jupyter, aligned text elsewhere.

    Parameters
    ----------
    rows, header, formats, caption
        As :class:`Table`.

    Returns
    -------
    None

    Examples
    --------
    >>> show_table([["p0", 3]], header=["passage", "triples"])
    passage  triples
    p0             3
    """
    table = Table(rows, header=header, formats=formats, caption=caption)
    try:
        from IPython.display import display
    except ImportError:  # a plain interpreter without IPython: the text form says the same
        print(table)
        return
    display(table)
