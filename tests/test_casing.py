"""Reading a question's names from the corpus: the counts, the reading rules, the retriever's use of
them, and the experiment's forms and rule."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pathfinding.errors import InvalidTypeError, InvalidValueError
from pathfinding.hipporag.casing import CasingModel, casing_model, word_tokens
from pathfinding.hipporag.index.build import build_index
from pathfinding.hipporag.query import capitalised_spans
from pathfinding.hipporag.reading import read_question
from pathfinding.hipporag.retrieve import HippoRetriever

TEXTS = [
    "Plan 9\nPlan 9 from Outer Space is a film by Ed Wood. It stars Bela Lugosi.",
    "Ed Wood\nEdward Wood was a director. The film critics hated Plan 9.",
    "Bela Lugosi\nBela Lugosi starred in Dracula. A young actor met Bela Lugosi in Hollywood.",
    "Hollywood\nThe University of Southern California is in Los Angeles. A university is a school.",
    "Film\nA film is a film. A young film critic wrote about the film and the director.",
    "Critics\nThe director was young. A young director is a young man.",
]
TRIPLES = [
    [("Plan 9", "directed by", "Ed Wood"), ("Plan 9", "stars", "Bela Lugosi")],
    [("Ed Wood", "is", "director")],
    [("Bela Lugosi", "starred in", "Dracula"), ("Bela Lugosi", "met in", "Hollywood")],
    [("University of Southern California", "in", "Los Angeles")],
    [("film critic", "wrote about", "film")],
    [("director", "was", "young")],
]


@pytest.fixture(scope="module")
def model():
    return CasingModel.from_passages(TEXTS)


@pytest.fixture(scope="module")
def index():
    return build_index(TRIPLES, passages=TEXTS)


# --- the counts -------------------------------------------------------------------------------


def test_a_name_is_counted_inside_a_sentence_at_its_opening_and_in_lower_case(model):
    # "Plan 9" opens the title line and its passage (2), and is inside a sentence once
    ev = model.evidence("plan 9")
    assert (ev.form, ev.capitalised, ev.initial, ev.lower) == ("Plan 9", 1, 2, 0)
    # "Bela Lugosi": the title, a sentence's opening, and twice inside sentences
    ev = model.evidence("bela lugosi")
    assert (ev.capitalised, ev.initial, ev.share) == (2, 2, 1.0)
    # "film" is never a name: 6 times in lower case, and "Film" alone opening a title is counted
    ev = model.evidence("film")
    assert (ev.form, ev.named, ev.lower) == ("Film", 1, 6) and ev.share == pytest.approx(1 / 7)


def test_a_sentence_opening_stop_word_is_not_part_of_a_name(model):
    """"The University of Southern California" opens a sentence: "The" is grammar, dropped; the rest
    is a name counted inside the sentence (its capitals say so)."""
    ev = model.evidence("university of southern california")
    assert (ev.form, ev.capitalised, ev.initial) == ("University of Southern California", 1, 0)
    assert model.evidence("the university of southern california") is None
    # "university" alone: a word in lower case once, never a name by itself
    assert model.evidence("university") is None  # once is below STRAY_MIN, so not kept


def test_a_run_of_words_in_lower_case_counts_against_a_name():
    m = CasingModel.from_passages(["He met Young Guns there.", "The young guns were loud.", "Young guns!"])
    ev = m.evidence("young guns")
    # inside a sentence once; "Young guns!" opens a sentence but "guns" is lower case: one word only
    assert (ev.capitalised, ev.initial, ev.lower) == (1, 0, 1) and ev.share == 0.5


def test_numbers_alone_are_not_names_but_join_one():
    m = CasingModel.from_passages(["It opened in 1957 as Plan 9 in Burbank."])
    assert m.evidence("1957") is None and m.evidence("plan 9").form == "Plan 9"


def test_initials_and_abbreviations_do_not_end_a_sentence():
    toks = word_tokens("Written by E. B. White in the U.S. in 1952. Then it sold.")
    initial = {t.text: t.initial for t in toks}
    assert not initial["B"] and not initial["White"] and not initial["in"]
    assert initial["Then"]  # after "1952." a sentence starts
    m = CasingModel.from_passages(["Written by E. B. White in 1952."])
    assert m.evidence("e b white").form == "E B White"


def test_a_possessive_ends_a_name_and_is_not_part_of_it():
    m = CasingModel.from_passages(["We saw Christopher Nolan's Inception twice."])
    assert m.evidence("christopher nolan").capitalised == 1 and m.evidence("inception").capitalised == 1
    assert m.evidence("christopher nolan s inception") is None


def test_unicode_keys_follow_the_rule():
    m = CasingModel.from_passages(["Prize to Thomas Südhof in Stockholm."])
    assert m.evidence("thomas südhof").form == "Thomas Südhof"
    a = CasingModel.from_passages(["Prize to Thomas Südhof in Stockholm."], normalization="ascii")
    assert a.evidence("thomas s dhof").form == "Thomas Südhof"


def test_an_empty_corpus_has_an_empty_model_and_reads_nothing():
    m = CasingModel.from_passages([])
    assert len(m) == 0 and m.evidence("x") is None
    r = read_question("who directed plan 9?", m)
    assert r.text == "who directed plan 9?" and r.spans == ()


def test_state_round_trip_and_equality(model):
    params, keys, forms, arrays = model.get_state()
    back = CasingModel.from_state(params, keys, forms, arrays)
    assert back == model and back is not model
    assert CasingModel.from_state({"normalization": "ascii"}, keys, forms, arrays) != model
    assert model.__eq__("x") is NotImplemented


@pytest.mark.parametrize(
    "args, kwargs, error, pattern",
    [
        ((["b", "a"], ["", ""], [0, 0], [0, 0], [3, 3]), {}, InvalidValueError, "sorted and distinct"),
        ((["a", "a"], ["", ""], [0, 0], [0, 0], [3, 3]), {}, InvalidValueError, "sorted and distinct"),
        ((["a"], ["A", ""], [1], [0], [0]), {}, InvalidValueError, r"three counts per key \(1 keys\)"),
        ((["a"], ["A"], [1, 2], [0], [0]), {}, InvalidValueError, r"got 1 forms and 2, 1, 1 counts"),
        ((["a"], ["A"], [-1], [0], [0]), {}, InvalidValueError, "counts must be >= 0"),
        (([1], ["A"], [1], [0], [0]), {}, InvalidTypeError, "keys and forms must be strings"),
        ((["a"], ["A"], [1], [0], [0]), {"normalization": "nfkc"}, InvalidValueError, "normalization must"),
    ],
)
def test_a_malformed_model_is_refused_by_name(args, kwargs, error, pattern):
    with pytest.raises(error, match=pattern):
        CasingModel(*args, **kwargs)


def test_bad_arguments_are_named():
    with pytest.raises(InvalidTypeError, match="got a string"):
        CasingModel.from_passages("Ed Wood")
    with pytest.raises(InvalidTypeError, match=r"passages\[1\] must be a string, got int"):
        CasingModel.from_passages(["Ed Wood", 3])
    with pytest.raises(InvalidValueError, match="normalization must be one of"):
        CasingModel.from_passages([], normalization="x")
    with pytest.raises(InvalidTypeError, match="keys and forms must be lists"):
        CasingModel.from_state({"normalization": "unicode"}, "ab", [], {})
    with pytest.raises(InvalidTypeError, match="question must be a string, got int"):
        read_question(3, CasingModel.from_passages([]))
    with pytest.raises(InvalidTypeError, match="model must be a CasingModel, got list"):
        read_question("who?", [])
    with pytest.raises(InvalidTypeError, match="text must be a string"):
        word_tokens(None)


# --- reading a question -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "typed",
    [
        "who directed plan 9 from outer space?",
        "WHO DIRECTED PLAN 9 FROM OUTER SPACE?",
        "Who directed plan 9 from outer space?",  # a capital at the start only marks no name
        "Who Directed Plan 9 From Outer Space?",  # Title Case marks none either
    ],
)
def test_every_form_without_the_writers_names_is_read_alike(model, typed):
    r = read_question(typed, model)
    assert not r.trusted
    assert r.text.lower() == typed.lower()
    assert capitalised_spans(r.text) == ["Plan 9", "Outer Space"]
    assert r.origin("Plan 9") == r.origin("Outer Space") == "corpus"
    # a change is recorded where the reading differs from what was typed
    assert [s.read for s in r.spans] == [w for w in ("Plan 9", "Outer Space") if w not in typed]


def test_a_word_the_corpus_mostly_writes_in_lower_case_stays_lower(model):
    r = read_question("did a young film critic meet bela lugosi?", model)
    assert r.text == "did a young film critic meet Bela Lugosi?"
    assert capitalised_spans(r.text) == ["Bela Lugosi"]


def test_the_writers_capitals_count_and_the_corpus_fills_in_the_rest(model):
    # "Thomas südhof": a capital after the first word and lower case after it, so the writer's
    # capitals count; "bela lugosi" typed in lower case needs TRUSTED_SHARE (it has 1.0)
    r = read_question("Did Ed Wood direct bela lugosi?", model)
    assert r.trusted and r.text == "Did Ed Wood direct Bela Lugosi?"
    assert r.origin("Ed Wood") == "typed" and r.origin("Bela Lugosi") == "corpus"
    # completing a typed name: the span holds a typed capital, so it is the writer's name
    r = read_question("Did Bela lugosi meet a critic?", model)
    assert r.text == "Did Bela Lugosi meet a critic?" and r.origin("Bela Lugosi") == "typed"
    assert [(s.typed, s.read, s.origin) for s in r.spans] == [("Bela lugosi", "Bela Lugosi", "typed")]


def test_a_lower_case_run_in_a_trusted_question_needs_a_strong_majority():
    m = CasingModel.from_passages(["He met Young Guns there.", "The young guns were loud."])
    assert m.evidence("young guns").share == 0.5
    assert read_question("Did Ed meet young guns?", m).text == "Did Ed meet young guns?"  # writer chose lower
    assert read_question("did ed meet young guns?", m).text == "did ed meet Young Guns?"  # no choice made


def test_a_word_seen_once_opening_a_sentence_is_not_a_name():
    once = CasingModel.from_passages(["Founded in 1990, the club plays in Leeds."])
    assert once.evidence("founded").initial == 1 and once.evidence("founded").share == 1.0
    assert read_question("who founded the club?", once).text == "who founded the club?"
    twice = CasingModel.from_passages(["Senet is a game.", "Senet\nSenet was played in Egypt."])
    assert read_question("who played senet?", twice).text == "who played Senet?"
    # a run of words opening a sentence once is a name: its other words' capitals say so
    run = CasingModel.from_passages(["Haymo of Faversham was a friar."])
    assert read_question("who was haymo of faversham?", run).text == "who was Haymo of Faversham?"


def test_a_stray_capital_is_lowered_a_capital_beside_another_is_kept(model):
    r = read_question("Did Bela Lugosi meet a Young director?", model)
    assert r.text == "Did Bela Lugosi meet a young director?"
    (stray,) = r.spans
    assert (stray.typed, stray.read, stray.origin) == ("Young", "young", "lowered")
    assert "stray capital" in stray.why() and "in lower case 5 times" in stray.why()
    # "Film" is a title once against 6 in lower case: not rare enough as a name to be a stray
    assert read_question("Did Bela Lugosi star in a Film?", model).text.endswith("a Film?")
    # beside another capital it may be part of a name the corpus does not know: kept
    assert read_question("Did Bela Lugosi meet Young Guns?", model).text.endswith("Young Guns?")
    # nor beside a number: "Plan 9", even where the corpus writes "plan" in lower case
    m = CasingModel.from_passages(["A plan, a plan, a plan."])
    assert read_question("Who made Plan 9 and a Plan?", m).text == "Who made Plan 9 and a plan?"
    # an acronym is the writer's on purpose
    assert read_question("Did Bela Lugosi meet a YOUNG director?", model).text.endswith("a YOUNG director?")


def test_explain_says_where_each_entity_came_from(model):
    r = read_question("did ed wood direct plan 9 in 1957?", model)
    ents = capitalised_spans(r.text)
    assert ents == ["Ed Wood", "Plan 9", "1957"]
    told = [r.explain(e) for e in ents]
    assert [t["origin"] for t in told] == ["corpus", "corpus", "guess"]
    assert told[0]["why"] == (
        "the corpus writes 'Ed Wood' as a name 2 times (1 opening a sentence) and in lower case 0 times"
    )
    assert told[2]["why"] == "a number"
    assert r.explain("film critic")["why"].startswith("an index phrase")
    d = r.to_dict()
    assert d["read_as"] == r.text and d["writer_capitals_count"] is False and len(d["changes"]) == 2
    typed = read_question("Did Ed Wood direct it?", model)
    assert typed.explain("Ed Wood")["why"] == "capitalised by the writer"


@given(st.text(alphabet="abcdefgh ABCD.,'?-9", max_size=40))
def test_a_reading_changes_only_case(question):
    """Whatever is typed (ASCII here), the reading changes the case of some letters and nothing else,
    and reading the reading gives it back when the question's case did not count."""
    m = CasingModel.from_passages(["Abc Def met Gha in Bead.", "Abc Def. The bead is a bead, a bead."])
    r = read_question(question, m)
    assert r.text.lower() == question.lower() and len(r.text) == len(question)
    assert all(question[s.start : s.end] == s.typed for s in r.spans)


