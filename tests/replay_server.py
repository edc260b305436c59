"""A chat-completions server on 127.0.0.1 that replays the released GPT-3.5 OpenIE output.

It knows nothing of the package's prompts beyond what the protocol fixes: the answer shape asked
for (a system message naming ``"triples"`` wants triples, otherwise named entities) and the passage,
found by its text inside the last user message. It answers with that passage's *released*
``extracted_entities`` or ``extracted_triples``, so a client run against it must reproduce the
released file. Known questions (``questions=``) get their listed entities.

Faults are injected per request by ``fault(n, body) -> kind or None`` (``n`` counts requests from
0): a status such as ``"500"`` or ``"401"``, ``"429"`` (with ``Retry-After: retry_after``),
``"timeout"`` (never answers: holds the request until the client hangs up, at most
``slow_seconds``), ``"drop"`` (closes the connection without answering), ``"bad_body"`` (200 with a
body that is not JSON), ``"malformed"`` (200 whose *content* is truncated JSON). ``delay`` slows
every answer; ``die_after=N`` kills the server after N requests: it stops listening and drops what is
in flight.

Each request's log entry keeps the fault injected (``fault``, never rewritten) apart from what
became of the answer (``outcome``: ``"late"`` when the client had gone before it was sent), so a
test can count the faults whatever the timing.
"""

from __future__ import annotations

import hashlib
import json
import select
import socket
import threading
import time

from scripted_server import LocalServer


def body_key(body: dict) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


class ReplayServer(LocalServer):
    def __init__(
        self,
        docs,
        *,
        questions=None,
        fault=None,
        retry_after="0.01",
        slow_seconds=1.0,
        die_after=None,
        delay=0.0,
    ):
        # docs: raw released records ({"title", "text", "extracted_entities", "extracted_triples"}).
        self.passages = {d["title"] + "\n" + d["text"]: d for d in docs}
        self.questions = dict(questions or {})
        self.fault = fault
        self.retry_after = retry_after
        self.slow_seconds = slow_seconds
        self.die_after = die_after
        self.delay = delay  # seconds before every answer (a slow but healthy server)
        self.log: list[dict] = []  # one entry per request: key, fault, outcome
        self._lock = threading.Lock()
        self._dead = threading.Event()
        self.start()

    # -- bookkeeping ---------------------------------------------------------------------------------
    def succeeded_keys(self) -> set[str]:
        return {e["key"] for e in self.log if e["outcome"] in ("ok", "malformed")}

    def requested_keys(self) -> set[str]:
        return {e["key"] for e in self.log}

    def stop(self) -> None:
        if not self._dead.is_set():
            self._dead.set()
            self.httpd.shutdown()
        self.httpd.server_close()

    def _die(self) -> None:
        # Stop serving *and* close the listening socket, so new connections are refused at once.
        self.httpd.shutdown()
        self.httpd.server_close()

    # -- answering -----------------------------------------------------------------------------------
    def _answer(self, messages) -> str:
        system = " ".join(m["content"] for m in messages if m.get("role") == "system")
        user = [m["content"] for m in messages if m.get("role") == "user"][-1]
        found = [p for p in self.passages if p in user]
        if found:
            doc = self.passages[max(found, key=len)]
            if '"triples"' in system:
                return json.dumps({"triples": doc["extracted_triples"]})
            return json.dumps({"named_entities": doc["extracted_entities"]})
        for q, ents in self.questions.items():
            if q in user:
                return json.dumps({"named_entities": list(ents)})
        return "I could not find that passage."

    def _handle(self, h):
        raw = h.rfile.read(int(h.headers.get("Content-Length", 0)))
        body = json.loads(raw)
        key = body_key(body)
        with self._lock:
            n = len(self.log)
            entry = {"key": key, "fault": None, "outcome": None, "body": body}
            self.log.append(entry)
            dying = self.die_after is not None and n >= self.die_after
        if dying or self._dead.is_set():
            entry["outcome"] = "killed"
            if not self._dead.is_set():
                self._dead.set()
                threading.Thread(target=self._die, daemon=True).start()
            h.close_connection = True
            h.connection.close()
            return
        if h.path.rstrip("/") != "/v1/chat/completions":
            entry["outcome"] = "404"
            self._send(h, 404, b'{"error": "not found"}')
            return
        kind = self.fault(n, body) if self.fault else None
        entry["fault"] = kind
        entry["outcome"] = kind or "ok"
        if kind == "429":
            self._send(h, 429, b'{"error": "slow down"}', [("Retry-After", self.retry_after)])
            return
        if kind and kind.isdigit():  # any other status: "500", "503", "401" ...
            self._send(h, int(kind), b'{"error": "injected"}')
            return
        if kind == "drop":
            h.close_connection = True
            h.connection.close()
            return
        if kind == "bad_body":
            self._send(h, 200, b"<html>gateway hiccup</html>")
            return
        if kind == "timeout":
            _wait_for_hangup(h.connection, self.slow_seconds)
            h.close_connection = True
            return
        if self.delay:
            time.sleep(self.delay)
        content = self._answer(body["messages"])
        finish = "stop"
        if kind == "malformed":  # cut in half, as a server that ran out of tokens would
            content, finish = content[: max(1, len(content) // 2)], "length"
        prompt_chars = sum(len(m["content"]) for m in body["messages"])
        payload = {
            "id": f"replay-{n}",
            "object": "chat.completion",
            "model": body["model"],
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish}
            ],
            "usage": {
                "prompt_tokens": prompt_chars // 4,
                "completion_tokens": len(content) // 4,
                "total_tokens": prompt_chars // 4 + len(content) // 4,
            },
        }
        try:
            self._send(h, 200, json.dumps(payload).encode())
        except OSError:  # the client gave up (timeout) before we answered
            entry["outcome"] = "late"


def _wait_for_hangup(conn, limit: float) -> None:
    """Block until the client closes ``conn`` (or ``limit`` seconds pass), reading nothing it sent."""
    end = time.monotonic() + limit
    while (left := end - time.monotonic()) > 0:
        readable, _, _ = select.select([conn], [], [], left)
        if readable:
            try:
                if conn.recv(1, socket.MSG_PEEK) == b"":
                    return
            except OSError:
                return
            time.sleep(0.01)  # bytes of a request we do not read: keep waiting for the close
