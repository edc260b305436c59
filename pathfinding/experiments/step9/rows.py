"""Step 9: the package's own rows, set beside the paper's tables (notebook 08).

:func:`package_row` measures one row on the MuSiQue tuning set (100 questions as written):
BM25, the default retriever, HippoRAG v1 and the rows that change one thing each, as the paper's
Table 5 does (its two ablations and two PPR alternatives, a weaker extractor, and P as the paper
defines it). :func:`distractor_rows` measures v1 on smaller corpora (every supporting passage kept,
a share of the others dropped), to show which way the number of distractors moves recall.
:func:`summarise_rows` bootstraps them against v1. :func:`synonym_pairs` sorts the
synonymy edges of an index by what they join, to show what a character-trigram encoder's edges are
(spellings, not aliases). The paper's numbers themselves are data in
:mod:`pathfinding.experiments.step9.paper`.
"""

from __future__ import annotations

import functools
import re

import numpy as np
import scipy.sparse as sp

from pathfinding._validation import check_int
from pathfinding.errors import InvalidValueError
from pathfinding.experiments import DEFAULT_BOOT
from pathfinding.experiments.realtext import V1, load_realtext, musique_index
from pathfinding.hipporag.evaluation.metrics import (
    all_recall_at_k,
    bootstrap_indices,
    bootstrap_mean_ci,
    paired_difference_ci,
    recall_at_k,
    supporting_ids,
)
from pathfinding.hipporag.extract.cooccurrence import cooccurrence_docs
from pathfinding.hipporag.index.build import index_from_openie
from pathfinding.hipporag.index.model import HippoIndex
from pathfinding.hipporag.retrieval.lexical import BM25Ranker
from pathfinding.hipporag.retrieval.retrieve import HippoRetriever

__all__ = [
    "DISTRACTOR_SHARES",
    "FINDINGS_ROWS",
    "PACKAGE_ROWS",
    "PAPER_KS",
    "SYNONYM_KINDS",
    "distractor_rows",
    "package_row",
    "summarise_rows",
    "synonym_pair_kind",
    "synonym_pairs",
]


PAPER_KS = (2, 5)
"""The cut-offs of the paper's Tables 2, 5 and 6."""

PACKAGE_ROWS = {
    "BM25": "BM25 on title + text (Table 2's first row)",
    "default": "HippoRetriever defaults (v1 + fact seeds + passage nodes)",
    "v1": "HippoRAG v1: capitalised query entities, PPR, pi . P (Table 2's HippoRAG)",
    "v1 w/o node specificity": "Table 5 ablation: uniform restart over the seeds",
    "v1 w/o synonymy edges": "Table 5 ablation: PPR over relation edges only",
    "v1 R_q nodes only": "Table 5 PPR alternative: the restart vector, no walk",
    "v1 R_q nodes & neighbors": "Table 5 PPR alternative as v1 computes it (neighbor_2)",
    "v1 no-model extractor": "Table 5's OpenIE axis: co-occurrence triples instead of GPT-3.5's",
    "v1 P counts phrases in the text": "the paper's P (phrase occurrences) instead of v1's triple counts",
}
"""Row name -> what it measures, for :func:`package_row` (MuSiQue tuning set, cased questions)."""

FINDINGS_ROWS = {
    "BM25": "R1",
    "default": "R3",
    "v1": "R5",
    "v1 w/o node specificity": "R15",
    "v1 w/o synonymy edges": "R17",
    "v1 R_q nodes only": "R19",
    "v1 R_q nodes & neighbors": "R21",
    "v1 no-model extractor": "X3",
}
"""Row name -> the FINDINGS row that measures the same retriever on the same questions (the rows of
``python -m pathfinding findings``, real-text and no-model sections); the paper's P has no row."""

_ROW_SETTINGS = {
    "default": ("released", {}),
    "v1": ("released", V1),
    "v1 w/o node specificity": ("released", {**V1, "specificity": False}),
    "v1 w/o synonymy edges": ("released", {**V1, "synonymy": False}),
    "v1 R_q nodes only": ("released", {**V1, "scorer": "rq_nodes"}),
    "v1 R_q nodes & neighbors": ("released", {**V1, "scorer": "rq_neighbours_v1"}),
    "v1 no-model extractor": ("cooccurrence", V1),
    "v1 P counts phrases in the text": ("text_p", V1),
}


