"""Query entities: the rules of the offline extractors and of linking, one literal case per rule.

The sample-file tests exercise :func:`capitalised_spans` and :func:`node_ngrams` on a few real
questions; a mutation run left most of their rules untested (a trailing connector kept, "The"
stripped, a lone stop word kept, a shorter phrase reused inside a matched one, the three-letter
floor) and the dense-encoder branch of :func:`link_entities` never ran. Each case below names the
rule it pins; the dense linking is checked against cosines computed here, and the exact linking on
MuSiQue against a full scan.
"""


from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from pathfinding.errors import InvalidValueError
from pathfinding.hipporag.index.build import build_index
from pathfinding.hipporag.io import load_query_ner
from pathfinding.hipporag.language.names import capitalised_spans
from pathfinding.hipporag.language.text import normalize_phrase
from pathfinding.hipporag.retrieval.linking import EXTRACTORS, link_entities, ner_lookup, node_ngrams
from pathfinding.hipporag.storage.datasets import fetch


@pytest.fixture(scope="module")
def ngram_index():
    return build_index(
        [
            [("New York", "in", "United States"), ("York City", "is", "a misreading")],
            [("Burbank", "in", "California"), ("Ed", "is", "a name"), ("USA", "has", "Burbank")],
            [("where", "is", "a question word")],
            [("one two three four five six seven eight nine", "is", "long")],
        ]
    )


@pytest.mark.parametrize(
    ("question", "found"),
    [
        ("Who lives in New York City?", ["new york"]),  # longest first, then left to right; claimed words
        ("Who lives in Los New York", ["new york"]),  # a node phrase ending the question
        ("Where is Burbank?", ["burbank"]),  # a one-word phrase; a stop-word node ("where") is skipped
        ("Ed visited Burbank", ["burbank"]),  # fewer than three letters ("ed") is skipped, not a stop
        ("Is Burbank in the USA?", ["burbank", "usa"]),  # three letters are enough
        ("one two three four five six seven eight nine", []),  # nine words: longer than max_words=8
    ],
)
def test_node_ngrams_rules(ngram_index, question, found):
    assert node_ngrams(question, ngram_index) == found


def test_node_ngrams_max_words(ngram_index):
    nine = "one two three four five six seven eight nine"
    assert node_ngrams(nine, ngram_index, max_words=9) == [nine]
    assert node_ngrams("Where is Burbank?", ngram_index, max_words=1) == ["burbank"]
    with pytest.raises(ValueError, match="max_words must be in"):
        node_ngrams(nine, ngram_index, max_words=0)


def test_ner_lookup_names_a_missing_question():
    """A question the table lacks is the caller's bad value (one line from the CLI), not a KeyError."""
    with pytest.raises(InvalidValueError, match="no query-NER row for question 'Who'") as info:
        ner_lookup([])("Who")
    assert not isinstance(info.value, KeyError)
    long = "Who " + "x" * 100
    with pytest.raises(InvalidValueError, match=r"^no query-NER row for question 'Who x{76}'$"):
        ner_lookup([])(long)


_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"


def _letters(texts):
    """A dense encoder: letter counts, unit length (zero for a text without letters or digits)."""
    X = np.array([[t.count(c) for c in _ALPHABET] for t in texts], dtype=np.float64)
    norms = np.linalg.norm(X, axis=1, keepdims=True)
    return np.divide(X, norms, out=np.zeros_like(X), where=norms > 0)


@pytest.fixture(scope="module")
def dense_index():
    return build_index(
        [[("Ed Wood", "directed", "Plan 9")], [("Burbank", "in", "California")], [("zzz", "r", "qqq")]],
        encoder=_letters,
        synonymy=False,
    )


