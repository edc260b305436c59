"""Where text becomes tokens, names and node keys: the one place every other module reads it through.

Text is normalised once, the Unicode way:

* :func:`nfc` at the boundaries (loaders, the retriever's question, the evaluation's gold passages):
  a decomposed "Zoë" (NFD, what macOS file systems and many editors write) and a composed one are
  the same string afterwards;
* :func:`fold` for matching: NFC and full case folding (``str.casefold``: German "ß" is "ss"), with
  the Turkish capital "İ" and dotless "ı" folded to "i", so that "İstanbul'da" matches "istanbul";
  the invisible joiners (zero-width joiner and non-joiner, word joiner, soft hyphen) are dropped, so a
  name typed with one matches the same name typed without.

Words keep their combining marks (Unicode categories Mn, Mc, Me): the vowel signs and virama of
Devanagari, Thai tone marks and Hebrew points belong to the word they sit on, as do the accents of a
decomposed letter, and so does an invisible joiner between two letters (Malayalam, Sinhala and
Persian write them inside words): it never splits a name in two. Three tokenizers share that rule:
:func:`words` (BM25's tokens), :func:`word_matches` (the words of a no-model extractor) and
:func:`name_tokens` (the tokens a capitalised span is made of). :func:`sentence_bounds` finds
sentence ends in any script ("." "!" "?" before a sentence start, "।", "؟", "。", a Greek question
mark ...).

Two normalisation rules make a phrase into a node key:

* ``"unicode"`` (the default): :func:`fold`, and every character that is not a letter, a combining
  mark or a digit of *any* script becomes a space. Accents are kept, so "Thomas Südhof" stays
  "thomas südhof", "Jürgen Müller" and "Jörgen Möller" stay two nodes and "Łódź" is "łódź";
  Cyrillic, Greek, Arabic or CJK phrases keep their letters.
* ``"ascii"``: HippoRAG v1's rule (``re.sub('[^A-Za-z0-9 ]', ' ', s.lower()).strip()`` in the
  release), which deletes every letter outside ASCII. It is kept so that an index of the released
  triples reproduces v1's node set exactly.

On ASCII text the two rules give the same string, so they differ only where v1 deleted letters.

Scripts written without spaces (Chinese, Japanese, Thai ...) have no word boundaries for a word
tokenizer to find, and Korean, written with spaces, glues its particles to the word before them
("서울에서", in Seoul; "한글을", Hangul as an object): a word tokenizer finds "서울에서" where the
passage says "서울은". :func:`segment_unspaced` splits each run of such characters into overlapping
character bigrams, the usual lexical unit of CJK retrieval (Lucene's CJK bigrams cover Hangul too),
so BM25 can match a Japanese or Korean question to its passage; :func:`glued_runs` finds the runs,
where a name can be looked for inside a longer word. Text without such characters is returned
unchanged. A dictionary segmenter for each language (MeCab-ko or Kiwi for Korean, Sudachi or Janome
for Japanese, jieba for Chinese) would find words instead; each brings a language's dictionary, and
bigrams need none.
"""

from __future__ import annotations

import functools
import re
import sys
import unicodedata
from collections.abc import Iterator

from pathfinding.errors import InvalidTypeError, InvalidValueError

__all__ = [
    "LEGACY_NORMALIZATION",
    "NORMALIZATIONS",
    "fold",
    "glued_runs",
    "has_case",
    "index_normalization",
    "is_unspaced_char",
    "name_tokens",
    "nfc",
    "normalize_phrase",
    "segment_unspaced",
    "sentence_bounds",
    "sentences",
    "word_matches",
    "words",
]

NORMALIZATIONS = ("unicode", "ascii")
"""Names of the phrase-normalisation rules, the default first."""

LEGACY_NORMALIZATION = "ascii"
"""The rule of an index whose settings name none: every index saved before the rule was a setting."""


def index_normalization(settings: dict) -> str:
    """The phrase-normalisation rule recorded in an index's ``settings`` (v1's for an older index).

    Examples
    --------
    >>> index_normalization({"normalization": "unicode"}), index_normalization({})
    ('unicode', 'ascii')
    """
    return settings.get("normalization", LEGACY_NORMALIZATION)


def _check(text) -> None:
    if not isinstance(text, str):
        raise InvalidTypeError(f"text must be a string, got {type(text).__name__}")


def nfc(text: str) -> str:
    """``text`` in Unicode normal form C (composed): the form every loader hands on.

    Examples
    --------
    >>> decomposed = "Zoe\\u0308"
    >>> len(decomposed), nfc(decomposed), len(nfc(decomposed))
    (4, 'Zoë', 3)
    """
    _check(text)
    return text if text.isascii() else unicodedata.normalize("NFC", text)


