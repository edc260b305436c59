"""The vendored files: present as package resources, byte-identical to upstream (sha256 in MANIFEST)."""

import gzip
import hashlib
import re
from importlib import resources

import pytest

from pathfinding.hipporag.io import VENDORED_FILES, load_corpus, load_openie, load_questions, vendored

DATA_DIR = resources.files("pathfinding").joinpath("data", "hipporag")


def _manifest_sha256() -> dict[str, str]:
    text = DATA_DIR.joinpath("MANIFEST.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([^`]+\.gz)` \|.*\| ([0-9a-f]{64}) \|$", text, flags=re.M)
    return dict(rows)


def test_manifest_lists_every_vendored_file():
    assert sorted(_manifest_sha256()) == sorted(VENDORED_FILES.values())


@pytest.mark.parametrize("name", sorted(VENDORED_FILES.values()))
def test_sha256_of_uncompressed_matches_manifest(name):
    raw = gzip.decompress(DATA_DIR.joinpath(name).read_bytes())
    assert hashlib.sha256(raw).hexdigest() == _manifest_sha256()[name]


@pytest.mark.parametrize("name", sorted(VENDORED_FILES.values()))
def test_gzip_is_byte_stable(name):
    head = DATA_DIR.joinpath(name).read_bytes()[:10]
    assert head[4:8] == b"\x00\x00\x00\x00", "gzip mtime must be 0"


def test_vendored_files_load_and_align():
    corpus, c_rep = load_corpus(vendored("corpus"))
    docs, o_rep = load_openie(vendored("openie"), corpus=corpus)
    questions, q_rep = load_questions(vendored("questions"))
    assert (len(corpus), len(docs), len(questions)) == (1890, 1890, 100)
    assert "misaligned_passage" not in o_rep.issues
    assert o_rep.issues == {"triple_not_three": 185, "passage_no_triples": 2}
    assert sum(len(d.triples) for d in docs) == 17419 - 185
    assert c_rep.issues == {"duplicate_title": 211} and q_rep.n_issues == 0  # titles, not passages, repeat
    keys = {p.key for p in corpus}
    assert all(s in keys for q in questions for s in q.supporting)


def test_unknown_vendored_name():
    with pytest.raises(FileNotFoundError, match="no vendored HippoRAG file 'nope'"):
        vendored("nope")
