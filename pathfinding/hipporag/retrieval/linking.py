"""Query entities: where they come from, and how each is linked to a node of the index.

HippoRAG v1 asks an LLM for the question's named entities and links each to the nearest phrase node
with its retrieval encoder. Offline, without a model, this module offers:

* user-supplied entities (a list of strings), or the query-NER TSV of the release
  (:func:`pathfinding.hipporag.io.load_query_ner`, then :func:`ner_lookup`);
* :func:`~pathfinding.hipporag.language.names.capitalised_spans` -- runs of capitalised words (and
  numbers) in the question, allowing lower-case connectors inside ("Journal of Psychotherapy
  Integration"); the question word that opens a sentence is not an entity;
* :func:`node_ngrams` -- word n-grams of the normalised question that *are* node phrases, longest
  first and non-overlapping, skipping stop words;
* :func:`node_substrings` -- node phrases found *inside* the question's runs of a script whose words
  spaces do not delimit (Chinese, Japanese, Thai; Korean, whose particles are glued to the name:
  "서울에서" holds the node "서울");
* :func:`default_entities` -- the retriever's default: capitalised spans, and for a question written
  without capitals (lower case, or a script without case) the node phrases of two or more words
  it contains and its node substrings, since it has no capitalised span to give.

:func:`link_entities` maps each entity to its nearest node with the index's own encoder (an entity
that equals a node phrase after normalisation links to that node directly).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from pathfinding._validation import check_float, check_int
from pathfinding.errors import InvalidTypeError, InvalidValueError
from pathfinding.hipporag.index.build import check_unit_rows
from pathfinding.hipporag.index.encoder import CharNgramEncoder
from pathfinding.hipporag.index.model import HippoIndex
from pathfinding.hipporag.index.nearest import NearestRows
from pathfinding.hipporag.language.names import STOP_WORDS, capitalised_spans, has_capitals
from pathfinding.hipporag.language.text import glued_runs

__all__ = [
    "EXTRACTORS",
    "EntityLink",
    "Linked",
    "MIN_LINK_COSINE",
    "NEAREST_ROWS_KEY",
    "default_entities",
    "default_min_link_cosine",
    "link_entities",
    "ner_lookup",
    "node_ngrams",
    "node_substrings",
]

# A phrase encoded against itself can score 1 - 1e-16 (rounding of a unit-norm product): a floor of
# 1.0 must still keep exact matches.
_ROUNDING = 1e-12


def node_ngrams(question: str, index: HippoIndex, *, max_words: int = 8) -> list[str]:
    """Node phrases found verbatim (after normalisation) in the question.

    Word n-grams of the normalised question are tried longest first; a match claims its words, so a
    shorter phrase inside a longer matched one is not used again. Phrases made only of stop
    words, and phrases with fewer than three letters or digits, are skipped.

    Parameters
    ----------
    question : str
    index : HippoIndex
    max_words : int, default 8
        Longest n-gram tried.

    Returns
    -------
    list of str
        Matched node phrases, in order of position in the question.

    Examples
    --------
    >>> from pathfinding.hipporag.index.build import build_index
    >>> idx = build_index([[("Ed Wood", "directed", "Plan 9 from Outer Space")], [("Ed", "is", "a name")]])
    >>> node_ngrams("Who directed Plan 9 from Outer Space with Ed Wood?", idx)
    ['plan 9 from outer space', 'ed wood']
    """
    max_words = check_int("max_words", max_words, low=1)
    words = index.normalize(question).split()
    used = np.zeros(len(words), dtype=bool)
    found: list[tuple[int, str]] = []
    for n in range(min(max_words, len(words)), 0, -1):
        for i in range(len(words) - n + 1):
            if used[i : i + n].any():
                continue
            phrase = " ".join(words[i : i + n])
            if index.node_id(phrase) < 0:
                continue
            if len(phrase.replace(" ", "")) < 3 or all(w in STOP_WORDS for w in words[i : i + n]):
                continue
            used[i : i + n] = True
            found.append((i, phrase))
    return [p for _, p in sorted(found)]


def node_substrings(
    question: str, index: HippoIndex, *, min_chars: int = 2, max_chars: int = 12
) -> list[str]:
    """Node phrases written inside the question's :func:`~pathfinding.hipporag.language.text.glued_runs`.

    In a script without spaces (Chinese, Japanese) or with particles glued to its words (Korean), a
    name is part of a longer run: "서울에서" is "서울" (Seoul) + "에서" (in). Substrings of each run
    of the normalised question are looked up among the node phrases, longest first; a match claims
    its characters, so a shorter phrase inside a longer matched one is not used again.

    Parameters
    ----------
    question : str
    index : HippoIndex
    min_chars, max_chars : int, default 2 and 12
        Shortest and longest substring tried, in characters.

    Returns
    -------
    list of str
        Matched node phrases, in order of position in the question.

    Examples
    --------
    >>> from pathfinding.hipporag.index.build import build_index
    >>> idx = build_index([[("서울", "capital of", "대한민국")], [("한강", "flows through", "서울")]])
    >>> node_substrings("서울에서 흐르는 강은?", idx), node_substrings("Ed Wood", idx)
    (['서울'], [])
    """
    min_chars = check_int("min_chars", min_chars, low=1)
    max_chars = check_int("max_chars", max_chars, low=min_chars)
    found: list[tuple[int, str]] = []
    for m in glued_runs(index.normalize(question)):
        run = m.group()
        used = np.zeros(len(run), dtype=bool)
        for n in range(min(max_chars, len(run)), min_chars - 1, -1):
            for i in range(len(run) - n + 1):
                if not used[i : i + n].any() and run[i : i + n] in index.phrase_ids:
                    used[i : i + n] = True
                    found.append((m.start() + i, run[i : i + n]))
    return [p for _, p in sorted(found)]


def default_entities(question: str, index: HippoIndex) -> list[str]:
    """Capitalised spans; for a question without capitals, also its node phrases of two or more words
    and its :func:`node_substrings`.

    A lower-cased question has no capitalised span (at most a number), so the names it contains are
    looked up among the index's phrases instead: multi-word node phrases only, since a one-word
    match is mostly a common noun ("film", "city") and was a poor seed on the MuSiQue tuning set.
    These are guesses, and :class:`~pathfinding.hipporag.retrieval.retrieve.HippoRetriever` weighs a walk
    seeded by guesses against BM25.

    Examples
    --------
    >>> from pathfinding.hipporag.index.build import build_index
    >>> idx = build_index([[("Ed Wood", "directed", "Plan 9")], [("Plan 9", "filmed in", "Burbank")]])
    >>> default_entities("Where did Ed Wood film?", idx), default_entities("where did ed wood film?", idx)
    (['Ed Wood'], ['ed wood'])
    """
    spans = capitalised_spans(question)
    if has_capitals(question):
        return spans
    guesses = [p for p in node_ngrams(question, index) if len(p.split()) >= 2]
    return list(dict.fromkeys(spans + guesses + node_substrings(question, index)))


def ner_lookup(rows) -> Callable[[str], list[str]]:
    """An extractor that answers from a query-NER table (rows from :func:`load_query_ner`).

    Returns
    -------
    callable
        ``question -> entities``; raises :class:`~pathfinding.errors.InvalidValueError` naming the
        question if it has no row.

    Examples
    --------
    >>> from pathfinding.hipporag.io.records import QueryNER
    >>> ner_lookup([QueryNER("Who is Ed Wood?", ("Ed Wood",))])("Who is Ed Wood?")
    ['Ed Wood']
    """
    table = {r.query: list(r.entities) for r in rows}

    def extract(question: str) -> list[str]:
        try:
            return list(table[question])
        except KeyError:
            raise InvalidValueError(f"no query-NER row for question {question[:80]!r}") from None

    return extract


EXTRACTORS: dict[str, Callable] = {
    "default": default_entities,
    "capitalised": lambda question, index: capitalised_spans(question),
    "node_ngrams": lambda question, index: node_ngrams(question, index),
    "union": lambda question, index: list(
        dict.fromkeys(capitalised_spans(question) + node_ngrams(question, index))
    ),
}
"""Offline extractors by name, each ``(question, index) -> list of entity strings``."""


MIN_LINK_COSINE = 0.55
"""The lowest cosine at which :class:`~pathfinding.hipporag.retrieval.retrieve.HippoRetriever` links a query
entity to a node with the offline character-trigram encoder; below it the entity is "not in the
index" (see :func:`default_min_link_cosine`).

