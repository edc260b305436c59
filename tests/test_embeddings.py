"""The embeddings-endpoint encoder: what it sends, how it turns answers into unit rows, its cache,
what it records in an index, the errors it gives, and `--encoder URL` from the command line, against
local servers on 127.0.0.1 started and stopped by each test.

Expected rows are computed here from the server's own vectors (``vector`` / its norm), not by the
encoder's code.
"""

import json

import numpy as np
import pytest
from embeddings_server import EmbeddingServer, vector  # noqa: E402
from scripted_server import ScriptedServer

from pathfinding.cli import main
from pathfinding.errors import InvalidTypeError, InvalidValueError, LLMError
from pathfinding.hipporag.index.embeddings import EmbeddingEncoder  # noqa: E402
from pathfinding.hipporag.index.persistence import load_index
from pathfinding.hipporag.retrieval.querycache import load_for_query


def _unit(text, dim):
    v = np.array(vector(text, dim))
    return v / np.sqrt((v * v).sum())


def _enc(url, **kw):
    return EmbeddingEncoder(url, **{"backoff": 0.001, "max_retries": 1, "timeout": 5.0, **kw})


def test_rows_are_the_servers_vectors_made_unit_in_the_callers_order(tmp_path):
    """Five texts with a repeat and an empty one, in batches of two: the three distinct non-empty
    texts are sent once each (2 + 1 per request), the rows follow the caller's order, a repeated
    text gets the same row and the blank text a zero row."""
    texts = ["ed wood", "plan 9", "", "ed wood", "burbank"]
    with EmbeddingServer(dim=16) as srv:
        enc = _enc(srv.base_url, model="toy", batch_size=2)
        X = enc(texts)
        assert [e["body"]["input"] for e in srv.log] == [["ed wood", "plan 9"], ["burbank"]]
        assert all(e["body"]["model"] == "toy" for e in srv.log)
    assert X.shape == (5, 16) and X.dtype == np.float64 and enc.dim == 16
    for i, t in enumerate(texts):
        np.testing.assert_allclose(X[i], _unit(t, 16) if t else np.zeros(16), rtol=0, atol=1e-15)


def test_progress_is_logged_per_batch_only_when_there_are_several(caplog):
    """Three texts in batches of two: two requests, each logged with the texts done so far; one
    batch logs nothing."""
    with EmbeddingServer(dim=4) as srv, caplog.at_level("INFO", logger="pathfinding"):
        _enc(srv.base_url, batch_size=2)(["a", "b", "c"])
        _enc(srv.base_url, batch_size=3)(["d", "e", "f"])
    assert [r.getMessage() for r in caplog.records] == [
        "embeddings: 2 of 3 texts embedded",
        "embeddings: 3 of 3 texts embedded",
    ]


def test_blank_texts_only_give_an_empty_matrix_and_send_nothing():
    """Texts that are only whitespace are never sent; with no dimension known yet the rows are empty."""
    with EmbeddingServer(dim=8) as srv:
        X = _enc(srv.base_url)(["", "  "])
        assert srv.log == []
    assert X.shape == (2, 0)


def test_the_cache_answers_a_second_encoder_exactly(tmp_path):
    """A second encoder over the same cache file sends nothing for the texts already embedded and
    gives bit-identical rows; a new text is still sent, alone."""
    cache = tmp_path / "e.sqlite"
    with EmbeddingServer(dim=12) as srv:
        first = _enc(srv.base_url, cache=cache)(["lake bled", "slovenia"])
        n = len(srv.log)
        again = _enc(srv.base_url, cache=cache)
        np.testing.assert_array_equal(again(["slovenia", "lake bled"]), first[::-1])
        assert len(srv.log) == n and again.dim == 12
        again(["bled", "slovenia"])
        assert len(srv.log) == n + 1 and srv.log[-1]["body"]["input"] == ["bled"]


def test_the_cache_file_is_keyed_by_model_text_and_url(tmp_path):
    """A vector is stored under the request ``{"model", "input", "url"}`` as base64 of little-endian
    float64, so a cache file written by one run (or version) is found by the next."""
    import base64

    from pathfinding.hipporag.transport.cache import ResponseCache

    cache = tmp_path / "e.sqlite"
    with EmbeddingServer(dim=8) as srv:
        _enc(srv.base_url, cache=cache, model="toy")(["bled"])
    hit = ResponseCache(cache).get({"model": "toy", "input": "bled", "url": srv.base_url + "/embeddings"})
    assert hit is not None
    np.testing.assert_array_equal(
        np.frombuffer(base64.b64decode(hit.content), dtype="<f8"), vector("bled", 8)
    )