# --- the retriever ------------------------------------------------------------------------------


def test_lower_and_upper_questions_find_the_cased_questions_entities(index):
    ret = HippoRetriever(index)
    cased = ret.retrieve("Which film by Ed Wood stars Bela Lugosi?", k=5)
    for typed in ("which film by ed wood stars bela lugosi?", "WHICH FILM BY ED WOOD STARS BELA LUGOSI?"):
        got = ret.retrieve(typed, k=5)
        assert got.entities == cased.entities == ("Ed Wood", "Bela Lugosi")
        assert got.reading.text.lower() == typed.lower()
        # names read from the corpus are weighed against BM25; the writer's are walked alone
        assert (got.walk_weight, cased.walk_weight) == (ret.restored_weight, 1.0)


def test_casing_off_or_a_model_of_ones_own(index):
    off = HippoRetriever(index, casing=False).retrieve("which film by ed wood stars bela lugosi?")
    assert off.reading is None and off.entities == ("ed wood", "bela lugosi")  # node-phrase guesses
    assert off.walk_weight == 0.65
    own = CasingModel.from_passages(["Dracula starred Bela Lugosi."])
    got = HippoRetriever(index, casing=own).retrieve("which film by ed wood stars bela lugosi?")
    assert got.entities == ("Bela Lugosi",) and got.walk_weight == 0.85
    # a caller's extractor, and every named one but the default, reads the question as typed
    mine = HippoRetriever(index, extractor=lambda q: ["Ed Wood"]).retrieve("which film by ed wood?")
    assert mine.reading is None and mine.walk_weight == 1.0
    v1 = HippoRetriever(index, extractor="capitalised").retrieve("which film by ed wood?")
    assert v1.reading is None and v1.entities == ()
    # entities given to retrieve: no reading, their capitals are the caller's
    given_ = HippoRetriever(index).retrieve("which film?", entities=["Ed Wood"])
    assert given_.reading is None and given_.walk_weight == 1.0


