"""The chat client and the two-step OpenIE around it, against scripted servers on 127.0.0.1.

The client: which statuses are retried and which stop at once, what is counted, how long it waits,
what it sends, and the errors that name what went wrong. OpenIE: the prompts, the response cache's
key, what a run records per passage and for the whole corpus, and the query-entity extractor.
"""

import email.utils
import gzip
import hashlib
import json
import os
import sys
import time
from collections import Counter

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from scripted_server import LocalServer, ScriptedServer  # noqa: E402

from pathfinding.errors import InvalidTypeError, InvalidValueError  # noqa: E402
from pathfinding.hipporag.extract import llm  # noqa: E402
from pathfinding.hipporag.extract.llm import ChatClient, LLMError, LLMFatalError, UsageStats  # noqa: E402
from pathfinding.hipporag.extract.openie import (  # noqa: E402
    NER_SYSTEM,
    QUERY_NER_SYSTEM,
    TRIPLE_SYSTEM,
    OpenIERun,
    ResponseCache,
    llm_query_ner,
    ner_messages,
    query_ner_messages,
    run_openie,
    triple_messages,
    write_openie,
)
from pathfinding.hipporag.io import Passage  # noqa: E402

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


# --- the client -----------------------------------------------------------------------------------


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


# --- prompts and the response cache ----------------------------------------------------------------


def test_the_prompts_carry_the_passage_and_the_entities():
    """NER asks with the passage under "Passage:"; the triple step adds the step-one entities as a
    JSON list (non-ASCII kept as written); both show one worked example first."""
    ner = ner_messages("Łódź\nŁódź is a city.")
    assert [m["role"] for m in ner] == ["system", "user", "assistant", "user"]
    assert ner[0]["content"] == NER_SYSTEM and ner[-1]["content"] == "Passage:\nŁódź\nŁódź is a city."
    assert ner[1]["content"].startswith("Passage:\nLake Bled\n")
    assert json.loads(ner[2]["content"])["named_entities"][0] == "Lake Bled"
    tri = triple_messages("Łódź\nŁódź is a city.", ["Łódź"])
    assert [m["role"] for m in tri] == ["system", "user", "assistant", "user"]
    assert tri[0]["content"] == TRIPLE_SYSTEM
    assert tri[-1]["content"] == 'Passage:\nŁódź\nŁódź is a city.\n\nNamed entities: ["Łódź"]'
    assert (
        tri[1]["content"].startswith("Passage:\nLake Bled\n") and "\n\nNamed entities: [" in tri[1]["content"]
    )
    assert json.loads(tri[2]["content"])["triples"][0] == ["Lake Bled", "is a lake in", "Julian Alps"]
    q = query_ner_messages("Where is Bled?")
    assert [m["role"] for m in q] == ["system", "user", "assistant", "user"]
    assert q[0]["content"] == QUERY_NER_SYSTEM and q[-1]["content"] == "Question: Where is Bled?"
    assert q[1]["content"].startswith("Question: ") and json.loads(q[2]["content"]) == {
        "named_entities": ["Lake Bled"]
    }


def test_the_cache_key_is_the_sha256_of_the_canonical_request(tmp_path):
    """The key is SHA-256 of the body as sorted, compact, UTF-8 JSON, so key order does not matter
    and any change of model or prompt does."""
    body = {"model": "m", "messages": [{"role": "user", "content": "Łódź"}]}
    canon = '{"messages":[{"content":"Łódź","role":"user"}],"model":"m"}'
    assert ResponseCache.key(body) == hashlib.sha256(canon.encode("utf-8")).hexdigest()
    assert ResponseCache.key(dict(reversed(list(body.items())))) == ResponseCache.key(body)


def test_the_cache_keeps_answers_across_opens_and_replaces_by_request(tmp_path):
    path = tmp_path / "c.sqlite"
    cache = ResponseCache(path)
    body = {"model": "m1", "messages": USER}
    cache.put(body, "first", {"prompt_tokens": 1}, "stop")
    cache.put(body, "second", {"prompt_tokens": 2}, "length")
    cache.put({"model": "m2", "messages": USER}, "other", {}, None)
    assert len(cache) == 2
    cache.close()
    again = ResponseCache(path)
    hit = again.get(body)
    assert (hit.content, hit.usage, hit.finish_reason) == ("second", {"prompt_tokens": 2}, "length")
    assert again.get({"model": "m3", "messages": USER}) is None
    assert again._db.execute("SELECT model FROM responses ORDER BY model").fetchall() == [("m1",), ("m2",)]
    again.close()


