"""Reading a model's JSON answer the way real models write it.

A chat model asked for ``{"triples": [...]}`` answers, now and then, with the JSON inside a code
fence, with a sentence before or after it, with a trailing comma, cut off mid-list when it ran out of
tokens, with Python quotes, or with a triple of two or four parts. :func:`parse_entities` and
:func:`parse_triples` keep every item that is sound and *count* every repair and every rejection by
name, so a caller can report them per passage (nothing is dropped without a trace).

Rules for one triple, the same as :func:`pathfinding.hipporag.io.load_openie` applies to a file, so
that a file written from parsed answers loads with the same triples:

* a list of three strings is kept;
* a number in a slot is turned into its string (``triple_number_coerced``);
* an object with subject/relation/object keys (or s/p/o, head/relation/tail) is read in that
  order (``triple_from_object``);
* any other length is rejected (``triple_not_three``), as is a slot holding anything else
  (``triple_not_strings``) or only white space (``triple_empty_part``).
"""

from __future__ import annotations

import ast
import json
import re
from collections import Counter
from dataclasses import dataclass, field

from pathfinding.errors import InvalidValueError

__all__ = ["Parsed", "extract_json_list", "parse_entities", "parse_triples"]

_FENCE = re.compile(r"```[A-Za-z0-9_-]*\s*\n?(.*?)(?:```|$)", re.S)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_DECODER = json.JSONDecoder()
_OBJECT_KEYS = (("subject", "relation", "object"), ("s", "p", "o"), ("head", "relation", "tail"))


@dataclass
class Parsed:
    """Items read from one answer, and what had to be repaired or rejected.

    Attributes
    ----------
    items : list
        Entities (str) or triples (tuple of three str) that passed.
    issues : collections.Counter
        Issue name -> count, e.g. ``code_fence``, ``truncated``, ``triple_not_three``.
    rejected : list
        The raw items that were rejected (up to 20), for the report.
    """

    items: list = field(default_factory=list)
    issues: Counter = field(default_factory=Counter)
    rejected: list = field(default_factory=list)

    def reject(self, issue: str, raw) -> None:
        self.issues[issue] += 1
        if len(self.rejected) < 20:
            self.rejected.append(raw)


def _loads(text: str):
    """json, then json without trailing commas, then a Python literal; raises ValueError."""
    try:
        return json.loads(text), None
    except json.JSONDecodeError:
        pass
    fixed = _TRAILING_COMMA.sub(r"\1", text)
    try:
        return json.loads(fixed), "trailing_comma"
    except json.JSONDecodeError:
        pass
    try:
        return ast.literal_eval(fixed), "python_literal"
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        raise InvalidValueError("not JSON") from None


def _partial_list(text: str, start: int):
    """Decode the elements of the list opening at ``text[start] == '['`` one at a time.

    Returns (elements, complete): a truncated answer keeps its whole elements and ``complete`` is
    False.
    """
    out = []
    i = start + 1
    n = len(text)
    while True:
        while i < n and text[i] in " \t\r\n,":
            i += 1
        if i >= n:
            return out, False
        if text[i] == "]":
            return out, True
        try:
            value, i = _DECODER.raw_decode(text, i)
        except json.JSONDecodeError:
            return out, False
        out.append(value)


