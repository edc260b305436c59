"""Index files: a bit-identical round trip without pickle, and every malformed part refused by name.

The malformed files are written by hand from the layout in the module docstring of
``pathfinding.hipporag.index.persistence`` (magic, version, two uint64 lengths, JSON header, array
block, SHA-256), not through ``save_index``: each case changes one part of a good file, reseals it
with a correct checksum, and expects a ``FormatError`` whose message starts with the file's name
and names the part and the value that is wrong (the package's error standard).
"""

import dataclasses
import functools
import hashlib
import json
import os
import re
import struct
import tempfile
import threading
from unittest.mock import patch

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from pathfinding.errors import FileBusyError, FormatError, InvalidTypeError, InvalidValueError
from pathfinding.hipporag.index import persistence
from pathfinding.hipporag.index.build import build_index, index_from_openie
from pathfinding.hipporag.index.encoder import CharNgramEncoder
from pathfinding.hipporag.index.maintenance import add_passages
from pathfinding.hipporag.index.neighbours import SEARCH_BUDGET
from pathfinding.hipporag.index.persistence import (
    FORMAT_VERSION,
    MAGIC,
    decode_labels,
    encode_triples,
    id_triple_counts,
    load_index,
    read_triples,
    save_index,
)
from pathfinding.hipporag.io import load_openie
from pathfinding.hipporag.language.casing import CasingModel, Texts, casing_model
from pathfinding.hipporag.retrieval.retrieve import HippoRetriever
from pathfinding.hipporag.storage.datasets import fetch
from pathfinding.hipporag.storage.safety import atomic_write, exclusive_lock
from tests.conftest import Table, lock_is_held
from tests.test_maintenance import FROZEN, assert_same_index, assert_same_retrieval, passage_st

TRIPLES = [[("Ed Wood", "directed", "Plan 9")], [("Plan 9", "filmed in", "Burbank")]]
TEXTS = ["Ed Wood directed Plan 9.", "Plan 9 was filmed in Burbank."]
PREFIX = struct.Struct("<8sIQQ")  # magic, version, header length, array-block length


def _split(raw: bytes):
    """(version, header dict, array block) of a file, read by the documented layout."""
    _, version, n_head, n_arr = PREFIX.unpack_from(raw)
    header = json.loads(raw[PREFIX.size : PREFIX.size + n_head])
    block = bytearray(raw[PREFIX.size + n_head : PREFIX.size + n_head + n_arr])
    assert len(raw) == PREFIX.size + n_head + n_arr + 32
    return version, header, block


def _seal(header, block, *, version=FORMAT_VERSION, head: bytes | None = None) -> bytes:
    head = json.dumps(header).encode() if head is None else head
    body = PREFIX.pack(b"PFHIPIDX", version, len(head), len(block)) + head + bytes(block)
    return body + hashlib.sha256(body).digest()


@pytest.fixture()
def good(tmp_path):
    """A saved three-phrase, two-passage index: its path, header and array block."""
    path = tmp_path / "g.hippo"
    save_index(build_index(TRIPLES, passages=TEXTS), path)
    _, header, block = _split(path.read_bytes())
    return path, header, block


def _refused(path, header, block, message):
    path.write_bytes(_seal(header, block))
    with pytest.raises(FormatError, match="^" + re.escape(f"{path}: ") + message + "$"):
        load_index(path)


def test_the_file_layout_is_the_documented_one(good):
    """The header lists every array with its dtype, shape and 8-aligned offset in the block, and the
    arrays hold the index: phrases sorted, the relation graph's one edge per triple each way."""
    path, header, block = good
    assert header["phrases"] == ["burbank", "ed wood", "plan 9"]
    table = header["arrays"]
    assert all(spec["offset"] % 8 == 0 for spec in table.values())

    def read(key):
        spec = table[key]
        count = int(np.prod(spec["shape"]))
        return np.frombuffer(block, spec["dtype"], count, spec["offset"]).reshape(spec["shape"])

    # the text is in the block, not in the JSON: the passages as UTF-8 and their ends, the triples
    # as (subject, relation, object) ids into the phrases and the relations
    assert header["passages"] == {"texts": "passages.texts", "ends": "passages.ends"}
    assert read("passages.texts").tobytes() == "".join(TEXTS).encode()
    assert read("passages.ends").tolist() == [len(TEXTS[0]), len(TEXTS[0]) + len(TEXTS[1])]
    assert read("triples.ids").tolist() == [[1, 0, 2], [2, 1, 0]] and read("triples.ends").tolist() == [1, 2]
    assert read("triples.relations.texts").tobytes() == b"directedfilmed in"

    R = sp.csr_array(
        (read("relation_graph.data"), read("relation_graph.indices"), read("relation_graph.indptr")),
        shape=header["matrices"]["relation_graph"]["shape"],
    )
    # ed wood (1) - plan 9 (2) and plan 9 (2) - burbank (0), symmetric, weight 1
    np.testing.assert_array_equal(R.toarray(), [[0, 0, 1], [0, 0, 1], [1, 1, 0]])
    assert read("dropped").tolist() == [0, 0]
    back = load_index(path)
    np.testing.assert_array_equal(back.relation_graph.toarray(), R.toarray())


def test_a_loaded_index_has_the_saved_dtypes(good):
    """Every array comes back with the dtype the header gives it (the CSR index arrays keep their
    integer width: loading is bit for bit), as a private writable copy."""
    path, header, _ = good
    back = load_index(path)
    table = header["arrays"]
    for key in ("relation_graph", "mentions", "pairs"):
        M = getattr(back, key)
        for part in ("data", "indices", "indptr"):
            a = getattr(M, part)
            assert a.dtype == np.dtype(table[f"{key}.{part}"]["dtype"]), (key, part)
        assert M.data.flags.writeable
    assert table["relation_graph.indices"]["dtype"] in ("<i4", "<i8") and table["dropped"]["dtype"] == "<i8"
    _, _, idf = back.encoder.get_state()
    assert idf.dtype == np.float64 and idf.flags.writeable


