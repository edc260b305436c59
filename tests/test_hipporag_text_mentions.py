"""P as the paper defines it (phrase occurrences in the passage text) beside v1's triple counts."""

import numpy as np
import pytest

from pathfinding.core.specificity import node_specificity
from pathfinding.errors import InvalidValueError
from pathfinding.hipporag.index.build import build_index, text_mentions
from pathfinding.hipporag.index.maintenance import add_passages, delete_passages
from pathfinding.hipporag.index.persistence import load_index, save_index

TRIPLES = [
    [("Ed Wood", "directed", "Plan 9")],
    [("Plan 9", "filmed in", "Burbank")],
    [("Paris", "capital of", "France")],
]
PASSAGES = [
    "Ed Wood directed Plan 9. Ed Wood also wrote it.",
    "Plan 9 was filmed in Burbank, not in Paris.",
    "Paris is the capital of France. Red wood grows in France.",
]


def test_text_mentions_counts_whole_word_occurrences():
    P = text_mentions(["ed wood", "france", "plan 9", "wood"], PASSAGES).toarray()
    # "ed wood" twice in passage 0 and never inside "red wood"; "wood" is a word of both
    np.testing.assert_array_equal(P[0], [2, 0, 0])
    np.testing.assert_array_equal(P[1], [0, 0, 2])
    np.testing.assert_array_equal(P[2], [1, 1, 0])
    np.testing.assert_array_equal(P[3], [2, 0, 1])


def test_build_index_text_p_differs_from_triple_p_where_the_text_says_more():
    by_triples = build_index(TRIPLES, passages=PASSAGES)
    by_text = build_index(TRIPLES, passages=PASSAGES, mentions="text")
    assert by_triples.phrases == by_text.phrases  # same nodes and edges, only P differs
    assert (by_triples.relation_graph != by_text.relation_graph).nnz == 0
    paris = by_text.phrase_ids["paris"]
    # Paris is named in passage 1's text, though no triple of passage 1 mentions it
    assert by_triples.mentions[paris, 1] == 0 and by_text.mentions[paris, 1] == 1
    assert by_text.mentions[by_text.phrase_ids["ed wood"], 0] == 2
    np.testing.assert_array_equal(by_text.specificity, node_specificity(by_text.mentions))
    assert by_text.specificity[paris] == 0.5 and by_triples.specificity[paris] == 1.0
    assert "mentions" not in by_triples.settings and by_text.settings["mentions"] == "text"


def test_text_p_survives_save_and_load(tmp_path):
    idx = build_index(TRIPLES, passages=PASSAGES, mentions="text")
    save_index(idx, tmp_path / "i.hippo")
    back = load_index(tmp_path / "i.hippo")
    assert (back.mentions != idx.mentions).nnz == 0
    np.testing.assert_array_equal(back.specificity, idx.specificity)


def test_bad_mentions_and_missing_passages_are_named():
    with pytest.raises(InvalidValueError, match="mentions must be 'triples' or 'text', got 'words'"):
        build_index(TRIPLES, passages=PASSAGES, mentions="words")
    with pytest.raises(InvalidValueError, match="pass passages="):
        build_index(TRIPLES, mentions="text")


def test_text_p_index_refuses_in_place_updates():
    idx = build_index(TRIPLES, passages=PASSAGES, mentions="text")
    with pytest.raises(InvalidValueError, match="mentions='text'"):
        delete_passages(idx, [0])
    with pytest.raises(InvalidValueError, match="rebuild it"):
        add_passages(idx, [[("A b c", "is", "D e f")]], ["A b c is D e f."])
