"""The readable retriever (``retrieval.chapter``) against the fast one where their settings coincide:
the same rankings on the synthetic generator and on the MuSiQue tuning set, and the chapter's own
numbers on a toy it can be checked against by hand."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathfinding.core.ppr import personalized_pagerank
from pathfinding.hipporag.index.build import build_index
from pathfinding.hipporag.language.names import capitalised_spans
from pathfinding.hipporag.retrieval.chapter import chapter_link, chapter_retrieve
from pathfinding.hipporag.retrieval.retrieve import HippoRetriever
from pathfinding.synthetic.instances import make_instance

# v1's walk with the entities given: what the chapter describes, and nothing the fast one adds
SAME = {"extractor": None, "facts": 0, "passage_weight": 0.0, "guess_weight": 1.0, "casing": False}


def _fast(index, entities, k, **kw):
    ret = HippoRetriever(index, **SAME, min_link_cosine=kw.pop("min_link_cosine", 0.0), tol=1e-13, **kw)
    hit = ret.retrieve("", entities=entities, k=k)
    return hit.passages, hit.scores


def _same_ranking(fast, index, entities, **kw):
    """At every rank the fast retriever's passage has the reference's score for that rank: the same
    ranking, but for passages whose scores tie (to 1e-12 of the top score), which two summation
    orders may round into either order."""
    ids, scores = fast
    ref_ids, ref_scores = chapter_retrieve(index, entities, k=index.n_passages, **kw)
    by_id = np.empty(index.n_passages)
    by_id[ref_ids] = ref_scores
    tie = 1e-12 * max(ref_scores[0], 1e-300)
    np.testing.assert_allclose(by_id[ids], ref_scores[: ids.size], rtol=0, atol=tie)
    np.testing.assert_allclose(scores, by_id[ids], rtol=1e-9, atol=tie)
    return np.array_equal(ids, ref_ids[: ids.size])


def test_the_two_stars_by_hand():
    """u and w each link the answer a and a dead end: a's passages collect the meet node's double mass."""
    facts = [[("U", "r", "A")], [("W", "r", "A")], [("U", "r", "B")], [("W", "r", "C")]]
    index = build_index(facts, passages=["U A", "W A", "U B", "W C"])
    ids, scores = chapter_retrieve(index, ["U", "W"], k=4, specificity=False)
    pi = personalized_pagerank(index.graph(), [index.phrase_ids[p] for p in ("u", "w")])
    assert ids.tolist() == [0, 1, 2, 3]  # the passages with the answer first, ties by id
    np.testing.assert_allclose(scores, index.mentions.T @ pi, rtol=1e-9)
    assert chapter_link(index, ["u", "Q"]) == [index.phrase_ids["u"]]  # an exact phrase; Q shares nothing


@settings(max_examples=30)
@given(hops=st.integers(1, 3), seed=st.integers(0, 10_000), specificity=st.booleans())
def test_the_synthetic_generator_ranks_alike(hops, seed, specificity):
    inst = make_instance(hops, rng=seed)
    triples = [[(inst.node_names[a], "r", inst.node_names[b])] for a, b in inst.facts]
    index = build_index(triples, passages=inst.passages)
    entities = [inst.node_names[s] for s in inst.seeds]
    _same_ranking(_fast(index, entities, index.n_passages, specificity=specificity), index, entities,
                  specificity=specificity)  # fmt: skip


@pytest.fixture(scope="module")
def musique():
    from pathfinding.experiments.realtext import load_realtext, musique_index

    return musique_index(), [q.question for q in load_realtext()["questions"]]


@pytest.mark.parametrize("kw", [{}, {"specificity": False}, {"synonymy": False}, {"min_link_cosine": 0.55}])
def test_the_musique_tuning_set_ranks_alike(musique, kw):
    """Every one of the 100 questions, its capitalised spans as entities: the same top 10, identical
    (not only up to ties) for all but a few."""
    index, questions = musique
    identical = linked = 0
    for q in questions:
        ents = capitalised_spans(q)
        if not chapter_link(index, ents, min_cosine=kw.get("min_link_cosine", 0.0)):
            continue  # no entity links: the fast retriever falls back to BM25, the chapter has no walk
        linked += 1
        identical += _same_ranking(_fast(index, ents, 10, **dict(kw)), index, ents, **kw)
    assert linked >= 90 and identical >= linked - 2
