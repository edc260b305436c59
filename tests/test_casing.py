"""The casing model: how a corpus writes its names, counted by hand on small corpora, its checks and
its derived copy on an index."""

import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pathfinding.errors import InvalidTypeError, InvalidValueError
from pathfinding.hipporag.index.build import build_index
from pathfinding.hipporag.language.casing import CasingModel, Texts, casing_model, word_tokens

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


def test_a_stop_word_alone_is_never_a_name():
    """"In" opening a sentence before a word in lower case is a capital of grammar: no name."""
    m = CasingModel.from_passages(["In winter Ed Wood filmed in Burbank."])
    assert m.evidence("in") is None and m.evidence("ed wood").form == "Ed Wood"


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


@given(st.text(alphabet="aZé东1 _.,'’-!?:;\n\"()", max_size=40))
def test_each_word_sits_where_the_token_rule_finds_it(text):
    """Words are cut by the token rule, each at its token's start, and the text between its start and
    end is the word (a possessive or trailing dots cut from its end, never from its start)."""
    toks = word_tokens(text)
    rule = re.compile(r"[^\W_][\w'’.\-]*")
    assert [t.start for t in toks] == [m.start() for m in rule.finditer(text)]
    assert all(text[t.start : t.end] == t.text and t.text for t in toks)
    assert [t.capital for t in toks] == [t.text[0].isupper() for t in toks]
    assert toks == [] or toks[0].initial


def test_a_possessive_ends_a_name_and_is_not_part_of_it():
    m = CasingModel.from_passages(["We saw Christopher Nolan's Inception twice."])
    assert m.evidence("christopher nolan").capitalised == 1 and m.evidence("inception").capitalised == 1
    assert m.evidence("christopher nolan s inception") is None


def test_unicode_keys_follow_the_rule():
    m = CasingModel.from_passages(["Prize to Thomas Südhof in Stockholm."])
    assert m.evidence("thomas südhof").form == "Thomas Südhof"
    a = CasingModel.from_passages(["Prize to Thomas Südhof in Stockholm."], normalization="ascii")
    assert a.evidence("thomas s dhof").form == "Thomas Südhof"


def test_an_empty_corpus_has_an_empty_model():
    m = CasingModel.from_passages([])
    assert len(m) == 0 and m.evidence("x") is None


def test_state_round_trip_and_equality(model):
    params, arrays = model.get_state()
    assert arrays["keys"].dtype == np.uint8 and arrays["key_ends"].dtype == np.int64
    back = CasingModel.from_state(params, arrays)
    assert back == model and back is not model
    assert list(back.keys) == list(model.keys) and list(back.forms) == list(model.forms)
    assert CasingModel.from_state({"normalization": "ascii"}, arrays) != model
    assert model.__eq__("x") is NotImplemented


def test_the_texts_are_a_sequence_of_strings():
    words = ["", "ed wood", "südhof", "東京"]
    t = Texts.of(words)
    assert len(t) == 4 and list(t) == words and t == words and t == Texts.of(words)
    assert [t[i] for i in range(-4, 4)] == words * 2 and t[1:3] == words[1:3] and t[::-1] == words[::-1]
    assert t != words[:3] and t != ["", "ed wood", "südhof", "東"] and t != Texts.of(words[:3])
    assert t.__eq__(3) is NotImplemented and t.__eq__("ed wood") is NotImplemented
    assert Texts.of([]) == [] and list(Texts.of([])) == [] and repr(t) == "Texts(4 texts, 20 bytes)"
    with pytest.raises(IndexError, match="text index 4 out of range for 4 texts"):
        t[4]
    with pytest.raises(IndexError, match="-5 out of range"):
        t[-5]
    blob, ends = t.get_state()
    assert blob.tobytes() == "".join(words).encode() and ends.tolist() == [0, 7, 14, 20]
    assert Texts.from_state(blob, ends) == words and t.is_sorted_distinct()
    assert not Texts.of(["b", "a"]).is_sorted_distinct() and not Texts.of(["a", "a"]).is_sorted_distinct()
    assert Texts.of([]).is_sorted_distinct() and Texts.of(["a"]).is_sorted_distinct()


