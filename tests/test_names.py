"""Names in text: the capitalised spans a writer marked, one literal case per rule, in several scripts."""

from __future__ import annotations

import pytest

from pathfinding.hipporag.language.names import STOP_WORDS, capitalised_spans, has_capitals


@pytest.mark.parametrize(
    ("question", "spans"),
    [
        ("Paris is where?", ["Paris"]),  # an opening word that is no stop word is an entity
        ("The Beatles played where?", ["Beatles"]),  # an opening stop word is skipped
        ("Who met The Beatles?", ["The Beatles"]),  # "The" inside the question stays
        ("They met In Paris?", ["Paris"]),  # another leading stop word is stripped
        ("They met In The Hague?", ["The Hague"]),  # ... up to "The"
        ("What did He say about Paris?", ["Paris"]),  # a lone stop word is dropped, later spans kept
        ("Who is the King of the island?", ["King"]),  # a span never ends with a connector
        ("Who shot Malcolm X?", ["Malcolm X"]),
        ("Is a song of the Beatles' from 1964.", ["Beatles", "1964"]),  # trailing ' and . go
        ("Is a film by Ed Wood?", ["Ed Wood"]),  # one-letter lower-case words are not entities
        # a possessive ends its name even before a full stop or a dash
        ("It was Nolan's. Inception grossed how much?", ["Nolan's", "Inception"]),
        ("Was the Jones'- Smith deal signed?", ["Jones", "Smith"]),
    ],
)
def test_capitalised_spans_rules(question, spans):
    assert capitalised_spans(question) == spans


def test_capitalised_spans_names_a_bad_question():
    with pytest.raises(TypeError, match="question must be a string, got int"):
        capitalised_spans(3)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Were Forbidden Ground and Black Hawk Down filmed in Morocco?",
            ["Forbidden Ground", "Black Hawk Down", "Morocco"],
        ),
        ("Who owned Procter & Gamble?", ["Procter", "Gamble"]),
        ("Is Paris, France older than Rome?", ["Paris", "France", "Rome"]),
        ("Who was Christopher Nolan's brother?", ["Christopher Nolan's"]),
        ("Was Christopher Nolan's Inception a hit?", ["Christopher Nolan's", "Inception"]),
        ("What did the Beatles' Abbey Road sell?", ["Beatles", "Abbey Road"]),
        ("Was Lev Tolstoy’s Anna Karenina long?", ["Lev Tolstoy’s", "Anna Karenina"]),
        ("When was Łódź founded?", ["Łódź"]),
        ("и Лев Толстой, и Фёдор Достоевский", ["Лев Толстой", "Фёдор Достоевский"]),
    ],
)
def test_capitalised_spans_split_names(text, expected):
    assert capitalised_spans(text) == expected


def test_capitalised_spans_literals():
    # "and" splits names (two films are more common in questions than a name with "and" in it)
    assert capitalised_spans("Who founded the Center for Science and Law?") == ["Center for Science", "Law"]
    assert capitalised_spans("In which year was Karl Deisseroth born?") == ["Karl Deisseroth"]
    assert capitalised_spans("what is this?") == []


def test_has_capitals_sees_upper_case_in_any_script_and_none_in_scripts_without_case():
    assert has_capitals("Who?") and has_capitals("Ωmega") and has_capitals("Łódź")
    assert not has_capitals("who directed plan 9?")
    assert not has_capitals("東京はどこ?") and not has_capitals("서울에서")


def test_stop_words_are_lower_case_english_and_hold_the_question_words():
    assert all(w == w.lower() for w in STOP_WORDS)
    assert {"who", "what", "when", "where", "which", "the", "of"} <= STOP_WORDS
    assert "paris" not in STOP_WORDS