def test_a_file_that_is_not_a_cache_is_named(tmp_path):
    bad = tmp_path / "c.sqlite"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(InvalidValueError, match=f"^{bad} is not a usable response cache"):
        ResponseCache(bad)


# --- the two-step run --------------------------------------------------------------------------


def _openie_server(entities, triples, *, finish=("stop", "stop"), fail=()):
    """NER answers ``entities[passage]``; triple requests answer ``triples[passage]`` (raw strings
    or objects); a passage in ``fail`` gets 503 on every request."""

    def answer(n, path, h, body):
        system, last = body["messages"][0]["content"], body["messages"][-1]["content"]
        passage = last.split("\n\nNamed entities:")[0].removeprefix("Passage:\n")
        if passage in fail:
            return 503, {"error": "down"}, []
        if system == TRIPLE_SYSTEM:
            t = triples[passage]
            return (
                200,
                _completion(t if isinstance(t, str) else json.dumps({"triples": t}), finish_reason=finish[1]),
                [],
            )
        e = entities[passage]
        content = e if isinstance(e, str) else json.dumps({"named_entities": e})
        return 200, _completion(content, {"prompt_tokens": 2, "completion_tokens": 1}, finish[0]), []

    return answer


A = Passage("Ed Wood", "Ed Wood directed Plan 9.")
B = Passage("Plan 9", "Plan 9 was released in 1957.")


def _keys(p):
    return p.title + "\n" + p.text


def test_a_run_records_each_passage_and_what_was_repaired(tmp_path):
    """Passage A gets its entities and triples; B's answer has a two-item triple, which is rejected
    and counted for B alone; B's NER answer was cut off (finish_reason "length")."""
    ents = {_keys(A): ["Ed Wood", "Plan 9"], _keys(B): ["Plan 9", "1957"]}
    tris = {
        _keys(A): [["Ed Wood", "directed", "Plan 9"]],
        _keys(B): [["Plan 9", "released in", "1957"], ["x", "y"]],
    }
    answer = _openie_server(ents, tris)

    def cut_b(n, path, h, body):
        status, payload, hdr = answer(n, path, h, body)
        if body["messages"][0]["content"] == NER_SYSTEM and _keys(B) in body["messages"][-1]["content"]:
            payload["choices"][0]["finish_reason"] = "length"
        return status, payload, hdr

    with ScriptedServer(cut_b) as srv:
        run = run_openie([A, B], _client(srv.base_url), concurrency=1, progress=False)
        # the triple request carries the entities the NER step returned for that passage
        asked = [
            e["body"]["messages"][-1]["content"]
            for e in srv.log
            if e["body"]["messages"][0]["content"] == TRIPLE_SYSTEM
        ]
        assert sorted(asked) == [
            "Passage:\n" + _keys(A) + '\n\nNamed entities: ["Ed Wood", "Plan 9"]',
            "Passage:\n" + _keys(B) + '\n\nNamed entities: ["Plan 9", "1957"]',
        ]
    a, b = run.docs
    assert a == {
        "title": "Ed Wood",
        "text": "Ed Wood directed Plan 9.",
        "passage": _keys(A),
        "extracted_entities": ["Ed Wood", "Plan 9"],
        "extracted_triples": [["Ed Wood", "directed", "Plan 9"]],
        "openie_issues": {},
    }
    assert b["extracted_triples"] == [["Plan 9", "released in", "1957"]]
    assert b["openie_issues"] == {"ner_truncated_by_length": 1, "triple_not_three": 1}
    assert b["openie_rejected"] == [["triples", ["x", "y"]]]
    assert run.issues == Counter({"ner_truncated_by_length": 1, "triple_not_three": 1})
    assert run.complete and run.failed == {}
    assert run.stats["passages"] == 2 and run.stats["cache_hits"] == 0 and run.stats["requests"] == 4
    assert run.stats["prompt_tokens"] == 4 and run.stats["completion_tokens"] == 2


def test_a_passage_without_triples_and_a_cut_off_triple_answer_are_counted():
    ents = {_keys(A): ["Ed Wood"]}
    tris = {_keys(A): []}
    with ScriptedServer(_openie_server(ents, tris, finish=("stop", "length"))) as srv:
        run = run_openie([A], _client(srv.base_url), progress=False)
    assert run.docs[0]["openie_issues"] == {"passage_no_triples": 1, "truncated_by_length": 1}
    assert "openie_rejected" not in run.docs[0]


