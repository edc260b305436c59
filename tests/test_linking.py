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
from pathfinding.hipporag.retrieval.linking import (
    EXTRACTORS,
    default_entities,
    link_entities,
    ner_lookup,
    node_ngrams,
    node_substrings,
)
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


def test_node_substrings_find_a_name_with_its_particle_glued_on():
    triples = [[("서울", "r", "대한민국")], [("東京", "r", "東京タワー")], [("Ed Wood", "r", "Plan 9")]]
    idx = build_index(triples)
    assert node_substrings("서울에서 흐르는 강은?", idx) == ["서울"]  # "in Seoul"
    assert node_substrings("東京タワーはどこ?", idx) == ["東京タワー"]  # the longest claims its characters
    assert node_substrings("東京タワーはどこ?", idx, max_chars=2) == ["東京"]
    assert node_substrings("where did ed wood film?", idx) == []  # spaced scripts: node_ngrams' job
    assert default_entities("서울에서 흐르는 강은?", idx) == ["서울"]
    with pytest.raises(InvalidValueError, match="max_chars"):
        node_substrings("서울", idx, min_chars=3, max_chars=2)


def test_a_lower_case_question_guesses_node_phrases_of_two_words_or_more():
    idx = build_index([[("Los Angeles Lakers", "play in", "Los Angeles")], [("Lakers", "won", "title")]])
    assert default_entities("where do the los angeles lakers play?", idx) == ["los angeles lakers"]
    assert default_entities("where is los angeles?", idx) == ["los angeles"]
    assert default_entities("who are the lakers?", idx) == []  # one word: mostly a common noun


def test_node_substrings_try_longer_spans_first_and_single_characters_when_asked():
    """In "東京タワー" the three characters 京タワ claim their place before the two of ワー that overlap
    them; with min_chars=1 the single character 東 is tried too."""
    idx = build_index([[("京タワ", "r", "ワー")], [("東", "r", "京タワ")]])
    assert node_substrings("東京タワー", idx) == ["京タワ"]
    assert node_substrings("東京タワー", idx, min_chars=1) == ["東", "京タワ"]


# A test corpus of one's own: short passages, a question each, the particles glued to the names.
KOREAN = [
    ("서울", "서울은 대한민국의 수도이다. 한강이 서울을 가로질러 흐른다."),
    ("세종대왕", "세종대왕은 조선의 네 번째 왕이다. 세종대왕이 한글을 만들었다."),
    ("한글", "한글은 한국어를 적는 문자이다. 한글은 1443년에 창제되었다."),
    ("부산", "부산은 대한민국 남동쪽의 항구 도시이다. 해운대 해수욕장이 부산에 있다."),
    ("이순신", "이순신은 조선의 장군이다. 이순신이 거북선을 이끌고 왜군과 싸웠다."),
    ("경복궁", "경복궁은 서울에 있는 조선의 궁궐이다. 세종대왕이 경복궁에서 살았다."),
    ("제주도", "제주도는 대한민국에서 가장 큰 섬이다. 한라산이 제주도에 있다."),
    ("김치", "김치는 배추와 고춧가루로 만드는 한국 음식이다."),
]
JAPANESE = [
    ("東京", "東京は日本の首都です。隅田川が東京を流れています。"),
    ("富士山", "富士山は日本で一番高い山です。富士山は静岡県と山梨県にあります。"),
    ("大阪城", "大阪城は豊臣秀吉が築いた城です。大阪城は大阪市にあります。"),
    ("京都", "京都は日本の古い都です。金閣寺は京都にあります。"),
    ("夏目漱石", "夏目漱石は日本の小説家です。夏目漱石が「吾輩は猫である」を書きました。"),
    ("北海道", "北海道は日本の最も北にある島です。札幌は北海道の中心都市です。"),
    ("寿司", "寿司は酢飯と魚で作る日本の料理です。"),
    ("広島", "広島は中国地方の都市です。厳島神社は広島県にあります。"),
]


@pytest.mark.parametrize(
    "corpus, question, passage, entities",
    [
        (KOREAN, "한라산은 어디에 있나요?", 6, ["한라산"]),  # where is Hallasan (topic particle)
        (KOREAN, "거북선을 이끈 장군은?", 4, ["거북선", "장군"]),  # object particle
        (KOREAN, "해운대는 어느 도시에 있나요?", 3, ["해운대", "도시"]),
        (KOREAN, "경복궁에서 살았던 왕은?", 5, ["경복궁"]),  # "in Gyeongbokgung"
        (JAPANESE, "金閣寺はどこにありますか?", 3, ["金閣寺"]),
        (JAPANESE, "豊臣秀吉が築いた城は?", 2, ["豊臣秀吉"]),
        (JAPANESE, "札幌はどの島にありますか?", 5, ["札幌"]),
        (JAPANESE, "厳島神社はどこにありますか?", 7, ["厳島神社"]),
    ],
)
def test_a_korean_or_japanese_question_with_particles_ranks_its_passage_first(
    corpus, question, passage, entities
):
    """The no-model index of a small corpus: the names are nodes without their particles (Korean)
    or between hiragana (Japanese), the question's names are found inside its words, and the
    passage that names them ranks first (before: a Korean question found no seed, and half found
    no passage at all, BM25 included)."""
    from pathfinding.hipporag.extract.cooccurrence import cooccurrence_docs
    from pathfinding.hipporag.index.build import index_from_openie
    from pathfinding.hipporag.io import Passage
    from pathfinding.hipporag.retrieval.retrieve import HippoRetriever

    idx = index_from_openie(cooccurrence_docs([Passage(t, x) for t, x in corpus]))
    hit = HippoRetriever(idx).retrieve(question, k=3)
    assert list(hit.entities) == entities and not hit.fell_back
    assert hit.passages[0] == passage