def _edit(header, dotted: str, value):
    *keys, last = dotted.split("/")
    d = header
    for k in keys:
        d = d[k]
    if value is _DELETE:
        del d[last]
    else:
        d[last] = value


class _Deleted:
    def __repr__(self):
        return "deleted"  # a stable test id


_DELETE = _Deleted()

# (part of the header to change, its new value, the message after "<file>: ")
HEADER_CASES = [
    ("arrays", _DELETE, r"header field 'arrays' must be dict, got NoneType"),
    ("settings", [], r"header field 'settings' must be dict, got list"),
    ("phrases", "abc", r"header field 'phrases' must be list, got str"),
    ("passages", "abc", r"header field 'passages' must be list \| dict, got str"),
    ("passages", {}, r"header field 'passages' is malformed \('texts'\)"),
    ("passages", [1, 2], r"header field 'passages' must list strings"),
    ("passages/ends", "dropped", r"header field 'passages' is malformed \(text ends must rise from 0 to the "
     r"\d+ bytes\)"),
    ("matrices", [], r"header field 'matrices' must be dict, got list"),
    ("triples", "abc", r"header field 'triples' must be list \| dict, got str"),
    ("phrases", ["burbank", 1, "plan 9"], r"header field 'phrases' must list strings"),
    ("passages/texts", "nope", r"array 'nope' is missing or has an unsupported dtype"),
    ("triples/ids", "nope", r"array 'nope' is missing or has an unsupported dtype"),
    ("triples", {}, r"header field 'triples' is malformed \('ids'\)"),
    ("triples/ids", "dropped", r"header field 'triples' is malformed \(ids int64\[2\], ends int64\[2\]\)"),
    ("triples/ends", "dropped", r"header field 'triples' is malformed \(the passages' ends do not rise to "
     r"the 2 triples\)"),
    ("triples/relations/texts", "passages.texts", r"header field 'triples' is malformed \(text ends must "
     r"rise from 0 to the \d+ bytes\)"),
    ("encoder", "char_ngram", r"header field 'encoder' must be dict, got str"),
    ("arrays/dropped/dtype", "<f2", r"array 'dropped' is missing or has an unsupported dtype"),
    ("arrays/dropped/shape", [-2], r"array 'dropped' has a bad shape \[-2\]"),
    ("arrays/dropped/shape", [2.0], r"array 'dropped' has a bad shape \[2\.0\]"),
    ("arrays/dropped/shape", "2", r"array 'dropped' has a bad shape '2'"),
    ("arrays/dropped/offset", -8, r"array 'dropped' lies outside the array block"),
    ("arrays/dropped/offset", "0", r"array 'dropped' lies outside the array block"),
    ("matrices/pairs", _DELETE, r"matrix 'pairs' has no valid description"),
    ("matrices/pairs/kind", "coo", r"matrix 'pairs' has no valid description"),
    ("matrices/pairs/shape", _DELETE, r"matrix 'pairs' is not a valid CSR matrix \(.*\)"),
    ("matrices/mentions/shape", [3, 3], r"matrix 'mentions' has shape \(3, 3\), expected \(3, 2\)"),
    ("matrices/pairs/shape", [3, 4], r"matrix 'pairs' has shape \(3, 4\), expected \(3, 3\)"),
    (
        "matrices/relation_graph/shape",
        [3, 5],
        r"matrix 'relation_graph' has shape \(3, 5\), expected \(3, 3\)",
    ),
    ("passages", ["only one"], r"per-passage fields disagree on the number of passages \(2\)"),
    ("arrays/dropped/shape", [1], r"per-passage fields disagree on the number of passages \(2\)"),
    ("phrases", ["burbank", "plan 9", "ed wood"], r"phrases must be sorted and distinct"),
    ("phrases", ["burbank", "burbank", "plan 9"], r"phrases must be sorted and distinct"),
    (
        "settings/tau",
        _DELETE,
        r"settings lack a key \(got \['fit_encoder', 'max_synonyms', 'normalization', 'search_budget', "
        r"'synonymy'\]\)",
    ),
    (
        "settings/fit_encoder",
        _DELETE,
        r"settings lack a key \(got \['max_synonyms', 'normalization', 'search_budget', 'synonymy', "
        r"'tau'\]\)",
    ),
    ("triples", [[["a", "b"]], []], r"header field 'triples' is malformed \(.*\)"),
    (
        "triples",
        [[["a", "b", 3]], []],
        r"header field 'triples' is malformed \(triple elements must be strings\)",
    ),
    ("triples", [5, []], r"header field 'triples' is malformed \(.*\)"),
    ("encoder/kind", "word2vec", r"unknown encoder kind 'word2vec'"),
    ("encoder/grams", _DELETE, r"the CharNgramEncoder state is malformed \(.*'grams'.*\)"),
    (
        "encoder/params",
        {"ngram_range": [3, 3]},
        r"the CharNgramEncoder state is malformed \(.*'analyzer'.*\)",
    ),
]


@pytest.mark.parametrize(
    "where, value, message", HEADER_CASES, ids=[f"{w}={v!r}" for w, v, _ in HEADER_CASES]
)
def test_a_malformed_header_is_refused_by_name(good, where, value, message):
    """One part of a good header changed, the checksum correct: the error names the file and the
    part (field, array or matrix) and, where it has one, the value found."""
    path, header, block = good
    _edit(header, where, value)
    _refused(path, header, block, message)


def test_an_array_that_runs_past_the_block_is_refused(good):
    """An array whose start is inside the block but whose end is not (the two dropped counts moved
    to the last 8 bytes) lies outside the block; one ending exactly at the end (the last written, an
    int64 array) does not."""
    path, header, block = good
    last = max(header["arrays"].values(), key=lambda spec: spec["offset"])
    assert last["offset"] + int(np.prod(last["shape"])) * np.dtype(last["dtype"]).itemsize == len(block)
    load_index(path)
    header["arrays"]["dropped"]["offset"] = len(block) - 8
    _refused(path, header, block, r"array 'dropped' lies outside the array block")


