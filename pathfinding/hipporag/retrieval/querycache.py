"""A query-ready copy of an index beside it, so that one question from the command line is quick.

A question from the shell starts a new process, which must load the index and then derive what
retrieval needs (BM25 over the passages and over the facts, the walk's prepared graphs); on a few
thousand passages that costs several times the load. :func:`load_for_query` keeps
``INDEX.query-cache`` beside ``INDEX``: a :mod:`~pathfinding.hipporag.storage.container` of everything a
query reads, as raw arrays viewed through a private memory map; the triples stay id rows, made into
text one passage at a time for the passages something asks about (an explanation's paths).

The cache is derived data and never trusted blindly. It is keyed to the index file's size and
SHA-256 (the index's last 32 bytes), its own version, the ``bm25s`` version and the BM25 tokens of a
probe text, all read without importing ``bm25s`` (so a question can be answered without numba,
:mod:`~pathfinding.hipporag.retrieval.oneshot`), and every index array is checked against its bounds before a
kernel sees it. A stale, damaged or foreign cache means a full load and a new cache; one that cannot
be written (a read-only folder) is skipped. Each loaded object is handed to the index under the key
its owner names (:data:`~pathfinding.hipporag.retrieval.retrieve.FACT_LINKER_KEY`,
:data:`~pathfinding.hipporag.retrieval.retrieve.BM25_KEY`,
:func:`~pathfinding.hipporag.retrieval.retrieve.passage_graph_key`,
:func:`~pathfinding.hipporag.index.model.prepared_key`,
:data:`~pathfinding.hipporag.retrieval.linking.NEAREST_ROWS_KEY`,
:data:`~pathfinding.hipporag.language.casing.CASING_KEY`); anything the cache lacks is derived on
first use.
"""

from __future__ import annotations

import dataclasses
import mmap
import os
import tempfile
from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

from pathfinding.errors import FormatError, InvalidValueError
from pathfinding.hipporag.index.model import HippoIndex, IndexStats, prepared_key
from pathfinding.hipporag.language.casing import CASING_KEY
from pathfinding.hipporag.language.text import words
from pathfinding.hipporag.retrieval.lexical import BM25Ranker, FactLinker
from pathfinding.hipporag.retrieval.linking import NEAREST_ROWS_KEY
from pathfinding.hipporag.retrieval.retrieve import (
    BM25_KEY,
    FACT_LINKER_KEY,
    graph_with_passages,
    passage_bm25,
    passage_graph_key,
)
from pathfinding.hipporag.storage.container import DIGEST, ArrayBlock, Container, Layout, pack_chunks
from pathfinding.hipporag.storage.safety import atomic_write, has_magic, refuse_foreign, remove_stale_temps

__all__ = ["CACHE_SUFFIX", "CACHE_VERSION", "cache_path", "is_cache_file", "load_for_query", "write_cache"]

CACHE_SUFFIX = ".query-cache"
CACHE_VERSION = 7
LAYOUT = Layout(
    b"PFHIPQRY",
    CACHE_VERSION,
    "query cache",
    frozenset({"|b1", "|u1", "|i1", "<i2", "<u2", "<i4", "<u4", "<i8", "<u8", "<f4", "<f8"}),
)
"""The query cache's :class:`~pathfinding.hipporag.storage.container.Layout`: numeric and boolean arrays."""


def cache_path(index_path) -> str:
    """Where the query cache of ``index_path`` lives: beside it, named ``INDEX.query-cache``."""
    return os.fspath(index_path) + CACHE_SUFFIX


def is_cache_file(path) -> bool:
    """True when ``path`` starts as a query cache does (a file :func:`write_cache` wrote)."""
    return has_magic(path, LAYOUT.magic)


_PROBE = (
    "Thomas Südhof met Jürgen in Łódź and 東京都; the U.S. film's 2nd cut, e-mail x1, "
    "गांधी in İstanbul'da, Straße, 서울에서, Ali\u200dce"
)
"""Text whose BM25 tokens go into the cache key: a package whose tokenizer tokenizes differently
(another script, another rule) does not read BM25 state written by the old one."""


def _index_key(index_path) -> dict:
    """What ties a cache to one exact index file (its size and the SHA-256 stored at its end) and to
    the code that wrote it (cache version, bm25s version, what the BM25 tokenizer makes of a probe)."""
    with open(index_path, "rb") as fh:
        fh.seek(0, os.SEEK_END)
        size = fh.tell()
        fh.seek(max(size - DIGEST, 0))
        digest = fh.read(DIGEST).hex()
    return {
        "version": CACHE_VERSION,
        "index_size": size,
        "index_sha256": digest,
        "bm25s": _installed_version("bm25s"),
        "tokens": words(_PROBE),
    }


