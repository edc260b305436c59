"""The data files from elsewhere that the package reads: where each lives upstream, what it must hash to.

Nothing here ships with the package. Each file of the HippoRAG release that an experiment, the course
or a test reads is listed in :data:`REGISTRY` with its upstream URL pinned to one commit, its size,
its SHA-256 and its licence. :func:`fetch` returns a verified local path, looking in order in

1. the folder named by ``$PATHFINDING_DATA`` (a local copy of the files, e.g. on a machine without
   a network),
2. the cache, :func:`get_data_home` (``$PATHFINDING_DATA_HOME``, else the platform's cache folder,
   ``~/.cache/pathfinding`` on Linux),
3. upstream (or a mirror or a folder given as ``source``, or as ``$PATHFINDING_DATA_URL``): downloaded
   into the cache, checked against the registry's size and SHA-256, and only then moved under its
   final name.

A file whose bytes do not hash to the registry's value is never returned. When no place has the file,
the error is one line naming the file, every place looked in and the command that fetches it
(``pathfinding data fetch NAME``). This is the scheme of scikit-learn's ``fetch_*`` and
``get_data_home`` and of pooch, with the standard library only.
"""

from __future__ import annotations

import hashlib
import os
import sys
import urllib.error
import urllib.request
from dataclasses import dataclass
from http.client import HTTPException
from pathlib import Path

from pathfinding.errors import DataDownloadError, DataNotFoundError, InvalidTypeError, InvalidValueError
from pathfinding.hipporag.storage.safety import remove_stale_temps, temp_path

__all__ = [
    "DataFile",
    "REGISTRY",
    "UPSTREAM",
    "UPSTREAM_COMMIT",
    "entry",
    "fetch",
    "get_data_home",
    "local_status",
    "locate",
]

UPSTREAM_COMMIT = "b144c46df14cabe5f5822d8caded4bec5f709461"
"""HippoRAG's tag ``v1.0.0`` (branch ``legacy``); every file below is unchanged there since it was added."""
UPSTREAM = f"https://raw.githubusercontent.com/OSU-NLP-Group/HippoRAG/{UPSTREAM_COMMIT}"
"""Base of the raw-file URLs, pinned to :data:`UPSTREAM_COMMIT`."""

_MIT = "via HippoRAG v1.0.0 (MIT, (c) 2024 OSU NLP Group)"
_GPT = "the authors' gpt-3.5-turbo-1106 output"


@dataclass(frozen=True)
class DataFile:
    """One file of the registry.

    Attributes
    ----------
    name : str
        The short name commands and code use (``"musique_corpus"``).
    path : str
        Its path in the upstream repository at :data:`UPSTREAM_COMMIT`.
    size : int
        Bytes (uncompressed, as upstream).
    sha256 : str
        Hex digest of those bytes.
    licence : str
        Where the content comes from and under which licence.
    """

    name: str
    path: str
    size: int
    sha256: str
    licence: str

    @property
    def filename(self) -> str:
        """The upstream file name, also its name in every local folder."""
        return self.path.rsplit("/", 1)[-1]

    @property
    def url(self) -> str:
        """The upstream raw-file URL, pinned to one commit."""
        return f"{UPSTREAM}/{self.path}"


