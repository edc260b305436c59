"""The text rules of ``hipporag/text.py``: what their errors say, and single characters of an
unspaced script.

A mutation run over ``text.py`` left alive error messages that name nothing (both functions
refuse a non-string, and no test read the message) and a one-character run of an unspaced script
handled like a longer run, which drops the character. Expected strings are written by hand.
"""

import pytest

from pathfinding.errors import InvalidTypeError
from pathfinding.hipporag.text import normalize_phrase, segment_unspaced


@pytest.mark.parametrize("call", [normalize_phrase, segment_unspaced])
def test_a_non_string_is_refused_by_name_and_type(call):
    """Both rules name the argument and the type they got, as every check in the package does."""
    with pytest.raises(InvalidTypeError, match=r"^text must be a string, got int$"):
        call(3)
    with pytest.raises(InvalidTypeError, match=r"^text must be a string, got NoneType$"):
        call(None)


def test_a_single_unspaced_character_stays_whole_between_spaced_words():
    """A run of one CJK character has no bigram: it is kept as a token of its own, padded by
    spaces, while a run of two is one bigram and a run of three two overlapping bigrams."""
    assert segment_unspaced("Ed 東 Wood") == "Ed  東  Wood"
    assert segment_unspaced("x東y") == "x 東 y"
    assert segment_unspaced("x東京y") == "x 東京 y"
    assert segment_unspaced("x東京都y") == "x 東京 京都 y"
