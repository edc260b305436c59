"""The shared transport against scripted servers on 127.0.0.1.

Which statuses are retried and which stop at once, what is counted, how long it waits (and that the
total is bounded by ``max_wait``), what each retry reports, and the errors that name what went wrong.
"""

import email.utils
import json
import logging
import time
from types import SimpleNamespace

import pytest
from scripted_server import LocalServer, ScriptedServer, SilentServer, statuses

from pathfinding.errors import InvalidTypeError, InvalidValueError, LLMError, LLMFatalError
from pathfinding.hipporag.transport import http as transport
from pathfinding.hipporag.transport.http import RETRY_STATUS, Transport, UsageStats


def _parse(raw: bytes):
    """A usable body is a JSON object; its ``usage`` is counted. Anything else is unusable."""
    try:
        data = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError):
        return f"not JSON: {raw[:20]!r}"
    return SimpleNamespace(data=data, usage=data.get("usage", {}))


def _transport(url, **kw):
    kw = {"backoff": 0.0, "max_backoff": 0.05, "max_retries": 3, "timeout": 5.0, "rng": 0, **kw}
    return Transport(url + "/things", name="things", **kw)


def _statuses(*codes, headers=()):
    """Answer request n with codes[n], then 200 with ``{"ok": true}``."""
    return statuses(*codes, ok={"ok": True, "usage": {"prompt_tokens": 3}}, headers=headers)


@pytest.mark.parametrize("status", [*sorted(RETRY_STATUS), 501, 599])
def test_transient_statuses_are_retried(status):
    """Every status of the retry list, and any other 5xx, is tried again; the call then succeeds and
    the counters show one retry, two requests, the error kind and the tokens of the answer."""
    with ScriptedServer(_statuses(status)) as srv:
        t = _transport(srv.base_url)
        assert t.post({"q": 1}, _parse).data == {"ok": True, "usage": {"prompt_tokens": 3}}
        assert [e["body"] for e in srv.log] == [{"q": 1}, {"q": 1}] and srv.log[0]["path"] == "/v1/things"
    s = t.stats
    assert (s.requests, s.retries, s.succeeded, s.failed) == (2, 1, 1, 0)
    assert s.errors == {f"http {status}": 1} and s.prompt_tokens == 3 and len(s.waits) == 1


@pytest.mark.parametrize("status", [400, 401, 403, 404, 410, 422, 499, 302, 600])
def test_other_statuses_stop_at_once_and_name_the_status(status):
    """A status outside the retry list and not a 5xx is fatal: one request, no wait, and the error
    names the URL, the status and the body."""
    with ScriptedServer(_statuses(status, status)) as srv:
        t = _transport(srv.base_url)
        with pytest.raises(LLMFatalError, match=rf"/v1/things refused the request \(HTTP {status}: "):
            t.post({}, _parse)
        assert len(srv.log) == 1
    s = t.stats
    assert (s.requests, s.retries, s.failed, s.succeeded) == (1, 0, 1, 0) and s.waits == []
    assert s.errors == {f"http {status}": 1}


def test_retries_are_bounded_and_the_error_says_what_failed_last():
    """max_retries=2 means 3 attempts; the error names the URL, the attempts and the last status and
    body, and every wait but the last attempt's is slept."""
    with ScriptedServer(_statuses(503, 503, 502, 500)) as srv:
        t = _transport(srv.base_url, max_retries=2)
        with pytest.raises(LLMError, match=r"/things: gave up after 3 attempts; last error: HTTP 502: .*502"):
            t.post({}, _parse)
        assert len(srv.log) == 3
    s = t.stats
    assert (s.requests, s.retries, s.failed, s.succeeded) == (3, 2, 1, 0)
    assert s.errors == {"http 503": 2, "http 502": 1} and len(s.waits) == 2


def test_no_retries_means_one_attempt():
    with ScriptedServer(_statuses(503)) as srv:
        t = _transport(srv.base_url, max_retries=0)
        with pytest.raises(LLMError, match="gave up after 1 attempt;"):
            t.post({}, _parse)
        assert len(srv.log) == 1 and t.stats.waits == []


