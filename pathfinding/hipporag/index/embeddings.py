"""A dense phrase encoder served by any OpenAI-compatible ``/v1/embeddings`` endpoint.

HippoRAG's parahippocampal encoder is a dense retrieval model (Contriever, ColBERTv2 in v1; NV-Embed
in HippoRAG 2), and people serve such models with vLLM, Text Embeddings Inference, Ollama or
llama.cpp, which all answer ``POST {base_url}/embeddings`` with
``{"data": [{"index": i, "embedding": [...]}, ...]}``. :class:`EmbeddingEncoder` turns such an
endpoint into the index's encoder (phrases -> unit rows) for synonymy edges and entity linking.

Requests go through the shared :class:`~pathfinding.hipporag.transport.http.Transport` (retries with
backoff on 429, 5xx, timeouts and dropped connections, each retry logged; a bad key, model or URL
fails at once) and answers into a :class:`~pathfinding.hipporag.transport.cache.ResponseCache`, keyed per text
and model, so that a rebuild, an update or a repeated query entity never asks the server twice. The
vectors are cached exactly (float64), so an index built from the cache equals one built from the
server. The index file records the endpoint, model and dimension
(:func:`~pathfinding.hipporag.index.persistence.encoder_spec`); loading it gives an encoder that embeds
query entities with the same model. The offline default stays
:class:`~pathfinding.hipporag.index.encoder.CharNgramEncoder`.
"""

from __future__ import annotations

import base64
import json
import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pathfinding._validation import check_int
from pathfinding.errors import InvalidTypeError, InvalidValueError
from pathfinding.hipporag.transport.cache import ResponseCache
from pathfinding.hipporag.transport.http import Transport

