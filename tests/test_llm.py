"""The chat client against scripted servers on 127.0.0.1.

Which statuses are retried and which stop at once, what is counted, how long it waits, what it
sends, and the errors that name what went wrong.
"""

import email.utils
import json
import time

import pytest
from scripted_server import LocalServer, ScriptedServer

from pathfinding.errors import InvalidTypeError, InvalidValueError, LLMError, LLMFatalError
from pathfinding.hipporag.extract import llm
from pathfinding.hipporag.extract.llm import ChatClient, UsageStats

USER = [{"role": "user", "content": "hi"}]


def _completion(content, usage=None, finish_reason="stop"):
    out = {
        "choices": [{"message": {"role": "assistant", "content": content}, "finish_reason": finish_reason}]
    }
    if usage is not None:
        out["usage"] = usage
    return out


def _client(url, **kw):
    kw = {"backoff": 0.0, "max_backoff": 0.05, "max_retries": 3, "timeout": 5.0, "rng": 0, **kw}
    return ChatClient(url, "m", **kw)


def _statuses(*statuses, final=None, headers=()):
    """Answer request n with statuses[n], then 200 with ``final`` (a completion of "ok")."""

    def answer(n, path, hdrs, body):
        if n < len(statuses):
            return statuses[n], {"error": {"message": f"status {statuses[n]}"}}, list(headers)
        return 200, final if final is not None else _completion("ok", {"prompt_tokens": 3}), []

    return answer


@pytest.mark.parametrize("status", [408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524, 529, 501, 599])
def test_transient_statuses_are_retried(status):
    """Every status of the retry list, and any other 5xx, is tried again; the call then succeeds and
    the counters show one retry, two requests and the error kind."""
    with ScriptedServer(_statuses(status)) as srv:
        client = _client(srv.base_url)
        assert client.chat(USER).content == "ok"
    s = client.stats
    assert (s.requests, s.retries, s.succeeded, s.failed) == (2, 1, 1, 0)
    assert s.errors == {f"http {status}": 1} and s.prompt_tokens == 3 and len(s.waits) == 1


@pytest.mark.parametrize("status", [400, 401, 403, 404, 410, 422, 499, 302, 600])
def test_other_statuses_stop_at_once_and_name_the_status(status):
    """A status outside the retry list and not a 5xx is fatal: one request, no wait, and the error
    names the URL, the status and the body."""
    with ScriptedServer(_statuses(status, status)) as srv:
        client = _client(srv.base_url)
        with pytest.raises(
            LLMFatalError, match=rf"/v1/chat/completions refused the request \(HTTP {status}: "
        ):
            client.chat(USER)
        assert len(srv.log) == 1
    s = client.stats
    assert (s.requests, s.retries, s.failed, s.succeeded) == (1, 0, 1, 0) and s.waits == []
    assert s.errors == {f"http {status}": 1}


def test_retries_are_bounded_and_the_error_says_what_failed_last():
    """max_retries=2 means 3 attempts; the error names the URL, the attempts and the last status and
    body, and every wait but the last attempt's is slept."""
    with ScriptedServer(_statuses(503, 503, 502, 500)) as srv:
        client = _client(srv.base_url, max_retries=2)
        with pytest.raises(
            LLMError, match=r"chat/completions: gave up after 3 attempts; last error: HTTP 502: .*status 502"
        ):
            client.chat(USER)
        assert len(srv.log) == 3
    s = client.stats
    assert (s.requests, s.retries, s.failed, s.succeeded) == (3, 2, 1, 0)
    assert s.errors == {"http 503": 2, "http 502": 1} and len(s.waits) == 2


def test_no_retries_means_one_attempt():
    with ScriptedServer(_statuses(503)) as srv:
        client = _client(srv.base_url, max_retries=0)
        with pytest.raises(LLMError, match="gave up after 1 attempts"):
            client.chat(USER)
        assert len(srv.log) == 1 and client.stats.waits == []


