"""save/load: bit-identical round trip, no pickle, clear errors for damaged or foreign files."""

import hashlib
import json
import os
import struct
import tempfile

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathfinding.hipporag.datasets import fetch
from pathfinding.hipporag.index.build import build_index, index_from_openie
from pathfinding.hipporag.index.encoder import CharNgramEncoder
from pathfinding.hipporag.index.maintenance import add_passages
from pathfinding.hipporag.index.persistence import FORMAT_VERSION, MAGIC, load_index, save_index
from pathfinding.hipporag.io import FormatError, load_openie
from pathfinding.hipporag.retrieve import HippoRetriever
from tests.test_hipporag_maintenance import FROZEN, assert_same_index, assert_same_retrieval, passage_st

TRIPLES = [
    [("Ed Wood", "directed", "Plan 9"), ("!!", "is", "x")],
    [("Plan nine", "filmed in", "Burbank"), ("Burbank", "in", "Burbank")],
    [("Paris", "capital of", "France")],
]
TEXTS = ["Ed Wood directed Plan 9.", "Plan 9 was filmed in Burbank.", "Paris is in France."]


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
    save_index(build_index(TRIPLES, passages=TEXTS), path)
    raw = path.read_bytes()
    assert raw[:8] == MAGIC and b"\x80\x04\x95" not in raw and b"\x80\x05\x95" not in raw
    _, version, n_head, _ = struct.unpack_from("<8sIQQ", raw)
    header = json.loads(raw[28 : 28 + n_head])
    assert version == FORMAT_VERSION and header["encoder"]["kind"] == "char_ngram"
    assert {spec["dtype"] for spec in header["arrays"].values()} <= {"<f8", "<i4", "<i8"}
    assert hashlib.sha256(raw[:-32]).digest() == raw[-32:]


def test_round_trip_keeps_settings_dropped_and_frozen_mode(tmp_path):
    enc = CharNgramEncoder(ngram_range=(2, 3)).fit(["ed wood", "plan 9", "paris"])
    idx = build_index(TRIPLES, encoder=enc, fit_encoder=False, tau=0.4, max_synonyms=3)
    save_index(idx, tmp_path / "f.hippo")
    back = load_index(tmp_path / "f.hippo")
    assert_same_index(back, idx)
    assert back.settings == {"tau": 0.4, "max_synonyms": 3, "synonymy": True, "fit_encoder": False,
                             "normalization": "unicode"}
    assert back.dropped.tolist() == [1, 0, 0] and back.stats.triples_self_loop == 1
    assert back.encoder.ngram_range == (2, 3)


def _resealed(raw: bytes, body: bytes) -> bytes:
    return body + hashlib.sha256(body).digest()


@pytest.fixture()
def saved(tmp_path):
    path = tmp_path / "t.hippo"
    save_index(build_index(TRIPLES, passages=TEXTS), path)
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
    with pytest.raises(
        FormatError, match=f"format version {FORMAT_VERSION + 1}; this pathfinding reads version 1"
    ):
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


class TableEncoder:
    table = {"cat": [1.0, 0.0], "kitten": [0.6, 0.8], "dog": [0.0, 1.0], "pet": [0.0, 1.0]}

    def __call__(self, texts):
        return np.array([self.table.get(t, [0.0, 0.0]) for t in texts])


def test_custom_encoder_must_be_passed_again(tmp_path):
    idx = build_index([[("cat", "is a", "pet")], [("kitten", "likes", "dog")]], encoder=TableEncoder())
    path = tmp_path / "c.hippo"
    save_index(idx, path)
    with pytest.raises(
        ValueError, match=r"custom encoder \(.*TableEncoder\).*load_index\(path, encoder=\.\.\.\)"
    ):
        load_index(path)
    back = load_index(path, encoder=TableEncoder())
    assert_same_index(back, idx)

    class Wrong(TableEncoder):
        table = {**TableEncoder.table, "cat": [0.0, 1.0]}

    with pytest.raises(ValueError, match="does not reproduce the embeddings"):
        load_index(path, encoder=Wrong())
    default = tmp_path / "d.hippo"
    save_index(build_index(TRIPLES), default)
    with pytest.raises(ValueError, match="stores its own CharNgramEncoder"):
        load_index(default, encoder=TableEncoder())


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