__all__ = ["EmbeddingEncoder"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Embeddings:
    vectors: list
    usage: dict


def _checked_base_url(base_url) -> str:
    """``base_url`` without its trailing slashes, once it is seen to be an http(s) URL."""
    if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
        raise InvalidValueError(f"base_url must be an http(s) URL, got {base_url!r}")
    return base_url.rstrip("/")


class EmbeddingEncoder:
    """Phrases -> unit rows (float64) from an OpenAI-compatible embeddings endpoint.

    Parameters
    ----------
    base_url : str
        Up to and including the API version, e.g. ``"http://localhost:8080/v1"``;
        ``/embeddings`` is appended.
    model : str, default "default"
        Model name sent with every request (servers that host one model often ignore it).
    api_key : str, optional
        Sent as ``Authorization: Bearer ...``; never stored in the index.
    cache : str or path-like, optional
        SQLite file of vectors already received (created if missing); None for no cache.
    batch_size : int, default 64
        Texts per request.
    timeout, max_retries, backoff :
        The :class:`~pathfinding.hipporag.transport.http.Transport`'s; an endpoint that never answers
        costs at most ``transport.max_wait()`` seconds per request.

    Notes
    -----
    Each returned vector is divided by its norm (the index needs unit rows; many servers already
    normalise). An empty text is not sent and gets a zero row, as the default encoder gives a text
    with no n-gram.

    Examples
    --------
    >>> enc = EmbeddingEncoder("http://localhost:8080/v1/", model="bge-small")
    >>> enc.transport.url, enc.index_spec()["model"]
    ('http://localhost:8080/v1/embeddings', 'bge-small')
    """

    def __init__(
        self,
        base_url: str,
        *,
        model: str = "default",
        api_key: str | None = None,
        cache=None,
        batch_size: int = 64,
        timeout: float = 60.0,
        max_retries: int = 6,
        backoff: float = 1.0,
    ):
        base = _checked_base_url(base_url)
        if not isinstance(model, str) or not model.strip():
            raise InvalidValueError(f"model must be a non-empty string, got {model!r}")
        self.base_url = base
        self.transport = Transport(
            self.base_url + "/embeddings",
            name="embeddings",
            api_key=api_key,
            timeout=timeout,
            max_retries=max_retries,
            backoff=backoff,
        )
        self.model = model
        self.batch_size = check_int("batch_size", batch_size, low=1)
        self.cache_path = None if cache is None else os.fspath(cache)
        self._cache = None
        self.dim: int | None = None

    def configure(self, *, base_url: str | None = None, timeout=None, max_retries=None, backoff=None) -> None:
        """Reach the same model at another address, or wait and retry differently (None keeps).

        Examples
        --------
        >>> enc = EmbeddingEncoder("http://old:8080/v1", model="bge-small")
        >>> enc.configure(base_url="http://new:8080/v1/", timeout=5)
        >>> enc.transport.url, enc.transport.timeout
        ('http://new:8080/v1/embeddings', 5.0)
        """
        changes = {"timeout": timeout, "max_retries": max_retries, "backoff": backoff}
        base = None if base_url is None else _checked_base_url(base_url)
        if base is not None:
            changes["url"] = base + "/embeddings"
        self.transport = self.transport.replace(**{k: v for k, v in changes.items() if v is not None})
        if base is not None:
            self.base_url = base

    def _store(self):
        if self._cache is None and self.cache_path is not None:
            self._cache = ResponseCache(self.cache_path)
        return self._cache

    def _key(self, text: str) -> dict:
        return {"model": self.model, "input": text, "url": self.transport.url}

    def _parse(self, n: int):
        def parse(raw: bytes):
            try:
                data = json.loads(raw.decode("utf-8"))["data"]
                rows = sorted(data, key=lambda d: d.get("index", 0))
                vectors = [np.asarray(d["embedding"], dtype=np.float64) for d in rows]
            except (UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError, ValueError):
                return f"200 with a body that is not an embeddings answer: {raw[:200]!r}"
            if len(vectors) != n or any(v.ndim != 1 or v.size == 0 for v in vectors):
                return f"200 with {len(vectors)} embeddings for {n} texts"
            usage = {}
            raw_usage = json.loads(raw.decode("utf-8")).get("usage")
            if isinstance(raw_usage, dict) and isinstance(raw_usage.get("prompt_tokens"), int):
                usage["prompt_tokens"] = raw_usage["prompt_tokens"]
            return _Embeddings(vectors, usage)

        return parse

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts``: one unit row per text (a zero row for an empty text)."""
        if isinstance(texts, str):
            raise InvalidTypeError("texts must be a sequence of strings, got a string")
        texts = list(texts)
        if not all(isinstance(t, str) for t in texts):
            raise InvalidTypeError("texts must be strings")
        store = self._store()
        found: dict[str, np.ndarray] = {}
        todo = []
        for t in dict.fromkeys(texts):
            if not t.strip():
                continue
            hit = store.get(self._key(t)) if store is not None else None
            if hit is not None:
                found[t] = np.frombuffer(base64.b64decode(hit.content), dtype="<f8").astype(np.float64)
            else:
                todo.append(t)
        n_batches = -(-len(todo) // self.batch_size)
        for lo in range(0, len(todo), self.batch_size):
            batch = todo[lo : lo + self.batch_size]
            payload = {"model": self.model, "input": batch}
            answer = self.transport.post(payload, self._parse(len(batch)))
            if n_batches > 1:
                logger.info("embeddings: %d of %d texts embedded", lo + len(batch), len(todo))
            for t, v in zip(batch, answer.vectors, strict=True):
                found[t] = v
                if store is not None:
                    blob = base64.b64encode(v.astype("<f8").tobytes()).decode("ascii")
                    store.put(self._key(t), blob, answer.usage, None)
        dims = {v.size for v in found.values()}
        if self.dim is not None:
            dims.add(self.dim)
        if len(dims) > 1:
            raise InvalidValueError(
                f"{self.transport.url} returned embeddings of different lengths {sorted(dims)}: one model "
                f"must embed every phrase (model {self.model!r})"
            )
        if dims:
            self.dim = dims.pop()
        out = np.zeros((len(texts), self.dim or 0))
        for i, t in enumerate(texts):
            v = found.get(t)
            if v is not None:
                norm = np.linalg.norm(v)
                if norm > 0:
                    out[i] = v / norm
        return out

    def index_spec(self) -> dict:
        """What the index file records (no key, no cache contents): endpoint, model, dimension."""
        return {
            "kind": "embeddings",
            "base_url": self.base_url,
            "model": self.model,
            "dim": self.dim,
            "batch_size": self.batch_size,
            "cache": self.cache_path,
        }

    @classmethod
    def from_spec(cls, spec: dict, *, api_key: str | None = None) -> EmbeddingEncoder:
        """The encoder an index file records; the API key comes from
        ``$PATHFINDING_EMBEDDINGS_API_KEY`` unless given."""
        cache = spec.get("cache")
        if cache is not None and not os.path.isdir(os.path.dirname(os.path.abspath(cache))):
            cache = None  # the index moved to another machine: no cache rather than no encoder
        enc = cls(
            spec["base_url"],
            model=spec["model"],
            api_key=api_key if api_key is not None else os.environ.get("PATHFINDING_EMBEDDINGS_API_KEY"),
            cache=cache,
            batch_size=int(spec.get("batch_size", 64)),
        )
        enc.dim = None if spec.get("dim") is None else int(spec["dim"])
        return enc

    def __repr__(self) -> str:
        return f"EmbeddingEncoder(url={self.transport.url!r}, model={self.model!r})"
