"""Numbers quoted from FINDINGS.md (pathfinding.course.quotes): the cells are read by row and column, a
tagged number agrees only when it is its cell rounded as quoted, and every page of the course that
quotes a row agrees with this checkout's FINDINGS.md."""

from pathlib import Path

import pytest

from pathfinding.course.quotes import FINDINGS_PATH, disagreements, finding, parse_findings, quotes
from pathfinding.errors import InvalidValueError

ROOT = Path(__file__).resolve().parents[1]
TABLE = parse_findings(
    "intro\n\n| # | method | R@5 | R@5 minus BM25 | triples |\n|---|---|---|---|---|\n"
    "| X3 | co-occurrence | 61.9 [55.9, 68.0] | +11.0 [+4.7, +17.3] | 82484 |\n"
    "| X5 | released minus co-occurrence | 7.5 | −2.2 [−4.0, −0.1] | — |\n\n"
    "| graph | ms |\n|---|---|\n| ER | 17.33 |\n"
)


def test_cells_are_read_by_row_column_and_position():
    assert finding("X3", "R@5", table=TABLE) == 61.9
    assert finding("X3", "R@5", 3, table=TABLE) == 68.0
    assert finding("X3", "R@5 minus", 2, table=TABLE) == 4.7  # a prefix that names one column
    assert finding("X5", "R@5 minus", 3, table=TABLE) == -0.1  # the minus sign FINDINGS prints
    assert finding("X3", "triples", table=TABLE) == 82484
    assert "ER" not in TABLE  # a table without a '#' column has no named rows


@pytest.mark.parametrize(
    ("row", "column", "n", "says"),
    [("X9", "R@5", 1, "no row"), ("X3", "R@", 1, "no one column"), ("X3", "R@5", 4, "no number 4")],
)
def test_a_missing_cell_is_named(row, column, n, says):
    with pytest.raises(InvalidValueError, match=says):
        finding(row, column, n, table=TABLE)


def test_a_row_named_twice_is_refused():
    with pytest.raises(InvalidValueError, match="appears twice"):
        parse_findings("| # | a |\n|---|---|\n| F1 | 1 |\n| F1 | 2 |\n")


def test_a_quote_agrees_when_it_is_the_cell_rounded_as_written():
    text = "R@5 62<!--X3/R@5--> or 61.9<!--X3/R@5-->, [+4.7<!--X3/R@5 minus/2-->], 82,484<!--X3/triples-->"
    assert [q.text for q in quotes(text)] == ["62", "61.9", "+4.7", "82,484"]
    assert disagreements(text, TABLE) == []
    stale = "75,264<!--X3/triples--> triples, R@5\n60.1<!--X3/R@5-->, 61.90<!--X3/R@5-->"
    found = disagreements(stale, TABLE)
    assert len(found) == 2 and "75,264" in found[0] and "line 2" in found[1]  # 61.90 is 61.9
    assert "no row" in disagreements("1<!--Z1/R@5-->", TABLE)[0]


def test_a_percentage_is_quoted_with_its_sign():
    assert quotes("100%<!--P1/hit@1--> and 15% <!--P46/hit@1-->")[1].text == "15"


# The pages of the course that quote FINDINGS rows, and how many numbers each ties to a row (tagged in
# prose, or read with finding(...) in a notebook's code, which tests/test_notebooks.py runs): a page
# that loses its ties would no longer be checked.
PAGES = {
    "notes.md": 70,
    "course/done_when.md": 7,
    "notebooks/01_meet_node_arithmetic.py": 6,
    "notebooks/03_path_finding_vs_path_following.py": 3,
    "notebooks/07_the_online_pipeline.py": 2,
    "notebooks/08_what_the_numbers_say.py": 3,
}


@pytest.mark.parametrize("page", sorted(PAGES))
def test_every_number_a_page_quotes_from_findings_is_its_row(page):
    text = (ROOT / page).read_text(encoding="utf-8")
    tied = len(quotes(text)) + text.count("finding(")
    assert tied >= PAGES[page], f"{page} ties fewer numbers to FINDINGS rows than it did ({tied})"
    assert disagreements(text) == []


def test_no_other_page_quotes_a_row_unchecked():
    pages = [ROOT / "README.md", *ROOT.glob("course/*.md"), *ROOT.glob("notebooks/**/*.py")]
    for path in pages:
        assert disagreements(path.read_text(encoding="utf-8")) == [], path.name


def test_the_rows_are_this_checkouts_findings():
    assert FINDINGS_PATH == ROOT / "FINDINGS.md"
    assert finding("R5", "R@5") == pytest.approx(finding("X2", "R@5"))  # one run, two sections


def test_the_landing_pages_numbers_are_their_rows():
    import runpy

    conf = runpy.run_path(str(ROOT / "course" / "conf.py"))
    assert set(conf["LANDING_ROWS"]) == set(conf["myst_substitutions"])
    assert conf["_disagreeing"](conf["myst_substitutions"]) == []
    stale = {**conf["myst_substitutions"], "two_hop_passage_rank": "18"}
    assert conf["_disagreeing"](stale) == ["two_hop_passage_rank = 18: FINDINGS A3 'rank' says 19"]
