"""How a corpus writes its names: the casing model behind reading a question's names.

The default retriever finds a question's names by their capitals
(:func:`~pathfinding.hipporag.language.names.capitalised_spans`) and trusts a walk seeded by a
capitalised name.
People type ``who directed plan 9 from outer space`` or ``WHO DIRECTED PLAN 9 ...`` or ``who is
Thomas südhof``: the capitals that mark the names are missing, everywhere, or in places. The corpus
knows how it writes its names, so this module learns that from the passages, with no outside data;
:mod:`~pathfinding.hipporag.language.reading` then gives the retriever the question as the corpus would have
written it.

:class:`CasingModel` counts, over every passage (:meth:`CasingModel.from_passages`), each *name*: a
maximal run of capitalised words, by the rules of
:func:`~pathfinding.hipporag.language.names.capitalised_spans` (connectors such as "of" inside, split at
punctuation and after a possessive), keyed by its normalised text (the index's rule), with its most
frequent written form. A run that opens a sentence (or a line, a quotation or a bracket) is counted
apart, since its first capital may be grammar; a stop word opening one is dropped ("The film", "In
Paris"). It also counts how often each name's words occur written in lower case, and how often each
word does. The share ``named / (named + lower)`` (:class:`Evidence`) says how much the corpus treats
a text as a name: "plan 9 from outer space" is always capitalised, "university" is capitalised inside
longer names but as a word alone mostly not, "young" is a common word.

The model of an index is derived state (:func:`casing_model`): saved with the index
(:mod:`~pathfinding.hipporag.index.persistence`) and its query cache, and rebuilt from the passages
of an index that was grown or shrunk. An index without passage texts has an empty model, and its
questions are read as typed.
"""

from __future__ import annotations

import bisect
import codecs
import operator
import re
import sys
from array import array
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from pathfinding.errors import InvalidTypeError, InvalidValueError
from pathfinding.hipporag.language.names import STOP_WORDS
from pathfinding.hipporag.language.text import NORMALIZATIONS, index_normalization, normalize_phrase

__all__ = [
    "CASING_KEY",
    "CONNECTORS",
    "MAX_WORDS",
    "STRAY_MIN",
    "CasingModel",
    "Evidence",
    "Texts",
    "WordToken",
    "casing_model",
    "word_tokens",
]

CASING_KEY = "casing"
"""Where an index keeps its :class:`CasingModel`
(:meth:`~pathfinding.hipporag.index.model.HippoIndex.derived`)."""

STRAY_MIN = 3
"""A word written in lower case at least this many times is kept even if never a name: a capital
typed on it can then be told apart as a stray one (:mod:`~pathfinding.hipporag.language.reading`)."""
MAX_WORDS = 8
"""Longest name, in words, the model keeps and a reading tries."""

# The token rule of capitalised_spans: a letter or digit of any script, then word characters,
# apostrophes, dots and hyphens ("O'Neal", "D.P.", "Saxby-Junna").
_TOKEN = re.compile(r"[^\W_][\w'’.\-]*")
_SPLIT = re.compile(f"({_TOKEN.pattern})")  # split by it: the gaps and the tokens, in turn
_POSSESSIVE = re.compile(r"['’]s$|(?<=s)['’]$", re.IGNORECASE)
CONNECTORS = frozenset({"of", "the", "de", "del", "la", "le", "von", "van", "der", "du", "da", "for"})
"""Words that may sit inside a name, as in capitalised_spans ("Journal of Psychotherapy Integration")."""
# A capital after one of these is grammar or a quotation's, not (only) a name's.
_OPENERS = re.compile(r"[.!?:;\n\"“”()\[\]]")


_BAR_FROM = 100_000
"""Corpora of at least this many passages show a bar (on a terminal) while their names are counted."""


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

    Words are cut by the token rule of :func:`~pathfinding.hipporag.language.names.capitalised_spans`; a
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
    words, starts, initial, after_break = _columns(text)
    return [
        WordToken(w, s, s + len(w), w[0].isupper(), w[0].isdigit(), i, b)
        for w, s, i, b in zip(words, starts, initial, after_break, strict=True)
    ]


