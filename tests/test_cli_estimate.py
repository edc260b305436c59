"""``--estimate`` on ``index``, ``openie`` and ``sync``: the bill printed with the network blocked and
nothing written."""

import json
import os
import socket

import pytest

from pathfinding.cli import main
from pathfinding.hipporag.extract.llm import ChatClient
from pathfinding.hipporag.extract.openie import ner_messages
from pathfinding.hipporag.transport.cache import ResponseCache
from tests.conftest import PASSAGES


@pytest.fixture
def offline(monkeypatch):
    """No connection can be opened, nor a name looked up: any attempt fails the test."""
    attempts = []

    def refuse(*args, **kwargs):
        attempts.append(args)
        raise OSError("the network is blocked in this test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    yield attempts
    assert attempts == []


def _tree(folder):
    return sorted((p, os.path.getsize(os.path.join(d, p))) for d, _, names in os.walk(folder) for p in names)


def _run(capsys, *argv):
    code = main(["hipporag", *map(str, argv)])
    cap = capsys.readouterr()
    return code, cap.out, cap.err


@pytest.fixture
def docs(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    for t, x in PASSAGES:
        (folder / f"{t}.txt").write_text(x)
    return folder


def test_index_estimate_sends_nothing_and_writes_nothing(docs, tmp_path, capsys, offline):
    before = _tree(tmp_path)
    code, out, _ = _run(capsys, "index", docs, "-o", tmp_path / "i.hippo", "--estimate",
                        "--price-in", "0.5", "--price-out", "1.5", "--rate", "60")  # fmt: skip
    assert code == 0 and _tree(tmp_path) == before
    lines = out.splitlines()
    assert lines[0] == "estimate (no request sent, nothing written):"
    assert lines[1].startswith("  passages: 4 (") and "8 calls to send" in lines[2]
    assert lines[4].startswith("  cost: $0.00") and lines[5] == "  time: ~8.0 s at 60 calls a minute"
    assert "measured now on all of them" in lines[-1]
    code, out, _ = _run(capsys, "index", docs, "-o", tmp_path / "i.hippo", "--estimate", "--json")
    bill = json.loads(out)
    assert bill["estimate"]["calls"] == 8 and bill["cost_usd"] is None and bill["minutes"] is None
    assert bill["no_model"]["sample"] == 4 and _tree(tmp_path) == before


def test_openie_estimate_counts_what_the_cache_answers_and_its_pace(docs, tmp_path, capsys, offline):
    """Two passages' entity step already answered (in 0.5 s each): two calls fewer, and the time at
    that pace over the concurrency."""
    client = ChatClient("http://127.0.0.1:9/v1", "m")
    cache = ResponseCache(tmp_path / "o.json.cache.sqlite")
    for t, x in PASSAGES[:2]:
        cache.put(client.payload(ner_messages(t + "\n" + x)), '{"named_entities": ["Ed Wood"]}',
                  {"prompt_tokens": 300, "completion_tokens": 9}, "stop", seconds=0.5)  # fmt: skip
    cache.close()
    before = _tree(tmp_path)
    code, out, _ = _run(capsys, "openie", docs, "--base-url", "http://127.0.0.1:9/v1", "--model", "m",
                        "-o", tmp_path / "o.json", "--estimate", "--concurrency", "2")  # fmt: skip
    assert code == 0 and _tree(tmp_path) == before, out
    assert "6 calls to send, 2 answered by the cache" in out
    assert "time: ~1.5 s at the cache's pace (0.50 s an answer over 2 answers, 2 at a time)" in out


def test_sync_estimate_prices_the_new_passages_only(docs, tmp_path, capsys, offline):
    code, _, err = _run(capsys, "index", docs, "--extractor", "cooccurrence", "-o", tmp_path / "i.hippo")
    assert code == 0, err
    (docs / "Glendale.txt").write_text("Glendale lies north of Burbank.")
    before = _tree(tmp_path)
    code, out, _ = _run(capsys, "sync", tmp_path / "i.hippo", docs, "--estimate")
    assert code == 0 and _tree(tmp_path) == before
    assert out.splitlines()[0].endswith("1 added, 0 changed, 0 removed, 4 unchanged files; passages: +1, -0")
    assert "2 calls to send" in out and "measured now on all of them" in out
