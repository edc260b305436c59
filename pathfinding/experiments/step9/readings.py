"""Step 9's readings of the paper's tables, each checked against the rows it rests on.

The chapter reads the paper's tables in words ("Llama-3.1-70B beats GPT-3.5 on two of three
datasets", "REBEL falls from 72.9 to 58.4 with half the triples", "11 and 20% on 2Wiki"); the paper
reads Tables 3 and 4 the same way. :func:`chapter_readings` recomputes each from
:mod:`pathfinding.experiments.step9.paper`, names the rows that support or contradict it, and says
whether it holds as worded. Notebook 08 prints them beside the tables.
"""

from __future__ import annotations

from dataclasses import dataclass

from pathfinding.experiments.step9 import paper

__all__ = ["VERDICTS", "Reading", "chapter_readings"]

VERDICTS = ("holds", "holds in part", "does not hold")

_DATASETS = paper.DATASETS[:3]


@dataclass(frozen=True)
class Reading:
    """One reading of the paper's tables, and what the tables say about it.

    Attributes
    ----------
    claim : str
        The reading, in words, as the chapter or the paper states it.
    table : str
        The table(s) it rests on.
    rows : tuple of str
        The rows compared.
    evidence : str
        The numbers, recomputed from the stored tables.
    verdict : str
        One of :data:`VERDICTS`.
    note : str
        What the verdict rests on, or where the reading needs a qualification.
    """

    claim: str
    table: str
    rows: tuple[str, ...]
    evidence: str
    verdict: str
    note: str


def _llama_70b() -> Reading:
    gpt, llama = paper.TABLE_5["HippoRAG"], paper.TABLE_5["OpenIE: Llama-3.1-70B-Instruct"]
    ahead = [d for d in _DATASETS if all(llama[f"{d} {m}"] > gpt[f"{d} {m}"] for m in ("R@2", "R@5"))]
    evidence = "; ".join(
        f"{d} R@2 {llama[f'{d} R@2']:.1f} vs {gpt[f'{d} R@2']:.1f}, R@5 {llama[f'{d} R@5']:.1f} vs "
        f"{gpt[f'{d} R@5']:.1f}"
        for d in _DATASETS
    )
    behind = [d for d in _DATASETS if d not in ahead]
    return Reading(
        claim="Llama-3.1-70B as the OpenIE model beats GPT-3.5 on two of the three datasets",
        table="Table 5",
        rows=("HippoRAG", "OpenIE: Llama-3.1-70B-Instruct"),
        evidence=f"Llama-3.1-70B vs GPT-3.5: {evidence}",
        verdict="holds" if len(ahead) == 2 else "does not hold",
        note=f"ahead on both metrics on {' and '.join(ahead)}; behind on {', '.join(behind)}",
    )


def _rebel() -> Reading:
    gpt, rebel = paper.TABLE_5["HippoRAG"], paper.TABLE_5["OpenIE: REBEL"]
    counts = paper.TABLE_8
    share = {
        d: counts["REBEL-large"][f"{d} triples"] / counts["GPT-3.5 Turbo (1106)"][f"{d} triples"]
        for d in _DATASETS
    }
    total = sum(counts["REBEL-large"][f"{d} triples"] for d in _DATASETS) / sum(
        counts["GPT-3.5 Turbo (1106)"][f"{d} triples"] for d in _DATASETS
    )
    near_half = [d for d, s in share.items() if abs(s - 0.5) <= 0.1]
    return Reading(
        claim="with REBEL instead of GPT-3.5, average R@5 falls from 72.9 to 58.4, and REBEL extracts "
        "about half the triples",
        table="Table 5, Table 8 (Appendix C)",
        rows=("HippoRAG", "OpenIE: REBEL", "Table 8: GPT-3.5 Turbo (1106), REBEL-large"),
        evidence=f"Average R@5 {gpt['Average R@5']:.1f} -> {rebel['Average R@5']:.1f}; REBEL's unique "
        "triples as a share of GPT-3.5's: "
        + ", ".join(f"{d} {s:.2f}" for d, s in share.items())
        + f" (all three: {total:.2f})",
        verdict="holds"
        if _as_claimed([gpt["Average R@5"], rebel["Average R@5"]], [72.9, 58.4]) and near_half
        else "does not hold",
        note="about half on " + " and ".join(near_half) + f"; over the three datasets {total:.0%}",
    )


def _best(table: dict, rows, column: str) -> tuple[str, float]:
    label = max(rows, key=lambda r: table[r][column])
    return label, table[label][column]


def _as_claimed(gains, claimed) -> bool:
    """Whether each gain is the claimed number of points, to within one point (the paper rounds)."""
    return all(abs(g - c) < 1 for g, c in zip(gains, claimed, strict=True))


