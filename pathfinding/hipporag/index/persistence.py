"""Save a :class:`~pathfinding.hipporag.index.model.HippoIndex` to one file and load it back, without pickle.

The file is a :mod:`~pathfinding.hipporag.storage.container` (magic ``b"PFHIPIDX"``, ``FORMAT_VERSION`` 3):
a JSON header (settings, phrases, the passages' ids and sources, the corpus folder's file stamps,
encoder state, the array table) and raw little-endian arrays (float64, float32, int32, int64; uint8
for UTF-8 text), sealed by a SHA-256. The arrays hold the matrices and the text:

* the passages, as UTF-8 bytes and each one's end offset (:func:`encode_texts`);
* the triples, as int32 rows (subject, relation, object) of ids into the phrases and into a list of
  relations, and each passage's end among them (:func:`encode_triples`);
* the casing model (:func:`~pathfinding.hipporag.language.casing.casing_model`, derived from the
  passages): its texts as UTF-8 bytes, its counts as int64, so a loaded index reads questions
  without counting its corpus again (a file written without one derives it on first use).

Version 2 kept the passages, triples and casing texts as JSON in the header: at a million passages
a 3.4 GB file for 0.5 GB of text, parsed whole at every load. Files of versions 1 and 2 still load; a
version-1 file (written before passages had ids) gets its positions as ids, and no sources.

After the container's checks (kind, version, length, checksum) come those of the header and of
every array; each failure is a :class:`~pathfinding.errors.FormatError` naming the file and the
problem.

The default :class:`~pathfinding.hipporag.index.encoder.CharNgramEncoder` is saved as data (its n-gram
list and IDF array) and rebuilt without refitting. Any other encoder is code, which this format does
not store: the file records its class name, and :func:`load_index` needs it again as
``load_index(path, encoder=...)`` (checked against the stored embeddings).
"""

from __future__ import annotations

import dataclasses
import itertools
import operator
import os

import numpy as np
import scipy.sparse as sp

from pathfinding.errors import FormatError, InvalidTypeError, InvalidValueError
from pathfinding.hipporag.index.build import assemble_index, check_unit_rows
from pathfinding.hipporag.index.encoder import CharNgramEncoder
from pathfinding.hipporag.index.model import HippoIndex, PositionalIds
from pathfinding.hipporag.io.records import FileStamp, Source
from pathfinding.hipporag.language.casing import CASING_KEY, CasingModel, Texts, casing_model
from pathfinding.hipporag.language.text import index_normalization
from pathfinding.hipporag.storage.container import ArrayBlock, Container, Layout, pack_chunks
from pathfinding.hipporag.storage.safety import (
    atomic_write,
    exclusive_lock,
    has_magic,
    refuse_foreign,
    remove_stale_temps,
)

__all__ = [
    "FORMAT_VERSION",
    "LAYOUT",
    "MAGIC",
    "decode_casing",
    "decode_encoder",
    "decode_labels",
    "decode_texts",
    "decode_triples",
    "encode_casing",
    "encode_labels",
    "encode_texts",
    "encode_triples",
    "encoder_spec",
    "id_triple_counts",
    "is_index_file",
    "load_index",
    "read_triples",
    "save_index",
    "triple_arrays",
]

MAGIC = b"PFHIPIDX"
FORMAT_VERSION = 3
LAYOUT = Layout(
    MAGIC,
    FORMAT_VERSION,
    "index",
    frozenset({"<f8", "<f4", "<i4", "<i8", "|u1"}),
    stale=" (rebuild the index with this version)",
    older=frozenset({1, 2}),
)
"""The index file's :class:`~pathfinding.hipporag.storage.container.Layout`."""
_SPARSE = ("relation_graph", "mentions", "pairs")


def _add_matrix(block: ArrayBlock, name: str, M) -> dict:
    """A matrix as its arrays (CSR: data, indices, indptr; else dense) and its description."""
    if sp.issparse(M):
        M = sp.csr_array(M)
        M.sort_indices()
        block.add(name + ".data", M.data.astype(np.float64, copy=False))
        block.add(name + ".indices", M.indices)
        block.add(name + ".indptr", M.indptr)
        return {"kind": "csr", "shape": list(M.shape)}
    block.add(name + ".dense", np.asarray(M, dtype=np.float64))
    return {"kind": "dense", "shape": list(np.shape(M))}