def _columns(text: str) -> tuple[list[str], list[int], list[bool], list[bool]]:
    """:func:`word_tokens` as four lists, ``(words, starts, initial, after_break)`` (``capital`` and
    ``digit`` are read off the word): one split in C for the tokens and the gaps between them, and no
    tuple per word. A count of a million passages reads some sixty million words."""
    parts = _SPLIT.split(text)  # gap, token, gap, token, ..., gap
    words, starts, initial, after_break = [], [], [], []
    pos, prev_raw, possessive = 0, "", False
    for t in range(1, len(parts), 2):
        gap, raw = parts[t - 1], parts[t]
        pos += len(gap)
        word = raw.rstrip(".'’-")
        # (the checks on apostrophes and gaps are skipped where they cannot match: most words, one space)
        owner = ("'" in raw or "’" in raw) and bool(_POSSESSIVE.search(raw.rstrip(".-")))
        if owner and len(word) > 2:
            word = _POSSESSIVE.sub("", word)
        # a full stop after a short word is mostly an initial or an abbreviation ("E. B. White", "St. Louis")
        stop = prev_raw.endswith((".", "!", "?")) and (len(prev_raw.rstrip(".")) > 3 or prev_raw[-1] != ".")
        plain = gap == " "
        words.append(word)
        starts.append(pos)
        initial.append(t == 1 or (not plain and bool(_OPENERS.search(gap))) or stop)
        after_break.append((not plain and bool(gap.strip())) or possessive)
        pos += len(raw)
        prev_raw, possessive = raw, owner
    return words, starts, initial, after_break


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
        def times(n: int) -> str:
            return "once" if n == 1 else f"{n} times"

        return (
            f"the corpus writes {self.form or self.key!r} as a name {times(self.named)} ({self.initial} "
            f"opening a sentence) and in lower case {times(self.lower)}"
        )


