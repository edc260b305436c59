"""Every script: phrase normalisation, entity spans, the no-model extractor without capitals, BM25
without spaces, and the retriever's fusion with BM25 when the graph has little to say."""

import gzip
import hashlib
import re
from importlib import resources

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pathfinding.experiments.heldout import HELDOUT_FILES, load_heldout
from pathfinding.hipporag.extract.cooccurrence import (
    content_spans,
    cooccurrence_docs,
    cooccurrence_triples,
    named_spans,
    why_no_triples,
)
from pathfinding.hipporag.index.build import build_index, index_from_openie
from pathfinding.hipporag.index.maintenance import add_passages
from pathfinding.hipporag.io import Passage
from pathfinding.hipporag.lexical import BM25Ranker, top_k
from pathfinding.hipporag.query import capitalised_spans, default_entities
from pathfinding.hipporag.retrieve import HippoRetriever
from pathfinding.hipporag.text import index_normalization, normalize_phrase, segment_unspaced


def _v1(s: str) -> str:
    """HippoRAG v1's rule as written in its release (src/processing.py)."""
    return re.sub("[^A-Za-z0-9 ]", " ", s.lower()).strip()


# --- normalisation -------------------------------------------------------------------------------


def test_unicode_rule_keeps_letters_of_every_script():
    assert normalize_phrase("Thomas Südhof") == "thomas südhof"
    assert normalize_phrase("Jürgen Müller") != normalize_phrase("Jörgen Möller")
    assert normalize_phrase("Łódź") == "łódź"
    assert normalize_phrase("Лев Толстой") == "лев толстой"
    assert normalize_phrase("東京タワー") == "東京タワー"
    assert normalize_phrase("हिन्दी") == "हिन्दी"  # vowel signs are marks and stay
    # composed and decomposed accents are one node
    assert normalize_phrase("Mu\u0308ller") == normalize_phrase("M\u00fcller")


def test_ascii_rule_is_v1_and_merges_what_v1_merged():
    assert normalize_phrase("Thomas Südhof", rule="ascii") == "thomas s dhof"
    assert normalize_phrase("Jürgen Müller", rule="ascii") == normalize_phrase("Jörgen Möller", rule="ascii")
    assert normalize_phrase("Łódź", rule="ascii") == "d"
    with pytest.raises(ValueError, match="rule must be one of"):
        normalize_phrase("x", rule="latin")


@given(st.text(max_size=30))
def test_ascii_rule_equals_v1_and_rules_agree_on_ascii(s):
    assert normalize_phrase(s, rule="ascii") == _v1(s)
    if s.isascii():
        assert normalize_phrase(s) == _v1(s)


def test_index_keeps_two_names_apart_and_the_right_passage_wins():
    triples = [
        [("Jürgen Müller", "worked at", "Siemens")],
        [("Jörgen Möller", "worked at", "Maersk")],
    ]
    texts = ["Jürgen Müller worked at Siemens.", "Jörgen Möller worked at Maersk."]
    idx = build_index(triples, passages=texts)
    assert idx.settings["normalization"] == "unicode"
    assert {"jürgen müller", "jörgen möller"} <= set(idx.phrases)
    ret = HippoRetriever(idx)
    assert ret.retrieve("Where did Jörgen Möller work?", k=2).passages[0] == 1
    assert ret.retrieve("Where did Jürgen Müller work?", k=2).passages[0] == 0
    v1 = build_index(triples, passages=texts, normalization="ascii")
    assert v1.n_nodes == idx.n_nodes - 1  # v1's rule makes the two men one node
    # updates normalise with the index's own rule
    grown = add_passages(v1, [[("Thomas Südhof", "won", "Nobel Prize")]], ["Thomas Südhof won."])
    assert "thomas s dhof" in grown.phrases and grown.settings["normalization"] == "ascii"


def test_index_without_a_recorded_rule_is_v1():
    assert index_normalization({}) == "ascii"
    with pytest.raises(ValueError, match="normalization must be one of"):
        build_index([[("a b", "r", "c d")]], normalization="nfkc")


