"""The two-step OpenIE around the chat client, against scripted servers on 127.0.0.1.

The prompts, the response cache's key, what a run records per passage and for the whole corpus, and
the query-entity extractor. Then LLM OpenIE against a local server that replays the released
GPT-3.5 output: the server (tests/replay_server.py) answers a NER prompt with the passage's released
entities and a triple prompt with its released triples, so a correct client reproduces the released
file; faults (500, 429 + Retry-After, timeouts, dropped connections, non-JSON bodies, truncated
answers, a killed server) are injected per request. Backoff delays are kept tiny through the
client's own parameters.
"""

import gzip
import json
import os
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from replay_server import ReplayServer
from scripted_server import ScriptedServer

from pathfinding.errors import InvalidTypeError, InvalidValueError, LLMError, LLMFatalError
from pathfinding.hipporag.extract.llm import ChatClient
from pathfinding.hipporag.extract.openie import (
    NER_SYSTEM,
    QUERY_NER_SYSTEM,
    TRIPLE_SYSTEM,
    UNREADABLE,
    OpenIERun,
    llm_query_ner,
    ner_messages,
    query_ner_messages,
    run_openie,
    triple_messages,
    write_openie,
)
from pathfinding.hipporag.io import Passage, load_openie
from pathfinding.hipporag.storage.datasets import fetch
from pathfinding.hipporag.transport.cache import ResponseCache
from tests.conftest import SUBSET
from tests.test_llm import _client, _completion

# --- prompts ----------------------------------------------------------------


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
    assert not run.complete and list(run.failed) == [1] and "gave up after 1 attempt;" in run.failed[1]
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


NONSENSE = "<html><body>Service temporarily unavailable</body></html>"  # sent with status 200


def test_an_unreadable_answer_fails_its_passage_is_not_cached_and_the_rerun_asks_again(tmp_path):
    """B's triple answer is an error page sent as a 200: B fails as if the request had (empty lists,
    ``unreadable_answer``, its reason in ``failed``), the answer is not cached, and the rerun with the
    same cache sends B's triple request again (and nothing else)."""
    ents = {_keys(A): ["Ed Wood"], _keys(B): ["1957"]}
    tris = {_keys(A): [["Ed Wood", "directed", "Plan 9"]], _keys(B): NONSENSE}
    cache = tmp_path / "c.sqlite"
    with ScriptedServer(_openie_server(ents, tris)) as srv:
        run = run_openie([A, B], _client(srv.base_url), cache=cache, progress=False)
    assert not run.complete and list(run.failed) == [1]
    assert run.failed[1] == (
        "unreadable answer to the triple request (no JSON list in it): "
        "'<html><body>Service temporarily unavailable</body></html>'"
    )
    assert run.docs[1]["extracted_triples"] == [] and run.docs[1]["openie_issues"] == {UNREADABLE: 1}
    assert run.issues[UNREADABLE] == 1 and run.unusable() == Counter({UNREADABLE: 1})
    assert len(ResponseCache(cache)) == 3  # A's two answers and B's entities, not the page
    assert run.usable_line(0.1).startswith("nothing usable from 1 of 2 passages (50%, more than the 10%")
    tris[_keys(B)] = [["Plan 9", "released in", "1957"]]
    with ScriptedServer(_openie_server(ents, tris)) as srv:
        again = run_openie([A, B], _client(srv.base_url), cache=cache, progress=False)
        assert [e["body"]["messages"][0]["content"] for e in srv.log] == [TRIPLE_SYSTEM]
    assert again.complete and again.docs[1]["extracted_triples"] == [["Plan 9", "released in", "1957"]]
    assert again.usable_line(0.1) is None


def test_an_unreadable_answer_an_older_run_cached_is_asked_again(tmp_path):
    ents = {_keys(A): ["Ed Wood"]}
    tris = {_keys(A): [["Ed Wood", "directed", "Plan 9"]]}
    cache = ResponseCache(tmp_path / "c.sqlite")
    with ScriptedServer(_openie_server(ents, tris)) as srv:
        client = _client(srv.base_url)
        cache.put(client.payload(ner_messages(_keys(A))), NONSENSE, {}, "stop")  # as an older run did
        run = run_openie([A], client, cache=cache, progress=False)
        assert len(srv.log) == 2 and run.stats["cache_hits"] == 0
    assert run.complete and run.docs[0]["extracted_entities"] == ["Ed Wood"]


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


