"""A no-model extractor: named spans that share a sentence become triples.

Without an LLM a corpus can still be indexed. Per passage, the *named spans* are its title, runs of
capitalised words and numbers (:func:`pathfinding.hipporag.language.names.capitalised_spans`, applied per
sentence) and quoted text; two spans in the same sentence give one triple
``(span_a, "co-occurs with", span_b)``. The title counts as present in every sentence of its
passage, since the passage is about it (so every span of a passage is one hop from its title, as the
LLM's triples mostly are). The relation carries no meaning; only which spans meet matters to
HippoRAG's graph, where the walk goes through shared nodes.

A passage written without capitals (a lower-case corpus, or a script without case) has no
capitalised span, so its *content spans* stand in (:func:`content_spans`): maximal runs of words that
are not stop words, and in scripts written without spaces the runs of characters between
punctuation and, for Japanese, between hiragana (particles and endings). In a passage that has
capitals, the words of scripts without case in it (a Chinese or Arabic name beside the English one)
give their content spans too (:func:`caseless_spans`). :func:`why_no_triples` says, per passage,
why it gave no triple.

What this can and cannot do, per script (sentences and words as :mod:`pathfinding.hipporag.language.text`
reads them; words keep their combining marks):

=========================  ======================  =============================================
script                     sentence ends           spans
=========================  ======================  =============================================
Latin, Greek, Cyrillic     ``. ! ?`` before a      capitalised runs and quotations: names, as
                           capital; Greek ``;``    well as capitals can mark them (a capitalised
                                                   pronoun opening a sentence is a span too
                                                   outside English, which has no stop list here)
Arabic, Hebrew,            ``؟ ۔ । ॥``, and        no capitals: every run of words between
Devanagari, other          ``. ! ?`` before any    punctuation, up to three words (longer runs
spaced scripts             letter of the script    give word pairs); no stop words outside
                                                   English, so function words join the runs
Chinese, Japanese          ``。！？``               no capitals and no spaces: runs of characters
                                                   between punctuation (Japanese: also between
                                                   hiragana), up to six characters, longer runs
                                                   as character bigrams
Thai, Lao, Khmer,          none found (a space     as Chinese: runs between punctuation, which
Myanmar                    ends a Thai sentence)   here are long, so mostly bigrams
=========================  ======================  =============================================

So a name is a node as reliably as capitals mark it. Where nothing marks it (CJK, Thai), the
nodes are runs and bigrams, not names: the graph links passages that share character runs, which
BM25 over bigrams mostly does already. For such a corpus, give the extractor words (segment the
text with a word segmenter first, spaces between words: each word is then a span of its own) or use
an LLM's triples (``pathfinding hipporag openie``).

This is the chapter's REBEL ablation (extractor quality bounds retrieval) in miniature:
:func:`cooccurrence_findings_section` measures retrieval on the MuSiQue tuning set with these
triples, with the released GPT-3.5 triples and with BM25.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pathfinding.errors import InvalidTypeError
from pathfinding.hipporag.io.records import OpenIEPassage, Passage
from pathfinding.hipporag.language.names import STOP_WORDS, capitalised_spans, has_capitals
from pathfinding.hipporag.language.text import (
    has_case,
    is_unspaced_char,
    normalize_phrase,
    sentences,
    word_matches,
)

__all__ = [
    "RELATION",
    "caseless_spans",
    "cooccurrence_docs",
    "cooccurrence_openie",
    "cooccurrence_triples",
    "content_spans",
    "korean_stem",
    "named_spans",
    "passage_spans",
    "text_blocks",
    "why_no_triples",
]

RELATION = "co-occurs with"
"""The fixed relation of every co-occurrence triple."""

# Every quotation is matched, whatever its length, so that the text between two quotations is never
# read as one; those of 2 to 100 characters are spans.
_QUOTED = re.compile(r"\"([^\"]*)\"|“([^”]*)”")
_QUOTED_CHARS = (2, 100)


# Hiragana (Japanese particles and endings) splits a run of unspaced-script characters.
_HIRAGANA = re.compile("[\u3040-\u309f]+")
# A Korean word (a run of Hangul syllables between spaces) is a noun with its particle glued on
# ("서울에서", in Seoul) or an inflected predicate ("만들었다", made). The particles below, longest
# first, are cut from the end of a word whose stem keeps two syllables; the copula ("이다", is) too;
# a word that then ends in the declarative "다" is a predicate and gives no span.
_HANGUL_WORD = re.compile("[\uac00-\ud7a3]+")
_COPULA = ("입니다", "이었다", "였다", "이다")
_JOSA = tuple(sorted(
    "에서부터 으로부터 에게서 한테서 으로서 으로써 에서는 에서도 에게는 에서 에게 께서 한테 부터 까지 "
    "으로 처럼 보다 이나 이랑 하고 마다 조차 은 는 이 가 을 를 의 에 와 과 로 도 만 랑".split(),
    key=len, reverse=True,
))  # fmt: skip


def korean_stem(word: str) -> str | None:
    """The noun of a Korean word without its particle or copula, or None for a predicate.

    Examples
    --------
    >>> korean_stem("서울에서"), korean_stem("한글을"), korean_stem("수도이다"), korean_stem("만들었다")
    ('서울', '한글', '수도', None)
    >>> korean_stem("나이")  # a one-syllable stem is not cut: "이" is part of the word here
    '나이'
    """
    for ending in (*_COPULA, *_JOSA):
        if word.endswith(ending) and len(word) - len(ending) >= 2:
            word = word[: -len(ending)]
            break
    return None if word.endswith("다") else word
MAX_SPAN_WORDS = 3
"""Longest content span in words; a longer run gives its overlapping word pairs instead (a run of
content words that long mostly joins a name to the words around it)."""
MAX_SPAN_CHARS = 6
"""Longest content span of an unspaced script in characters; a longer run gives its character
bigrams."""
MAX_CONTENT_SPANS = 12
"""Content spans kept per sentence (the first ones): pairs grow with the square of the count."""


def content_spans(sentence: str) -> list[str]:
    """Spans for text without capitals: runs of non-stop words, and runs of unspaced script.

    Words are split at stop words and punctuation; a run of at most :data:`MAX_SPAN_WORDS` words
    is one span, a longer run gives its overlapping word pairs, single words shorter than three
    characters are dropped, and at most :data:`MAX_CONTENT_SPANS` distinct spans are kept.
    Characters of scripts written without spaces (CJK, kana, Thai) form runs between punctuation,
    split at hiragana (Japanese particles and endings); a run of one character is dropped, one
    longer than :data:`MAX_SPAN_CHARS` gives its character bigrams.

    Examples
    --------
    >>> content_spans("forbidden ground and black hawk were filmed in morocco.")
    ['forbidden ground', 'black hawk', 'filmed', 'morocco']
    >>> content_spans("ridley scott filmed gladiator in morocco.")
    ['ridley scott', 'scott filmed', 'filmed gladiator', 'morocco']
    >>> content_spans("東京タワーは東京都港区にある電波塔です。")
    ['東京タワー', '東京都港区', '電波塔']
    """
    if not isinstance(sentence, str):
        raise InvalidTypeError(f"sentence must be a string, got {type(sentence).__name__}")
    spans: list[str] = []
    run: list[str] = []

    def close():
        if len(run) > MAX_SPAN_WORDS:
            spans.extend(" ".join(run[i : i + 2]) for i in range(len(run) - 1))
        elif len(run) > 1 or (run and len(run[0]) > 2):
            spans.append(" ".join(run))
        run.clear()

    prev_end = 0
    for m in word_matches(sentence):
        word = m.group()
        if sentence[prev_end : m.start()].strip():
            close()  # punctuation between two words ends a run
        prev_end = m.end()
        if _HANGUL_WORD.fullmatch(word):  # one noun per Korean word, its particle cut off
            close()
            stem = korean_stem(word)
            if stem is not None and len(stem) > 1:
                spans.append(stem)
            continue
        if any(is_unspaced_char(ch) for ch in word):
            close()
            for part in _HIRAGANA.split(word):
                if len(part) > MAX_SPAN_CHARS:
                    spans.extend(part[i : i + 2] for i in range(len(part) - 1))
                elif len(part) > 1:
                    spans.append(part)
            continue
        if word.casefold() in STOP_WORDS:
            close()
        else:
            run.append(word)
    close()
    return list(dict.fromkeys(spans))[:MAX_CONTENT_SPANS]


def caseless_spans(sentence: str) -> list[str]:
    """Content spans of the runs of words in scripts without case (CJK, Arabic, Hebrew, Devanagari
    ...) inside a sentence: where no capital can mark a name, every content span stands in.

    Examples
    --------
    >>> caseless_spans("Tokyo Tower (東京タワー) is in Minato; Cairo is القاهرة in Arabic.")
    ['東京タワー', 'القاهرة']
    """
    runs: list[str] = []
    start = end = None
    for m in word_matches(sentence):
        w = m.group()
        caseless = not any(has_case(ch) or ch.isdigit() for ch in w)
        if caseless and start is not None and not sentence[end : m.start()].strip():
            end = m.end()  # the run goes on across whitespace
            continue
        if start is not None:
            runs.append(sentence[start:end])
        start, end = (m.start(), m.end()) if caseless else (None, None)
    if start is not None:
        runs.append(sentence[start:end])
    return list(dict.fromkeys(span for run in runs for span in content_spans(run)))


def passage_spans(title: str, text: str) -> list[list[str]]:
    """Per sentence of ``text``: its named spans and the content spans of its words in scripts
    without case, or its content spans if the passage has no capitals.

    Examples
    --------
    >>> passage_spans("Lake Bled", "It lies in Slovenia. The island holds a Church.")
    [['Slovenia'], ['Church']]
    >>> passage_spans("lake bled", "it lies in slovenia, in the julian alps.")
    [['lies', 'slovenia', 'julian alps']]
    >>> passage_spans("Beijing", "Beijing (北京) is the capital of China.")
    [['Beijing', 'China', '北京']]
    """
    sents = [sent for block in text_blocks(text) for sent in sentences(block)]
    if not has_capitals(text):
        return [content_spans(sent) for sent in sents]
    out = []
    for sent in sents:
        named = named_spans(sent)
        seen = {normalize_phrase(s) for s in named}
        out.append(named + [s for s in caseless_spans(sent) if normalize_phrase(s) not in seen])
    return out


_HEADING_WORDS = 4  # a line broken inside a sentence is mostly longer, or ends in lower case


def text_blocks(text: str) -> list[str]:
    """``text`` cut at blank lines and around heading lines, so that no span runs across them.

    A heading line is a Markdown heading (``#`` first), or a line that starts with a capital, has
    no end mark (``. ! ? ; : ,``) and either holds at most :data:`_HEADING_WORDS` words
    (``Career and research``) or is one capitalised run (every word starts with a capital or a
    digit, or is a stop word: ``The Early Life and Career of Marie Curie``). Without the cut, a
    document that opens ``Marie Curie`` on a line of its own and ``Marie Curie was ...`` on the
    next gives the span ``Marie Curie Marie Curie``. A line broken inside a sentence (``In 1894 she
    met Pierre`` / ``Curie.``) is not cut.

    Examples
    --------
    >>> text_blocks("Introduction\\nRobert C. Malenka is a doctor.\\n\\nIn 1894 she met Pierre\\nCurie.")
    ['Introduction', 'Robert C. Malenka is a doctor.', 'In 1894 she met Pierre\\nCurie.']
    """
    out: list[str] = []
    block: list[str] = []
    for line in text.split("\n"):
        heading = _is_heading(line)
        if block and (heading or not line.strip()):
            out.append("\n".join(block))
            block = []
        if heading:
            out.append(line)
        elif line.strip():
            block.append(line)
    if block:
        out.append("\n".join(block))
    return out


def _is_heading(line: str) -> bool:
    words = line.split()
    if not words:
        return False
    if words[0].strip("#") == "":  # an ATX heading: "#" to "######", then a space
        return len(words[0]) <= 6
    if words[-1][-1] in ".!?;:," or not words[0][0].isupper():
        return False
    return len(words) <= _HEADING_WORDS or all(
        w[0].isupper() or w[0].isdigit() or w.casefold() in STOP_WORDS for w in words
    )


def why_no_triples(title: str, text: str) -> str | None:
    """Why a passage gives no co-occurrence triple, or None when it gives some.

    Examples
    --------
    >>> why_no_triples("Ed Wood", "He was born in Poughkeepsie.")
    >>> why_no_triples("", "He was here.")
    'no named span: no title, and no capitalised, quoted or content span that is not the title'
    >>> why_no_triples("Ed Wood", "  ")
    'empty text'
    """
    if not text.strip():
        return "empty text"
    if _pairs(title, passage_spans(title, text)):
        return None
    return (
        "no named span: no title, and no capitalised, quoted or content span that is not the title"
        if not (normalize_phrase(title))
        else "only the title: no capitalised, quoted or content span besides it"
    )


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
    lo, hi = _QUOTED_CHARS
    found = []
    for m in _QUOTED.finditer(sentence):
        q = m.group(1) if m.group(1) is not None else m.group(2)
        if lo <= len(q) <= hi:
            found.append((m.start(), q.strip()))
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
    return _pairs(title, passage_spans(title, text))


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
        spans = passage_spans(p.title, p.text)
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