def test_unparsable_entities_are_counted_with_the_ner_prefix():
    """A NER answer that is not the asked-for JSON is repaired or rejected by the parser; whatever
    the parser counts is reported under ``ner_`` so it is not confused with the triple step."""
    ents = {_keys(A): '{"named_entities": ["Ed Wood", null]}'}
    tris = {_keys(A): [["Ed Wood", "directed", "Plan 9"]]}
    with ScriptedServer(_openie_server(ents, tris)) as srv:
        run = run_openie([A], _client(srv.base_url), progress=False)
    issues = run.docs[0]["openie_issues"]
    assert issues and all(k.startswith("ner_") for k in issues)
    assert run.docs[0]["extracted_entities"] == ["Ed Wood"]
    assert run.docs[0]["openie_rejected"] == [["named_entities", None]]


def test_a_failed_passage_is_listed_with_empty_lists_and_a_rerun_asks_only_for_it(tmp_path):
    """B's requests fail: it gets empty lists, ``request_failed``, and its reason in ``failed``; the
    rerun with the same cache sends only B's two requests and counts A's two as cache hits."""
    ents = {_keys(A): ["Ed Wood"], _keys(B): ["1957"]}
    tris = {_keys(A): [["Ed Wood", "directed", "Plan 9"]], _keys(B): [["Plan 9", "released in", "1957"]]}
    cache = tmp_path / "c.sqlite"
    with ScriptedServer(_openie_server(ents, tris, fail={_keys(B)})) as srv:
        run = run_openie([A, B], _client(srv.base_url, max_retries=0), cache=cache, progress=False)
    assert not run.complete and list(run.failed) == [1] and "gave up after 1 attempts" in run.failed[1]
    assert run.docs[1] == {
        "title": "Plan 9",
        "text": "Plan 9 was released in 1957.",
        "passage": _keys(B),
        "extracted_entities": [],
        "extracted_triples": [],
        "openie_issues": {"request_failed": 1},
    }
    assert run.issues["request_failed"] == 1
    text = run.summary()
    assert text.splitlines()[0] == "1 of 2 passages extracted, 1 triples"
    assert "1 passages failed (e.g. [1])" in text and "errors: http 503: 1" in text
    with ScriptedServer(_openie_server(ents, tris)) as srv:
        again = run_openie([A, B], _client(srv.base_url), cache=str(cache), progress=False)
        assert len(srv.log) == 2
    assert again.complete and again.stats["cache_hits"] == 2
    assert again.docs[0] == run.docs[0] and again.docs[1]["extracted_triples"] == [
        ["Plan 9", "released in", "1957"]
    ]
    assert "2 answered from the cache" in again.summary()


def test_a_fatal_refusal_is_raised_and_keeps_the_cache_usable(tmp_path):
    with ScriptedServer(lambda n, p, h, b: (401, {"error": "bad key"}, [])) as srv:
        with pytest.raises(LLMFatalError, match="HTTP 401"):
            run_openie(
                [A, B], _client(srv.base_url), cache=tmp_path / "c.sqlite", concurrency=1, progress=False
            )
        assert len(srv.log) == 1
    assert len(ResponseCache(tmp_path / "c.sqlite")) == 0


def test_run_openie_checks_its_arguments():
    client = ChatClient("http://h/v1", "m")
    with pytest.raises(InvalidTypeError, match="corpus must be a sequence of Passage"):
        run_openie("text", client)
    with pytest.raises(InvalidTypeError, match="^client must be a ChatClient, got str"):
        run_openie([A], "http://h/v1")
    with pytest.raises(InvalidValueError, match=r"^concurrency must be in \[1, inf\], got 0"):
        run_openie([A], client, concurrency=0)