def test_a_csr_matrix_with_a_column_out_of_range_is_refused(good):
    """Column indices are checked in full: a column index past the matrix's width is refused."""
    path, header, block = good
    spec = header["arrays"]["relation_graph.indices"]
    code = {"<i4": "<i", "<i8": "<q"}[spec["dtype"]]
    struct.pack_into(code, block, spec["offset"], 7)  # the first edge now points at column 7 of 3
    _refused(path, header, block, r"matrix 'relation_graph' is not a valid CSR matrix \(.*\)")


def test_node_embeddings_with_too_few_rows_are_refused(good):
    """A dense embedding matrix must have one row per phrase."""
    path, header, block = good
    header["matrices"]["node_embeddings"] = {"kind": "dense", "shape": [2, 1]}
    header["arrays"]["node_embeddings.dense"] = {"dtype": "<f8", "shape": [2, 1], "offset": 0}
    _refused(path, header, block, r"node_embeddings has 2 rows, expected 3")


def test_a_broken_container_is_named(good):
    """The prefix checks, in order: magic (the first bytes shown), a prefix of the magic that is too
    short, the version, the length either way, the checksum, then the header's JSON and its type."""
    path, header, block = good
    raw = _seal(header, block)
    name = re.escape(str(path))
    cases = [
        (
            b"GIF89a....",
            rf"^{name}: not a pathfinding HippoRAG index \(starts with b'GIF89a\.\.', "
            r"expected b'PFHIPIDX'\)$",
        ),
        (b"PFHI", rf"^{name}: truncated: 4 bytes, shorter than the 28-byte prefix$"),
        (raw[:27], rf"^{name}: truncated: 27 bytes, shorter than the 28-byte prefix$"),
        (raw[:28], rf"^{name}: truncated: 28 bytes, the prefix says {len(raw)}$"),
        (
            _seal(header, block, version=FORMAT_VERSION + 1),
            rf"^{name}: index format version {FORMAT_VERSION + 1}; this pathfinding reads version "
            rf"{FORMAT_VERSION} ",
        ),
        (raw[:-1], rf"^{name}: truncated: {len(raw) - 1} bytes, the prefix says {len(raw)}$"),
        (raw + b"xy", rf"^{name}: has trailing bytes: {len(raw) + 2} bytes, the prefix says {len(raw)}$"),
        (raw[:-1] + bytes([raw[-1] ^ 1]), rf"^{name}: checksum mismatch: "),
        (_seal(None, block, head=b"\xff\xfe{}"), rf"^{name}: header is not UTF-8 JSON \(.*\)$"),
        (_seal(None, block, head=b"{'a': 1}"), rf"^{name}: header is not UTF-8 JSON \(.*\)$"),
        (_seal([1, 2], block), rf"^{name}: header must be a JSON object, got list$"),
    ]
    for data, pattern in cases:
        path.write_bytes(data)
        with pytest.raises(FormatError, match=pattern):
            load_index(path)


def test_a_custom_encoder_is_checked_and_named(tmp_path):
    """The file records the custom encoder's class by module and name; loading needs the encoder
    again, checks it on the stored embeddings (a wrong row is refused, naming the class and how many
    phrases were checked); an encoder given for a file that stores its own is refused by file name."""
    idx = build_index([[("cat", "is a", "pet")], [("kitten", "likes", "dog")]], encoder=Table())
    path = tmp_path / "c.hippo"
    save_index(idx, path)
    _, header, _ = _split(path.read_bytes())
    assert header["encoder"] == {"kind": "custom", "class": "tests.conftest.Table"}
    cls = re.escape("tests.conftest.Table")
    with pytest.raises(
        InvalidValueError, match=rf"^{re.escape(str(path))} was built with a custom encoder \({cls}\)"
    ):
        load_index(path)
    assert load_index(path, encoder=Table()).phrases == ["cat", "dog", "kitten", "pet"]

    class Wrong(Table):
        table = {**Table.table, "pet": [1.0, 0.0]}  # the fourth phrase differs

    with pytest.raises(InvalidValueError, match=rf"checked on the first 4 phrases\): .*\({cls}\)$"):
        load_index(path, encoder=Wrong())

    class Wide(Table):
        table = {k: [*v, 0.0] for k, v in Table.table.items()}  # same values, a third column

    with pytest.raises(InvalidValueError, match="does not reproduce the embeddings"):
        load_index(path, encoder=Wide())
    own = tmp_path / "own.hippo"
    save_index(build_index(TRIPLES), own)
    with pytest.raises(InvalidValueError, match=rf"^{re.escape(str(own))} stores its own CharNgramEncoder"):
        load_index(own, encoder=Table())


def test_a_version_2_file_with_its_text_in_the_header_loads(good):
    """Version 2 kept the passages and triples as JSON lists in the header: such a file loads the
    same index (the triples' texts pooled: one object per phrase)."""
    path, header, block = good
    want = load_index(path)
    header["passages"] = TEXTS
    header["triples"] = [[["ed wood", "directed", "plan 9"]], [["plan 9", "filmed in", "burbank"]]]
    path.write_bytes(_seal(header, block, version=2))
    back = load_index(path)
    assert_same_index(back, want)
    assert back.passages == TEXTS and back.triples == want.triples == read_triples(path)
    assert back.triples[0][0][2] is back.triples[1][0][0] is back.phrases[2]


def test_an_id_outside_its_list_is_refused(good):
    """A subject id past the phrases (written into the block, the file resealed) is named."""
    path, header, block = good
    at = header["arrays"]["triples.ids"]["offset"]
    block[at : at + 4] = (99).to_bytes(4, "little")
    _refused(path, header, block, r"header field 'triples' is malformed \(a subject id outside \[0, 3\)\)")


