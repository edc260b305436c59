"""Reading a question's names from the corpus: lower-case, all-capitals and stray-capital questions.

The default retriever finds a question's names by their capitals
(:func:`~pathfinding.hipporag.query.capitalised_spans`) and trusts a walk seeded by a capitalised name.
People type ``who directed plan 9 from outer space`` or ``WHO DIRECTED PLAN 9 ...`` or ``who is
Thomas südhof``: the capitals that mark the names are missing, everywhere, or in places. The corpus
knows how it writes its names, so this module learns that from the passages, with no outside data,
and gives the retriever the question as the corpus would have written it.

The casing model
    :class:`CasingModel` counts, over every passage (:meth:`CasingModel.from_passages`), each
    *name*: a maximal run of capitalised words, by the rules of
    :func:`~pathfinding.hipporag.query.capitalised_spans` (connectors such as "of" inside, split at
    punctuation and after a possessive), keyed by its normalised text (the index's rule), with its
    most frequent written form. A run that opens a sentence (or a line, a quotation or a bracket) is
    counted apart, since its first capital may be grammar; a stop word opening one is dropped ("The
    film", "In Paris"). It also counts how often each name's words occur written in lower case,
    and how often each word does. The share ``capitalised / (capitalised + lower)`` says how much
    the corpus treats a text as a name: "plan 9 from outer space" is always capitalised, "university"
    is capitalised inside longer names but as a word alone mostly not, "young" is a common word.

Reading a question (:func:`read_question`)
    1. *Whose capitals count.* The writer's capitals are evidence only when the question has a
       capital after its first word and a lower-case word after it too (``who is Thomas südhof``,
       ``Who directed Plan 9?``). An all-lower-case question, an all-capitals one, one capitalised
       only at its start and one in Title Case carry no names in their case: every word is read
       from the corpus.
    2. *Names from the corpus.* Runs of whole words, longest first, that the corpus writes as a
       name in at least :data:`SHARE` of their occurrences get the corpus's form; in a question
       whose capitals count, a run with a word the writer typed in lower case needs
       :data:`TRUSTED_SHARE` (the writer chose lower case there). A single word the corpus
       capitalises only where a sentence opens must be seen so :data:`OPENING_MIN` times.
    3. *The writer's capitals.* Where they count, they are kept, except a stray one: a capitalised
       word standing alone that the corpus writes in lower case (at least :data:`STRAY_MIN` times)
       and almost never as a name (share below :data:`STRAY_SHARE`), "Who Directed the film".

The capitals of the read question then go through the usual extractor. Each entity remembers where
its capitals came from (:meth:`Reading.origin`): the writer's (``"typed"``), which the retriever
trusts as before, or the corpus's (``"corpus"``), which it weighs against BM25 with its own weight
(``restored_weight`` of :class:`~pathfinding.hipporag.retrieve.HippoRetriever`).

The model of an index is derived state (:func:`casing_model`): saved with the index
(:mod:`~pathfinding.hipporag.index.persistence`) and its query cache, and rebuilt from the passages
of an index that was grown or shrunk. An index without passage texts has an empty model, and its
questions are read as typed.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from pathfinding.errors import InvalidTypeError, InvalidValueError
from pathfinding.hipporag.query import STOP_WORDS, has_capitals
from pathfinding.hipporag.text import NORMALIZATIONS, index_normalization, normalize_phrase

__all__ = [
    "MAX_WORDS",
    "OPENING_MIN",
    "SHARE",
    "STRAY_MIN",
    "STRAY_SHARE",
    "TRUSTED_SHARE",
    "CasingModel",
    "Evidence",
    "Reading",
    "Span",
    "WordToken",
    "casing_model",
    "read_question",
    "word_tokens",
]

SHARE = 0.5
"""A run of words is read as a name when the corpus writes it capitalised at least this often: more
often a name than not."""
TRUSTED_SHARE = 0.9
"""The same, for a run with a word typed in lower case in a question whose writer marks names with
capitals."""
OPENING_MIN = 2
"""A single word the corpus capitalises only where a sentence opens is a name only if seen so this
often (once is what any word opening a sentence looks like)."""
STRAY_SHARE = 0.1
"""A lone capitalised word is a stray capital when the corpus writes it as a name less often than this..."""
STRAY_MIN = 3
"""...and in lower case at least this many times (a word seen less often says nothing)."""
MAX_WORDS = 8
"""Longest name, in words, the model keeps and a reading tries."""

# The token rule of capitalised_spans: a letter or digit of any script, then word characters,
# apostrophes, dots and hyphens ("O'Neal", "D.P.", "Saxby-Junna").
_TOKEN = re.compile(r"[^\W_][\w'’.\-]*")
_POSSESSIVE = re.compile(r"['’]s$|(?<=s)['’]$", re.IGNORECASE)
# Connectors that may sit inside a name, as in capitalised_spans ("Journal of Psychotherapy Integration").
_CONNECTORS = frozenset({"of", "the", "de", "del", "la", "le", "von", "van", "der", "du", "da", "for"})
# A capital after one of these is grammar or a quotation's, not (only) a name's.
_OPENERS = re.compile(r"[.!?:;\n\"“”()\[\]]")


class WordToken(NamedTuple):
    """A word of a text, as :func:`word_tokens` cuts it."""

    text: str  # the word, without a possessive or trailing dots
    start: int
    end: int
    capital: bool  # starts with an upper-case letter
    digit: bool  # starts with a digit
    initial: bool  # opens a sentence, a line, a quotation or a bracket
    after_break: bool  # punctuation or a possessive separates it from the previous word


def word_tokens(text: str) -> list[WordToken]:
    """The words of a text with what a reading needs to know of each (see :class:`WordToken`).

    Words are cut by the token rule of :func:`~pathfinding.hipporag.query.capitalised_spans`; a
    possessive and trailing dots are not part of the word.

    Examples
    --------
    >>> [(t.text, t.initial, t.after_break) for t in word_tokens("Ed Wood's film. E. B. White")]
    ... # doctest: +NORMALIZE_WHITESPACE
    [('Ed', True, False), ('Wood', False, False), ('film', False, True), ('E', True, False),
     ('B', False, False), ('White', False, False)]
    """
    if not isinstance(text, str):
        raise InvalidTypeError(f"text must be a string, got {type(text).__name__}")
    out: list[WordToken] = []
    prev_end, prev_raw, possessive = 0, "", False
    for m in _TOKEN.finditer(text):
        raw = m.group()
        gap = text[prev_end : m.start()]
        word = raw.rstrip(".'’-")
        owner = bool(_POSSESSIVE.search(raw.rstrip(".-")))
        if owner and len(word) > 2:
            word = _POSSESSIVE.sub("", word)
        # a full stop after a short word is mostly an initial or an abbreviation ("E. B. White", "St. Louis")
        stop = prev_raw.endswith((".", "!", "?")) and (len(prev_raw.rstrip(".")) > 3 or prev_raw[-1] != ".")
        initial = not out or bool(_OPENERS.search(gap)) or stop
        out.append(
            WordToken(word, m.start(), m.start() + len(word), word[0].isupper(), word[0].isdigit(), initial,
                   bool(gap.strip()) or possessive)
        )  # fmt: skip
        prev_end, prev_raw, possessive = m.end(), raw, owner
    return out


@dataclass(frozen=True)
class Evidence:
    """How the corpus writes one normalised text.

    Attributes
    ----------
    key : str
        The normalised text.
    form : str
        Its most frequent form as a name ("" if the corpus never writes it as one).
    capitalised : int
        Occurrences as a whole name, inside a sentence.
    initial : int
        Occurrences as a whole name opening a sentence, a line, a quotation or a bracket.
    lower : int
        Occurrences written in lower case.
    """

    key: str
    form: str
    capitalised: int
    initial: int
    lower: int

    @property
    def named(self) -> int:
        """Occurrences as a name."""
        return self.capitalised + self.initial

    @property
    def share(self) -> float:
        """``named / (named + lower)``: how much the corpus treats the text as a name."""
        total = self.named + self.lower
        return self.named / total if total else 0.0

    def describe(self) -> str:
        return (
            f"the corpus writes {self.form or self.key!r} as a name {self.named} times ({self.initial} "
            f"opening a sentence) and in lower case {self.lower} times"
        )


class CasingModel:
    """How a corpus writes its names: per normalised text, its form and counts (:class:`Evidence`).

    Build one with :meth:`from_passages`; an index's own is :func:`casing_model`.

    Parameters
    ----------
    keys : sequence of str
        Normalised texts, sorted and distinct.
    forms : sequence of str
        The most frequent form of each as a name ("" if never one).
    capitalised, initial, lower : array-like of int
        The counts of :class:`Evidence`, one per key.
    normalization : {"unicode", "ascii"}, default "unicode"
        The rule the keys were normalised with (:func:`~pathfinding.hipporag.text.normalize_phrase`).

    Examples
    --------
    >>> m = CasingModel.from_passages(["Ed Wood directed Plan 9 in 1957.",
    ...                                "The film by Ed Wood is a cult film. A film is a film."])
    >>> m.evidence("ed wood")
    Evidence(key='ed wood', form='Ed Wood', capitalised=1, initial=1, lower=0)
    >>> m.evidence("film").share, m.evidence("plan 9").share, m.evidence("cult") is None
    (0.0, 1.0, True)
    """

    def __init__(self, keys, forms, capitalised, initial, lower, *, normalization: str = "unicode"):
        if normalization not in NORMALIZATIONS:
            raise InvalidValueError(f"normalization must be one of {NORMALIZATIONS}, got {normalization!r}")
        self.keys, self.forms = list(keys), list(forms)
        self.capitalised, self.initial, self.lower = (
            np.asarray(a, dtype=np.int64).reshape(-1) for a in (capitalised, initial, lower)
        )
        n = len(self.keys)
        if not (len(self.forms) == self.capitalised.size == self.initial.size == self.lower.size == n):
            raise InvalidValueError(
                f"a casing model needs one form and three counts per key ({n} keys), got {len(self.forms)} "
                f"forms and {self.capitalised.size}, {self.initial.size}, {self.lower.size} counts"
            )
        try:  # joining checks every item is a string at C speed: a file's model has many
            "".join(self.keys + self.forms)
        except TypeError:
            raise InvalidTypeError("casing model keys and forms must be strings") from None
        if self.keys != sorted(self.keys) or len(set(self.keys)) != n:
            raise InvalidValueError("casing model keys must be sorted and distinct")
        if n and min(self.capitalised.min(), self.initial.min(), self.lower.min()) < 0:
            raise InvalidValueError("casing model counts must be >= 0")
        self.normalization = normalization

    def __len__(self) -> int:
        return len(self.keys)

    def __eq__(self, other) -> bool:
        if not isinstance(other, CasingModel):
            return NotImplemented
        counts = ("capitalised", "initial", "lower")
        return (
            (self.normalization, self.keys, self.forms) == (other.normalization, other.keys, other.forms)
            and all(np.array_equal(getattr(self, a), getattr(other, a)) for a in counts)
        )

    __hash__ = None

    def __repr__(self) -> str:
        return f"CasingModel({len(self)} texts, normalization={self.normalization!r})"

    def normalize(self, text: str) -> str:
        """``text`` normalised by the model's rule (as the index normalises its phrases)."""
        return normalize_phrase(text, rule=self.normalization)

    def evidence(self, key: str) -> Evidence | None:
        """The counts of one normalised text, or None if the corpus has nothing to say about it."""
        i = bisect.bisect_left(self.keys, key)
        if i == len(self.keys) or self.keys[i] != key:
            return None
        counts = (int(self.capitalised[i]), int(self.initial[i]), int(self.lower[i]))
        return Evidence(key, self.forms[i], *counts)

    def get_state(self) -> tuple[dict, list[str], list[str], dict[str, np.ndarray]]:
        """(parameters, keys, forms, count arrays): what a file stores (:meth:`from_state` reads it)."""
        arrays = {"capitalised": self.capitalised, "initial": self.initial, "lower": self.lower}
        return {"normalization": self.normalization}, self.keys, self.forms, arrays

    @classmethod
    def from_state(cls, params: dict, keys, forms, arrays: dict) -> CasingModel:
        """The model :meth:`get_state` described."""
        if not (isinstance(keys, list) and isinstance(forms, list)):
            raise InvalidTypeError("a casing model's keys and forms must be lists of strings")
        return cls(
            keys, forms, arrays["capitalised"], arrays["initial"], arrays["lower"],
            normalization=params["normalization"],
        )  # fmt: skip

    @classmethod
    def from_passages(cls, passages: Sequence[str], *, normalization: str = "unicode") -> CasingModel:
        """Count every name and lower-case word of ``passages`` (see the module docstring).

        Parameters
        ----------
        passages : sequence of str
        normalization : {"unicode", "ascii"}, default "unicode"
            The index's phrase-normalisation rule.

        Returns
        -------
        CasingModel
            Every text written as a name at least once, and every word written in lower case at
            least :data:`STRAY_MIN` times (what a stray capital is checked against).
        """
        if isinstance(passages, str):
            raise InvalidTypeError("passages must be a sequence of strings, got a string")
        if normalization not in NORMALIZATIONS:
            raise InvalidValueError(f"normalization must be one of {NORMALIZATIONS}, got {normalization!r}")
        norm: dict[str, str] = {}

        def key_of(word: str) -> str:
            k = norm.get(word)
            if k is None:
                k = norm[word] = normalize_phrase(word, rule=normalization)
            return k

        named: dict[str, Counter] = defaultdict(Counter)  # key -> {form: count}
        initial: Counter = Counter()
        lower: Counter = Counter()
        docs = []
        for j, text in enumerate(passages):
            if not isinstance(text, str):
                raise InvalidTypeError(f"passages[{j}] must be a string, got {type(text).__name__}")
            toks = word_tokens(text)
            keys = [key_of(t.text) for t in toks]
            for run in _runs(toks):
                key = " ".join(k for k in (keys[i] for i in run) if k)
                if key and len(key.split()) <= MAX_WORDS:
                    named[key][" ".join(toks[i].text for i in run)] += 1
                    initial[key] += toks[run[0]].initial
            # words in lower case: each token's words, and the runs of words that start in lower case
            words, low = [], []
            for t, k in zip(toks, keys, strict=True):
                if not (t.capital or t.digit) and k and " " not in k:
                    lower[k] += 1  # a word; a run of words is counted below
                parts = k.split()
                words += parts
                low += [not (t.capital or t.digit)] * len(parts)
            docs.append((words, low))
        lengths: dict[str, set[int]] = defaultdict(set)
        for key in named:
            parts = key.split()
            if len(parts) > 1:
                lengths[parts[0]].add(len(parts))
        for words, low in docs:
            for i, w in enumerate(words):
                if low[i] and w in lengths:
                    for n in lengths[w]:
                        phrase = " ".join(words[i : i + n])
                        if phrase in named:
                            lower[phrase] += 1
        keep = sorted(set(named) | {k for k, c in lower.items() if c >= STRAY_MIN})
        forms = [min(named[k].items(), key=lambda fc: (-fc[1], fc[0]))[0] if k in named else "" for k in keep]
        total = np.array([sum(named[k].values()) if k in named else 0 for k in keep], dtype=np.int64)
        first = np.array([initial.get(k, 0) for k in keep], dtype=np.int64)
        low = np.array([lower.get(k, 0) for k in keep], dtype=np.int64)
        return cls(keep, forms, total - first, first, low, normalization=normalization)


