"""The one binary layout: bytes checked against a file assembled here by hand, every broken part
named, and an index file written before the container existed still read (and rewritten) byte for
byte.

``tests/data/hipporag/index_v1.hippo`` was written by the index writer that preceded this module,
from the three triples of ``_V1_TRIPLES``; its bytes are the contract old index files rely on.
``index_v2.hippo`` was written by version 2 of the index file (commit 188c75e, text as JSON in the
header) from the same triples and texts.
"""

import dataclasses
import hashlib
import json
import re
import struct
from pathlib import Path

import numpy as np
import pytest

from pathfinding.errors import FormatError, InvalidTypeError
from pathfinding.hipporag.index.build import build_index
from pathfinding.hipporag.index.persistence import LAYOUT, load_index, save_index
from pathfinding.hipporag.storage.container import DIGEST, PREFIX, ArrayBlock, Container, Layout, pack

TOY = Layout(b"PFTOYTOY", 3, "toy file", frozenset({"<i8", "<f8", "|u1"}), stale=" (make it again)")
V1 = Path(__file__).parent / "data" / "hipporag" / "index_v1.hippo"
V2 = V1.with_name("index_v2.hippo")  # version 2, from the same triples and texts
_V1_TRIPLES = [
    [("Ed Wood", "directed", "Plan 9")],
    [("Plan 9", "filmed in", "Burbank")],
    [("Edward Wood", "born in", "Poughkeepsie")],
]
_V1_TEXTS = [
    "Ed Wood directed Plan 9.",
    "Plan 9 was filmed in Burbank.",
    "Edward Wood was born in Poughkeepsie.",
]


def _by_hand(header: dict, arrays: list[bytes], magic=b"PFTOYTOY", version=3) -> bytes:
    """The documented layout, written without the module: prefix, compact JSON, arrays, SHA-256."""
    head = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    block = b"".join(arrays)
    body = struct.pack("<8sIQQ", magic, version, len(head), len(block)) + head + block
    return body + hashlib.sha256(body).digest()


def _toy():
    block = ArrayBlock(TOY.dtypes)
    block.add("ids", np.array([1, 2, 3], dtype=np.int64))
    block.add("flags", np.array([1, 0, 1], dtype=np.uint8))  # 3 bytes, padded to 8
    block.add("w", np.array([[0.5], [0.25]], dtype=">f8"))  # big-endian in memory, little on disk
    return block


def test_the_bytes_are_the_documented_layout():
    """Arrays little-endian at 8-aligned offsets, the table as the header's last entry, non-ASCII kept
    as UTF-8, the prefix's lengths, and the SHA-256 of everything before it."""
    raw = pack(TOY, {"name": "Łódź"}, _toy())
    table = {
        "ids": {"dtype": "<i8", "shape": [3], "offset": 0},
        "flags": {"dtype": "|u1", "shape": [3], "offset": 24},
        "w": {"dtype": "<f8", "shape": [2, 1], "offset": 32},
    }
    arrays = [
        struct.pack("<3q", 1, 2, 3),
        bytes([1, 0, 1]) + b"\0" * 5,
        struct.pack("<2d", 0.5, 0.25),
    ]
    assert raw == _by_hand({"name": "Łódź", "arrays": table}, arrays)
    assert PREFIX.size == 28 and DIGEST == 32 and raw[:8] == b"PFTOYTOY"


def test_arrays_come_back_as_copies_or_as_views():
    raw = bytearray(pack(TOY, {}, _toy()))
    c = Container(raw, TOY, "t.bin")
    w = c.array("w")
    np.testing.assert_array_equal(w, [[0.5], [0.25]])
    assert w.dtype == np.float64 and w.dtype.isnative and w.flags.writeable
    view = c.array("ids", copy=False)
    assert view.tolist() == [1, 2, 3] and np.shares_memory(view, np.frombuffer(raw, np.uint8))
    assert c.array("flags").tolist() == [1, 0, 1] and c.header == {"arrays": c.header["arrays"]}
    with pytest.raises(TypeError, match="positional argument"):
        c.array("ids", False)  # copy is keyword-only: a bare False would not say what it turns off