def test_the_written_file_is_v1_openie_with_entity_averages(tmp_path):
    """Entities "Ed Wood" (7 chars, 2 words) and "Plan 9" (6, 2) and "1957" (4, 1): averages 17/3
    chars and 5/3 words, rounded to 4 places; a ``.gz`` path is gzip-compressed (byte-stable), no
    ``.tmp`` file is left behind, and text stays readable UTF-8."""
    docs = [
        {"extracted_entities": ["Ed Wood", "Plan 9"], "extracted_triples": [["a", "b", "c"]]},
        {"extracted_entities": ["1957"], "extracted_triples": []},
    ]
    run = OpenIERun(
        docs=docs, failed={3: "x", 1: "y"}, issues=Counter({"b": 1, "a": 2}), stats={"requests": 5}
    )
    out = run.to_json()
    assert out["avg_ent_chars"] == 5.6667 and out["avg_ent_words"] == 1.6667
    assert out["openie_run"] == {
        "failed_passages": {"1": "y", "3": "x"},
        "issues": {"a": 2, "b": 1},
        "stats": {"requests": 5},
    }
    assert list(out["openie_run"]["failed_passages"]) == ["1", "3"] and list(out["openie_run"]["issues"]) == [
        "a",
        "b",
    ]
    write_openie(run, tmp_path / "o.json.gz")
    assert json.loads(gzip.decompress((tmp_path / "o.json.gz").read_bytes())) == out
    write_openie(run, tmp_path / "o.json")
    assert json.loads((tmp_path / "o.json").read_text()) == out
    assert sorted(os.listdir(tmp_path)) == ["o.json", "o.json.gz"]
    # byte-stable: the gzip header's modification time is 0, not the time of writing
    assert (tmp_path / "o.json.gz").read_bytes()[4:8] == b"\0\0\0\0"
    # non-ASCII entities are written as UTF-8 text, not as \\u escapes
    lodz = OpenIERun(
        docs=[{"extracted_entities": ["Łódź"], "extracted_triples": []}], failed={}, issues=Counter()
    )
    write_openie(lodz, tmp_path / "l.json")
    assert '"Łódź"' in (tmp_path / "l.json").read_text(encoding="utf-8")
    empty = OpenIERun(docs=[], failed={}, issues=Counter()).to_json()
    assert empty["avg_ent_chars"] == 0 and empty["avg_ent_words"] == 0
    one = OpenIERun(docs=[{"extracted_entities": ["Lake Bled"]}], failed={}, issues=Counter()).to_json()
    assert one["avg_ent_chars"] == 9 and one["avg_ent_words"] == 2


def test_the_summary_counts_requests_tokens_and_issues():
    docs = [{"extracted_triples": [1, 2]}, {"extracted_triples": [3]}]
    stats = {
        "requests": 9,
        "retries": 2,
        "failed": 1,
        "cache_hits": 4,
        "prompt_tokens": 30,
        "completion_tokens": 7,
    }
    errors = {"timeout": 2, "http 503": 1}
    run = OpenIERun(docs=docs, failed={}, issues=Counter({"z": 1, "a": 2}), stats={**stats, "errors": errors})
    assert run.summary().splitlines() == [
        "2 of 2 passages extracted, 3 triples",
        "requests: 9 sent (2 retries, 1 gave up), 4 answered from the cache",
        "tokens: 30 prompt + 7 completion",
        "errors: timeout: 2, http 503: 1",
        "issues: a: 2, z: 1",
    ]
    failed = {j: "down" for j in (6, 5, 4, 3, 2, 1, 0)}
    many = OpenIERun(docs=[{"extracted_triples": []}] * 8, failed=failed, issues=Counter())
    assert many.summary().splitlines()[0] == "1 of 8 passages extracted, 0 triples"
    assert many.summary().splitlines()[-1] == (
        "7 passages failed (e.g. [0, 1, 2, 3, 4]); rerun the same command to retry only these (answers "
        "already received are read from the cache)"
    )
    assert OpenIERun(docs=[], failed={}, issues=Counter()).summary().splitlines() == [
        "0 of 0 passages extracted, 0 triples",
        "requests: 0 sent (0 retries, 0 gave up), 0 answered from the cache",
        "tokens: 0 prompt + 0 completion",
    ]


# --- query NER -------------------------------------------------------------------------------------


def test_query_ner_asks_once_per_question_and_counts_what_it_sent(tmp_path):
    """Each distinct question is sent once (a repeat comes from memory, as a copy the caller may
    change); a second extractor over the same cache file sends nothing and counts no call; the
    parser's repairs are counted in ``issues``."""

    def answer(n, path, h, body):
        q = body["messages"][-1]["content"].removeprefix("Question: ")
        names = {
            "Where is Bled?": '{"named_entities": ["Bled", null]}',
            "Who built it?": '{"named_entities": []}',
        }
        return 200, _completion(names[q]), []

    cache = tmp_path / "q.sqlite"
    with ScriptedServer(answer) as srv:
        extract = llm_query_ner(_client(srv.base_url), cache=cache)
        first = extract("Where is Bled?")
        assert first == ["Bled"]
        first.append("mutated")
        assert extract("Where is Bled?") == ["Bled"] and extract("Who built it?") == []
        assert len(srv.log) == 2 and extract.calls == 2 and sum(extract.issues.values()) >= 1
        assert srv.log[0]["body"]["messages"] == query_ner_messages("Where is Bled?")
        assert "response_format" not in srv.log[0]["body"]  # JSON mode only when asked
        fresh = llm_query_ner(_client(srv.base_url), cache=str(cache))
        assert fresh("Where is Bled?") == ["Bled"] and fresh.calls == 0 and len(srv.log) == 2
        nocache = llm_query_ner(_client(srv.base_url), json_mode=True)
        assert nocache("Who built it?") == [] and nocache.calls == 1
        assert srv.log[-1]["body"]["response_format"] == {"type": "json_object"}


