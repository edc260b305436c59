"""The synthetic corpus: deterministic for a seed, with the near-duplicate names a real corpus has."""

from __future__ import annotations

import pytest

from pathfinding.hipporag.index.build import build_index
from pathfinding.synthetic.corpus import corpus_stats, synthetic_corpus


def test_synthetic_corpus_is_deterministic_and_has_near_duplicates():
    a, b = synthetic_corpus(400, rng=7), synthetic_corpus(400, rng=7)
    assert a.passages == b.passages and a.triples == b.triples and a.questions == b.questions
    assert synthetic_corpus(400, rng=8).passages != a.passages
    idx = build_index(a.triples, passages=a.passages)
    assert idx.stats.n_synonymy_edges > 0.02 * idx.n_nodes
    for q in a.questions[:20]:
        assert q.entities[0] in q.question and len(set(q.gold)) == 2
    s = corpus_stats(a)
    assert 7 < s["triples_per_passage"] < 11


@pytest.mark.parametrize("bad", [{"n_passages": 1}, {"n_passages": 10, "variant_rate": 1.5}])
def test_synthetic_corpus_rejects_bad_input(bad):
    bad = dict(bad)  # the parameter is shared: a second run in one process must find it whole
    n = bad.pop("n_passages")
    with pytest.raises(ValueError, match="must be in"):
        synthetic_corpus(n, **bad)
