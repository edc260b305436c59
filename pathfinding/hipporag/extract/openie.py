"""Two-step OpenIE through an OpenAI-compatible endpoint: named entities, then triples.

HippoRAG builds its graph offline with an LLM in two steps (Gutiérrez et al. 2024, §2.3): the model
first lists the passage's named entities, then writes (subject, relation, object) triples with the
passage *and those entities* in the prompt, which steers the triples towards the entities that
become the graph's nodes. :func:`run_openie` does both for a corpus and writes the result in
HippoRAG v1's OpenIE JSON, so :func:`pathfinding.hipporag.io.load_openie` and
:func:`pathfinding.hipporag.index.build.index_from_openie` take it unchanged.

The prompts are this package's own (:data:`NER_SYSTEM`, :data:`TRIPLE_SYSTEM`, one worked example
each). Answers go through :mod:`pathfinding.hipporag.extract.parsing`; every repair and rejection is counted
per passage and written beside the triples under ``openie_issues`` (a key the v1 loader ignores).

Every answer that can be read is stored in a :class:`~pathfinding.hipporag.transport.cache.ResponseCache`
(one SQLite file) under a hash of the model and the full request. A rerun -- or a run killed halfway
-- sends only the requests that never got one; a rerun of a complete run sends none. An answer that
cannot be read at all (no JSON list anywhere in it: an error page sent with status 200, a refusal in
prose) is a failure of its passage, like a request that got no answer: it is counted, never cached
(the rerun asks again), and an answer of that kind found in an older cache is asked again too.

References
----------
.. [1] B. J. Gutiérrez, Y. Shu, Y. Gu, M. Yasunaga, Y. Su. "HippoRAG: Neurobiologically Inspired
   Long-Term Memory for Large Language Models." NeurIPS 2024, arXiv:2405.14831.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field

from pathfinding._validation import check_int
from pathfinding.errors import InvalidTypeError, LLMError, LLMFatalError
from pathfinding.hipporag.extract.llm import ChatClient, ChatResponse
from pathfinding.hipporag.extract.parsing import parse_entities, parse_triples
from pathfinding.hipporag.io.records import Passage
from pathfinding.hipporag.transport.cache import ResponseCache

__all__ = [
    "NER_SYSTEM",
    "QUERY_NER_SYSTEM",
    "TRIPLE_SYSTEM",
    "UNREADABLE",
    "OpenIERun",
    "llm_query_ner",
    "ner_messages",
    "query_ner_messages",
    "run_openie",
    "triple_messages",
    "write_openie",
]

NER_SYSTEM = (
    "You read one passage and list its named entities, to become the nodes of a knowledge graph. "
    "Include people, organisations, places, works (books, films, songs), events, dates, numbers and "
    "any other specific names. Write each entity once, exactly as the passage spells it. "
    'Answer with a JSON object and nothing else: {"named_entities": ["...", "..."]}'
)
TRIPLE_SYSTEM = (
    "You turn one passage into facts for a knowledge graph. You are given the passage and the named "
    "entities already found in it. Write every fact the passage states as a [subject, relation, "
    "object] triple of three short strings. Each triple should contain at least one of the given "
    "entities, ideally two; replace pronouns with the entity they stand for. "
    'Answer with a JSON object and nothing else: {"triples": [["subject", "relation", "object"], ...]}'
)
QUERY_NER_SYSTEM = (
    "You read one question and list the named entities it mentions (people, organisations, places, "
    "works, events, dates, numbers and other specific names), exactly as written. "
    'Answer with a JSON object and nothing else: {"named_entities": ["...", "..."]}'
)

_EXAMPLE_PASSAGE = (
    "Lake Bled\nLake Bled is a lake in the Julian Alps of northwestern Slovenia, beside the town of "
    "Bled. The island in its centre holds the Church of the Assumption, built in the 17th century."
)
_EXAMPLE_ENTITIES = [
    "Lake Bled",
    "Julian Alps",
    "Slovenia",
    "Bled",
    "Church of the Assumption",
    "17th century",
]
_EXAMPLE_TRIPLES = [
    ["Lake Bled", "is a lake in", "Julian Alps"],
    ["Lake Bled", "located in", "Slovenia"],
    ["Lake Bled", "beside", "Bled"],
    ["Church of the Assumption", "stands on the island of", "Lake Bled"],
    ["Church of the Assumption", "built in", "17th century"],
]


def _passage_block(passage: str) -> str:
    return "Passage:\n" + passage


def ner_messages(passage: str) -> list[dict]:
    """Chat messages of the first step: the system prompt, one worked example, the passage.

    Examples
    --------
    >>> [m["role"] for m in ner_messages("Ed Wood\\nEd Wood was a film director.")]
    ['system', 'user', 'assistant', 'user']
    """
    return [
        {"role": "system", "content": NER_SYSTEM},
        {"role": "user", "content": _passage_block(_EXAMPLE_PASSAGE)},
        {"role": "assistant", "content": json.dumps({"named_entities": _EXAMPLE_ENTITIES})},
        {"role": "user", "content": _passage_block(passage)},
    ]


def _triple_user(passage: str, entities: Sequence[str]) -> str:
    return _passage_block(passage) + "\n\nNamed entities: " + json.dumps(list(entities), ensure_ascii=False)


def triple_messages(passage: str, entities: Sequence[str]) -> list[dict]:
    """Chat messages of the second step: the passage *and* its entities from the first step."""
    return [
        {"role": "system", "content": TRIPLE_SYSTEM},
        {"role": "user", "content": _triple_user(_EXAMPLE_PASSAGE, _EXAMPLE_ENTITIES)},
        {"role": "assistant", "content": json.dumps({"triples": _EXAMPLE_TRIPLES})},
        {"role": "user", "content": _triple_user(passage, entities)},
    ]


def query_ner_messages(question: str) -> list[dict]:
    """Chat messages asking for a question's named entities (retrieval-time NER)."""
    return [
        {"role": "system", "content": QUERY_NER_SYSTEM},
        {"role": "user", "content": "Question: Which church stands on the island in Lake Bled?"},
        {"role": "assistant", "content": json.dumps({"named_entities": ["Lake Bled"]})},
        {"role": "user", "content": "Question: " + question},
    ]