class Texts(Sequence[str]):
    """Strings kept as one UTF-8 buffer and the offsets where each ends: a read-only sequence of str.

    A million passages name about five million texts; as Python strings in a list each costs its
    characters plus about 60 bytes, here its UTF-8 bytes plus 8. Items are decoded when read. Bytes
    sort as their code points do, so a sorted list of strings stays sorted here (and ``bisect``
    works on it).

    Examples
    --------
    >>> t = Texts.of(["ed wood", "südhof"])
    >>> len(t), t[1], list(t) == ["ed wood", "südhof"], t == ["ed wood", "südhof"]
    (2, 'südhof', True, True)
    """

    __slots__ = ("_blob", "_ends")

    def __init__(self, blob: bytes, ends: np.ndarray):
        self._blob, self._ends = blob, ends

    @classmethod
    def of(cls, strings: Sequence[str]) -> Texts:
        """The texts of a sequence of strings."""
        encoded = [s.encode() for s in strings]
        ends = np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded)).cumsum()
        return cls(b"".join(encoded), ends)

    def get_state(self) -> tuple[np.ndarray, np.ndarray]:
        """(the UTF-8 bytes as uint8, the int64 end offsets): what a file stores."""
        return np.frombuffer(self._blob, dtype=np.uint8), self._ends

    @classmethod
    def from_state(cls, blob, ends) -> Texts:
        """The texts :meth:`get_state` described, checked: uint8 bytes, int64 ends rising to their
        size, and every text valid UTF-8 (the buffer is decoded in slices, never held as one string);
        a malformed state raises ValueError (InvalidValueError) naming what is wrong."""
        blob = np.asarray(blob)
        ends = np.asarray(ends)
        if blob.dtype != np.uint8 or blob.ndim != 1 or ends.dtype != np.int64 or ends.ndim != 1:
            raise InvalidValueError(
                f"texts must be uint8 bytes and int64 ends, got {blob.dtype}{list(blob.shape)} and "
                f"{ends.dtype}{list(ends.shape)}"
            )
        if ends.size and (ends[0] < 0 or (np.diff(ends) < 0).any() or ends[-1] != blob.size):
            raise InvalidValueError(f"text ends must rise from 0 to the {blob.size} bytes")
        if not ends.size and blob.size:
            raise InvalidValueError(f"{blob.size} bytes of text with no ends")
        # Each text is UTF-8 when the whole buffer is and no text ends inside a character (the
        # next one would then start on a continuation byte, 10xxxxxx).
        inner = ends[(ends > 0) & (ends < blob.size)]
        if ((blob[inner] & 0xC0) == 0x80).any():
            raise InvalidValueError("a text ends inside a UTF-8 character")
        decoder = codecs.getincrementaldecoder("utf-8")()
        step = 1 << 24
        try:
            for a in range(0, blob.size, step):
                decoder.decode(blob[a : a + step].tobytes())
            decoder.decode(b"", final=True)
        except UnicodeDecodeError as exc:
            raise InvalidValueError(f"texts are not UTF-8 ({exc})") from None
        return cls(blob.tobytes(), ends.copy())

    def is_sorted_distinct(self) -> bool:
        """Whether every text is greater than the one before (compared as bytes, which is code-point
        order)."""
        blob, a, prev = self._blob, 0, None
        for b in self._ends.tolist():
            cur = blob[a:b]
            if prev is not None and not prev < cur:
                return False
            prev, a = cur, b
        return True

    def __len__(self) -> int:
        return len(self._ends)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        n = len(self)
        i = operator.index(i)
        if not -n <= i < n:
            raise IndexError(f"text index {i} out of range for {n} texts")
        i %= n
        return self._blob[self._ends[i - 1] if i else 0 : self._ends[i]].decode()

    def __iter__(self):
        blob, a = self._blob, 0
        for b in self._ends.tolist():
            yield blob[a:b].decode()
            a = b

    def __eq__(self, other) -> bool:
        if isinstance(other, Texts):
            return self._blob == other._blob and np.array_equal(self._ends, other._ends)
        if isinstance(other, Sequence) and not isinstance(other, str):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None

    def __repr__(self) -> str:
        return f"Texts({len(self)} texts, {len(self._blob)} bytes)"


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
        The rule the keys were normalised with (:func:`~pathfinding.hipporag.language.text.normalize_phrase`).

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
        self.capitalised, self.initial, self.lower = (
            np.asarray(a, dtype=np.int64).reshape(-1) for a in (capitalised, initial, lower)
        )
        self.keys, self.forms = _as_texts(keys), _as_texts(forms)
        if not self.keys.is_sorted_distinct():
            raise InvalidValueError("casing model keys must be sorted and distinct")
        n = len(self.keys)
        if not (len(self.forms) == self.capitalised.size == self.initial.size == self.lower.size == n):
            raise InvalidValueError(
                f"a casing model needs one form and three counts per key ({n} keys), got {len(self.forms)} "
                f"forms and {self.capitalised.size}, {self.initial.size}, {self.lower.size} counts"
            )
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

    def get_state(self) -> tuple[dict, dict[str, np.ndarray]]:
        """(parameters, arrays): what a file stores (:meth:`from_state` reads it). The keys and forms
        are UTF-8 bytes with their end offsets (``keys``/``key_ends``, ``forms``/``form_ends``), so a
        file holds no JSON string per name."""
        arrays = {"capitalised": self.capitalised, "initial": self.initial, "lower": self.lower}
        for name, texts in (("key", self.keys), ("form", self.forms)):
            arrays[f"{name}s"], arrays[f"{name}_ends"] = texts.get_state()
        return {"normalization": self.normalization}, arrays

    @classmethod
    def from_state(cls, params: dict, arrays: dict) -> CasingModel:
        """The model :meth:`get_state` described (its texts checked: UTF-8, keys sorted and distinct)."""
        names = ("keys", "key_ends", "forms", "form_ends", "capitalised", "initial", "lower")
        missing = [k for k in names if k not in arrays]
        if missing or "normalization" not in params:
            raise InvalidValueError(f"a casing model's state lacks {missing or ['normalization']}")
        keys = Texts.from_state(arrays["keys"], arrays["key_ends"])
        forms = Texts.from_state(arrays["forms"], arrays["form_ends"])
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
        norm = _Keys(normalization)  # word -> its key, each word normalised once

        # Each name's count and form; a Counter of its forms only once a second form is seen (most
        # names have one, and a Counter each would be most of the memory at a million passages).
        named: dict[str, int] = {}
        form_of: dict[str, str] = {}
        forms_of: dict[str, Counter] = {}
        initial: Counter = Counter()
        lower: Counter = Counter()
        # Every passage's words for the second pass, as ids (4 bytes a word and a flag byte, not a
        # Python list of strings per passage: a second copy of the corpus' text).
        ids: dict[str, int] = {}
        stream, low_flags, ends = array("i"), bytearray(), array("q")
        from tqdm.auto import tqdm

        # a bar on a terminal for a large corpus (a save counts its names: minutes at a million)
        big = len(passages) >= _BAR_FROM
        bar = tqdm(passages, desc="casing", unit="text", file=sys.stderr, leave=False,
                   disable=None if big else True, miniters=10_000)  # fmt: skip
        for j, text in enumerate(bar):
            if not isinstance(text, str):
                raise InvalidTypeError(f"passages[{j}] must be a string, got {type(text).__name__}")
            words, _, opens, breaks = _columns(text)
            keys = list(map(norm.__getitem__, words))
            for run in _runs(words, opens, breaks):
                key = " ".join(k for k in (keys[i] for i in run) if k)
                if key and len(key.split()) <= MAX_WORDS:
                    form = " ".join(words[i] for i in run)
                    seen = named.get(key)
                    if seen is None:
                        named[key], form_of[key] = 1, form
                    else:
                        named[key] = seen + 1
                        if key in forms_of:
                            forms_of[key][form] += 1
                        elif form != form_of[key]:
                            forms_of[key] = Counter({form_of[key]: seen, form: 1})
                    if opens[run[0]]:
                        initial[key] += 1
            # words in lower case: each token's words, and the runs of words that start in lower case
            for w, k in zip(words, keys, strict=True):
                low = not (w[0].isupper() or w[0].isdigit())
                if " " not in k:  # one word (or none), as nearly every token is (keys have no other space)
                    if k:
                        stream.append(ids.setdefault(k, len(ids)))
                        low_flags.append(low)
                        if low:
                            lower[k] += 1  # a word; a run of words is counted below
                    continue
                parts = k.split()
                stream.extend([ids.setdefault(w, len(ids)) for w in parts])
                low_flags.extend([low] * len(parts))
            ends.append(len(stream))
        norm.clear()  # what the steps below no longer need goes as they go: at 100,000 passages the
        # count needed 0.38 GiB above its start, not 0.48
        lengths: dict[int, set[int]] = defaultdict(set)  # a name's first word (its id) -> word counts
        for key in named:
            parts = key.split()
            if len(parts) > 1 and parts[0] in ids:
                lengths[ids[parts[0]]].add(len(parts))
        # The runs of words that start in lower case with a name's first word: found by numpy among
        # every word of the corpus, then each looked at (a Python loop over every word took a fifth
        # of the time).
        words = np.frombuffer(stream, dtype=np.intc) if len(stream) else np.zeros(0, np.intc)
        starts = np.flatnonzero(np.frombuffer(low_flags, dtype=np.bool_) if low_flags else np.zeros(0, bool))
        starts = starts[np.isin(words[starts], np.fromiter(lengths, dtype=np.intc, count=len(lengths)))]
        stops = np.asarray(ends, dtype=np.int64)[np.searchsorted(np.asarray(ends), starts, side="right")]
        vocab = list(ids)  # id -> word
        ids.clear()
        for i, hi in zip(starts.tolist(), stops.tolist(), strict=True):
            for n in lengths[stream[i]]:
                phrase = " ".join([vocab[w] for w in stream[i : min(i + n, hi)]])
                if phrase in named:
                    lower[phrase] += 1
        del words, starts, stops, vocab, lengths, stream, low_flags, ends
        keep = sorted(set(named).union(k for k, c in lower.items() if c >= STRAY_MIN))
        forms = [
            (min(forms_of[k].items(), key=lambda fc: (-fc[1], fc[0]))[0] if k in forms_of else form_of[k])
            if k in form_of else ""
            for k in keep
        ]  # fmt: skip
        total = np.array([named.get(k, 0) for k in keep], dtype=np.int64)
        first = np.array([initial.get(k, 0) for k in keep], dtype=np.int64)
        low = np.array([lower.get(k, 0) for k in keep], dtype=np.int64)
        return cls(Texts.of(keep), Texts.of(forms), total - first, first, low, normalization=normalization)