def _installed_version(package: str) -> str:
    """``package``'s installed version, from its ``.dist-info`` folder beside it (importing
    ``bm25s`` would load numba; :mod:`importlib.metadata` scans every installed distribution)."""
    from importlib.util import find_spec

    spec = find_spec(package)
    if spec is not None and spec.origin:
        site = os.path.dirname(os.path.dirname(spec.origin))
        prefix = f"{package}-"
        for name in os.listdir(site):
            if name.startswith(prefix) and name.endswith(".dist-info"):
                return name[len(prefix) : -len(".dist-info")]
    from importlib.metadata import version

    return version(package)


class _Arrays(ArrayBlock):
    """The cache's arrays, with its ways of storing a matrix and a prepared graph."""

    def __init__(self, spill=None):
        super().__init__(LAYOUT.dtypes, spill)

    def matrix(self, name: str, M) -> dict:
        if sp.issparse(M):
            M = sp.csr_array(M)
            return {
                "kind": "csr",
                "shape": list(M.shape),
                "parts": [self.add(f"{name}.{p}", getattr(M, p)) for p in ("data", "indices", "indptr")],
            }
        return {"kind": "dense", "array": self.add(name, np.asarray(M))}

    def graph(self, name: str, g) -> dict:
        """A PPRGraph as its fields: arrays into the block, scalars and None into the header."""
        out = {}
        for f in dataclasses.fields(g):
            if f.name.startswith("_"):
                continue
            v = getattr(g, f.name)
            out[f.name] = {"array": self.add(f"{name}.{f.name}", v)} if isinstance(v, np.ndarray) else v
        return out


def write_cache(index: HippoIndex, index_path, *, key: dict | None = None, keep_derived: bool = True) -> str:
    """Derive what the default, v1 and BM25 retrievers read and write it beside ``index_path``.

    ``index`` must be the index stored in ``index_path`` (the cache is keyed to that file); ``key``
    is that file's key as it was when ``index`` was read (default: the file's key now).
    Returns the cache's path. The file is written beside it and renamed, as the index is; a file
    at that path that is not a query cache is left alone (InvalidValueError).

    Each array goes to a temporary file in the cache's folder as soon as it is made (a file with no
    name where the system allows it, so nothing is left behind), and the cache is then written from
    it. With ``keep_derived=False`` each object derived for the cache (BM25, the walk graphs, the
    fact linker, the casing model, the linker's postings) is also dropped from the index once
    written, so the memory this takes is that of the largest object, not of all of them; the index
    still answers questions, deriving anything it needs again. ``hipporag index`` and ``add``, which
    exit after writing, use it; :func:`load_for_query`, which answers a question next, does not.
    """
    from pathfinding.hipporag.index.nearest import NearestRows
    from pathfinding.hipporag.index.persistence import (
        encode_casing,
        encode_labels,
        encode_texts,
        encode_triples,
        encoder_spec,
    )
    from pathfinding.hipporag.language.casing import casing_model

    key = _index_key(index_path) if key is None else key
    out = cache_path(index_path)
    refuse_foreign(out, is_ours=is_cache_file, what="a query cache", hint="move it, then query again")

    def written(derived_key, write):
        """``write()``'s header entry; then, unless kept, the index forgets what it derived."""
        entry = write()
        if not keep_derived:
            index.forget(derived_key)
        return entry

    # Everything is derived through the index, under the keys the retriever and the linker use,
    # so that loading can hand each one back (``index.derived``) before anyone asks. Held all at
    # once and joined at the end, the cache stage set the peak of `hipporag index`: at a million
    # synthetic passages it went from 6.37 GB resident to 9.53 GB (10.50 GB peak).
    with tempfile.TemporaryFile(dir=os.path.dirname(os.path.abspath(out)), prefix=".query-cache-") as spill:
        w = _Arrays(spill)
        derived = {"casing": written(CASING_KEY, lambda: encode_casing(casing_model(index), w.add))}
        prepared = written(prepared_key(True), lambda: w.graph("prepared", index.prepared(synonymy=True)))
        derived["fact_linker"] = written(FACT_LINKER_KEY, lambda: _facts(w, index))
        if index.passages:
            derived["bm25"] = written(BM25_KEY, lambda: _bm25(w, "bm25", passage_bm25(index)))
            derived["with_passages:1"] = written(
                passage_graph_key(True), lambda: w.graph("wp1", graph_with_passages(index, synonymy=True))
            )
        if sp.issparse(index.node_embeddings):
            # its rows are the node embeddings, stored once below; the posting lists are its own
            def nearest():
                rows = index.derived(NEAREST_ROWS_KEY, lambda: NearestRows(index.node_embeddings))
                return {"postings": w.matrix("nearest.P", rows.get_state()[1])}

            derived["nearest_rows"] = written(NEAREST_ROWS_KEY, nearest)
        header = {
            "key": key,
            "phrases": index.phrases,
            "passages": encode_texts(index.passages, "passages", w.add),
            "settings": index.settings,
            "stats": dataclasses.asdict(index.stats),
            "matrices": {
                name: w.matrix(name, getattr(index, name))
                for name in ("relation_graph", "synonymy_graph", "mentions", "node_embeddings", "pairs")
            },
            "specificity": w.add("specificity", index.specificity),
            "dropped": w.add("dropped", index.dropped),
            "encoder": encoder_spec(index.encoder, lambda name, a: w.add(name, a)),
            "triples": encode_triples(index.triples, index.phrases, w.add),
            "prepared": prepared,
            "derived": derived,
            **encode_labels(index),
        }
        atomic_write(out, pack_chunks(LAYOUT, header, w))
    return out


