"""Loaders for HotpotQA and 2WikiMultihopQA question files.

Small fixtures are written from the formats; the released 2WikiMultihopQA corpus (fetched) is the
one real fixture. Every loader gets a malformed-input case whose FormatError names the file and the
record.
"""

import gzip
import json

import pytest

from pathfinding.errors import FormatError
from pathfinding.hipporag.datasets import fetch
from pathfinding.hipporag.evaluate import supporting_ids
from pathfinding.hipporag.io import Passage, load_corpus
from pathfinding.hipporag.io.formats import load_2wiki_questions, load_hotpotqa_questions


def _write(tmp_path, name, obj, *, gz=False):
    path = tmp_path / name
    raw = json.dumps(obj).encode()
    path.write_bytes(gzip.compress(raw, mtime=0) if gz else raw)
    return path


# -- HotpotQA -----------------------------------------------------------------------------------------
HOTPOT_CORPUS = {
    "Scott Derrickson": ["Scott Derrickson is an American director.", " He lives in Los Angeles."],
    "Ed Wood": ["Edward Davis Wood Jr. was an American filmmaker."],
    "Doctor Strange (2016 film)": ["Doctor Strange is a 2016 film directed by Scott Derrickson."],
}
HOTPOT_QUESTIONS = [
    {
        "_id": "5a8b57f25542995d1e6f1371",
        "question": "Were Scott Derrickson and Ed Wood of the same nationality?",
        "answer": "yes",
        "supporting_facts": [["Scott Derrickson", 0], ["Ed Wood", 0]],
        "context": [[t, s] for t, s in HOTPOT_CORPUS.items()],
        "type": "comparison",
        "level": "hard",
    },
    {
        "_id": "q2",
        "question": "Who directed Doctor Strange?",
        "answer": "Scott Derrickson",
        "supporting_facts": [["Doctor Strange (2016 film)", 0], ["Doctor Strange (2016 film)", 5]],
        "context": [["Doctor Strange (2016 film)", HOTPOT_CORPUS["Doctor Strange (2016 film)"]]],
    },
]


def test_hotpotqa_corpus_and_questions(tmp_path):
    corpus, c_rep = load_corpus(_write(tmp_path, "hotpotqa_corpus.json", HOTPOT_CORPUS))
    # Sentences joined as HippoRAG joins them: no separator, each keeps its own leading space.
    assert corpus[0] == Passage(
        "Scott Derrickson", "Scott Derrickson is an American director. He lives in Los Angeles."
    )
    assert c_rep.n_issues == 0 and len(corpus) == 3
    qs, rep = load_hotpotqa_questions(_write(tmp_path, "hotpotqa.json", HOTPOT_QUESTIONS, gz=True), corpus)
    assert qs[0].id == "5a8b57f25542995d1e6f1371" and qs[0].answer == ("yes",)
    assert [supporting.tolist() for supporting in supporting_ids(qs, corpus)] == [[0, 1], [2]]
    # Sentence 5 of a one-sentence paragraph: counted, the title still names the passage.
    assert rep.issues == {"supporting_sentence_out_of_range": 1}


@pytest.mark.parametrize(
    "edit, match",
    [
        (lambda q: q.pop("context"), r"\[1\] has no key 'context'"),
        (
            lambda q: q.update(supporting_facts=[["Ed Wood"]]),
            r"\[1\]\.supporting_facts\[0\] must be \[title, sentence",
        ),
        (
            lambda q: q.update(supporting_facts=["Ed Wood"]),
            r"\[1\]\.supporting_facts\[0\] must be \[title, sentence",
        ),
        (
            lambda q: q.update(context=[["Ed Wood", "one string"]]),
            r"\[1\]\.context\[0\] must be \[title, \[sentence",
        ),
        (
            lambda q: q.update(supporting_facts=[["Orson Welles", 0]]),
            r"\[1\]\.supporting_facts\[0\] names the title",
        ),
        (lambda q: q.update(question=None), r"\[1\]\['question'\] must be str"),
    ],
)
def test_hotpotqa_malformed_names_file_and_record(tmp_path, edit, match):
    corpus, _ = load_corpus(_write(tmp_path, "hotpotqa_corpus.json", HOTPOT_CORPUS))
    qs = json.loads(json.dumps(HOTPOT_QUESTIONS))
    edit(qs[1])
    with pytest.raises(FormatError, match=r"bad_hotpot.json: " + match):
        load_hotpotqa_questions(_write(tmp_path, "bad_hotpot.json", qs), corpus)