# "İ" (capital I with dot) case-folds to "i" + a combining dot, and the dotless "ı" has no fold:
# both become "i", so Turkish text matches however it was capitalised or typed.
_TURKISH_I = str.maketrans({"İ": "I", "ı": "i"})
# Invisible characters that join (or mark a break inside) a word: zero-width non-joiner and joiner,
# word joiner, soft hyphen. They shape how a word is drawn, not which word it is.
_JOINERS = "\u200c\u200d\u2060\u00ad"
_DROP_JOINERS = str.maketrans(dict.fromkeys(_JOINERS))


def fold(text: str) -> str:
    """The matching form of ``text``: NFC, Turkish "İ"/"ı" as "i", full case folding, no joiners.

    Examples
    --------
    >>> fold("İstanbul'da"), fold("DIYARBAKIR") == fold("Diyarbakır"), fold("Straße")
    ("istanbul'da", True, 'strasse')
    >>> fold("Ali\u200dce") == fold("Alice")  # a zero-width joiner is invisible, and ignored
    True
    """
    _check(text)
    if text.isascii():
        return text.lower()  # casefold is lower on ASCII
    folded = unicodedata.normalize("NFC", text).translate(_TURKISH_I).translate(_DROP_JOINERS).casefold()
    return unicodedata.normalize("NFC", folded)


def has_case(ch: str) -> bool:
    """Whether a character is a letter with an upper- and a lower-case form (Latin, Greek,
    Cyrillic, Armenian ...), as opposed to one of a script without case (CJK, Arabic, Devanagari).

    Examples
    --------
    >>> has_case("Ж"), has_case("ж"), has_case("東"), has_case("ب"), has_case("7")
    (True, True, False, False, False)
    """
    return ch.isupper() or ch.islower()


@functools.cache
def _marks() -> str:
    """A regex class body of every combining mark (Mn, Mc, Me) this Python's Unicode tables know.

    Marks live in planes 0, 1 and 14 only; the scan runs once per process, on first use.
    """
    ranges: list[list[int]] = []
    for lo, hi in ((0, 0x20000), (0xE0000, 0xE1000)):
        for c in range(lo, min(hi, sys.maxunicode + 1)):
            if unicodedata.category(chr(c))[0] == "M":
                if ranges and ranges[-1][1] == c - 1:
                    ranges[-1][1] = c
                else:
                    ranges.append([c, c])
    return "".join(f"\\U{a:08x}" if a == b else f"\\U{a:08x}-\\U{b:08x}" for a, b in ranges)


# A thousands separator inside a number ("18,000", "1,250,000"): a name token keeps it, so that a
# number is one node, not "18" and a "000" that every large number shares.
_THOUSANDS = r"(?<=\d),(?=\d{3}(?!\d))"

# The ASCII patterns are the full ones restricted to ASCII text (which has no mark): cheaper to run.
_ASCII = {
    "word": re.compile(r"[^\W_]+(?:['’][^\W_]+)*"),
    "name": re.compile(rf"[^\W_](?:[\w'’.\-]|{_THOUSANDS})*"),
    "token": re.compile(r"\w\w+"),
}


@functools.cache
def _patterns() -> dict[str, re.Pattern]:
    m = _marks()
    letter = rf"(?:[^\W_]|[{m}])"  # a letter or digit of any script, or a combining mark
    return {
        # a word: letters, digits and marks, with inner apostrophes ("O'Brien", "Nolan's") and joiners
        "word": re.compile(rf"{letter}+(?:(?:['’]|[{_JOINERS}]+){letter}+)*"),
        # a name's token starts with a letter or digit and may hold . ' - ("J.R.R.", "Jean-Luc"), joiners
        "name": re.compile(rf"[^\W_](?:[\w'’.\-]|[{m}{_JOINERS}]|{_THOUSANDS})*"),
        # BM25's token: two or more word characters (bm25s' and scikit-learn's rule) or marks
        "token": re.compile(rf"[\w{m}][\w{m}]+"),
    }


def _pattern(kind: str, text: str) -> re.Pattern:
    return _ASCII[kind] if text.isascii() else _patterns()[kind]


def word_matches(text: str) -> Iterator[re.Match]:
    """The words of ``text`` (letters, digits and combining marks of any script, inner apostrophes
    kept), as regex matches so that callers see what lies between them.

    Examples
    --------
    >>> [m.group() for m in word_matches("गांधी, O'Brien and 東京")]
    ['गांधी', "O'Brien", 'and', '東京']
    """
    _check(text)
    return _pattern("word", text).finditer(text)