def test_each_retry_is_reported_with_the_attempt_the_reason_and_the_wait(caplog):
    """One WARNING per failed attempt that is retried, none for the last one (its error says it)."""
    with ScriptedServer(_statuses(503, 429, 503)) as srv:
        t = _transport(srv.base_url, max_retries=2, backoff=0.001, max_backoff=0.001)
        with caplog.at_level(logging.INFO, logger="pathfinding"), pytest.raises(LLMError):
            t.post({}, _parse)
    lines = [r.getMessage() for r in caplog.records if r.name == "pathfinding.hipporag.transport.http"]
    assert [r.levelno for r in caplog.records] == [logging.WARNING] * 2
    assert lines[0].startswith("things: attempt 1/3 failed (HTTP 503: ")
    assert lines[1].startswith("things: attempt 2/3 failed (HTTP 429: ")
    assert all(line.endswith("; retrying in 0.001 s") for line in lines)


def test_retry_after_is_honoured_and_capped():
    """``Retry-After: 0.02`` is waited as given; one of 30 s is capped at max_backoff (0.05)."""
    with ScriptedServer(_statuses(429, headers=[("Retry-After", "0.02")])) as srv:
        t = _transport(srv.base_url, backoff=1.0)
        t.post({}, _parse)
    assert t.stats.waits == [0.02]
    with ScriptedServer(_statuses(429, headers=[("Retry-After", "30")])) as srv:
        t = _transport(srv.base_url, backoff=1.0)
        t.post({}, _parse)
    assert t.stats.waits == [0.05]


def test_the_jitter_repeats_for_a_seed():
    """``rng`` seeds the jitter: the same seed gives the same waits, another seed other waits."""

    def waits(rng):
        t = Transport("http://h/v1", backoff=0.01, rng=rng)
        return [t._delay(attempt, None) for attempt in range(5)]

    assert waits(7) == waits(7) and waits(7) != waits(8)


def test_backoff_doubles_with_jitter_and_is_capped():
    """Waits are backoff * 2**attempt * a factor in [1, 2), each capped by max_backoff."""
    t = Transport("http://h/v1", backoff=0.5, max_backoff=3.0, rng=1)
    for attempt in range(4):
        d = t._delay(attempt, None)
        assert 0.5 * 2**attempt <= d < 0.5 * 2 ** (attempt + 1) or d == 3.0
    assert t._delay(5, None) == 3.0
    assert t._delay(0, 1.5) == 1.5 and t._delay(0, 7.0) == 3.0


def test_max_wait_is_every_timeout_plus_the_longest_backoffs():
    """Three attempts of 10 s, and waits below 2 s and 4 s; with a cap of 3 s the second is 3 s."""
    assert Transport("http://h/v1", timeout=10, max_retries=2, backoff=1.0).max_wait() == 36.0
    assert Transport("http://h/v1", timeout=10, max_retries=2, backoff=1.0, max_backoff=3).max_wait() == 35.0
    assert Transport("http://h/v1", timeout=0.5, max_retries=0).max_wait() == 0.5


def test_an_endpoint_that_never_answers_costs_at_most_max_wait(caplog):
    """A server that accepts connections and never answers: every attempt times out, each retry is
    reported, and the whole call ends within ``max_wait`` (no sooner than the three timeouts)."""
    with SilentServer() as srv:
        t = _transport(srv.base_url, timeout=0.2, max_retries=2, backoff=0.05, max_backoff=0.1)
        t0 = time.monotonic()
        last = r"gave up after 3 attempts; last error: no answer within 0.2 s$"
        with caplog.at_level(logging.WARNING, logger="pathfinding"), pytest.raises(LLMError, match=last):
            t.post({}, _parse)
        elapsed = time.monotonic() - t0
    assert t.max_wait() == pytest.approx(0.8)
    assert 3 * 0.2 <= elapsed <= t.max_wait() + 2.0  # 2 s of slack for a loaded machine
    lines = [r.getMessage() for r in caplog.records]
    assert [line.split(" (")[0] for line in lines] == [f"things: attempt {a}/3 failed" for a in (1, 2)]
    assert all("(no answer within 0.2 s); retrying in 0." in line for line in lines)
    assert t.stats.errors == {"timeout": 3}


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        (None, None),
        ("", None),
        ("2.5", 2.5),
        ("-3", 0.0),
        ("soon", None),
        ("Mon, 01 Jan 2001 00:00:00 GMT", 0.0),
    ],
)
def test_retry_after_header_values(value, seconds):
    """Delta-seconds are read as a float (never negative); an HTTP date in the past is 0; anything
    else is no hint."""
    assert transport._retry_after(value) == seconds


