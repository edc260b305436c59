"""Index maintenance: delete's default, what a bad id or text is called, repeated triples, the rule.

A mutation run over ``index/maintenance.py`` left alive a ``delete_passages`` whose default refits
the encoder, type and value errors that name the wrong id, type or nothing, a repeated triple
counted twice when it touches node 0, and added phrases normalised by the default rule instead of
the index's. Expected values are written by hand.
"""

import pytest

from pathfinding.errors import InvalidTypeError, InvalidValueError
from pathfinding.hipporag.index.build import build_index
from pathfinding.hipporag.index.maintenance import add_passages, delete_passages, renumber_after_delete

TRIPLES = [[("Ed Wood", "directed", "Plan 9")], [("Plan 9", "filmed in", "Burbank")]]


def test_delete_keeps_the_encoder_unless_asked_to_refit():
    """``refit`` defaults to False, as in add_passages: the new index uses the same encoder object."""
    idx = build_index(TRIPLES)
    smaller = delete_passages(idx, [0])
    assert smaller.encoder is idx.encoder and smaller.settings["fit_encoder"] is False
    assert smaller.phrases == ["burbank", "plan 9"]
    assert delete_passages(idx, [0], refit=True).encoder is not idx.encoder


def test_a_passage_id_of_the_wrong_type_is_named_with_its_type():
    """The error shows the bad id and its own type (here a string inside the list)."""
    with pytest.raises(InvalidTypeError, match=r"^passage ids must be integers, got 'a' \(str\)$"):
        renumber_after_delete(3, ["a"])


def test_a_repeated_passage_id_is_the_one_named():
    """Of ids 3, 1, 3 the repeated one is 3; the smaller id 1, given once, is not blamed."""
    with pytest.raises(InvalidValueError, match=r"^passage id 3 is given more than once$"):
        renumber_after_delete(5, [3, 1, 3])


def test_adding_a_triple_the_index_has_counts_it_once():
    """Two passages with the same triple hold one unique triple, also when its subject or its object
    is the first phrase of the index (node 0): "alice" sorts before "bob"."""
    for triple in [("Alice", "knows", "Bob"), ("Bob", "knows", "Alice")]:
        idx = build_index([[triple]])
        assert idx.phrases[0] == "alice" and idx.stats.n_unique_triples == 1
        grown = add_passages(idx, [[triple]])
        assert grown.n_passages == 2 and grown.stats.n_unique_triples == 1


def test_added_phrases_are_normalised_by_the_index_rule():
    """An index built with v1's ASCII rule keeps it for added passages: "Thomas Südhof" becomes
    "thomas s dhof" there (the ü is a space), and "thomas südhof" in a default (Unicode) index."""
    added = [[("Thomas Südhof", "won", "Nobel Prize")]]
    v1 = add_passages(build_index(TRIPLES, normalization="ascii"), added)
    assert "thomas s dhof" in v1.phrases and v1.settings["normalization"] == "ascii"
    assert "thomas südhof" in add_passages(build_index(TRIPLES), added).phrases


NEW = [[("Plan 9", "filmed in", "Burbank")]]


@pytest.mark.parametrize(
    ("texts", "passages", "error", "pattern"),
    [
        (
            ["Ed Wood directed Plan 9.", "Plan 9 was filmed in Burbank."],
            "one text",
            InvalidTypeError,
            r"^passages must be a sequence of strings, got a string$",
        ),
        (
            None,
            ["a text"],
            InvalidValueError,
            r"^this index keeps no passage texts \(built without passages=\): pass none$",
        ),
        (
            ["Ed Wood directed Plan 9.", "Plan 9 was filmed in Burbank."],
            [3],
            InvalidTypeError,
            r"^passages\[0\] must be a string, got int$",
        ),
    ],
)
def test_new_passage_texts_are_checked_by_name(texts, passages, error, pattern):
    """Each wrong ``passages`` argument of add_passages gets a message that names it and says why."""
    idx = build_index(TRIPLES, passages=texts)
    with pytest.raises(error, match=pattern):
        add_passages(idx, NEW, passages)
