"""A small client for any OpenAI-compatible chat-completions endpoint, standard library only.

Hosted APIs, vLLM, Ollama and llama.cpp all answer ``POST {base_url}/chat/completions`` with the same
JSON, so one client serves them all; no SDK is needed. What the client adds over a bare request is
what a long extraction run needs:

* retries with exponential backoff and jitter on 429 (honouring ``Retry-After``), 408, 5xx, timeouts,
  dropped connections and unreadable bodies -- bounded in number and in delay;
* errors that no retry can fix (401, 403, 404, other 4xx) raised at once as
  :class:`~pathfinding.errors.LLMFatalError`, so a wrong key or model name stops the run instead of
  failing every passage slowly;
* thread safety (one client is shared by the worker threads) and counters of requests, retries and
  the ``usage`` tokens the server reported (:class:`UsageStats`).

Responses are not cached here; :class:`pathfinding.hipporag.extract.openie.ResponseCache` does that, keyed by
what was asked.
"""

from __future__ import annotations

import email.utils
import http.client
import json
import random
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field

from pathfinding._validation import check_float, check_int
from pathfinding.errors import InvalidTypeError, InvalidValueError, LLMError, LLMFatalError

__all__ = ["ChatClient", "ChatResponse", "UsageStats"]

_RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524, 529})


@dataclass(frozen=True)
class ChatResponse:
    """One successful answer.

    Attributes
    ----------
    content : str
        ``choices[0].message.content``.
    finish_reason : str or None
        ``"length"`` means the model was cut off (the answer is likely truncated).
    usage : dict of str to int
        ``prompt_tokens``, ``completion_tokens``, ``total_tokens`` as reported (zeros if absent).
    """

    content: str
    finish_reason: str | None
    usage: dict


@dataclass
class UsageStats:
    """Counters of one client, updated under a lock by every worker thread.

    Attributes
    ----------
    requests : int
        HTTP requests sent (retries included).
    succeeded : int
        Requests answered with a usable completion.
    retries : int
        Requests that were repeated after a retryable failure.
    failed : int
        Calls that gave up (retries exhausted or a fatal error).
    prompt_tokens, completion_tokens : int
        Sums of the ``usage`` the server reported.
    errors : dict of str to int
        Failure kind (``"http 429"``, ``"timeout"``, ``"connection"``, ``"bad body"``) -> count.
    waits : list of float
        Every backoff delay slept, in seconds (a ``Retry-After`` value appears here as given).
    """

    requests: int = 0
    succeeded: int = 0
    retries: int = 0
    failed: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    errors: dict = field(default_factory=dict)
    waits: list = field(default_factory=list)

    def to_dict(self) -> dict:
        """Plain-dict form (without the list of waits)."""
        return {
            "requests": self.requests,
            "succeeded": self.succeeded,
            "retries": self.retries,
            "failed": self.failed,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "errors": dict(sorted(self.errors.items())),
        }