def test_retry_after_as_a_future_http_date():
    """An HTTP date 100 s ahead is read as about 100 s."""
    when = email.utils.formatdate(time.time() + 100, usegmt=True)
    assert 95 < transport._retry_after(when) <= 100


def test_a_timeout_is_retried_and_named():
    """No answer within the timeout is a retryable "timeout" and the error says so."""

    def slow(n, path, h, body):
        time.sleep(0.3)
        return 200, {"late": True}, []

    with ScriptedServer(slow) as srv:
        t = _transport(srv.base_url, timeout=0.05, max_retries=1)
        with pytest.raises(LLMError, match=r"gave up after 2 attempts; last error: no answer within 0.05 s"):
            t.post({}, _parse)
    assert t.stats.errors == {"timeout": 2}


def test_a_refused_connection_is_retried_and_named():
    """The error names the socket's own reason, not urllib's wrapper around it."""
    t = _transport("http://127.0.0.1:9/v1", max_retries=1)
    with pytest.raises(LLMError, match=r"last error: connection failed: \[Errno \d+\] Connection refused$"):
        t.post({}, _parse)
    assert t.stats.errors == {"connection": 2} and t.stats.requests == 2


class _Misbehaving(LocalServer):
    """Reads the request, then either hangs up without a word or sends a 503 whose body is cut short."""

    poll_interval = 0.05

    def __init__(self, how):
        self.how = how
        self.start()

    def _handle(self, h):
        h.rfile.read(int(h.headers.get("Content-Length", 0)))
        if self.how == "cut body":
            h.send_response(503)
            h.send_header("Content-Length", "100")
            h.end_headers()
            h.wfile.write(b"short")
        h.close_connection = True


def test_a_server_that_hangs_up_is_a_retried_connection_failure():
    with _Misbehaving("hang up") as srv:
        t = _transport(srv.base_url, max_retries=1)
        with pytest.raises(
            LLMError, match=r"last error: connection failed: Remote end closed connection without response$"
        ):
            t.post({}, _parse)
    assert t.stats.errors == {"connection": 2}


def test_an_error_status_whose_body_is_cut_short_is_still_named():
    """The status is what counts: a 503 whose body breaks off is retried, and named without a body."""
    with _Misbehaving("cut body") as srv:
        t = _transport(srv.base_url, max_retries=1)
        with pytest.raises(LLMError, match=r"last error: HTTP 503: $"):
            t.post({}, _parse)
    assert t.stats.errors == {"http 503": 2}


def test_a_connect_timeout_is_named_as_a_timeout(monkeypatch):
    """urllib reports a connect timeout as a URLError around TimeoutError: a "timeout", not a
    "connection" failure."""
    import urllib.error
    import urllib.request

    def no_connection(*args, **kw):
        raise urllib.error.URLError(TimeoutError("timed out"))

    monkeypatch.setattr(urllib.request, "urlopen", no_connection)
    t = _transport("http://127.0.0.1:9/v1", max_retries=1, timeout=0.5)
    with pytest.raises(LLMError, match=r"gave up after 2 attempts; last error: no connection within 0.5 s$"):
        t.post({}, _parse)
    assert t.stats.errors == {"timeout": 2}


def test_an_error_body_is_shown_as_text_up_to_200_bytes():
    """A body that is not UTF-8 still gives a readable message (undecodable bytes replaced), and a
    long one is cut at 200 bytes."""
    with ScriptedServer(lambda n, p, h, b: (404, b"\xffno such model", [])) as srv:
        with pytest.raises(LLMFatalError, match="\\(HTTP 404: \ufffdno such model\\)$"):
            _transport(srv.base_url).post({}, _parse)
    with ScriptedServer(lambda n, p, h, b: (404, b"a" * 199 + b"bc", [])) as srv:
        with pytest.raises(LLMFatalError, match=r"\(HTTP 404: a{199}b\)$"):
            _transport(srv.base_url).post({}, _parse)