def _facts(w: _Arrays, index: HippoIndex) -> dict:
    heads, tails, fact_bm25 = index.derived(FACT_LINKER_KEY, lambda: FactLinker(index)).get_state()
    return {
        "heads": w.add("facts.heads", heads),
        "tails": w.add("facts.tails", tails),
        "bm25": None if fact_bm25 is None else _bm25(w, "facts.bm25", fact_bm25),
    }


def _bm25(w: _Arrays, name: str, ranker: BM25Ranker) -> dict:
    params, vocab, arrays = ranker.get_state()
    return {
        "params": params,
        "vocab": vocab,
        "arrays": {k: w.add(f"{name}.{k}", a) for k, a in arrays.items()},
    }


class _Block:
    """Arrays of a cache file, viewed (not copied) through a private, writable memory map."""

    def __init__(self, path: str):
        with open(path, "rb") as fh:
            self.map = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_COPY)
        self.file = Container(self.map, LAYOUT, path)
        self.header = self.file.header

    def array(self, name: str) -> np.ndarray:
        return self.file.array(name, copy=False)

    def matrix(self, spec: dict):
        if spec["kind"] == "dense":
            return self.array(spec["array"])
        data, indices, indptr = (self.array(p) for p in spec["parts"])
        n_rows, n_cols = (int(x) for x in spec["shape"])
        _check_pointers(indptr, indices, n_rows, n_cols)
        _check(data.size == indices.size, "CSR data and indices differ in length")
        M = sp.csr_array((data, indices, indptr), shape=(n_rows, n_cols), copy=False)
        M.has_sorted_indices = True  # written from a CSR array as it was
        return M

    def graph(self, spec: dict):
        from pathfinding.core.prepared import PPRGraph

        kw = {k: self.array(v["array"]) if isinstance(v, dict) else v for k, v in spec.items()}
        _check_graph(kw)
        return PPRGraph(**kw)

    def bm25(self, spec: dict) -> BM25Ranker:
        arrays = {k: self.array(v) for k, v in spec["arrays"].items()}
        if not spec["params"]["empty"]:
            # bm25s keeps a CSC matrix, a column per indexed token (its vocabulary may end with an
            # empty token that has none, and no question has that token), rows are passages
            n_docs, n_cols = int(spec["params"]["num_docs"]), arrays["indptr"].size - 1
            _check(0 <= n_cols <= len(spec["vocab"]), "BM25 columns and vocabulary disagree")
            _check(not any(spec["vocab"][n_cols:]), "BM25 vocabulary has a word with no column")
            _check_pointers(arrays["indptr"], arrays["indices"], n_cols, n_docs)
            _check(arrays["data"].size == arrays["indices"].size, "BM25 data and indices differ in length")
        return BM25Ranker.from_state(spec["params"], spec["vocab"], arrays)


# The arrays of a cache reach compiled kernels that do not check bounds, so every index into another
# array is checked here (a few vectorised passes); the checksum only guards against accidents.


