"""Names in text: the stop words, and the spans a writer marked as names by capital letters.

What every part of the engine that looks for names shares: the model-free extractor
(:mod:`~pathfinding.hipporag.extract.cooccurrence`), the corpus's casing model
(:mod:`~pathfinding.hipporag.language.casing`), a question read through it
(:mod:`~pathfinding.hipporag.language.reading`), and the query's entities
(:mod:`~pathfinding.hipporag.retrieval.linking`).
"""

from __future__ import annotations

import re

from pathfinding.errors import InvalidTypeError
from pathfinding.hipporag.language.text import name_tokens

__all__ = ["STOP_WORDS", "capitalised_spans", "has_capitals"]

STOP_WORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further had has
    have having he her here hers herself him himself his how i if in into is it its itself just me more
    most my myself no nor not now of off on once only or other our ours ourselves out over own same she
    should so some such than that the their theirs them themselves then there these they this those
    through to too under until up very was we were what when where which while who whom whose why will
    with would you your yours yourself yourselves""".split()
)
"""English stop words: sklearn's ENGLISH_STOP_WORDS plus question words, a fixed list kept here so
the extractors do not change when a library updates its list."""
# "and" and "&" are not connectors: "Forbidden Ground and Black Hawk Down" names two films, and a
# joined span links to neither (a name with "and" in it, "Pride and Prejudice", loses its tail to a
# second span, which the linker still finds).
_CONNECTORS = frozenset({"of", "the", "de", "del", "la", "le", "von", "van", "der", "du", "da", "for"})
_POSSESSIVE = re.compile(r"['’]s$|(?<=s)['’]$", re.IGNORECASE)




def capitalised_spans(question: str) -> list[str]:
    """Named-entity-like spans: maximal runs of capitalised or numeric tokens.

    A lower-case connector (``of``, ``the``, ``de`` ...) may sit *inside* a span; a span never
    starts or ends with one. Names are split at ``and``, ``&``, commas and other punctuation, and a
    possessive ends its name ("Nolan's Inception" -> "Nolan's", "Inception"; the possessive stays,
    so "Alzheimer's" is still the disease's name). The question's first word is skipped
    when it is a stop word ("Who", "The", "In"); elsewhere a leading stop word other than "The" is
    stripped from a span ("In Paris" -> "Paris"), and a span that is a lone stop word is dropped.

    Parameters
    ----------
    question : str

    Returns
    -------
    list of str
        Distinct spans in order of appearance.

    Examples
    --------
    >>> capitalised_spans("Who was the first president of the association which published "
    ...                   "Journal of Psychotherapy Integration?")
    ['Journal of Psychotherapy Integration']
    >>> capitalised_spans("When did the Beatles play in New York in 1964?")
    ['Beatles', 'New York', '1964']
    >>> capitalised_spans("What county borders Johnnycake, West Virginia?")
    ['Johnnycake', 'West Virginia']
    >>> capitalised_spans("Were Forbidden Ground and Black Hawk Down filmed by Ridley Scott's crew?")
    ['Forbidden Ground', 'Black Hawk Down', "Ridley Scott's"]
    >>> capitalised_spans("Was Christopher Nolan's Inception a hit?")
    ["Christopher Nolan's", 'Inception']
    """
    if not isinstance(question, str):
        raise InvalidTypeError(f"question must be a string, got {type(question).__name__}")
    # Each token remembers whether punctuation (a comma, a bracket) separates it from the previous
    # one: "Johnnycake, West Virginia" is two entities. A token
    # (:func:`~pathfinding.hipporag.language.text.name_tokens`) starts with a letter or digit of any script
    # and keeps its combining marks; scripts without case never open a span, since only an
    # upper-case letter or a digit does. A question is one sentence: "Harris W. Fawell" is one name.
    tokens = []
    prev_end = 0
    possessive = False
    for m in name_tokens(question):
        gap = question[prev_end : m.start()]
        # a possessive ends its name: the next word starts a new one ("Nolan's Inception"). A token
        # starts with a letter or digit, so stripping its trailing marks never empties it.
        tokens.append((m.group().rstrip(".'’-"), bool(gap.strip()) or possessive))
        possessive = bool(_POSSESSIVE.search(m.group().rstrip(".-")))
        prev_end = m.end()
    spans: list[list[str]] = []
    cur: list[str] = []

    def close():
        while cur and cur[-1].lower() in _CONNECTORS:
            cur.pop()
        if cur:
            spans.append(list(cur))
        cur.clear()

    for pos, (tok, after_punct) in enumerate(tokens):
        if after_punct:
            close()
        is_cap = tok[0].isupper() or tok[0].isdigit()
        if is_cap and pos == 0 and tok.lower() in STOP_WORDS:
            continue  # "Who", "What", "The" opening the question
        if is_cap:
            cur.append(tok)
        elif cur and tok.lower() in _CONNECTORS:
            cur.append(tok)
        else:
            close()
    close()
    out = []
    for span in spans:
        while span and span[0].lower() in STOP_WORDS and len(span) > 1 and span[0] not in ("The",):
            span = span[1:]
        text = " ".join(span)
        if len(span) == 1 and span[0].lower() in STOP_WORDS:
            continue
        if text not in out:
            out.append(text)
    return out


def has_capitals(text: str) -> bool:
    """Whether ``text`` has an upper-case letter (of any script), i.e. its writer marked names.

    Examples
    --------
    >>> has_capitals("who directed plan 9?"), has_capitals("Who?"), has_capitals("東京はどこ?")
    (False, True, False)
    """
    return any(ch.isupper() for ch in text)