UNREADABLE = "unreadable_answer"
"""The issue of a passage whose NER or triple answer held no JSON list at all (nothing to parse)."""


class _Unreadable(LLMError):
    """An answer with nothing to parse: its passage failed, as if the request had."""


def _readable(parsed) -> bool:
    return not parsed.issues.get("no_json")


def _cached_chat(client: ChatClient, cache: ResponseCache | None, messages, json_mode: bool, counter, parse):
    """(the answer, ``parse(answer)``), from the cache or the client; only a readable answer is kept."""
    body = client.payload(messages, json_mode=json_mode)
    if cache is not None:
        hit = cache.get(body)
        if hit is not None:
            parsed = parse(hit.content)
            if _readable(parsed):  # an unreadable one an older run kept is asked again
                counter("cache_hits")
                resp = ChatResponse(content=hit.content, finish_reason=hit.finish_reason, usage=hit.usage)
                return resp, parsed
    started = time.perf_counter()
    resp = client.chat(messages, json_mode=json_mode)
    parsed = parse(resp.content)
    if cache is not None and _readable(parsed):
        cache.put(body, resp.content, resp.usage, resp.finish_reason, seconds=time.perf_counter() - started)
    return resp, parsed


def _unreadable(step: str, content: str) -> _Unreadable:
    shown = " ".join(content.split())
    return _Unreadable(f"unreadable answer to the {step} request (no JSON list in it): {shown[:80]!r}")


