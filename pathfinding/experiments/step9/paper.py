"""The HippoRAG paper's own numbers, as data, each with the table or section it comes from.

Gutiérrez, Shu, Gu, Yasunaga and Su, "HippoRAG: Neurobiologically Inspired Long-Term Memory for
Large Language Models", NeurIPS 2024, arXiv:2405.14831. The values are copied from the revision
whose Table 5 lists Llama-3.1-8B/70B-Instruct as OpenIE alternatives (arXiv v3, the NeurIPS
version; the first arXiv version listed Llama-3 and differs in those two rows). Nothing here is
measured by this package: notebook 08 prints these rows *beside* the package's own measurements
(:mod:`pathfinding.experiments.step9.rows`), never in place of them.

Every table is a dict ``row label -> {column: value}`` in percent, with columns named
``"<dataset> <metric>"`` (datasets ``MuSiQue``, ``2Wiki``, ``HotpotQA``, ``Average``); Tables 1 and 8
are counts. :data:`CAPTIONS` holds each table's caption as the paper prints it.

References
----------
.. [1] B. Jiménez Gutiérrez et al., "HippoRAG: Neurobiologically Inspired Long-Term Memory for
   Large Language Models", NeurIPS 2024. arXiv:2405.14831.
"""

from __future__ import annotations

import textwrap

from pathfinding.errors import InvalidValueError

__all__ = [
    "CITATION",
    "DATASETS",
    "SETUP",
    "CAPTIONS",
    "TABLE_1",
    "TABLE_2",
    "TABLE_3",
    "TABLE_4",
    "TABLE_5",
    "TABLE_6",
    "TABLE_7",
    "TABLE_8",
    "TABLES",
    "format_table",
    "table_columns",
]

CITATION = "Gutiérrez et al., HippoRAG, NeurIPS 2024, arXiv:2405.14831"

DATASETS = ("MuSiQue", "2Wiki", "HotpotQA", "Average")


def _columns(cols: list[str], values: tuple) -> dict:
    if len(cols) != len(values):
        raise InvalidValueError(f"a paper row needs {len(cols)} values, got {len(values)}")
    return dict(zip(cols, values, strict=True))


def _row(metrics: tuple[str, str], values: tuple[float, ...]) -> dict[str, float]:
    return _columns([f"{d} {m}" for d in DATASETS for m in metrics], values)


_R = ("R@2", "R@5")

TABLE_2 = {
    "BM25": _row(_R, (32.3, 41.2, 51.8, 61.9, 55.4, 72.2, 46.5, 58.4)),
    "Contriever": _row(_R, (34.8, 46.6, 46.6, 57.5, 57.2, 75.5, 46.2, 59.9)),
    "GTR": _row(_R, (37.4, 49.1, 60.2, 67.9, 59.4, 73.3, 52.3, 63.4)),
    "ColBERTv2": _row(_R, (37.9, 49.2, 59.2, 68.2, 64.7, 79.3, 53.9, 65.6)),
    "RAPTOR": _row(_R, (35.7, 45.3, 46.3, 53.8, 58.1, 71.2, 46.7, 56.8)),
    "RAPTOR (ColBERTv2)": _row(_R, (36.9, 46.5, 57.3, 64.7, 63.1, 75.6, 52.4, 62.3)),
    "Proposition": _row(_R, (37.6, 49.3, 56.4, 63.1, 58.7, 71.1, 50.9, 61.2)),
    "Proposition (ColBERTv2)": _row(_R, (37.8, 50.1, 55.9, 64.9, 63.9, 78.1, 52.5, 64.4)),
    "HippoRAG (Contriever)": _row(_R, (41.0, 52.1, 71.5, 89.5, 59.0, 76.2, 57.2, 72.6)),
    "HippoRAG (ColBERTv2)": _row(_R, (40.9, 51.9, 70.7, 89.1, 60.5, 77.7, 57.4, 72.9)),
}
"""Table 2, single-step retrieval, recall in % on the 1,000-question dev sets."""