_OPENIE = "openie_musique_train_results_ner_gpt-3.5-turbo-1106_1890.json"
REGISTRY: dict[str, DataFile] = {
    f.name: f
    for f in [
        DataFile("musique_questions", "data/musique_train.json", 1179088,
                 "bca674746844637f5c68408a96b67bc0542d98e7c53715f3acafe144bd5e4ff4",
                 f"MuSiQue train questions, CC BY 4.0; {_MIT}"),
        DataFile("musique_corpus", "data/musique_train_corpus.json", 974514,
                 "79845dd085f9df49c8ce440208763e2611aeb86c81ee0bdad2094504381bb651",
                 f"MuSiQue passages, CC BY 4.0; {_MIT}"),
        DataFile("musique_openie", f"output/{_OPENIE}", 3344000,
                 "4258bcc89bb20bb5c20e6700b87e21063521a6c3ef5a136ab0d0d7c0ea237585",
                 f"MuSiQue passages (CC BY 4.0), {_GPT}; {_MIT}"),
        DataFile("hotpotqa_questions", "data/hotpotqa_train.json", 810836,
                 "6c0e2689d03c94b3bb4d5f94ed806ea4f4eb4f46c12132f8e91df774ad5c5a22",
                 f"HotpotQA train questions, CC BY-SA 4.0; {_MIT}"),
        DataFile("hotpotqa_corpus", "data/hotpotqa_train_corpus.json", 640159,
                 "2671af600095eabc5b3f3bc3728861682f14fcced84ef1386509a8ae92647f88",
                 f"HotpotQA paragraphs, CC BY-SA 4.0; {_MIT}"),
        DataFile("hotpotqa_query_ner", "output/hotpotqa_queries.named_entity_output.tsv", 1969277,
                 "7c072f3ef72be51a3e99652ea7e63d7bccdbfcf617affab4511a08f4b0ba9902",
                 f"HotpotQA dev questions (CC BY-SA 4.0), {_GPT}; {_MIT}"),
        DataFile("2wiki_corpus", "data/2wikimultihopqa_corpus.json", 3083943,
                 "9d6e352952aafb18dab22bf8195039461321a44a949df902ae83bce134ad238a",
                 f"2WikiMultihopQA passages, Apache-2.0; {_MIT}"),
        DataFile("sample_questions", "data/sample.json", 747,
                 "30055b62188c556b442da998c6bd23c73280f92387130c38910b2564b263f171",
                 f"HippoRAG's one-question example; {_MIT}"),
        DataFile("sample_corpus", "data/sample_corpus.json", 1658,
                 "89568a4713d53fb3d871fbbc94c3797dc4d7ab5754d6bf42fb99b06365c81f46",
                 f"Wikipedia-derived passages, CC BY-SA; {_MIT}"),
        DataFile("university_questions", "data/case_study_university.json", 58015,
                 "b08408a71808f723d3587e27da4414644ddcf625482ddb12ae32217a901d19df",
                 f"the paper's case-study question; {_MIT}"),
        DataFile("university_corpus", "data/case_study_university_corpus.json", 56123,
                 "8c2bde9d4320e284569312a82b4c262cf92f7b59f50a216e07e131e6428b6110",
                 f"Wikipedia-derived passages, CC BY-SA; {_MIT}"),
    ]
}
"""Short name -> :class:`DataFile`: every file from elsewhere the package reads."""

_CHUNK = 1 << 16
_CORRUPT = "corrupt"
# Path -> (size, mtime_ns) of files already hashed in this process, so a loader that asks again does
# not hash megabytes again; a file changed on disk since has another mtime and is hashed anew.
_verified: dict[str, tuple[int, int]] = {}


def get_data_home(data_home: str | os.PathLike | None = None) -> Path:
    """The cache folder where fetched data files are kept (not created here).

    Parameters
    ----------
    data_home : str or path-like, optional
        Returned as given when set. Otherwise ``$PATHFINDING_DATA_HOME`` when set, else the
        platform's cache folder: ``$XDG_CACHE_HOME/pathfinding`` (default ``~/.cache/pathfinding``)
        on Linux, ``~/Library/Caches/pathfinding`` on macOS, ``%LOCALAPPDATA%\\pathfinding\\Cache``
        on Windows.

    Returns
    -------
    pathlib.Path

    Examples
    --------
    >>> get_data_home("/srv/data").as_posix()
    '/srv/data'
    """
    if data_home is None:
        data_home = os.environ.get("PATHFINDING_DATA_HOME") or None
    if data_home is not None:
        return Path(data_home).expanduser()
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "pathfinding"
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(base) / "pathfinding" / "Cache"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "pathfinding"


def entry(name: str) -> DataFile:
    """The registry entry for a short name or a file name.

    Raises
    ------
    InvalidValueError
        If no registry file has that name.

    Examples
    --------
    >>> entry("musique_train_corpus.json").name, entry("musique_corpus").size
    ('musique_corpus', 974514)
    """
    if not isinstance(name, str):
        raise InvalidTypeError(f"name must be a str (a key of REGISTRY), got {type(name).__name__}")
    if name in REGISTRY:
        return REGISTRY[name]
    for f in REGISTRY.values():
        if f.filename == name:
            return f
    raise InvalidValueError(f"no data file {name!r}; expected one of {sorted(REGISTRY)} or their file names")


def _check(path: Path, f: DataFile) -> str | None:
    """None when ``path`` holds ``f``'s bytes, else why not (``"missing"``, ``"corrupt: ..."``)."""
    try:
        st = path.stat()
    except OSError:
        return "missing"
    if not path.is_file():
        return "not a file"
    if st.st_size != f.size:
        return f"{_CORRUPT}: size differs ({st.st_size:,} bytes, expected {f.size:,})"
    if _verified.get(str(path)) == (st.st_size, st.st_mtime_ns):
        return None
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            while chunk := fh.read(_CHUNK):
                digest.update(chunk)
    except OSError as exc:
        return f"unreadable ({exc.strerror or type(exc).__name__})"
    if digest.hexdigest() != f.sha256:
        return f"{_CORRUPT}: checksum differs (its SHA-256 is not the registry's)"
    _verified[str(path)] = (st.st_size, st.st_mtime_ns)
    return None


