"""Text rules shared by the index, the query side and BM25: phrase normalisation and unspaced scripts.

Two normalisation rules make a phrase into a node key:

* ``"unicode"`` (the default): NFC, Unicode case folding, and every character that is not a letter,
  a combining mark or a digit of *any* script becomes a space. Accents are kept, so "Thomas Südhof"
  stays "thomas südhof", "Jürgen Müller" and "Jörgen Möller" stay two nodes and "Łódź" is "łódź";
  Cyrillic, Greek, Arabic or CJK phrases keep their letters.
* ``"ascii"``: HippoRAG v1's rule (``re.sub('[^A-Za-z0-9 ]', ' ', s.lower()).strip()`` in the
  release), which deletes every letter outside ASCII. It is kept so that an index of the released
  triples reproduces v1's node set exactly.

On ASCII text the two rules give the same string, so they differ only where v1 deleted letters.

Scripts written without spaces (Chinese, Japanese, Thai ...) have no word boundaries for a word
tokenizer to find: :func:`segment_unspaced` splits each run of such characters into overlapping
character bigrams, the usual lexical unit of CJK retrieval, so BM25 can match a Japanese question
to a Japanese passage. Text without such characters is returned unchanged.
"""

from __future__ import annotations

import re
import unicodedata

from pathfinding.errors import InvalidTypeError, InvalidValueError

__all__ = [
    "LEGACY_NORMALIZATION",
    "NORMALIZATIONS",
    "index_normalization",
    "is_unspaced_char",
    "normalize_phrase",
    "segment_unspaced",
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

_NON_ALNUM_ASCII = re.compile("[^A-Za-z0-9 ]")

# Scripts written without spaces between words: CJK ideographs (with extension A and the
# compatibility block), kana, Thai, Lao, Khmer and Myanmar.
_UNSPACED = (
    "\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
    "\u0e00-\u0e7f\u0e80-\u0eff\u1780-\u17ff\u1000-\u109f"
)
_UNSPACED_RUN = re.compile(f"[{_UNSPACED}]+")
_UNSPACED_CHAR = re.compile(f"[{_UNSPACED}]")


def _keep(ch: str) -> bool:
    # letters (L*), combining marks (M*: the vowel signs of Devanagari or Thai are marks) and digits
    return unicodedata.category(ch)[0] in "LMN"


def normalize_phrase(text: str, *, rule: str = "unicode") -> str:
    """The node key of a phrase: case-folded, punctuation to spaces, stripped.

    Parameters
    ----------
    text : str
    rule : {"unicode", "ascii"}, default "unicode"
        ``"unicode"`` keeps the letters and digits of every script (accents kept, NFC); ``"ascii"``
        is HippoRAG v1's rule, which turns every character outside ``[A-Za-z0-9 ]`` into a space.

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
    >>> normalize_phrase("Москва́ — столица"), normalize_phrase("東京都")
    ('москва́  столица', '東京都')
    """
    if not isinstance(text, str):
        raise InvalidTypeError(f"text must be a string, got {type(text).__name__}")
    if rule == "ascii" or (rule == "unicode" and text.isascii()):
        # On ASCII text both rules are this one (casefold is lower there).
        return _NON_ALNUM_ASCII.sub(" ", text.lower()).strip()
    if rule != "unicode":
        raise InvalidValueError(f"rule must be one of {NORMALIZATIONS}, got {rule!r}")
    folded = unicodedata.normalize("NFC", unicodedata.normalize("NFC", text).casefold())
    return "".join(ch if _keep(ch) else " " for ch in folded).strip()


def is_unspaced_char(ch: str) -> bool:
    """Whether a character belongs to a script written without spaces (CJK, kana, Thai ...).

    Examples
    --------
    >>> is_unspaced_char("東"), is_unspaced_char("a"), is_unspaced_char("é")
    (True, False, False)
    """
    return bool(_UNSPACED_CHAR.fullmatch(ch))


def segment_unspaced(text: str) -> str:
    """Split every run of unspaced-script characters into overlapping character bigrams.

    A run of one character stays as it is; everything else in ``text`` is left untouched, so text
    without CJK, kana or Thai characters comes back identical.

    Examples
    --------
    >>> segment_unspaced("東京都に住む Ed Wood")
    ' 東京 京都 都に に住 住む  Ed Wood'
    >>> segment_unspaced("Ed Wood directed Plan 9.")
    'Ed Wood directed Plan 9.'
    """
    if not isinstance(text, str):
        raise InvalidTypeError(f"text must be a string, got {type(text).__name__}")
    if text.isascii():
        return text

    def bigrams(m: re.Match) -> str:
        run = m.group()
        if len(run) == 1:
            return f" {run} "
        return " " + " ".join(run[i : i + 2] for i in range(len(run) - 1)) + " "

    return _UNSPACED_RUN.sub(bigrams, text)