def test_restored_weight_one_walks_alone_and_zero_is_bm25(index):
    q = "which film by ed wood stars bela lugosi?"
    assert HippoRetriever(index, restored_weight=1.0).retrieve(q).walk_weight == 1.0
    ret = HippoRetriever(index, restored_weight=0.0)
    got, bm = ret.retrieve(q, k=5), ret.bm25.scores(q)
    positive = int((bm > 0).sum())
    assert got.passages[:positive].tolist() == np.argsort(-bm, kind="stable")[:positive].tolist()


def test_bad_casing_arguments_are_named(index):
    with pytest.raises(InvalidTypeError, match="casing must be True, False or a CasingModel, got str"):
        HippoRetriever(index, casing="yes")
    with pytest.raises(InvalidValueError, match="restored_weight"):
        HippoRetriever(index, restored_weight=1.5)


def test_an_index_model_is_derived_once(index):
    assert casing_model(index) is casing_model(index)
    assert casing_model(index) == CasingModel.from_passages(TEXTS)
    no_texts = build_index(TRIPLES)
    assert len(casing_model(no_texts)) == 0
    assert HippoRetriever(no_texts).read("which film by ed wood?").text == "which film by ed wood?"


# --- the experiment ---------------------------------------------------------------------------------


def test_typed_forms_are_deterministic_per_seed():
    from pathfinding.experiments.casing import FORMS, typed_forms

    qs = ["Who is Thomas Südhof?", "Where was Plan 9 from Outer Space filmed?"]
    a, b, c = typed_forms(qs, seed=0), typed_forms(qs, seed=0), typed_forms(qs, seed=1)
    assert list(a) == list(FORMS) and a == b and a["mixed"] != c["mixed"]
    assert a["upper"][0] == "WHO IS THOMAS SÜDHOF?" and a["lower"][1] == qs[1].lower()
    for typed, mixed in zip(qs, a["mixed"], strict=True):
        assert mixed.lower() == typed.lower() and mixed[0].isupper()


