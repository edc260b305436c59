"""The chapter's readings of the paper's tables (pathfinding.experiments.step9.readings), recomputed."""

from pathfinding.experiments.step9 import paper


def test_readings_are_recomputed_from_the_tables(monkeypatch):
    from pathfinding.experiments.step9.readings import VERDICTS, chapter_readings

    readings = chapter_readings()
    assert all(r.verdict in VERDICTS for r in readings)
    llama = readings[0]
    assert llama.verdict == "holds" and "behind on 2Wiki" in llama.note
    assert "+18.3" in readings[3].evidence and "IRCoT + BM25" in readings[3].evidence
    # change one cell and the reading that rests on it no longer holds
    row = dict(paper.TABLE_5["OpenIE: Llama-3.1-70B-Instruct"], **{"HotpotQA R@5": 70.0})
    monkeypatch.setitem(paper.TABLE_5, "OpenIE: Llama-3.1-70B-Instruct", row)
    assert chapter_readings()[0].verdict == "does not hold"
