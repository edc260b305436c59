"""The named toy graphs and the course's tiny corpus (pathfinding.synthetic.toy): their fixed node
ids, degrees and passages, and the corpus's one property that matters."""

import numpy as np
import pytest

from pathfinding.errors import InvalidTypeError, InvalidValueError
from pathfinding.synthetic.toy import meet_node_toy, passage_count_matrix, star_pair, tiny_corpus


@pytest.mark.parametrize("degree", [1, 2, 3, 9])
def test_two_stars_that_share_the_answer(degree):
    toy = star_pair(degree)
    private = degree - 1
    assert toy.n_nodes == 3 + 2 * private and toy.n_passages == 2 * degree
    assert toy.seeds.tolist() == [0, 1] and toy.answer == 2 and toy.hops == 1
    assert toy.candidates.tolist() == list(range(2, 3 + 2 * private))  # the answer, then every dead end
    deg = np.asarray(toy.graph.sum(axis=1)).ravel()
    assert deg[:3].tolist() == [degree, degree, 2] and np.all(deg[3:] == 1)
    assert (toy.graph != toy.graph.T).nnz == 0 and toy.graph.diagonal().sum() == 0
    # u's dead ends d1.. hang off u, w's e1.. off w
    assert all(toy.graph[0, 3 + k] == 1 and toy.graph[1, 3 + private + k] == 1 for k in range(private))
    assert toy.node_names[3 : 3 + private] == [f"d{k}" for k in range(1, degree)]
    assert toy.node_names[3 + private :] == [f"e{k}" for k in range(1, degree)]
    assert toy.passages[:2] == ["u is linked to a.", "w is linked to a."]


def test_every_passage_states_its_own_fact():
    toy = star_pair(4)
    for text, (s, t), j in zip(toy.passages, toy.facts.tolist(), range(toy.n_passages), strict=True):
        assert text == f"{toy.node_names[s]} is linked to {toy.node_names[t]}."
        assert toy.mentions[:, [j]].nonzero()[0].tolist() == sorted([s, t])  # it mentions its two nodes


@pytest.mark.parametrize(
    ("degree", "error"),
    [
        (0, InvalidValueError),
        (10**7 + 1, InvalidValueError),
        (True, InvalidTypeError),
        (2.0, InvalidTypeError),
    ],
)
def test_a_bad_degree_is_named(degree, error):
    with pytest.raises(error, match="degree"):
        star_pair(degree)


def test_the_meet_node_toy_is_the_smallest_star_pair_renamed():
    toy, star = meet_node_toy(), star_pair(2)
    assert toy.node_names == ["u", "w", "a", "b", "c"]
    assert (toy.graph != star.graph).nnz == 0 and np.array_equal(toy.facts, star.facts)
    assert toy.seeds.tolist() == [0, 1] and toy.answer == 2 and toy.candidates.tolist() == [2, 3, 4]
    assert toy.passages == [
        "u is linked to a.",
        "w is linked to a.",
        "u is linked to b.",
        "w is linked to c.",
    ]


def test_a_passage_count_matrix_gives_each_node_its_own_passages():
    P = passage_count_matrix((3, 0, 2))
    assert P.shape == (3, 5) and P.dtype == np.float64
    np.testing.assert_array_equal(P.toarray(), [[1, 1, 1, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 1, 1]])
    assert passage_count_matrix().shape == (2, 25)  # the chapter's 20 and 5
    assert passage_count_matrix(()).shape == (0, 0)
    with pytest.raises(InvalidValueError, match=r"counts\[1\]"):
        passage_count_matrix((2, -1))


def test_the_tiny_corpus_has_the_papers_shape():
    """No passage names both query entities; each gold passage names one of them; every triple's
    subject and object appear in its passage."""
    c = tiny_corpus()
    assert len(c.passages) == len(c.triples) == 7 and c.gold == [0, 1]
    assert "Halvorsen Institute" in c.question and "coral bleaching" in c.question
    for text in c.passages:
        assert not ("Halvorsen Institute" in text and "coral bleaching" in text)
    assert "Halvorsen Institute" in c.passages[0] and "coral bleaching" in c.passages[1]
    for text, triples in zip(c.passages, c.triples, strict=True):
        for s, _, o in triples:
            assert s.lower() in text.lower() and o.lower() in text.lower()
    assert (
        c.triples[0][0][0] == "Dr. Mirela Okonkwo" and c.triples[1][0][0] == "Mirela Okonkwo"
    )  # two phrases
