"""The response cache: its key, what it keeps across opens and threads, and a file that is not one."""

import hashlib
import threading

import pytest

from pathfinding.errors import InvalidValueError
from pathfinding.hipporag.transport.cache import CachedResponse, ResponseCache

USER = [{"role": "user", "content": "hi"}]


def test_the_cache_key_is_the_sha256_of_the_canonical_request(tmp_path):
    """The key is SHA-256 of the body as sorted, compact, UTF-8 JSON, so key order does not matter
    and any change of model or prompt does."""
    body = {"model": "m", "messages": [{"role": "user", "content": "Łódź"}]}
    canon = '{"messages":[{"content":"Łódź","role":"user"}],"model":"m"}'
    assert ResponseCache.key(body) == hashlib.sha256(canon.encode("utf-8")).hexdigest()
    assert ResponseCache.key(dict(reversed(list(body.items())))) == ResponseCache.key(body)


def test_the_cache_keeps_answers_across_opens_and_replaces_by_request(tmp_path):
    path = tmp_path / "c.sqlite"
    cache = ResponseCache(path)
    body = {"model": "m1", "messages": USER}
    cache.put(body, "first", {"prompt_tokens": 1}, "stop")
    cache.put(body, "second", {"prompt_tokens": 2}, "length")
    cache.put({"model": "m2", "messages": USER}, "other", {}, None)
    assert len(cache) == 2
    cache.close()
    again = ResponseCache(path)
    hit = again.get(body)
    assert (hit.content, hit.usage, hit.finish_reason) == ("second", {"prompt_tokens": 2}, "length")
    assert again.get({"model": "m3", "messages": USER}) is None
    assert again._db.execute("SELECT model FROM responses ORDER BY model").fetchall() == [("m1",), ("m2",)]
    again.close()


def test_a_file_that_is_not_a_cache_is_named(tmp_path):
    bad = tmp_path / "c.sqlite"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(InvalidValueError, match=f"^{bad} is not a usable response cache"):
        ResponseCache(bad)


def test_an_answer_comes_back_as_stored_and_the_key_tells_every_field_apart():
    """The same body in another key order is a hit; another model, input or url is a miss (what the
    embeddings encoder keys on); the answer comes back whole."""
    cache = ResponseCache(":memory:")
    body = {"model": "m", "input": "bled", "url": "http://h/v1/embeddings"}
    cache.put(body, "AAAA", {"prompt_tokens": 4}, None)
    assert cache.get(dict(reversed(list(body.items())))) == CachedResponse("AAAA", None, {"prompt_tokens": 4})
    for field, other in (("model", "n"), ("input", "Bled"), ("url", "http://g/v1/embeddings")):
        assert cache.get({**body, field: other}) is None, field
    cache.close()


def test_worker_threads_share_one_cache(tmp_path):
    """Eight threads storing 50 answers each: every answer is found afterwards."""
    cache = ResponseCache(tmp_path / "c.sqlite")

    def work(t):
        for i in range(50):
            cache.put({"model": "m", "messages": [t, i]}, f"{t}-{i}", {}, "stop")

    threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert len(cache) == 400 and cache.get({"model": "m", "messages": [7, 49]}).content == "7-49"
    cache.close()


def test_answers_keep_their_time_and_a_read_only_cache_writes_nothing(tmp_path):
    import os
    import sqlite3

    path = tmp_path / "c.sqlite"
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    cache = ResponseCache(path)
    cache.put(body, "hello", {"prompt_tokens": 1}, "stop", seconds=0.25)
    cache.put({**body, "model": "n"}, "untimed", {}, "stop")
    assert cache.answer_seconds() == [0.25]
    cache.close()
    files = sorted(os.listdir(tmp_path))
    ro = ResponseCache(path, readonly=True)
    assert ro.get(body).content == "hello" and len(ro) == 2 and ro.answer_seconds() == [0.25]
    ro.close()
    assert sorted(os.listdir(tmp_path)) == files
    # a cache written before answers were timed has no table of times: none are known
    old = tmp_path / "old.sqlite"
    db = sqlite3.connect(old)
    db.execute("CREATE TABLE responses (key TEXT PRIMARY KEY, model TEXT, request TEXT, content TEXT, "
               "usage TEXT, finish_reason TEXT)")  # fmt: skip
    db.commit()
    db.close()
    assert ResponseCache(old, readonly=True).answer_seconds() == []
