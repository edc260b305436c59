"""A client for any OpenAI-compatible chat-completions endpoint, standard library only.

Hosted APIs, vLLM, Ollama and llama.cpp all answer ``POST {base_url}/chat/completions`` with the same
JSON, so one client serves them all; no SDK is needed. Retries, backoff, timeouts and the counters
are the shared :class:`~pathfinding.hipporag.transport.http.Transport`'s; responses are cached by
:class:`~pathfinding.hipporag.transport.cache.ResponseCache`, keyed by what was asked.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from pathfinding._validation import check_float, check_int
from pathfinding.errors import InvalidTypeError, InvalidValueError
from pathfinding.hipporag.transport.http import Transport, UsageStats

__all__ = ["ChatClient", "ChatResponse"]


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
    timeout, max_retries, backoff, max_backoff, rng :
        The :class:`~pathfinding.hipporag.transport.http.Transport`'s (timeout default 120 s here: a long
        completion takes a while).

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
        self.model = model
        self.temperature = check_float("temperature", temperature, low=0.0, high=2.0)
        self.max_tokens = None if max_tokens is None else check_int("max_tokens", max_tokens, low=1)
        self.transport = Transport(
            base_url.rstrip("/") + "/chat/completions",
            name="chat",
            api_key=api_key,
            timeout=timeout,
            max_retries=max_retries,
            backoff=backoff,
            max_backoff=max_backoff,
            rng=rng,
        )

    @property
    def url(self) -> str:
        """Where the requests go: ``{base_url}/chat/completions``."""
        return self.transport.url

    @property
    def stats(self) -> UsageStats:
        """The transport's counters (requests, retries, tokens, errors)."""
        return self.transport.stats

    def __repr__(self) -> str:
        return f"ChatClient(url={self.url!r}, model={self.model!r})"

    def payload(self, messages: list[dict], *, json_mode: bool = False) -> dict:
        """The request body for ``messages`` (what the cache key is computed from)."""
        body = {"model": self.model, "messages": messages, "temperature": self.temperature}
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        if json_mode:
            body["response_format"] = {"type": "json_object"}
        return body

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
        return self.transport.post(self.payload(messages, json_mode=json_mode), self._parse_body)

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