class _Keys(dict):
    """Word -> :func:`~pathfinding.hipporag.language.text.normalize_phrase` of it, found on first use."""

    def __init__(self, rule: str):
        super().__init__()
        self.rule = rule

    def __missing__(self, word: str) -> str:
        key = self[word] = normalize_phrase(word, rule=self.rule)
        return key


def _as_texts(strings) -> Texts:
    """``strings`` as :class:`Texts`, each checked to be a string (a Texts is one already)."""
    if isinstance(strings, Texts):
        return strings
    strings = list(strings)
    try:  # joining checks every item is a string at C speed: a corpus' model has millions
        "".join(strings)
    except TypeError:
        raise InvalidTypeError("casing model keys and forms must be strings") from None
    return Texts.of(strings)


def _runs(words: list[str], initial: list[bool], after_break: list[bool]) -> list[list[int]]:
    """Token positions of every name (the tokens as :func:`_columns` gives them): capitalised_spans'
    runs, a sentence-opening stop word dropped.

    A run holds an upper-case letter (numbers alone are not names); a run opening a sentence is
    marked by its first token's ``initial``.
    """
    runs: list[list[int]] = []
    cur: list[int] = []

    def close():
        while cur and words[cur[-1]].lower() in CONNECTORS:
            cur.pop()
        if cur:
            runs.append(list(cur))
        cur.clear()

    for i, w in enumerate(words):
        named = w[0].isupper() or w[0].isdigit()
        if after_break[i] or (initial[i] and named):
            close()
        if named:
            cur.append(i)
        elif cur and w.lower() in CONNECTORS:
            cur.append(i)
        else:
            close()
    close()
    out = []
    for run in runs:
        if initial[run[0]] and len(run) > 1 and words[run[0]].lower() in STOP_WORDS:
            run = run[1:]  # "The film", "In Paris": the grammar's capital, not the name's
        while len(run) > 1 and words[run[0]].lower() in STOP_WORDS and words[run[0]] != "The":
            run = run[1:]
        if len(run) == 1 and words[run[0]].lower() in STOP_WORDS:
            continue
        if any(words[i][0].isupper() for i in run):
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
    return index.derived(CASING_KEY, lambda: CasingModel.from_passages(index.passages, normalization=rule))
