"""Save a :class:`~pathfinding.hipporag.index.model.HippoIndex` to one file and load it back, without pickle.

The file (``FORMAT_VERSION`` 1) is, in order::

    8 bytes   magic b"PFHIPIDX"
    4 bytes   format version, uint32 little-endian
    8 bytes   length H of the header, uint64 little-endian
    8 bytes   length L of the array block, uint64 little-endian
    H bytes   header: UTF-8 JSON (settings, phrases, passages, triples, encoder state, array table)
    L bytes   array block: raw little-endian arrays, each at an 8-byte aligned offset
    32 bytes  SHA-256 of everything before it

Loading reads JSON and raw numbers only: arrays are rebuilt with :func:`numpy.frombuffer` from a
whitelist of dtypes (float64, int32, int64), never from pickle, so a file cannot run code. The
checks run in the order that gives the most useful message: magic, version, length (truncated or
extended), checksum (corrupted), then the structure of the header and of every matrix. Each failure
is a :class:`~pathfinding.errors.FormatError` naming the file and the problem.

The default :class:`~pathfinding.hipporag.index.encoder.CharNgramEncoder` is saved as data (its n-gram
list and IDF array) and rebuilt without refitting. Any other encoder is code, which this format does
not store: the file records its class name, and :func:`load_index` needs it again as
``load_index(path, encoder=...)`` (checked against the stored embeddings).
"""

from __future__ import annotations

import hashlib
import json
import os
import struct

import numpy as np
import scipy.sparse as sp

from pathfinding.errors import FormatError, InvalidTypeError, InvalidValueError
from pathfinding.hipporag.index.build import assemble_index, check_unit_rows
from pathfinding.hipporag.index.encoder import CharNgramEncoder
from pathfinding.hipporag.index.model import HippoIndex
from pathfinding.hipporag.safety import (
    atomic_write,
    exclusive_lock,
    has_magic,
    refuse_foreign,
    remove_stale_temps,
)

__all__ = [
    "FORMAT_VERSION",
    "MAGIC",
    "decode_encoder",
    "encoder_spec",
    "is_index_file",
    "load_index",
    "save_index",
]

MAGIC = b"PFHIPIDX"
FORMAT_VERSION = 1
_PREFIX = struct.Struct("<8sIQQ")
_DIGEST = 32
_DTYPES = {"<f8": np.float64, "<f4": np.float32, "<i4": np.int32, "<i8": np.int64}
_SPARSE = ("relation_graph", "mentions", "pairs")


class _Writer:
    """Collects arrays into one block and their table for the header."""

    def __init__(self):
        self.chunks: list[bytes] = []
        self.table: dict[str, dict] = {}
        self.size = 0

    def add(self, name: str, a) -> None:
        a = np.ascontiguousarray(a)
        a = a.astype(a.dtype.newbyteorder("<"), copy=False)
        if a.dtype.str not in _DTYPES:
            raise InvalidTypeError(f"cannot save array {name!r} of dtype {a.dtype}")
        raw = a.tobytes()
        self.table[name] = {"dtype": a.dtype.str, "shape": list(a.shape), "offset": self.size}
        pad = (-len(raw)) % 8
        self.chunks.append(raw + b"\0" * pad)
        self.size += len(raw) + pad

    def add_matrix(self, name: str, M) -> dict:
        if sp.issparse(M):
            M = sp.csr_array(M)
            M.sort_indices()
            self.add(name + ".data", M.data.astype(np.float64, copy=False))
            self.add(name + ".indices", M.indices)
            self.add(name + ".indptr", M.indptr)
            return {"kind": "csr", "shape": list(M.shape)}
        self.add(name + ".dense", np.asarray(M, dtype=np.float64))
        return {"kind": "dense", "shape": list(np.shape(M))}


