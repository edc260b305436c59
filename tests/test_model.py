"""The HippoIndex's derived state: the walk graph with and without synonymy, its one cache, the
phrase rule of its settings and the transposed embeddings, on a three-node index written by hand.
"""

import numpy as np
import pytest
import scipy.sparse as sp

import pathfinding.hipporag.index.model as model
from pathfinding.errors import InvalidTypeError, InvalidValueError
from pathfinding.hipporag.index.build import build_index
from pathfinding.hipporag.index.model import HippoIndex, IndexStats
from pathfinding.hipporag.index.persistence import save_index
from pathfinding.hipporag.io.records import FileStamp, Passage, Source
from pathfinding.hipporag.retrieval.querycache import cache_path, load_for_query, write_cache

# Nodes a, b, c: relation edges a-b (weight 2) and b-c (1); one synonymy edge a-c (0.9).
R = np.array([[0.0, 2.0, 0.0], [2.0, 0.0, 1.0], [0.0, 1.0, 0.0]])
S = np.array([[0.0, 0.0, 0.9], [0.0, 0.0, 0.0], [0.9, 0.0, 0.0]])


def _index(embeddings=None, settings=None):
    E = np.eye(3) if embeddings is None else embeddings
    return HippoIndex(
        phrases=["a", "b", "c"],
        relation_graph=sp.csr_array(R),
        synonymy_graph=sp.csr_array(S),
        mentions=sp.csr_array(np.array([[1, 0], [1, 1], [0, 1]])),
        specificity=np.array([1.0, 0.5, 1.0]),
        node_embeddings=E,
        encoder=lambda texts: np.zeros((len(texts), 3)),
        passages=["a b", "b c"],
        stats=IndexStats(2, 2, 2, 3, 2, 1, 0, 0, 0),
        settings={} if settings is None else settings,
    )


def test_the_walk_graph_adds_synonymy_edges_only_when_asked():
    """graph() is R + S (the a-c synonymy edge of weight 0.9 present); graph(synonymy=False) is R."""
    idx = _index()
    np.testing.assert_array_equal(idx.graph().toarray(), R + S)
    np.testing.assert_array_equal(idx.graph(synonymy=True).toarray(), R + S)
    np.testing.assert_array_equal(idx.graph(synonymy=False).toarray(), R)


def test_the_prepared_graphs_are_one_per_setting_and_kept():
    """prepared(True) walks 6 directed edges (3 undirected: a-b, b-c, a-c), prepared(False) 4.

    Each is built once and then returned as the same object, and the two are not confused.
    """
    idx = _index()
    with_syn, without = idx.prepared(synonymy=True), idx.prepared(synonymy=False)
    assert with_syn.n_nodes == without.n_nodes == 3
    assert with_syn.indices.size == 6 and without.indices.size == 4
    assert np.isclose(with_syn.weights.sum(), 2 * (2 + 1 + 0.9))
    assert np.isclose(without.weights.sum(), 2 * (2 + 1))
    assert idx.prepared(synonymy=True) is with_syn and idx.prepared() is with_syn
    assert idx.prepared(synonymy=False) is without


def test_derived_builds_once_per_key():
    """The index's cache calls ``build`` on the first request of a key only, and returns its value."""
    idx = _index()
    calls = []

    def build():
        calls.append(1)
        return ["value", len(calls)]

    first = idx.derived("k", build)
    assert first == ["value", 1] and idx.derived("k", build) is first and len(calls) == 1
    assert idx.derived("other", build) == ["value", 2]


@pytest.mark.parametrize(("settings", "expected"), [({"normalization": "unicode"}, "łódź"), ({}, "d")])
def test_normalize_follows_the_index_rule(settings, expected):
    """An index built under the Unicode rule keeps "Łódź" whole; an older one (no rule recorded) uses
    v1's ASCII rule, which drops every non-ASCII letter and leaves "d"."""
    assert _index(settings=settings).normalize("Łódź") == expected


def test_transposed_embeddings_keep_the_encoders_kind():
    """Dense embeddings give a C-contiguous dense transpose; sparse ones a sparse transpose."""
    E = np.array([[1.0, 0.0], [0.6, 0.8], [0.0, 1.0]])
    dense = _index(embeddings=E).embeddings_T()
    assert isinstance(dense, np.ndarray) and dense.flags.c_contiguous
    np.testing.assert_array_equal(dense, [[1.0, 0.6, 0.0], [0.0, 0.8, 1.0]])
    idx = _index(embeddings=sp.csr_array(E))
    sparse = idx.embeddings_T()
    assert sp.issparse(sparse)
    np.testing.assert_array_equal(sparse.toarray(), [[1.0, 0.6, 0.0], [0.0, 0.8, 1.0]])
    assert idx.embeddings_T() is sparse


def test_an_index_from_its_query_cache_prepares_no_walk_graph(tmp_path, monkeypatch):
    """The query cache stores the prepared walk graph; the loaded index must hand that one out
    rather than prepare the graph again (the point of the cache)."""
    path = tmp_path / "i.hippo"
    save_index(build_index([[("Ed Wood", "directed", "Plan 9")], [("Plan 9", "released in", "1957")]]), path)
    load_for_query(path)  # writes the cache
    fast = load_for_query(path, write=False)

    def refuse(_graph):
        raise AssertionError("prepared the walk graph again")

    monkeypatch.setattr(model, "prepare_graph", refuse)
    assert fast.prepared(synonymy=True).n_nodes == fast.n_nodes


