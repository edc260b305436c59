"""The loaders' records and their reports (``io.records``)."""



from pathfinding.hipporag.io import (
    LoadReport,
    Passage,
)


def test_a_report_counts_every_issue_and_keeps_three_examples():
    rep = LoadReport(source="/data/x/q.json", n_records=7)
    for i in range(5):
        rep.add("b_issue", f"[{i}]")
    rep.add("a_issue", "[9]")
    assert rep.issues == {"b_issue": 5, "a_issue": 1} and rep.n_issues == 6
    assert rep.examples == {"b_issue": ["[0]", "[1]", "[2]"], "a_issue": ["[9]"]}
    assert rep.summary() == "q.json: 7 records:\n  a_issue: 1 (e.g. [9])\n  b_issue: 5 (e.g. [0], [1], [2])"
    assert rep.to_dict() == {"source": "q.json", "n_records": 7, "issues": {"a_issue": 1, "b_issue": 5}}
    assert list(rep.to_dict()["issues"]) == ["a_issue", "b_issue"]
    assert LoadReport(source="/d/c.json", n_records=2).summary() == "c.json: 2 records, no issues"


def test_merging_reports_adds_counts_and_keeps_three_examples():
    rep = LoadReport(source="f", n_records=4)
    rep.add("both", "[0]")
    rep.add("both", "[1]")
    rep.add("mine", "[2]")
    other = LoadReport(source="g", n_records=9)
    for where in ["(a)", "(b)", "(c)"]:
        other.add("both", where)
    other.add("theirs", "(d)")
    rep.merge(other)
    assert rep.issues == {"both": 5, "mine": 1, "theirs": 1}
    assert rep.examples == {"both": ["[0]", "[1]", "(a)"], "mine": ["[2]"], "theirs": ["(d)"]}
    assert (rep.source, rep.n_records) == ("f", 4)
    assert other.issues == {"both": 3, "theirs": 1}  # the merged report is left as it was


def test_a_passages_key_is_its_title_and_text_on_two_lines():
    """The key an index and the OpenIE records match passages by; the id and source are not part of it."""
    p = Passage("Ed Wood", "Ed Wood directed Plan 9.", doc_id="a.md")
    assert p.key == "Ed Wood\nEd Wood directed Plan 9."
    assert p == Passage("Ed Wood", "Ed Wood directed Plan 9.", doc_id="b.md")
