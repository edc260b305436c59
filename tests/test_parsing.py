"""Model answers: the wrappings and cuts a parser meets, with items and repair counts worked by hand.

Each case is an answer a chat model could send and what a reader finds in it by eye: the triples
that are whole, and which repairs (``code_fence``, ``prose_around_json``, ``truncated``, ...) or
rejections it took to get them; repairs are sound, rejections are counted, nothing is invented.
"""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pathfinding.hipporag.extract.parsing import extract_json_list, parse_entities, parse_triples

ABC = ("a", "b", "c")


@pytest.mark.parametrize(
    "answer, items, issues",
    [
        # prose after the JSON only is still prose around it, counted once
        ('{"triples": [["a", "b", "c"]]} Hope this helps!', [ABC], {"prose_around_json": 1}),
        # the key holds something other than a list: nothing to read
        ('{"triples": "none"}', [], {"no_json": 1}),
        # a whole list under the key, then a broken value: read element by element, nothing cut
        ('{"triples": [["a", "b", "c"]], "note": }', [ABC], {}),
        # a list without its object, broken after its end: read element by element, a bare list
        ('[["a", "b", "c"]] x]', [ABC], {"bare_list": 1}),
        # a list without its object, cut off: its whole elements
        ('[["a", "b", "c"], ["d"', [ABC], {"truncated": 1}),
        # new lines, tabs and carriage returns between the elements of a cut list
        (
            '{"triples":\r\n\t[\r\n\t["a", "b", "c"],\n\t["d", "e", "f"]\n\t',
            [ABC, ("d", "e", "f")],
            {"truncated": 1},
        ),
        # a cut list in Python quotes: the key is found, but no element is JSON
        ("{'triples': [['a', 'b', 'c'], ['d'", [], {"truncated": 1}),
        # the third spelling of an object triple, and a float that becomes its text
        (
            '{"triples": [{"s": "a", "p": "b", "o": "c"}, ["x", 1.5, "y"]]}',
            [ABC, ("x", "1.5", "y")],
            {"triple_from_object": 1, "triple_number_coerced": 1},
        ),
        # true is not a number: the triple is rejected, not turned into "True"
        ('{"triples": [["a", true, "c"]]}', [], {"triple_not_strings": 1}),
        # an object with the keys of no spelling, and a bare string
        (
            '{"triples": [{"subject": "a", "predicate": "b", "object": "c"}, "a b c"]}',
            [],
            {"triple_not_three": 2},
        ),
        # one character of prose after the JSON, or before it
        ('{"triples": [["a", "b", "c"]]}.', [ABC], {"prose_around_json": 1}),
        ('>{"triples": [["a", "b", "c"]]}', [ABC], {"prose_around_json": 1}),
        # a bare list with prose after it: the last closing bracket ends the JSON
        (
            '[["a", "b", "c"], ["d", "e", "f"]] Hope this helps.',
            [ABC, ("d", "e", "f")],
            {"bare_list": 1, "prose_around_json": 1},
        ),
        # a cut list in compact JSON (no space after the commas)
        ('{"triples":[["a","b","c"],["d","e","f"],["g"', [ABC, ("d", "e", "f")], {"truncated": 1}),
        # a cut list with a trailing comma inside an element
        ('{"triples": [["a", "b", "c",], ["d"', [ABC], {"truncated": 1}),
        # a stray word between the elements of a cut list ends the reading there
        ('{"triples": [["a", "b", "c"] X ["d", "e", "f"], ["g"', [ABC], {"truncated": 1}),
        # two numbers in one triple: each slot is counted
        ('{"triples": [["Bled", 1004, 2.5]]}', [("Bled", "1004", "2.5")], {"triple_number_coerced": 2}),
        # a fence with a language tag and no new line, then the JSON
        ('```json {"triples": [["a", "b", "c"]]}```', [ABC], {"code_fence": 1}),
    ],
)
def test_answers_read_by_hand(answer, items, issues):
    """Items and repairs for one answer each, worked out by reading the answer."""
    p = parse_triples(answer)
    assert p.items == items
    assert dict(p.issues) == issues


def test_rejected_items_are_kept_for_the_report_up_to_twenty():
    """Every rejection is counted, but only the first 20 raw items are kept, in order."""
    bad = [[str(i)] for i in range(25)]
    p = parse_triples('{"triples": ' + str(bad).replace("'", '"') + "}")
    assert p.items == [] and dict(p.issues) == {"triple_not_three": 25}
    assert p.rejected == bad[:20]
    e = parse_entities('{"named_entities": [' + ", ".join(["null"] * 21) + ', "Ed"]}')
    assert e.items == ["Ed"] and e.issues["entity_not_string"] == 21 and e.rejected == [None] * 20


def test_an_answer_without_json_is_kept_cut_to_300_characters():
    """An answer with no list at all is kept for the report, its first 300 characters only."""
    answer = "I cannot do that. " * 30  # 540 characters, no bracket
    for p in (parse_triples(answer), parse_entities(answer)):
        assert p.items == [] and dict(p.issues) == {"no_json": 1}
        assert p.rejected == [answer[:300]]


def test_entities_take_numbers_and_floats_as_text():
    """An entity that is a number becomes its text (ints and floats); a bool or a list is rejected."""
    p = parse_entities('{"named_entities": ["Bled", 1004, 2.5, false, ["x"]]}')
    assert p.items == ["Bled", "1004", "2.5"]
    assert dict(p.issues) == {"entity_number_coerced": 2, "entity_not_string": 2}
    assert p.rejected == [False, ["x"]]