@functools.lru_cache(maxsize=2)
def _variant_index(kind: str) -> HippoIndex:
    if kind == "released":
        return musique_index(0.8)
    if kind == "text_p":
        # the released index's rule, so that P is the only difference from it
        return index_from_openie(load_realtext()["openie"], mentions="text", normalization="ascii")
    return index_from_openie(cooccurrence_docs(load_realtext()["corpus"]))


def package_row(name: str) -> np.ndarray:
    """Per-question R@2, R@5, AR@2 and AR@5 of one of :data:`PACKAGE_ROWS` on the MuSiQue tuning set.

    Parameters
    ----------
    name : str
        A key of :data:`PACKAGE_ROWS`.

    Returns
    -------
    numpy.ndarray, shape (100, 4)
        Columns R@2, R@5, AR@2, AR@5 (fractions), one row per question as written (cased).

    Raises
    ------
    ValueError
        If ``name`` is not a row of :data:`PACKAGE_ROWS`.
    """
    if name not in PACKAGE_ROWS:
        raise InvalidValueError(f"name must be one of {list(PACKAGE_ROWS)}, got {name!r}")
    data = load_realtext()
    questions = data["questions"]
    gold = supporting_ids(questions, data["corpus"])
    released = musique_index(0.8)
    bm25 = _bm25()
    k = max(PAPER_KS)
    if name == "BM25":
        rankings = [bm25.rank(q.question, k) for q in questions]
    else:
        kind, kw = _ROW_SETTINGS[name]
        index = released if kind == "released" else _variant_index(kind)
        ret = HippoRetriever(index, bm25=bm25, **kw)
        rankings = [ret.retrieve(q.question, k=k).passages for q in questions]
    return _recall_row(rankings, gold)


def _recall_row(rankings, gold) -> np.ndarray:
    """Per-question R@2, R@5, AR@2, AR@5 (the columns of :func:`package_row`) of ``rankings``."""
    return np.hstack([recall_at_k(rankings, gold, ks=PAPER_KS), all_recall_at_k(rankings, gold, ks=PAPER_KS)])


DISTRACTOR_SHARES = (1.0, 0.5, 0.25)
"""Shares of the non-supporting passages :func:`distractor_rows` keeps (1.0: the whole corpus)."""


def distractor_rows(shares=DISTRACTOR_SHARES, *, seed: int = 0) -> dict[str, np.ndarray]:
    """Per-question R@2, R@5, AR@2, AR@5 of HippoRAG v1 on the MuSiQue tuning set with fewer distractors.

    Every supporting passage of the 100 questions is kept, and a random ``share`` of the other
    passages (the same draw, cut shorter, for every share); the index is rebuilt from the released
    triples of the kept passages. Recall@k is a race against distractors, so this shows which way a
    corpus's size moves the number, on our own questions.

    Parameters
    ----------
    shares : sequence of float, default DISTRACTOR_SHARES
        Shares of the non-supporting passages to keep, each in (0, 1].
    seed : int, default 0
        Chooses the passages kept.

    Returns
    -------
    dict of str to numpy.ndarray
        ``"<n> passages"`` -> a (100, 4) array as :func:`package_row` returns, one per share.

    Raises
    ------
    ValueError
        If a share is outside (0, 1].
    """
    seed = check_int("seed", seed, low=0)
    shares = [float(s) for s in shares]
    if any(not 0 < s <= 1 for s in shares):
        raise InvalidValueError(f"shares must be in (0, 1], got {shares}")
    data = load_realtext()
    questions, corpus, docs = data["questions"], data["corpus"], data["openie"]
    gold = supporting_ids(questions, corpus)
    needed = np.unique(np.concatenate(gold))
    others = np.random.default_rng(seed).permutation(np.setdiff1d(np.arange(len(corpus)), needed))
    k = max(PAPER_KS)
    out = {}
    for share in shares:
        keep = np.sort(np.concatenate([needed, others[: int(round(share * others.size))]]))
        if keep.size == len(corpus):
            index = musique_index(0.8)
        else:
            index = index_from_openie([docs[j] for j in keep], tau=0.8, normalization="ascii")
        new_id = np.full(len(corpus), -1)
        new_id[keep] = np.arange(keep.size)
        ret = HippoRetriever(index, **V1)
        rankings = [ret.retrieve(q.question, k=k).passages for q in questions]
        kept_gold = [new_id[g] for g in gold]
        out[f"{keep.size:,} passages"] = _recall_row(rankings, kept_gold)
    return out