TABLE_3 = {
    "IRCoT + BM25 (Default)": _row(_R, (34.2, 44.7, 61.2, 75.6, 65.6, 79.0, 53.7, 66.4)),
    "IRCoT + Contriever": _row(_R, (39.1, 52.2, 51.6, 63.8, 65.9, 81.6, 52.2, 65.9)),
    "IRCoT + ColBERTv2": _row(_R, (41.7, 53.7, 64.1, 74.4, 67.9, 82.0, 57.9, 70.0)),
    "IRCoT + HippoRAG (Contriever)": _row(_R, (43.9, 56.6, 75.3, 93.4, 65.8, 82.3, 61.7, 77.4)),
    "IRCoT + HippoRAG (ColBERTv2)": _row(_R, (45.3, 57.6, 75.8, 93.9, 67.0, 83.0, 62.7, 78.2)),
}
"""Table 3, multi-step retrieval: IRCoT with each retriever, recall in %."""

TABLE_4 = {
    "None": _row(("EM", "F1"), (12.5, 24.1, 31.0, 39.6, 30.4, 42.8, 24.6, 35.5)),
    "ColBERTv2": _row(("EM", "F1"), (15.5, 26.4, 33.4, 43.3, 43.4, 57.7, 30.8, 42.5)),
    "HippoRAG (ColBERTv2)": _row(("EM", "F1"), (19.2, 29.8, 46.6, 59.5, 41.8, 55.0, 35.9, 48.1)),
    "IRCoT (ColBERTv2)": _row(("EM", "F1"), (19.1, 30.5, 35.4, 45.1, 45.5, 58.4, 33.3, 44.7)),
    "IRCoT + HippoRAG (ColBERTv2)": _row(("EM", "F1"), (21.9, 33.3, 47.7, 62.7, 45.7, 59.2, 38.4, 51.7)),
}
"""Table 4, QA: exact match and F1 in % of one QA reader given each retriever's passages."""

TABLE_5 = {
    "HippoRAG": _row(_R, (40.9, 51.9, 70.7, 89.1, 60.5, 77.7, 57.4, 72.9)),
    "OpenIE: REBEL": _row(_R, (31.7, 39.6, 63.1, 76.5, 43.9, 59.2, 46.2, 58.4)),
    "OpenIE: Llama-3.1-8B-Instruct": _row(_R, (40.8, 51.9, 62.5, 77.5, 59.9, 75.1, 54.4, 67.8)),
    "OpenIE: Llama-3.1-70B-Instruct": _row(_R, (41.8, 53.7, 68.8, 85.3, 60.8, 78.6, 57.1, 72.5)),
    "PPR alternative: R_q nodes only": _row(_R, (37.1, 41.0, 59.1, 61.4, 55.9, 66.2, 50.7, 56.2)),
    "PPR alternative: R_q nodes & neighbors": _row(_R, (25.4, 38.5, 53.4, 74.7, 47.8, 64.5, 42.2, 59.2)),
    "w/o node specificity": _row(_R, (37.6, 50.2, 70.1, 88.8, 56.3, 73.7, 54.7, 70.9)),
    "w/o synonymy edges": _row(_R, (40.2, 50.2, 69.2, 85.6, 59.1, 75.7, 56.2, 70.5)),
}
"""Table 5, "Dissecting HippoRAG" (§5.1): OpenIE alternatives, PPR alternatives and ablations,
HippoRAG with ColBERTv2, recall in %. Copied as printed: the Llama-3.1-8B row's Average R@5 reads
67.8, though its three R@5 values average 68.2."""

TABLE_6 = {
    "ColBERTv2": _row(("AR@2", "AR@5"), (6.8, 16.1, 25.1, 37.1, 33.3, 59.0, 21.7, 37.4)),
    "HippoRAG": _row(("AR@2", "AR@5"), (10.2, 22.4, 45.4, 75.7, 33.8, 57.9, 29.8, 52.0)),
}
"""Table 6 (§5.2), all-recall: % of questions with *every* supporting passage in the top k."""

