"""An OpenAI-compatible ``/v1/embeddings`` server on 127.0.0.1 for the encoder tests.

Each text's vector is its hashed character-trigram counts in ``dim`` dimensions (not normalised,
so the client's normalisation is exercised): phrases that share trigrams get a high cosine, as a
real embedding model gives near-synonyms. ``fault(n, body) -> kind or None`` injects a status per
request (``"429"`` answers with ``Retry-After: 0.01``; any other digits are sent as the status).
"""

from __future__ import annotations

import json
import threading
import zlib

from scripted_server import LocalServer


def vector(text: str, dim: int) -> list[float]:
    v = [0.0] * dim
    padded = f"  {text.lower()} "
    for i in range(len(padded) - 2):
        v[zlib.crc32(padded[i : i + 3].encode()) % dim] += 1.0
    return v


class EmbeddingServer(LocalServer):
    def __init__(self, *, dim: int = 48, fault=None):
        self.dim = dim
        self.fault = fault
        self.log: list[dict] = []  # one entry per request: the body and the status sent
        self._lock = threading.Lock()
        self.start()

    def texts(self) -> list[str]:
        """Every text embedded with a 200 answer, in request order."""
        return [t for e in self.log if e["status"] == 200 for t in e["body"]["input"]]

    def _handle(self, h) -> None:
        body = json.loads(h.rfile.read(int(h.headers.get("Content-Length", 0))))
        with self._lock:
            n = len(self.log)
            entry = {"body": body, "status": None}
            self.log.append(entry)
        kind = self.fault(n, body) if self.fault else None
        if h.path.rstrip("/") != "/v1/embeddings":
            kind = "404"
        if kind is not None:
            entry["status"] = int(kind)
            extra = [("Retry-After", "0.01")] if kind == "429" else []
            self._send(h, int(kind), {"error": {"message": f"injected {kind}"}}, extra)
            return
        entry["status"] = 200
        data = [
            {"object": "embedding", "index": i, "embedding": vector(t, self.dim)}
            for i, t in enumerate(body["input"])
        ]
        data.reverse()  # servers need not answer in order: the client sorts by index
        usage = {"prompt_tokens": sum(len(t) for t in body["input"]), "total_tokens": 0}
        self._send(h, 200, {"object": "list", "data": data, "model": body.get("model"), "usage": usage})