@dataclass
class OpenIERun:
    """The outcome of :func:`run_openie`.

    Attributes
    ----------
    docs : list of dict
        HippoRAG v1 OpenIE records in corpus order: ``title``, ``text``, ``passage``,
        ``extracted_entities``, ``extracted_triples``, plus ``openie_issues`` (issue -> count, empty
        when clean) and, for a rejected item, ``openie_rejected``.
    failed : dict of int to str
        Passage position -> why it failed: no answer, or an answer that could not be read (rerun to
        retry these only).
    issues : collections.Counter
        Issue counts summed over passages: parse repairs and rejections of the triple step
        (``triple_not_three``, ``truncated`` ...; see :mod:`pathfinding.hipporag.extract.parsing`), the same
        for the NER step prefixed ``ner_``, ``truncated_by_length`` (the server said
        ``finish_reason="length"``), ``passage_no_triples``, ``request_failed`` and
        ``unreadable_answer``.
    stats : dict
        Client counters (requests, retries, tokens, errors) plus ``cache_hits`` and ``passages``.
    """

    docs: list
    failed: dict
    issues: Counter
    stats: dict = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        """True when every passage got both answers, readable."""
        return not self.failed

    def unusable(self) -> Counter:
        """Passages that gave no triple, by why: ``unreadable_answer``, ``request_failed`` (no
        answer) or ``passage_no_triples`` (a readable answer with none)."""
        why = Counter()
        for d in self.docs:
            issues = d["openie_issues"]
            for reason in (UNREADABLE, "request_failed", "passage_no_triples"):
                if issues.get(reason):
                    why[reason] += 1
                    break
        return why

    def usable_line(self, max_share: float) -> str | None:
        """One line on the passages that gave nothing usable (None when every one gave a triple),
        saying whether their share exceeds ``max_share``.

        Examples
        --------
        >>> docs = [{"openie_issues": {}}] * 3 + [{"openie_issues": {"unreadable_answer": 1}}]
        >>> print(OpenIERun(docs, failed={3: "..."}, issues=Counter()).usable_line(0.1))
        nothing usable from 1 of 4 passages (25%, more than the 10% allowed): 1 with an unreadable answer
        (never cached: the rerun asks again)
        """
        why = self.unusable()
        n = sum(why.values())
        if not n:
            return None
        share = n / len(self.docs)
        words = {
            UNREADABLE: "with an unreadable answer (never cached: the rerun asks again)",
            "request_failed": "with no answer",
            "passage_no_triples": "with no triple in a readable answer",
        }
        parts = ", ".join(f"{why[k]} {words[k]}" for k in words if why[k])
        over = "more than" if share > max_share else "within"
        return (
            f"nothing usable from {n} of {len(self.docs)} passages ({share:.0%}, {over} the "
            f"{max_share:.0%} allowed): {parts}"
        )

    def to_json(self) -> dict:
        """The v1 OpenIE file content (``docs`` plus entity-length averages and this run's counts)."""
        ents = [e for d in self.docs for e in d["extracted_entities"]]
        n = max(len(ents), 1)
        return {
            "docs": self.docs,
            "avg_ent_chars": round(sum(len(e) for e in ents) / n, 4),
            "avg_ent_words": round(sum(len(e.split()) for e in ents) / n, 4),
            "openie_run": {
                "failed_passages": {str(k): v for k, v in sorted(self.failed.items())},
                "issues": dict(sorted(self.issues.items())),
                "stats": self.stats,
            },
        }

    def summary(self) -> str:
        """Human-readable lines: passages, failures, issues, requests and tokens."""
        s = self.stats
        n_ok = len(self.docs) - len(self.failed)
        lines = [
            f"{n_ok} of {len(self.docs)} passages extracted, "
            f"{sum(len(d['extracted_triples']) for d in self.docs)} triples",
            f"requests: {s.get('requests', 0)} sent ({s.get('retries', 0)} retries, "
            f"{s.get('failed', 0)} gave up), {s.get('cache_hits', 0)} answered from the cache",
            f"tokens: {s.get('prompt_tokens', 0)} prompt + {s.get('completion_tokens', 0)} completion",
        ]
        if s.get("errors"):
            lines.append("errors: " + ", ".join(f"{k}: {v}" for k, v in s["errors"].items()))
        if self.issues:
            lines.append("issues: " + ", ".join(f"{k}: {v}" for k, v in sorted(self.issues.items())))
        if self.failed:
            first = sorted(self.failed)[:5]
            lines.append(
                f"{len(self.failed)} passages failed (e.g. {first}); rerun the same command to retry only "
                "these (answers already received are read from the cache)"
            )
        return "\n".join(lines)


def _one_passage(client, cache, p: Passage, json_mode: bool, counter, abort: _Abort) -> dict:
    try:
        return _extract_passage(client, cache, p, json_mode, counter, abort)
    except _Aborted:
        raise
    except LLMFatalError as exc:
        abort.trip(exc)  # at once, in this worker: the others must not send another doomed request
        raise


class _Aborted(LLMFatalError):
    """Raised by passages skipped after another passage's fatal refusal."""


