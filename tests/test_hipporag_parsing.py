"""Parsing model answers: repairs that are sound, rejections that are counted, nothing invented."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pathfinding.hipporag.extract.parsing import extract_json_list, parse_entities, parse_triples


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
