"""`--encoder URL`: an OpenAI-compatible embeddings endpoint for synonymy and linking, against a
local server on 127.0.0.1 started and stopped by each test."""

import json
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))

from embeddings_server import EmbeddingServer, vector  # noqa: E402

from pathfinding.cli import main  # noqa: E402
from pathfinding.hipporag.index.embeddings import EmbeddingEncoder  # noqa: E402
from pathfinding.hipporag.index.persistence import load_index  # noqa: E402
from pathfinding.hipporag.querycache import load_for_query  # noqa: E402

CORPUS = [
    {"title": "Ed Wood", "text": "Ed Wood directed Plan 9 from Outer Space in Burbank."},
    {"title": "Bela Lugosi", "text": "Bela Lugosi acted in Plan 9 from Outer Space for Ed Wood."},
    {"title": "Burbank", "text": "Burbank is a city in Los Angeles County."},
]


def _run(capsys, argv):
    code = main(argv)
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def test_encoder_is_retried_cached_and_recorded(tmp_path, capsys):
    (tmp_path / "c.json").write_text(json.dumps(CORPUS))
    idx = str(tmp_path / "i.hippo")
    first_fails = lambda n, body: "429" if n == 0 else None  # noqa: E731
    with EmbeddingServer(fault=first_fails) as srv:
        argv = ["hipporag", "index", str(tmp_path / "c.json"), "--extractor", "cooccurrence", "-o", idx]
        code, out, err = _run(capsys, [*argv, "--encoder", srv.base_url, "--encoder-model", "toy"])
        assert code == 0, err
        assert [e["status"] for e in srv.log[:2]] == [429, 200]  # retried after Retry-After
        assert all(e["body"]["model"] == "toy" for e in srv.log)
        index = load_index(idx)
        assert isinstance(index.encoder, EmbeddingEncoder) and index.encoder.model == "toy"
        embedded = srv.texts()
        assert sorted(embedded) == index.phrases  # each phrase once
        want = np.array([vector(p, srv.dim) for p in index.phrases])
        np.testing.assert_allclose(index.node_embeddings, want / np.linalg.norm(want, axis=1, keepdims=True))

        # A query links its entities with the same endpoint; a repeated entity is not asked again.
        n = len(srv.log)
        q = ["hipporag", "query", idx, "Where did Edward Wood film?", "--json"]
        code, out, err = _run(capsys, q)
        rec = json.loads(out)
        assert code == 0 and rec["links"][0]["phrase"] == "ed wood" and rec["links"][0]["cosine"] < 1
        assert srv.texts()[-1] == "edward wood" and len(srv.log) == n + 1
        code, out2, _ = _run(capsys, q)
        assert out2 == out and len(srv.log) == n + 1  # from the cache
        assert isinstance(load_for_query(idx).encoder, EmbeddingEncoder)

    # The server is gone: a rebuild is answered from the cache, identical.
    code, _, err = _run(
        capsys,
        [
            *argv[:-1],
            str(tmp_path / "again.hippo"),
            "--encoder",
            srv.base_url,
            "--encoder-model",
            "toy",
            "--encoder-cache",
            idx + ".embeddings.sqlite",
        ],
    )
    assert code == 0, err
    np.testing.assert_array_equal(load_index(tmp_path / "again.hippo").node_embeddings, index.node_embeddings)


def test_refusal_is_one_line(tmp_path, capsys):
    (tmp_path / "c.json").write_text(json.dumps(CORPUS))
    with EmbeddingServer(fault=lambda n, body: "401") as srv:
        argv = ["hipporag", "index", str(tmp_path / "c.json"), "--extractor", "cooccurrence"]
        code, out, err = _run(capsys, [*argv, "-o", str(tmp_path / "i.hippo"), "--encoder", srv.base_url])
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert err.startswith("pathfinding hipporag index: error: ") and "HTTP 401" in err
    code, _, err = _run(capsys, [*argv, "-o", str(tmp_path / "j.hippo"), "--encoder", "localhost:8080"])
    assert code == 2 and "must be an http(s) URL" in err and len(err.splitlines()) == 1


def test_query_encoder_needs_an_embeddings_index(tmp_path, capsys):
    (tmp_path / "c.json").write_text(json.dumps(CORPUS))
    idx = str(tmp_path / "i.hippo")
    assert (
        main(["hipporag", "index", str(tmp_path / "c.json"), "--extractor", "cooccurrence", "-o", idx]) == 0
    )
    capsys.readouterr()
    code, _, err = _run(capsys, ["hipporag", "query", idx, "Who?", "--encoder", "http://127.0.0.1:9/v1"])
    assert code == 2 and "character-trigram encoder" in err


@pytest.mark.parametrize("bad", [[], [[1.0, 2.0]]])
def test_bad_answers_are_named(bad, monkeypatch):
    enc = EmbeddingEncoder("http://127.0.0.1:9/v1", max_retries=0)
    raw = json.dumps({"data": [{"index": i, "embedding": v} for i, v in enumerate(bad)]}).encode()
    assert "embeddings for 2 texts" in enc._parse(2)(raw)