class _Abort:
    """Shared by the workers: set by the first fatal refusal, which it keeps to re-raise."""

    def __init__(self):
        self._event = threading.Event()
        self._lock = threading.Lock()
        self.first: BaseException | None = None

    def trip(self, exc: BaseException | None = None) -> None:
        with self._lock:
            if self.first is None:
                self.first = exc
            self._event.set()

    def is_set(self) -> bool:
        return self._event.is_set()


def _extract_passage(client, cache, p: Passage, json_mode: bool, counter, abort: _Abort) -> dict:
    if abort.is_set():  # another worker met a fatal refusal: do not pay for more of the same
        raise _Aborted("run aborted after a fatal refusal")
    passage = p.title + "\n" + p.text
    doc = {"title": p.title, "text": p.text, "passage": passage}
    issues: Counter = Counter()
    rejected = []
    ner, ents = _cached_chat(client, cache, ner_messages(passage), json_mode, counter, parse_entities)
    if not _readable(ents):
        raise _unreadable("named-entity", ner.content)
    issues.update({f"ner_{k}": v for k, v in ents.issues.items()})
    if ner.finish_reason == "length":
        issues["ner_truncated_by_length"] += 1
    rejected += [["named_entities", r] for r in ents.rejected]
    if abort.is_set():
        raise _Aborted("run aborted after a fatal refusal")
    tri, triples = _cached_chat(
        client, cache, triple_messages(passage, ents.items), json_mode, counter, parse_triples
    )
    if not _readable(triples):
        raise _unreadable("triple", tri.content)
    issues.update(triples.issues)
    if tri.finish_reason == "length":
        issues["truncated_by_length"] += 1
    rejected += [["triples", r] for r in triples.rejected]
    if not triples.items:
        issues["passage_no_triples"] += 1
    doc["extracted_entities"] = ents.items
    doc["extracted_triples"] = [list(t) for t in triples.items]
    doc["openie_issues"] = dict(sorted(issues.items()))
    if rejected:
        doc["openie_rejected"] = rejected
    return doc


def run_openie(
    corpus: Sequence[Passage],
    client: ChatClient,
    *,
    cache: ResponseCache | str | os.PathLike | None = None,
    concurrency: int = 4,
    json_mode: bool = False,
    progress: bool | None = None,
) -> OpenIERun:
    """Two-step OpenIE over a corpus: NER, then triples given the passage and its entities.

    Parameters
    ----------
    corpus : sequence of Passage
        E.g. from :func:`pathfinding.hipporag.io.load_corpus`.
    client : ChatClient
    cache : ResponseCache or path, optional
        Where answers are kept between runs (strongly advised for anything paid).
    concurrency : int, default 4
        Passages in flight at once (each sends its two requests in turn).
    json_mode : bool, default False
        Ask the server for ``response_format={"type": "json_object"}``.
    progress : bool or None, default None
        tqdm bar on stderr; None shows it on a terminal only.

    Returns
    -------
    OpenIERun
        ``docs`` has one record per passage in corpus order; a passage whose requests failed, or
        whose answer could not be read, gets empty lists and is listed in ``failed`` (and counted as
        ``request_failed`` or ``unreadable_answer``).

    Raises
    ------
    LLMFatalError
        If the server refuses a request for a reason retries cannot fix (bad key, model or URL);
        answers received so far stay in the cache.
    """
    from tqdm.auto import tqdm

    if isinstance(corpus, str | bytes) or not all(isinstance(p, Passage) for p in corpus):
        raise InvalidTypeError(
            "corpus must be a sequence of Passage (see pathfinding.hipporag.io.load_corpus)"
        )
    if not isinstance(client, ChatClient):
        raise InvalidTypeError(f"client must be a ChatClient, got {type(client).__name__}")
    concurrency = check_int("concurrency", concurrency, low=1)
    own_cache = cache is not None and not isinstance(cache, ResponseCache)
    cache = ResponseCache(cache) if own_cache else cache
    lock = threading.Lock()
    hits = Counter()
    abort = _Abort()

    def counter(name: str) -> None:
        with lock:
            hits[name] += 1

    docs: list = [None] * len(corpus)
    failed: dict[int, str] = {}
    unreadable: set[int] = set()
    try:
        with ThreadPoolExecutor(max_workers=concurrency) as pool:
            futures = {
                pool.submit(_one_passage, client, cache, p, json_mode, counter, abort): j
                for j, p in enumerate(corpus)
            }
            # disable=None: tqdm shows the bar on a terminal only.
            bar = tqdm(
                total=len(futures),
                desc="openie",
                unit="passage",
                disable=None if progress is None else not progress,
            )
            try:
                for fut in as_completed(futures):
                    j = futures[fut]
                    try:
                        docs[j] = fut.result()
                    except LLMError as exc:
                        if isinstance(exc, LLMFatalError):
                            raise abort.first or exc from None
                        failed[j] = str(exc)
                        if isinstance(exc, _Unreadable):
                            unreadable.add(j)
                    bar.update(1)
            except BaseException:
                # A fatal refusal or Ctrl-C: queued passages are dropped, not sent; what is in flight
                # finishes (bounded by the client's timeout) and stays in the cache for the rerun.
                abort.trip()
                pool.shutdown(wait=True, cancel_futures=True)
                raise
            finally:
                bar.close()
    finally:
        if own_cache:
            cache.close()
    issues: Counter = Counter()
    for j, p in enumerate(corpus):
        if docs[j] is None:
            docs[j] = {
                "title": p.title,
                "text": p.text,
                "passage": p.title + "\n" + p.text,
                "extracted_entities": [],
                "extracted_triples": [],
                "openie_issues": {UNREADABLE if j in unreadable else "request_failed": 1},
            }
        issues.update(docs[j]["openie_issues"])
    stats = client.stats.to_dict()
    stats["cache_hits"] = hits["cache_hits"]
    stats["passages"] = len(corpus)
    return OpenIERun(docs=docs, failed=failed, issues=issues, stats=stats)