def extract_json_list(answer: str, key: str):
    """Find the list under ``key`` in a model's answer, however it was wrapped.

    Parameters
    ----------
    answer : str
        The raw message content.
    key : str
        ``"named_entities"`` or ``"triples"``.

    Returns
    -------
    values : list or None
        The list, or None when no list could be found at all.
    issues : collections.Counter
        Repairs made: ``code_fence``, ``prose_around_json``, ``trailing_comma``,
        ``python_literal``, ``bare_list`` (a list without the object around it), ``truncated``
        (cut off: the whole elements before the cut are kept), ``no_json`` (nothing usable).

    Examples
    --------
    >>> extract_json_list('Sure! ```json\\n{"triples": [["a", "b", "c"],]}\\n```', "triples")
    ([['a', 'b', 'c']], Counter({'code_fence': 1, 'trailing_comma': 1}))
    >>> extract_json_list('{"triples": [["a", "b", "c"], ["d", "e"', "triples")[0]
    [['a', 'b', 'c']]
    """
    issues: Counter = Counter()
    text = answer.strip()
    fence = _FENCE.search(text)
    if fence:
        issues["code_fence"] += 1
        text = fence.group(1).strip()
    first = min((p for p in (text.find("{"), text.find("[")) if p >= 0), default=-1)
    if first < 0:
        issues["no_json"] += 1
        return None, issues
    # The widest candidate is first-opening to last-closing bracket; text outside it is prose.
    last = max(text.rfind("}"), text.rfind("]"))
    if first > 0:
        issues["prose_around_json"] += 1
    if last > first:
        try:
            value, repair = _loads(text[first : last + 1])
        except ValueError:
            value = None
        else:
            if repair:
                issues[repair] += 1
            if text[last + 1 :].strip() and first == 0:
                issues["prose_around_json"] += 1
            if isinstance(value, dict) and isinstance(value.get(key), list):
                return value[key], issues
            if isinstance(value, list):
                issues["bare_list"] += 1
                return value, issues
    # Not a whole JSON value: read the list under the key element by element (a truncated answer).
    m = re.search(r"[\"']" + re.escape(key) + r"[\"']\s*:\s*\[", text)
    start = m.end() - 1 if m else (first if text[first] == "[" else -1)
    if start < 0:
        issues["no_json"] += 1
        return None, issues
    values, complete = _partial_list(_TRAILING_COMMA.sub(r"\1", text), start)
    if not complete:
        issues["truncated"] += 1
    elif not m:
        issues["bare_list"] += 1
    return values, issues


def parse_entities(answer: str) -> Parsed:
    """Named entities from an answer to the NER prompt (``{"named_entities": [...]}``).

    Strings are kept in order (duplicates too, as the released files keep them); numbers become
    strings (``entity_number_coerced``); anything else is rejected (``entity_not_string``).

    Examples
    --------
    >>> p = parse_entities('```json\\n{"named_entities": ["Lake Bled", 1908, null]}\\n```')
    >>> p.items, dict(p.issues)
    (['Lake Bled', '1908'], {'code_fence': 1, 'entity_number_coerced': 1, 'entity_not_string': 1})
    """
    values, issues = extract_json_list(answer, "named_entities")
    out = Parsed(issues=issues)
    if values is None:
        out.rejected.append(answer[:300])
        return out
    for v in values:
        if isinstance(v, str):
            out.items.append(v)
        elif isinstance(v, int | float) and not isinstance(v, bool):
            out.issues["entity_number_coerced"] += 1
            out.items.append(str(v))
        else:
            out.reject("entity_not_string", v)
    return out


def _triple(raw, out: Parsed):
    if isinstance(raw, dict):
        for keys in _OBJECT_KEYS:
            if all(k in raw for k in keys):
                out.issues["triple_from_object"] += 1
                raw = [raw[k] for k in keys]
                break
        else:
            out.reject("triple_not_three", raw)
            return None
    if not isinstance(raw, list | tuple) or len(raw) != 3:
        out.reject("triple_not_three", raw)
        return None
    parts = []
    for x in raw:
        if isinstance(x, str):
            parts.append(x)
        elif isinstance(x, int | float) and not isinstance(x, bool):
            out.issues["triple_number_coerced"] += 1
            parts.append(str(x))
        else:
            out.reject("triple_not_strings", raw)
            return None
    if any(not p.strip() for p in parts):
        out.reject("triple_empty_part", raw)
        return None
    return tuple(parts)


def parse_triples(answer: str) -> Parsed:
    """Triples from an answer to the triple prompt (``{"triples": [[s, r, o], ...]}``).

    Examples
    --------
    >>> p = parse_triples('Here you go: {"triples": [["Bled", "in", "Slovenia"], ["Bled", "lake"],'
    ...                   ' {"subject": "Bled", "relation": "founded", "object": 1004}]}')
    >>> p.items
    [('Bled', 'in', 'Slovenia'), ('Bled', 'founded', '1004')]
    >>> sorted(p.issues.items())  # doctest: +NORMALIZE_WHITESPACE
    [('prose_around_json', 1), ('triple_from_object', 1), ('triple_not_three', 1),
     ('triple_number_coerced', 1)]
    """
    values, issues = extract_json_list(answer, "triples")
    out = Parsed(issues=issues)
    if values is None:
        out.rejected.append(answer[:300])
        return out
    for raw in values:
        t = _triple(raw, out)
        if t is not None:
            out.items.append(t)
    return out