TABLE_1 = {
    "passages": {"MuSiQue": 11656, "2Wiki": 6119, "HotpotQA": 9221},
    "unique nodes": {"MuSiQue": 91729, "2Wiki": 42694, "HotpotQA": 82157},
    "unique edges": {"MuSiQue": 21714, "2Wiki": 7867, "HotpotQA": 17523},
    "unique triples": {"MuSiQue": 107448, "2Wiki": 50671, "HotpotQA": 98709},
    "Contriever synonym edges": {"MuSiQue": 145990, "2Wiki": 146020, "HotpotQA": 159112},
    "ColBERTv2 synonym edges": {"MuSiQue": 191636, "2Wiki": 82526, "HotpotQA": 171856},
}
"""Table 1, retrieval corpora and knowledge-graph statistics of the 1,000-question dev sets."""

_COUNTS = ("nodes", "edges", "triples", "ColBERTv2 synonym edges")


def _counts(*values: int) -> dict[str, int]:
    return _columns([f"{d} {c}" for c in _COUNTS for d in DATASETS[:3]], values)


TABLE_8 = {
    "GPT-3.5 Turbo (1106)": _counts(
        91729, 42694, 82157, 21714, 7867, 17523, 107448, 50671, 98709, 191636, 82526, 171856
    ),
    "REBEL-large": _counts(36653, 22146, 30426, 269, 211, 262, 52102, 30428, 42038, 48213, 33072, 39053),
    "Llama-3.1-8B-Instruct": _counts(
        86864, 37875, 76311, 22807, 6729, 18109, 118430, 47420, 104981, 155889, 72963, 139181
    ),
    "Llama-3.1-70B-Instruct": _counts(
        80634, 39845, 70304, 22120, 6996, 16404, 120514, 55940, 105281, 140328, 69125, 119948
    ),
}
"""Table 8 (Appendix C), knowledge-graph statistics per OpenIE model: unique nodes, unique edges
(relations), unique triples and ColBERTv2 synonymy edges, columns ``"<dataset> <count>"``."""

TABLE_7 = {
    "question": "Which Stanford professor works on the neuroscience of Alzheimer's?",
    "HippoRAG": ("Thomas Südhof", "Karl Deisseroth", "Robert Sapolsky"),
    "ColBERTv2": ("Brian Knutson", "Eric Knudsen", "Lisa Giocomo"),
    "IRCoT": ("Brian Knutson", "Eric Knudsen", "Lisa Giocomo"),
}
"""Table 7's path-finding row: the question and each method's top 3 passages (by title)."""

SETUP = {
    "questions per dataset": 1000,
    "question split": "1,000 questions from each validation (dev) set (§3.1)",
    "tuning set": "100 MuSiQue training questions, used to tune tau and the damping factor (§3.4)",
    "tau": 0.8,
    "damping factor": 0.5,
    "damping factor means": "the probability that PPR restarts at the query nodes (§3.4)",
    "LLM": "GPT-3.5-turbo-1106, temperature 0 (§3.4)",
    "retrieval encoders": "Contriever or ColBERTv2 (§3.4)",
    "OpenIE calls per passage": 2,
    "OpenIE order": "named entities first, then triples with those entities in the prompt (§2.3)",
    "P definition": "how many times each noun phrase appears in each passage (§2.3)",
}
"""The set-up the tables were measured under (§2.3, §3.1, §3.4), for the comparison with ours."""

TABLES = {
    "Table 1": TABLE_1,
    "Table 2": TABLE_2,
    "Table 3": TABLE_3,
    "Table 4": TABLE_4,
    "Table 5": TABLE_5,
    "Table 6": TABLE_6,
    "Table 8": TABLE_8,
}
"""Every numeric table above by its name in the paper (Table 7 lists passages, not numbers)."""