def test_the_restored_weight_rule_takes_the_smallest_weight_reaching_the_target():
    from pathfinding.experiments.casing import RESTORED_WEIGHTS, chosen_restored_weight

    bm = np.zeros((4, 3))
    recall = {("bm25", "lower"): bm}
    for lam in RESTORED_WEIGHTS:  # R@5 gain 0.1 below 0.8, 0.2 from there on
        recall[(lam, "lower")] = bm + np.array([0.0, 0.2 if lam >= 0.8 else 0.1, 0.0])
    result = {"MuSiQue": {"recall": recall}}
    assert chosen_restored_weight(result) == 0.8
    assert chosen_restored_weight(result, target=0.1) == 0.65
    with pytest.raises(InvalidValueError, match="no restored weight"):
        chosen_restored_weight(result, target=0.5)


def test_reading_models_are_casing_models_of_the_index(index):
    from pathfinding.experiments.casing import reading_models, word_model

    models = reading_models(index)
    assert models["off"] is False and models["names"] is casing_model(index)
    words = word_model(TEXTS)
    assert words.evidence("lugosi").capitalised == 4 and " " not in "".join(words.keys)
    # node phrases: names that are nodes, and the lower-case words kept for stray capitals
    nodes = models["node phrases"]
    assert {k for k, f in zip(nodes.keys, nodes.forms, strict=True) if f} <= set(index.phrases)
    merged = models["names + words"]
    assert merged.evidence("bela lugosi") == casing_model(index).evidence("bela lugosi")
    assert merged.evidence("lugosi") == words.evidence("lugosi")