def _check(ok, what: str) -> None:
    if not ok:
        raise FormatError(f"query cache: {what}")


def _check_pointers(indptr: np.ndarray, indices: np.ndarray, n_ptr: int, n_targets: int) -> None:
    """``indptr`` has ``n_ptr + 1`` non-decreasing offsets from 0 to ``len(indices)``, every index
    lies in ``[0, n_targets)``."""
    _check(indptr.ndim == 1 and indptr.size == n_ptr + 1, "pointer array of the wrong length")
    _check(indptr[0] == 0 and indptr[-1] == indices.size, "pointers do not span the indices")
    _check(bool(np.all(indptr[1:] >= indptr[:-1])), "pointers decrease")
    _check(indices.size == 0 or (indices.min() >= 0 and indices.max() < n_targets), "index out of range")


def _check_graph(kw: dict) -> None:
    n = kw["n_nodes"]
    _check(isinstance(n, int) and n >= 0, "node count")
    _check_pointers(kw["indptr"], kw["indices"], n, n)
    _check(kw["weights"].size in (0, kw["indices"].size), "weights of the wrong length")
    _check(kw["inv_out"].shape == (n,), "inverse out-weights of the wrong length")
    for key in ("order", "bin_src", "bin_dst"):
        a = kw.get(key)
        _check(a is None or a.size == 0 or (a.min() >= 0 and a.max() < n), f"{key} out of range")
    for key in ("component_ptr", "bin_rows"):
        a = kw.get(key)
        ok = a is None or (a.size > 0 and a[0] >= 0 and a[-1] <= n and bool(np.all(a[1:] >= a[:-1])))
        _check(ok, f"{key} out of range")
    if kw.get("order") is not None:
        _check(kw["order"].shape == (n,), "order of the wrong length")
    if kw.get("bin_src") is not None:
        size = kw["bin_src"].size
        _check(kw["bin_dst"].size == size and kw["bin_weights"].size in (0, size), "bins differ in length")


class _Triples(Sequence):
    """An index's per-passage triples, made from the cache's id rows one passage at a time, when
    asked (an explanation reads the triples of the few passages on its paths; the whole list is a
    Python tuple per triple, 1.2 KB a passage)."""

    def __init__(self, ids: np.ndarray, ends: np.ndarray, phrases: list[str], relations: list[str]):
        self._ids, self._ends, self._phrases, self._relations = ids, ends, phrases, relations

    def __len__(self) -> int:
        return len(self._ends)

    def __getitem__(self, j):
        if isinstance(j, slice):
            return [self[i] for i in range(*j.indices(len(self)))]
        j = range(len(self))[j]  # an int, negative from the end, IndexError outside
        a, b = (int(self._ends[j - 1]) if j else 0), int(self._ends[j])
        P, R = self._phrases, self._relations
        return tuple((P[s], R[r], P[o]) for s, r, o in self._ids[a:b].tolist())


