"""The query cache: used when it matches its index, refused (and the index read in full) when it is
stale, of another version, or crafted so that an array points outside its bounds."""

import json
import os

import numpy as np
import pytest

from pathfinding.cli import main
from pathfinding.errors import FormatError
from pathfinding.hipporag.index.build import build_index
from pathfinding.hipporag.index.maintenance import delete_passages
from pathfinding.hipporag.index.persistence import load_index, save_index
from pathfinding.hipporag.retrieval.querycache import cache_path, load_for_query
from pathfinding.hipporag.retrieval.retrieve import HippoRetriever
from pathfinding.hipporag.storage.datasets import fetch
from tests.conftest import PASSAGES, Table


def _must_not_build():
    raise AssertionError("derived again instead of loaded from the query cache")


def test_query_cache_is_used_and_invalidated(tmp_path, capsys):
    corpus = json.loads(fetch("musique_corpus").read_bytes())[:40]
    (tmp_path / "c.json").write_text(json.dumps(corpus))
    idx = tmp_path / "i.hippo"
    assert (
        main(["hipporag", "index", str(tmp_path / "c.json"), "--extractor", "cooccurrence", "-o", str(idx)])
        == 0
    )
    assert (tmp_path / "i.hippo.query-cache").is_file()  # written by `index`
    full = load_index(idx)
    fast = load_for_query(idx, write=False)  # must come from the cache
    assert fast.phrases == full.phrases and fast.passages == full.passages and fast.stats == full.stats
    assert fast.settings == full.settings
    for name in ("relation_graph", "synonymy_graph", "mentions", "node_embeddings", "pairs"):
        assert (getattr(fast, name) != getattr(full, name)).nnz == 0, name  # not only the walk's
    np.testing.assert_array_equal(fast.specificity, full.specificity)
    np.testing.assert_array_equal(fast.dropped, full.dropped)
    for key in ("fact_linker", "bm25", ("with_passages", True), ("prepared", True), "nearest_rows"):
        fast.derived(key, _must_not_build)  # loaded from the cache: nothing left to derive
    assert list(fast.triples) == full.triples  # read from the index on first use
    questions = [q["question"] for q in json.loads(fetch("musique_questions").read_bytes())[:15]]
    for kw in ({}, {"facts": 0, "passage_weight": 0.0}):
        a, b = HippoRetriever(full, **kw), HippoRetriever(fast, **kw)
        for q in questions + [q.lower() for q in questions]:
            x, y = a.retrieve(q, k=5), b.retrieve(q, k=5)
            np.testing.assert_array_equal(x.passages, y.passages)
            np.testing.assert_array_equal(x.scores, y.scores)
    # A rewritten index makes the cache stale; a damaged cache is ignored. Both are rebuilt.
    save_index(delete_passages(full, [0]), idx)
    assert load_for_query(idx).n_passages == 39
    load_for_query(idx, write=False).derived("fact_linker", _must_not_build)  # the cache was written again
    with pytest.raises(AssertionError, match="derived again"):  # a cache of another tokenizer is stale
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr("pathfinding.hipporag.retrieval.querycache._PROBE", "another tokenizer, other tokens")
            load_for_query(idx, write=False).derived("fact_linker", _must_not_build)

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied", str(idx) + ".query-cache")

    os.remove(cache_path(idx))
    with pytest.MonkeyPatch.context() as mp:  # a read-only folder: answers without writing a cache
        mp.setattr("pathfinding.hipporag.retrieval.querycache.write_cache", refuse)
        assert load_for_query(idx).n_passages == 39 and not os.path.exists(cache_path(idx))
    load_for_query(idx)  # writes it again
    os.remove(cache_path(idx))
    with pytest.MonkeyPatch.context() as mp:  # the command line says why each query is slow
        mp.setattr("pathfinding.hipporag.retrieval.querycache.write_cache", refuse)
        code = main(["hipporag", "query", str(idx), "Who founded the journal?", "-k", "1"])
        assert code == 0 and "could not write" in capsys.readouterr().err
    load_for_query(idx)
    raw = bytearray(open(cache_path(idx), "rb").read())
    raw[len(raw) // 2] ^= 0xFF
    open(cache_path(idx), "wb").write(bytes(raw))
    assert load_for_query(idx, write=False).n_passages == 39


def test_a_crafted_cache_never_reaches_the_kernels(built):
    """A cache whose checksum holds but whose indices point outside their arrays is not used."""
    import hashlib
    import struct

    idx = built / "i.hippo"
    load_for_query(idx)  # current cache
    raw = bytearray(open(cache_path(idx), "rb").read())
    _, _, n_head, _ = struct.unpack_from("<8sIQQ", raw)
    header = json.loads(raw[28 : 28 + n_head])
    for name in ("prepared.indices", "facts.heads", "bm25.indices"):
        spec = header["arrays"][name]
        bad = bytearray(raw)
        at = 28 + n_head + spec["offset"]
        dtype = np.dtype(spec["dtype"])
        bad[at : at + dtype.itemsize] = np.array([10**6], dtype=dtype).tobytes()
        body = bytes(bad[:-32])
        open(cache_path(idx), "wb").write(body + hashlib.sha256(body).digest())
        with pytest.raises(AssertionError, match="derived again"):
            load_for_query(idx, write=False).derived("fact_linker", _must_not_build)
    load_for_query(idx)  # rewritten
    load_for_query(idx, write=False).derived("fact_linker", _must_not_build)


def _corruptions(header):
    """(array, position, value) that break one invariant the kernels rely on, each just out of bounds:
    an index equal to the number of its targets, a first pointer of 1, a last pointer one too far."""
    n = len(header["phrases"])

    def csr(parts, n_cols):
        data, indices, indptr = parts
        yield indices, 0, n_cols
        yield indptr, 0, 1
        yield indptr, -1, header["arrays"][indices]["shape"][0] + 1

    for spec in [*header["matrices"].values(), *header["derived"]["nearest_rows"].values()]:
        if spec["kind"] == "csr":
            yield from csr(spec["parts"], spec["shape"][1])
    for graph in (header["prepared"], header["derived"]["with_passages:1"]):
        m = graph["n_nodes"]
        yield from csr([None, graph["indices"]["array"], graph["indptr"]["array"]], m)
        for key in ("order", "bin_src", "bin_dst"):
            if graph[key] is not None:
                yield graph[key]["array"], 0, m
        if graph["component_ptr"] is not None:
            yield graph["component_ptr"]["array"], -1, m + 1
    ids, ends = header["triples"]["ids"], header["triples"]["ends"]
    yield ids, 0, n  # a subject, a relation, an object
    yield ids, 1, header["arrays"][header["triples"]["relations"]["ends"]]["shape"][0]
    yield ids, -1, n
    yield ends, -1, header["arrays"][ids]["shape"][0] + 1
    facts = header["derived"]["fact_linker"]
    yield facts["heads"], 0, n
    yield facts["tails"], -1, n
    for bm in (facts["bm25"], header["derived"]["bm25"]):
        arrays = bm["arrays"]
        yield from csr([None, arrays["indices"], arrays["indptr"]], bm["params"]["num_docs"])
    # the texts' ends: one past their bytes (the passages', the casing model's keys)
    casing, passages = header["derived"]["casing"]["arrays"], header["passages"]
    for ends, texts in ((passages["ends"], passages["texts"]), (casing["key_ends"], casing["keys"])):
        yield ends, -1, header["arrays"][texts]["shape"][0] + 1


def test_every_out_of_bounds_array_of_a_cache_is_refused(tmp_path):
    """Each index and pointer array of the cache, set just out of its bounds (checksum repaired), is
    caught before anything reads it: the index is loaded again rather than the cache used. (Two
    components, so that the walk's graphs carry a node order and component blocks too.)"""
    import hashlib
    import struct

    corpus = [{"title": t, "text": x} for t, x in [*PASSAGES, ("Paris", "Paris is the capital of France.")]]
    (tmp_path / "c.json").write_text(json.dumps(corpus))
    idx = tmp_path / "i.hippo"
    argv = ["hipporag", "index", str(tmp_path / "c.json"), "--extractor", "cooccurrence", "-o", str(idx)]
    assert main(argv) == 0  # writes the cache
    good = open(cache_path(idx), "rb").read()
    _, _, n_head, _ = struct.unpack_from("<8sIQQ", good)
    header = json.loads(good[28 : 28 + n_head])
    cases = list(_corruptions(header))
    assert len(cases) >= 30 and {"prepared.order", "prepared.component_ptr"} <= {name for name, *_ in cases}
    try:
        for name, position, value in cases:
            spec = header["arrays"][name]
            dtype = np.dtype(spec["dtype"])
            count = int(np.prod(spec["shape"]))
            if count == 0:  # an empty array (no synonymy edge) has nothing to break
                continue
            at = 28 + n_head + spec["offset"] + (position % count) * dtype.itemsize
            bad = bytearray(good)
            bad[at : at + dtype.itemsize] = np.array([value], dtype=dtype).tobytes()
            body = bytes(bad[:-32])
            open(cache_path(idx), "wb").write(body + hashlib.sha256(body).digest())
            with pytest.raises(AssertionError, match="derived again"):
                load_for_query(idx, write=False).derived("fact_linker", _must_not_build)
                pytest.fail(f"{name}[{position}] = {value} was used")
    finally:
        open(cache_path(idx), "wb").write(good)
    load_for_query(idx, write=False).derived("fact_linker", _must_not_build)


def test_a_cache_of_another_version_is_refused(built):
    import hashlib
    import struct

    idx = built / "i.hippo"
    load_for_query(idx)
    good = open(cache_path(idx), "rb").read()
    magic, version, n_head, n_arrays = struct.unpack_from("<8sIQQ", good)
    try:
        for head in (struct.pack("<8sIQQ", magic, version + 1, n_head, n_arrays),
                     struct.pack("<8sIQQ", b"PFOTHER!", version, n_head, n_arrays)):  # fmt: skip
            body = head + good[28:-32]
            open(cache_path(idx), "wb").write(body + hashlib.sha256(body).digest())
            with pytest.raises(AssertionError, match="derived again"):
                load_for_query(idx, write=False).derived("fact_linker", _must_not_build)
    finally:
        open(cache_path(idx), "wb").write(good)


def test_another_index_of_the_same_size_is_not_answered_from_the_old_cache(built):
    """The key holds the index's own SHA-256 (its last 32 bytes): an index file of the same size with
    other contents (here damaged, its checksum recomputed) is read in full, not served from the cache."""
    import hashlib

    idx = built / "i.hippo"
    load_for_query(idx)
    good = open(idx, "rb").read()
    try:
        body = bytearray(good[:-32])
        body[len(body) // 2] ^= 0xFF
        open(idx, "wb").write(bytes(body) + hashlib.sha256(bytes(body)).digest())
        # read in full: refused as damaged (FormatError), or loaded and then derived again
        with pytest.raises((FormatError, AssertionError)):
            load_for_query(idx, write=False).derived("fact_linker", _must_not_build)
    finally:
        open(idx, "wb").write(good)
    load_for_query(idx, write=False).derived("fact_linker", _must_not_build)


def test_an_index_replaced_while_it_is_read_leaves_no_cache_of_the_old_one(tmp_path, monkeypatch):
    """A writer that replaces the index while a query reads it: the query's cache must not file the
    old index's data under the new file's key, or every later query answers from the old index."""
    from pathfinding.hipporag.index import persistence
    from pathfinding.hipporag.index.build import build_index

    old = build_index([[("Ed Wood", "directed", "Plan 9")]], passages=["Ed Wood directed Plan 9."])
    new = build_index(
        [[("Bela Lugosi", "starred in", "Dracula")]], passages=["Bela Lugosi starred in Dracula."]
    )
    path = tmp_path / "i.hippo"
    save_index(old, path)
    read = persistence.load_index

    def read_then_replaced(p, **kw):
        index = read(p, **kw)
        save_index(new, p, overwrite=True)  # another process's `add` lands here
        return index

    monkeypatch.setattr(persistence, "load_index", read_then_replaced)
    load_for_query(path)
    monkeypatch.setattr(persistence, "load_index", read)
    assert load_for_query(path).passages == ["Bela Lugosi starred in Dracula."]


def test_triples_from_the_cache_need_no_encoder_and_are_made_one_passage_at_a_time(tmp_path):
    """The cache keeps the triples as id rows; a passage's triples are made when asked for, equal to
    the index's, by position (negative too) and by slice, with no encoder asked again."""
    triples = [[("cat", "is a", "pet"), ("cat", "likes", "dog")], [], [("kitten", "likes", "dog")]]
    idx = tmp_path / "c.hippo"
    save_index(build_index(triples, encoder=Table()), idx)
    load_for_query(idx, encoder=Table())  # writes the cache
    fast = load_for_query(idx, encoder=Table(), write=False)
    fast.derived("fact_linker", _must_not_build)  # it did come from the cache
    want = [tuple(doc) for doc in triples]
    assert list(fast.triples) == want and len(fast.triples) == 3
    assert fast.triples[-1] == want[-1] and fast.triples[1] == () and fast.triples[1:] == want[1:]
    with pytest.raises(IndexError):
        fast.triples[3]


def test_the_caller_is_told_before_an_index_is_read_whole_and_only_then(tmp_path, built):
    idx = tmp_path / "i.hippo"
    idx.write_bytes((built / "i.hippo").read_bytes())
    told = []
    load_for_query(idx, on_full_load=told.append)  # no cache beside the copy: read whole, cache written
    assert told == [str(tmp_path / "i.hippo.query-cache")]
    load_for_query(idx, on_full_load=told.append)  # the cache is current: nothing to say
    assert len(told) == 1


def test_the_cache_is_written_piece_by_piece_never_joined(tmp_path, monkeypatch):
    """The cache holds the index's arrays and what is derived from them (683 MB beside a 330 MB index
    at 100,000 passages). It was joined into one bytes object before the write, and that copy set
    the peak of `hipporag index` (2.34 GB at 100,000 passages; 1.67 GB without it). A second write, with
    everything already derived, must allocate under half the file's size (the passages' UTF-8 and
    the header's JSON are made for the write; here a quarter of it). The arrays go through a
    temporary file, read back 64 KiB at a time here (16 MiB by default, more than this whole file)."""
    import tracemalloc

    from pathfinding.hipporag.retrieval.querycache import write_cache
    from pathfinding.hipporag.storage import container

    monkeypatch.setattr(container, "_CHUNK", 1 << 16)

    idx = build_index([[("Ed Wood", "directed", f"Film {i}"), (f"Film {i}", "stars", f"Actor {i % 50}")]
                       for i in range(4000)], passages=[f"Ed Wood directed Film {i}." for i in range(4000)])
    path = tmp_path / "i.hippo"
    save_index(idx, path)
    write_cache(idx, path)  # derives what the cache holds, once
    size = os.path.getsize(cache_path(path))
    tracemalloc.start()
    try:
        write_cache(idx, path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert os.path.getsize(cache_path(path)) == size and peak < size / 2, (peak, size)
    load_for_query(path, write=False).derived("bm25", _must_not_build)  # and it reads back


def test_a_cache_written_by_a_command_that_exits_frees_each_object_once_written(tmp_path):
    """`hipporag index` and `add` write the cache and exit: each derived object is dropped once its
    arrays are in the temporary file, so the write holds the largest of them, not all of them (at
    a million passages they held 3.2 GB together). The file is the same byte for byte, and the index
    still answers, deriving again what it needs."""
    import tracemalloc

    from pathfinding.hipporag.index.model import prepared_key
    from pathfinding.hipporag.retrieval.querycache import write_cache
    from pathfinding.hipporag.retrieval.retrieve import BM25_KEY, FACT_LINKER_KEY, passage_graph_key

    triples = [[("Ed Wood", "directed", f"Film {i}"), (f"Film {i}", "stars", f"Actor {i % 50}")]
               for i in range(3000)]
    texts = [f"Ed Wood directed Film {i}, starring Actor {i % 50}." for i in range(3000)]
    peaks, files = {}, {}
    for keep in (True, False):
        idx = build_index(triples, passages=texts)
        path = tmp_path / f"{keep}.hippo"
        save_index(idx, path)
        idx.forget(prepared_key(True))  # as a freshly built index: nothing derived yet but the casing
        tracemalloc.start()
        try:
            write_cache(idx, path, keep_derived=keep)
            peaks[keep] = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        files[keep] = cache_path(path)
        kept = [k for k in (BM25_KEY, FACT_LINKER_KEY, passage_graph_key(True), prepared_key(True))
                if k in idx._derived]
        assert len(kept) == (4 if keep else 0), kept
    with open(files[True], "rb") as a, open(files[False], "rb") as b:
        assert a.read() == b.read()
    assert peaks[False] < 0.85 * peaks[True], peaks  # 0.69 here; 1.0 when nothing is freed
    assert HippoRetriever(idx).retrieve("Who directed Film 7?", k=1).passages.tolist() == [7]