CAPTIONS = {
    "Table 1": "Retrieval corpora and extracted KG statistics for each of our 1,000 question dev sets.",
    "Table 2": "Single-step retrieval performance. HippoRAG outperforms all baselines on MuSiQue and "
    "2WikiMultiHopQA and achieves comparable performance on the less challenging HotpotQA dataset.",
    "Table 3": "Multi-step retrieval performance. Combining HippoRAG with standard multi-step "
    "retrieval methods like IRCoT results in strong complementary improvements on all three datasets.",
    "Table 4": "QA performance. HippoRAG's QA improvements correlate with its retrieval improvements "
    "on single-step (rows 1-3) and multi-step retrieval (rows 4-5).",
    "Table 5": "Dissecting HippoRAG. To understand what makes it work well, we replace its OpenIE "
    "module and PPR with plausible alternatives and ablate node specificity and synonymy-based edges.",
    "Table 6": "All-Recall metric. We measure the percentage of queries for which all supporting "
    "passages are successfully retrieved (all-recall, denoted as AR@2 or AR@5) and find even larger "
    "performance improvements for HippoRAG.",
    "Table 7": "Multi-hop question types. We show example results for different approaches on "
    "path-finding vs. path-following multi-hop questions.",
    "Table 8": "Knowledge graph statistics using different OpenIE methods.",
}
"""Each table's caption, as the paper prints it."""


def table_columns(name: str, columns=None) -> list[str]:
    """The columns of table ``name`` to show: ``columns`` checked against it, or all of them.

    Raises
    ------
    ValueError
        If ``name`` is not a table here or a column is not one of its columns.

    Examples
    --------
    >>> table_columns("Table 6")[:2]
    ['MuSiQue AR@2', 'MuSiQue AR@5']
    """
    if name not in TABLES:
        raise InvalidValueError(f"name must be one of {sorted(TABLES)}, got {name!r}")
    have = list(next(iter(TABLES[name].values())))
    cols = have if columns is None else list(columns)
    bad = [c for c in cols if c not in have]
    if bad:
        raise InvalidValueError(f"{name} has no column {bad[0]!r}; its columns are {have}")
    return cols


def format_table(name: str, *, columns=None, caption: bool = False) -> str:
    """One of the paper's tables as aligned text, with its source in the first line.

    Parameters
    ----------
    name : str
        A key of :data:`TABLES` (``"Table 1"`` to ``"Table 6"``, ``"Table 8"``).
    columns : sequence of str, optional
        The columns to show, in order (default: all of the table's columns).
    caption : bool, default False
        Whether to add the paper's caption (:data:`CAPTIONS`) under the first line.

    Returns
    -------
    str

    Raises
    ------
    ValueError
        If ``name`` is not a table here or a column is not one of its columns.

    Examples
    --------
    >>> print(format_table("Table 6", columns=["2Wiki AR@5"]))
    Table 6 (Gutiérrez et al., HippoRAG, NeurIPS 2024, arXiv:2405.14831)
                2Wiki AR@5
    ColBERTv2         37.1
    HippoRAG          75.7
    """
    cols = table_columns(name, columns)
    table = TABLES[name]
    w = max(len(r) for r in table)
    widths = [max(len(c), 8) for c in cols]
    lines = [f"{name} ({CITATION})"]
    if caption:
        lines += textwrap.wrap(CAPTIONS[name], width=100)
    lines.append(" " * w + "".join(f"  {c:>{cw}}" for c, cw in zip(cols, widths, strict=True)))
    for label, row in table.items():
        cells = "".join(f"  {_fmt(row[c]):>{cw}}" for c, cw in zip(cols, widths, strict=True))
        lines.append(f"{label:<{w}}{cells}")
    return "\n".join(lines)


def _fmt(value) -> str:
    return f"{value:,}" if isinstance(value, int) else f"{value:.1f}"