def _2wiki_gain() -> Reading:
    t2 = paper.TABLE_2
    hippo = "HippoRAG (ColBERTv2)"
    base = [r for r in t2 if not r.startswith("HippoRAG")]
    parts, gains = [], {}
    for d in ("2Wiki", "MuSiQue"):
        for m in ("R@2", "R@5"):
            b_label, b = _best(t2, base, f"{d} {m}")
            gains[d, m] = t2[hippo][f"{d} {m}"] - b
            parts.append(f"{d} {m}: {t2[hippo][f'{d} {m}']:.1f} - {b:.1f} ({b_label}) = {gains[d, m]:+.1f}")
    wiki = _as_claimed([gains["2Wiki", "R@2"], gains["2Wiki", "R@5"]], [11, 20])
    musique = _as_claimed([gains["MuSiQue", "R@2"], gains["MuSiQue", "R@5"]], [3, 3])
    return Reading(
        claim="HippoRAG improves on the best single-step baseline by 11 and 20% (R@2, R@5) on 2Wiki "
        "and by around 3% on MuSiQue",
        table="Table 2",
        rows=tuple(t2),
        evidence=f"{hippo} minus the best baseline: " + "; ".join(parts),
        verdict="holds" if wiki and musique else "holds in part" if wiki else "does not hold",
        note="the gains are percentage points, not percent of the baseline; "
        + (
            "on MuSiQue R@5 the gain over the best baseline is "
            f"{gains['MuSiQue', 'R@5']:+.1f} (over ColBERTv2 "
            f"{t2[hippo]['MuSiQue R@5'] - t2['ColBERTv2']['MuSiQue R@5']:+.1f})"
            if not musique
            else "both datasets as stated"
        ),
    )


def _ircot() -> Reading:
    t3 = paper.TABLE_3
    base = [r for r in t3 if "HippoRAG" not in r]
    mine = t3["IRCoT + HippoRAG (ColBERTv2)"]
    parts, gains = [], []
    for d in _DATASETS:
        b_label, b = _best(t3, base, f"{d} R@5")
        gains.append(mine[f"{d} R@5"] - b)
        parts.append(f"{d} {mine[f'{d} R@5']:.1f} - {b:.1f} ({b_label}) = {gains[-1]:+.1f}")
    return Reading(
        claim="with HippoRAG as IRCoT's retriever, R@5 rises by about 4, 18 and 1 points (MuSiQue, "
        "2Wiki, HotpotQA)",
        table="Table 3",
        rows=tuple(t3),
        evidence="IRCoT + HippoRAG (ColBERTv2) minus the best IRCoT baseline: " + "; ".join(parts),
        verdict="holds" if _as_claimed(gains, [4, 18, 1]) else "does not hold",
        note="against the best IRCoT baseline of each dataset; against IRCoT + ColBERTv2 alone the 2Wiki "
        f"gain is {mine['2Wiki R@5'] - t3['IRCoT + ColBERTv2']['2Wiki R@5']:+.1f}",
    )


def _qa() -> Reading:
    t4 = paper.TABLE_4
    mine, ircot = t4["IRCoT + HippoRAG (ColBERTv2)"], t4["IRCoT (ColBERTv2)"]
    gains = [mine[f"{d} F1"] - ircot[f"{d} F1"] for d in _DATASETS]
    return Reading(
        claim="better retrieval gives better answers: F1 up by up to 3, 17 and 1 points (MuSiQue, "
        "2Wiki, HotpotQA)",
        table="Table 4",
        rows=("IRCoT (ColBERTv2)", "IRCoT + HippoRAG (ColBERTv2)"),
        evidence="F1 of IRCoT + HippoRAG minus IRCoT: "
        + "; ".join(f"{d} {g:+.1f}" for d, g in zip(_DATASETS, gains, strict=True)),
        verdict="holds" if _as_claimed(gains, [3, 17, 1]) else "does not hold",
        note="the gains of the multi-step rows, as the paper rounds them",
    )


def _single_step_qa() -> Reading:
    t4 = paper.TABLE_4
    hippo, ircot = t4["HippoRAG (ColBERTv2)"], t4["IRCoT (ColBERTv2)"]
    diff = {d: hippo[f"{d} F1"] - ircot[f"{d} F1"] for d in paper.DATASETS}
    behind = [d for d in _DATASETS if diff[d] <= -1]
    return Reading(
        claim="single-step HippoRAG answers on par with or better than IRCoT, at a fraction of the cost",
        table="Table 4",
        rows=("HippoRAG (ColBERTv2)", "IRCoT (ColBERTv2)"),
        evidence="F1 of HippoRAG minus IRCoT: " + "; ".join(f"{d} {g:+.1f}" for d, g in diff.items()),
        verdict="holds in part" if behind else "holds",
        note=(
            "on average, and on 2Wiki by far; "
            + ", ".join(f"on {d} it is {-diff[d]:.1f} F1 behind" for d in behind)
            if behind
            else "on every dataset"
        ),
    )


def chapter_readings() -> list[Reading]:
    """The readings of Step 9, each recomputed from the paper's stored tables.

    Returns
    -------
    list of Reading
        Table 5's OpenIE rows (Llama-3.1-70B, REBEL), Table 2's 2Wiki gain, Table 3's IRCoT gain,
        Table 4's QA gains and single-step QA against IRCoT.

    Examples
    --------
    >>> [(r.table, r.verdict) for r in chapter_readings()][:3]
    [('Table 5', 'holds'), ('Table 5, Table 8 (Appendix C)', 'holds'), ('Table 2', 'holds in part')]
    """
    return [_llama_70b(), _rebel(), _2wiki_gain(), _ircot(), _qa(), _single_step_qa()]