def _runs(toks: list[WordToken]) -> list[list[int]]:
    """Token positions of every name: capitalised_spans' runs, a sentence-opening stop word dropped.

    A run holds an upper-case letter (numbers alone are not names); a run opening a sentence is
    marked by its first token's ``initial``.
    """
    runs: list[list[int]] = []
    cur: list[int] = []

    def close():
        while cur and toks[cur[-1]].text.lower() in _CONNECTORS:
            cur.pop()
        if cur:
            runs.append(list(cur))
        cur.clear()

    for i, t in enumerate(toks):
        if t.after_break or (t.initial and (t.capital or t.digit)):
            close()
        if t.capital or t.digit:
            cur.append(i)
        elif cur and t.text.lower() in _CONNECTORS:
            cur.append(i)
        else:
            close()
    close()
    out = []
    for run in runs:
        if toks[run[0]].initial and len(run) > 1 and toks[run[0]].text.lower() in STOP_WORDS:
            run = run[1:]  # "The film", "In Paris": the grammar's capital, not the name's
        while len(run) > 1 and toks[run[0]].text.lower() in STOP_WORDS and toks[run[0]].text != "The":
            run = run[1:]
        if len(run) == 1 and toks[run[0]].text.lower() in STOP_WORDS:
            continue
        if any(toks[i].capital for i in run):
            out.append(run)
    return out