ROOT = Path(__file__).resolve().parents[1]


def _replay_client(server, **kw):
    kw = {"backoff": 0.001, "max_backoff": 0.05, "max_retries": 4, "timeout": 5.0, "rng": 0, **kw}
    return ChatClient(server.base_url, "gpt-replay", **kw)


def _subset(released, ids=SUBSET):
    return [released["corpus"][j] for j in ids], [released["docs"][j] for j in ids]


def _load(tmp_path, run, name="out.json"):
    path = tmp_path / name
    write_openie(run, path)
    return load_openie(path)


def test_replay_reproduces_released_triples_then_reruns_from_cache(released, tmp_path):
    corpus, expected = _subset(released)
    with ReplayServer(released["raw"]) as srv:
        client = _replay_client(srv)
        run = run_openie(corpus, client, cache=tmp_path / "c.sqlite", concurrency=4)
        assert run.complete and run.stats["requests"] == 2 * len(corpus) and run.stats["cache_hits"] == 0
        assert run.stats["prompt_tokens"] > 0 and run.stats["completion_tokens"] > 0
        docs, report = _load(tmp_path, run)
        assert [d.triples for d in docs] == [d.triples for d in expected]
        assert [d.entities for d in docs] == [d.entities for d in expected]
        assert [(d.title, d.text) for d in docs] == [(d.title, d.text) for d in expected]
        # The wrong-length released triples were rejected and reported per passage, not dropped silently.
        n_bad = sum(len(t) != 3 for j in SUBSET for t in released["raw"][j]["extracted_triples"])
        assert n_bad > 0 and run.issues["triple_not_three"] == n_bad
        assert sum(d["openie_issues"].get("triple_not_three", 0) for d in run.docs) == n_bad
        assert all(d.get("openie_rejected") for d in run.docs if d["openie_issues"].get("triple_not_three"))
        assert run.issues["passage_no_triples"] == 2 and report.issues["passage_no_triples"] == 2
        # Step two is asked with the passage *and* the entities step one returned (the paper's two steps).
        triple_asks = [e["body"] for e in srv.log if '"triples"' in e["body"]["messages"][0]["content"]]
        assert len(triple_asks) == len(corpus)
        for body in triple_asks:
            user = body["messages"][-1]["content"]
            j = next(j for j in SUBSET if released["raw"][j]["passage"] in user)
            ents = released["raw"][j]["extracted_entities"]
            assert all(json.dumps(e, ensure_ascii=False) in user for e in ents)
            assert body["temperature"] == 0 and "response_format" not in body
        first = len(srv.log)
        rerun = run_openie(corpus, _replay_client(srv), cache=tmp_path / "c.sqlite", concurrency=2)
        assert len(srv.log) == first, "a rerun must not send a single request"
        assert rerun.stats["cache_hits"] == 2 * len(corpus) and rerun.docs == run.docs


