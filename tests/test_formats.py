"""Loaders for HotpotQA and 2WikiMultihopQA question files.

Small fixtures are written from the formats; the released 2WikiMultihopQA corpus (fetched) is the
one real fixture. Every loader gets a malformed-input case whose FormatError names the file and the
record.
"""

import gzip
import json

import pytest

from pathfinding.errors import FormatError
from pathfinding.hipporag.evaluation.metrics import supporting_ids
from pathfinding.hipporag.io import Passage, load_corpus
from pathfinding.hipporag.io.formats import load_2wiki_questions, load_hotpotqa_questions
from pathfinding.hipporag.storage.datasets import fetch


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


def _write(tmp_path, name, obj, *, gz=False):
    path = tmp_path / name
    raw = (obj if isinstance(obj, str) else json.dumps(obj)).encode()
    path.write_bytes(gzip.compress(raw, mtime=0) if gz else raw)
    return path


CORPUS = [
    Passage("Ed Wood", "Ed Wood was a director."),
    Passage("Plan 9", "A film."),
    Passage("Ed Wood", "A film."),
]


def test_2wiki_facts_may_be_bare_titles_and_context_is_optional(tmp_path):
    qs = [
        {"_id": "w1", "id": "ignored", "question": "Q1?", "answer": ["a", 1],
         "supporting_facts": ["Plan 9", ["Plan 9", 0]]},
        {"id": "w2", "question": "Q2?", "supporting_facts": [["Ed Wood", 0]]},
        {"question": "Q3?", "supporting_facts": []},
    ]  # fmt: skip
    out, rep = load_2wiki_questions(_write(tmp_path, "w.json", qs), CORPUS)
    assert [q.id for q in out] == ["w1", "w2", "2"]
    assert out[0].supporting == ("Plan 9\nA film.",) and out[0].answer == ("a", "1")
    assert out[1].supporting == ("Ed Wood\nEd Wood was a director.", "Ed Wood\nA film.")
    assert out[2].supporting == () and out[2].answer == ()
    assert rep.issues == {"title_matches_several_passages": 1, "no_supporting_paragraph": 1}
    assert rep.examples["title_matches_several_passages"] == ["[1]: 'Ed Wood'"]
    assert rep.examples["no_supporting_paragraph"] == ["[2]"] and rep.n_records == 3


def test_2wiki_checks_context_when_it_is_there(tmp_path):
    ctx = [["Plan 9", ["s0", "s1"]]]
    qs = [
        {
            "question": "Q?",
            "supporting_facts": [["Plan 9", 1], ["Plan 9", 2], ["Plan 9", -1], ["Ed Wood", 0]],
            "context": ctx,
        }
    ]
    _, rep = load_2wiki_questions(_write(tmp_path, "w.json", qs), CORPUS)
    assert rep.issues == {
        "supporting_sentence_out_of_range": 2,
        "supporting_title_not_in_context": 1,
        "title_matches_several_passages": 1,
    }
    assert rep.examples["supporting_sentence_out_of_range"] == [
        "[0].supporting_facts[1]",
        "[0].supporting_facts[2]",
    ]
    assert rep.examples["supporting_title_not_in_context"] == ["[0].supporting_facts[3]"]


@pytest.mark.parametrize(
    ("facts", "message"),
    [
        (
            [["Plan 9", True]],
            r"w.json: \[0\]\.supporting_facts\[0\] must be \[title, sentence index\], got \['Plan 9', True\]",
        ),
        ([["Plan 9", 0, 1]], r"supporting_facts\[0\] must be \[title, sentence index\]"),
        ([[9, 0]], r"supporting_facts\[0\] must be \[title, sentence index\]"),
        ([3], r"supporting_facts\[0\] must be \[title, sentence index\], got 3"),
        (
            [["Nobody", 0]],
            r"w.json: \[0\]\.supporting_facts\[0\] names the title 'Nobody', which no corpus passage has",
        ),
    ],
)
def test_2wiki_bad_facts_are_named(tmp_path, facts, message):
    with pytest.raises(FormatError, match=message):
        load_2wiki_questions(
            _write(tmp_path, "w.json", [{"question": "Q?", "supporting_facts": facts}]), CORPUS
        )