# --- entity spans --------------------------------------------------------------------------------


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


def test_named_spans_split_like_the_question_side():
    assert named_spans("Forbidden Ground and Black Hawk Down were filmed by Ridley Scott's crew.") == [
        "Forbidden Ground",
        "Black Hawk Down",
        "Ridley Scott's",
    ]


# --- text without capitals ------------------------------------------------------------------------

LOWER = [
    Passage("ridley scott", "ridley scott directed black hawk down in morocco."),
    Passage("black hawk down", "black hawk down is a war film produced by jerry bruckheimer."),
    Passage("jerry bruckheimer", "jerry bruckheimer was born in detroit, michigan."),
]


def test_lower_case_corpus_is_indexed_without_a_model():
    docs = cooccurrence_docs(LOWER)
    assert all(d.triples for d in docs)
    idx = index_from_openie(docs)
    assert {"black hawk down", "jerry bruckheimer", "detroit"} <= set(idx.phrases)
    r = HippoRetriever(idx).retrieve("where was the producer of black hawk down born?", k=3)
    assert not r.fell_back and 2 in r.passages[:2].tolist()


def test_content_spans_and_why_no_triples():
    assert content_spans("the war film was shot in morocco.") == ["war film", "shot", "morocco"]
    assert why_no_triples("Ed Wood", "Ed Wood was in Burbank.") is None
    assert (
        why_no_triples("Ed Wood", "It was so.")
        == "only the title: no capitalised, quoted or content span besides it"
    )
    assert why_no_triples("Ed Wood", "") == "empty text"


JAPANESE = [
    Passage("東京タワー", "東京タワーは東京都港区にある電波塔です。高さは333メートルです。"),
    Passage("大阪城", "大阪城は大阪市中央区にある城です。豊臣秀吉が築きました。"),
    Passage("富士山", "富士山は静岡県と山梨県にまたがる山です。"),
]


def test_japanese_corpus_indexes_and_a_japanese_question_is_ranked():
    assert segment_unspaced("大阪城") == " 大阪 阪城 "
    docs = cooccurrence_docs(JAPANESE)
    assert all(d.triples for d in docs)
    assert cooccurrence_triples("大阪城", "豊臣秀吉が築きました。")[0] == (
        "大阪城",
        "co-occurs with",
        "豊臣秀吉",
    )
    idx = index_from_openie(docs)
    bm = BM25Ranker(idx.passages)
    q = "豊臣秀吉が築いた城はどこにありますか?"
    assert bm.scores(q)[1] > 0 and bm.rank(q, 1)[0] == 1
    r = HippoRetriever(idx, bm25=bm).retrieve(q, k=3)
    assert r.passages[0] == 1  # not the passage-id order a question with no token match got


# --- the fusion ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small():
    texts = [
        "Ed Wood directed Plan 9 from Outer Space.",
        "Plan 9 from Outer Space was filmed in Burbank.",
        "Burbank is a city in California.",
        "Paris is the capital of France.",
        "Tim Burton directed the film Ed Wood in Burbank.",
    ]
    idx = index_from_openie(cooccurrence_docs([Passage(f"p{i}", t) for i, t in enumerate(texts)]))
    return idx, BM25Ranker(idx.passages)


def test_named_seed_walks_alone_guessed_seeds_are_fused(small):
    idx, bm = small
    ret = HippoRetriever(idx, bm25=bm)
    assert ret.retrieve("Where was the film by Ed Wood shot?").walk_weight == 1.0
    lower = ret.retrieve("where was the film by ed wood shot?")
    # the corpus names Ed Wood: a name read from the corpus is fused at the restored weight
    assert not lower.fell_back and lower.walk_weight == ret.restored_weight == 0.85
    assert lower.entities == ("Ed Wood",)
    typed = HippoRetriever(idx, bm25=bm, casing=False).retrieve("where was the film by ed wood shot?")
    assert not typed.fell_back and typed.walk_weight == ret.guess_weight == 0.65
    assert default_entities("where was the film by ed wood shot?", idx) == ["ed wood"]


