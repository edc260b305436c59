"""``pathfinding hipporag info`` (pathfinding.cli.info): what an index holds, whether its query cache
is current, stale or absent, read without writing anything."""

import json
import shutil

import pytest

from pathfinding.cli import main
from pathfinding.cli.info import index_info
from pathfinding.hipporag.index.build import build_index
from pathfinding.hipporag.index.persistence import save_index
from tests.conftest import PASSAGES

TITLES = sorted(t for t, _ in PASSAGES)  # a folder's files are read in name order


@pytest.fixture
def copy(built, tmp_path):
    """The four-passage index of the ``built`` fixture and its query cache, copied."""
    for name in ("i.hippo", "i.hippo.query-cache"):
        shutil.copy(built / name, tmp_path / name)
    return tmp_path / "i.hippo"


def test_the_counts_settings_and_encoder_of_an_index(copy):
    info = index_info(str(copy))
    assert info["index"] == str(copy) and info["bytes"] == copy.stat().st_size
    assert info["stats"]["n_passages"] == 4 and info["has_texts"] is True
    assert info["settings"]["tau"] == 0.8 and "passages" not in info
    assert "grams" not in info["encoder"] and info["encoder"]  # the n-gram list is left out
    listed = index_info(str(copy), passages=True)["passages"]
    # a folder's passages: each file's path is its id, and its source says where its text came from
    assert [(p["id"], p["title"]) for p in listed] == [(f"{t}.txt", t) for t in TITLES]
    assert all(p["source"]["file"] == p["id"] and p["source"]["start"] == 0 for p in listed)


def test_the_query_cache_is_current_absent_or_stale_and_info_writes_none(copy, tmp_path):
    cache = tmp_path / "i.hippo.query-cache"
    assert index_info(str(copy))["query_cache"] == "current"
    old = cache.read_bytes()
    cache.unlink()
    assert index_info(str(copy))["query_cache"] == "none"
    assert not cache.exists()  # info only reads
    save_index(
        build_index([[("Ed Wood", "directed", "Plan 9")]], passages=["Ed Wood\nEd Wood directed Plan 9."]),
        copy,
    )
    cache.write_bytes(old)  # the cache of the index that was there before
    assert index_info(str(copy))["query_cache"] == "stale"
    assert cache.read_bytes() == old


def test_an_index_without_texts_says_so(tmp_path, capsys):
    path = tmp_path / "bare.hippo"
    save_index(build_index([[("Ed Wood", "directed", "Plan 9")], [("Plan 9", "filmed in", "Burbank")]]), path)
    info = index_info(str(path), passages=True)
    assert info["has_texts"] is False and info["passages"] == [
        {"id": "0", "title": None, "source": None},
        {"id": "1", "title": None, "source": None},
    ]
    assert main(["hipporag", "info", str(path), "--passages"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "  passage texts: none stored (BM25 and titles are unavailable)" in out
    assert out[-2:] == ["  [0] (no text stored)", "  [1] (no text stored)"]


def test_the_lines_and_the_json_say_the_same(copy, capsys):
    assert main(["hipporag", "info", str(copy), "--json"]) == 0
    as_json = json.loads(capsys.readouterr().out)
    assert as_json == json.loads(json.dumps(index_info(str(copy))))
    assert main(["hipporag", "info", str(copy), "--passages"]) == 0
    out = capsys.readouterr().out.splitlines()
    s = as_json["stats"]
    assert out[0] == f"{copy}: {as_json['bytes']:,} bytes, query cache current"
    assert out[1].startswith(f"  4 passages, {s['n_triples']} triples ({s['n_unique_triples']} unique), ")
    assert out[2].startswith("  settings: ") and "tau=0.8" in out[2]
    listed = index_info(str(copy), passages=True)["passages"]
    want = [f"  [{p['id']}] {p['title']}  ({p['id']}: characters 0-{p['source']['end']})" for p in listed]
    assert out[-4:] == want


def test_a_path_that_is_not_an_index_is_one_line(tmp_path, capsys):
    assert main(["hipporag", "info", str(tmp_path / "nope.hippo")]) == 2
    assert capsys.readouterr().err.startswith("pathfinding hipporag info: error: ")