def test_the_cache_is_per_model(tmp_path):
    """The same text under another model name is sent again (a cached vector belongs to its model)."""
    cache = tmp_path / "e.sqlite"
    with EmbeddingServer(dim=8) as srv:
        _enc(srv.base_url, cache=cache, model="a")(["bled"])
        _enc(srv.base_url, cache=cache, model="b")(["bled"])
        assert [e["body"]["model"] for e in srv.log] == ["a", "b"]


def _answering(vectors_by_call, usage=None):
    def answer(n, path, headers, body):
        vecs = vectors_by_call[n]
        payload = {"data": [{"index": i, "embedding": v} for i, v in enumerate(vecs)]}
        if usage is not None:
            payload["usage"] = usage
        return 200, payload, []

    return answer


def test_rows_are_matched_by_index_and_a_zero_vector_stays_zero():
    """An answer listed out of order is put back in ``index`` order; a zero vector (norm 0) gives a
    zero row instead of NaN; (3, 4) and (0.3, 0.4) both become (0.6, 0.8), a short vector is
    lengthened as a long one is shortened."""

    def answer(n, path, headers, body):
        data = [
            {"index": 1, "embedding": [0.0, 0.0]},
            {"index": 2, "embedding": [0.3, 0.4]},
            {"index": 0, "embedding": [3.0, 4.0]},
        ]
        return 200, {"data": data}, []

    with ScriptedServer(answer) as srv:
        X = _enc(srv.base_url)(["a", "b", "c"])
        assert srv.log[0]["path"] == "/v1/embeddings"
    np.testing.assert_allclose(X, [[0.6, 0.8], [0.0, 0.0], [0.6, 0.8]], rtol=0, atol=1e-15)


def test_embeddings_of_another_length_are_refused_by_name():
    """A server whose second answer has 3 dimensions after 2 is refused; the error names the URL,
    both lengths and the model."""
    with ScriptedServer(_answering([[[1.0, 0.0]], [[1.0, 0.0, 0.0]]])) as srv:
        enc = _enc(srv.base_url, model="m1")
        enc(["a"])
        with pytest.raises(
            InvalidValueError, match=r"/v1/embeddings returned embeddings of different lengths \[2, 3\].*'m1'"
        ):
            enc(["b"])


def test_one_answer_of_mixed_lengths_is_refused():
    with ScriptedServer(_answering([[[1.0, 0.0], [1.0, 0.0, 0.0]]])) as srv:
        with pytest.raises(InvalidValueError, match=r"different lengths \[2, 3\]"):
            _enc(srv.base_url)(["a", "b"])


def test_the_api_key_is_sent_as_a_bearer_token_and_usage_is_counted():
    """``api_key`` reaches the server as ``Authorization: Bearer ...``; the answer's integer
    ``prompt_tokens`` is added to the client's counters, a non-integer one is ignored."""
    with ScriptedServer(_answering([[[1.0]], [[1.0]]], usage={"prompt_tokens": 7})) as srv:
        enc = _enc(srv.base_url, api_key="sk-test")
        enc(["a"])
        assert srv.log[0]["headers"]["Authorization"] == "Bearer sk-test"
    assert enc.transport.stats.prompt_tokens == 7
    assert enc.transport.stats.completion_tokens == 0  # an embeddings answer has none
    with ScriptedServer(_answering([[[1.0]]], usage={"prompt_tokens": "7"})) as srv:
        enc = _enc(srv.base_url)
        enc(["a"])
    assert enc.transport.stats.prompt_tokens == 0


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        (b"not json", "not an embeddings answer: b'not json'"),
        (json.dumps({"data": [{"index": 0}]}).encode(), "not an embeddings answer"),
        (json.dumps({"rows": []}).encode(), "not an embeddings answer"),
        (json.dumps({"data": [{"index": 0, "embedding": [[1.0]]}]}).encode(), "1 embeddings for 1 texts"),
        (json.dumps({"data": [{"index": 0, "embedding": []}]}).encode(), "1 embeddings for 1 texts"),
        (json.dumps({"data": [{"index": 0, "embedding": ["x"]}]}).encode(), "not an embeddings answer"),
    ],
)
def test_unusable_answers_say_why(raw, why):
    """A body that is not JSON, lacks ``data`` or ``embedding``, or holds a vector that is not a
    non-empty list of numbers is unusable, and the reason says what came back."""
    enc = EmbeddingEncoder("http://127.0.0.1:9/v1")
    out = enc._parse(1)(raw)
    assert isinstance(out, str) and why in out