@pytest.mark.parametrize("top_k", [1, 2, 3])
def test_dense_linking_takes_the_top_k_positive_cosines(dense_index, top_k):
    entities = ["Edd Woods", "Burbnk", "xxxx"]  # no exact match: every entity goes through the encoder
    cos = _letters([normalize_phrase(e) for e in entities]) @ _letters(dense_index.phrases).T
    link = link_entities(dense_index, entities, top_k=top_k)
    nodes, scores = [], []
    for row in cos[:2]:
        cand = np.flatnonzero(row > 0)
        best = cand[np.lexsort((cand, -row[cand]))][:top_k]
        nodes += best.tolist()
        scores += row[best].tolist()
    assert not cos[2].any()  # "xxxx" shares no letter with any node: unlinked
    assert link.entities == ("Edd Woods", "Burbnk") and link.unlinked == ("xxxx",)
    np.testing.assert_array_equal(link.nodes, nodes)
    np.testing.assert_allclose(link.scores, scores, rtol=1e-12)
    assert dense_index.phrases[link.nodes[0]] == "ed wood" and link.scores[0] < 1


@pytest.mark.parametrize("top_k", [1, 3])
def test_the_floor_keeps_only_links_that_reach_it(dense_index, top_k):
    """Every link below ``min_cosine`` goes; an entity left with none is weak (not in the index),
    reported with its nearest node and cosine, while an entity with no positive cosine stays
    unlinked. The floor sits between two cosines computed here, so moving it moves the answer."""
    entities = ["Edd Woods", "Burbnk", "xxxx"]
    cos = _letters([normalize_phrase(e) for e in entities]) @ _letters(dense_index.phrases).T
    best = cos.max(axis=1)
    floor = (best[0] + best[1]) / 2  # between the two entities' best cosines
    link = link_entities(dense_index, entities, top_k=top_k, min_cosine=floor)
    strong, weak = (0, 1) if best[0] > best[1] else (1, 0)
    assert link.entities == (entities[strong],) and link.weak == (entities[weak],)
    assert link.unlinked == ("xxxx",) and np.all(link.scores >= floor)
    assert len(link.nodes) == min(top_k, int((cos[strong] >= floor).sum()))
    by_entity = {lk.entity: lk for lk in link.links}
    assert [lk.entity for lk in link.links] == entities
    weak_link = by_entity[entities[weak]]
    assert weak_link.cosine == pytest.approx(best[weak]) and not weak_link.kept
    assert by_entity["xxxx"].node == -1 and by_entity["xxxx"].cosine == 0.0
    assert link_entities(dense_index, ["Ed Wood"], min_cosine=1.0).entities == ("Ed Wood",)  # exact: 1.0


def test_no_default_floor_for_an_encoder_it_was_not_chosen_for(dense_index):
    from pathfinding.hipporag.retrieval.linking import MIN_LINK_COSINE, default_min_link_cosine

    assert default_min_link_cosine(dense_index) == 0.0
    assert default_min_link_cosine(build_index([[("Ed Wood", "directed", "Plan 9")]])) == MIN_LINK_COSINE


def test_linking_names_bad_arguments(dense_index):
    with pytest.raises(ValueError, match="top_k must be in"):
        link_entities(dense_index, ["Ed Wood"], top_k=0)
    with pytest.raises(ValueError, match="min_cosine must be in"):
        link_entities(dense_index, ["Ed Wood"], min_cosine=-0.1)
    with pytest.raises(TypeError, match=r"entities must be strings, got 3 \(int\)"):
        link_entities(dense_index, ["Ed Wood", 3])


def test_linking_names_the_encoder_when_it_breaks_its_contract():
    broken = {"on": False}

    def encoder(texts):
        X = _letters(texts)
        return 2 * X if broken["on"] else X

    idx = build_index([[("Ed Wood", "directed", "Plan 9")]], encoder=encoder, synonymy=False)
    broken["on"] = True
    with pytest.raises(ValueError, match="^encoder"):
        link_entities(idx, ["Edd Woods"])


