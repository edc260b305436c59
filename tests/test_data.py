"""``pathfinding data list`` and ``data fetch`` (pathfinding.cli.data), on a registry of two small
files: what each row says, which files a fetch asks for, and what reaches the fetch."""

import json

import pytest

from pathfinding.cli import main
from pathfinding.hipporag.storage import datasets
from pathfinding.hipporag.storage.datasets import DataFile

SMALL = DataFile("small", "data/small.json", 2_500, "ab" * 32, "test, public domain")
LARGE = DataFile("large", "data/large_corpus.json", 3_400_000, "cd" * 32, "test, MIT")


@pytest.fixture
def registry(monkeypatch, tmp_path):
    """Two files in the registry; ``small`` is at hand (in tmp_path), ``large`` is missing. Every
    fetch is recorded instead of run."""
    monkeypatch.setattr(datasets, "REGISTRY", {"small": SMALL, "large": LARGE})
    (tmp_path / "small.json").write_text("[]")
    monkeypatch.setattr(datasets, "locate", lambda name: tmp_path / "small.json" if name == "small" else None)
    status = {"small": (tmp_path / "small.json", "ok"), "large": (None, "missing")}
    monkeypatch.setattr(datasets, "local_status", status.__getitem__)
    monkeypatch.setenv("PATHFINDING_DATA_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("PATHFINDING_DATA", raising=False)
    fetched = []

    def fake_fetch(name, *, source=None, timeout=30.0):
        fetched.append((name, source, timeout))
        return tmp_path / "cache" / datasets.entry(name).filename

    monkeypatch.setattr(datasets, "fetch", fake_fetch)
    return tmp_path, fetched


def test_list_as_json_gives_every_file_and_where_it_is(registry, capsys):
    tmp_path, _ = registry
    assert main(["data", "list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["name"] for r in rows] == ["small", "large"]
    assert rows[0] == {
        "name": "small", "file": "small.json", "size": 2_500, "sha256": "ab" * 32, "url": SMALL.url,
        "licence": "test, public domain", "path": str(tmp_path / "small.json"), "status": "ok",
    }  # fmt: skip
    assert rows[1]["path"] is None and rows[1]["file"] == "large_corpus.json"


def test_list_as_a_table_says_what_is_missing_and_how_to_get_it(registry, capsys):
    tmp_path, fetched = registry
    assert main(["data", "list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"small    2.4 KiB  {tmp_path / 'small.json'}"  # under 0.1 MiB: in KiB
    assert lines[1] == "       test, public domain"
    assert lines[2] == "large    3.2 MiB  missing"
    assert lines[4].startswith(
        f"2 files, 3.2 MiB; cache {tmp_path / 'cache'}, local copy $PATHFINDING_DATA=(not set)"
    )
    assert lines[5] == "missing: 1 (get them with `pathfinding data fetch`)"
    assert fetched == []  # listing downloads nothing


def test_fetch_asks_for_every_file_or_for_the_ones_named(registry, capsys):
    tmp_path, fetched = registry
    assert main(["data", "fetch"]) == 0
    assert fetched == [("small", None, 30.0), ("large", None, 30.0)]
    assert capsys.readouterr().out.splitlines() == [
        f"small: {tmp_path / 'cache' / 'small.json'}", f"large: {tmp_path / 'cache' / 'large_corpus.json'}"
    ]  # fmt: skip
    fetched.clear()
    assert main(["data", "fetch", "large_corpus.json", "--from", "/mirror", "--timeout", "5"]) == 0
    assert fetched == [("large", "/mirror", 5.0)]  # a file name is a name too


def test_an_unknown_name_is_one_line_and_nothing_is_fetched(registry, capsys):
    _, fetched = registry
    assert main(["data", "fetch", "small", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(
        "pathfinding data fetch: error: no data file 'nope'; expected one of ['large', 'small']"
    )
    assert fetched == []  # every name is checked before the first download
