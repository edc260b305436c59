"""The package's one binary file layout: a prefix, a JSON header, raw arrays, a SHA-256.

The index file (:mod:`~pathfinding.hipporag.index.persistence`) and the query cache
(:mod:`~pathfinding.hipporag.retrieval.querycache`) are both, in order::

    8 bytes   magic (which kind of file)
    4 bytes   format version, uint32 little-endian
    8 bytes   length H of the header, uint64 little-endian
    8 bytes   length L of the array block, uint64 little-endian
    H bytes   header: UTF-8 JSON; its "arrays" entry maps each array's name to dtype, shape, offset
    L bytes   array block: raw little-endian arrays, each at an 8-byte aligned offset
    32 bytes  SHA-256 of everything before it

Reading takes JSON and raw numbers only, from a whitelist of dtypes, never pickle, so a file cannot
run code. The checks run in the order that gives the most useful message (magic, length of the
prefix, version, total length, checksum, header), each a :class:`~pathfinding.errors.FormatError`
that names the file.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import struct
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from pathfinding.errors import FormatError, InvalidTypeError

__all__ = ["DIGEST", "PREFIX", "ArrayBlock", "Container", "Layout", "pack", "pack_chunks"]

PREFIX = struct.Struct("<8sIQQ")
"""Magic, version, header length, array-block length."""
DIGEST = 32
"""Bytes of the SHA-256 that ends every file."""
_CHUNK = 1 << 24
"""Bytes :meth:`Container.read` reads and hashes at a time."""


@dataclass(frozen=True)
class Layout:
    """One kind of file: its magic, the version this code reads and writes, its allowed dtypes.

    Attributes
    ----------
    magic : bytes
        Eight bytes that open every file of this kind.
    version : int
        The format version written (and read).
    noun : str
        The kind of file in messages (``"index"``: "not a pathfinding HippoRAG index").
    dtypes : frozenset of str
        Little-endian dtype strings an array may have (``"<f8"``, ``"<i4"`` ...).
    stale : str, default ""
        Appended to the message for another version (what the user should do).
    older : frozenset of int, default empty
        Earlier versions still read (:attr:`Container.version` tells the reader which it got).
    """

    magic: bytes
    version: int
    noun: str
    dtypes: frozenset
    stale: str = ""
    older: frozenset = frozenset()


class ArrayBlock:
    """Arrays collected for one file: the block's chunks and the table that goes into the header.

    Parameters
    ----------
    dtypes : frozenset of str
        The dtypes an array may have (:attr:`Layout.dtypes`).
    spill : binary file object, optional
        Where each array's bytes go as it is added (a temporary file, read back by :meth:`pieces`),
        so that the caller can free the array at once; by default the block keeps views of the
        arrays' own memory, which must then stay alive until the file is written.

    Examples
    --------
    >>> block = ArrayBlock(frozenset({"<i8"}))
    >>> block.add("ids", np.arange(3))
    'ids'
    >>> block.table, block.size
    ({'ids': {'dtype': '<i8', 'shape': [3], 'offset': 0}}, 24)
    """

    def __init__(self, dtypes: frozenset, spill=None):
        self.dtypes, self.spill = dtypes, spill
        self.chunks: list = []  # bytes-like: views of the arrays and their padding (none when spilled)
        self.table: dict[str, dict] = {}
        self.size = 0

    def add(self, name: str, a) -> str:
        """Append ``a`` (little-endian, padded to 8 bytes) under ``name``; return ``name``."""
        a = np.ascontiguousarray(a)
        a = a.astype(a.dtype.newbyteorder("<"), copy=False)
        if a.dtype.str not in self.dtypes:
            raise InvalidTypeError(
                f"cannot store array {name!r} of dtype {a.dtype}: expected one of {sorted(self.dtypes)}"
            )
        # The array's own memory, not a copy of it (a million passages' matrices are gigabytes).
        raw = memoryview(a.reshape(-1).view(np.uint8))
        self.table[name] = {"dtype": a.dtype.str, "shape": list(a.shape), "offset": self.size}
        pad = b"\0" * ((-len(raw)) % 8)
        if self.spill is not None:
            self.spill.write(raw)
            self.spill.write(pad)
        else:
            self.chunks += [raw, pad] if pad else [raw]
        self.size += len(raw) + len(pad)
        return name

    def pieces(self) -> Iterator:
        """The block's bytes in order: the chunks kept, or the spill file read back ``_CHUNK`` at a time."""
        if self.spill is None:
            yield from self.chunks
            return
        self.spill.flush()
        self.spill.seek(0)
        left = self.size
        while left:
            piece = self.spill.read(min(_CHUNK, left))
            if not piece:
                raise OSError(f"the temporary array block ended {left} bytes early")
            left -= len(piece)
            yield piece