def test_an_index_from_its_query_cache_counts_no_casing_model(tmp_path, monkeypatch):
    """The query cache holds the casing model: a question from the shell never counts the corpus."""
    from pathfinding.hipporag.language.casing import CasingModel, casing_model

    path = tmp_path / "i.hippo"
    texts = ["Ed Wood directed Plan 9.", "Plan 9 was released in 1957."]
    triples = [[("Ed Wood", "directed", "Plan 9")], [("Plan 9", "released in", "1957")]]
    idx = build_index(triples, passages=texts)
    save_index(idx, path)
    load_for_query(path)  # writes the cache
    monkeypatch.setattr(CasingModel, "from_passages", None)  # counting again would fail
    fast = load_for_query(path, write=False)
    assert casing_model(fast) == casing_model(idx)
    assert casing_model(fast).evidence("ed wood").form == "Ed Wood"


def test_the_query_cache_never_replaces_a_file_of_the_user(tmp_path):
    """A file that is not a query cache at INDEX.query-cache is left alone: write_cache refuses by
    name and load_for_query answers from the index without it."""
    path = tmp_path / "i.hippo"
    idx = build_index([[("Ed Wood", "directed", "Plan 9")]], passages=["Ed Wood directed Plan 9."])
    save_index(idx, path)
    mine = tmp_path / "i.hippo.query-cache"
    mine.write_text("my notes")
    assert cache_path(path) == str(mine)
    with pytest.raises(InvalidValueError, match="exists and is not a query cache"):
        write_cache(idx, path)
    assert load_for_query(path).phrases == idx.phrases and mine.read_text() == "my notes"
    mine.unlink()
    stale = tmp_path / "i.hippo.query-cache.tmp-999999999"
    stale.write_bytes(b"PFHIPQRY half")
    assert load_for_query(path).phrases == idx.phrases
    assert not stale.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["i.hippo", mine.name]


def test_stats_summary_counts_one_in_the_singular():
    from pathfinding.hipporag.index.model import IndexStats

    one = IndexStats(
        n_passages=1, n_triples=1, n_unique_triples=1, n_nodes=1, n_relation_edges=1, n_synonymy_edges=1,
        triples_empty_phrase=1, triples_self_loop=1, passages_without_nodes=1,
    )  # fmt: skip
    assert one.summary() == (
        "1 passage, 1 triple (1 unique), 1 phrase node, 1 relation edge, 1 synonymy edge; skipped: 1 "
        "triple with an empty phrase; 1 self-loop triple adds no edge; 1 passage mentions no node"
    )
    two = IndexStats(*(2,) * 9)
    assert "2 synonymy edges" in two.summary() and "2 self-loop triples add no edge" in two.summary()


# --- passage ids ------------------------------------------------------------------------------------


def test_positional_ids_are_the_positions_as_strings_without_a_list():
    ids = model.PositionalIds(3)
    assert list(ids) == ["0", "1", "2"] and ids[1:] == ["1", "2"] and ids == model.PositionalIds(3)
    assert [ids.position(x) for x in ("2", "3", "02", "-1", "x", "²")] == [2, -1, -1, -1, -1, -1]
    assert model.next_free_ids(ids, 2) == ["3", "4"]
    assert model.next_free_ids(["a.md", "7", "10"], 1) == ["11"] and model.next_free_ids([], 1) == ["0"]


def test_an_index_knows_its_passages_by_id():
    idx = _index()
    assert list(idx.passage_ids) == ["0", "1"] and idx.positions_of(["1", "0"]).tolist() == [1, 0]
    named = model.HippoIndex(**{**_fields(idx), "passage_ids": ["b.md", "a.md"]})
    assert named.positions_of(["a.md"]).tolist() == [1] and named.source_of(0) is None
    with pytest.raises(InvalidValueError, match=r"no passage has the id 'c\.md' \(2 passages"):
        named.positions_of(["a.md", "c.md"])
    with pytest.raises(InvalidTypeError, match="passage ids are strings"):
        named.positions_of([0])
    with pytest.raises(InvalidValueError, match="passage id 'a' is given to 2 passages"):
        model.HippoIndex(**{**_fields(idx), "passage_ids": ["a", "a"]})
    with pytest.raises(InvalidValueError, match="1 passage ids for 2 passages"):
        model.HippoIndex(**{**_fields(idx), "passage_ids": ["a"]})
    with pytest.raises(InvalidTypeError, match="passage id 1 must be a non-empty string"):
        model.HippoIndex(**{**_fields(idx), "passage_ids": ["a", " "]})


def test_a_corpus_gives_its_ids_and_sources_and_a_repeated_id_is_refused():
    corpus = [
        Passage("a", "x", doc_id="a.md#top", source=Source("a.md", (), 0, 1)),
        Passage("b", "y"),
    ]
    idx = model.with_passage_labels(_index(), corpus, files={"a.md": FileStamp("0" * 64, 100)})
    assert list(idx.passage_ids) == ["a.md#top", "1"] and idx.source_of(0).file == "a.md"
    assert idx.sources[1] is None and idx.files == {"a.md": FileStamp("0" * 64, 100)}
    assert model.with_passage_labels(_index(), [Passage("a", "x"), Passage("b", "y")]).sources is None
    clash = [Passage("a", "x", doc_id="1"), Passage("b", "y")]  # an id that is another's position
    with pytest.raises(InvalidValueError, match=r"id '1' is given to 2 passages \(positions 0 and 1\)"):
        model.with_passage_labels(_index(), clash)


def _fields(idx):
    import dataclasses

    return {f.name: getattr(idx, f.name) for f in dataclasses.fields(idx) if f.init}
