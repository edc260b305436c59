"""The no-model extractor, span by span: every rule of the module docstring on a sentence worked by hand.

``pathfinding.hipporag.extract.cooccurrence`` promises: content spans of at most three words (a
longer run gives its word pairs), single words of three characters or more, at most twelve spans a
sentence; unspaced-script runs of two to six characters (a longer run gives its bigrams), split at
hiragana; sentences end at . ! ? before a capital, digit, quote or bracket, and at a CJK full stop;
the title joins every sentence; a pair is made once, in either order, and never of a span with itself.
The expected spans below are read off each sentence by those rules. Also: a corpus without capitals
is indexed, and retrieval walks through a span two passages share.
"""

import json

import pytest

from pathfinding.errors import InvalidTypeError
from pathfinding.hipporag.extract.cooccurrence import (
    RELATION,
    content_spans,
    cooccurrence_docs,
    cooccurrence_openie,
    cooccurrence_triples,
    korean_stem,
    named_spans,
    passage_spans,
    why_no_triples,
)
from pathfinding.hipporag.index.build import index_from_openie
from pathfinding.hipporag.io import Passage, load_openie
from pathfinding.hipporag.retrieval.retrieve import HippoRetriever


@pytest.mark.parametrize(
    "sentence, spans",
    [
        ("red green blue", ["red green blue"]),  # three words: one span
        ("red green blue gold", ["red green", "green blue", "blue gold"]),  # four: the word pairs
        ("ox, cat.", ["cat"]),  # a lone word of two characters is dropped
        ("ox cat", ["ox cat"]),  # ... but not inside a run
        ("red-green", ["red", "green"]),  # punctuation between two words ends the run
        ("o'neil's hat", ["o'neil's hat"]),  # an apostrophe stays inside its word
        ("cat, dog, cat", ["cat", "dog"]),  # distinct, in order
        ("the cat and THE dog", ["cat", "dog"]),  # stop words split runs, in any case
        (", ".join(f"w{i:02d}x" for i in range(14)), [f"w{i:02d}x" for i in range(12)]),  # first twelve
        ("東京都港区中", ["東京都港区中"]),  # six characters: one span
        ("東京都港区中央", ["東京", "京都", "都港", "港区", "区中", "中央"]),  # seven: the bigrams
        ("東", []),  # one character: dropped
        ("東京の港", ["東京"]),  # hiragana splits the run; 港 alone is dropped
        ("old 東京 town", ["old", "東京", "town"]),  # an unspaced run ends the word run before it
        # Korean: each word its noun, the particle cut off; a predicate ("-다") gives none
        ("세종대왕이 한글을 만들었다.", ["세종대왕", "한글"]),
        ("서울은 대한민국의 수도이다.", ["서울", "대한민국", "수도"]),  # the copula "이다" cut too
        ("나이", ["나이"]),  # a stem of one syllable is not cut: "이" belongs to the word here
    ],
)
def test_content_spans_by_hand(sentence, spans):
    """Content spans of one lower-case sentence, by the rules in the module docstring."""
    assert content_spans(sentence) == spans


def test_korean_particles_and_endings_are_cut_from_their_nouns():
    particles = {"에서": "서울에서", "을": "한글을", "이": "세종대왕이", "으로": "부산으로", "의": "조선의"}
    assert {p: korean_stem(w) for p, w in particles.items()} == {
        "에서": "서울", "을": "한글", "이": "세종대왕", "으로": "부산", "의": "조선"
    }  # fmt: skip
    assert [korean_stem(w) for w in ("흐른다", "있습니다", "갔다")] == [None, None, None]
    assert korean_stem("문자입니다") == "문자"


@pytest.mark.parametrize(
    "text, spans",
    [
        ("red cat. blue dog.", [["red cat", "blue dog"]]),  # no capital after the stop: one sentence
        ("Ann met Bob. Carl met Dan.", [["Ann", "Bob"], ["Carl", "Dan"]]),
        ("Ann came in 1999. 2000 was late.", [["Ann", "1999"], ["2000"]]),  # a digit starts a sentence
        ("Ann left (for York.) Bob stayed.", [["Ann", "York"], ["Bob"]]),  # a bracket after the stop
        ("Ann left! Bob stayed? Carl ran.", [["Ann"], ["Bob"], ["Carl"]]),
        ("東京タワー。電波塔です。", [["東京タワー"], ["電波塔"]]),  # a CJK full stop, no space after it
    ],
)
def test_sentences_and_their_spans(text, spans):
    """Sentences are split where the module docstring says, and each gets its own spans."""
    assert passage_spans("title", text) == spans


