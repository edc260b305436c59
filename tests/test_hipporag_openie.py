"""LLM OpenIE against a local server that replays the released GPT-3.5 output.

The server (tests/replay_server.py) answers a NER prompt with the passage's released entities and a
triple prompt with its released triples, so a correct client reproduces the released file; faults
(500, 429 + Retry-After, timeouts, dropped connections, non-JSON bodies, truncated answers, a
killed server) are injected per request. Backoff delays are kept tiny through the client's own
parameters.
"""

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from pathfinding.hipporag.datasets import fetch
from pathfinding.hipporag.extract.cli import add_openie_command
from pathfinding.hipporag.extract.llm import ChatClient, LLMError, LLMFatalError
from pathfinding.hipporag.extract.openie import ResponseCache, llm_query_ner, run_openie, write_openie
from pathfinding.hipporag.io import load_corpus, load_openie

sys.path.insert(0, str(Path(__file__).parent))
from replay_server import ReplayServer  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
# Every 23rd passage, plus passages whose released triples include wrong-length ones and the two
# passages with no triples at all: 86 passages, 172 requests.
SUBSET = sorted(set(range(0, 1890, 23)) | {21, 24, 67} | {752, 1285})


@pytest.fixture(scope="module")
def released():
    raw = json.loads(fetch("musique_openie").read_bytes())["docs"]
    corpus, _ = load_corpus(fetch("musique_corpus"))
    docs, _ = load_openie(fetch("musique_openie"))
    return {"raw": raw, "corpus": corpus, "docs": docs}


def _client(server, **kw):
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
        client = _client(srv)
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
        rerun = run_openie(corpus, _client(srv), cache=tmp_path / "c.sqlite", concurrency=2)
        assert len(srv.log) == first, "a rerun must not send a single request"
        assert rerun.stats["cache_hits"] == 2 * len(corpus) and rerun.docs == run.docs


