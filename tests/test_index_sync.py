"""Keeping an index in step with a folder: a sync after any edits equals a fresh index of the folder,
and the passages of files it did not touch keep their ids."""

import os
import shutil
import tempfile

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathfinding.errors import FormatError, InvalidValueError
from pathfinding.hipporag.extract.cooccurrence import cooccurrence_docs
from pathfinding.hipporag.index import sync as sync_module
from pathfinding.hipporag.index.build import build_index
from pathfinding.hipporag.index.model import with_passage_labels
from pathfinding.hipporag.index.sync import SyncPlan, _in_folder_order, apply_sync, index_max_chars, plan_sync
from pathfinding.hipporag.io.corpusfiles import folder_files
from pathfinding.hipporag.io.loaders import load_corpus
from pathfinding.hipporag.retrieval.retrieve import HippoRetriever
from tests.test_maintenance import assert_same_index

NAMES = ["Alice Smith", "Bob Jones", "Paris", "Rome", "Acme Corp", "Plan Nine", "Oslo", "Carol White"]
QUESTIONS = ["Where did Alice Smith meet Bob Jones?", "Who works at Acme Corp in Oslo?", "Carol White Rome"]


def _fresh(folder, max_chars):
    corpus, report = load_corpus(folder, max_chars=max_chars)
    triples = [d.triples for d in cooccurrence_docs(corpus)]
    index = build_index(triples, passages=[p.key for p in corpus])
    return with_passage_labels(index, corpus, files=report.files)


def _sync(index, folder, max_chars=None, refit=True):
    plan = plan_sync(index, folder, max_chars=max_chars)
    triples = [d.triples for d in cooccurrence_docs(plan.passages)]
    return apply_sync(index, plan, triples, refit=refit), plan


def _by_id(index):
    return {pid: (index.passages[j], index.source_of(j)) for j, pid in enumerate(index.passage_ids)}


def _scores(index, question):
    hit = HippoRetriever(index).retrieve(question, k=index.n_passages)
    return {index.passage_ids[j]: s for j, s in zip(hit.passages.tolist(), hit.scores.tolist(), strict=True)}


def assert_same_as_fresh(synced, fresh):
    """The same passages under the same ids in the same order, the same index, and for every question
    the same ranking with the same scores."""
    assert list(synced.passage_ids) == list(fresh.passage_ids) and _by_id(synced) == _by_id(fresh)
    assert synced.files == fresh.files
    assert_same_index(synced, fresh)
    for q in QUESTIONS:
        assert list(_scores(synced, q).items()) == list(_scores(fresh, q).items())


def _write(folder, name, text):
    path = os.path.join(folder, *name.split("/"))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def test_a_sync_adds_changes_and_removes_files_and_touches_nothing_else(tmp_path):
    docs = tmp_path / "docs"
    _write(
        docs,
        "a.md",
        "# A\n\n## One\nAlice Smith met Bob Jones in Paris.\n\n## Two\nCarol White lives in Rome.\n",
    )
    _write(docs, "b.txt", "Acme Corp opened an office in Oslo.")
    _write(docs, "old/c.md", "Plan Nine was shot in Oslo.")
    index = _fresh(docs, 40)
    assert list(index.passage_ids) == ["a.md#a/one", "a.md#a/two", "b.txt", "old/c.md"]
    assert index_max_chars(index) == 40 and plan_sync(index, docs).empty
    _write(
        docs,
        "a.md",
        "# A\n\n## One\nAlice Smith met Bob Jones in Paris.\n\n## Two\nCarol White lives in Oslo.\n",
    )
    _write(docs, "new.md", "Acme Corp hired Carol White in Paris.")
    os.remove(docs / "old" / "c.md")
    synced, plan = _sync(index, docs)
    assert (plan.added, plan.changed, plan.removed, plan.unchanged) == (
        ["new.md"],
        ["a.md"],
        ["old/c.md"],
        ["b.txt"],
    )
    assert plan.summary() == "1 added, 1 changed, 1 removed, 1 unchanged files; passages: +3, -3"
    assert sorted(plan.gone) == [0, 1, 3]
    # a.md's parts come back under their ids; every passage in the folder's path order
    assert list(synced.passage_ids) == ["a.md#a/one", "a.md#a/two", "b.txt", "new.md"]
    assert_same_as_fresh(synced, _fresh(docs, 40))
    again, plan = _sync(synced, docs)
    assert plan.empty and again is synced


def test_the_summary_says_file_only_for_exactly_one():
    assert SyncPlan().summary() == "0 added, 0 changed, 0 removed, 0 unchanged files; passages: +0, -0"
    assert SyncPlan(unchanged=["a.md"]).summary().endswith(" 1 unchanged file; passages: +0, -0")


def test_an_index_with_no_sources_is_already_in_folder_order():
    idx = build_index([[("Ed Wood", "directed", "Plan 9")], [("Plan 9", "filmed in", "Burbank")]])
    assert idx.sources is None and _in_folder_order(idx) is idx


def test_another_passage_size_resplits_every_file_and_keep_encoder_keeps_it(tmp_path):
    docs = tmp_path / "docs"
    _write(
        docs,
        "a.md",
        "# A\n\n## One\nAlice Smith met Bob Jones in Paris.\n\n## Two\nCarol White lives in Rome.\n",
    )
    index = _fresh(docs, 40)
    whole, plan = _sync(index, docs, max_chars=0)
    assert plan.changed == ["a.md"] and list(whole.passage_ids) == ["a.md"]
    assert_same_as_fresh(whole, _fresh(docs, 0))
    _write(docs, "b.md", "Acme Corp opened an office in Oslo.")
    kept, _ = _sync(whole, docs, refit=False)
    assert kept.encoder is whole.encoder and kept.settings["fit_encoder"] is False


