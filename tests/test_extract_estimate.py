"""The bill before you pay it: the estimate against the replayed endpoint's recorded usage, the cache
counted apart, the no-model build measured."""

import json
import time

import pytest
from replay_server import ReplayServer

from pathfinding.errors import InvalidTypeError
from pathfinding.hipporag.extract.estimate import (
    CHARS_PER_TOKEN,
    count_tokens,
    estimate_openie,
    measure_no_model,
)
from pathfinding.hipporag.extract.llm import ChatClient
from pathfinding.hipporag.extract.openie import ner_messages, run_openie
from pathfinding.hipporag.io.records import Passage
from pathfinding.hipporag.transport.cache import ResponseCache
from tests.conftest import PASSAGES, SUBSET


def test_tokens_are_counted_by_characters_and_unspaced_scripts_finer():
    assert CHARS_PER_TOKEN == 4
    assert count_tokens("abcd" * 10) == 10 and count_tokens("") == 0
    assert count_tokens("東京は大きい") == 6 and count_tokens("東京 is big") == 2 + 7 / 4


def test_a_passage_costs_two_calls_whose_prompts_are_the_ones_sent():
    p = Passage("Ed Wood", "Ed Wood directed Plan 9 in Burbank.")
    bill = estimate_openie([p])
    assert bill.calls == 2 and bill.cached_calls == 0 and bill.passages == 1
    ner_prompt = count_tokens("".join(m["content"] for m in ner_messages(p.key)))
    assert ner_prompt < bill.tokens_in < 3 * ner_prompt  # the triple prompt is the longer one
    assert bill.cost(1.0, 2.0) == pytest.approx((bill.tokens_in + 2 * bill.tokens_out) / 1e6)
    assert estimate_openie([]).calls == 0
    with pytest.raises(InvalidTypeError, match="corpus must be a sequence of Passage"):
        estimate_openie(["Ed Wood"])


def test_a_cache_is_looked_up_only_with_its_client(tmp_path):
    """A cache's keys hold the client's model and options: with only one of the two, nothing is
    looked up and every call is billed."""
    p = Passage("Ed Wood", "Ed Wood directed Plan 9 in Burbank.")
    cache = ResponseCache(tmp_path / "c.sqlite")
    client = ChatClient("http://127.0.0.1:9/v1", "gpt-replay")  # sends nothing here
    for only in ({"cache": cache}, {"client": client}):
        bill = estimate_openie([p], **only)
        assert (bill.calls, bill.cached_calls) == (2, 0)
    cache.close()


def test_the_estimate_is_within_a_fifth_of_the_replayed_usage_and_the_cache_is_counted_apart(
    released, tmp_path
):
    """On the replay's test corpus (86 released MuSiQue passages): the estimate made before the run
    is within 20% of the usage the endpoint reported, prompt and completion each; after the run,
    every call is answered by the cache and its recorded usage is what the estimate counts."""
    corpus = [released["corpus"][j] for j in SUBSET]
    before = estimate_openie(corpus)
    cache = ResponseCache(tmp_path / "c.sqlite")
    with ReplayServer(released["raw"]) as srv:
        client = ChatClient(srv.base_url, "gpt-replay")
        run = run_openie(corpus, client, cache=cache, progress=False)
    used_in, used_out = run.stats["prompt_tokens"], run.stats["completion_tokens"]
    assert before.calls == run.stats["requests"] == 2 * len(corpus)
    assert abs(before.tokens_in - used_in) <= 0.2 * used_in
    assert abs(before.tokens_out - used_out) <= 0.2 * used_out
    after = estimate_openie(corpus, client=client, cache=cache)
    assert (after.calls, after.cached_calls, after.tokens_in, after.tokens_out) == (0, 2 * len(corpus), 0, 0)
    assert (after.cached_tokens_in, after.cached_tokens_out) == (used_in, used_out)
    assert len(cache.answer_seconds()) == 2 * len(corpus) and min(cache.answer_seconds()) > 0
    cache.close()


def test_the_no_model_build_is_measured_and_scaled():
    corpus = [Passage(t, x) for t, x in PASSAGES] * 3
    t0 = time.perf_counter()
    whole = measure_no_model(corpus)
    elapsed = time.perf_counter() - t0
    assert whole["sample"] == len(corpus) and whole["seconds_all"] == whole["seconds"] > 0
    assert whole["seconds"] < elapsed  # one of the four builds the call timed, not a clock reading
    assert whole["peak_bytes"] > 0 and whole["peak_bytes_all"] == whole["peak_bytes"]
    part = measure_no_model(corpus, sample=6)
    assert part["sample"] == 6 and 1.0 <= part["exponent"] <= 1.5
    assert part["seconds_all"] >= part["seconds"] * 2 and part["peak_bytes_all"] == part["peak_bytes"] * 2
    json.dumps(part)  # plain numbers, for --json