def test_named_spans_quotes_and_capitals():
    """Straight and curly quotations are spans (two characters or more); a capitalised span inside a
    quotation is not a second name; spans are distinct after normalisation, in order of appearance."""
    assert named_spans('He read “The Road” and "A" by Cormac McCarthy.') == ["The Road", "Cormac McCarthy"]
    assert named_spans("Ann met ANN.") == ["Ann"]
    with pytest.raises(InvalidTypeError, match=r"^sentence must be a string, got bytes$"):
        named_spans(b"Ann met Bob.")
    with pytest.raises(InvalidTypeError, match=r"^sentence must be a string, got int$"):
        content_spans(5)


def test_pairs_are_made_once_and_never_with_the_title_itself():
    """The title pairs with every span; spans of one sentence pair with each other in order of
    appearance; a pair seen again (in either order) is not repeated; a span that normalises to the
    title is the title."""
    assert cooccurrence_triples("", "Ann met Bob. Bob met Ann.") == [("Ann", RELATION, "Bob")]
    assert cooccurrence_triples("Ed Wood", "ED WOOD met Ann and Bob.") == [
        ("Ed Wood", RELATION, "Ann"),
        ("Ed Wood", RELATION, "Bob"),
        ("Ann", RELATION, "Bob"),
    ]
    with pytest.raises(InvalidTypeError, match=r"^title and text must be strings$"):
        cooccurrence_triples("Ed Wood", None)
    with pytest.raises(InvalidTypeError, match=r"^title and text must be strings$"):
        cooccurrence_triples(None, "Ann met Bob.")


def test_why_a_passage_gives_no_triple():
    """The three reasons: no text; nothing but the title; no title and a single span."""
    assert why_no_triples("Ed Wood", " \n") == "empty text"
    assert why_no_triples("Ed Wood", "Ed Wood was here.") == (
        "only the title: no capitalised, quoted or content span besides it"
    )
    assert why_no_triples("", "Ann was here.") == (
        "no named span: no title, and no capitalised, quoted or content span that is not the title"
    )
    assert why_no_triples("Ed Wood", "Ann was here.") is None


def test_docs_and_openie_json_of_a_passage():
    """A passage's entities are the title and then its spans, distinct, in order; the OpenIE JSON
    holds the same with the passage as title, new line, text."""
    corpus = [Passage("Ed Wood", "Ed Wood met Ann. Ann met Bob and Ed Wood.")]
    (doc,) = cooccurrence_docs(corpus)
    assert doc.title == "Ed Wood" and doc.text == corpus[0].text
    assert doc.entities == ("Ed Wood", "Ann", "Bob")
    assert doc.triples == (
        ("Ed Wood", RELATION, "Ann"),
        ("Ed Wood", RELATION, "Bob"),
        ("Ann", RELATION, "Bob"),
    )
    assert cooccurrence_openie([Passage("Ed Wood", "Ann met Bob.")]) == {
        "docs": [
            {
                "title": "Ed Wood",
                "text": "Ann met Bob.",
                "passage": "Ed Wood\nAnn met Bob.",
                "extracted_entities": ["Ed Wood", "Ann", "Bob"],
                "extracted_triples": [
                    ["Ed Wood", RELATION, "Ann"],
                    ["Ed Wood", RELATION, "Bob"],
                    ["Ann", RELATION, "Bob"],
                ],
            }
        ],
        "extractor": "cooccurrence",
    }
    message = r"^corpus must be a sequence of Passage \(see pathfinding.hipporag.io.load_corpus\)$"
    for bad in ("Ed Wood met Ann.", [("Ed Wood", "Ann met Bob.")]):
        with pytest.raises(InvalidTypeError, match=message):
            cooccurrence_docs(bad)
    assert RELATION == "co-occurs with"