def test_retry_after_is_honoured_and_capped():
    """``Retry-After: 0.02`` is waited as given; one of 30 s is capped at max_backoff (0.05)."""
    with ScriptedServer(_statuses(429, headers=[("Retry-After", "0.02")])) as srv:
        client = _client(srv.base_url, backoff=1.0)
        client.chat(USER)
    assert client.stats.waits == [0.02]
    with ScriptedServer(_statuses(429, headers=[("Retry-After", "30")])) as srv:
        client = _client(srv.base_url, backoff=1.0)
        client.chat(USER)
    assert client.stats.waits == [0.05]


def test_the_jitter_repeats_for_a_seed():
    """``rng`` seeds the jitter: the same seed gives the same waits, another seed other waits."""

    def waits(rng):
        client = ChatClient("http://h/v1", "m", backoff=0.01, rng=rng)
        return [client._delay(attempt, None) for attempt in range(5)]

    assert waits(7) == waits(7) and waits(7) != waits(8)


def test_backoff_doubles_with_jitter_and_is_capped():
    """Waits are backoff * 2**attempt * a factor in [1, 2), each capped by max_backoff."""
    client = ChatClient("http://h/v1", "m", backoff=0.5, max_backoff=3.0, rng=1)
    for attempt in range(4):
        d = client._delay(attempt, None)
        assert 0.5 * 2**attempt <= d < 0.5 * 2 ** (attempt + 1) or d == 3.0
    assert client._delay(5, None) == 3.0
    assert client._delay(0, 1.5) == 1.5 and client._delay(0, 7.0) == 3.0


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
    assert llm._retry_after(value) == seconds


def test_retry_after_as_a_future_http_date():
    """An HTTP date 100 s ahead is read as about 100 s."""
    when = email.utils.formatdate(time.time() + 100, usegmt=True)
    assert 95 < llm._retry_after(when) <= 100


def test_a_timeout_is_retried_and_named():
    """No answer within the client's timeout is a retryable "timeout" and the error says so."""

    def slow(n, path, h, body):
        time.sleep(0.3)
        return 200, _completion("late"), []

    with ScriptedServer(slow) as srv:
        client = _client(srv.base_url, timeout=0.05, max_retries=1)
        with pytest.raises(LLMError, match=r"gave up after 2 attempts; last error: no answer within 0.05 s"):
            client.chat(USER)
    assert client.stats.errors == {"timeout": 2}


def test_a_refused_connection_is_retried_and_named():
    """The error names the socket's own reason, not urllib's wrapper around it."""
    client = _client("http://127.0.0.1:9/v1", max_retries=1)
    with pytest.raises(LLMError, match=r"last error: connection failed: \[Errno \d+\] Connection refused$"):
        client.chat(USER)
    assert client.stats.errors == {"connection": 2} and client.stats.requests == 2


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
        client = _client(srv.base_url, max_retries=1)
        with pytest.raises(
            LLMError, match=r"last error: connection failed: Remote end closed connection without response$"
        ):
            client.chat(USER)
    assert client.stats.errors == {"connection": 2}


def test_an_error_status_whose_body_is_cut_short_is_still_named():
    """The status is what counts: a 503 whose body breaks off is retried, and named without a body."""
    with _Misbehaving("cut body") as srv:
        client = _client(srv.base_url, max_retries=1)
        with pytest.raises(LLMError, match=r"last error: HTTP 503: $"):
            client.chat(USER)
    assert client.stats.errors == {"http 503": 2}


def test_a_connect_timeout_is_named_as_a_timeout(monkeypatch):
    """urllib reports a connect timeout as a URLError around TimeoutError: a "timeout", not a
    "connection" failure."""
    import urllib.error
    import urllib.request

    def no_connection(*args, **kw):
        raise urllib.error.URLError(TimeoutError("timed out"))

    monkeypatch.setattr(urllib.request, "urlopen", no_connection)
    client = _client("http://127.0.0.1:9/v1", max_retries=1, timeout=0.5)
    with pytest.raises(LLMError, match=r"gave up after 2 attempts; last error: no connection within 0.5 s$"):
        client.chat(USER)
    assert client.stats.errors == {"timeout": 2}