def pack(layout: Layout, header: dict, block: ArrayBlock) -> bytes:
    """The whole file: prefix, ``header`` with the block's table as its last entry ``"arrays"``,
    the array block and the SHA-256.

    Examples
    --------
    >>> layout = Layout(b"EXAMPLE!", 1, "example", frozenset({"<i8"}))
    >>> block = ArrayBlock(layout.dtypes)
    >>> _ = block.add("ids", np.arange(3))
    >>> raw = pack(layout, {"name": "toy"}, block)
    >>> c = Container(raw, layout, "toy.bin")
    >>> c.header["name"], c.array("ids")
    ('toy', array([0, 1, 2]))
    """
    return b"".join(pack_chunks(layout, header, block))


_SLICE = 100_000
"""Items of a long list in the header encoded at a time (C speed, no second copy of the whole)."""


def _json_chunks(value) -> list[bytes]:
    """``value`` as compact UTF-8 JSON, in pieces: a long top-level list of the header (a million
    phrases, or an older index file's passages and triples) slice by slice, so no string of the
    whole header is ever held."""
    dumps = lambda v: json.dumps(v, ensure_ascii=False, separators=(",", ":")).encode("utf-8")  # noqa: E731
    if isinstance(value, dict):
        out, sep = [], b"{"
        for key, v in value.items():
            out += [sep + dumps(key) + b":", *_json_chunks(v)]
            sep = b","
        return [*out, b"}"] if out else [b"{}"]
    if isinstance(value, list | tuple) and len(value) > _SLICE:
        parts = [dumps(list(value[i : i + _SLICE]))[1:-1] for i in range(0, len(value), _SLICE)]
        return [b"[", *[p if i == 0 else b"," + p for i, p in enumerate(parts)], b"]"]
    return [dumps(value)]


def pack_chunks(layout: Layout, header: dict, block: ArrayBlock) -> Iterator[bytes]:
    """:func:`pack`'s bytes as the pieces they are made of, the file never joined into one object:
    the prefix, the header's JSON in pieces, the arrays (:meth:`ArrayBlock.pieces`), and last the
    SHA-256 of all of them, computed as they pass.

    Examples
    --------
    >>> layout = Layout(b"EXAMPLE!", 1, "example", frozenset({"<i8"}))
    >>> block = ArrayBlock(layout.dtypes)
    >>> b"".join(pack_chunks(layout, {"name": "toy"}, block)) == pack(layout, {"name": "toy"}, block)
    True
    """
    head = _json_chunks({**header, "arrays": block.table})
    n_head = sum(map(len, head))
    digest = hashlib.sha256()
    prefix = PREFIX.pack(layout.magic, layout.version, n_head, block.size)
    for c in itertools.chain([prefix], head, block.pieces()):
        digest.update(c)
        yield c
    yield digest.digest()