def test_named_spans_keep_the_order_of_first_appearance():
    """A name is placed where it first appears, before a quotation that follows it even when it
    appears again after the quotation; a short name that first appears inside a longer one comes
    after the longer one."""
    assert named_spans('Ann said "hello there" to Ann.') == ["Ann", "hello there"]
    assert named_spans("Ann Smith met Ann.") == ["Ann Smith", "Ann"]


@pytest.mark.parametrize(
    "text, spans",
    [
        ('Ann said "Go home." Bob left.', [["Ann", "Go home."], ["Bob"]]),
        ("Ann said “Go home.” Bob left.", [["Ann", "Go home."], ["Bob"]]),
        ("Ann left (for York.) Bob stayed.", [["Ann", "York"], ["Bob"]]),
    ],
)
def test_a_closing_quote_stays_with_the_sentence_it_closes(text, spans):
    """A sentence that ends inside a quotation keeps its closing quote, so the quotation is one span
    (not its first capitalised word)."""
    assert passage_spans("title", text) == spans


def test_text_between_two_quotations_is_not_a_quotation():
    """A quotation longer than 100 characters is not a span, and the text between it and the next
    quotation is not read as one either."""
    long, short = "x" * 101, "y" * 100
    assert named_spans(f'"{long}" and "{short}"') == [short]
    assert named_spans(f"“{long}” and “{short}”") == [short]
    assert named_spans('a "" b "X" c "Xy"') == ["Xy"]  # empty and one-character quotations are not spans


def test_spans_title_capitalised_and_quoted():
    assert named_spans('He wrote "the long goodbye" in Los Angeles in 1953.') == [
        "the long goodbye",
        "Los Angeles",
        "1953",
    ]
    # A capitalised run inside a quotation is the quotation, not a second name.
    assert named_spans('It is a sister of "The Hollywood Reporter".') == ["The Hollywood Reporter"]


def test_pairs_stay_within_a_sentence_and_title_joins_every_sentence():
    t = cooccurrence_triples(
        "Lake Bled", "Lake Bled lies in Slovenia near Austria. An island holds a Church."
    )
    assert t == [
        ("Lake Bled", RELATION, "Slovenia"),
        ("Lake Bled", RELATION, "Austria"),
        ("Slovenia", RELATION, "Austria"),
        ("Lake Bled", RELATION, "Church"),
    ]
    assert ("Slovenia", RELATION, "Church") not in t and ("Austria", RELATION, "Church") not in t


def test_two_passages_meet_in_a_shared_span_and_retrieval_walks_there():
    corpus = [
        Passage("Ed Wood", "Ed Wood directed Plan 9."),
        Passage("Plan 9", "The film was shot in Burbank."),
        Passage("Paris", "Paris is the capital of France."),
    ]
    docs = cooccurrence_docs(corpus)
    idx = index_from_openie(docs)
    r = HippoRetriever(idx).retrieve("Where was the film by Ed Wood shot?", k=3)
    assert r.passages.tolist()[:2] == [0, 1] and not r.fell_back


def test_a_number_with_thousands_separators_is_one_node_not_a_shared_000():
    # "18,000" and "250,000" were split at the comma: "18", "250" and one "000" node that joined
    # every passage holding a large number, a hub the walk spread through.
    corpus = [
        Passage("Ironside Park", "Ironside Park is a stadium in Dunmore with 18,000 seats."),
        Passage("Lake Morrow", "Lake Morrow holds 250,000 fish near Brackton."),
    ]
    docs = cooccurrence_docs(corpus)
    assert docs[0].entities == ("Ironside Park", "Dunmore", "18,000")
    assert docs[1].entities == ("Lake Morrow", "250,000", "Brackton")
    phrases = index_from_openie(docs).phrases
    assert "000" not in phrases and "18 000" in phrases


def test_openie_json_loads_unchanged(tmp_path):
    corpus = [
        Passage("Ed Wood", 'Ed Wood directed "Plan 9". He lived in Burbank.'),
        Passage("X", "It is so."),
    ]
    path = tmp_path / "cooc.json"
    path.write_text(json.dumps(cooccurrence_openie(corpus)))
    docs, report = load_openie(path, corpus=corpus)
    assert docs == cooccurrence_docs(corpus)
    assert report.issues == {"passage_no_triples": 1}  # a passage with one span pairs with nothing


