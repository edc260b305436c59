"""Answers of an endpoint kept on disk, keyed by what was asked: the chat and embeddings clients' cache.

One SQLite file per cache. A request body is hashed as canonical JSON (:meth:`ResponseCache.key`),
so the same model and prompt (or the same text to embed) is answered from the file on every rerun,
and any change to them is a miss. How long each answer took to come is kept beside it (a table of
its own, which older versions ignore), so that ``--estimate`` can measure a run's pace
(:meth:`ResponseCache.answer_seconds`).
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import urllib.parse
from dataclasses import dataclass

from pathfinding.errors import InvalidValueError

__all__ = ["CachedResponse", "ResponseCache"]


@dataclass(frozen=True)
class CachedResponse:
    """One stored answer.

    Attributes
    ----------
    content : str
        The answer's text (for embeddings, the vector as base64 of little-endian float64).
    finish_reason : str or None
        As the server reported it (``"length"``: cut off).
    usage : dict of str to int
        The token counts the server reported.
    """

    content: str
    finish_reason: str | None
    usage: dict


class ResponseCache:
    """Successful answers on disk, keyed by a hash of the full request (model, messages, options).

    One SQLite file, written after every answer (so a killed run loses at most the requests in
    flight); safe to share between the worker threads of one process.

    Parameters
    ----------
    path : str or path-like
        The file (created if missing); ``":memory:"`` for a throw-away cache.
    readonly : bool, default False
        Only look answers up: the file must exist, and nothing is written to it.

    Examples
    --------
    >>> c = ResponseCache(":memory:")
    >>> body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    >>> c.get(body) is None
    True
    >>> c.put(body, "hello", {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}, "stop")
    >>> c.get(body).content, len(c)
    ('hello', 1)
    """

    def __init__(self, path, *, readonly: bool = False):
        self.path = os.fspath(path)
        self._lock = threading.Lock()
        if readonly:  # look answers up, change nothing (an estimate writes no file)
            # Without a write-ahead log left beside it, the file is read as immutable: SQLite then
            # makes no shared-memory file either. With one, it must be read too.
            quiet = "" if os.path.exists(self.path + "-wal") else "&immutable=1"
            uri = "file:" + urllib.parse.quote(os.path.abspath(self.path)) + "?mode=ro" + quiet
            self._db = sqlite3.connect(uri, uri=True, check_same_thread=False)
            return
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, model TEXT, request TEXT, "
                "content TEXT, usage TEXT, finish_reason TEXT)"
            )
            self._db.execute("CREATE TABLE IF NOT EXISTS timings (key TEXT PRIMARY KEY, seconds REAL)")
        except sqlite3.DatabaseError as exc:
            self._db.close()
            raise InvalidValueError(
                f"{self.path} is not a usable response cache (SQLite said: {exc})"
            ) from None

    @staticmethod
    def key(body: dict) -> str:
        """SHA-256 of the request body as canonical JSON (any change to model or prompt changes it)."""
        blob = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def get(self, body: dict) -> CachedResponse | None:
        """The stored answer to ``body``, or None."""
        with self._lock:
            row = self._db.execute(
                "SELECT content, usage, finish_reason FROM responses WHERE key = ?", (self.key(body),)
            ).fetchone()
        if row is None:
            return None
        return CachedResponse(content=row[0], finish_reason=row[2], usage=json.loads(row[1]))

    def put(
        self, body: dict, content: str, usage: dict, finish_reason: str | None, *, seconds=None
    ) -> None:
        """Store one answer (replacing an older one for the same request), and how many ``seconds``
        it took to come when the caller timed it."""
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?, ?, ?)",
                (
                    self.key(body),
                    str(body.get("model")),
                    json.dumps(body, ensure_ascii=False)[:2000],
                    content,
                    json.dumps(usage),
                    finish_reason,
                ),
            )
            if seconds is not None:
                row = (self.key(body), float(seconds))
                self._db.execute("INSERT OR REPLACE INTO timings VALUES (?, ?)", row)

    def answer_seconds(self) -> list[float]:
        """How long each timed answer took to come, in seconds (answers stored without a time are
        left out)."""
        with self._lock:
            try:
                return [row[0] for row in self._db.execute("SELECT seconds FROM timings")]
            except sqlite3.OperationalError:  # a cache written before answers were timed
                return []

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        """Close the file (the answers stored stay in it)."""
        with self._lock:
            self._db.close()