def name_tokens(text: str) -> Iterator[re.Match]:
    """The tokens a capitalised span is built from: a letter or digit, then letters, digits,
    combining marks and the ``. ' ’ -`` inside names ("J.R.R.", "Jean-Luc", "Nolan's"), and the
    commas that group a number's thousands.

    Examples
    --------
    >>> [m.group() for m in name_tokens("Who met J.R.R. Tolkien's Jean-Luc?")]
    ['Who', 'met', 'J.R.R.', "Tolkien's", 'Jean-Luc']
    >>> [m.group() for m in name_tokens("18,000 seats, 1,250,000 fans; 3,14 or 1,2,3")]
    ['18,000', 'seats', '1,250,000', 'fans', '3', '14', 'or', '1', '2', '3']
    """
    _check(text)
    return _pattern("name", text).finditer(text)


def words(text: str) -> list[str]:
    """Every token of ``text`` by BM25's rule, stop words included: :func:`fold`, runs of two or more
    word characters (combining marks included), unspaced scripts as character bigrams.

    Examples
    --------
    >>> words("Thomas Südhof's 2nd cut, 東京都")
    ['thomas', 'südhof', '2nd', 'cut', '東京', '京都']
    >>> words("गांधी İstanbul'da Straße")
    ['गांधी', 'istanbul', 'da', 'strasse']
    """
    folded = segment_unspaced(fold(text))  # composed first: a decomposed kana is one character
    return _pattern("token", folded).findall(folded)


# Sentence ends. "." "!" "?" (and a Greek question mark, ";" after NFC, between Greek words) end a
# sentence when whitespace and a sentence start follow. "St. Louis" and the initial of "Robert C.
# Malenka" meet that and are cut: a wrong split only loses pairs across it. Skipping the dot of an
# initial was measured: R@5 on held-out HotpotQA (rows H3, K14) fell by 0.5 to 1 point, so it stays.
# The marks below end a sentence wherever they stand.
_CLOSERS = "\"'”’»)"
_SOFT_END = re.compile(rf"([.!?;])[{_CLOSERS}]?(\s+)")
_HARD_ENDS = "。！？｡।॥؟۔։።။។།"
_HARD_END = re.compile(rf"[{_HARD_ENDS}][{_CLOSERS}]?")
_OPENERS = "\"“(«„"


def _is_greek(ch: str) -> bool:
    return "\u0370" <= ch <= "\u03ff" or "\u1f00" <= ch <= "\u1fff"


def _starts_sentence(ch: str) -> bool:
    # an upper-case letter of any script, a digit, an opening quote or bracket, or a letter of a
    # script without case (where a capital cannot say it)
    return ch.isupper() or ch.isdigit() or ch in _OPENERS or (ch.isalpha() and not ch.islower())