def save_index(index: HippoIndex, path, *, overwrite: bool = False) -> None:
    """Write ``index`` to ``path`` (one file; see the module docstring for the format).

    The file is written beside ``path`` and renamed over it, so an interrupted save never leaves a
    half-written index under the final name, under an exclusive lock on ``path``
    (:func:`~pathfinding.hipporag.storage.safety.exclusive_lock`), so two processes saving one file
    take turns. Temporary files that a killed save left beside ``path`` are removed.

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
        If ``path`` holds a file that is not an index (a corpus, say) and ``overwrite`` is False, or
        a triple names something that is no phrase of the index (an index put together by hand).
    FileBusyError
        If another process keeps ``path`` locked for longer than
        :data:`~pathfinding.hipporag.storage.safety.DEFAULT_WAIT` seconds.

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
    block = ArrayBlock(LAYOUT.dtypes)
    matrices = {name: _add_matrix(block, name, getattr(index, name)) for name in _SPARSE}
    matrices["node_embeddings"] = _add_matrix(block, "node_embeddings", index.node_embeddings)
    block.add("dropped", np.asarray(index.dropped, dtype=np.int64))
    casing = encode_casing(casing_model(index), block.add)
    encoder = encoder_spec(index.encoder, block.add)
    header = {
        "settings": index.settings,
        "phrases": index.phrases,
        "passages": encode_texts(index.passages, "passages", block.add),
        "triples": encode_triples(index.triples, index.phrases, block.add),
        "matrices": matrices,
        "encoder": encoder,
        "casing": casing,
        **encode_labels(index),
    }
    chunks = pack_chunks(LAYOUT, header, block)  # never joined: the file is written piece by piece
    with exclusive_lock(path):
        atomic_write(path, chunks)


def encode_labels(index: HippoIndex) -> dict:
    """The header fields of the passages' ids, sources and the folder's file stamps: ``passage_ids``
    (null for :class:`~pathfinding.hipporag.index.model.PositionalIds`), ``sources`` (null when no
    passage has one, else per passage null or ``[file, [headings], start, end]``) and ``files``
    (``{path: [sha256, max_chars]}``)."""
    ids = index.passage_ids
    sources = None
    if index.sources is not None:
        sources = [None if x is None else [x.file, list(x.headings), x.start, x.end] for x in index.sources]
    return {
        "passage_ids": None if isinstance(ids, PositionalIds) else list(ids),
        "sources": sources,
        "files": {f: [stamp.sha256, stamp.max_chars] for f, stamp in sorted(index.files.items())},
    }


def encode_texts(texts, name: str, add_array) -> dict:
    """How a file records a list of strings: its UTF-8 bytes and end offsets, passed to
    ``add_array(name, array)`` as ``NAME.texts`` and ``NAME.ends`` (no JSON string per text)."""
    blob, ends = Texts.of(texts).get_state()
    return {"texts": add_array(f"{name}.texts", blob), "ends": add_array(f"{name}.ends", ends)}


def decode_texts(spec, array, name: str, field: str) -> list[str]:
    """The strings an :func:`encode_texts` record describes, or the JSON list an older file holds."""
    if isinstance(spec, list):  # version 1 or 2
        if not all(isinstance(x, str) for x in spec):
            raise FormatError(f"{name}: header field {field!r} must list strings")
        return spec
    try:
        return list(Texts.from_state(array(spec["texts"]), array(spec["ends"])))
    except FormatError:  # an array the file lacks, already named
        raise
    except (KeyError, TypeError, ValueError) as exc:
        raise FormatError(f"{name}: header field {field!r} is malformed ({exc})") from None


_TRIPLE_SLICE = 65_536
"""Passages whose triples :func:`encode_triples` turns into ids at a time."""


def encode_triples(triples, phrases, add_array) -> dict:
    """How a file records the per-passage triples: each as (subject, relation, object) ids, int32 rows
    of ``triples.ids`` (subject and object index the phrases, the relation ``triples.relations``), and
    each passage's end among them (``triples.ends``)."""
    # Columns and lookups by map, at C speed (twice as fast as a generator over every triple), a slice
    # of passages at a time (no list of every triple's subject beside the ids).
    node = dict(zip(phrases, range(len(phrases)), strict=True))  # subjects and objects are phrases
    relation: dict[str, int] = {}  # in order of first use
    counts = np.fromiter(map(len, triples), dtype=np.int64, count=len(triples))
    ends = np.cumsum(counts)
    ids = np.empty((int(ends[-1]) if len(ends) else 0, 3), dtype=np.int32)
    for lo in range(0, len(triples), _TRIPLE_SLICE):
        flat = list(itertools.chain.from_iterable(triples[lo : lo + _TRIPLE_SLICE]))
        if not set(map(len, flat)) <= {3}:
            bad = next(t for t in flat if len(t) != 3)
            raise InvalidValueError(f"a triple must be (subject, relation, object), got {bad!r}"[:200])
        subjects, verbs, objects = (list(map(operator.itemgetter(c), flat)) for c in range(3))
        for r in dict.fromkeys(verbs):
            relation.setdefault(r, len(relation))
        start = int(ends[lo] - counts[lo])
        rows = ids[start : start + len(flat)]
        try:
            for col, (names, of) in enumerate(((subjects, node), (verbs, relation), (objects, node))):
                rows[:, col] = np.fromiter(map(of.__getitem__, names), dtype=np.int32, count=len(names))
        except KeyError as exc:
            what = f"a triple names {exc.args[0]!r}, which is no phrase of the index"
            raise InvalidValueError(what) from None
    return {
        "ids": add_array("triples.ids", ids),
        "ends": add_array("triples.ends", ends),
        "relations": encode_texts(list(relation), "triples.relations", add_array),
    }