def write_openie(run: OpenIERun, path) -> None:
    """Write a run as a HippoRAG v1 OpenIE JSON file (``.gz`` compresses)."""
    import gzip

    from pathfinding.hipporag.storage.safety import atomic_write

    raw = json.dumps(run.to_json(), ensure_ascii=False).encode("utf-8")
    path = os.fspath(path)
    atomic_write(path, [gzip.compress(raw, mtime=0) if path.endswith(".gz") else raw])


def llm_query_ner(
    client: ChatClient, *, cache: ResponseCache | str | os.PathLike | None = None, json_mode: bool = False
) -> Callable[[str], list[str]]:
    """A query-entity extractor that asks the model (one cached call per distinct question).

    The returned callable fits :class:`pathfinding.hipporag.retrieval.retrieve.HippoRetriever`'s
    ``extractor=`` (``question -> list of str``). Answers are parsed like passage NER; an answer
    with no usable list gives ``[]`` (the retriever then falls back to BM25, and
    ``extract.issues`` counts why), and is not cached: the next call asks again.

    Parameters
    ----------
    client : ChatClient
    cache : ResponseCache or path, optional
        Disk cache shared with :func:`run_openie` if you like (keys never collide: the prompts
        differ). Without one, answers are still kept in memory for the life of the callable.
    json_mode : bool, default False

    Returns
    -------
    callable
        ``question -> list of str``, with attributes ``issues`` (a Counter) and ``calls`` (how many
        questions were sent to the client rather than answered from a cache).
    """
    if not isinstance(client, ChatClient):
        raise InvalidTypeError(f"client must be a ChatClient, got {type(client).__name__}")
    if cache is not None and not isinstance(cache, ResponseCache):
        cache = ResponseCache(cache)
    memo: dict[str, list[str]] = {}
    lock = threading.Lock()

    def extract(question: str) -> list[str]:
        if not isinstance(question, str):
            raise InvalidTypeError(f"question must be a string, got {type(question).__name__}")
        with lock:
            if question in memo:
                return list(memo[question])
        hits = Counter()
        _, parsed = _cached_chat(
            client, cache, query_ner_messages(question), json_mode, lambda n: hits.update([n]), parse_entities
        )
        with lock:
            extract.issues.update(parsed.issues)
            extract.calls += 0 if hits else 1
            if _readable(parsed):  # an unreadable answer is neither cached nor kept: asked again
                memo[question] = parsed.items
        return list(parsed.items)

    extract.issues = Counter()
    extract.calls = 0
    return extract