def sentence_bounds(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each sentence of ``text``, in order, without the whitespace between them.

    Examples
    --------
    >>> t = "Он жил в Москве. Он любил Париж."
    >>> [t[a:b] for a, b in sentence_bounds(t)]
    ['Он жил в Москве.', 'Он любил Париж.']
    >>> t = "It is approx. two km long. 東京は大きい。大阪も。"
    >>> [t[a:b] for a, b in sentence_bounds(t)]
    ['It is approx. two km long.', '東京は大きい。', '大阪も。']
    """
    _check(text)
    cuts: list[tuple[int, int]] = []  # (end of a sentence, start of the next)
    for m in _SOFT_END.finditer(text):
        after = m.end()
        if after >= len(text) or not _starts_sentence(text[after]):
            continue
        # ";" is a Greek question mark only between Greek words: elsewhere a semicolon
        greek = m.start() > 0 and _is_greek(text[m.start() - 1]) and _is_greek(text[after])
        if m.group(1) == ";" and not greek:
            continue
        cuts.append((m.start(2), after))
    if not text.isascii():
        for m in _HARD_END.finditer(text):
            start = m.end()
            while start < len(text) and text[start].isspace():
                start += 1
            cuts.append((m.end(), start))
    out, start = [], 0
    for end, nxt in sorted(cuts):
        if end > start:
            out.append((start, end))
        start = max(start, nxt)
    if start < len(text):
        out.append((start, len(text)))
    return [(a, b) for a, b in out if text[a:b].strip()]


def sentences(text: str) -> list[str]:
    """The sentences of ``text`` (:func:`sentence_bounds`).

    Examples
    --------
    >>> sentences("Ο Σωκράτης έζησε στην Αθήνα; Ήταν φιλόσοφος. गांधी भारत में थे। वे वकील थे।")
    ['Ο Σωκράτης έζησε στην Αθήνα;', 'Ήταν φιλόσοφος.', 'गांधी भारत में थे।', 'वे वकील थे।']
    """
    return [text[a:b] for a, b in sentence_bounds(text)]


_NON_ALNUM_ASCII = re.compile("[^A-Za-z0-9 ]")

# Scripts written without spaces between words: CJK ideographs (with extension A and the
# compatibility block), kana, Thai, Lao, Khmer and Myanmar.
_UNSPACED = (
    "\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
    "\u0e00-\u0e7f\u0e80-\u0eff\u1780-\u17ff\u1000-\u109f"
)
_UNSPACED_CHAR = re.compile(f"[{_UNSPACED}]")
# ... and Hangul (syllables, jamo, compatibility jamo), spaced, but with particles glued to its words:
# every such run is read as character bigrams.
_GLUED = _UNSPACED + "\uac00-\ud7a3\u1100-\u11ff\u3130-\u318f"
_GLUED_RUN = re.compile(f"[{_GLUED}]+")


def _keep(ch: str) -> bool:
    # letters (L*), combining marks (M*: the vowel signs of Devanagari or Thai are marks) and digits
    return unicodedata.category(ch)[0] in "LMN"


def normalize_phrase(text: str, *, rule: str = "unicode") -> str:
    """The node key of a phrase: case-folded, punctuation to spaces, stripped.

    Parameters
    ----------
    text : str
    rule : {"unicode", "ascii"}, default "unicode"
        ``"unicode"`` keeps the letters, marks and digits of every script (:func:`fold`: NFC, full
        case folding); ``"ascii"`` is HippoRAG v1's rule, which turns every character outside
        ``[A-Za-z0-9 ]`` into a space (of the NFC text).

    Returns
    -------
    str

    Raises
    ------
    ValueError
        If ``rule`` is not one of :data:`NORMALIZATIONS`.

    Examples
    --------
    >>> normalize_phrase("  Ed Wood's (film) ")
    'ed wood s  film'
    >>> normalize_phrase("Thomas Südhof"), normalize_phrase("Thomas Südhof", rule="ascii")
    ('thomas südhof', 'thomas s dhof')
    >>> normalize_phrase("Łódź"), normalize_phrase("Łódź", rule="ascii")
    ('łódź', 'd')
    >>> normalize_phrase("Москва́ — столица"), normalize_phrase("東京都"), normalize_phrase("İstanbul")
    ('москва́  столица', '東京都', 'istanbul')
    """
    _check(text)
    if rule == "ascii" or (rule == "unicode" and text.isascii()):
        # On ASCII text both rules are this one (casefold is lower there).
        return _NON_ALNUM_ASCII.sub(" ", nfc(text).lower()).strip()
    if rule != "unicode":
        raise InvalidValueError(f"rule must be one of {NORMALIZATIONS}, got {rule!r}")
    return "".join(ch if _keep(ch) else " " for ch in fold(text)).strip()


def is_unspaced_char(ch: str) -> bool:
    """Whether a character belongs to a script written without spaces (CJK, kana, Thai ...).

    Examples
    --------
    >>> is_unspaced_char("東"), is_unspaced_char("a"), is_unspaced_char("é")
    (True, False, False)
    """
    return bool(_UNSPACED_CHAR.fullmatch(ch))


def glued_runs(text: str) -> list[re.Match]:
    """The runs of characters of scripts whose words spaces do not delimit: written without spaces
    (CJK, kana, Thai ...) or with particles glued on (Hangul).

    Examples
    --------
    >>> [m.group() for m in glued_runs("서울에서 흐르는 강은? 東京タワー, Ed")]
    ['서울에서', '흐르는', '강은', '東京タワー']
    """
    _check(text)
    return [] if text.isascii() else list(_GLUED_RUN.finditer(text))


def segment_unspaced(text: str) -> str:
    """Split every run of :func:`glued_runs` into overlapping character bigrams.

    A run of one character stays as it is; everything else in ``text`` is left untouched, so text
    without CJK, kana, Thai or Hangul characters comes back identical.

    Examples
    --------
    >>> segment_unspaced("東京都に住む Ed Wood")
    ' 東京 京都 都に に住 住む  Ed Wood'
    >>> segment_unspaced("서울에서")  # "in Seoul": its bigram 서울 meets the 서울 of "서울은"
    ' 서울 울에 에서 '
    >>> segment_unspaced("Ed Wood directed Plan 9.")
    'Ed Wood directed Plan 9.'
    """
    _check(text)
    if text.isascii():
        return text

    def bigrams(m: re.Match) -> str:
        run = m.group()
        if len(run) == 1:
            return f" {run} "
        return " " + " ".join(run[i : i + 2] for i in range(len(run) - 1)) + " "

    return _GLUED_RUN.sub(bigrams, text)