def test_query_ner_checks_its_arguments():
    with pytest.raises(InvalidTypeError, match="^client must be a ChatClient, got str"):
        llm_query_ner("http://h/v1")
    extract = llm_query_ner(ChatClient("http://h/v1", "m"))
    with pytest.raises(InvalidTypeError, match="^question must be a string, got int"):
        extract(3)


def test_the_abort_keeps_the_first_fatal_refusal():
    """The workers' shared abort remembers the first refusal (the one re-raised to the caller), not a
    later one, and a trip without an exception (Ctrl-C) keeps it too."""
    from pathfinding.hipporag.extract.openie import _Abort

    abort = _Abort()
    assert not abort.is_set() and abort.first is None
    first, second = LLMFatalError("401"), LLMFatalError("403")
    abort.trip(first)
    abort.trip(second)
    abort.trip()
    assert abort.is_set() and abort.first is first


def test_json_mode_reaches_both_steps_of_a_run():
    """``run_openie(json_mode=True)`` asks for a JSON object in the NER and in the triple request."""
    ents = {_keys(A): ["Ed Wood"]}
    tris = {_keys(A): [["Ed Wood", "directed", "Plan 9"]]}
    with ScriptedServer(_openie_server(ents, tris)) as srv:
        run_openie([A], _client(srv.base_url), json_mode=True, progress=False)
        plain = len(srv.log)
        run_openie([A], _client(srv.base_url), progress=False)
    assert plain == 2 and len(srv.log) == 4
    assert [e["body"].get("response_format") for e in srv.log] == [{"type": "json_object"}] * 2 + [None] * 2


def test_concurrency_bounds_the_requests_in_flight():
    """With ``concurrency=1`` the passages are extracted one at a time: the server never sees two
    requests at once, although each answer takes a moment; with 4 it does."""
    import threading

    texts = [Passage(f"P{i}", f"Passage {i}.") for i in range(4)]
    ents = {_keys(p): ["x"] for p in texts}
    tris = {_keys(p): [["x", "is", "y"]] for p in texts}
    answer = _openie_server(ents, tris)
    lock, now, peak = threading.Lock(), [0], [0]
    two_at_once = threading.Event()

    def slow(n, path, h, body):
        with lock:
            now[0] += 1
            peak[0] = max(peak[0], now[0])
            if now[0] > 1:
                two_at_once.set()
        # a request lingers until a second one arrives (or 1 s passes), so a loaded machine that
        # starts the threads slowly still shows the overlap; one at a time, each waits out the 1 s
        two_at_once.wait(0.03 if one_at_a_time is None else 1.0)
        with lock:
            now[0] -= 1
        return answer(n, path, h, body)

    one_at_a_time = None

    with ScriptedServer(slow) as srv:
        run_openie(texts, _client(srv.base_url), concurrency=1, progress=False)
        one_at_a_time = peak[0]
        peak[0] = 0
        run_openie(texts, _client(srv.base_url), concurrency=4, progress=False)
    assert one_at_a_time == 1 and peak[0] > 1


def test_the_cache_tells_json_mode_apart_and_keeps_the_usage(tmp_path):
    """A cached plain answer is not reused for a JSON-mode run (the request differs), and the cache
    keeps each answer's token counts."""
    ents = {_keys(A): ["Ed Wood"]}
    tris = {_keys(A): [["Ed Wood", "directed", "Plan 9"]]}
    cache = tmp_path / "c.sqlite"
    with ScriptedServer(_openie_server(ents, tris)) as srv:
        client = _client(srv.base_url)
        run_openie([A], client, cache=cache, progress=False)
        again = run_openie([A], _client(srv.base_url), cache=cache, json_mode=True, progress=False)
        assert len(srv.log) == 4 and again.stats["cache_hits"] == 0
    hit = ResponseCache(cache).get(client.payload(ner_messages(_keys(A))))
    assert hit.usage == {"prompt_tokens": 2, "completion_tokens": 1, "total_tokens": 0}