def test_a_triple_that_names_no_phrase_is_not_saved(tmp_path):
    """An index put together by hand whose triple names something that is no node: refused by name
    (no file), not a KeyError."""
    idx = build_index(TRIPLES, passages=TEXTS)
    odd = dataclasses.replace(idx, triples=[(("ed wood", "directed", "plan 10"),), idx.triples[1]])
    with pytest.raises(InvalidValueError, match=r"a triple names 'plan 10', which is no phrase of the index"):
        save_index(odd, tmp_path / "odd.hippo")
    odd = dataclasses.replace(idx, triples=[(("ed wood", "directed"),), idx.triples[1]])
    arity = r"a triple must be \(subject, relation, object\), got \('ed wood', 'directed'\)"
    with pytest.raises(InvalidValueError, match=arity):
        save_index(odd, tmp_path / "odd.hippo")
    assert not (tmp_path / "odd.hippo").exists()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.tuples(st.sampled_from("abcd"), st.sampled_from("rq"), st.sampled_from("abcd")),
                         max_size=5), max_size=6))
def test_the_triples_are_counted_on_their_ids_as_on_their_texts(docs):
    """A load counts the distinct and self-loop triples on the ids it read: the counts of the texts,
    duplicates and self-loops included, by the int64 key and by the row sort (too many ids for a key)."""
    from pathfinding.hipporag.index.build import triple_counts

    arrays = {}

    def add(name, a):
        arrays[name] = a
        return name

    encode_triples(docs, list("abcd"), add)
    want = triple_counts(docs)
    assert id_triple_counts(arrays["triples.ids"], 4) == want
    assert id_triple_counts(arrays["triples.ids"], 2**40) == want
    whole = dict(arrays)
    with patch.object(persistence, "_TRIPLE_SLICE", 1):  # one passage at a time: the same ids
        encode_triples(docs, list("abcd"), add)
    assert all(np.array_equal(whole[k], arrays[k]) for k in whole) and whole.keys() == arrays.keys()


def test_the_triples_alone_are_read_without_the_encoder(tmp_path):
    """read_triples gives load_index's triples and asks for no encoder; a file that is not an index
    is refused by name."""
    path = tmp_path / "c.hippo"
    save_index(build_index([[("cat", "is a", "pet")], [("kitten", "likes", "dog")]], encoder=Table()), path)
    assert read_triples(path) == load_index(path, encoder=Table()).triples
    (tmp_path / "notes.txt").write_text("not an index")
    with pytest.raises(FormatError, match=re.escape(str(tmp_path / "notes.txt"))):
        read_triples(tmp_path / "notes.txt")


def test_only_an_index_is_saved(tmp_path):
    """save_index names the type it was given instead of an index."""
    with pytest.raises(InvalidTypeError, match=r"^index must be a HippoIndex, got dict$"):
        save_index({}, tmp_path / "x.hippo")
    assert not list(tmp_path.iterdir())


def test_an_embeddings_endpoint_is_recorded_not_called(good):
    """A file whose encoder is an embeddings endpoint loads an EmbeddingEncoder for that URL, model
    and dimension (nothing is sent); a record without its model is refused by name; an encoder given
    for such a file is checked on the stored embeddings and used instead."""
    from pathfinding.hipporag.index.embeddings import EmbeddingEncoder

    path, header, block = good
    enc = load_index(path).encoder  # reproduces the stored embeddings
    header["encoder"] = {"kind": "embeddings", "base_url": "http://127.0.0.1:9/v1", "model": "tiny", "dim": 3}
    path.write_bytes(_seal(header, block))
    back = load_index(path)
    assert type(back.encoder) is EmbeddingEncoder
    assert (back.encoder.model, back.encoder.dim) == ("tiny", 3)
    assert load_index(path, encoder=enc).encoder is enc
    del header["encoder"]["model"]
    _refused(path, header, block, r"the embeddings endpoint record is malformed \('model'\)")


def _turned(v, angle):
    c, s = np.cos(angle), np.sin(angle)
    return [c * v[0] - s * v[1], s * v[0] + c * v[1]]


@pytest.mark.parametrize("angle", [5e-9, 1e-6])
def test_a_custom_encoder_must_match_to_a_billionth(tmp_path, angle):
    """The given encoder must reproduce the stored rows to 1e-9 in absolute terms, with no relative
    slack: "kitten" (0.6, 0.8) turned by 5e-9 or 1e-6 radians (still a unit row) is refused."""
    idx = build_index([[("cat", "is a", "pet")], [("kitten", "likes", "dog")]], encoder=Table())
    save_index(idx, tmp_path / "c.hippo")

    class Turned(Table):
        table = {**Table.table, "kitten": _turned(Table.table["kitten"], angle)}

    with pytest.raises(InvalidValueError, match="does not reproduce the embeddings"):
        load_index(tmp_path / "c.hippo", encoder=Turned())


def test_a_custom_encoder_is_checked_on_the_first_64_phrases(tmp_path):
    """Of a 70-phrase index, the first 64 phrases are checked, and the message says so; an encoder
    that returns the wrong number of rows is named as "encoder"."""
    words = [f"w{i:02d}" for i in range(70)]
    vec = {w: _turned([1.0, 0.0], i / 100) for i, w in enumerate(words)}

    class Words:
        def __call__(self, texts):
            return np.array([vec.get(t, [0.0, 0.0]) for t in texts])

    idx = build_index([[(w, "is", words[0])] for w in words[1:]], encoder=Words(), synonymy=False)
    path = tmp_path / "w.hippo"
    save_index(idx, path)
    assert load_index(path, encoder=Words()).phrases == words

    class Off(Words):
        def __call__(self, texts):
            return super().__call__(texts)[:, ::-1]

    with pytest.raises(InvalidValueError, match=r"checked on the first 64 phrases\)"):
        load_index(path, encoder=Off())

    class Short(Words):
        def __call__(self, texts):
            return super().__call__(texts)[:-1]

    with pytest.raises(
        InvalidValueError, match=r"^encoder must return one row per text \(64\), got 63 rows$"
    ):
        load_index(path, encoder=Short())