def test_fault_injection_every_passage_extracted_or_reported(released, tmp_path):
    corpus, expected = _subset(released)
    kinds = ["500", "429", "timeout", "drop", "bad_body", "malformed", "503", "429"]

    def fault(n, body):  # one request in five fails, cycling through the kinds, for the first 300
        return kinds[(n // 5) % len(kinds)] if n % 5 == 1 and n < 300 else None

    # A "timeout" is never answered (the server waits for the client to hang up), so the client's
    # timeout can sit far above the time a healthy answer takes, even on a loaded machine.
    with ReplayServer(released["raw"], fault=fault, retry_after="0.02", slow_seconds=30) as srv:
        client = _replay_client(srv, timeout=1.0, max_retries=6)
        run = run_openie(corpus, client, cache=tmp_path / "c.sqlite", concurrency=4)
        faults = [e["fault"] for e in srv.log]
        for kind in ("500", "429", "timeout", "drop", "bad_body", "malformed"):
            assert kind in faults, kind
        s = client.stats
        assert s.errors["http 429"] > 0 and s.errors["timeout"] > 0 and s.errors["bad body"] > 0
        assert s.errors["connection"] > 0 and s.errors["http 500"] > 0 and s.errors["http 503"] > 0
        # Retry-After is honoured: each retried 429 waited exactly the 0.02 s the server asked for.
        assert s.waits.count(0.02) == s.errors["http 429"]
        # the requests whose last answer was a whole one: those the client kept (a timed-out attempt
        # the server finished late, or a cut-off answer, may be asked again)
        last = {e["key"]: e["outcome"] for e in srv.log}
        succeeded_first = {key for key, outcome in last.items() if outcome == "ok"}
    # Every fault was retried until it got an answer; only an answer cut off before its list opened
    # has nothing to read, and fails its passage.
    assert all(why.startswith("unreadable answer to the") for why in run.failed.values()), run.failed
    docs, _ = _load(tmp_path, run)
    reported = 0
    for d, ok, exp in zip(run.docs, docs, expected, strict=True):
        if ok.triples == exp.triples and ok.entities == exp.entities:
            continue
        # A truncated answer keeps what could be read and says so.
        reported += 1
        assert {"truncated", "ner_truncated", UNREADABLE} & set(d["openie_issues"]), d
    assert 0 < reported <= faults.count("malformed")
    cut = run.issues["truncated_by_length"] + run.issues["ner_truncated_by_length"]
    assert cut + len(run.failed) == faults.count("malformed")  # finish_reason="length" is reported too
    with ReplayServer(released["raw"]) as again:
        rerun = run_openie(corpus, _replay_client(again), cache=tmp_path / "c.sqlite")
        assert again.requested_keys().isdisjoint(succeeded_first)
        # the rerun asks again for what could not be read, and for nothing else
        assert len(run.failed) <= len(again.log) <= 2 * len(run.failed) and rerun.complete
    same = [j for j in range(len(corpus)) if j not in run.failed]
    assert [rerun.docs[j] for j in same] == [run.docs[j] for j in same]


def test_server_killed_mid_run_then_resumed(released, tmp_path):
    corpus, expected = _subset(released)
    with ReplayServer(released["raw"], die_after=70) as srv:
        run = run_openie(
            corpus, _replay_client(srv, max_retries=2), cache=tmp_path / "c.sqlite", concurrency=3
        )
        first_ok = srv.succeeded_keys()
    assert 0 < len(run.failed) < len(corpus)
    assert run.issues["request_failed"] == len(run.failed)
    for j, d in enumerate(run.docs):  # every passage is either extracted or listed as failed
        assert (j in run.failed) == (d["openie_issues"].get("request_failed") == 1)
    docs, report = _load(tmp_path, run, "partial.json")
    assert len(docs) == len(corpus) and report.issues["passage_no_triples"] >= len(run.failed)
    with ReplayServer(released["raw"]) as again:
        rerun = run_openie(corpus, _replay_client(again), cache=tmp_path / "c.sqlite")
        assert again.requested_keys().isdisjoint(first_ok), "an answered request was paid for twice"
        assert rerun.complete and rerun.stats["cache_hits"] == len(first_ok)
    docs, _ = _load(tmp_path, rerun)
    assert [d.triples for d in docs] == [d.triples for d in expected]


def test_json_mode_asks_for_a_json_object(released):
    with ReplayServer(released["raw"]) as srv:
        client = _replay_client(srv)
        resp = client.chat([{"role": "user", "content": released["raw"][0]["passage"]}], json_mode=True)
        assert srv.log[0]["body"]["response_format"] == {"type": "json_object"}
        assert json.loads(resp.content)["named_entities"] == released["raw"][0]["extracted_entities"]


def test_fatal_refusal_stops_the_run(released, tmp_path):
    corpus, _ = _subset(released)
    with ReplayServer(released["raw"], fault=lambda n, b: "401") as srv:
        with pytest.raises(LLMFatalError, match="HTTP 401"):
            run_openie(corpus, _replay_client(srv), cache=tmp_path / "c.sqlite", concurrency=2)
        assert len(srv.log) <= 3, "a bad key must not be retried, nor tried on every passage"


def test_retries_are_bounded_and_back_off_exponentially(released):
    with ReplayServer(released["raw"], fault=lambda n, b: "503") as srv:
        client = _replay_client(srv, backoff=0.002, max_backoff=1.0, max_retries=4)
        with pytest.raises(LLMError, match="gave up after 5 attempts"):
            client.chat([{"role": "user", "content": "hi"}])
        assert len(srv.log) == 5 and client.stats.retries == 4 and client.stats.failed == 1
    w = np.asarray(client.stats.waits)
    assert (
        len(w) == 4
        and np.all(w >= 0.002 * 2.0 ** np.arange(4))
        and np.all(w < 0.002 * 2.0 ** np.arange(1, 5))
    )


def test_query_ner_is_one_cached_call_per_question(released, tmp_path):
    from pathfinding.hipporag.index.build import index_from_openie
    from pathfinding.hipporag.io import load_questions
    from pathfinding.hipporag.language.names import capitalised_spans
    from pathfinding.hipporag.retrieval.retrieve import HippoRetriever

    questions = [q.question for q in load_questions(fetch("musique_questions"))[0][:15]]
    answers = {q: capitalised_spans(q) for q in questions}
    index = index_from_openie(released["docs"][:300])
    with ReplayServer(released["raw"][:0], questions=answers) as srv:
        extract = llm_query_ner(_replay_client(srv), cache=tmp_path / "q.sqlite")
        by_llm = HippoRetriever(index, extractor=extract)
        by_caps = HippoRetriever(index, extractor="capitalised")
        for q in questions + questions:
            a, b = by_llm.retrieve(q, k=5), by_caps.retrieve(q, k=5)
            assert a.entities == b.entities and np.array_equal(a.passages, b.passages)
        assert len(srv.log) == len(questions) == extract.calls
        fresh = llm_query_ner(_replay_client(srv), cache=tmp_path / "q.sqlite")
        assert [fresh(q) for q in questions] == [answers[q] for q in questions]
        assert len(srv.log) == len(questions) and fresh.calls == 0


def test_client_validation():
    with pytest.raises(ValueError, match="base_url must be an http"):
        ChatClient("localhost:8000", "m")
    with pytest.raises(ValueError, match="model must be a non-empty string"):
        ChatClient("http://x/v1", " ")
    with pytest.raises(ValueError, match="max_retries must be in"):
        ChatClient("http://x/v1", "m", max_retries=-1)
    with pytest.raises(TypeError, match="corpus must be a sequence of Passage"):
        run_openie(["text"], ChatClient("http://x/v1", "m"))


@pytest.mark.slow
def test_full_replay_reproduces_the_release_and_its_recall(released, tmp_path):
    """All 1,890 passages; the index built from the output gives the recall of FINDINGS' v1 row."""
    from pathfinding.hipporag.evaluation.metrics import recall_at_k, supporting_ids
    from pathfinding.hipporag.index.build import index_from_openie
    from pathfinding.hipporag.io import load_questions
    from pathfinding.hipporag.retrieval.retrieve import HippoRetriever

    with ReplayServer(released["raw"]) as srv:
        run = run_openie(released["corpus"], _replay_client(srv), cache=tmp_path / "c.sqlite", concurrency=4)
    assert run.complete and run.issues["triple_not_three"] == 185 and run.issues["passage_no_triples"] == 2
    docs, _ = _load(tmp_path, run)
    assert [d.triples for d in docs] == [d.triples for d in released["docs"]]
    questions, _ = load_questions(fetch("musique_questions"))
    gold = supporting_ids(questions, released["corpus"])
    ret = HippoRetriever(index_from_openie(docs), extractor="capitalised", facts=0, passage_weight=0)
    rec = recall_at_k([ret.retrieve(q.question, k=10).passages for q in questions], gold).mean(axis=0)
    lines = (ROOT / "FINDINGS.md").read_text().splitlines()
    row = next(line for line in lines if re.match(r"^\| R\d+ \| v1\[capitalised\] \(cased\) \|", line))
    means = [float(m) for m in re.findall(r"\| (\d+\.\d) \[", row)]
    assert [round(100 * r, 1) for r in rec] == means[:4]
