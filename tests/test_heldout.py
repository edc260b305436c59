"""The vendored held-out question sets: byte-identical to their manifest, and loadable as a test set."""

import gzip
import hashlib
import re
from importlib import resources

import pytest

from pathfinding.experiments.heldout import HELDOUT_FILES, load_heldout

HELDOUT_DIR = resources.files("pathfinding").joinpath("data", "heldout")


@pytest.mark.parametrize("name", sorted(HELDOUT_FILES.values()))
def test_heldout_file_matches_manifest(name):
    text = HELDOUT_DIR.joinpath("MANIFEST.md").read_text(encoding="utf-8")
    sha = dict(re.findall(r"^\| `([^`]+\.gz)` \|.*\| ([0-9a-f]{64}) \|$", text, flags=re.M))
    raw = HELDOUT_DIR.joinpath(name).read_bytes()
    assert raw[4:8] == b"\x00\x00\x00\x00", "gzip mtime must be 0"
    assert hashlib.sha256(gzip.decompress(raw)).hexdigest() == sha[name]


def test_heldout_loads_with_two_supporting_passages_each():
    data = load_heldout()
    assert (len(data["questions"]), len(data["corpus"])) == (100, 994)
    assert all(len(q.supporting) == 2 for q in data["questions"])
    assert all(r.n_issues == 0 for r in data["reports"])