def test_a_dtype_outside_the_layout_is_refused_when_written():
    message = r"^cannot store array 'x' of dtype complex128: expected one of \["
    with pytest.raises(InvalidTypeError, match=message):
        ArrayBlock(TOY.dtypes).add("x", np.zeros(2, dtype=complex))


def _sealed(head: bytes, block: bytes = b"", version: int = 3) -> bytes:
    body = struct.pack("<8sIQQ", b"PFTOYTOY", version, len(head), len(block)) + head + block
    return body + hashlib.sha256(body).digest()


def _from_bytes(raw: bytes, layout: Layout, name: str, tmp_path) -> Container:
    return Container(raw, layout, name)


def _from_file(raw: bytes, layout: Layout, name: str, tmp_path) -> Container:
    path = tmp_path / "file.bin"
    path.write_bytes(raw)
    return Container.read(path, layout, name, chunk=5)  # a tiny chunk: every array read in pieces


READERS = pytest.mark.parametrize("reader", [_from_bytes, _from_file], ids=["bytes", "file"])


@READERS
def test_every_broken_part_is_named_with_the_file(reader, tmp_path):
    """In the order the checks run: kind, prefix length, version (with what to do), total length,
    checksum, the header's JSON, its type and its array table; the same from bytes and from a file
    read piece by piece."""
    good = pack(TOY, {"name": "x"}, _toy())
    cases = [
        (
            b"GIF89a-not-ours",
            r"not a pathfinding HippoRAG toy file \(starts with b'GIF89a-n', expected b'PFTOYTOY'\)",
        ),
        (b"PFTOY", r"truncated: 5 bytes, shorter than the 28-byte prefix"),
        (
            _sealed(b"{}", version=4),
            r"toy file format version 4; this pathfinding reads version 3 \(make it again\)",
        ),
        (good[:-1], rf"truncated: {len(good) - 1} bytes, the prefix says {len(good)}"),
        (good + b"!", rf"has trailing bytes: {len(good) + 1} bytes, the prefix says {len(good)}"),
        (good[:40] + bytes([good[40] ^ 1]) + good[41:], r"checksum mismatch: the file is corrupted .*"),
        (_sealed(b"{'a': 1}"), r"header is not UTF-8 JSON \(.*\)"),
        (_sealed(b"[1]"), r"header must be a JSON object, got list"),
        (_sealed(b'{"arrays": []}'), r"header field 'arrays' must be dict, got list"),
        (_sealed(b"{not json", b"\0" * 8)[:-1] + b"!", r"checksum mismatch: the file is corrupted .*"),
        (b"", r"truncated: 0 bytes, shorter than the 28-byte prefix"),
    ]
    for raw, message in cases:
        with pytest.raises(FormatError, match="^" + re.escape("t.bin: ") + message + "$"):
            reader(raw, TOY, "t.bin", tmp_path)


@READERS
@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (None, r"array 'a' is missing or has an unsupported dtype"),
        ({"dtype": "|O", "shape": [1], "offset": 0}, r"array 'a' is missing or has an unsupported dtype"),
        ({"dtype": "<i8", "shape": [-1], "offset": 0}, r"array 'a' has a bad shape \[-1\]"),
        ({"dtype": "<i8", "shape": 1, "offset": 0}, r"array 'a' has a bad shape 1"),
        ({"dtype": "<i8", "shape": [2], "offset": 0}, r"array 'a' lies outside the array block"),
        ({"dtype": "<i8", "shape": [1], "offset": 8}, r"array 'a' lies outside the array block"),
        ({"dtype": "<i8", "shape": [1], "offset": -8}, r"array 'a' lies outside the array block"),
    ],
)
def test_a_bad_array_entry_is_named(spec, message, reader, tmp_path):
    table = {} if spec is None else {"a": spec}
    c = reader(_sealed(json.dumps({"arrays": table}).encode(), struct.pack("<q", 7)), TOY, "t.bin", tmp_path)
    with pytest.raises(FormatError, match="^t\\.bin: " + message + "$"):
        c.array("a")
    good = _sealed(b'{"arrays": {"a": {"dtype": "<i8", "shape": [1], "offset": 0}}}', struct.pack("<q", 7))
    assert reader(good, TOY, "t.bin", tmp_path).array("a").tolist() == [7]


