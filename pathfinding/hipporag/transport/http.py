"""JSON over HTTP POST with bounded retries: what the chat and the embeddings clients share.

Standard library only. Retried, with exponential backoff and jitter: 429 (honouring ``Retry-After``),
408, 5xx, timeouts, dropped connections and bodies the caller cannot use. Raised at once as
:class:`~pathfinding.errors.LLMFatalError`: any other status (a wrong key, model or URL). Every
failed attempt that will be retried is logged (logger ``pathfinding.hipporag.transport.http``, level
WARNING) with the endpoint's name, the attempt, the reason and the wait, so a dead endpoint is never
silence; the command line prints these lines on stderr.
"""

from __future__ import annotations

import email.utils
import http.client
import json
import logging
import random
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field

from pathfinding._validation import check_float, check_int
from pathfinding.errors import InvalidTypeError, InvalidValueError, LLMError, LLMFatalError

__all__ = ["RETRY_STATUS", "Transport", "UsageStats"]

RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524, 529})
"""Statuses tried again (with every other 5xx); any other status is a refusal."""

logger = logging.getLogger(__name__)


@dataclass
class UsageStats:
    """Counters of one transport, updated under a lock by every worker thread.

    Attributes
    ----------
    requests : int
        HTTP requests sent (retries included).
    succeeded : int
        Requests answered with a usable body.
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


class Transport:
    """POST JSON to one URL, retrying transient failures within a bound on the total wait.

    Parameters
    ----------
    url : str
        The full http(s) address requests go to.
    name : str, default "endpoint"
        What the endpoint is called in the retry messages (``"chat"``, ``"embeddings"``).
    api_key : str, optional
        Sent as ``Authorization: Bearer ...``.
    timeout : float, default 60.0
        Seconds to wait for the connection, and for each read of the answer.
    max_retries : int, default 6
        Retries after the first attempt; the call then raises :class:`~pathfinding.errors.LLMError`.
    backoff : float, default 1.0
        First delay in seconds; doubles with each retry, times a random factor in [1, 2) (jitter,
        so that workers hit by the same outage do not retry in lock step).
    max_backoff : float, default 60.0
        Cap on any single delay, ``Retry-After`` included.
    rng : int, optional
        Seeds the jitter (``random.Random``), for repeatable waits.

    Notes
    -----
    An endpoint that refuses connections, cannot be reached or never answers costs at most
    :meth:`max_wait` seconds before the :class:`~pathfinding.errors.LLMError`: ``max_retries + 1``
    timeouts plus the backoffs between them.

    Examples
    --------
    >>> t = Transport("http://localhost:8080/v1/embeddings", name="embeddings", timeout=10,
    ...               max_retries=2, backoff=1.0)
    >>> t.max_wait()  # 3 attempts of 10 s, then waits below 2 s and 4 s
    36.0
    """

    def __init__(
        self,
        url: str,
        *,
        name: str = "endpoint",
        api_key: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 6,
        backoff: float = 1.0,
        max_backoff: float = 60.0,
        rng=None,
    ):
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise InvalidValueError(f"url must be an http(s) URL, got {url!r}")
        if api_key is not None and not isinstance(api_key, str):
            raise InvalidTypeError(f"api_key must be a string or None, got {type(api_key).__name__}")
        if not isinstance(name, str):
            raise InvalidTypeError(f"name must be a string, got {type(name).__name__}")
        self.url = url
        self.name = name
        self._api_key = api_key
        self.timeout = check_float("timeout", timeout, low=0.0, high=3600.0, low_open=True)
        self.max_retries = check_int("max_retries", max_retries, low=0)
        self.backoff = check_float("backoff", backoff, low=0.0, high=3600.0)
        self.max_backoff = check_float("max_backoff", max_backoff, low=0.0, high=3600.0)
        self._rng = rng
        self.stats = UsageStats()
        self._lock = threading.Lock()
        self._random = random.Random(rng)

    def __repr__(self) -> str:
        return f"Transport(url={self.url!r}, name={self.name!r})"

    def replace(self, **changes) -> Transport:
        """A new transport with the same settings (key included) but ``changes``, and fresh counters.

        Examples
        --------
        >>> Transport("http://h/v1/embeddings").replace(timeout=5.0).timeout
        5.0
        """
        settings = {
            "url": self.url,
            "name": self.name,
            "api_key": self._api_key,
            "timeout": self.timeout,
            "max_retries": self.max_retries,
            "backoff": self.backoff,
            "max_backoff": self.max_backoff,
            "rng": self._rng,
        }
        unknown = sorted(set(changes) - set(settings))
        if unknown:
            raise InvalidValueError(f"cannot replace {unknown}: the settings are {sorted(settings)}")
        settings |= changes
        return Transport(settings.pop("url"), **settings)

    def max_wait(self) -> float:
        """Seconds an endpoint that never answers can cost: every attempt's timeout plus the longest
        backoff before each retry (the jitter factor stays below 2, each wait below ``max_backoff``)."""
        waits = sum(min(self.backoff * 2 ** (a + 1), self.max_backoff) for a in range(self.max_retries))
        return (self.max_retries + 1) * self.timeout + waits

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

    def _attempt(self, body: bytes, parse):
        """One request: ``(result, None, None)``, or ``(None, (kind, why), retry_after)``."""
        try:
            status, headers, raw = self._post_once(body)
        except TimeoutError:
            return None, ("timeout", f"no answer within {self.timeout:g} s"), None
        except (urllib.error.URLError, ConnectionError, http.client.HTTPException, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            if isinstance(reason, TimeoutError):  # urllib wraps a connect timeout in URLError
                return None, ("timeout", f"no connection within {self.timeout:g} s"), None
            return None, ("connection", f"connection failed: {reason}"), None
        if status == 200:
            parsed = parse(raw)
            if isinstance(parsed, str):
                return None, ("bad body", parsed), None
            return parsed, None, None
        kind, why = f"http {status}", f"HTTP {status}: {raw[:200].decode('utf-8', 'replace')}"
        if status not in RETRY_STATUS and not 500 <= status < 600:
            self._error(kind)
            self._count(failed=1)
            raise LLMFatalError(f"{self.url} refused the request ({why})")
        lower = {k.lower(): v for k, v in headers.items()}
        return None, (kind, why), _retry_after(lower.get("retry-after"))

    def post(self, payload: dict, parse: Callable[[bytes], object]):
        """POST ``payload`` as JSON and return ``parse(body)`` of the first usable 200 answer.

        Parameters
        ----------
        payload : dict
            The request body, sent as JSON.
        parse : callable
            ``raw body -> result``, or a string saying why the body is unusable (retried like a
            5xx). A result with a ``usage`` dict has its ``prompt_tokens`` and
            ``completion_tokens`` added to :attr:`stats`.

        Returns
        -------
        object
            What ``parse`` returned.

        Raises
        ------
        LLMFatalError
            On a status that retrying cannot fix (400, 401, 403, 404, 422, ...).
        LLMError
            When ``max_retries`` retries all failed; the message gives the last reason.
        """
        body = json.dumps(payload).encode("utf-8")
        attempts = self.max_retries + 1
        for attempt in range(attempts):
            if attempt:
                self._count(retries=1)
            self._count(requests=1)
            parsed, failure, retry_after = self._attempt(body, parse)
            if failure is None:
                usage = getattr(parsed, "usage", None)
                usage = usage if isinstance(usage, dict) else {}
                self._count(
                    succeeded=1,
                    prompt_tokens=usage.get("prompt_tokens", 0),
                    completion_tokens=usage.get("completion_tokens", 0),
                )
                return parsed
            kind, last = failure
            self._error(kind)
            if attempt < self.max_retries:
                wait = self._delay(attempt, retry_after)
                with self._lock:
                    self.stats.waits.append(wait)
                logger.warning(
                    "%s: attempt %d/%d failed (%s); retrying in %.3g s",
                    self.name, attempt + 1, attempts, last[:120], wait,
                )  # fmt: skip
                time.sleep(wait)
        self._count(failed=1)
        raise LLMError(
            f"{self.url}: gave up after {attempts} attempt{'s' if attempts != 1 else ''}; last error: {last}"
        )