def _retry_after(value: str | None) -> float | None:
    """Seconds from a ``Retry-After`` header (delta-seconds, or an HTTP date); None if unreadable."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


class ChatClient:
    """Chat completions against one OpenAI-compatible endpoint.

    Parameters
    ----------
    base_url : str
        Up to and including the API version, e.g. ``"https://api.openai.com/v1"`` or
        ``"http://localhost:8000/v1"``; ``/chat/completions`` is appended.
    model : str
        Model name sent with every request.
    api_key : str, optional
        Sent as ``Authorization: Bearer ...``; omit for local servers that need none.
    temperature : float, default 0.0
        0 makes reruns as repeatable as the server allows (and the cache meaningful).
    max_tokens : int, optional
        Completion budget per request; None leaves it to the server.
    timeout : float, default 120.0
        Seconds per HTTP request.
    max_retries : int, default 6
        Retries after the first attempt; the call then raises :class:`~pathfinding.errors.LLMError`.
    backoff : float, default 1.0
        First delay in seconds; doubles with each retry, times a random factor in [1, 2) (jitter,
        so that workers hit by the same outage do not retry in lock step).
    max_backoff : float, default 60.0
        Cap on any single delay, ``Retry-After`` included.
    rng : int or numpy-style seed, optional
        Seeds the jitter (``random.Random``), for repeatable tests.

    Examples
    --------
    >>> c = ChatClient("http://localhost:8000/v1/", "my-model")
    >>> c.url
    'http://localhost:8000/v1/chat/completions'
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        temperature: float = 0.0,
        max_tokens: int | None = None,
        timeout: float = 120.0,
        max_retries: int = 6,
        backoff: float = 1.0,
        max_backoff: float = 60.0,
        rng=None,
    ):
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise InvalidValueError(f"base_url must be an http(s) URL, got {base_url!r}")
        if not isinstance(model, str) or not model.strip():
            raise InvalidValueError(f"model must be a non-empty string, got {model!r}")
        if api_key is not None and not isinstance(api_key, str):
            raise InvalidTypeError(f"api_key must be a string or None, got {type(api_key).__name__}")
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model = model
        self._api_key = api_key
        self.temperature = check_float("temperature", temperature, low=0.0, high=2.0)
        self.max_tokens = None if max_tokens is None else check_int("max_tokens", max_tokens, low=1)
        self.timeout = check_float("timeout", timeout, low=0.0, high=3600.0, low_open=True)
        self.max_retries = check_int("max_retries", max_retries, low=0)
        self.backoff = check_float("backoff", backoff, low=0.0, high=3600.0)
        self.max_backoff = check_float("max_backoff", max_backoff, low=0.0, high=3600.0)
        self.stats = UsageStats()
        self._lock = threading.Lock()
        self._random = random.Random(rng)

    def __repr__(self) -> str:
        return f"ChatClient(url={self.url!r}, model={self.model!r})"

    def _count(self, **inc) -> None:
        with self._lock:
            for key, value in inc.items():
                setattr(self.stats, key, getattr(self.stats, key) + value)

    def _error(self, kind: str) -> None:
        with self._lock:
            self.stats.errors[kind] = self.stats.errors.get(kind, 0) + 1

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(retry_after, self.max_backoff)
        with self._lock:
            jitter = 1.0 + self._random.random()
        return min(self.backoff * (2**attempt) * jitter, self.max_backoff)

    def payload(self, messages: list[dict], *, json_mode: bool = False) -> dict:
        """The request body for ``messages`` (what the cache key is computed from, minus nothing)."""
        body = {"model": self.model, "messages": messages, "temperature": self.temperature}
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        if json_mode:
            body["response_format"] = {"type": "json_object"}
        return body

    def _post_once(self, body: bytes) -> tuple[int, dict, bytes]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        req = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return resp.status, dict(resp.headers), resp.read()
        except urllib.error.HTTPError as exc:
            try:
                payload = exc.read()
            except (OSError, http.client.HTTPException):
                payload = b""
            return exc.code, dict(exc.headers or {}), payload

    def chat(self, messages: list[dict], *, json_mode: bool = False) -> ChatResponse:
        """Send one chat completion and return the first choice, retrying transient failures.

        Parameters
        ----------
        messages : list of dict
            ``[{"role": "system" | "user" | "assistant", "content": str}, ...]``.
        json_mode : bool, default False
            Ask for ``response_format={"type": "json_object"}`` (servers that do not support it may
            answer 400, which is fatal).

        Returns
        -------
        ChatResponse

        Raises
        ------
        LLMFatalError
            On 400/401/403/404/422 and other non-retryable statuses.
        LLMError
            When ``max_retries`` retries all failed.
        """
        if not isinstance(messages, list) or not all(
            isinstance(m, dict) and isinstance(m.get("content"), str) for m in messages
        ):
            raise InvalidTypeError("messages must be a list of {'role': ..., 'content': str} dicts")
        return self.post(self.payload(messages, json_mode=json_mode), self._parse_body)

    def post(self, payload: dict, parse):
        """POST ``payload`` as JSON to :attr:`url`, retrying as :meth:`chat` does.

        ``parse(raw_body)`` turns a 200 body into the result (anything with a ``usage`` dict of
        token counts) or a string saying why the body is unusable (retried like a 5xx).
        """
        body = json.dumps(payload).encode("utf-8")
        for attempt in range(self.max_retries + 1):
            if attempt:
                self._count(retries=1)
            self._count(requests=1)
            retry_after = None
            try:
                status, headers, raw = self._post_once(body)
            except TimeoutError:
                kind, last = "timeout", f"no answer within {self.timeout} s"
            except (urllib.error.URLError, ConnectionError, http.client.HTTPException, OSError) as exc:
                reason = getattr(exc, "reason", exc)
                if isinstance(reason, TimeoutError):  # urllib wraps a connect timeout in URLError
                    kind, last = "timeout", f"no connection within {self.timeout} s"
                else:
                    kind, last = "connection", f"connection failed: {reason}"
            else:
                if status == 200:
                    parsed = parse(raw)
                    if not isinstance(parsed, str):
                        self._count(
                            succeeded=1,
                            prompt_tokens=parsed.usage.get("prompt_tokens", 0),
                            completion_tokens=parsed.usage.get("completion_tokens", 0),
                        )
                        return parsed
                    kind, last = "bad body", parsed
                else:
                    kind = f"http {status}"
                    last = f"HTTP {status}: {raw[:200].decode('utf-8', 'replace')}"
                    if status not in _RETRY_STATUS and not 500 <= status < 600:
                        self._error(kind)
                        self._count(failed=1)
                        raise LLMFatalError(f"{self.url} refused the request ({last})")
                    lower = {k.lower(): v for k, v in headers.items()}
                    retry_after = _retry_after(lower.get("retry-after"))
            self._error(kind)
            if attempt < self.max_retries:
                wait = self._delay(attempt, retry_after)
                with self._lock:
                    self.stats.waits.append(wait)
                time.sleep(wait)
        self._count(failed=1)
        raise LLMError(f"{self.url}: gave up after {self.max_retries + 1} attempts; last error: {last}")

    @staticmethod
    def _parse_body(raw: bytes):
        """A ChatResponse, or a string saying why the body is not a completion."""
        try:
            data = json.loads(raw.decode("utf-8"))
            choice = data["choices"][0]
            content = choice["message"]["content"]
        except (UnicodeDecodeError, json.JSONDecodeError, KeyError, IndexError, TypeError):
            return f"200 with a body that is not a chat completion: {raw[:200]!r}"
        if not isinstance(content, str):
            return f"200 with non-string content: {content!r}"[:200]
        usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
        tokens = {}
        for key in ("prompt_tokens", "completion_tokens", "total_tokens"):
            v = usage.get(key, 0)
            tokens[key] = int(v) if isinstance(v, int | float) and not isinstance(v, bool) else 0
        return ChatResponse(content=content, finish_reason=choice.get("finish_reason"), usage=tokens)