def test_a_file_is_read_into_the_arrays_without_a_copy_of_its_bytes(tmp_path):
    """Each array is read into memory of its own: the peak of a read is the arrays, not the file's
    bytes beside them (reading the bytes first held both: twice the file). The arrays equal what was
    written, are native and writable, and a second request is a copy, as from bytes."""
    import tracemalloc

    rng = np.random.default_rng(0)
    big = rng.random(1 << 20)  # 8 MiB
    block = ArrayBlock(TOY.dtypes)
    block.add("none", np.zeros(0))  # an empty array shares the next one's offset
    block.add("big", big)
    block.add("flags", np.array([1, 0, 1], dtype=np.uint8))
    block.add("w", np.array([[0.5], [0.25]], dtype=">f8"))
    path = tmp_path / "big.bin"
    path.write_bytes(pack(TOY, {"name": "big"}, block))
    tracemalloc.start()
    try:
        c = Container.read(path, TOY, "big.bin")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1.2 * big.nbytes, peak
    got = c.array("big")
    np.testing.assert_array_equal(got, big)
    assert got.flags.writeable and got.dtype.isnative and c.array("w").tolist() == [[0.5], [0.25]]
    again = c.array("big")
    assert not np.shares_memory(again, got) and c.array("flags").tolist() == [1, 0, 1]
    assert c.array("none").shape == (0,)


def _parts(raw: bytes):
    """(header without its table, the table, the block) of a file, read by the documented layout."""
    _, _, n_head, n_block = struct.unpack_from("<8sIQQ", raw)
    header = json.loads(raw[28 : 28 + n_head])
    return header, header.pop("arrays"), raw[28 + n_head : 28 + n_head + n_block]


def test_an_index_written_before_the_container_loads_and_packs_to_the_same_bytes(tmp_path):
    """The old file loads, equals an index built now from the same triples (its passage ids are its
    positions, as they were then), and its header and arrays packed by this module as version 1 give
    its bytes back exactly: old and new writers agree byte for byte."""
    raw = V1.read_bytes()
    old = load_index(V1)
    new = build_index(_V1_TRIPLES, passages=_V1_TEXTS)
    assert old.phrases == new.phrases and old.passages == new.passages and old.triples == new.triples
    assert list(old.passage_ids) == [str(j) for j in range(old.n_passages)] and old.sources is None
    for name in ("relation_graph", "synonymy_graph", "mentions", "pairs", "node_embeddings"):
        assert (getattr(old, name) != getattr(new, name)).nnz == 0, name
    header, table, block_bytes = _parts(raw)
    block = ArrayBlock(LAYOUT.dtypes)
    c = Container(raw, LAYOUT, "v1")
    for name in table:  # in the order the old writer added them
        block.add(name, c.array(name))
    assert block.table == table and b"".join(block.chunks) == block_bytes
    assert pack(dataclasses.replace(LAYOUT, version=1), header, block) == raw
    save_index(old, tmp_path / "again.hippo")  # and what this version writes loads the same
    assert load_index(tmp_path / "again.hippo").phrases == old.phrases


