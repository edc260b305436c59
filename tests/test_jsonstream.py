"""Reading one list of a JSON object item by item: the items json.loads would give, and json's own
error for every text it refuses, whatever the chunk size (down to one byte: every token, string
and UTF-8 character cut somewhere)."""

import gzip
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathfinding.errors import FormatError
from pathfinding.hipporag.io.jsonstream import iter_list

EXPECTED = "an object with a 'docs' list"

scalars = st.none() | st.booleans() | st.integers(-(10**20), 10**20) | st.floats(allow_nan=False) | st.text()
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner,
                      max_size=4), max_leaves=12)  # fmt: skip
objects = st.dictionaries(st.text(max_size=5).filter(lambda k: k != "docs"), values, max_size=3)


def _read(path, chunk):
    return list(iter_list(path, "docs", expected=EXPECTED, chunk=chunk))


def _expected(text: str):
    """What a whole parse says: the items, or the error's text."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return f"not valid JSON ({exc})"
    if not isinstance(data, dict):
        return f"expected {EXPECTED}, got {type(data).__name__}"
    if not isinstance(data.get("docs"), list):
        return f"expected {EXPECTED}, got keys {sorted(data)}"
    return list(enumerate(data["docs"]))


def _streamed(path, chunk):
    try:
        return _read(path, chunk)
    except FormatError as exc:
        return str(exc).removeprefix(f"{path}: ")


@settings(max_examples=150, deadline=None)
@given(
    before=objects, docs=st.lists(values, max_size=5), after=objects, indent=st.sampled_from([None, 1]),
    chunk=st.sampled_from([1, 2, 3, 7, 64]), cut=st.integers(0, 10**6),
    edit=st.sampled_from(["", "drop", "add"]),
    junk=st.sampled_from([",", "}", "]", '"', "x", "1", " ", "\n", "{"]),
)  # fmt: skip
def test_items_and_errors_are_those_of_a_whole_parse(
    tmp_path_factory, before, docs, after, indent, chunk, cut, edit, junk
):
    """A valid file gives json.loads' items; a file damaged at one place (a character dropped or one
    added) gives json's error, at json's line, column and character."""
    obj = {**before, "docs": docs, **after}
    text = json.dumps(obj, indent=indent, ensure_ascii=False)
    if edit:
        at = cut % (len(text) + 1)
        text = text[:at] + text[at + 1 :] if edit == "drop" else text[:at] + junk + text[at:]
    if text.count('"docs"') > 1:
        return  # a second key "docs" is refused by name (test below), where json keeps the last
    path = tmp_path_factory.mktemp("j") / "o.json"
    path.write_text(text, encoding="utf-8")
    assert _streamed(path, chunk) == _expected(text)


def test_a_second_docs_key_is_refused_not_silently_replaced(tmp_path):
    path = tmp_path / "o.json"
    path.write_text('{"docs": [1], "docs": [2]}')
    with pytest.raises(FormatError, match=r"o.json: 'docs' appears twice; expected an object with"):
        _read(path, 4)


@pytest.mark.parametrize(
    "text, got",
    [
        ("[1, 2]", "got list"),
        ('"docs"', "got str"),
        ("{}", r"got keys \[\]"),
        ('{"doc": []}', r"got keys \['doc'\]"),
        ('{"docs": {}, "n": 1}', r"got keys \['docs', 'n'\]"),
    ],
)
def test_a_file_without_the_list_names_what_it_holds(tmp_path, text, got):
    path = tmp_path / "o.json"
    path.write_text(text)
    with pytest.raises(FormatError, match=rf"o.json: expected an object with a 'docs' list, {got}$"):
        _read(path, 3)


def test_gzip_utf8_and_their_errors(tmp_path):
    obj = {"docs": [{"title": "Südhof", "text": "東京 " * 50}], "n": 1.5}
    raw = json.dumps(obj, ensure_ascii=False).encode()
    (tmp_path / "o.json.gz").write_bytes(gzip.compress(raw))
    (tmp_path / "o.bin").write_bytes(gzip.compress(raw))  # gzip's magic bytes, whatever the name
    for name in ("o.json.gz", "o.bin"):
        assert _read(tmp_path / name, 5) == [(0, obj["docs"][0])]
    (tmp_path / "cut.json.gz").write_bytes(gzip.compress(raw)[:-12])
    with pytest.raises(FormatError, match=r"cut.json.gz: not a readable gzip file \(EOFError"):
        _read(tmp_path / "cut.json.gz", 5)
    at = raw.index("京".encode()) + 1  # inside a character: the byte is where read_text says it is
    (tmp_path / "bad.json").write_bytes(raw[:at] + b"\xff" + raw[at + 1 :])
    with pytest.raises(FormatError, match=rf"bad.json: not UTF-8 text \(byte {at - 1}: invalid continuation"):
        _read(tmp_path / "bad.json", 7)
    with pytest.raises(FormatError, match="Expecting value: line 1 column 1"):
        (tmp_path / "empty.json").write_text("")
        _read(tmp_path / "empty.json", 5)


def test_items_come_one_at_a_time(tmp_path):
    """The first item is handed over before the rest of the file is read (here, before its damage)."""
    path = tmp_path / "o.json"
    path.write_text('{"docs": [{"a": 1}, ' + " " * 5000 + "{oops")
    items = iter_list(path, "docs", expected=EXPECTED, chunk=64)
    assert next(items) == (0, {"a": 1})
    with pytest.raises(FormatError, match="not valid JSON"):
        next(items)