def test_a_usable_answer_is_parsed_in_index_order():
    enc = EmbeddingEncoder("http://127.0.0.1:9/v1")
    raw = json.dumps(
        {"data": [{"index": 1, "embedding": [2.0]}, {"embedding": [1.0]}], "usage": {"prompt_tokens": 3}}
    ).encode()
    out = enc._parse(2)(raw)
    assert [v.tolist() for v in out.vectors] == [[1.0], [2.0]] and out.usage == {"prompt_tokens": 3}


def test_an_unusable_answer_is_retried_then_given_up_on():
    """Bodies that are not embeddings are retried like a 5xx and end in an LLMError naming them."""
    with ScriptedServer(lambda n, p, h, b: (200, b"oops", [])) as srv:
        with pytest.raises(LLMError, match="gave up after 2 attempts.*not an embeddings answer: b'oops'"):
            _enc(srv.base_url, max_retries=1)(["a"])
        assert len(srv.log) == 2


def test_texts_must_be_a_sequence_of_strings():
    enc = EmbeddingEncoder("http://127.0.0.1:9/v1")
    with pytest.raises(InvalidTypeError, match="^texts must be a sequence of strings, got a string$"):
        enc("ed wood")
    with pytest.raises(InvalidTypeError, match="^texts must be strings$"):
        enc(["ed wood", 3])


def test_batch_size_is_checked_by_name():
    with pytest.raises(InvalidValueError, match=r"^batch_size must be in \[1, inf\], got 0"):
        EmbeddingEncoder("http://127.0.0.1:9/v1", batch_size=0)
    assert EmbeddingEncoder("http://127.0.0.1:9/v1", batch_size=1).batch_size == 1


def test_only_the_url_is_positional():
    with pytest.raises(TypeError, match="positional argument"):
        EmbeddingEncoder("http://127.0.0.1:9/v1", "bge-small")
    assert EmbeddingEncoder(base_url="http://127.0.0.1:9/v1").base_url == "http://127.0.0.1:9/v1"


def test_the_transport_settings_reach_the_transport():
    """The URL loses a trailing slash and gains ``/embeddings``; timeout, retries and backoff are
    the transport's, which is named "embeddings" in its messages; the model defaults to "default"
    and the batch to 64."""
    enc = EmbeddingEncoder("http://h:1/v1/", timeout=3.5, max_retries=2, backoff=0.25)
    t = enc.transport
    assert enc.base_url == "http://h:1/v1" and t.url == "http://h:1/v1/embeddings"
    assert (t.timeout, t.max_retries, t.backoff, t.name) == (3.5, 2, 0.25, "embeddings")
    assert enc.model == "default" and enc.batch_size == 64
    assert enc.cache_path is None and enc.dim is None
    assert EmbeddingEncoder("http://h:1/apiX/").base_url == "http://h:1/apiX"  # only the slash goes
    default = EmbeddingEncoder("http://h:1/v1").transport
    assert (default.timeout, default.max_retries, default.backoff) == (60.0, 6, 1.0)
    assert repr(enc) == "EmbeddingEncoder(url='http://h:1/v1/embeddings', model='default')"


def test_the_index_records_endpoint_model_dimension_batch_and_cache_but_no_key(tmp_path):
    cache = tmp_path / "e.sqlite"
    with EmbeddingServer(dim=8) as srv:
        enc = _enc(srv.base_url + "/", model="toy", api_key="sk-secret", batch_size=5, cache=cache)
        enc(["bled"])
        spec = enc.index_spec()
    assert spec == {
        "kind": "embeddings",
        "base_url": srv.base_url,
        "model": "toy",
        "dim": 8,
        "batch_size": 5,
        "cache": str(cache),
    }
    assert "sk-secret" not in json.dumps(spec)