def triple_arrays(spec, array, name: str, n_phrases: int) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """The arrays an :func:`encode_triples` record describes, checked: the (subject, relation, object)
    id rows, each passage's end among them, and the relations' texts."""
    try:
        ids, ends = array(spec["ids"]), array(spec["ends"])
        relations = decode_texts(spec["relations"], array, name, "triples")
        if ids.ndim != 2 or ids.shape[1] != 3 or ends.ndim != 1 or ids.dtype.kind + ends.dtype.kind != "ii":
            raise InvalidValueError(f"ids {ids.dtype}{list(ids.shape)}, ends {ends.dtype}{list(ends.shape)}")
        if np.any(np.diff(ends, prepend=0) < 0) or (ends[-1] if ends.size else 0) != len(ids):
            raise InvalidValueError(f"the passages' ends do not rise to the {len(ids)} triples")
        bounds = (("subject", n_phrases), ("relation", len(relations)), ("object", n_phrases))
        for col, (what, n) in enumerate(bounds):
            if len(ids) and not (0 <= ids[:, col].min() and ids[:, col].max() < n):
                raise InvalidValueError(f"a {what} id outside [0, {n})")
    except FormatError:
        raise
    except (KeyError, TypeError, ValueError) as exc:
        raise FormatError(f"{name}: header field 'triples' is malformed ({exc})") from None
    return ids, ends, relations


def decode_triples(spec, array, name: str, phrases) -> list[tuple]:
    """The per-passage triples an :func:`encode_triples` record describes (each text one object: the
    phrases' own, one per relation), checked; an older file's JSON lists are read by
    :func:`_triples`."""
    ids, ends, relations = triple_arrays(spec, array, name, len(phrases))
    P = np.fromiter(phrases, dtype=object, count=len(phrases))
    R = np.fromiter(relations, dtype=object, count=len(relations))
    flat = list(zip(P[ids[:, 0]].tolist(), R[ids[:, 1]].tolist(), P[ids[:, 2]].tolist(), strict=True))
    starts = np.concatenate([[0], ends[:-1]]).tolist() if ends.size else []
    return [tuple(flat[a:b]) for a, b in zip(starts, ends.tolist(), strict=True)]


def id_triple_counts(ids: np.ndarray, n_phrases: int) -> tuple[int, int]:
    """:func:`~pathfinding.hipporag.index.build.triple_counts` of the triples ``ids`` (int rows of
    :func:`encode_triples`) stand for: (distinct rows, rows whose subject is their object).

    Examples
    --------
    >>> id_triple_counts(np.array([[0, 0, 1], [0, 0, 1], [2, 1, 2]]), 3)
    (2, 1)
    """
    if not len(ids):
        return 0, 0
    s, r, o = (ids[:, c].astype(np.int64) for c in range(3))
    n_rel = int(r.max()) + 1
    if n_phrases * n_rel * n_phrases < 2**63:  # one int64 key per row
        key = np.sort((s * n_rel + r) * n_phrases + o)  # a sort: np.unique hashes, 7x slower here
        distinct = 1 + int(np.count_nonzero(key[1:] != key[:-1]))
    else:
        order = np.lexsort((o, r, s))
        rows = ids[order]
        distinct = 1 + int(np.count_nonzero(np.any(rows[1:] != rows[:-1], axis=1)))
    return int(distinct), int(np.count_nonzero(s == o))


