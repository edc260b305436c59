"""A synthetic corpus written as a corpus JSON and an OpenIE file: what the loaders read back is the
corpus, and the command line indexes it as the library does."""

import json

import pytest

from pathfinding.cli import main
from pathfinding.errors import InvalidTypeError
from pathfinding.hipporag.index.build import build_index
from pathfinding.hipporag.index.persistence import load_index
from pathfinding.hipporag.io.loaders import load_corpus, load_openie
from pathfinding.synthetic.corpus import synthetic_corpus
from pathfinding.synthetic.hipporag_files import write_hipporag_files


def test_the_files_read_back_as_the_corpus_and_index_as_the_library_builds_it(tmp_path, capsys):
    c = synthetic_corpus(60, rng=3)
    corpus_path, openie_path = write_hipporag_files(c, tmp_path)
    corpus, report = load_corpus(corpus_path)
    docs, oreport = load_openie(openie_path, corpus=corpus)
    assert [p.key for p in corpus] == c.passages and report.n_issues == 0
    assert [[list(t) for t in d.triples] for d in docs] == [[list(t) for t in ts] for ts in c.triples]
    assert oreport.n_issues == 0 and all(d.entities == tuple(sorted(d.entities)) for d in docs)
    assert json.loads(open(openie_path).read())["docs"][0]["title"] == c.titles[0]
    out = tmp_path / "i.hippo"
    assert main(["hipporag", "index", corpus_path, "--openie", openie_path, "-o", str(out)]) == 0
    capsys.readouterr()
    idx, ref = load_index(out), build_index(c.triples, passages=c.passages)
    assert idx.phrases == ref.phrases and idx.triples == ref.triples and idx.passages == ref.passages
    assert (idx.relation_graph != ref.relation_graph).nnz == 0 and idx.stats == ref.stats


def test_only_a_synthetic_corpus_is_written(tmp_path):
    with pytest.raises(InvalidTypeError, match="corpus must be a SyntheticCorpus, got list"):
        write_hipporag_files([], tmp_path)