def test_fault_injection_every_passage_extracted_or_reported(released, tmp_path):
    corpus, expected = _subset(released)
    kinds = ["500", "429", "timeout", "drop", "bad_body", "malformed", "503", "429"]

    def fault(n, body):  # one request in five fails, cycling through the kinds, for the first 300
        return kinds[(n // 5) % len(kinds)] if n % 5 == 1 and n < 300 else None

    with ReplayServer(released["raw"], fault=fault, retry_after="0.02", slow_seconds=0.6) as srv:
        client = _client(srv, timeout=0.3, max_retries=6)
        run = run_openie(corpus, client, cache=tmp_path / "c.sqlite", concurrency=4)
        outcomes = [e["outcome"] for e in srv.log]
        for kind in ("500", "429", "timeout", "drop", "bad_body", "malformed"):
            assert kind in outcomes, kind
        s = client.stats
        assert s.errors["http 429"] > 0 and s.errors["timeout"] > 0 and s.errors["bad body"] > 0
        assert s.errors["connection"] > 0 and s.errors["http 500"] > 0 and s.errors["http 503"] > 0
        # Retry-After is honoured: each retried 429 waited exactly the 0.02 s the server asked for.
        assert s.waits.count(0.02) == s.errors["http 429"]
        succeeded_first = srv.succeeded_keys()
    assert run.complete, run.failed
    docs, _ = _load(tmp_path, run)
    reported = 0
    for d, ok, exp in zip(run.docs, docs, expected, strict=True):
        if ok.triples == exp.triples and ok.entities == exp.entities:
            continue
        # A truncated answer keeps what could be read and says so.
        reported += 1
        assert {"truncated", "ner_truncated", "no_json", "ner_no_json"} & set(d["openie_issues"]), d
    assert 0 < reported <= outcomes.count("malformed")
    cut = run.issues["truncated_by_length"] + run.issues["ner_truncated_by_length"]
    assert cut == outcomes.count("malformed")  # finish_reason="length" is reported too
    with ReplayServer(released["raw"]) as again:
        rerun = run_openie(corpus, _client(again), cache=tmp_path / "c.sqlite")
        assert again.requested_keys().isdisjoint(succeeded_first)
        assert len(again.log) == 0 and rerun.docs == run.docs


def test_server_killed_mid_run_then_resumed(released, tmp_path):
    corpus, expected = _subset(released)
    with ReplayServer(released["raw"], die_after=70) as srv:
        run = run_openie(corpus, _client(srv, max_retries=2), cache=tmp_path / "c.sqlite", concurrency=3)
        first_ok = srv.succeeded_keys()
    assert 0 < len(run.failed) < len(corpus)
    assert run.issues["request_failed"] == len(run.failed)
    for j, d in enumerate(run.docs):  # every passage is either extracted or listed as failed
        assert (j in run.failed) == (d["openie_issues"].get("request_failed") == 1)
    docs, report = _load(tmp_path, run, "partial.json")
    assert len(docs) == len(corpus) and report.issues["passage_no_triples"] >= len(run.failed)
    with ReplayServer(released["raw"]) as again:
        rerun = run_openie(corpus, _client(again), cache=tmp_path / "c.sqlite")
        assert again.requested_keys().isdisjoint(first_ok), "an answered request was paid for twice"
        assert rerun.complete and rerun.stats["cache_hits"] == len(first_ok)
    docs, _ = _load(tmp_path, rerun)
    assert [d.triples for d in docs] == [d.triples for d in expected]


def test_cli_process_killed_then_resumed(released, tmp_path):
    """Kill the command itself (SIGKILL) mid-run; the same command then pays only for what was in flight."""
    ids = SUBSET[:40]
    corpus_path = tmp_path / "corpus.json"
    corpus_path.write_text(
        json.dumps([{"title": released["corpus"][j].title, "text": released["corpus"][j].text} for j in ids])
    )
    out = tmp_path / "openie.json"
    script = (
        "import argparse, sys\n"
        "from pathfinding.hipporag.extract.cli import add_openie_command\n"
        "p = argparse.ArgumentParser()\n"
        "add_openie_command(p.add_subparsers(dest='command', required=True))\n"
        "a = p.parse_args(sys.argv[1:])\n"
        "sys.exit(a.func(a))\n"
    )
    with ReplayServer(released["raw"], delay=0.05) as srv:
        cmd = [
            sys.executable,
            "-c",
            script,
            "openie",
            str(corpus_path),
            "--base-url",
            srv.base_url,
            "--model",
            "gpt-replay",
            "-o",
            str(out),
            "--concurrency",
            "1",
        ]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 120
        while len(srv.log) < 30 and time.time() < deadline:
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        n_before = len(srv.log)
        before = srv.succeeded_keys()
        assert 30 <= n_before < 2 * len(ids) and not out.exists()
        # The same command again (in this process: the import of a second interpreter costs seconds).
        assert _cli_main(cmd[3:]) == 0
        n_repeat = sum(1 for e in srv.log[n_before:] if e["key"] in before)
        # Concurrency 1: at most the one request in flight at the kill was answered but not stored.
        assert n_repeat <= 1
        assert len(srv.log) - n_before == 2 * len(ids) - len(before) + n_repeat
    docs, _ = load_openie(out)
    assert [d.triples for d in docs] == [released["docs"][j].triples for j in ids]


def _cli_main(argv):
    import argparse

    parser = argparse.ArgumentParser(prog="pathfinding hipporag")
    add_openie_command(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.func(args)


def test_cli_round_trip_and_rerun(released, tmp_path, capsys, monkeypatch):
    ids = SUBSET[:12]
    corpus_path = tmp_path / "corpus.json"
    corpus_path.write_text(
        json.dumps([{"title": released["corpus"][j].title, "text": released["corpus"][j].text} for j in ids])
    )
    out = tmp_path / "openie.json.gz"
    with ReplayServer(released["raw"]) as srv:
        argv = [
            "openie",
            str(corpus_path),
            "--base-url",
            srv.base_url,
            "--model",
            "gpt-replay",
            "-o",
            str(out),
        ]
        assert _cli_main(argv) == 0
        text = capsys.readouterr().out
        assert f"{len(ids)} of {len(ids)} passages extracted" in text and f"{2 * len(ids)} sent" in text
        docs, _ = load_openie(out)
        assert [d.triples for d in docs] == [released["docs"][j].triples for j in ids]
        assert _cli_main(argv + ["--json"]) == 0
        text = capsys.readouterr().out
        assert "requests: 0 sent" in text and f"{2 * len(ids)} answered from the cache" in text
        assert json.loads(text[text.index("{") :])["stats"]["cache_hits"] == 2 * len(ids)
        monkeypatch.delenv("PF_TEST_KEY", raising=False)
        assert _cli_main(argv + ["--api-key-env", "PF_TEST_KEY"]) == 2
        assert "PF_TEST_KEY is not set" in capsys.readouterr().err


def test_json_mode_asks_for_a_json_object(released):
    with ReplayServer(released["raw"]) as srv:
        client = _client(srv)
        resp = client.chat([{"role": "user", "content": released["raw"][0]["passage"]}], json_mode=True)
        assert srv.log[0]["body"]["response_format"] == {"type": "json_object"}
        assert json.loads(resp.content)["named_entities"] == released["raw"][0]["extracted_entities"]


def test_fatal_refusal_stops_the_run(released, tmp_path):
    corpus, _ = _subset(released)
    with ReplayServer(released["raw"], fault=lambda n, b: "401") as srv:
        with pytest.raises(LLMFatalError, match="HTTP 401"):
            run_openie(corpus, _client(srv), cache=tmp_path / "c.sqlite", concurrency=2)
        assert len(srv.log) <= 3, "a bad key must not be retried, nor tried on every passage"


def test_retries_are_bounded_and_back_off_exponentially(released):
    with ReplayServer(released["raw"], fault=lambda n, b: "503") as srv:
        client = _client(srv, backoff=0.002, max_backoff=1.0, max_retries=4)
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
    from pathfinding.hipporag.query import capitalised_spans
    from pathfinding.hipporag.retrieve import HippoRetriever

    questions = [q.question for q in load_questions(fetch("musique_questions"))[0][:15]]
    answers = {q: capitalised_spans(q) for q in questions}
    index = index_from_openie(released["docs"][:300])
    with ReplayServer(released["raw"][:0], questions=answers) as srv:
        extract = llm_query_ner(_client(srv), cache=tmp_path / "q.sqlite")
        by_llm = HippoRetriever(index, extractor=extract)
        by_caps = HippoRetriever(index, extractor="capitalised")
        for q in questions + questions:
            a, b = by_llm.retrieve(q, k=5), by_caps.retrieve(q, k=5)
            assert a.entities == b.entities and np.array_equal(a.passages, b.passages)
        assert len(srv.log) == len(questions) == extract.calls
        fresh = llm_query_ner(_client(srv), cache=tmp_path / "q.sqlite")
        assert [fresh(q) for q in questions] == [answers[q] for q in questions]
        assert len(srv.log) == len(questions) and fresh.calls == 0


def test_corrupt_cache_is_a_clear_error(tmp_path):
    bad = tmp_path / "c.sqlite"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(ValueError, match="not a usable response cache"):
        ResponseCache(bad)


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
    from pathfinding.hipporag.evaluate import recall_at_k, supporting_ids
    from pathfinding.hipporag.index.build import index_from_openie
    from pathfinding.hipporag.io import load_questions
    from pathfinding.hipporag.retrieve import HippoRetriever

    with ReplayServer(released["raw"]) as srv:
        run = run_openie(released["corpus"], _client(srv), cache=tmp_path / "c.sqlite", concurrency=4)
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