def _from_cache(block: _Block, index_path: str, encoder) -> HippoIndex:
    from pathfinding.hipporag.index.nearest import NearestRows
    from pathfinding.hipporag.index.persistence import (
        decode_encoder,
        decode_labels,
        decode_texts,
        triple_arrays,
    )

    h = block.header
    passages = decode_texts(h["passages"], block.array, index_path, "passages")
    mats = {name: block.matrix(spec) for name, spec in h["matrices"].items()}
    n, n_pass = len(h["phrases"]), mats["mentions"].shape[1]
    for name, shape in (("relation_graph", (n, n)), ("synonymy_graph", (n, n)), ("pairs", (n, n))):
        _check(mats[name].shape == shape, f"{name} shape")
    _check(mats["mentions"].shape[0] == n and mats["node_embeddings"].shape[0] == n, "node count")
    _check(not passages or len(passages) == n_pass, "passage count")
    enc = decode_encoder(
        h["encoder"], block.array, index_path, encoder, h["phrases"], mats["node_embeddings"]
    )
    t_ids, t_ends, relations = triple_arrays(h["triples"], block.array, index_path, n)
    _check(t_ends.size == n_pass, "triples of another number of passages")
    index = HippoIndex(
        phrases=h["phrases"],
        relation_graph=mats["relation_graph"],
        synonymy_graph=mats["synonymy_graph"],
        mentions=mats["mentions"],
        specificity=block.array(h["specificity"]),
        node_embeddings=mats["node_embeddings"],
        encoder=enc,
        passages=passages,
        stats=IndexStats(**h["stats"]),
        triples=_Triples(t_ids, t_ends, h["phrases"], relations),
        dropped=block.array(h["dropped"]),
        pairs=mats["pairs"],
        settings=h["settings"],
        **decode_labels(h, index_path, n_pass),
    )
    _check(index.specificity.shape == (n,) and index.dropped.shape == (n_pass,), "per-node arrays")
    d = h["derived"]
    given = {prepared_key(True): block.graph(h["prepared"])}
    _check(given[prepared_key(True)].n_nodes == n, "prepared graph size")
    fl = d["fact_linker"]
    bm = None if fl["bm25"] is None else block.bm25(fl["bm25"])
    heads, tails = block.array(fl["heads"]), block.array(fl["tails"])
    _check(heads.shape == tails.shape and (bm is None or bm.n_passages == heads.size), "facts")
    _check(
        heads.size == 0 or (min(heads.min(), tails.min()) >= 0 and max(heads.max(), tails.max()) < n), "facts"
    )
    given[FACT_LINKER_KEY] = FactLinker.from_state(heads, tails, bm)
    if "bm25" in d:
        given[BM25_KEY] = block.bm25(d["bm25"])
        given[passage_graph_key(True)] = block.graph(d["with_passages:1"])
        _check(given[BM25_KEY].n_passages == n_pass, "passage BM25 size")
        _check(given[passage_graph_key(True)].n_nodes == n + n_pass, "graph with passages size")
    if "casing" in d:
        from pathfinding.hipporag.index.persistence import decode_casing

        given[CASING_KEY] = decode_casing(d["casing"], block.array, index_path, h["settings"])
    if "nearest_rows" in d:
        nr = d["nearest_rows"]
        X, postings = mats["node_embeddings"], block.matrix(nr["postings"])
        _check(X.shape[0] == n and postings.shape == X.shape[::-1], "linking postings shape")
        given[NEAREST_ROWS_KEY] = NearestRows.from_state(X, postings)
    for key, value in given.items():
        index.derived(key, lambda value=value: value)
    return index


def load_for_query(
    index_path, *, encoder=None, write: bool = True, on_skip=None, on_full_load=None
) -> HippoIndex:
    """Load an index for answering questions, from its query cache when the cache is current.

    Parameters
    ----------
    index_path : str or path-like
        An index written by :func:`~pathfinding.hipporag.index.persistence.save_index`.
    encoder : callable, optional
        As for :func:`~pathfinding.hipporag.index.persistence.load_index` (only for a custom encoder).
    write : bool, default True
        When the cache is missing or stale, write it after the full load (skipped when it cannot be
        written: a read-only folder, a full disk).
    on_skip : callable, optional
        Called with the exception when the cache could not be written (the index is loaded all the
        same), so a caller can say why: ``OSError`` (its ``strerror``: "No space left on device",
        "Read-only file system" ...) or :class:`~pathfinding.errors.InvalidValueError`.
    on_full_load : callable, optional
        Called with the cache's path just before the index is read whole and its cache derived (no
        current cache), so a caller can say why this load takes longer than the next ones.

    Returns
    -------
    HippoIndex
        Equal to ``load_index(index_path)`` (same arrays, encoder, passages, triples and settings;
        each passage's triples are made from the cache's id rows when asked for), with the fact
        linker, BM25 and the walk's graphs already derived.

    Raises
    ------
    FormatError
        As :func:`~pathfinding.hipporag.index.persistence.load_index`, when the index must be read.
    """
    from pathfinding.hipporag.index.persistence import load_index

    path = os.fspath(index_path)
    remove_stale_temps(path)
    key = _index_key(path)
    cpath = cache_path(path)
    remove_stale_temps(cpath)
    if os.path.isfile(cpath):
        try:
            block = _Block(cpath)
            if block.header.get("key") == key:
                return _from_cache(block, path, encoder)
        except (ValueError, KeyError, TypeError, OSError):  # FormatError is a ValueError
            pass  # a stale, damaged or foreign cache: load the index and write it again
    if on_full_load is not None:
        on_full_load(cpath)
    index = load_index(path, encoder=encoder)
    # A writer that replaced the index while it was read: the index read may be either file, so
    # no cache is written for it (the next query reads the new file and writes one).
    if write and _index_key(path) == key:
        try:
            write_cache(index, path, key=key)
        except (OSError, InvalidValueError) as exc:
            # a read-only folder, a full disk, a file of the user's at the cache's path
            if on_skip is not None:
                on_skip(exc)
    return index
