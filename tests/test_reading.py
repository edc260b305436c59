"""Reading a question through the casing model: whose capitals count, names from the corpus, stray
capitals, and what a reading says about each entity."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pathfinding.errors import InvalidTypeError
from pathfinding.hipporag.language.casing import CasingModel
from pathfinding.hipporag.language.names import capitalised_spans
from pathfinding.hipporag.language.reading import read_question
from tests.test_casing import TEXTS


@pytest.fixture(scope="module")
def model():
    return CasingModel.from_passages(TEXTS)


def test_an_empty_model_reads_nothing():
    r = read_question("who directed plan 9?", CasingModel.from_passages([]))
    assert r.text == "who directed plan 9?" and r.spans == ()


def test_bad_arguments_are_named():
    with pytest.raises(InvalidTypeError, match="question must be a string, got int"):
        read_question(3, CasingModel.from_passages([]))
    with pytest.raises(InvalidTypeError, match="model must be a CasingModel, got list"):
        read_question("who?", [])


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


def test_the_writers_capitals_count_only_with_a_word_in_lower_case_after_the_first(model):
    """A question's first word says nothing about its writer: "bela Lugosi?" has a capital inside and
    no word in lower case after the first, so its capitals do not count."""
    assert not read_question("bela Lugosi?", model).trusted
    assert read_question("Did bela Lugosi?", model).trusted


def test_a_lower_case_run_in_a_trusted_question_needs_a_strong_majority():
    m = CasingModel.from_passages(["He met Young Guns there.", "The young guns were loud."])
    assert m.evidence("young guns").share == 0.5
    assert read_question("Did Ed meet young guns?", m).text == "Did Ed meet young guns?"  # writer chose lower
    assert read_question("did ed meet young guns?", m).text == "did ed meet Young Guns?"  # no choice made


def test_a_word_seen_once_opening_a_sentence_is_not_a_name():
    once = CasingModel.from_passages(["Founded in 1990, the club plays in Leeds."])
    assert once.evidence("founded").initial == 1 and once.evidence("founded").share == 1.0
    assert read_question("who founded the club?", once).text == "who founded the club?"
    # and a word after it is still read
    assert read_question("who founded the club in leeds?", once).text == "who founded the club in Leeds?"
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