def test_a_sparse_custom_encoder_round_trips(tmp_path):
    """A custom encoder's rows are compared with the stored rows as numbers: sparse rows against
    sparse stored rows, and dense rows with the same values against them too."""

    class Sparse(Table):
        def __call__(self, texts):
            return sp.csr_array(super().__call__(texts))

    idx = build_index([[("cat", "is a", "pet")], [("kitten", "likes", "dog")]], encoder=Sparse())
    assert sp.issparse(idx.node_embeddings)
    save_index(idx, tmp_path / "s.hippo")
    back = load_index(tmp_path / "s.hippo", encoder=Sparse())
    np.testing.assert_array_equal(back.node_embeddings.toarray(), idx.node_embeddings.toarray())
    assert load_index(tmp_path / "s.hippo", encoder=Table()).phrases == ["cat", "dog", "kitten", "pet"]


def test_an_older_file_without_a_normalization_setting_loads(good):
    """The four settings every file has are enough: a file from before the normalisation rule was
    recorded loads, with v1's ASCII rule."""
    from pathfinding.hipporag.language.text import index_normalization

    path, header, block = good
    del header["settings"]["normalization"]
    del header["settings"]["search_budget"]  # and the neighbour search's budget
    del header["casing"]  # such a file predates the saved casing model too
    path.write_bytes(_seal(header, block))
    back = load_index(path)
    assert set(back.settings) == {"tau", "max_synonyms", "synonymy", "fit_encoder"}
    assert index_normalization(back.settings) == "ascii"
    # its casing model is derived from the passages, by the index's rule
    assert casing_model(back) == CasingModel.from_passages(TEXTS, normalization="ascii")


def test_the_casing_model_round_trips_and_is_not_counted_again(good, monkeypatch):
    """The model is in the file, its texts as UTF-8 bytes in the array block (no JSON string per
    name): loading hands it to the index, which never counts its passages."""
    path, header, block = good
    want = casing_model(build_index(TRIPLES, passages=TEXTS))
    spec = header["arrays"][header["casing"]["arrays"]["keys"]]
    raw = bytes(block[spec["offset"] : spec["offset"] + spec["shape"][0]])
    assert spec["dtype"] == "|u1" and raw.decode() == "".join(want.keys)
    assert not any(isinstance(v, list) for v in header["casing"].values())
    monkeypatch.setattr(CasingModel, "from_passages", None)  # counting again would fail
    back = load_index(path)
    assert casing_model(back) == want and casing_model(back).evidence("ed wood").form == "Ed Wood"


def test_a_version_2_casing_model_loads(good, monkeypatch):
    """Version 2 kept the model's keys and forms as JSON lists in the header: such a file loads the
    same model, and its lists are checked as the model's constructor checks them."""
    path, header, block = good
    want = casing_model(build_index(TRIPLES, passages=TEXTS))
    arrays = header["casing"]["arrays"]
    for name in ("keys", "key_ends", "forms", "form_ends"):
        del arrays[name]
    header["casing"] |= {"keys": list(want.keys), "forms": list(want.forms)}
    path.write_bytes(_seal(header, block, version=2))
    monkeypatch.setattr(CasingModel, "from_passages", None)
    assert casing_model(load_index(path)) == want
    header["casing"]["keys"] = header["casing"]["keys"][::-1]
    _refused(path, header, block, r"the casing model is malformed \(casing model keys must be sorted and "
             r"distinct\)")  # fmt: skip
    header["casing"]["keys"] = "ed wood"
    _refused(path, header, block, r"the casing model is malformed \(its keys and forms must be lists of "
             r"strings\)")  # fmt: skip


CASING_CASES = [
    ("casing/params/normalization", "ascii", r"the casing model was normalised by the rule 'ascii', the "
     r"index by 'unicode'"),
    ("casing/arrays/forms", _DELETE, r"the casing model is malformed \(a casing model's state lacks "
     r"\['forms'\]\)"),
    ("casing/arrays/keys", "dropped", r"the casing model is malformed \(texts must be uint8 bytes and int64 "
     r"ends, got int64\[2\] and int64\[\d+\]\)"),
    ("casing/arrays/key_ends", "casing.capitalised", r"the casing model is malformed \(text ends must rise "
     r"from 0 to the \d+ bytes\)"),
    ("casing/arrays/lower", "dropped", r"the casing model is malformed \(a casing model needs one form and "
     r"three counts per key \(\d+ keys\), got \d+ forms and \d+, \d+, 2 counts\)"),
]  # fmt: skip


@pytest.mark.parametrize("where, value, message", CASING_CASES, ids=[w for w, _, _ in CASING_CASES])
def test_a_malformed_casing_model_is_refused_by_name(good, where, value, message):
    path, header, block = good
    _edit(header, where, value)
    _refused(path, header, block, message)


def test_unsorted_casing_keys_are_refused(good):
    """The keys written back in reverse order (bytes and ends, the file resealed): refused."""
    path, header, block = good
    keys = list(casing_model(build_index(TRIPLES, passages=TEXTS)).keys)
    for name, a in zip(("keys", "key_ends"), Texts.of(keys[::-1]).get_state(), strict=True):
        at = header["arrays"][header["casing"]["arrays"][name]]["offset"]
        block[at : at + a.nbytes] = a.tobytes()
    _refused(path, header, block, r"the casing model is malformed \(casing model keys must be sorted and "
             r"distinct\)")  # fmt: skip


def test_a_failed_save_leaves_no_temporary_file(tmp_path):
    """Saving onto a directory fails with the operating system's error, and the temporary file
    written beside it is removed."""
    target = tmp_path / "taken"
    target.mkdir()
    with pytest.raises(IsADirectoryError):
        save_index(build_index(TRIPLES), target)
    assert [p.name for p in tmp_path.iterdir()] == ["taken"] and not list(target.iterdir())