def save_index(index: HippoIndex, path, *, overwrite: bool = False) -> None:
    """Write ``index`` to ``path`` (one file; see the module docstring for the format).

    The file is written beside ``path`` and renamed over it, so an interrupted save never leaves a
    half-written index under the final name, under an exclusive lock on ``path``
    (:func:`~pathfinding.hipporag.safety.exclusive_lock`), so two processes saving one file take turns.
    Temporary files that a killed save left beside ``path`` are removed.

    Parameters
    ----------
    index : HippoIndex
    path : str or path-like
    overwrite : bool, default False
        Replace ``path`` even when it holds something that is not an index. An existing index is
        always replaced.

    Raises
    ------
    TypeError
        If ``index`` is not a HippoIndex.
    ValueError
        If ``path`` holds a file that is not an index (a corpus, say) and ``overwrite`` is False.
    FileBusyError
        If another process keeps ``path`` locked for longer than
        :data:`~pathfinding.hipporag.safety.DEFAULT_WAIT` seconds.

    Examples
    --------
    >>> import os, tempfile
    >>> from pathfinding.hipporag.index.build import build_index
    >>> idx = build_index([[("Ed Wood", "directed", "Plan 9")]], passages=["Ed Wood directed Plan 9."])
    >>> path = os.path.join(tempfile.mkdtemp(), "toy.hippo")
    >>> save_index(idx, path)
    >>> load_index(path).phrases
    ['ed wood', 'plan 9']
    """
    if not isinstance(index, HippoIndex):
        raise InvalidTypeError(f"index must be a HippoIndex, got {type(index).__name__}")
    if not overwrite:
        refuse_foreign(path, is_ours=is_index_file, what="a pathfinding index", hint="pass overwrite=True")
    w = _Writer()
    matrices = {name: w.add_matrix(name, getattr(index, name)) for name in _SPARSE}
    matrices["node_embeddings"] = w.add_matrix("node_embeddings", index.node_embeddings)
    w.add("dropped", np.asarray(index.dropped, dtype=np.int64))
    encoder = encoder_spec(index.encoder, w.add)
    header = {
        "settings": index.settings,
        "phrases": index.phrases,
        "passages": index.passages,
        "triples": [[list(t) for t in doc] for doc in index.triples],
        "matrices": matrices,
        "encoder": encoder,
        "arrays": w.table,
    }
    head = json.dumps(header, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    body = b"".join([_PREFIX.pack(MAGIC, FORMAT_VERSION, len(head), w.size), head, *w.chunks])
    with exclusive_lock(path):
        remove_stale_temps(path)
        atomic_write(path, [body, hashlib.sha256(body).digest()])


def is_index_file(path) -> bool:
    """True when ``path`` starts as an index file does (a file :func:`save_index` wrote)."""
    return has_magic(path, MAGIC)


def encoder_spec(enc, add_array) -> dict:
    """How a file records the encoder: as data (the default encoder's n-grams, with its IDF passed
    to ``add_array(name, array)``), as an endpoint (:class:`~pathfinding.hipporag.index.embeddings.
    EmbeddingEncoder`: URL, model and dimension, so queries embed with the same model), or by class
    name (any other encoder is code, which the file does not hold)."""
    if type(enc) is CharNgramEncoder:
        params, grams, idf = enc.get_state()
        add_array("encoder.idf", idf)
        return {"kind": "char_ngram", "params": params, "grams": grams}
    spec = getattr(enc, "index_spec", None)
    if callable(spec):
        return spec()
    return {"kind": "custom", "class": f"{type(enc).__module__}.{type(enc).__qualname__}"}


def _check_container(raw: bytes, name: str) -> tuple[dict, memoryview]:
    """Magic, version, length and checksum; return the parsed header and the array block."""
    if raw[: len(MAGIC)] != MAGIC[: len(raw)]:
        raise FormatError(
            f"{name}: not a pathfinding HippoRAG index (starts with {raw[:8]!r}, expected {MAGIC!r})"
        )
    if len(raw) < _PREFIX.size:
        raise FormatError(f"{name}: truncated: {len(raw)} bytes, shorter than the {_PREFIX.size}-byte prefix")
    _, version, n_head, n_arrays = _PREFIX.unpack_from(raw)
    if version != FORMAT_VERSION:
        raise FormatError(
            f"{name}: index format version {version}; this pathfinding reads version {FORMAT_VERSION} "
            f"(rebuild the index with this version)"
        )
    expected = _PREFIX.size + n_head + n_arrays + _DIGEST
    if len(raw) != expected:
        what = "truncated" if len(raw) < expected else "has trailing bytes"
        raise FormatError(f"{name}: {what}: {len(raw)} bytes, the prefix says {expected}")
    body = memoryview(raw)[: expected - _DIGEST]
    if hashlib.sha256(body).digest() != raw[expected - _DIGEST :]:
        raise FormatError(
            f"{name}: checksum mismatch: the file is corrupted (SHA-256 of its content differs)"
        )
    try:
        header = json.loads(bytes(body[_PREFIX.size : _PREFIX.size + n_head]).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise FormatError(f"{name}: header is not UTF-8 JSON ({exc})") from None
    if not isinstance(header, dict):
        raise FormatError(f"{name}: header must be a JSON object, got {type(header).__name__}")
    return header, body[_PREFIX.size + n_head :]


class _Reader:
    def __init__(self, header: dict, block: memoryview, name: str):
        self.table = _field(header, "arrays", dict, name)
        self.block = block
        self.name = name

    def array(self, key: str) -> np.ndarray:
        spec = self.table.get(key)
        if not isinstance(spec, dict) or spec.get("dtype") not in _DTYPES:
            raise FormatError(f"{self.name}: array {key!r} is missing or has an unsupported dtype")
        dtype = np.dtype(spec["dtype"])
        shape, offset = spec.get("shape"), spec.get("offset")
        if not (isinstance(shape, list) and all(isinstance(d, int) and d >= 0 for d in shape)):
            raise FormatError(f"{self.name}: array {key!r} has a bad shape {shape!r}")
        count = int(np.prod(shape, dtype=np.int64))
        if not isinstance(offset, int) or offset < 0 or offset + count * dtype.itemsize > len(self.block):
            raise FormatError(f"{self.name}: array {key!r} lies outside the array block")
        a = np.frombuffer(self.block, dtype=dtype, count=count, offset=offset).reshape(shape)
        return a.astype(dtype.newbyteorder("="))  # a private, writable, native-order copy

    def matrix(self, key: str, spec) -> object:
        if not isinstance(spec, dict) or spec.get("kind") not in ("csr", "dense"):
            raise FormatError(f"{self.name}: matrix {key!r} has no valid description")
        if spec["kind"] == "dense":
            return self.array(key + ".dense")
        shape = tuple(spec.get("shape", ()))
        try:
            M = sp.csr_array(
                (self.array(key + ".data"), self.array(key + ".indices"), self.array(key + ".indptr")),
                shape=shape,
            )
            M.check_format(full_check=True)
        except (ValueError, TypeError) as exc:
            raise FormatError(f"{self.name}: matrix {key!r} is not a valid CSR matrix ({exc})") from None
        return M


def _field(header: dict, key: str, kind, name: str):
    value = header.get(key)
    if not isinstance(value, kind):
        raise FormatError(f"{name}: header field {key!r} must be {kind.__name__}, got {type(value).__name__}")
    return value


def load_index(path, *, encoder=None) -> HippoIndex:
    """Read an index written by :func:`save_index`; temporary files a killed save left are removed.

    Parameters
    ----------
    path : str or path-like
    encoder : callable, optional
        Only for an index built with a custom encoder, which the file cannot hold: pass the same
        (fitted) encoder again. Its output on the first phrases is checked against the stored
        embeddings.

    Returns
    -------
    HippoIndex
        Equal to the saved one: same phrases, matrices (bit for bit), encoder state, passages,
        triples and settings, so retrieval gives bit-identical scores.

    Raises
    ------
    FormatError
        If the file is not an index, has another format version, is truncated or corrupted (checksum),
        or its header or matrices are malformed. The message names the file and the problem.
    ValueError
        If the index needs ``encoder=`` and none was given, if one was given for an index that stores
        its own, or if the given encoder does not reproduce the stored embeddings.
    """
    name = os.fspath(path)
    remove_stale_temps(path)
    with open(path, "rb") as fh:
        raw = fh.read()
    header, block = _check_container(raw, name)
    rd = _Reader(header, block, name)
    settings = _field(header, "settings", dict, name)
    phrases = _field(header, "phrases", list, name)
    passages = _field(header, "passages", list, name)
    triples_raw = _field(header, "triples", list, name)
    matrices = _field(header, "matrices", dict, name)
    enc_spec = _field(header, "encoder", dict, name)
    try:
        triples = [tuple((s, r, o) for s, r, o in doc) for doc in triples_raw]
        if not all(isinstance(x, str) for doc in triples for t in doc for x in t):
            raise InvalidTypeError("triple elements must be strings")
    except (TypeError, ValueError) as exc:
        raise FormatError(f"{name}: header field 'triples' is malformed ({exc})") from None
    mats = {key: rd.matrix(key, matrices.get(key)) for key in (*_SPARSE, "node_embeddings")}
    n, n_pass = len(phrases), len(triples)
    expect = {"relation_graph": (n, n), "pairs": (n, n), "mentions": (n, n_pass)}
    for key, shape in expect.items():
        if mats[key].shape != shape:
            raise FormatError(f"{name}: matrix {key!r} has shape {mats[key].shape}, expected {shape}")
    dropped = rd.array("dropped")
    if dropped.shape != (n_pass,) or (passages and len(passages) != n_pass):
        raise FormatError(f"{name}: per-passage fields disagree on the number of passages ({n_pass})")
    if sorted(set(phrases)) != phrases:
        raise FormatError(f"{name}: phrases must be sorted and distinct")
    if not {"tau", "max_synonyms", "synonymy", "fit_encoder"} <= set(settings):
        raise FormatError(f"{name}: settings lack a key (got {sorted(settings)})")
    E = mats["node_embeddings"]
    if E.shape[0] != n:
        raise FormatError(f"{name}: node_embeddings has {E.shape[0]} rows, expected {n}")
    enc = decode_encoder(enc_spec, rd.array, name, encoder, phrases, E)
    return assemble_index(
        phrases=phrases,
        triples=triples,
        dropped=dropped,
        R=mats["relation_graph"],
        P=mats["mentions"],
        E=E,
        pairs=mats["pairs"],
        encoder=enc,
        passages=passages,
        settings=settings,
    )


def decode_encoder(spec: dict, array, name: str, encoder, phrases, E):
    """The encoder an :func:`encoder_spec` describes (``array(name)`` reads the saved arrays);
    ``encoder`` is the caller's, required for a custom encoder and checked against ``E``."""
    kind = spec.get("kind")
    if kind == "char_ngram":
        if encoder is not None:
            raise InvalidValueError(
                f"{name} stores its own CharNgramEncoder; encoder= is only for an index built with a "
                f"custom encoder"
            )
        try:
            return CharNgramEncoder.from_state(spec["params"], spec["grams"], array("encoder.idf"))
        except (KeyError, TypeError, ValueError) as exc:
            raise FormatError(f"{name}: the CharNgramEncoder state is malformed ({exc})") from None
    if kind == "embeddings" and encoder is None:
        from pathfinding.hipporag.index.embeddings import EmbeddingEncoder

        try:
            return EmbeddingEncoder.from_spec(spec)
        except (KeyError, TypeError, ValueError) as exc:
            raise FormatError(f"{name}: the embeddings endpoint record is malformed ({exc})") from None
    if kind not in ("custom", "embeddings"):
        raise FormatError(f"{name}: unknown encoder kind {kind!r}")
    if encoder is None:
        raise InvalidValueError(
            f"{name} was built with a custom encoder ({spec.get('class')}), which is code and is not "
            f"saved: pass the same fitted encoder again, load_index(path, encoder=...)"
        )
    m = min(len(phrases), 64)
    got = check_unit_rows("encoder", encoder(phrases[:m]), m)
    want = E[:m]
    got = got.toarray() if sp.issparse(got) else got
    want = want.toarray() if sp.issparse(want) else np.asarray(want)
    if got.shape != want.shape or not np.allclose(got, want, rtol=0, atol=1e-9):
        raise InvalidValueError(
            f"the encoder given does not reproduce the embeddings stored in {name} (checked on the "
            f"first {m} phrases): pass the encoder the index was built with ({spec.get('class')})"
        )
    return encoder
