"""Reading a question's names from the corpus: lower-case, all-capitals and stray-capital questions.

:func:`read_question` gives the retriever a question as its corpus would have written it, from the
index's :class:`~pathfinding.hipporag.language.casing.CasingModel`:

1. *Whose capitals count.* The writer's capitals are evidence only when the question has a capital
   after its first word and a lower-case word after it too (``who is Thomas südhof``, ``Who
   directed Plan 9?``). An all-lower-case question, an all-capitals one, one capitalised only at its
   start and one in Title Case carry no names in their case: every word is read from the corpus.
2. *Names from the corpus.* Runs of whole words, longest first, that the corpus writes as a name in
   at least :data:`SHARE` of their occurrences get the corpus's form; in a question whose capitals
   count, a run with a word the writer typed in lower case needs :data:`TRUSTED_SHARE` (the writer
   chose lower case there). A single word the corpus capitalises only where a sentence opens must
   be seen so :data:`OPENING_MIN` times.
3. *The writer's capitals.* Where they count, they are kept, except a stray one: a capitalised word
   standing alone that the corpus writes in lower case (at least
   :data:`~pathfinding.hipporag.language.casing.STRAY_MIN` times) and almost never as a name (share below
   :data:`STRAY_SHARE`), "Who Directed the film".

The capitals of the read question then go through the default extractor. Each entity remembers
where its capitals came from (:meth:`Reading.origin`): the writer's (``"typed"``), which the
retriever trusts as before, or the corpus's (``"corpus"``), which it weighs against BM25 with its
own weight (``restored_weight`` of :class:`~pathfinding.hipporag.retrieval.retrieve.HippoRetriever`).
"""

from __future__ import annotations

from dataclasses import dataclass

from pathfinding.errors import InvalidTypeError
from pathfinding.hipporag.language.casing import (
    CONNECTORS,
    MAX_WORDS,
    STRAY_MIN,
    CasingModel,
    Evidence,
    WordToken,
    word_tokens,
)
from pathfinding.hipporag.language.names import STOP_WORDS, has_capitals

__all__ = ["OPENING_MIN", "SHARE", "STRAY_SHARE", "TRUSTED_SHARE", "Reading", "Span", "read_question"]

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
"""A lone capitalised word is a stray capital when the corpus writes it as a name less often than
this, and in lower case at least :data:`~pathfinding.hipporag.language.casing.STRAY_MIN` times."""


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
            chosen = trusted and any(not (t.capital or t.digit) and t.text.lower() not in CONNECTORS
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
    if inside and word.lower() in CONNECTORS:
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