def _local_places(f: DataFile, data_home) -> list[tuple[str, Path | None]]:
    env = os.environ.get("PATHFINDING_DATA") or None
    return [
        ("$PATHFINDING_DATA", Path(env).expanduser() / f.filename if env else None),
        ("the cache", get_data_home(data_home) / f.filename),
    ]


def locate(name: str, *, data_home: str | os.PathLike | None = None) -> Path | None:
    """The verified local path of a registry file, or None when no local place holds it (no download).

    Parameters
    ----------
    name : str
        A key of :data:`REGISTRY` or its file name.
    data_home : str or path-like, optional
        The cache folder (default :func:`get_data_home`).

    Returns
    -------
    pathlib.Path or None

    Examples
    --------
    >>> locate("sample_corpus") == fetch("sample_corpus")  # once fetched, it is local
    True
    """
    f = entry(name)
    for _, path in _local_places(f, data_home):
        if path is not None and _check(path, f) is None:
            return path
    return None


def local_status(name: str, *, data_home: str | os.PathLike | None = None) -> tuple[Path | None, str]:
    """The verified local path of a registry file and ``"ok"``, or None and why no local file serves.

    A file that is there but whose bytes are not the registry's is ``"corrupt: ..."``, with where it
    is and how to replace it; no file at all is ``"missing"``.

    Examples
    --------
    >>> path = fetch("sample_corpus")
    >>> local_status("sample_corpus") == (path, "ok")
    True
    """
    f = entry(name)
    problems = []
    for label, path in _local_places(f, data_home):
        if path is None:
            continue
        why = _check(path, f)
        if why is None:
            return path, "ok"
        if why != "missing":
            problems.append(f"{why}, at {path}" + (" ($PATHFINDING_DATA)" if label != "the cache" else ""))
    if not problems:
        return None, "missing"
    return None, "; ".join(problems) + (
        f"; `pathfinding data fetch {f.name}` downloads a verified copy into the cache (replacing a "
        f"corrupt one there)"
    )


def fetch(
    name: str,
    *,
    data_home: str | os.PathLike | None = None,
    source: str | os.PathLike | None = None,
    timeout: float = 30.0,
    progress: bool | None = None,
) -> Path:
    """A verified local path of a registry file: a local copy, the cache, or a fresh download.

    Looks in ``$PATHFINDING_DATA``, then in the cache; else copies the file from ``source`` (default
    upstream) into the cache, checks its size and SHA-256 against the registry, and moves it under its
    final name only then (a failed or interrupted transfer leaves nothing behind).

    Parameters
    ----------
    name : str
        A key of :data:`REGISTRY` (``"musique_corpus"``) or its file name (``"musique_train_corpus.json"``).
    data_home : str or path-like, optional
        The cache folder (default :func:`get_data_home`).
    source : str or path-like, optional
        Where to take a file missing locally: a folder holding the files, or the base URL of a mirror
        (``http(s)://`` or ``file://``; the file is read from ``source/<file name>``). Default:
        ``$PATHFINDING_DATA_URL`` when set, else the upstream URL pinned in the registry.
    timeout : float, default 30.0
        Seconds to wait for the server to connect or to send the next bytes.
    progress : bool or None, optional
        Show a progress bar on stderr while copying: None (the default) on a terminal only.

    Returns
    -------
    pathlib.Path
        The file, uncompressed, byte-identical to upstream.

    Raises
    ------
    InvalidValueError
        If ``name`` is not in the registry or ``timeout`` is not a positive number.
    DataNotFoundError
        If ``source`` is a folder that does not hold the file (nor does any local place).
    DataDownloadError
        If the download fails: no network, a timeout, an HTTP error, a truncated body, or bytes
        whose size or SHA-256 differ from the registry's.

    See Also
    --------
    locate : the same lookup without a download.

    Examples
    --------
    >>> path = fetch("sample_corpus")
    >>> path.name, path.stat().st_size
    ('sample_corpus.json', 1658)
    """
    f = entry(name)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not timeout > 0:
        raise InvalidValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
    looked = []
    for label, path in _local_places(f, data_home):
        if path is None:
            looked.append(f"{label} is not set")
            continue
        why = _check(path, f)
        if why is None:
            return path
        looked.append(f"{label} {path.parent}: {why}")
    target = get_data_home(data_home) / f.filename
    if source is None:
        source = os.environ.get("PATHFINDING_DATA_URL") or None
    origin = f.url if source is None else _join(source, f.filename)
    try:
        _transfer(f, origin, target, timeout=timeout, progress=progress)
    except _NotThere as exc:
        looked.append(f"{exc}")
        raise DataNotFoundError(_message(f, looked)) from None
    except _Failed as exc:
        looked.append(f"download from {origin} failed ({exc})")
        raise DataDownloadError(_message(f, looked)) from None
    return target