def test_passages_from_no_file_are_left_alone_and_an_old_folder_index_is_refused(tmp_path):
    from pathfinding.hipporag.index.maintenance import add_passages

    docs = tmp_path / "docs"
    _write(docs, "a.md", "Alice Smith met Bob Jones in Paris.")
    index = add_passages(
        _fresh(docs, 100), [[("Eve", "lives in", "Lima")]], ["Eve\nEve lives in Lima."], ids=["eve"]
    )
    _write(docs, "a.md", "Alice Smith met Bob Jones in Rome.")
    synced, _ = _sync(index, docs)
    assert list(synced.passage_ids) == ["eve", "a.md"]
    # an index made of the same passages but no file stamps (built before they were kept)
    bare = build_index([d.triples for d in cooccurrence_docs(load_corpus(docs)[0])],
                       passages=[p.key for p in load_corpus(docs)[0]])  # fmt: skip
    with pytest.raises(InvalidValueError, match="records no folder file, yet 1 of the folder's passages"):
        plan_sync(bare, docs)


def test_bad_files_and_a_folder_that_vanishes_are_named(tmp_path, monkeypatch):
    docs = tmp_path / "docs"
    _write(docs, "a.md", "Alice Smith met Bob Jones in Paris.")
    index = _fresh(docs, 100)
    (docs / "b.md").write_text("# Only\n\n## Headings\n")
    with pytest.raises(FormatError, match=r"b\.md: Markdown headings and no text under them"):
        plan_sync(index, docs)
    (docs / "b.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    with pytest.raises(FormatError, match=r"b\.md: a binary file, not text \(a NUL byte at byte 8\)"):
        plan_sync(index, docs)
    (docs / "b.md").write_bytes("Café".encode("latin-1"))
    with pytest.raises(FormatError, match=r"b\.md: not UTF-8 text \(byte 3: unexpected end of data\)"):
        plan_sync(index, docs)
    os.remove(docs / "b.md")
    real = sync_module.read_document

    def vanishing(folder, rel):
        shutil.rmtree(folder)
        return real(folder, rel)

    monkeypatch.setattr(sync_module, "read_document", vanishing)
    with pytest.raises(
        FormatError, match=r"a\.md: cannot be read \(No such file or directory\); did it move\?"
    ):
        plan_sync(index, docs)
    monkeypatch.undo()
    with pytest.raises(FormatError, match="docs: the folder cannot be read .*did it move"):
        plan_sync(index, docs)


def test_apply_sync_wants_one_list_of_triples_per_new_passage(tmp_path):
    docs = tmp_path / "docs"
    _write(docs, "a.md", "Alice Smith met Bob Jones in Paris.")
    index = _fresh(docs, 100)
    _write(docs, "b.md", "Acme Corp opened an office in Oslo.")
    with pytest.raises(InvalidValueError, match=r"one list per new passage \(1\), got 0"):
        apply_sync(index, plan_sync(index, docs), [])


# --- random edit sequences ------------------------------------------------------------------------

SENTENCE = st.tuples(st.sampled_from(NAMES), st.sampled_from(NAMES), st.sampled_from(NAMES)).map(
    lambda t: f"{t[0]} met {t[1]} in {t[2]}."
)
SECTION = st.tuples(
    st.sampled_from(["Intro", "Work", "Travel", "Notes"]), st.lists(SENTENCE, min_size=1, max_size=3)
)
DOCUMENT = st.lists(SECTION, min_size=1, max_size=4).map(
    lambda secs: "# Title\n\n" + "\n\n".join(f"## {h}\n" + " ".join(s) for h, s in secs) + "\n"
)
FILES = st.sampled_from(["a.md", "b.md", "c.txt", "sub/d.md"])
EDIT = st.one_of(
    st.tuples(st.just("write"), FILES, DOCUMENT),
    st.tuples(st.just("delete"), FILES, st.just("")),
)


@settings(max_examples=60)
@given(
    first=st.lists(st.tuples(FILES, DOCUMENT), min_size=1, max_size=3),
    steps=st.lists(st.lists(EDIT, min_size=1, max_size=3), min_size=1, max_size=3),
    max_chars=st.sampled_from([60, 150, 6500]),
)
def test_sync_after_random_edits_equals_a_fresh_index_and_keeps_unchanged_ids(first, steps, max_chars):
    with tempfile.TemporaryDirectory() as tmp:
        docs = os.path.join(tmp, "docs")
        for name, text in first:
            _write(docs, name, text)
        index = _fresh(docs, max_chars)
        for edits in steps:
            for op, name, text in edits:
                path = os.path.join(docs, *name.split("/"))
                if op == "write":
                    _write(docs, name, text)
                elif os.path.exists(path) and len(folder_files(docs)[0]) > 1:  # never the last file
                    os.remove(path)
            if not load_corpus(docs, max_chars=max_chars)[0]:
                return
            before = {pid: index.source_of(j).file for j, pid in enumerate(index.passage_ids)}
            synced, plan = _sync(index, docs)
            assert_same_as_fresh(synced, _fresh(docs, max_chars))
            kept = {pid for pid, f in before.items() if f in plan.unchanged}
            assert kept <= set(synced.passage_ids)
            assert not any(before.get(index.passage_ids[j]) in plan.unchanged for j in plan.gone)
            index = synced
