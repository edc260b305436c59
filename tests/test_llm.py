"""The chat client against scripted servers on 127.0.0.1: what it sends, how it reads a completion
and its token counts, its settings. Retries, waits and timeouts are the transport's
(tests/test_transport.py); here one retried status shows the chat goes through it.
"""

import json

import pytest
from scripted_server import ScriptedServer, statuses

from pathfinding.errors import InvalidTypeError, InvalidValueError, LLMError, LLMFatalError
from pathfinding.hipporag.extract.llm import ChatClient
from pathfinding.hipporag.transport.http import UsageStats

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


def _statuses(*codes, headers=()):
    """Answer request n with codes[n], then 200 with a completion of "ok"."""
    return statuses(*codes, ok=_completion("ok", {"prompt_tokens": 3}), headers=headers)


def test_a_chat_goes_through_the_transport():
    """A 503 then a completion: one retry, counted on the client's stats, and the answer's tokens."""
    with ScriptedServer(_statuses(503)) as srv:
        client = _client(srv.base_url)
        assert client.chat(USER).content == "ok" and client.stats is client.transport.stats
    s = client.stats
    assert (s.requests, s.retries, s.succeeded, s.errors, s.prompt_tokens) == (2, 1, 1, {"http 503": 1}, 3)
    assert client.transport.name == "chat"


def test_a_refusal_names_the_chat_url():
    with ScriptedServer(_statuses(401)) as srv:
        with pytest.raises(LLMFatalError, match=r"/v1/chat/completions refused the request \(HTTP 401: "):
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
    t = c.transport
    assert (c.temperature, c.max_tokens, t.timeout, t.max_retries, t.backoff, t.max_backoff) == (
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
    ],
)
def test_client_settings_are_checked_by_name(kw, message):
    """Each setting's error names the setting, the range expected and the value given (the
    transport's own settings are checked by the transport: tests/test_transport.py)."""
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
    t = c.transport
    assert (c.temperature, c.max_tokens, t.timeout, t.max_retries, t.backoff, t.max_backoff) == (
        2.0,
        1,
        3600.0,
        0,
        3600.0,
        0.0,
    )
    assert ChatClient("http://h/v1", "m", temperature=0.0, backoff=0.0).transport.backoff == 0.0


def test_a_key_that_is_not_a_string_is_refused_by_type():
    with pytest.raises(InvalidTypeError, match="^api_key must be a string or None, got int"):
        ChatClient("http://h/v1", "m", api_key=123)


@pytest.mark.parametrize("messages", ["hi", [{"role": "user"}], [{"role": "user", "content": 1}], ["hi"]])
def test_messages_must_be_dicts_with_string_content(messages):
    with pytest.raises(
        InvalidTypeError, match=r"^messages must be a list of \{'role': \.\.\., 'content': str\} dicts$"
    ):
        ChatClient("http://127.0.0.1:9/v1", "m", max_retries=0).chat(messages)  # fails fast if sent