Chosen on the MuSiQue tuning set: the highest floor of
:data:`~pathfinding.experiments.sensitivity.LINK_FLOORS` at which the default retriever loses
nothing (R@k at every k, questions as written and lower-cased, at least its value with no floor).
:func:`~pathfinding.experiments.sensitivity.link_floor_grid` measures every floor (on the held-out
HotpotQA set too) and :func:`~pathfinding.experiments.sensitivity.chosen_link_floor` applies the
rule (the command is in :mod:`pathfinding.experiments.sensitivity`). The links it removes there
join a word to an unrelated phrase that shares a few letters; the next floor of the grid also cuts
correct links to a longer phrase (a year to the act named after it)."""


def default_min_link_cosine(index: HippoIndex) -> float:
    """The retriever's linking floor for ``index``: :data:`MIN_LINK_COSINE` with the offline
    character-trigram encoder it was chosen for, 0 (no floor) with any other encoder, whose cosines
    live on another scale (pass ``min_link_cosine`` to set one).

    Examples
    --------
    >>> from pathfinding.hipporag.index.build import build_index
    >>> default_min_link_cosine(build_index([[("Ed Wood", "directed", "Plan 9")]])) == MIN_LINK_COSINE
    True
    """
    return MIN_LINK_COSINE if isinstance(index.encoder, CharNgramEncoder) else 0.0


@dataclass(frozen=True)
class EntityLink:
    """One query entity, its nearest node and whether the link was kept.

    Attributes
    ----------
    entity : str
    node : int
        The nearest node's id, -1 when no node has a positive cosine with the entity.
    cosine : float
        Its cosine (1.0 for an exact phrase match, 0.0 when there is no node).
    kept : bool
        Whether the link reached the floor, i.e. the entity seeds the walk; an entity not kept is
        "not in the index".
    """

    entity: str
    node: int
    cosine: float
    kept: bool


@dataclass(frozen=True)
class Linked:
    """Entities linked to nodes.

    Attributes
    ----------
    entities : tuple of str
        The entities that were linked (the others are in ``unlinked`` or ``weak``).
    nodes : numpy.ndarray of int64
        Node ids, ``top_k`` per linked entity (fewer when fewer nodes reach the floor).
    scores : numpy.ndarray of float64
        The cosine of each link (1.0 for an exact phrase match).
    unlinked : tuple of str
        Entities whose vector is zero or has no positive cosine with any node.
    weak : tuple of str
        Entities whose nearest node is below the floor ``min_cosine``: not in the index.
    links : tuple of EntityLink
        Every entity with its nearest node, in input order (for reports).
    """

    entities: tuple[str, ...]
    nodes: np.ndarray
    scores: np.ndarray
    unlinked: tuple[str, ...]
    weak: tuple[str, ...] = ()
    links: tuple[EntityLink, ...] = ()


NEAREST_ROWS_KEY = "nearest_rows"
"""Where an index keeps the linker's posting lists
(:meth:`~pathfinding.hipporag.index.model.HippoIndex.derived`)."""


def _nearest_rows(index: HippoIndex) -> NearestRows:
    """The index's :class:`NearestRows`, built once per index (kept in :meth:`HippoIndex.derived`)."""
    return index.derived(NEAREST_ROWS_KEY, lambda: NearestRows(index.node_embeddings))


