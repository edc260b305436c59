"""The bill before you pay it: what extracting and indexing a corpus will cost, with no network call.

Indexing bills and runs of many hours are what HippoRAG's users most often ask about. Every number
here is computed from the text and from this package's own code, and none is sent anywhere:

* **calls**: the two-step OpenIE (:mod:`~pathfinding.hipporag.extract.openie`) asks two questions
  per passage (its named entities, then its triples); at query time, a question's entities cost one
  more call when an LLM reads them (:func:`~pathfinding.hipporag.extract.openie.llm_query_ner`);
* **tokens in**: the very prompts the package would send (:func:`ner_messages`,
  :func:`triple_messages`, the latter with the estimated entities), counted by :func:`count_tokens`:
  four characters a token, OpenAI's rule of thumb for English, and one token a character of a
  script written without spaces (Chinese, Japanese, Thai ...), which tokenizers cut finer;
* **tokens out**: the answers as the text suggests them: the NER answer lists the passage's named
  spans (the no-model extractor's, :func:`~pathfinding.hipporag.extract.cooccurrence.passage_spans`,
  title first), the triple answer connects them with one triple fewer than there are entities (the
  fewest that connect them all), each relation as long as those of the prompt's worked example;
* **the cache**: a request the response cache already answered costs nothing; its recorded usage
  is counted apart (``cached_*``);
* **cost**: tokens times the prices given per million tokens; **time**: calls over a rate given,
  or the cache's own pace (its answers' mean seconds over the concurrency);
* **the no-model route** (:func:`measure_no_model`): measured now, on this machine and this text:
  the co-occurrence extraction and the build of a sample of the corpus, its seconds (scaled to the
  corpus by the growth measured between half the sample and all of it) and its peak allocation
  (scaled in proportion).

Checked in the tests against the replayed endpoint's recorded usage (``tests/replay_server.py``).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from pathfinding._validation import check_int
from pathfinding.errors import InvalidTypeError
from pathfinding.hipporag.extract.cooccurrence import passage_spans
from pathfinding.hipporag.extract.openie import ner_messages, query_ner_messages, triple_messages
from pathfinding.hipporag.extract.parsing import parse_entities
from pathfinding.hipporag.io.records import Passage
from pathfinding.hipporag.language.text import is_unspaced_char

__all__ = ["CHARS_PER_TOKEN", "OpenIEBill", "count_tokens", "estimate_openie", "measure_no_model"]

CHARS_PER_TOKEN = 4
"""Characters a token of English text holds (OpenAI's rule of thumb); :func:`count_tokens`."""

TYPICAL_QUESTION = "Which church stands on the island in the lake beside the town of Bled?"
"""The question a per-question estimate is made for (the prompt's own example, a little longer)."""


def count_tokens(text: str) -> float:
    """Tokens an LLM's tokenizer makes of ``text``, estimated: a character of a script written
    without spaces is a token, any other a quarter of one.

    Examples
    --------
    >>> count_tokens("Ed Wood directed Plan 9."), count_tokens("東京都")
    (6.0, 3.0)
    """
    unspaced = sum(1 for ch in text if is_unspaced_char(ch))
    return unspaced + (len(text) - unspaced) / CHARS_PER_TOKEN


def _prompt_tokens(messages: list[dict]) -> float:
    return count_tokens("".join(m["content"] for m in messages))


def _example_relation_chars() -> float:
    """Mean length of a relation in the triple prompt's worked example, which the answers imitate."""
    example = json.loads(triple_messages("", [])[2]["content"])["triples"]
    return float(np.mean([len(t[1]) for t in example]))


def _guessed_entities(p: Passage) -> list[str]:
    spans = passage_spans(p.title, p.text)
    return list(dict.fromkeys(([p.title] if p.title else []) + [s for sent in spans for s in sent]))


def _guessed_triples(entities: list[str], relation_chars: float) -> list[list[str]]:
    relation = "r" * round(relation_chars)
    return [[a, relation, b] for a, b in zip(entities, entities[1:], strict=False)]


@dataclass
class OpenIEBill:
    """What the two-step OpenIE of a corpus costs, estimated (see the module docstring).

    Attributes
    ----------
    passages, characters : int
        The corpus's passages and the characters of their titles and texts.
    lengths : dict of str to int
        ``p50``, ``p90`` and ``max`` characters of a passage's text.
    calls : int
        Requests the run would send (two per passage, less those the cache answers).
    cached_calls : int
        Requests the cache answers already.
    tokens_in, tokens_out : int
        Estimated prompt and completion tokens of the calls to send.
    cached_tokens_in, cached_tokens_out : int
        The usage the cache recorded for the calls it answers (not paid again).
    question_tokens_in, question_tokens_out : int
        One query-time call (a question's entities) for :data:`TYPICAL_QUESTION`.
    """

    passages: int
    characters: int
    lengths: dict
    calls: int
    cached_calls: int
    tokens_in: int
    tokens_out: int
    cached_tokens_in: int
    cached_tokens_out: int
    question_tokens_in: int
    question_tokens_out: int

    def cost(self, price_in: float, price_out: float) -> float:
        """The calls' cost at ``price_in`` / ``price_out`` per million prompt / completion tokens."""
        return (self.tokens_in * price_in + self.tokens_out * price_out) / 1e6

    def to_dict(self) -> dict:
        return asdict(self)


def estimate_openie(
    corpus: Sequence[Passage], *, client=None, cache=None, json_mode: bool = False
) -> OpenIEBill:
    """The bill of :func:`~pathfinding.hipporag.extract.openie.run_openie` over ``corpus``, without a call.

    Parameters
    ----------
    corpus : sequence of Passage
    client : ChatClient, optional
        With ``cache``: the client whose requests the cache is looked up for (its model and options
        are part of each request); it sends nothing here.
    cache : ResponseCache, optional
        Answers already received; the calls they answer are counted apart.
    json_mode : bool, default False
        As the run would send it.

    Returns
    -------
    OpenIEBill

    Examples
    --------
    >>> bill = estimate_openie([Passage("Ed Wood", "Ed Wood directed Plan 9 in Burbank.")])
    >>> bill.calls, bill.tokens_in > bill.tokens_out > 0
    (2, True)
    """
    if isinstance(corpus, str) or not all(isinstance(p, Passage) for p in corpus):
        raise InvalidTypeError(
            "corpus must be a sequence of Passage (see pathfinding.hipporag.io.load_corpus)"
        )
    relation_chars = _example_relation_chars()
    calls = cached = 0
    t_in = t_out = c_in = c_out = 0.0
    for p in corpus:
        passage = p.title + "\n" + p.text
        entities = _guessed_entities(p)
        steps = [(ner_messages(passage), {"named_entities": entities})]
        hit = _cached(cache, client, steps[0][0], json_mode)
        if hit is not None:
            entities = parse_entities(hit.content).items
        steps.append(
            (triple_messages(passage, entities), {"triples": _guessed_triples(entities, relation_chars)})
        )
        for k, (messages, answer) in enumerate(steps):
            hit = hit if k == 0 else _cached(cache, client, messages, json_mode)
            if hit is not None:
                cached += 1
                c_in += hit.usage.get("prompt_tokens", 0)
                c_out += hit.usage.get("completion_tokens", 0)
                continue
            calls += 1
            t_in += _prompt_tokens(messages)
            t_out += count_tokens(json.dumps(answer, ensure_ascii=False))
    lengths = np.array([len(p.text) for p in corpus] or [0])
    question = query_ner_messages(TYPICAL_QUESTION)
    q_answer = {"named_entities": _guessed_entities(Passage("", TYPICAL_QUESTION))}
    return OpenIEBill(
        passages=len(corpus),
        characters=int(sum(len(p.title) + len(p.text) for p in corpus)),
        lengths={k: int(np.percentile(lengths, q)) for k, q in (("p50", 50), ("p90", 90), ("max", 100))},
        calls=calls,
        cached_calls=cached,
        tokens_in=math.ceil(t_in),
        tokens_out=math.ceil(t_out),
        cached_tokens_in=int(c_in),
        cached_tokens_out=int(c_out),
        question_tokens_in=math.ceil(_prompt_tokens(question)),
        question_tokens_out=math.ceil(count_tokens(json.dumps(q_answer, ensure_ascii=False))),
    )


def _cached(cache, client, messages, json_mode):
    if cache is None or client is None:
        return None
    return cache.get(client.payload(messages, json_mode=json_mode))


def measure_no_model(corpus: Sequence[Passage], *, sample: int = 1000) -> dict:
    """The no-model route's build, measured on a sample of ``corpus`` now and scaled to all of it.

    The co-occurrence extraction and :func:`~pathfinding.hipporag.index.build.build_index` of the
    first ``sample`` passages (all, if fewer) are timed, and their peak allocation traced
    (:mod:`tracemalloc`); half the sample is timed too, and the growth between the two,
    ``seconds ~ n ** b`` with ``b`` clipped to [1, 1.5], scales the time to the corpus; the
    allocation is scaled in proportion to the passages.

    Returns
    -------
    dict
        ``sample``, ``seconds`` and ``peak_bytes`` of the sample, ``exponent`` (b) and
        ``seconds_all`` and ``peak_bytes_all`` scaled to the corpus (equal to the sample's when
        it is the whole corpus).
    """
    import tracemalloc

    from pathfinding.hipporag.extract.cooccurrence import cooccurrence_docs
    from pathfinding.hipporag.index.build import build_index

    sample = check_int("sample", sample, low=2)
    part = list(corpus[:sample])

    def build(passages) -> float:
        t0 = time.perf_counter()
        docs = cooccurrence_docs(passages)
        triples = [d.triples for d in docs]
        if any(triples):
            build_index(triples, passages=[p.key for p in passages])
        return time.perf_counter() - t0

    build(part[: min(len(part), 50)])  # the first build pays for imports and compiled kernels
    half = build(part[: max(len(part) // 2, 1)])
    whole = build(part)
    tracemalloc.start()
    try:
        build(part)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    n, m = len(corpus), len(part)
    b = 1.0
    if m >= 4 and half > 0 and whole > half:
        b = float(np.clip(math.log(whole / half) / math.log(m / max(m // 2, 1)), 1.0, 1.5))
    scale = (n / m) ** b if m else 1.0
    return {
        "sample": m,
        "seconds": whole,
        "peak_bytes": int(peak),
        "exponent": b,
        "seconds_all": whole * scale,
        "peak_bytes_all": int(peak * n / m) if m else 0,
    }