def decode_labels(header: dict, name: str, n_passages: int) -> dict:
    """:func:`encode_labels`'s fields read back as ``HippoIndex`` arguments (a version-1 file has
    none: positions as ids, no sources)."""
    try:
        ids = header.get("passage_ids")
        raw = header.get("sources")
        sources = None if raw is None else [None if x is None else _source(x) for x in raw]
        files = {f: FileStamp(str(sha), int(size)) for f, (sha, size) in (header.get("files") or {}).items()}
    except (TypeError, ValueError, AttributeError) as exc:
        raise FormatError(f"{name}: the passages' ids or sources are malformed ({exc})") from None
    if ids is not None and (not isinstance(ids, list) or len(ids) != n_passages):
        raise FormatError(f"{name}: header field 'passage_ids' must list one id per passage ({n_passages})")
    if sources is not None and len(sources) != n_passages:
        raise FormatError(f"{name}: header field 'sources' must have one entry per passage ({n_passages})")
    return {"passage_ids": ids, "sources": sources, "files": files}


def _source(x) -> Source:
    file, headings, start, end = x
    if not (file is None or isinstance(file, str)) or not all(isinstance(h, str) for h in headings):
        raise InvalidTypeError(f"a source must be [file, [headings], start, end], got {x!r}"[:200])
    return Source(file, tuple(headings), int(start), int(end))


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


def _matrix(file: Container, key: str, spec) -> object:
    """The matrix ``key`` that ``spec`` (from the header's ``matrices``) describes."""
    name = file.name
    if not isinstance(spec, dict) or spec.get("kind") not in ("csr", "dense"):
        raise FormatError(f"{name}: matrix {key!r} has no valid description")
    if spec["kind"] == "dense":
        return file.array(key + ".dense")
    parts = tuple(file.array(f"{key}.{part}") for part in ("data", "indices", "indptr"))
    try:
        M = sp.csr_array(parts, shape=tuple(spec.get("shape", ())))
        M.check_format(full_check=True)
    except (ValueError, TypeError) as exc:
        raise FormatError(f"{name}: matrix {key!r} is not a valid CSR matrix ({exc})") from None
    return M


def _field(header: dict, key: str, kind, name: str):
    value = header.get(key)
    if not isinstance(value, kind):
        kinds = " | ".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
        raise FormatError(f"{name}: header field {key!r} must be {kinds}, got {type(value).__name__}")
    return value


def _triples(header: dict, name: str, phrases, array) -> list[tuple]:
    if isinstance(header.get("triples"), dict):
        return decode_triples(header["triples"], array, name, phrases)
    raw = _field(header, "triples", (list, dict), name)  # version 1 or 2: JSON lists of strings
    # One string object per distinct text (the phrases' own where they are one): JSON makes a new
    # one per occurrence, and a relation such as "born in" occurs in a good share of the triples.
    pool = {p: p for p in phrases if isinstance(p, str)}
    share = pool.setdefault
    try:
        triples = [tuple((share(s, s), share(r, r), share(o, o)) for s, r, o in doc) for doc in raw]
        if not all(isinstance(x, str) for doc in triples for t in doc for x in t):
            raise InvalidTypeError("triple elements must be strings")
    except (TypeError, ValueError) as exc:
        raise FormatError(f"{name}: header field 'triples' is malformed ({exc})") from None
    return triples


