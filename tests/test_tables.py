"""Course tables: the same rows as HTML for a page and as aligned text for a terminal."""

import pytest

from pathfinding.course.tables import Table, show_paper_table, show_table
from pathfinding.errors import InvalidTypeError, InvalidValueError


def test_html_escapes_cells_and_right_aligns_numbers():
    html = Table([["<b>", 0.5], ["x & y", 12]], header=["name", "value"], formats=[None, ".2f"])._repr_html_()
    assert "<td>&lt;b&gt;</td>" in html and "<td>x &amp; y</td>" in html and "<b>" not in html
    assert '<td style="text-align: right">0.50</td>' in html and "<td>12" not in html
    assert html.startswith('<table class="pathfinding-table">') and html.endswith("</table>")


def test_text_form_aligns_columns_and_carries_the_caption():
    text = str(Table([["a", 1], ["bbb", 100]], header=["k", "n"], caption="two rows"))
    assert text.splitlines() == ["two rows", "k      n", "a      1", "bbb  100"]


def test_a_column_of_words_is_not_aligned_as_numbers():
    table = Table([["1.00 (100%)", "p1"], ["9.06 (0%)", "p2"]], header=["rank", "passage"])
    assert table.numeric == [False, False]


def test_show_table_displays_the_table(monkeypatch):
    shown = []
    monkeypatch.setattr("IPython.display.display", shown.append)
    show_table([["a", 1]], header=["k", "n"])
    assert len(shown) == 1 and isinstance(shown[0], Table)


def test_a_paper_table_is_shown_as_html_with_its_source_caption_and_counts(monkeypatch):
    """The paper's tables reach the page as HTML (a wide text block wrapped its columns); recall with
    one decimal, Table 8's triple counts with thousands separators; a column it lacks is refused."""
    shown = []
    monkeypatch.setattr("IPython.display.display", shown.append)
    show_paper_table("Table 8", columns=["MuSiQue triples"])
    show_paper_table("Table 2")
    counts, recall = (t._repr_html_() for t in shown)
    assert "<caption>Table 8 (Gutiérrez et al., HippoRAG" in counts and ">107,448</td>" in counts
    assert ">51.9</td>" in recall and recall.count("<tr>") == 1 + 10  # header and ten retrievers
    with pytest.raises(InvalidValueError, match="Table 2 has no column 'MuSiQue F1'"):
        show_paper_table("Table 2", columns=["MuSiQue F1"])


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (lambda: Table([["a"]], header=[]), InvalidValueError, "header"),
        (lambda: Table([["a"]], header="ab"), InvalidValueError, "header"),
        (lambda: Table([["a", 1]], header=["k"]), InvalidValueError, "rows\\[0\\] has 2 cells"),
        (lambda: Table(["ab"], header=["k", "n"]), InvalidTypeError, "rows\\[0\\]"),
        (lambda: Table([["a", 1]], header=["k", "n"], formats=[None]), InvalidValueError, "formats"),
    ],
)
def test_bad_input_names_the_value(call, error, words):
    with pytest.raises(error, match=words):
        call()