def test_extract_json_list_returns_the_raw_list_and_counts():
    """The list under the key is returned as parsed (lists, not tuples), with the repairs made."""
    values, issues = extract_json_list("Here: {'named_entities': ['A', 'B',]}", "named_entities")
    assert values == ["A", "B"]
    assert dict(issues) == {"prose_around_json": 1, "python_literal": 1}
    assert extract_json_list("no brackets here", "triples") == (None, {"no_json": 1})


def test_each_rejected_triple_is_kept_as_it_was():
    """The report shows every rejected triple as the model wrote it, whatever the reason."""
    p = parse_triples(
        '{"triples": [{"subject": "a"}, ["a", "b"], ["a", null, "c"], ["a", " ", "c"], ["x", "y", "z"]]}'
    )
    assert p.items == [("x", "y", "z")]
    assert p.rejected == [{"subject": "a"}, ["a", "b"], ["a", None, "c"], ["a", " ", "c"]]
    assert dict(p.issues) == {"triple_not_three": 2, "triple_not_strings": 1, "triple_empty_part": 1}


@pytest.mark.parametrize(
    "answer, items, issues",
    [
        ('{"triples": [["a", "b", "c"]]}', [("a", "b", "c")], {}),
        ('```json\n{"triples": [["a", "b", "c"]]}\n```', [("a", "b", "c")], {"code_fence": 1}),
        ('```\n{"triples": [["a", "b", "c"]]}', [("a", "b", "c")], {"code_fence": 1}),  # fence never closed
        (
            'Here are the triples:\n{"triples": [["a", "b", "c"]]}\nHope this helps!',
            [("a", "b", "c")],
            {"prose_around_json": 1},
        ),
        (
            '{"triples": [["a", "b", "c"], ["d", "e", "f"],]}',
            [("a", "b", "c"), ("d", "e", "f")],
            {"trailing_comma": 1},
        ),
        ("{'triples': [['a', 'b', 'c']]}", [("a", "b", "c")], {"python_literal": 1}),
        ('[["a", "b", "c"]]', [("a", "b", "c")], {"bare_list": 1}),
        (
            '{"triples": [["a", "b", "c"], ["d", "e", "f"], ["g", "h',
            [("a", "b", "c"), ("d", "e", "f")],
            {"truncated": 1},
        ),
        ('{"triples": [["a", "b", "c"], ["d"', [("a", "b", "c")], {"truncated": 1}),
        ('{"triples": [', [], {"truncated": 1}),
        ("I cannot help with that.", [], {"no_json": 1}),
        ('{"named_entities": ["a"]}', [], {"no_json": 1}),
        ('{"triples": [["a", "b", "c", "d"], ["a", "b"], "abc"]}', [], {"triple_not_three": 3}),
        ('{"triples": [["a", null, "c"], ["a", ["b"], "c"]]}', [], {"triple_not_strings": 2}),
        ('{"triples": [["a", " ", "c"]]}', [], {"triple_empty_part": 1}),
        (
            '{"triples": [["Bled", "founded", 1004]]}',
            [("Bled", "founded", "1004")],
            {"triple_number_coerced": 1},
        ),
        (
            '{"triples": [{"subject": "a", "relation": "b", "object": "c"}, '
            '{"head": "d", "relation": "e", "tail": "f"}]}',
            [("a", "b", "c"), ("d", "e", "f")],
            {"triple_from_object": 2},
        ),
        ('{"triples": [{"subject": "a", "object": "c"}]}', [], {"triple_not_three": 1}),
    ],
)
def test_parse_triples_cases(answer, items, issues):
    p = parse_triples(answer)
    assert p.items == items
    assert dict(p.issues) == issues
    # A rejection keeps the raw item (or the raw answer) for the report.
    if any(k.startswith("triple_not") or k in ("triple_empty_part", "no_json") for k in issues):
        assert p.rejected


def test_parse_entities_cases():
    assert parse_entities('{"named_entities": ["A", "A", "B"]}').items == ["A", "A", "B"]  # kept as given
    p = parse_entities('Sure.\n```json\n{"named_entities": ["A", 2009, {"x": 1}, true]}\n```')
    assert p.items == ["A", "2009"]
    assert dict(p.issues) == {"code_fence": 1, "entity_number_coerced": 1, "entity_not_string": 2}
    assert parse_entities('{"named_entities": ["Ed Wood", "Plan').items == ["Ed Wood"]
    assert parse_entities("").issues == {"no_json": 1}


_text = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)


@given(
    triples=st.lists(st.tuples(_text, _text, _text).filter(lambda t: all(x.strip() for x in t)), max_size=6),
    cut=st.floats(0, 1),
    fence=st.booleans(),
    prose=st.booleans(),
)
def test_truncated_answers_never_invent_a_triple(triples, cut, fence, prose):
    """Whatever the wrapping and wherever the answer is cut, the triples read are a prefix of the truth."""
    body = json.dumps({"triples": [list(t) for t in triples]})
    if fence:
        body = "```json\n" + body + "\n```"
    if prose:
        body = "Here you go:\n" + body
    answer = body[: int(round(cut * len(body)))]
    got = parse_triples(answer).items
    assert got == triples[: len(got)]
    if cut == 1:
        assert got == triples


def test_extract_json_list_reports_every_repair():
    values, issues = extract_json_list(
        'Answer: ```json\n{"triples": [["a", "b", "c"],]}\n``` done', "triples"
    )
    assert values == [["a", "b", "c"]]
    assert dict(issues) == {"code_fence": 1, "trailing_comma": 1}