def test_named_spans_split_like_the_question_side():
    assert named_spans("Forbidden Ground and Black Hawk Down were filmed by Ridley Scott's crew.") == [
        "Forbidden Ground",
        "Black Hawk Down",
        "Ridley Scott's",
    ]


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


# --- scripts: sentence ends, names of scripts without case, decomposed text ----------------------


def _nodes(corpus):
    from pathfinding.hipporag.index.build import index_from_openie

    return set(index_from_openie(cooccurrence_docs(corpus)).phrases)


@pytest.mark.parametrize(
    ("passage", "across"),
    [
        (Passage("Толстой", "Он жил в Москве. Он любил Париж."), "москве он"),
        (Passage("Σωκράτης", "Ο Σωκράτης έζησε στην Αθήνα. Ήταν φιλόσοφος."), "αθήνα ήταν"),
    ],
)
def test_names_do_not_run_across_a_sentence_end(passage, across):
    """A Cyrillic or Greek capital after ". " opens a sentence as a Latin one does: the city ends
    its sentence and is a node of its own, not glued to the next sentence's first word."""
    nodes = _nodes([passage])
    assert across not in nodes
    assert across.split()[0] in nodes


@pytest.mark.parametrize(
    ("text", "joined", "apart"),
    [
        # a title line over the text: the name on it and the name that opens the text are one node
        ("Marie Curie\nMarie Curie was born in Warsaw.", "marie curie marie curie", "marie curie"),
        ("# Marie Curie\n\nMarie Curie was born in Warsaw.", "marie curie marie curie", "marie curie"),
        # a section heading (the university case study's passages open with one)
        ("Introduction\nRobert Malenka works at Stanford.", "introduction robert malenka", "robert malenka"),
        ("Early Life and Career\nWarsaw was her home.", "early life and career warsaw", "warsaw"),
        ("Her papers\n\nPierre Curie kept them.", None, "pierre curie"),
        # a short heading in sentence case that ends in a name
        ("Years spent at MRC\nMRC funded her lab.", "mrc mrc", "mrc"),
    ],
)
def test_names_do_not_run_across_a_heading_line(text, joined, apart):
    nodes = _nodes([Passage("doc", text)])
    assert apart in nodes
    assert joined not in nodes


def test_a_name_broken_across_two_lines_of_prose_stays_one_name():
    text = "In 1894, after her studies in Warsaw, she met Pierre\nCurie at the Sorbonne in Paris."
    assert "pierre curie" in _nodes([Passage("doc", text)])


def test_chinese_and_arabic_names_beside_latin_capitals_become_nodes():
    """A passage with capitals used to give only its capitalised spans, so the Chinese and Arabic
    names in it became no node; their content spans now join the sentence's spans."""
    corpus = [
        Passage("Beijing", "Beijing (北京) is the capital of China."),
        Passage("Cairo", "Cairo, القاهرة in Arabic, lies on the Nile."),
    ]
    nodes = _nodes(corpus)
    assert {"北京", "القاهرة", "china", "nile"} <= nodes
    assert ("Beijing", RELATION, "北京") in cooccurrence_triples("Beijing", corpus[0].text)


def test_a_devanagari_passage_gives_whole_words():
    """Without capitals a Devanagari passage gives content spans; each keeps its vowel signs."""
    spans = passage_spans("", "महात्मा गांधी का जन्म पोरबंदर में हुआ। वे वकील थे।")
    assert spans[0][:2] == ["महात्मा गांधी", "गांधी का"] and spans[1] == ["वे वकील थे"]


def test_a_decomposed_corpus_gives_the_composed_nodes():
    """"Zoë Ñúñez founded the Café Société" decomposed (NFD) gave the nodes zoe, n, cafe, socie."""
    import unicodedata

    text = "Zoë Ñúñez founded the Café Société in Paris."
    nodes = {"zoë", "zoë ñúñez", "café société", "paris"}
    nfd = Passage("Zoë", unicodedata.normalize("NFD", text))
    assert _nodes([nfd]) == _nodes([Passage("Zoë", text)]) == nodes
    # the extractor itself, given the decomposed text directly, finds the same names
    from pathfinding.hipporag.language.text import normalize_phrase

    raw = cooccurrence_triples("Zoë", unicodedata.normalize("NFD", text))
    assert {normalize_phrase(x) for a, _, b in raw for x in (a, b)} == nodes