def test_an_unusable_body_is_retried_then_reported_with_the_parsers_reason():
    with ScriptedServer(lambda n, p, h, b: (200, b"<html>", [])) as srv:
        t = _transport(srv.base_url, max_retries=1)
        with pytest.raises(LLMError, match=r"gave up after 2 attempts; last error: not JSON: b'<html>'$"):
            t.post({}, _parse)
    assert t.stats.errors == {"bad body": 2} and t.stats.succeeded == 0


def test_the_key_and_json_headers_are_sent():
    with ScriptedServer(_statuses()) as srv:
        _transport(srv.base_url, api_key="sk-1").post({"a": "Łódź"}, _parse)
        _transport(srv.base_url).post({}, _parse)
    keyed, bare = srv.log
    assert keyed["headers"]["Authorization"] == "Bearer sk-1" and "Authorization" not in bare["headers"]
    assert keyed["headers"]["Content-Type"] == keyed["headers"]["Accept"] == "application/json"
    assert keyed["body"] == {"a": "Łódź"}


def test_the_defaults_and_replace():
    """Defaults: 60 s timeout, 6 retries, 1 s backoff capped at 60 s; ``replace`` keeps every other
    setting (the key too) and starts fresh counters; an unknown setting is named."""
    t = Transport("http://h/v1/x", api_key="sk")
    assert (t.name, t.timeout, t.max_retries, t.backoff, t.max_backoff) == ("endpoint", 60.0, 6, 1.0, 60.0)
    assert t.stats == UsageStats() and repr(t) == "Transport(url='http://h/v1/x', name='endpoint')"
    t.stats.requests = 5
    r = t.replace(timeout=2.0, url="https://g/v1/x")
    assert (r.url, r.timeout, r._api_key, r.max_retries) == ("https://g/v1/x", 2.0, "sk", 6)
    assert r.stats.requests == 0 and t.timeout == 60.0
    with pytest.raises(InvalidValueError, match=r"^cannot replace \['retries'\]: the settings are \["):
        t.replace(retries=3)
    with pytest.raises(InvalidValueError, match=r"^timeout must be in \(0.0, 3600.0\], got 0.0"):
        t.replace(timeout=0.0)


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"url": "ftp://h/v1"}, r"^url must be an http\(s\) URL, got 'ftp://h/v1'"),
        ({"url": 3}, r"^url must be an http\(s\) URL, got 3"),
        ({"timeout": 0.0}, r"^timeout must be in \(0.0, 3600.0\], got 0.0"),
        ({"timeout": 3601.0}, r"^timeout must be in \(0.0, 3600.0\], got 3601.0"),
        ({"max_retries": -1}, r"^max_retries must be in \[0, inf\], got -1"),
        ({"backoff": -1.0}, r"^backoff must be in \[0.0, 3600.0\], got -1.0"),
        ({"backoff": 3601.0}, r"^backoff must be in \[0.0, 3600.0\], got 3601.0"),
        ({"max_backoff": -1.0}, r"^max_backoff must be in \[0.0, 3600.0\], got -1.0"),
        ({"max_backoff": 3601.0}, r"^max_backoff must be in \[0.0, 3600.0\], got 3601.0"),
    ],
)
def test_bad_settings_are_refused_by_name(kw, message):
    args = {"url": "http://h/v1", **kw}
    with pytest.raises(InvalidValueError, match=message):
        Transport(args.pop("url"), **args)


def test_settings_of_the_wrong_type_are_refused_by_type():
    with pytest.raises(InvalidTypeError, match="^api_key must be a string or None, got int"):
        Transport("http://h/v1", api_key=123)
    with pytest.raises(InvalidTypeError, match="^name must be a string, got NoneType"):
        Transport("http://h/v1", name=None)