def link_entities(
    index: HippoIndex, entities: Sequence[str], *, top_k: int = 1, min_cosine: float = 0.0
) -> Linked:
    """Link each entity to its ``top_k`` nearest nodes by encoder cosine, none below ``min_cosine``.

    Parameters
    ----------
    index : HippoIndex
    entities : sequence of str
    top_k : int, default 1
        Nodes per entity (HippoRAG v1 links each entity to one node).
    min_cosine : float, default 0.0
        The floor: a link below it is not made, and an entity with no link at or above it is
        ``weak`` (not in the index). 0 links every entity to its nearest node, as v1 does.

    Returns
    -------
    Linked

    Examples
    --------
    >>> from pathfinding.hipporag.index.build import build_index
    >>> idx = build_index([[("Ed Wood", "directed", "Plan 9")], [("Poughkeepsie", "in", "New York")]])
    >>> link = link_entities(idx, ["Edward Wood", "New York", "zz"])
    >>> [idx.phrases[i] for i in link.nodes], link.unlinked
    (['ed wood', 'new york'], ('zz',))
    >>> link = link_entities(idx, ["Edward Wood", "New York"], min_cosine=0.95)
    >>> link.entities, link.weak, link.links[0].kept
    (('New York',), ('Edward Wood',), False)
    """
    top_k = check_int("top_k", top_k, low=1)
    min_cosine = check_float("min_cosine", min_cosine, low=0.0, high=1.0)
    if isinstance(entities, str):
        raise InvalidTypeError(f"entities must be a sequence of strings, got the string {entities!r}")
    ents = [e for e in dict.fromkeys(entities)]
    for e in ents:
        if not isinstance(e, str):
            raise InvalidTypeError(f"entities must be strings, got {e!r} ({type(e).__name__})")
    # Entity -> (nodes, cosines); exact phrase matches skip the encoder. Output keeps input order.
    found: dict[str, tuple[list[int], list[float]]] = {}
    to_encode = []
    for e in ents:
        norm = index.normalize(e)
        node = index.node_id(norm) if norm else -1
        if node >= 0 and top_k == 1:
            found[e] = ([node], [1.0])
        elif norm:
            to_encode.append(e)
    if to_encode:
        phrases = [index.normalize(e) for e in to_encode]
        Q = check_unit_rows("encoder", index.encoder(phrases), len(to_encode))
        if sp.issparse(Q):
            # Exact top-k without scanning every node that shares a common n-gram with the entity.
            nearest = _nearest_rows(index)
            Q = sp.csr_array(Q)
            for r, e in enumerate(to_encode):
                lo, hi = Q.indptr[r], Q.indptr[r + 1]
                cand, val = nearest.top_k(Q.indices[lo:hi], Q.data[lo:hi], k=top_k)
                if cand.size:
                    found[e] = (cand.tolist(), val.tolist())
        else:
            sims = Q @ index.embeddings_T()
            for r, e in enumerate(to_encode):
                val = np.asarray(sims[r])
                cand = np.flatnonzero(val > 0)
                if cand.size:
                    order = np.lexsort((cand, -val[cand]))[:top_k]
                    found[e] = (cand[order].tolist(), val[cand][order].tolist())
    links = tuple(
        EntityLink(e, found[e][0][0], float(found[e][1][0]), found[e][1][0] >= min_cosine - _ROUNDING)
        if e in found
        else EntityLink(e, -1, 0.0, False)
        for e in ents
    )
    linked = [lk.entity for lk in links if lk.kept]
    pairs = [(n, c) for e in linked for n, c in zip(*found[e], strict=True) if c >= min_cosine - _ROUNDING]
    return Linked(
        entities=tuple(linked),
        nodes=np.asarray([n for n, _ in pairs], dtype=np.int64),
        scores=np.asarray([c for _, c in pairs], dtype=np.float64),
        unlinked=tuple(e for e in ents if e not in found),
        weak=tuple(lk.entity for lk in links if lk.node >= 0 and not lk.kept),
        links=links,
    )