class Container:
    """A file of ``layout`` read from ``buffer`` (bytes, or a memory map), checked whole.

    Parameters
    ----------
    buffer : bytes-like
        The file's content; arrays are read from it without a copy unless asked.
    layout : Layout
    name : str
        The file's name, which starts every message.

    Raises
    ------
    FormatError
        If the file is of another kind, another version, truncated or extended, corrupted (checksum),
        or its header is not a JSON object with an ``"arrays"`` table.
    """

    def __init__(self, buffer, layout: Layout, name: str):
        self.layout, self.name = layout, name
        view = memoryview(buffer)
        self.version, n_head, n_arrays = _prefix(bytes(view[: PREFIX.size]), len(view), layout, name)
        end = PREFIX.size + n_head + n_arrays
        if hashlib.sha256(view[:end]).digest() != bytes(view[end:]):
            raise _corrupted(name)
        self.header = _header(view[PREFIX.size : PREFIX.size + n_head], name)
        self.block = view[PREFIX.size + n_head : end]
        self._block_size = n_arrays
        self._read: dict[str, np.ndarray] | None = None  # arrays read from a file by `read`
        self._given: set[str] = set()

    @classmethod
    def read(cls, path, layout: Layout, name: str, *, chunk: int = _CHUNK) -> Container:
        """The file at ``path`` read once, front to back, each array straight into its own memory.

        The same checks, in the same order and with the same messages, as ``Container(raw, ...)`` of
        the file's bytes, without holding them: each array is read into an array of its own and
        hashed as it arrives (at a million passages the bytes were 3.2 GB beside the 3.2 GB of
        arrays copied out of them). A table whose arrays overlap or leave the block (no file this
        package writes) is read as one buffer, as before, so :meth:`array` names the problem.

        Parameters
        ----------
        path : str or path-like
        layout : Layout
        name : str
            The file's name in messages.
        chunk : int, default 16 MiB
            Bytes read and hashed at a time.

        Examples
        --------
        >>> import os, tempfile
        >>> layout = Layout(b"EXAMPLE!", 1, "example", frozenset({"<i8"}))
        >>> block = ArrayBlock(layout.dtypes)
        >>> _ = block.add("ids", np.arange(3))
        >>> path = os.path.join(tempfile.mkdtemp(), "toy.bin")
        >>> _ = open(path, "wb").write(pack(layout, {"name": "toy"}, block))
        >>> c = Container.read(path, layout, "toy.bin")
        >>> c.header["name"], c.array("ids")
        ('toy', array([0, 1, 2]))
        """
        self = cls.__new__(cls)
        self.layout, self.name, self._given = layout, name, set()
        with open(path, "rb") as fh:
            n = os.fstat(fh.fileno()).st_size
            first = fh.read(PREFIX.size)
            self.version, n_head, n_arrays = _prefix(first, n, layout, name)
            digest = hashlib.sha256(first)
            head = bytearray(n_head)
            _fill(fh, name, memoryview(head), digest, chunk)
            try:
                header, problem = _header(memoryview(head), name), None
            except FormatError as exc:  # told only once the checksum has passed, as from the bytes
                header, problem = None, exc
            del head
            plan = _plan(header, layout, n_arrays)
            self._read, pos = {}, 0
            for key, offset, dtype, shape in plan or ():
                _skip(fh, name, offset - pos, digest, chunk)  # padding
                a = np.empty(shape, dtype=dtype)
                _fill(fh, name, memoryview(a.reshape(-1).view(np.uint8)), digest, chunk)
                self._read[key], pos = a, offset + a.nbytes
            if plan is None:
                self._read, block = None, bytearray(n_arrays)
                _fill(fh, name, memoryview(block), digest, chunk)
            else:
                block = b""
                _skip(fh, name, n_arrays - pos, digest, chunk)
            stored = fh.read(DIGEST)
        if digest.digest() != stored:
            raise _corrupted(name)
        if problem is not None:
            raise problem
        self.header, self.block, self._block_size = header, memoryview(block), n_arrays
        return self

    def array(self, key: str, *, copy: bool = True) -> np.ndarray:
        """The array stored as ``key``: a private, writable, native-order copy, or with
        ``copy=False`` a view of the buffer (read-only unless the buffer is writable). From
        :meth:`read`, the array read is itself the copy the first time it is asked for."""
        entry = _entry(self.header["arrays"].get(key), self.layout, self._block_size)
        if isinstance(entry, str):
            raise FormatError(f"{self.name}: array {key!r} {entry}")
        dtype, shape, offset, size = entry
        if self._read is not None:  # read from a file into its own memory: handed out once, then copies
            a, again = self._read[key], key in self._given
            self._given.add(key)
            return a.astype(dtype.newbyteorder("="), copy=copy and again)
        a = np.frombuffer(self.block, dtype=dtype, count=size // dtype.itemsize, offset=offset).reshape(shape)
        return a.astype(dtype.newbyteorder("="), copy=True) if copy else a


def _prefix(first: bytes, n: int, layout: Layout, name: str) -> tuple[int, int, int]:
    """Version, header length and block length from a file's first bytes (``n``: its length), after
    the checks of its kind, its prefix, its version and its length."""
    magic = first[: len(layout.magic)]
    if magic != layout.magic[:n]:
        raise FormatError(
            f"{name}: not a pathfinding HippoRAG {layout.noun} (starts with {magic[:8]!r}, "
            f"expected {layout.magic!r})"
        )
    if n < PREFIX.size:
        raise FormatError(f"{name}: truncated: {n} bytes, shorter than the {PREFIX.size}-byte prefix")
    _, version, n_head, n_arrays = PREFIX.unpack_from(first)
    if version != layout.version and version not in layout.older:
        raise FormatError(
            f"{name}: {layout.noun} format version {version}; this pathfinding reads version "
            f"{layout.version}{layout.stale}"
        )
    expected = PREFIX.size + n_head + n_arrays + DIGEST
    if n != expected:
        what = "truncated" if n < expected else "has trailing bytes"
        raise FormatError(f"{name}: {what}: {n} bytes, the prefix says {expected}")
    return version, n_head, n_arrays


def _corrupted(name: str) -> FormatError:
    return FormatError(f"{name}: checksum mismatch: the file is corrupted (SHA-256 of its content differs)")


def _header(raw: memoryview, name: str) -> dict:
    """The header's JSON object, with its ``"arrays"`` table checked to be one."""
    try:
        # decoded from the buffer itself: no bytes copy of a long header (a million phrases)
        header = json.loads(str(raw, "utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise FormatError(f"{name}: header is not UTF-8 JSON ({exc})") from None
    if not isinstance(header, dict):
        raise FormatError(f"{name}: header must be a JSON object, got {type(header).__name__}")
    if not isinstance(header.get("arrays"), dict):
        got = type(header.get("arrays")).__name__
        raise FormatError(f"{name}: header field 'arrays' must be dict, got {got}")
    return header


def _entry(spec, layout: Layout, n_block: int) -> tuple | str:
    """An array's table entry as (dtype, shape, offset, bytes), or what is wrong with it."""
    if not isinstance(spec, dict) or spec.get("dtype") not in layout.dtypes:
        return "is missing or has an unsupported dtype"
    dtype = np.dtype(spec["dtype"])
    shape, offset = spec.get("shape"), spec.get("offset")
    if not (isinstance(shape, list) and all(isinstance(d, int) and d >= 0 for d in shape)):
        return f"has a bad shape {shape!r}"
    size = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if not isinstance(offset, int) or offset < 0 or offset + size > n_block:
        return "lies outside the array block"
    return dtype, tuple(shape), offset, size


def _plan(header: dict | None, layout: Layout, n_block: int) -> list | None:
    """The header's arrays as (name, offset, dtype, shape) in file order, or None unless every entry
    is well formed (:func:`_entry`) and they lie in the block one after another (what
    :meth:`Container.array` would otherwise report)."""
    if header is None:
        return None
    plan = []
    for key, spec in header["arrays"].items():
        entry = _entry(spec, layout, n_block)
        if isinstance(entry, str):
            return None
        dtype, shape, offset, size = entry
        plan.append((key, offset, dtype, shape, size))
    plan.sort(key=lambda entry: (entry[1], entry[4]))  # an empty array shares the next one's offset
    end = 0
    for _, offset, _, _, size in plan:
        if offset < end:
            return None
        end = offset + size
    return [entry[:4] for entry in plan]


def _skip(fh, name: str, n: int, digest, chunk: int) -> None:
    """Read and hash ``n`` bytes that belong to no array (padding)."""
    _fill(fh, name, memoryview(bytearray(min(n, chunk))), digest, chunk, n)


def _fill(fh, name: str, out: memoryview, digest, chunk: int, n: int | None = None) -> None:
    """Read ``n`` bytes (default: ``len(out)``) from ``fh`` into ``out`` (reused when shorter), hashing
    them as they come; the length was checked, so a short read means the file changed under us."""
    n = len(out) if n is None else n
    done = 0
    while done < n:
        piece = out[done : done + chunk] if len(out) >= n else out[: min(chunk, n - done)]
        got = fh.readinto(piece)
        if not got:
            raise FormatError(f"{name}: truncated while being read (did another process change it?)")
        digest.update(piece[:got])
        done += got