def test_hotpotqa_corpus_malformed(tmp_path):
    with pytest.raises(FormatError, match=r"c.json: \['Ed Wood'\]\[1\] must be a string"):
        load_corpus(_write(tmp_path, "c.json", {"Ed Wood": ["ok", 3]}))


# -- 2WikiMultihopQA (the released corpus is the real fixture) ----------------------------------------
@pytest.fixture(scope="module")
def wiki_corpus():
    corpus, report = load_corpus(fetch("2wiki_corpus"))
    return corpus, report


def test_2wiki_real_corpus_and_title_matched_gold(wiki_corpus, tmp_path):
    corpus, report = wiki_corpus
    assert len(corpus) == 6119 and report.n_issues == 0
    titles = [corpus[0].title, corpus[10].title, corpus[20].title]
    qs = [
        {  # the dataset's shape: [title, sentence index] pairs, context as in HotpotQA
            "_id": "w1",
            "type": "compositional",
            "question": f"Who links {titles[0]} and {titles[1]}?",
            "answer": "x",
            "supporting_facts": [[titles[0], 0], [titles[1], 0], [titles[0], 1]],
            "context": [[titles[0], [corpus[0].text, "more"]], [titles[1], [corpus[10].text]]],
            "evidences": [],
        },
        {"_id": "w2", "question": "?", "answer": ["a", "b"], "supporting_facts": [titles[2]]},  # bare titles
    ]
    out, rep = load_2wiki_questions(_write(tmp_path, "2wiki.json", qs), corpus)
    assert [g.tolist() for g in supporting_ids(out, corpus)] == [[0, 10], [20]]
    assert out[1].answer == ("a", "b") and rep.n_issues == 0


@pytest.mark.parametrize(
    "edit, match",
    [
        (lambda q: q.pop("supporting_facts"), r"\[0\] has no key 'supporting_facts'"),
        (
            lambda q: q.update(supporting_facts=[[3, 0]]),
            r"\[0\]\.supporting_facts\[0\] must be \[title, sentence",
        ),
        (
            lambda q: q.update(supporting_facts=[["No Such Page", 0]]),
            r"\[0\]\.supporting_facts\[0\] names the title",
        ),
        (lambda q: q.update(context="nope"), r"\[0\]\['context'\] must be list"),
    ],
)
def test_2wiki_malformed_names_file_and_record(wiki_corpus, tmp_path, edit, match):
    corpus, _ = wiki_corpus
    q = {"_id": "w1", "question": "?", "supporting_facts": [[corpus[0].title, 0]]}
    edit(q)
    with pytest.raises(FormatError, match=r"bad_2wiki.json: " + match):
        load_2wiki_questions(_write(tmp_path, "bad_2wiki.json", [q]), corpus)


def test_title_loaders_reject_a_corpus_that_is_not_passages(tmp_path):
    path = _write(tmp_path, "q.json", HOTPOT_QUESTIONS)
    with pytest.raises(TypeError, match="corpus must be a sequence of Passage"):
        load_hotpotqa_questions(path, HOTPOT_CORPUS)


def test_title_shared_by_several_passages_is_counted(tmp_path):
    corpus = [Passage("Ed Wood", "one."), Passage("Ed Wood", "two."), Passage("Plan 9", "film.")]
    qs = [{"_id": "a", "question": "?", "supporting_facts": [["Ed Wood", 0]]}]
    out, rep = load_2wiki_questions(_write(tmp_path, "q.json", qs), corpus)
    assert out[0].supporting == ("Ed Wood\none.", "Ed Wood\ntwo.")
    assert rep.issues == {"title_matches_several_passages": 1}