def casing_model(index) -> CasingModel:
    """The casing model of an index's passages (derived once, kept in :meth:`HippoIndex.derived`).

    Examples
    --------
    >>> from pathfinding.hipporag.index.build import build_index
    >>> idx = build_index([[("Ed Wood", "directed", "Plan 9")]], passages=["Ed Wood directed Plan 9."])
    >>> casing_model(idx).evidence("ed wood").form
    'Ed Wood'
    """
    rule = index_normalization(index.settings)
    return index.derived("casing", lambda: CasingModel.from_passages(index.passages, normalization=rule))


@dataclass(frozen=True)
class Span:
    """One decision of a reading: words given the corpus's form, or a stray capital lowered.

    Attributes
    ----------
    typed, read : str
        The words as typed and as read.
    start, end : int
        Their place in the typed question.
    first, last : int
        The words they cover: ``Reading.tokens[first:last]``.
    origin : {"corpus", "typed", "lowered"}
        ``"corpus"``: the corpus names them and the writer did not capitalise them (or the
        question's capitals do not count); ``"typed"``: the writer capitalised some of them and
        the corpus names them (its form is used); ``"lowered"``: a stray capital.
    evidence : Evidence
    """

    typed: str
    read: str
    start: int
    end: int
    origin: str
    evidence: Evidence
    first: int = 0
    last: int = 0

    def why(self) -> str:
        """The decision in one sentence."""
        if self.origin == "lowered":
            return f"a stray capital: {self.evidence.describe()}"
        return self.evidence.describe()

    def to_dict(self) -> dict:
        return {"typed": self.typed, "read": self.read, "origin": self.origin, "why": self.why()}