def test_an_error_body_is_shown_as_text_up_to_200_bytes():
    """A body that is not UTF-8 still gives a readable message (undecodable bytes replaced), and a
    long one is cut at 200 bytes."""
    with ScriptedServer(lambda n, p, h, b: (404, b"\xffno such model", [])) as srv:
        with pytest.raises(LLMFatalError, match="\\(HTTP 404: \ufffdno such model\\)$"):
            _client(srv.base_url).chat(USER)
    with ScriptedServer(lambda n, p, h, b: (404, b"a" * 199 + b"bc", [])) as srv:
        with pytest.raises(LLMFatalError, match=r"\(HTTP 404: a{199}b\)$"):
            _client(srv.base_url).chat(USER)


def test_an_unusable_completion_is_quoted_up_to_200_characters():
    with ScriptedServer(lambda n, p, h, b: (200, b"x" * 300, [])) as srv:
        with pytest.raises(LLMError, match=r"not a chat completion: b'x{200}'$"):
            _client(srv.base_url, max_retries=0).chat(USER)
    content = {"choices": [{"message": {"content": list(range(100))}}]}
    with ScriptedServer(lambda n, p, h, b: (200, content, [])) as srv:
        with pytest.raises(LLMError) as err:
            _client(srv.base_url, max_retries=0).chat(USER)
    last = str(err.value).split("last error: ")[1]
    assert last.startswith("200 with non-string content: [0, 1, 2, ") and len(last) == 200


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        (b"not json", "200 with a body that is not a chat completion: b'not json'"),
        (json.dumps({"choices": []}).encode(), "200 with a body that is not a chat completion"),
        (
            json.dumps({"choices": [{"message": {}}]}).encode(),
            "200 with a body that is not a chat completion",
        ),
        (
            json.dumps({"choices": [{"message": {"content": None}}]}).encode(),
            "200 with non-string content: None",
        ),
    ],
)
def test_an_unusable_completion_is_retried_then_reported(raw, why):
    with ScriptedServer(lambda n, p, h, b: (200, raw, [])) as srv:
        client = _client(srv.base_url, max_retries=1)
        with pytest.raises(
            LLMError, match="gave up after 2 attempts; last error: " + why.replace("(", r"\(")
        ):
            client.chat(USER)
    assert client.stats.errors == {"bad body": 2}