def test_an_index_of_version_2_loads(tmp_path, monkeypatch):
    """``index_v2.hippo``, written by version 2 (188c75e) from the same triples: its passages, triples
    and casing texts are JSON in the header. It loads equal to an index built now, its casing model
    read from the file (not counted again), and saves again as the current version."""
    from pathfinding.hipporag.language.casing import CasingModel, casing_model

    raw = V2.read_bytes()
    assert struct.unpack_from("<8sI", raw)[1] == 2
    header, _, _ = _parts(raw)
    assert isinstance(header["passages"], list) and isinstance(header["triples"], list)
    assert isinstance(header["casing"]["keys"], list)
    want = CasingModel.from_passages(_V1_TEXTS)
    new = build_index(_V1_TRIPLES, passages=_V1_TEXTS)
    monkeypatch.setattr(CasingModel, "from_passages", None)  # counting the passages again would fail
    old = load_index(V2)
    assert old.phrases == new.phrases and old.passages == new.passages and old.triples == new.triples
    for name in ("relation_graph", "synonymy_graph", "mentions", "pairs", "node_embeddings"):
        assert (getattr(old, name) != getattr(new, name)).nnz == 0, name
    assert casing_model(old) == want
    save_index(old, tmp_path / "again.hippo")
    assert struct.unpack_from("<8sI", (tmp_path / "again.hippo").read_bytes())[1] == LAYOUT.version
    again = load_index(tmp_path / "again.hippo")
    assert again.passages == old.passages and again.triples == old.triples
    assert casing_model(again) == casing_model(old)


def test_the_header_written_in_pieces_is_the_whole_header_as_json(monkeypatch):
    """Long lists are encoded two items at a time here: the pieces join to json.dumps of the whole,
    for nested, empty, unicode and tuple values, and the digest covers every piece."""
    from pathfinding.hipporag.storage import container

    monkeypatch.setattr(container, "_SLICE", 2)
    layout = container.Layout(b"EXAMPLE!", 1, "example", frozenset({"<i8"}))
    block = container.ArrayBlock(layout.dtypes)
    block.add("ids", np.arange(3))
    header = {"texts": ["a", "Südhof", "c", "d", "e"], "triples": [(("x", "r", "y"),), (), ((1, 2, 3),)],
              "empty": {}, "nested": {"k": [1, 2, 3], "v": None}, "few": [1]}
    pieces = list(container.pack_chunks(layout, header, block))
    head = json.dumps({**header, "arrays": block.table}, ensure_ascii=False, separators=(",", ":"))
    body = b"".join(pieces[:-1])
    assert body[container.PREFIX.size :].startswith(head.encode("utf-8"))
    assert pieces[-1] == hashlib.sha256(body).digest()
    back = container.Container(b"".join(pieces), layout, "x")
    assert back.header["texts"] == header["texts"] and back.header["triples"][0] == [["x", "r", "y"]]


def test_a_block_spilled_to_a_file_packs_to_the_same_bytes(tmp_path, monkeypatch):
    """Arrays written to a spill file as they are added (so the caller may free them) come back,
    read a few bytes at a time, as the same file the arrays kept in memory make."""
    import tempfile

    from pathfinding.hipporag.storage import container

    monkeypatch.setattr(container, "_CHUNK", 5)
    arrays = {"a": np.arange(7), "b": np.zeros((0, 3)), "c": np.linspace(0, 1, 13), "d": np.arange(3)[::-1]}
    kept = ArrayBlock(TOY.dtypes)
    with tempfile.TemporaryFile(dir=tmp_path) as fh:
        spilled = ArrayBlock(TOY.dtypes, spill=fh)
        for name, a in arrays.items():
            kept.add(name, a)
            spilled.add(name, a.copy())
        assert spilled.chunks == [] and spilled.table == kept.table
        raw = b"".join(container.pack_chunks(TOY, {"n": 1}, spilled))
    assert raw == pack(TOY, {"n": 1}, kept)
    assert Container(raw, TOY, "x").array("c").tolist() == arrays["c"].tolist()