def read_triples(path) -> list[tuple]:
    """The per-passage triples of an index file, read without rebuilding its encoder or graphs.

    Raises
    ------
    FormatError
        As :func:`load_index`, for a file that is not an index or whose triples are malformed.
    """
    name = os.fspath(path)
    file = Container.read(path, LAYOUT, name)
    return _triples(file.header, name, _field(file.header, "phrases", list, name), file.array)


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
    file = Container.read(path, LAYOUT, name)  # each array read into its own memory, no copy of the file
    header = file.header
    settings = _field(header, "settings", dict, name)
    phrases = _field(header, "phrases", list, name)
    if not set(map(type, phrases)) <= {str}:  # at C speed: a million passages have 4.7 million phrases
        raise FormatError(f"{name}: header field 'phrases' must list strings")
    passages = decode_texts(_field(header, "passages", (list, dict), name), file.array, name, "passages")
    matrices = _field(header, "matrices", dict, name)
    enc_spec = _field(header, "encoder", dict, name)
    triples = _triples(header, name, phrases, file.array)
    counts = None
    if isinstance(header["triples"], dict):  # counted on the ids read, not on 9 million tuples (5 s)
        counts = id_triple_counts(file.array(header["triples"]["ids"], copy=False), len(phrases))
    header["triples"] = header["passages"] = None  # parsed lists (an older file's) go now
    mats = {key: _matrix(file, key, matrices.get(key)) for key in (*_SPARSE, "node_embeddings")}
    n, n_pass = len(phrases), len(triples)
    expect = {"relation_graph": (n, n), "pairs": (n, n), "mentions": (n, n_pass)}
    for key, shape in expect.items():
        if mats[key].shape != shape:
            raise FormatError(f"{name}: matrix {key!r} has shape {mats[key].shape}, expected {shape}")
    dropped = file.array("dropped")
    if dropped.shape != (n_pass,) or (passages and len(passages) != n_pass):
        raise FormatError(f"{name}: per-passage fields disagree on the number of passages ({n_pass})")
    if not all(map(operator.lt, phrases, itertools.islice(phrases, 1, None))):  # one pass, not a sort
        raise FormatError(f"{name}: phrases must be sorted and distinct")
    if not {"tau", "max_synonyms", "synonymy", "fit_encoder"} <= set(settings):
        raise FormatError(f"{name}: settings lack a key (got {sorted(settings)})")
    E = mats["node_embeddings"]
    if E.shape[0] != n:
        raise FormatError(f"{name}: node_embeddings has {E.shape[0]} rows, expected {n}")
    enc = decode_encoder(enc_spec, file.array, name, encoder, phrases, E)
    casing = decode_casing(header.get("casing"), file.array, name, settings)
    del file  # the file's other arrays (its texts' bytes) go before the graphs are assembled
    index = assemble_index(
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
        counts=counts,
    )
    labels = decode_labels(header, name, n_pass)
    try:
        index = dataclasses.replace(index, **labels)
    except (InvalidValueError, InvalidTypeError) as exc:  # repeated or empty ids
        raise FormatError(f"{name}: {exc}") from None
    if casing is not None:
        index.derived(CASING_KEY, lambda: casing)
    return index


def encode_casing(model: CasingModel, add_array) -> dict:
    """How a file records a casing model: its parameters, and its arrays passed to
    ``add_array(name, array)`` as ``casing.NAME`` (:func:`decode_casing` reads it back)."""
    params, arrays = model.get_state()
    return {"params": params, "arrays": {k: add_array(f"casing.{k}", a) for k, a in arrays.items()}}


def decode_casing(spec, array, name: str, settings: dict) -> CasingModel | None:
    """The casing model a header's ``"casing"`` record describes (``array(name)`` reads the saved
    texts and counts; a version-2 file has its texts in the record), or None for a file written
    without one."""
    if spec is None:
        return None
    try:
        arrays = {k: array(v) for k, v in spec["arrays"].items()}
        if "keys" in spec:  # a version-2 file: its keys and forms are lists in the header
            if not (isinstance(spec["keys"], list) and isinstance(spec["forms"], list)):
                raise InvalidTypeError("its keys and forms must be lists of strings")
            model = CasingModel(
                spec["keys"], spec["forms"], arrays["capitalised"], arrays["initial"], arrays["lower"],
                normalization=spec["params"]["normalization"],
            )  # fmt: skip
        else:
            model = CasingModel.from_state(spec["params"], arrays)
    except FormatError:
        raise
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        raise FormatError(f"{name}: the casing model is malformed ({exc})") from None
    if model.normalization != index_normalization(settings):
        raise FormatError(
            f"{name}: the casing model was normalised by the rule {model.normalization!r}, the index by "
            f"{index_normalization(settings)!r}"
        )
    return model


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