def test_guess_weight_zero_is_bm25_and_no_seed_falls_back(small):
    idx, bm = small
    q = "where was plan 9 from outer space filmed?"
    r = HippoRetriever(idx, bm25=bm, guess_weight=0.0).retrieve(q, k=5)
    s = bm.scores(q)
    positive = top_k(s, 5)[: int((s > 0).sum())]
    np.testing.assert_array_equal(r.passages[: positive.size], positive)
    none = HippoRetriever(idx, bm25=bm).retrieve("zzz qqq", k=3)
    assert none.fell_back and none.walk_weight == 0.0
    with pytest.raises(ValueError, match="guess_weight"):
        HippoRetriever(idx, guess_weight=1.5)
    with pytest.raises(ValueError, match="fusion_c"):
        HippoRetriever(idx, fusion_c=0.0)


def test_fuse_is_weighted_reciprocal_rank(small):
    idx, _ = small
    ret = HippoRetriever(idx, fusion_c=1.0)
    # walk ranks: p2 1st, p1 2nd; BM25 ranks: p0 1st, p1 2nd; p0 has no walk score
    np.testing.assert_allclose(
        ret.fuse([0.0, 0.2, 0.9], [3.0, 1.0, 0.0], 0.25), [0.75 / 2, 0.25 / 3 + 0.75 / 3, 0.25 / 2]
    )


# --- held-out data --------------------------------------------------------------------------------

HELDOUT_DIR = resources.files("pathfinding").joinpath("data", "heldout")


@pytest.mark.parametrize("name", sorted(HELDOUT_FILES.values()))
def test_heldout_file_matches_manifest(name):
    text = HELDOUT_DIR.joinpath("MANIFEST.md").read_text(encoding="utf-8")
    sha = dict(re.findall(r"^\| `([^`]+\.gz)` \|.*\| ([0-9a-f]{64}) \|$", text, flags=re.M))
    raw = HELDOUT_DIR.joinpath(name).read_bytes()
    assert raw[4:8] == b"\x00\x00\x00\x00", "gzip mtime must be 0"
    assert hashlib.sha256(gzip.decompress(raw)).hexdigest() == sha[name]


def test_heldout_loads_with_two_supporting_passages_each():
    data = load_heldout()
    assert (len(data["questions"]), len(data["corpus"])) == (100, 994)
    assert all(len(q.supporting) == 2 for q in data["questions"])
    assert all(r.n_issues == 0 for r in data["reports"])


# --- the rule that chose the fusion's constants ---------------------------------------------------


def test_chosen_fusion_is_the_closest_to_bm25_that_keeps_the_target():
    from pathfinding.experiments.sensitivity import chosen_fusion

    def row(lam, c, r5, others=0.0):
        return {"guess_weight": lam, "fusion_c": c, "gain": [others, others, r5, others]}

    grid = {
        "ks": [1, 2, 5, 10],
        "grid": [
            row(0.6, 10, 0.04),
            row(0.7, 10, 0.06, 0.01),
            row(0.8, 10, 0.09, 0.02),
            row(0.7, 60, 0.05, 0.03),
        ],
    }
    # c=10 -> 0.7 (mean 0.0225); c=60 -> 0.7 (mean 0.035): the larger mean gain wins
    assert chosen_fusion(grid) == (0.7, 60)
    with pytest.raises(ValueError, match="no fusion on the grid"):
        chosen_fusion(grid, target=0.5)


@pytest.mark.slow  # 2,700 retrievals on the MuSiQue index (about half a minute)
def test_defaults_are_what_the_stated_rule_chooses_on_musique():
    import inspect

    from pathfinding.experiments.sensitivity import chosen_fusion, fusion_grid

    params = inspect.signature(HippoRetriever).parameters
    assert chosen_fusion(fusion_grid()) == (params["guess_weight"].default, params["fusion_c"].default)
