"""A local HTTP server on 127.0.0.1 whose every answer a test scripts, for the client tests.

``answer(n, path, headers, body) -> (status, payload, headers)`` is called for request ``n``
(from 0); ``payload`` is a dict sent as JSON, or bytes sent as they are. Every request is logged
with its path, headers and parsed JSON body.
"""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class LocalServer:
    """A threaded HTTP server on 127.0.0.1, on a port the system picks, until :meth:`stop`.

    Every test server here is one: a subclass answers each POST (or GET) in ``_handle(handler)`` and calls
    :meth:`start` at the end of its ``__init__``. ``base_url`` ends in ``/v1``, as the clients expect.
    """

    poll_interval = 0.5

    def start(self) -> None:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # keep test output clean
                pass

            def do_POST(self):
                server._handle(self)

            def do_GET(self):
                server._handle(self)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self._thread = threading.Thread(
            target=self.httpd.serve_forever, args=(self.poll_interval,), daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()

    def _send(self, h, status: int, payload, headers=()) -> None:
        """Answer with ``status``: ``payload`` a dict sent as JSON, or bytes sent as they are."""
        raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        h.send_response(status)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(raw)))
        for k, v in headers:
            h.send_header(k, v)
        h.end_headers()
        h.wfile.write(raw)

    def _handle(self, h) -> None:
        raise NotImplementedError


class ScriptedServer(LocalServer):
    poll_interval = 0.05

    def __init__(self, answer):
        self.answer = answer
        self.log: list[dict] = []
        self._lock = threading.Lock()
        self.start()

    def _handle(self, h) -> None:
        raw = h.rfile.read(int(h.headers.get("Content-Length", 0)))
        body = json.loads(raw)
        with self._lock:
            n = len(self.log)
            self.log.append({"path": h.path, "headers": dict(h.headers), "body": body})
        status, payload, headers = self.answer(n, h.path, dict(h.headers), body)
        try:
            self._send(h, status, payload, headers)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up waiting (a timeout test)


def statuses(*codes, ok, headers=()):
    """A :class:`ScriptedServer` answer: request n gets ``codes[n]`` with an error body (and
    ``headers``), every later one 200 with ``ok``."""

    def answer(n, path, hdrs, body):
        if n < len(codes):
            return codes[n], {"error": {"message": f"status {codes[n]}"}}, list(headers)
        return 200, ok, []

    return answer


class SilentServer:
    """A dead endpoint: listens on 127.0.0.1 and never answers (nor accepts), so every request waits
    for the client's timeout. The kernel completes the connections up to the listen backlog."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.base_url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.sock.close()