def test_from_spec_rebuilds_the_encoder_and_takes_the_key_from_the_environment(tmp_path, monkeypatch):
    """A recorded spec gives the same endpoint, model, batch, dimension and cache; the key comes from
    ``$PATHFINDING_EMBEDDINGS_API_KEY`` unless given; a cache whose folder is gone is dropped."""
    spec = {
        "kind": "embeddings",
        "base_url": "http://h:1/v1",
        "model": "toy",
        "dim": 8,
        "batch_size": 5,
        "cache": str(tmp_path / "e.sqlite"),
    }
    monkeypatch.setenv("PATHFINDING_EMBEDDINGS_API_KEY", "sk-env")
    enc = EmbeddingEncoder.from_spec(spec)
    want = ("http://h:1/v1/embeddings", "toy", 5, 8)
    assert (enc.transport.url, enc.model, enc.batch_size, enc.dim) == want
    assert enc.cache_path == str(tmp_path / "e.sqlite")
    assert enc.transport._api_key == "sk-env"
    assert EmbeddingEncoder.from_spec(spec, api_key="sk-given").transport._api_key == "sk-given"
    moved = EmbeddingEncoder.from_spec({**spec, "cache": str(tmp_path / "gone" / "e.sqlite"), "dim": None})
    assert moved.cache_path is None and moved.dim is None
    monkeypatch.delenv("PATHFINDING_EMBEDDINGS_API_KEY")
    bare = EmbeddingEncoder.from_spec({"base_url": "http://h:1/v1", "model": "toy"})
    assert bare.batch_size == 64 and bare.dim is None and bare.cache_path is None
    assert bare.transport._api_key is None




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


def test_configure_moves_the_endpoint_and_changes_the_waits_keeping_the_key():
    enc = EmbeddingEncoder("http://old:1/v1", model="toy", api_key="sk", timeout=9.0)
    enc.configure(base_url="https://new:2/v1/", max_retries=1, backoff=0.5)
    t = enc.transport
    assert (enc.base_url, t.url) == ("https://new:2/v1", "https://new:2/v1/embeddings")
    assert (t.timeout, t.max_retries, t.backoff, t._api_key, t.name) == (9.0, 1, 0.5, "sk", "embeddings")
    enc.configure()  # nothing to change
    assert enc.transport.url == t.url and enc.model == "toy"
    with pytest.raises(InvalidValueError, match=r"^base_url must be an http\(s\) URL, got 'new:2/v1'$"):
        enc.configure(base_url="new:2/v1")
    with pytest.raises(InvalidValueError, match=r"^timeout must be in \(0.0, 3600.0\], got -1.0"):
        enc.configure(timeout=-1.0)


def test_progress_is_reported_per_batch_when_there_are_several(caplog):
    """Five texts in batches of two: three INFO lines counting the texts embedded; one batch: none."""
    import logging

    with EmbeddingServer(dim=8) as srv, caplog.at_level(logging.INFO, logger="pathfinding"):
        _enc(srv.base_url, batch_size=2)(["a b", "c d", "e f", "g h", "i j"])
        lines = [r.getMessage() for r in caplog.records]
        assert lines == [f"embeddings: {n} of 5 texts embedded" for n in (2, 4, 5)]
        caplog.clear()
        _enc(srv.base_url)(["k l"])
        assert caplog.records == []


# --- a dead endpoint from the command line: every retry on stderr, the wait bounded by the flags ---


def _dead_endpoint_lines(err: str, n_attempts: int, timeout: str) -> list[str]:
    """The retry lines of ``err``, checked: one per attempt but the last, in order."""
    lines = [ln for ln in err.splitlines() if ln.startswith("embeddings: attempt ")]
    assert [ln.split(" failed")[0] for ln in lines] == [
        f"embeddings: attempt {a}/{n_attempts}" for a in range(1, n_attempts)
    ]
    assert all(f"failed (no answer within {timeout} s); retrying in " in ln for ln in lines)
    return lines