def test_hotpotqa_needs_context_and_pairs(tmp_path):
    ok = {"question": "Q?", "supporting_facts": [["Plan 9", 0]], "context": [["Plan 9", ["s"]]]}
    out, rep = load_hotpotqa_questions(_write(tmp_path, "h.json", [ok]), CORPUS)
    assert out[0].supporting == ("Plan 9\nA film.",) and out[0].id == "0" and rep.n_issues == 0
    with pytest.raises(
        FormatError,
        match=r"h2.json: \[0\]\.supporting_facts\[0\] must be \[title, sentence index\], got Plan 9",
    ):
        load_hotpotqa_questions(_write(tmp_path, "h2.json", [{**ok, "supporting_facts": ["Plan 9"]}]), CORPUS)
    with pytest.raises(FormatError, match=r"h3.json: \[0\] has no key 'context'"):
        load_hotpotqa_questions(
            _write(tmp_path, "h3.json", [{"question": "Q?", "supporting_facts": []}]), CORPUS
        )
    for bad in (["Plan 9"], ["Plan 9", ["s"], 1], [9, ["s"]], ["Plan 9", "s"], ["Plan 9", ["s", 2]]):
        with pytest.raises(
            FormatError, match=r"h4.json: \[0\]\.context\[0\] must be \[title, \[sentence, \.\.\.\]\], got "
        ):
            load_hotpotqa_questions(_write(tmp_path, "h4.json", [{**ok, "context": [bad]}]), CORPUS)


@pytest.mark.parametrize("loader", [load_hotpotqa_questions, load_2wiki_questions])
def test_question_files_must_be_lists_and_corpora_passages(tmp_path, loader):
    dataset = "HotpotQA" if loader is load_hotpotqa_questions else "2WikiMultihopQA"
    with pytest.raises(FormatError, match=rf"q.json: expected a JSON list of {dataset} questions, got dict"):
        loader(_write(tmp_path, "q.json", {"question": "Q?"}), CORPUS)
    for corpus in ("Ed Wood", [Passage("A", "a"), "B\nb"]):
        with pytest.raises(TypeError, match="corpus must be a sequence of Passage"):
            loader(_write(tmp_path, "q2.json", []), corpus)


@pytest.mark.parametrize("loader", [load_hotpotqa_questions, load_2wiki_questions])
def test_question_loaders_keep_the_text_and_name_the_file(tmp_path, loader):
    """Each question keeps its text; the report names the file it read; a record without supporting
    facts, or a context entry of the wrong shape, is named by file, record and (for the entry) value."""
    ctx = [["Plan 9", ["s"]]]
    qs = [
        {"question": f"Who made film {i}?", "supporting_facts": [["Plan 9", 0]], "context": ctx}
        for i in (1, 2)
    ]
    out, rep = loader(_write(tmp_path, "q.json", qs), CORPUS)
    assert [q.question for q in out] == ["Who made film 1?", "Who made film 2?"]
    assert rep.source.endswith("q.json")
    with pytest.raises(FormatError, match=r"q2.json: \[1\] has no key 'supporting_facts'"):
        loader(_write(tmp_path, "q2.json", [qs[0], {"question": "Q?", "context": ctx}]), CORPUS)
    with pytest.raises(
        FormatError, match=r"context\[0\] must be \[title, \[sentence, \.\.\.\]\], got \['Ed', 7\]$"
    ):
        loader(_write(tmp_path, "q3.json", [{**qs[0], "context": [["Ed", 7]]}]), CORPUS)


def test_hotpotqa_loader_picks_the_passage_whose_text_the_context_gives(tmp_path):
    corpus = [Passage("A", "the letter."), Passage("A", "the river."), Passage("B", "b.")]
    qs = [{"_id": "q", "question": "?", "supporting_facts": [["A", 0], ["B", 0]],
           "context": [["A", ["the ", "river."]], ["B", ["b."]]]}]  # fmt: skip
    out, rep = load_hotpotqa_questions(_write(tmp_path, "q.json", qs), corpus)
    assert out[0].supporting == ("A\nthe river.", "B\nb.") and rep.n_issues == 0
    qs[0]["context"][0][1] = ["another ", "text."]  # no passage has it: every "A", and said so
    out, rep = load_hotpotqa_questions(_write(tmp_path, "q2.json", qs), corpus)
    assert out[0].supporting == ("A\nthe letter.", "A\nthe river.", "B\nb.")
    assert rep.issues == {"title_matches_several_passages": 1}