def test_an_encoder_that_describes_itself_is_recorded_as_it_says(tmp_path):
    """An encoder with an ``index_spec()`` (as the embeddings endpoint has) is recorded by what that
    method returns, not as a custom class."""
    spec = {"kind": "embeddings", "base_url": "http://127.0.0.1:9/v1", "model": "tiny", "dim": 2}

    class Described(Table):
        def index_spec(self):
            return dict(spec)

    path = tmp_path / "d.hippo"
    save_index(build_index([[("cat", "is a", "pet")]], encoder=Described()), path)
    _, header, _ = _split(path.read_bytes())
    assert header["encoder"] == spec


def test_32_bit_index_arrays_stay_32_bit(good):
    """A file may hold a CSR matrix's index arrays as int32 (the dtype whitelist has it): they load as
    int32, with the same values, not widened or turned into floats."""
    path, header, block = good
    back = load_index(path)
    for part in ("indices", "indptr"):
        spec = header["arrays"][f"relation_graph.{part}"]
        values = getattr(back.relation_graph, part).astype("<i4")
        raw = values.tobytes() + b"\0" * ((-values.nbytes) % 8)
        header["arrays"][f"relation_graph.{part}"] = {
            "dtype": "<i4",
            "shape": spec["shape"],
            "offset": len(block),
        }
        block += raw
    path.write_bytes(_seal(header, block))
    R = load_index(path).relation_graph
    assert R.indices.dtype == np.int32 and R.indptr.dtype == np.int32
    np.testing.assert_array_equal(R.toarray(), back.relation_graph.toarray())


ROUND_TRIPLES = [
    [("Ed Wood", "directed", "Plan 9"), ("!!", "is", "x")],
    [("Plan nine", "filmed in", "Burbank"), ("Burbank", "in", "Burbank")],
    [("Paris", "capital of", "France")],
]


ROUND_TEXTS = ["Ed Wood directed Plan 9.", "Plan 9 was filmed in Burbank.", "Paris is in France."]


@pytest.fixture(scope="module")
def musique():
    docs, _ = load_openie(fetch("musique_openie"))
    return docs[:300]


def _questions(idx):
    return [[p] for p in idx.phrases[::37]] + [["Ed Woods", "New York"], ["zzzz"]]


def test_round_trip_is_bit_identical_on_real_passages(tmp_path, musique):
    idx = index_from_openie(musique)
    path = tmp_path / "m.hippo"
    save_index(idx, path)
    back = load_index(path)
    assert_same_index(back, idx)
    assert type(back.encoder) is CharNgramEncoder and back.encoder is not idx.encoder
    _assert_same_encoder(back.encoder, idx.encoder)
    a, b = HippoRetriever(idx, extractor=None), HippoRetriever(back, extractor=None)
    for ents in _questions(idx):
        x, y = a.retrieve("Who?", entities=ents, k=10), b.retrieve("Who?", entities=ents, k=10)
        np.testing.assert_array_equal(x.passages, y.passages)
        np.testing.assert_array_equal(x.scores, y.scores)  # exact, not approximately equal
        np.testing.assert_array_equal(x.seeds, y.seeds)
    # An index that was saved, loaded and grown equals one grown without the detour.
    more = [d.triples for d in musique[:2]]
    assert_same_index(add_passages(back, more, ["x", "y"]), add_passages(idx, more, ["x", "y"]))


def test_file_holds_no_pickle(tmp_path):
    path = tmp_path / "t.hippo"
    save_index(build_index(ROUND_TRIPLES, passages=ROUND_TEXTS), path)
    raw = path.read_bytes()
    assert raw[:8] == MAGIC and b"\x80\x04\x95" not in raw and b"\x80\x05\x95" not in raw
    _, version, n_head, _ = struct.unpack_from("<8sIQQ", raw)
    header = json.loads(raw[28 : 28 + n_head])
    assert version == FORMAT_VERSION and header["encoder"]["kind"] == "char_ngram"
    # |u1: text as UTF-8 (the passages, the relations, the casing model's)
    assert {spec["dtype"] for spec in header["arrays"].values()} <= {"<f8", "<i4", "<i8", "|u1"}
    assert hashlib.sha256(raw[:-32]).digest() == raw[-32:]


def test_round_trip_keeps_settings_dropped_and_frozen_mode(tmp_path):
    enc = CharNgramEncoder(ngram_range=(2, 3)).fit(["ed wood", "plan 9", "paris"])
    idx = build_index(ROUND_TRIPLES, encoder=enc, fit_encoder=False, tau=0.4, max_synonyms=3)
    save_index(idx, tmp_path / "f.hippo")
    back = load_index(tmp_path / "f.hippo")
    assert_same_index(back, idx)
    assert back.settings == {"tau": 0.4, "max_synonyms": 3, "synonymy": True, "fit_encoder": False,
                             "normalization": "unicode", "search_budget": SEARCH_BUDGET}
    assert back.dropped.tolist() == [1, 0, 0] and back.stats.triples_self_loop == 1
    assert back.encoder.ngram_range == (2, 3)


def _resealed(raw: bytes, body: bytes) -> bytes:
    return body + hashlib.sha256(body).digest()


@pytest.fixture()
def saved(tmp_path):
    path = tmp_path / "t.hippo"
    save_index(build_index(ROUND_TRIPLES, passages=ROUND_TEXTS), path)
    return path, path.read_bytes()