@dataclass(frozen=True)
class Reading:
    """A question as the retriever read it.

    Attributes
    ----------
    question : str
        As typed.
    text : str
        As read: the corpus's forms in place of the typed words.
    trusted : bool
        Whether the writer's capitals counted as names (see :func:`read_question`).
    spans : tuple of Span
        Every change, in order.
    tokens : tuple of (str, str)
        Each word of ``text`` and where its capital came from: ``"typed"``, ``"corpus"`` or "".
    """

    question: str
    text: str
    trusted: bool
    spans: tuple[Span, ...]
    tokens: tuple[tuple[str, str], ...]

    @property
    def case_note(self) -> str:
        """Why the writer's capitals counted, or did not."""
        if self.trusted:
            return "the question's capitals were read as the writer's, and the corpus filled in the rest"
        return (
            "the question's case marks no names (no capital after its first word, or no lower-case "
            "word after it): every name was read from the corpus"
        )

    def _find(self, entity: str) -> tuple[int, int] | None:
        words = [t.text for t in word_tokens(entity)]
        surfaces = [w for w, _ in self.tokens]
        for i in range(len(surfaces) - len(words) + 1):
            if words and surfaces[i : i + len(words)] == words:
                return i, i + len(words)
        return None

    def origin(self, entity: str) -> str:
        """Where an entity's capitals came from: ``"typed"``, ``"corpus"``, or "" (it has none).

        The entity is found among the words of :attr:`text` (as the extractor cut it); an entity
        with capitals not found there is the writer's when the question's capitals count.
        """
        if not has_capitals(entity):
            return ""
        at = self._find(entity)
        if at is None:
            return "typed" if self.trusted else "corpus"
        found = {o for _, o in self.tokens[at[0] : at[1]]}
        return "typed" if "typed" in found else "corpus" if "corpus" in found else ""

    def explain(self, entity: str) -> dict:
        """An entity's origin (:meth:`origin`) and why, as a dict for ``--json``."""
        origin = self.origin(entity)
        if origin == "typed":
            why = "capitalised by the writer"
        elif origin == "corpus":
            at = self._find(entity)
            words = set(range(*at)) if at else set()
            why = "; ".join(s.why() for s in self.spans if words & set(range(s.first, s.last)))
            why = why or "its capitals were read from the corpus"
        elif any(ch.isdigit() for ch in entity):
            why = "a number"
        else:
            why = "an index phrase found in a question without names (a guess, weighed against BM25)"
        return {"entity": entity, "origin": origin or "guess", "why": why}

    def to_dict(self) -> dict:
        return {
            "read_as": self.text,
            "writer_capitals_count": self.trusted,
            "why": self.case_note,
            "changes": [s.to_dict() for s in self.spans],
        }