def test_index_against_a_dead_endpoint_reports_each_retry_and_gives_up_in_time(tmp_path):
    """In a subprocess, as a user runs it: --timeout 0.2 --retries 2 --backoff 0.01 against a server
    that never answers. Two retry lines, then one error line naming the endpoint; status 2; the whole
    run takes at least the three timeouts and at most the bound plus the start-up of Python."""
    import os
    import subprocess
    import sys
    import time
    from pathlib import Path

    from scripted_server import SilentServer

    from pathfinding.hipporag.transport.http import Transport

    root = Path(__file__).resolve().parents[1]
    (tmp_path / "c.json").write_text(json.dumps(CORPUS))
    flags = ["--timeout", "0.2", "--retries", "2", "--backoff", "0.01"]
    with SilentServer() as srv:
        argv = ["hipporag", "index", str(tmp_path / "c.json"), "--extractor", "cooccurrence"]
        argv += ["-o", str(tmp_path / "i.hippo"), "--encoder", srv.base_url, *flags]
        t0 = time.monotonic()
        proc = subprocess.run(
            [sys.executable, "-m", "pathfinding", *argv], capture_output=True, text=True, cwd=root,
            env={**os.environ, "PYTHONPATH": str(root)}, timeout=120,
        )  # fmt: skip
        elapsed = time.monotonic() - t0
    bound = Transport("http://h/v1", timeout=0.2, max_retries=2, backoff=0.01).max_wait()
    assert proc.returncode == 2 and proc.stdout == ""
    _dead_endpoint_lines(proc.stderr, 3, "0.2")
    last = proc.stderr.splitlines()[-1]
    assert last == (
        f"pathfinding hipporag index: error: {srv.base_url}/embeddings: gave up after 3 attempts; "
        "last error: no answer within 0.2 s"
    )
    assert 0.6 <= elapsed <= bound + 30  # 30 s: a Python start-up on a loaded machine, not waiting
    assert not (tmp_path / "i.hippo").exists()


def test_query_and_add_take_the_flags_for_the_index_endpoint(tmp_path, capsys):
    """An index built with a live endpoint, then asked through a dead one: query (a new entity must
    be embedded) and add (new phrases) report each retry and end in one error line, within the bound
    of their --timeout and --retries; eval's parser takes the same flags."""
    import time

    from scripted_server import SilentServer

    from pathfinding.cli import build_parser

    (tmp_path / "c.json").write_text(json.dumps(CORPUS))
    (tmp_path / "more.json").write_text(json.dumps([{"title": "Paris", "text": "Paris is in France."}]))
    idx = str(tmp_path / "i.hippo")
    with EmbeddingServer() as srv:
        argv = ["hipporag", "index", str(tmp_path / "c.json"), "--extractor", "cooccurrence", "-o", idx]
        assert main([*argv, "--encoder", srv.base_url]) == 0
    capsys.readouterr()
    flags = ["--timeout", "0.2", "--retries", "1", "--backoff", "0.01"]
    with SilentServer() as dead:
        commands = {
            "query": ["hipporag", "query", idx, "Where did Edward Wood film?", "--encoder", dead.base_url],
            "add": ["hipporag", "add", idx, "--corpus", str(tmp_path / "more.json"), "--extractor",
                    "cooccurrence", "-o", str(tmp_path / "j.hippo")],
        }  # fmt: skip
        for name, argv in commands.items():
            if name == "add":  # the index records the live server's address: point it at the dead one
                from pathfinding.hipporag.index.persistence import load_index, save_index

                moved = load_index(idx)
                moved.encoder.configure(base_url=dead.base_url)
                save_index(moved, idx)
            t0 = time.monotonic()
            code, out, err = _run(capsys, [*argv, *flags])
            elapsed = time.monotonic() - t0
            assert code == 2, (name, err)
            _dead_endpoint_lines(err, 2, "0.2")
            last = err.splitlines()[-1]
            assert last.startswith(f"pathfinding hipporag {name}: error: {dead.base_url}")
            assert last.endswith("gave up after 2 attempts; last error: no answer within 0.2 s")
            assert 0.4 <= elapsed <= 0.4 + 0.02 + 5.0, name  # two timeouts, one wait; 5 s for the rest
    args = build_parser().parse_args(["hipporag", "eval", "q.json", "--index", idx, *flags])
    assert (args.timeout, args.retries, args.backoff) == (0.2, 1, 0.01)