@functools.lru_cache(maxsize=1)
def _bm25() -> BM25Ranker:
    return BM25Ranker(musique_index(0.8).passages)


def summarise_rows(rows: dict, *, base: str = "v1", seed: int = 0, n_boot: int = DEFAULT_BOOT) -> dict:
    """Bootstrap means and paired differences to ``base`` for rows from :func:`package_row`.

    Parameters
    ----------
    rows : dict of str to numpy.ndarray
        Row name -> per-question (n, 4) array; all over the same questions.
    base : str, default "v1"
        The row every other row is compared with (paired, on the same resampled questions).
    seed, n_boot : int
        The bootstrap generator's seed and the number of resamples.

    Returns
    -------
    dict of str to dict
        Row name -> ``{"mean": (4, 3) [mean, low, high] in %, "minus_base": (4, 3) in points}``,
        columns R@2, R@5, AR@2, AR@5.

    Raises
    ------
    ValueError
        If ``base`` is not one of ``rows``.
    """
    if base not in rows:
        raise InvalidValueError(f"base must be one of the rows {list(rows)}, got {base!r}")
    seed = check_int("seed", seed, low=0)
    n_boot = check_int("n_boot", n_boot, low=1)
    idx = bootstrap_indices(len(rows[base]), n_boot=n_boot, rng=seed)
    return {
        name: {
            "mean": 100 * bootstrap_mean_ci(r, idx),
            "minus_base": 100 * paired_difference_ci(r, rows[base], idx),
        }
        for name, r in rows.items()
    }


SYNONYM_KINDS = (
    "same letters, other spacing",
    "one phrase inside the other",
    "differ in digits only",
    "other spelling variants",
)
"""The kinds :func:`synonym_pair_kind` sorts a synonymy edge into, checked in this order."""


def synonym_pair_kind(a: str, b: str) -> str:
    """Which of :data:`SYNONYM_KINDS` a pair of normalised phrases joined by a synonymy edge is.

    Examples
    --------
    >>> synonym_pair_kind("new york", "newyork"), synonym_pair_kind("beatles", "the beatles")
    ('same letters, other spacing', 'one phrase inside the other')
    >>> synonym_pair_kind("1990 fifa world cup", "1994 fifa world cup")
    'differ in digits only'
    """
    if a.replace(" ", "") == b.replace(" ", ""):
        return SYNONYM_KINDS[0]
    wa, wb = f" {' '.join(a.split())} ", f" {' '.join(b.split())} "
    if wa in wb or wb in wa:
        return SYNONYM_KINDS[1]
    if re.sub(r"\d", "0", a) == re.sub(r"\d", "0", b):
        return SYNONYM_KINDS[2]
    return SYNONYM_KINDS[3]


def synonym_pairs(index: HippoIndex) -> dict[str, list[tuple[str, str, float]]]:
    """Every synonymy edge of ``index`` as ``(phrase, phrase, cosine)``, grouped by :func:`synonym_pair_kind`.

    Each kind's list is sorted by cosine, highest first; every kind of :data:`SYNONYM_KINDS` is a key.
    """
    S = sp.triu(index.synonymy_graph, k=1).tocoo()
    out: dict[str, list[tuple[str, str, float]]] = {kind: [] for kind in SYNONYM_KINDS}
    for i, j, c in zip(S.row, S.col, S.data, strict=True):
        a, b = index.phrases[i], index.phrases[j]
        out[synonym_pair_kind(a, b)].append((a, b, float(c)))
    for pairs in out.values():
        pairs.sort(key=lambda t: -t[2])
    return out