def _trusted(toks: list[WordToken]) -> bool:
    inner = toks[1:]
    return any(t.capital and not t.initial for t in inner) and any(t.text[0].islower() for t in inner)


def read_question(question: str, model: CasingModel) -> Reading:
    """Read a question's names from the corpus (the rules are in the module docstring).

    Parameters
    ----------
    question : str
    model : CasingModel
        The index's model (:func:`casing_model`).

    Returns
    -------
    Reading

    Examples
    --------
    >>> m = CasingModel.from_passages(["Ed Wood directed Plan 9 in 1957.",
    ...                                "Bela Lugosi starred in a film by Ed Wood.", "A film is a film."])
    >>> read_question("who directed plan 9?", m).text
    'who directed Plan 9?'
    >>> r = read_question("WHO STARRED IN THE FILM BY ED WOOD?", m)
    >>> r.text, r.origin("Ed Wood")
    ('who starred in the film by Ed Wood?', 'corpus')
    >>> r = read_question("Did Bela lugosi star in a Film?", m)
    >>> r.text, r.origin("Bela Lugosi"), [s.origin for s in r.spans]
    ('Did Bela Lugosi star in a film?', 'typed', ['typed', 'lowered'])
    """
    if not isinstance(question, str):
        raise InvalidTypeError(f"question must be a string, got {type(question).__name__}")
    if not isinstance(model, CasingModel):
        raise InvalidTypeError(f"model must be a CasingModel, got {type(model).__name__}")
    toks = word_tokens(question)
    n = len(toks)
    trusted = _trusted(toks)
    keys = [model.normalize(t.text) for t in toks]
    typed_cap = [trusted and t.capital and i > 0 for i, t in enumerate(toks)]
    read: list[str | None] = [None] * n
    origin = [""] * n
    spans: list[Span] = []
    for length in range(min(MAX_WORDS, n), 0, -1):
        for i in range(n - length + 1):
            j = i + length
            if any(r is not None for r in read[i:j]) or any(t.after_break for t in toks[i + 1 : j]):
                continue
            if length == 1 and toks[i].digit:
                continue
            words = " ".join(k for k in keys[i:j] if k).split()
            if not words or all(w in STOP_WORDS for w in words):
                continue
            if words[0] in STOP_WORDS and words[0] != "the":  # as capitalised_spans strips them
                continue
            ev = model.evidence(" ".join(words))
            # in a question whose capitals count, a word typed in lower case was the writer's choice
            chosen = trusted and any(not (t.capital or t.digit) and t.text.lower() not in _CONNECTORS
                                     for t in toks[i:j])  # fmt: skip
            if ev is None or not ev.form or ev.share < (TRUSTED_SHARE if chosen else SHARE):
                continue
            if length == 1 and ev.capitalised == 0 and ev.initial < OPENING_MIN:
                continue
            typed = any(typed_cap[i:j])
            form = ev.form.split()
            if len(form) != length:  # tokenised differently: capitalise the words but connectors
                form = [_capitalise(toks[m].text, m > i) for m in range(i, j)]
            read[i:j] = form
            origin[i:j] = ["typed" if typed else "corpus"] * length
            if form != [t.text for t in toks[i:j]]:
                spans.append(_span(question, toks, i, j, form, "typed" if typed else "corpus", ev))
    for i, t in enumerate(toks):
        if read[i] is not None:
            continue
        if typed_cap[i] and not t.digit:
            ev = model.evidence(keys[i]) if _alone(toks, typed_cap, i) and not t.text.isupper() else None
            if ev is not None and ev.lower >= STRAY_MIN and ev.share < STRAY_SHARE:
                read[i] = t.text.lower()
                spans.append(_span(question, toks, i, i + 1, [read[i]], "lowered", ev))
            else:
                read[i], origin[i] = t.text, "typed"
        elif trusted or t.digit:
            read[i] = t.text
        else:
            read[i] = t.text.lower()
    out, prev = [], 0
    for t, r in zip(toks, read, strict=True):
        out += [question[prev : t.start], r]
        prev = t.end
    out.append(question[prev:])
    spans.sort(key=lambda s: s.start)
    return Reading(question, "".join(out), trusted, tuple(spans), tuple(zip(read, origin, strict=True)))


def _capitalise(word: str, inside: bool) -> str:
    if inside and word.lower() in _CONNECTORS:
        return word.lower()
    return word[:1].upper() + word[1:].lower()


def _alone(toks: list[WordToken], typed_cap: list[bool], i: int) -> bool:
    """No typed capital or number joins word ``i`` (beside it, no punctuation between): "Plan 9"."""
    before = i > 0 and (typed_cap[i - 1] or toks[i - 1].digit) and not toks[i].after_break
    after = i + 1 < len(toks) and (typed_cap[i + 1] or toks[i + 1].digit) and not toks[i + 1].after_break
    return not (before or after)


def _span(question: str, toks: list[WordToken], i: int, j: int, read: list[str], origin: str, ev) -> Span:
    start, end = toks[i].start, toks[j - 1].end
    return Span(question[start:end], " ".join(read), start, end, origin, ev, i, j)