def test_usage_tokens_are_read_and_summed():
    """Integer (or float) token counts are kept, anything else is 0; prompt and completion tokens are
    summed over calls; the finish reason is passed on."""
    answers = [
        _completion("a", {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}, "length"),
        _completion("b", {"prompt_tokens": 4.0, "completion_tokens": True, "total_tokens": "x"}),
        {"choices": [{"message": {"content": "c"}}], "usage": "none"},
    ]
    with ScriptedServer(lambda n, p, h, b: (200, answers[n], [])) as srv:
        client = _client(srv.base_url)
        first, second, third = client.chat(USER), client.chat(USER), client.chat(USER)
    assert first.usage == {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}
    assert first.finish_reason == "length" and first.content == "a"
    assert second.usage == {"prompt_tokens": 4, "completion_tokens": 0, "total_tokens": 0}
    assert third.usage == {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
    assert third.finish_reason is None
    assert client.stats.prompt_tokens == 9 and client.stats.completion_tokens == 2
    assert client.stats.to_dict() == {
        "requests": 3,
        "succeeded": 3,
        "retries": 0,
        "failed": 0,
        "prompt_tokens": 9,
        "completion_tokens": 2,
        "errors": {},
    }


def test_what_the_client_sends():
    """The body holds model, messages, temperature, max_tokens when set and response_format in JSON
    mode; the headers carry JSON content types and the key as a bearer token only when given."""
    with ScriptedServer(lambda n, p, h, b: (200, _completion("ok"), [])) as srv:
        keyed = ChatClient(srv.base_url + "/", "gpt-x", api_key="sk-1", temperature=0.5, max_tokens=9)
        keyed.chat(USER, json_mode=True)
        ChatClient(srv.base_url, "gpt-x").chat(USER)
    first, second = srv.log
    assert first["path"] == second["path"] == "/v1/chat/completions"
    assert first["body"] == {
        "model": "gpt-x",
        "messages": USER,
        "temperature": 0.5,
        "max_tokens": 9,
        "response_format": {"type": "json_object"},
    }
    assert second["body"] == {"model": "gpt-x", "messages": USER, "temperature": 0.0}
    assert keyed.payload(USER) == {"model": "gpt-x", "messages": USER, "temperature": 0.5, "max_tokens": 9}
    assert first["headers"]["Authorization"] == "Bearer sk-1"
    assert first["headers"]["Content-Type"] == "application/json"
    assert first["headers"]["Accept"] == "application/json"
    assert "Authorization" not in second["headers"]


def test_the_client_defaults():
    """Defaults: temperature 0, no token cap, 120 s timeout, 6 retries, 1 s backoff capped at 60 s."""
    c = ChatClient("http://h/v1", "m")
    assert (c.temperature, c.max_tokens, c.timeout, c.max_retries, c.backoff, c.max_backoff) == (
        0.0,
        None,
        120.0,
        6,
        1.0,
        60.0,
    )
    assert repr(c) == "ChatClient(url='http://h/v1/chat/completions', model='m')"
    assert c.stats == UsageStats()


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"base_url": "ftp://h/v1"}, r"^base_url must be an http\(s\) URL, got 'ftp://h/v1'"),
        ({"base_url": 3}, r"^base_url must be an http\(s\) URL, got 3"),
        ({"model": ""}, r"^model must be a non-empty string, got ''"),
        ({"model": None}, r"^model must be a non-empty string, got None"),
        ({"temperature": -0.1}, r"^temperature must be in \[0.0, 2.0\], got -0.1"),
        ({"temperature": 2.5}, r"^temperature must be in \[0.0, 2.0\], got 2.5"),
        ({"max_tokens": 0}, r"^max_tokens must be in \[1, inf\], got 0"),
        ({"timeout": 0.0}, r"^timeout must be in \(0.0, 3600.0\], got 0.0"),
        ({"timeout": 3601.0}, r"^timeout must be in \(0.0, 3600.0\], got 3601.0"),
        ({"max_retries": -1}, r"^max_retries must be in \[0, inf\], got -1"),
        ({"backoff": -1.0}, r"^backoff must be in \[0.0, 3600.0\], got -1.0"),
        ({"backoff": 3601.0}, r"^backoff must be in \[0.0, 3600.0\], got 3601.0"),
        ({"max_backoff": -1.0}, r"^max_backoff must be in \[0.0, 3600.0\], got -1.0"),
        ({"max_backoff": 3601.0}, r"^max_backoff must be in \[0.0, 3600.0\], got 3601.0"),
    ],
)
def test_client_settings_are_checked_by_name(kw, message):
    """Each setting's error names the setting, the range expected and the value given."""
    args = {"base_url": "http://h/v1", "model": "m", **kw}
    with pytest.raises(InvalidValueError, match=message):
        ChatClient(args.pop("base_url"), args.pop("model"), **args)


def test_client_settings_at_their_limits_are_accepted():
    c = ChatClient(
        "https://h/v1",
        "m",
        temperature=2.0,
        max_tokens=1,
        timeout=3600.0,
        max_retries=0,
        backoff=3600.0,
        max_backoff=0.0,
    )
    assert (c.temperature, c.max_tokens, c.timeout, c.max_retries, c.backoff, c.max_backoff) == (
        2.0,
        1,
        3600.0,
        0,
        3600.0,
        0.0,
    )
    assert ChatClient("http://h/v1", "m", temperature=0.0, backoff=0.0).backoff == 0.0


def test_a_key_that_is_not_a_string_is_refused_by_type():
    with pytest.raises(InvalidTypeError, match="^api_key must be a string or None, got int"):
        ChatClient("http://h/v1", "m", api_key=123)


@pytest.mark.parametrize("messages", ["hi", [{"role": "user"}], [{"role": "user", "content": 1}], ["hi"]])
def test_messages_must_be_dicts_with_string_content(messages):
    with pytest.raises(
        InvalidTypeError, match=r"^messages must be a list of \{'role': \.\.\., 'content': str\} dicts$"
    ):
        ChatClient("http://127.0.0.1:9/v1", "m", max_retries=0).chat(messages)  # fails fast if sent
