"""A no-model extractor: named spans that share a sentence become triples.

Without an LLM a corpus can still be indexed. Per passage, the *named spans* are its title, runs of
capitalised words and numbers (:func:`pathfinding.hipporag.query.capitalised_spans`, applied per
sentence) and quoted text; two spans in the same sentence give one triple
``(span_a, "co-occurs with", span_b)``. The title counts as present in every sentence of its
passage, since the passage is about it (so every span of a passage is one hop from its title, as the
LLM's triples mostly are). The relation carries no meaning; only which spans meet matters to
HippoRAG's graph, where the walk goes through shared nodes.

This is the chapter's REBEL ablation (extractor quality bounds retrieval) in miniature:
:func:`cooccurrence_findings_section` measures retrieval on the vendored MuSiQue set with these
triples, with the released GPT-3.5 triples and with BM25.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pathfinding.errors import InvalidTypeError
from pathfinding.hipporag.index.build import normalize_phrase
from pathfinding.hipporag.io import OpenIEPassage, Passage
from pathfinding.hipporag.query import capitalised_spans

__all__ = [
    "RELATION",
    "cooccurrence_docs",
    "cooccurrence_openie",
    "cooccurrence_triples",
    "named_spans",
]

RELATION = "co-occurs with"
"""The fixed relation of every co-occurrence triple."""

# A sentence ends at . ! ? followed by space and an upper-case letter, a digit, a quote or a bracket;
# "St. Louis" or "J. R. R." rarely meet that, and a wrong split only loses pairs across it.
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"'”’)]?\s+(?=[A-Z0-9\"“(])")
_QUOTED = re.compile(r"\"([^\"]{2,100})\"|“([^”]{2,100})”")


def _sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE_END.split(text) if s.strip()]


def named_spans(sentence: str) -> list[str]:
    """Quoted text and capitalised spans of one sentence, distinct after normalisation, in order.

    Examples
    --------
    >>> named_spans('It is a sister publication of "Adweek" and "The Hollywood Reporter".')
    ['Adweek', 'The Hollywood Reporter']
    >>> named_spans("Lake Bled lies in the Julian Alps of Slovenia.")
    ['Lake Bled', 'Julian Alps of Slovenia']
    """
    if not isinstance(sentence, str):
        raise InvalidTypeError(f"sentence must be a string, got {type(sentence).__name__}")
    found = [(m.start(), (m.group(1) or m.group(2)).strip()) for m in _QUOTED.finditer(sentence)]
    quoted = {normalize_phrase(q) for _, q in found}
    for span in capitalised_spans(sentence):
        # A capitalised span inside a quotation is the quotation (or a piece of it): not a new name.
        if not any(normalize_phrase(span) in q for q in quoted):
            found.append((sentence.find(span), span))
    out, seen = [], set()
    for _, span in sorted(found, key=lambda x: x[0]):
        norm = normalize_phrase(span)
        if norm and norm not in seen:
            seen.add(norm)
            out.append(span)
    return out


def _pairs(title: str, sentence_spans: list[list[str]]) -> list[tuple[str, str, str]]:
    triples: list[tuple[str, str, str]] = []
    seen: set[frozenset] = set()
    t_norm = normalize_phrase(title)
    for spans in sentence_spans:
        named = [(s, normalize_phrase(s)) for s in spans]
        named = ([(title, t_norm)] if t_norm else []) + [(s, n) for s, n in named if n != t_norm]
        for i in range(len(named)):
            for j in range(i + 1, len(named)):
                pair = frozenset((named[i][1], named[j][1]))
                if pair not in seen:
                    seen.add(pair)
                    triples.append((named[i][0], RELATION, named[j][0]))
    return triples


def cooccurrence_triples(title: str, text: str) -> list[tuple[str, str, str]]:
    """Triples ``(a, "co-occurs with", b)`` for every pair of named spans sharing a sentence.

    The title joins every sentence. Pairs are ordered by first appearance and not repeated (in
    either order); a span is never paired with itself (after normalisation).

    Examples
    --------
    >>> cooccurrence_triples("Lake Bled", "It lies in Slovenia. The island holds a Church.")
    [('Lake Bled', 'co-occurs with', 'Slovenia'), ('Lake Bled', 'co-occurs with', 'Church')]
    """
    if not isinstance(title, str) or not isinstance(text, str):
        raise InvalidTypeError("title and text must be strings")
    return _pairs(title, [named_spans(sent) for sent in _sentences(text)])


def cooccurrence_docs(corpus: Sequence[Passage]) -> list[OpenIEPassage]:
    """OpenIE-shaped passages for a corpus, ready for
    :func:`~pathfinding.hipporag.index.build.index_from_openie`.

    ``entities`` are the passage's named spans (title first).

    Examples
    --------
    >>> from pathfinding.hipporag.index.build import index_from_openie
    >>> docs = cooccurrence_docs([Passage("Ed Wood", "Ed Wood directed Plan 9 in Burbank.")])
    >>> docs[0].triples[0], index_from_openie(docs).n_nodes
    (('Ed Wood', 'co-occurs with', 'Plan 9'), 3)
    """
    if isinstance(corpus, str) or not all(isinstance(p, Passage) for p in corpus):
        raise InvalidTypeError(
            "corpus must be a sequence of Passage (see pathfinding.hipporag.io.load_corpus)"
        )
    out = []
    for p in corpus:
        spans = [named_spans(sent) for sent in _sentences(p.text)]
        ents = list(dict.fromkeys([p.title] + [s for sent in spans for s in sent]))
        out.append(
            OpenIEPassage(
                title=p.title, text=p.text, entities=tuple(ents), triples=tuple(_pairs(p.title, spans))
            )
        )
    return out


def cooccurrence_openie(corpus: Sequence[Passage]) -> dict:
    """The same as a HippoRAG v1 OpenIE JSON object (``{"docs": [...]}``), e.g. to save with json.dump."""
    docs = cooccurrence_docs(corpus)
    return {
        "docs": [
            {
                "title": d.title,
                "text": d.text,
                "passage": d.title + "\n" + d.text,
                "extracted_entities": list(d.entities),
                "extracted_triples": [list(t) for t in d.triples],
            }
            for d in docs
        ],
        "extractor": "cooccurrence",
    }