def test_truncated_file(saved):
    path, raw = saved
    for cut in (len(raw) - 1, len(raw) // 2, 20, 3, 0):
        path.write_bytes(raw[:cut])
        with pytest.raises(FormatError, match=r"t\.hippo: truncated"):
            load_index(path)


def test_corrupted_byte_fails_the_checksum(saved):
    path, raw = saved
    for at in (40, len(raw) // 2, len(raw) - 40):
        bad = bytearray(raw)
        bad[at] ^= 0x01
        path.write_bytes(bytes(bad))
        with pytest.raises(FormatError, match="checksum mismatch: the file is corrupted"):
            load_index(path)


def test_other_version_and_foreign_file(saved):
    path, raw = saved
    body = bytearray(raw[:-32])
    struct.pack_into("<I", body, 8, FORMAT_VERSION + 1)
    path.write_bytes(_resealed(raw, bytes(body)))
    message = f"format version {FORMAT_VERSION + 1}; this pathfinding reads version {FORMAT_VERSION}"
    with pytest.raises(FormatError, match=message):
        load_index(path)
    path.write_bytes(b"PK\x03\x04 a zip file, not an index")
    with pytest.raises(FormatError, match="not a pathfinding HippoRAG index"):
        load_index(path)
    path.write_bytes(raw + b"\0")
    with pytest.raises(FormatError, match="has trailing bytes"):
        load_index(path)


def test_malformed_content_with_a_valid_checksum(saved):
    """A file written by something else with a correct checksum still gets a named error."""
    path, raw = saved
    _, _, n_head, n_arr = struct.unpack_from("<8sIQQ", raw)
    header = json.loads(raw[28 : 28 + n_head])
    arrays = raw[28 + n_head : -32]

    def write(h):
        head = json.dumps(h).encode()
        body = struct.pack("<8sIQQ", MAGIC, FORMAT_VERSION, len(head), n_arr) + head + arrays
        path.write_bytes(body + hashlib.sha256(body).digest())

    h = json.loads(json.dumps(header))
    h["arrays"]["mentions.data"]["dtype"] = "|O"
    write(h)
    with pytest.raises(FormatError, match="array 'mentions.data' is missing or has an unsupported dtype"):
        load_index(path)
    h = json.loads(json.dumps(header))
    h["arrays"]["relation_graph.indices"]["offset"] = 10**9
    write(h)
    with pytest.raises(FormatError, match="array 'relation_graph.indices' lies outside the array block"):
        load_index(path)
    h = json.loads(json.dumps(header))
    h["phrases"] = h["phrases"][::-1]
    write(h)
    with pytest.raises(FormatError, match="phrases must be sorted and distinct"):
        load_index(path)
    h = json.loads(json.dumps(header))
    del h["settings"]
    write(h)
    with pytest.raises(FormatError, match="header field 'settings' must be dict, got NoneType"):
        load_index(path)


def test_custom_encoder_must_be_passed_again(tmp_path):
    idx = build_index([[("cat", "is a", "pet")], [("kitten", "likes", "dog")]], encoder=Table())
    path = tmp_path / "c.hippo"
    save_index(idx, path)
    with pytest.raises(ValueError, match=r"custom encoder \(.*\.Table\).*load_index\(path, encoder=\.\.\.\)"):
        load_index(path)
    back = load_index(path, encoder=Table())
    assert_same_index(back, idx)

    class Wrong(Table):
        table = {**Table.table, "cat": [0.0, 1.0]}

    with pytest.raises(ValueError, match="does not reproduce the embeddings"):
        load_index(path, encoder=Wrong())
    default = tmp_path / "d.hippo"
    save_index(build_index(ROUND_TRIPLES), default)
    with pytest.raises(ValueError, match="stores its own CharNgramEncoder"):
        load_index(default, encoder=Table())


@settings(max_examples=25)
@given(corpus=st.lists(passage_st, min_size=1, max_size=6), frozen=st.booleans(), synonymy=st.booleans())
def test_round_trip_of_random_indexes(corpus, frozen, synonymy):
    kw = {"encoder": FROZEN, "fit_encoder": False} if frozen else {}
    try:
        idx = build_index(corpus, passages=[f"p{j}" for j in range(len(corpus))], synonymy=synonymy, **kw)
    except ValueError:
        return
    with tempfile.TemporaryDirectory() as d:
        save_index(idx, os.path.join(d, "r.hippo"))
        back = load_index(os.path.join(d, "r.hippo"))
    assert_same_index(back, idx)
    assert_same_retrieval(back, idx, [["alice"], ["paris city", "bob"], ["zzz"]])
    _assert_same_encoder(back.encoder, idx.encoder)


def _assert_same_encoder(a, b):
    (pa, ga, ia), (pb, gb, ib) = a.get_state(), b.get_state()
    assert pa == pb and ga == gb
    np.testing.assert_array_equal(ia, ib)
    texts = ["alice smith", "new yorker", "zz"]
    assert (a(texts) != b(texts)).nnz == 0


def test_save_never_replaces_a_file_that_is_not_an_index(tmp_path):
    """A path holding the user's file is refused by name (overwrite=True replaces it); an existing
    index or an empty file is replaced as before."""
    idx = build_index(TRIPLES, passages=TEXTS)
    corpus = tmp_path / "corpus.json"
    corpus.write_text('[{"title": "Ed Wood", "text": "Ed Wood directed Plan 9."}]')
    before = corpus.read_bytes()
    with pytest.raises(InvalidValueError) as exc:
        save_index(idx, corpus)
    assert str(exc.value).startswith(f"{corpus}: exists and is not a pathfinding index")
    assert "overwrite=True" in str(exc.value) and corpus.read_bytes() == before
    save_index(idx, corpus, overwrite=True)
    assert load_index(corpus).phrases == idx.phrases
    save_index(build_index(TRIPLES[:1]), corpus)  # now an index: replaced without asking
    assert load_index(corpus).phrases == ["ed wood", "plan 9"]
    (tmp_path / "empty.hippo").write_bytes(b"")
    save_index(idx, tmp_path / "empty.hippo")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus.json", "empty.hippo"]


def test_save_and_load_remove_what_a_killed_save_left(tmp_path, caplog):
    path = tmp_path / "i.hippo"
    save_index(build_index(TRIPLES), path)
    stale = tmp_path / "i.hippo.tmp-999999999"  # above any pid the kernel hands out
    for call in (lambda: load_index(path), lambda: save_index(build_index(TRIPLES), path)):
        stale.write_bytes(b"PFHIPIDX half an index")
        with caplog.at_level("WARNING", logger="pathfinding.hipporag.storage.safety"):
            call()
        assert not stale.exists() and "i.hippo.tmp-999999999" in caplog.text
        caplog.clear()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["i.hippo"]


# --- one writer at a time: save_index holds the file's lock while it writes -------------------------


def test_save_index_writes_under_the_files_lock(tmp_path, monkeypatch):
    """Every byte is written while the lock is held (a lock taken and dropped before the write, or
    none at all, would let a second writer in)."""
    import pathfinding.hipporag.index.persistence as persistence

    path = tmp_path / "i.hippo"
    seen = []

    def spy(target, chunks):
        seen.append(lock_is_held(target))
        atomic_write(target, chunks)
        seen.append(lock_is_held(target))

    monkeypatch.setattr(persistence, "atomic_write", spy)
    assert not lock_is_held(path)
    save_index(build_index(TRIPLES, passages=TEXTS), path)
    assert seen == [True, True] and not lock_is_held(path)
    assert load_index(path).phrases == ["burbank", "ed wood", "plan 9"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["i.hippo"]  # the lock file is gone


def test_save_index_waits_for_another_writer(tmp_path, hold_lock):
    """Another writer holds the lock: save_index waits, and writes nothing until it is released."""
    path = tmp_path / "i.hippo"
    release = hold_lock(path)
    seen = []

    def release_later():
        seen.append(path.exists())  # what the save wrote while the lock was not its own
        release()

    threading.Timer(0.3, release_later).start()
    save_index(build_index(TRIPLES), path)
    assert seen == [False] and load_index(path).phrases == ["burbank", "ed wood", "plan 9"]


def test_save_index_gives_up_on_a_busy_file_and_leaves_it(tmp_path, monkeypatch, hold_lock):
    """Past its wait (0 here; DEFAULT_WAIT in use) save_index raises FileBusyError, naming the file,
    and the index already there is untouched, with no temporary file left."""
    import pathfinding.hipporag.index.persistence as persistence

    path = tmp_path / "i.hippo"
    save_index(build_index(TRIPLES[:1]), path)
    before = path.read_bytes()
    monkeypatch.setattr(persistence, "exclusive_lock", functools.partial(exclusive_lock, wait=0))
    release = hold_lock(path)
    with pytest.raises(FileBusyError, match="is writing it") as exc:
        save_index(build_index(TRIPLES), path)
    release()
    assert exc.value.filename == str(path) and path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["i.hippo"]


def test_ids_sources_and_file_stamps_are_saved_and_the_query_cache_carries_them(tmp_path):
    from pathfinding.hipporag.io.records import FileStamp, Source
    from pathfinding.hipporag.retrieval.querycache import load_for_query

    idx = build_index([[("Ed Wood", "directed", "Plan 9")], [("Plan 9", "filmed in", "Burbank")]],
                      passages=["Ed Wood\nx", "Plan 9\ny"])  # fmt: skip
    src = Source("films/Ed Wood.md", ("Career", "Films"), 12, 40)
    stamp = FileStamp("c" * 64, 6500)
    idx = add_passages(idx, [[("Burbank", "in", "California")]], ["Burbank\nz"], ids=["films/Ed Wood.md#x"],
                       sources=[src], files={"films/Ed Wood.md": stamp})  # fmt: skip
    path = tmp_path / "i.hippo"
    save_index(idx, path)
    for loaded in (load_index(path), load_for_query(path), load_for_query(path)):  # the 3rd: from the cache
        assert list(loaded.passage_ids) == ["0", "1", "films/Ed Wood.md#x"]
        assert loaded.sources == [None, None, src] and loaded.files == {"films/Ed Wood.md": stamp}
    # ids that are positions are stored as none at all, as version 1 stored them
    plain = tmp_path / "plain.hippo"
    save_index(build_index([[("Ed Wood", "directed", "Plan 9")]]), plain)
    header = json.loads(plain.read_bytes()[28 : 28 + struct.unpack_from("<8sIQQ", plain.read_bytes())[2]])
    assert header["passage_ids"] is None and header["sources"] is None and header["files"] == {}


def test_repeated_or_malformed_ids_in_a_file_are_named(good):
    path, header, block = good
    n = len(TEXTS)
    header["passage_ids"] = ["same"] * n
    _refused(path, header, block, r"passage id 'same' is given to 2 passages .*")
    header["passage_ids"] = ["a"]
    _refused(path, header, block, r"header field 'passage_ids' must list one id per passage \(2\)")
    header["passage_ids"], header["sources"] = None, [["a.md", [1], 0, 1]] * n
    _refused(path, header, block, r"the passages' ids or sources are malformed \(.*\)")


def test_a_loaded_index_holds_one_string_per_distinct_text(tmp_path):
    # JSON makes a string per occurrence; the loaded triples share the phrases' strings and each other's
    # relations (a third of a loaded index's memory at 100,000 passages).
    idx = build_index([[("Ed Wood", "directed", "Plan 9")], [("Ed Wood", "directed", "Glen or Glenda")]])
    save_index(idx, tmp_path / "toy.hippo")
    back = load_index(tmp_path / "toy.hippo")
    assert back.triples == idx.triples
    (s1, r1, o1), (s2, r2, _) = back.triples[0][0], back.triples[1][0]
    assert s1 is s2 is back.phrases[back.phrases.index("ed wood")]
    assert r1 is r2 and o1 is back.phrases[back.phrases.index("plan 9")]


def test_labels_of_more_passages_than_python_caches_as_small_ints_are_read_back():
    """300 ids for 300 passages are read back (their count is compared by value, not identity)."""
    ids = [f"p{i}" for i in range(300)]
    assert decode_labels({"passage_ids": ids}, "x.hippo", 300)["passage_ids"] == ids
    with pytest.raises(FormatError, match=r"'passage_ids' must list one id per passage \(301\)"):
        decode_labels({"passage_ids": ids}, "x.hippo", 301)
