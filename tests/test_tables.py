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


def _explained():
    """Two seeds, Ada and Bob, meet at Cleo; each has a dead end; one passage per fact (v1's walk)."""
    from pathfinding.hipporag.index.build import build_index
    from pathfinding.hipporag.retrieval.retrieve import HippoRetriever

    facts = [("Ada", "met", "Cleo"), ("Bob", "met", "Cleo"), ("Ada", "met", "Dan"), ("Bob", "met", "Eve")]
    index = build_index([[f] for f in facts], passages=[f"{s}-{o}\n{s} {r} {o}." for s, r, o in facts])
    v1 = HippoRetriever(index, extractor=None, facts=0, passage_weight=0, guess_weight=1)
    return v1.explain("", k=4, entities=["Ada", "Bob"])


def test_an_explanation_row_shows_each_part_as_a_share_and_the_walk_to_each_node():
    from pathfinding.course.tables import explanation_rows

    why = _explained()
    rows = explanation_rows(why, passages=4, nodes=1)
    assert [r[0] for r in rows] == [1, 2, 3, 4] and [r[2] for r in rows] == list(why.scores)
    by_title = {r[1]: r for r in rows}
    # each passage's parts as whole percentages, in the sources' order
    for pe in why.passages:
        want = " + ".join(f"{p.source} {p.share:.0%}" for p in pe.parts if p.share >= 0.005)
        assert by_title[pe.title][3] == want
    # Cleo's node holds both seeds' mass: Bob brings a larger share to Ada's passage about Cleo
    # than to Ada's dead end, which his mass reaches only through Ada
    bob = {pe.title: next(p.share for p in pe.parts if p.source == "Bob") for pe in why.passages}
    assert bob["Ada-Cleo"] > 3 * bob["Ada-Dan"] > 0
    assert "ada –mentioned 1x– Ada-Dan" in by_title["Ada-Dan"][4]
    assert len(explanation_rows(why, passages=2)) == 2
