"""Numbers the course quotes from FINDINGS.md, named by row and column, and the check that they agree.

FINDINGS.md is generated (``python -m pathfinding findings``), and the course's pages quote some of its
numbers: the Notes page, the Done-when page, a notebook's prose and its checks. A quoted number in
prose carries its source in an HTML comment right after it, which no page shows::

    82,484<!--X3/triples--> triples, an R@5 of 61.9<!--X3/R@5--> (+11.0<!--X4/R@5--> [+4.7<!--X4/R@5/2-->,
    +17.3<!--X4/R@5/3-->] over BM25)

``ROW/COLUMN/N``: the row's ``#``, its column (the header, or a prefix of it that names one column) and,
when the cell holds several numbers, which one (from 1; a mean with its interval ``61.9 [55.9, 68.0]``
holds three). A notebook's code reads the same cells with :func:`finding` and checks its computed
number against it. :func:`disagreements` lists every tagged number of a text that does not equal its
cell rounded to the digits the text gives; the test suite runs it on every page that quotes a row, so
a regenerated FINDINGS that moves a number fails until the page follows it.

Examples
--------
>>> table = parse_findings("| # | R@5 | triples |\\n|---|---|---|\\n| X3 | 61.9 [55.9, 68.0] | 82484 |")
>>> finding("X3", "R@5", table=table), finding("X3", "R@5", 3, table=table)
(61.9, 68.0)
>>> disagreements("R@5 60.1<!--X3/R@5--> on 82,484<!--X3/tri--> triples", table)
['60.1<!--X3/R@5--> (line 1): FINDINGS X3 "R@5" says 61.9']
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from pathfinding.errors import InvalidValueError

__all__ = ["FINDINGS_PATH", "Quote", "disagreements", "finding", "parse_findings", "quotes"]

FINDINGS_PATH = Path(__file__).resolve().parents[2] / "FINDINGS.md"
"""FINDINGS.md of the checkout this package runs from."""

_NUMBER = re.compile(r"(?<![\w.])[+\-−]?\d[\d,]*(?:\.\d+)?")
_TAG = re.compile(r"([+\-−]?\d[\d,]*(?:\.\d+)?)%?\s*<!--\s*([A-Z]+\d+)\s*/\s*([^/]+?)\s*(?:/\s*(\d+)\s*)?-->")


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def parse_findings(text: str) -> dict[str, dict[str, str]]:
    """Every row of every table of ``text`` whose first column is ``#``: ``{row: {column: cell}}``.

    Raises
    ------
    InvalidValueError
        If two rows share a name.
    """
    rows: dict[str, dict[str, str]] = {}
    header: list[str] | None = None
    for line in text.splitlines():
        if not line.startswith("|"):
            header = None
            continue
        cells = _cells(line)
        if cells[0] == "#":
            header = cells
        elif header is not None and not set(cells[0]) <= set("-: "):
            if cells[0] in rows:
                raise InvalidValueError(f"FINDINGS row {cells[0]!r} appears twice")
            rows[cells[0]] = dict(zip(header, cells, strict=False))
    return rows


@functools.lru_cache(maxsize=4)
def _table(path: Path) -> dict[str, dict[str, str]]:
    return parse_findings(path.read_text(encoding="utf-8"))


def _number(text: str) -> float:
    return float(text.replace(",", "").replace("−", "-"))


def _column(row: dict[str, str], column: str, name: str) -> str:
    if column in row:
        return column
    named = [c for c in row if c.startswith(column)]
    if len(named) != 1:
        raise InvalidValueError(
            f"FINDINGS row {name} has no one column {column!r}: its columns are {list(row)}"
        )
    return named[0]


def finding(row: str, column: str, n: int = 1, *, table: dict | None = None) -> float:
    """The ``n``-th number (from 1) in the cell of FINDINGS row ``row`` and column ``column``.

    ``column`` is the header or a prefix naming one column; ``table`` defaults to this checkout's
    FINDINGS.md (:func:`parse_findings` of another text for a test).

    Raises
    ------
    InvalidValueError
        If the row, the column or the number is not there.
    """
    table = _table(FINDINGS_PATH) if table is None else table
    if row not in table:
        raise InvalidValueError(f"FINDINGS has no row {row!r}")
    cell = table[row][_column(table[row], column, row)]
    numbers = _NUMBER.findall(cell)
    if not 1 <= n <= len(numbers):
        raise InvalidValueError(f"FINDINGS {row} {column!r} is {cell!r}: it has no number {n}")
    return _number(numbers[n - 1])


@dataclass(frozen=True)
class Quote:
    """A number quoted in prose with its source: the text as written, the row, column and index."""

    text: str
    row: str
    column: str
    n: int
    line: int

    def agrees(self, value: float) -> bool:
        """Whether ``value`` rounded to the digits this quote gives is the quoted number."""
        digits = len(self.text.split(".")[1]) if "." in self.text else 0
        return abs(_number(self.text) - value) <= 0.5 * 10.0**-digits * (1 + 1e-9)


def quotes(text: str) -> list[Quote]:
    """Every tagged number in ``text`` (``61.9<!--X3/R@5-->``), in order."""
    found = []
    for match in _TAG.finditer(text):
        number, row, column, n = match.groups()
        found.append(Quote(number, row, column, int(n or 1), text.count("\n", 0, match.start()) + 1))
    return found


def disagreements(text: str, table: dict | None = None) -> list[str]:
    """One line per tagged number of ``text`` that is not its FINDINGS cell rounded as quoted."""
    table = _table(FINDINGS_PATH) if table is None else table
    wrong = []
    for q in quotes(text):
        where = f"{q.text}<!--{q.row}/{q.column}{'' if q.n == 1 else f'/{q.n}'}--> (line {q.line})"
        try:
            value = finding(q.row, q.column, q.n, table=table)
        except InvalidValueError as err:
            wrong.append(f"{where}: {err}")
            continue
        if not q.agrees(value):
            column = _column(table[q.row], q.column, q.row)
            wrong.append(f'{where}: FINDINGS {q.row} "{column}" says {value:g}')
    return wrong