def test_sample_extractors(sample):
    _, idx, questions = sample
    q = questions[0].question
    assert q == "Which Stanford University professor works on Alzheimer's?"
    assert capitalised_spans(q) == ["Stanford University", "Alzheimer's"]
    assert node_ngrams(q, idx) == ["stanford university"]


def test_link_entities_nearest_node(sample):
    _, idx, _ = sample
    link = link_entities(idx, ["Stanford Univ.", "Eagleman", "!!!"])
    assert [idx.phrases[n] for n in link.nodes] == ["stanford university", "david eagleman"]
    assert link.unlinked == ("!!!",) and np.all((link.scores > 0) & (link.scores <= 1))
    two = link_entities(idx, ["Stanford"], top_k=2)
    assert two.nodes.size == 2 and two.scores[0] >= two.scores[1]
    with pytest.raises(TypeError, match="got the string"):
        link_entities(idx, "Stanford")


def test_ner_lookup_from_tsv():
    rows, _ = load_query_ner(fetch("hotpotqa_query_ner"))
    extract = ner_lookup(rows)
    assert extract(rows[0].query) == ["Scott Derrickson", "Ed Wood"]
    with pytest.raises(InvalidValueError, match="no query-NER row"):
        extract("unknown")


@pytest.fixture(scope="module")
def musique_index():
    from pathfinding.experiments.realtext import musique_index as build

    return build(0.8)


@pytest.fixture(scope="module")
def musique_questions():
    from pathfinding.experiments.realtext import load_realtext

    return load_realtext()["questions"]


def _scan_links(index, entities, top_k):
    """Today's exact scan (before the scalable lookup): every node against every entity."""
    E = sp.csr_array(index.node_embeddings)
    out = {}
    for e in dict.fromkeys(entities):
        norm = index.normalize(e)
        if not norm:
            continue
        if norm in index.phrase_ids and top_k == 1:
            out[e] = ([index.phrase_ids[norm]], [1.0])
            continue
        v = (index.encoder([norm]) @ E.T).toarray().ravel()
        cand = np.flatnonzero(v > 0)
        if cand.size:
            o = np.lexsort((cand, -v[cand]))[:top_k]
            out[e] = (cand[o].tolist(), v[cand][o].tolist())
    return out


@pytest.mark.parametrize("top_k", [1, 3])
def test_linking_equals_full_scan_on_musique(musique_index, musique_questions, top_k):
    idx = musique_index
    entities = []
    for q in musique_questions[: 100 if top_k == 1 else 30]:
        entities += EXTRACTORS["union"](q.question, idx)
        # Misspelt and truncated forms exercise the encoder path, not only exact phrase hits.
        entities += [e[:-1] + "x" for e in EXTRACTORS["capitalised"](q.question, idx) if len(e) > 4]
    want = _scan_links(idx, entities, top_k)
    got = link_entities(idx, entities, top_k=top_k)
    assert len(got.entities) == len(want) > (200 if top_k == 1 else 60)
    at = 0
    for e in got.entities:
        nodes, scores = want[e]
        assert got.nodes[at : at + len(nodes)].tolist() == nodes, e
        # Same sum order; scipy's compiled product may fuse a multiply-add (one ulp).
        np.testing.assert_allclose(got.scores[at : at + len(nodes)], scores, rtol=0, atol=1e-14)
        at += len(nodes)


def test_a_floor_of_one_keeps_exact_matches_at_any_top_k():
    """With top_k > 1 an exact phrase goes through the encoder, whose cosine with itself can round
    below 1: a floor of 1.0 must still keep it."""
    from pathfinding.hipporag.index.build import build_index

    idx = build_index([[("Ed Wood", "directed", "Plan 9")], [("Paris", "capital of", "France")]])
    for top_k in (1, 2):
        link = link_entities(idx, ["Ed Wood"], top_k=top_k, min_cosine=1.0)
        assert link.links[0].kept and idx.phrases[int(link.nodes[0])] == "ed wood", top_k