def _join(source, filename: str) -> str:
    text = os.fspath(source)
    if "://" in text:
        return text.rstrip("/") + "/" + filename
    return str(Path(text).expanduser() / filename)


def _message(f: DataFile, looked: list[str]) -> str:
    return (
        f"data file {f.filename} ({f.name}) not available: " + "; ".join(looked)
        + f". Fetch it with `pathfinding data fetch {f.name}`, or from a copy with "
        f"`pathfinding data fetch {f.name} --from DIR_OR_URL` "
        "(or set PATHFINDING_DATA to a folder holding it)"
    )


class _NotThere(Exception):
    """The source is a folder without the file."""


class _Failed(Exception):
    """The transfer failed; the message says how, in a few words."""


def _open(origin: str, timeout: float):
    """A binary stream of ``origin`` (a URL or a path) and the size it announces, or None."""
    if "://" not in origin:
        path = Path(origin)
        if not path.is_file():
            raise _NotThere(f"the folder to fetch from {path.parent}: missing")
        try:
            return open(path, "rb"), path.stat().st_size
        except OSError as exc:
            raise _Failed(f"unreadable ({exc.strerror or type(exc).__name__})") from None
    try:
        resp = urllib.request.urlopen(origin, timeout=timeout)
    except urllib.error.HTTPError as exc:
        raise _Failed(f"HTTP {exc.code} {exc.reason}") from None
    except urllib.error.URLError as exc:
        raise _Failed(f"{type(exc.reason).__name__}: {exc.reason}") from None
    except (OSError, HTTPException, ValueError) as exc:
        raise _Failed(f"{type(exc).__name__}: {exc}") from None
    length = resp.headers.get("Content-Length") if hasattr(resp, "headers") else None
    return resp, int(length) if length and length.isdigit() else None


def _transfer(f: DataFile, origin: str, target: Path, *, timeout: float, progress) -> None:
    """Copy ``origin`` to ``target`` through a temporary file beside it, verified before the rename."""
    stream, announced = _open(origin, timeout)
    # The name is chosen before the file is made, so that an interrupt (Ctrl-C) arriving between
    # the file's creation and the assignment still finds it to remove. It is the package's one
    # temporary name, PATH.tmp-PID, so a download killed outright (SIGKILL) is cleaned and reported
    # by the next fetch of the file.
    tmp = Path(temp_path(target))
    try:
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            remove_stale_temps(target)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except OSError as exc:
            raise _Failed(f"cannot write in {target.parent} ({exc.strerror or exc})") from None
        digest, n = hashlib.sha256(), 0
        with os.fdopen(fd, "wb") as out, _bar(f, progress) as bar:
            while True:
                try:
                    chunk = stream.read(_CHUNK)
                except (OSError, HTTPException) as exc:
                    # a timeout mid-body, a reset, or http.client's IncompleteRead (body shorter than
                    # its Content-Length)
                    raise _Failed(f"{type(exc).__name__} after {n:,} bytes") from None
                if not chunk:
                    break
                n += len(chunk)
                if n > f.size:
                    raise _Failed(f"more than the expected {f.size:,} bytes")
                digest.update(chunk)
                out.write(chunk)
                bar.update(len(chunk))
            out.flush()
            os.fsync(out.fileno())
        if announced is not None and n != announced:
            raise _Failed(f"truncated: {n:,} of the announced {announced:,} bytes")
        if n != f.size:
            raise _Failed(f"got {n:,} bytes, expected {f.size:,}")
        if digest.hexdigest() != f.sha256:
            raise _Failed("SHA-256 of the bytes differs from the registry's (file not kept)")
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
        tmp = None
        st = target.stat()  # hashed on the way in: the next fetch in this process need not again
        _verified[str(target)] = (st.st_size, st.st_mtime_ns)
    finally:
        try:
            if tmp is not None:
                tmp.unlink(missing_ok=True)
        finally:
            stream.close()


def _bar(f: DataFile, progress):
    from tqdm import tqdm

    return tqdm(
        total=f.size, desc=f.filename, unit="B", unit_scale=True, unit_divisor=1024, leave=False,
        file=sys.stderr, disable=None if progress is None else not progress,
    )