@pytest.mark.parametrize(
    "blob, ends, pattern",
    [
        (np.zeros(3, np.int8), np.array([3]), r"uint8 bytes and int64 ends, got int8\[3\] and int64\[1\]"),
        (np.frombuffer(b"abc", np.uint8), np.array([3], np.int32), r"got uint8\[3\] and int32\[1\]"),
        (np.frombuffer(b"abc", np.uint8), np.array([2, 1, 3]), "text ends must rise from 0 to the 3 bytes"),
        (np.frombuffer(b"abc", np.uint8), np.array([-1, 3]), "text ends must rise from 0 to the 3 bytes"),
        (np.frombuffer(b"abc", np.uint8), np.array([2]), "text ends must rise from 0 to the 3 bytes"),
        (np.frombuffer(b"abc", np.uint8), np.zeros(0, np.int64), "3 bytes of text with no ends"),
        (np.frombuffer(b"a\xffc", np.uint8), np.array([3]), "texts are not UTF-8"),
        (np.frombuffer(b"a\xc3\xbc", np.uint8), np.array([2, 3]), "a text ends inside a UTF-8 character"),
        (np.frombuffer(b"a\xc3", np.uint8), np.array([2]), "texts are not UTF-8"),
    ],
)
def test_a_malformed_texts_state_is_refused_by_name(blob, ends, pattern):
    """Each text must be UTF-8 by itself: "aü" cut after its first byte of "ü" is refused, though
    the whole buffer decodes."""
    with pytest.raises(InvalidValueError, match=pattern):
        Texts.from_state(blob, ends)


def test_a_model_checks_texts_given_as_texts():
    """Keys given as Texts are checked for order as a list's are; forms may be either."""
    with pytest.raises(InvalidValueError, match="sorted and distinct"):
        CasingModel(Texts.of(["b", "a"]), ["", ""], [0, 0], [0, 0], [3, 3])
    m = CasingModel(Texts.of(["a", "b"]), ["A", ""], [1, 0], [0, 0], [0, 3])
    assert m.evidence("a").form == "A"
    assert m == CasingModel(["a", "b"], Texts.of(["A", ""]), [1, 0], [0, 0], [0, 3])
    assert CasingModel.from_state(*m.get_state()) == m


def test_the_most_frequent_form_wins_and_a_tie_goes_to_the_first_in_order():
    """A name's forms are counted once a second one is seen: the most frequent is its form, a tie
    the smallest string ("ED WOOD" < "Ed Wood")."""
    m = CasingModel.from_passages(["I met Ed Wood.", "I met ED WOOD.", "I met ED WOOD."])
    assert (m.evidence("ed wood").form, m.evidence("ed wood").capitalised) == ("ED WOOD", 3)
    m = CasingModel.from_passages(["I met Ed Wood.", "I met ED WOOD.", "I met Ed Wood.", "I met ED WOOD."])
    assert m.evidence("ed wood").form == "ED WOOD"


def test_a_name_in_lower_case_is_counted_once_whatever_shares_its_first_word():
    """"the beatles" in lower case counts once for "The Beatles", though "The Doors" also has two
    words after the same first word."""
    m = CasingModel.from_passages(["I like The Beatles and The Doors.", "I like the beatles."])
    assert m.evidence("the beatles").lower == 1 and m.evidence("the doors").lower == 0


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
    with pytest.raises(InvalidValueError, match=r"state lacks \['key_ends', 'forms', 'form_ends', 'capit"):
        CasingModel.from_state({"normalization": "unicode"}, {"keys": np.zeros(0, np.uint8)})
    with pytest.raises(InvalidValueError, match=r"state lacks \['normalization'\]"):
        CasingModel.from_state({}, CasingModel.from_passages(["Ed Wood"]).get_state()[1])
    with pytest.raises(InvalidTypeError, match="text must be a string"):
        word_tokens(None)


def test_an_index_model_is_derived_once(index):
    assert casing_model(index) is casing_model(index)
    assert casing_model(index) == CasingModel.from_passages(TEXTS)
    no_texts = build_index(TRIPLES)
    assert len(casing_model(no_texts)) == 0
