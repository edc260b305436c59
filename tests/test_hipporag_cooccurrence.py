"""The no-model extractor: spans, sentence co-occurrence triples, and its FINDINGS rows."""

import json
import re
from pathlib import Path

import pytest

from pathfinding.experiments.cooccurrence import cooccurrence_findings_section
from pathfinding.hipporag.extract.cooccurrence import (
    RELATION,
    cooccurrence_docs,
    cooccurrence_openie,
    cooccurrence_triples,
    named_spans,
)
from pathfinding.hipporag.index.build import index_from_openie
from pathfinding.hipporag.io import Passage, load_openie
from pathfinding.hipporag.retrieve import HippoRetriever

ROOT = Path(__file__).resolve().parents[1]


def test_spans_title_capitalised_and_quoted():
    assert named_spans('He wrote "the long goodbye" in Los Angeles in 1953.') == [
        "the long goodbye",
        "Los Angeles",
        "1953",
    ]
    # A capitalised run inside a quotation is the quotation, not a second name.
    assert named_spans('It is a sister of "The Hollywood Reporter".') == ["The Hollywood Reporter"]


def test_pairs_stay_within_a_sentence_and_title_joins_every_sentence():
    t = cooccurrence_triples(
        "Lake Bled", "Lake Bled lies in Slovenia near Austria. An island holds a Church."
    )
    assert t == [
        ("Lake Bled", RELATION, "Slovenia"),
        ("Lake Bled", RELATION, "Austria"),
        ("Slovenia", RELATION, "Austria"),
        ("Lake Bled", RELATION, "Church"),
    ]
    assert ("Slovenia", RELATION, "Church") not in t and ("Austria", RELATION, "Church") not in t


def test_two_passages_meet_in_a_shared_span_and_retrieval_walks_there():
    corpus = [
        Passage("Ed Wood", "Ed Wood directed Plan 9."),
        Passage("Plan 9", "The film was shot in Burbank."),
        Passage("Paris", "Paris is the capital of France."),
    ]
    docs = cooccurrence_docs(corpus)
    idx = index_from_openie(docs)
    r = HippoRetriever(idx).retrieve("Where was the film by Ed Wood shot?", k=3)
    assert r.passages.tolist()[:2] == [0, 1] and not r.fell_back


def test_openie_json_loads_unchanged(tmp_path):
    corpus = [
        Passage("Ed Wood", 'Ed Wood directed "Plan 9". He lived in Burbank.'),
        Passage("X", "It is so."),
    ]
    path = tmp_path / "cooc.json"
    path.write_text(json.dumps(cooccurrence_openie(corpus)))
    docs, report = load_openie(path, corpus=corpus)
    assert docs == cooccurrence_docs(corpus)
    assert report.issues == {"passage_no_triples": 1}  # a passage with one span pairs with nothing


@pytest.mark.slow  # builds two 1,890-passage indexes (about 10 s alone, more on a shared machine)
def test_findings_rows_agree_with_the_realtext_rows():
    text = cooccurrence_findings_section(seed=0, n_boot=200)
    rows = {m.group(1): m.group(0) for m in re.finditer(r"^\| (X\d) \|.*$", text, re.M)}
    assert sorted(rows) == [f"X{i}" for i in range(1, 7)]
    for row in rows.values():
        assert "| 0 | 200 |" in row
    # BM25 and HippoRAG v1 with the released triples are the same methods as two real-text R rows: the
    # means must agree (the CIs differ with the resamples).
    findings = (ROOT / "FINDINGS.md").read_text().splitlines()
    for x, method in (("X1", "bm25 (cased)"), ("X2", "v1[capitalised] (cased)")):
        ref = next(line for line in findings if re.match(rf"^\| R\d+ \| {re.escape(method)} \|", line))
        ref_means = re.findall(r"(\d+\.\d) \[", ref)
        got = re.findall(r"(\d+\.\d) \[", rows[x])
        assert got == [ref_means[1], ref_means[2]], (x, got, ref_means)  # R@2, R@5
