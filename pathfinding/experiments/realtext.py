"""The real-text experiment: HippoRAG vs BM25 on the MuSiQue tuning set (100 questions), offline.

:func:`run_realtext` loads the released files (fetched and verified by
:mod:`pathfinding.hipporag.storage.datasets`), builds the index from the OpenIE triples, ranks the corpus
for every question, as written (``cased``) and lower-cased (``lower``), with BM25 and with each
HippoRAG variant, and bootstraps R@k and AR@k. :func:`format_report` prints it,
:func:`findings_section` writes the FINDINGS.md rows and :func:`benchmark` times the index build and
one query.

The 100 questions are the HippoRAG authors' tuning set, and the defaults below were chosen on them
(the extractor in an earlier run, the fact and passage weights here): this set is both the tuning
and the evaluation set, so every row is optimistic by that choice.

Methods (all on the same index unless said):

* ``bm25`` -- the lexical baseline (also the fallback of every HippoRAG variant);
* ``default`` -- :class:`~pathfinding.hipporag.retrieval.retrieve.HippoRetriever` with its defaults
  (the question read through the index's casing model, capitalised entities, or multi-word node
  phrases for a question with no name, + the 5 best BM25 facts at weight 0.1, passage nodes with
  BM25 restart weight 0.2, and the walk fused with BM25 at weight 0.85 when the names were read
  from the corpus, 0.65 when there is none);
* ``v1[<extractor>]`` -- HippoRAG v1's shape (no passage nodes, no fact seeds, the question read
  as typed) with each offline extractor, and ``v1[facts]`` with fact seeds only;
* ``hybrid[capitalised]`` -- v1 with capitalised entities plus passage nodes (BM25 weight 0.2);
* v1[capitalised] without specificity, without synonymy, Table 5's "R_q nodes only", "R_q nodes &
  neighbours" as v1 computes it (``neighbor_2``: two hops), our one-weighted-hop variant, and
  ``tau=0.9`` (the other synonymy threshold of the authors' grid; a second index).
"""

from __future__ import annotations

import functools
import platform
from dataclasses import dataclass, field

import numpy as np

from pathfinding._validation import check_int
from pathfinding.experiments import DEFAULT_BOOT
from pathfinding.hipporag.evaluation.metrics import (
    KS,
    all_recall_at_k,
    bootstrap_indices,
    bootstrap_mean_ci,
    paired_difference_ci,
    recall_at_k,
    supporting_ids,
)
from pathfinding.hipporag.index.build import index_from_openie
from pathfinding.hipporag.index.model import HippoIndex
from pathfinding.hipporag.io.loaders import load_corpus, load_openie, load_questions
from pathfinding.hipporag.retrieval.lexical import BM25Ranker
from pathfinding.hipporag.retrieval.retrieve import HippoRetriever
from pathfinding.hipporag.storage.datasets import fetch

__all__ = [
    "CASES",
    "RealTextResult",
    "compare_methods",
    "findings_section",
    "format_report",
    "load_realtext",
    "musique_index",
    "run_realtext",
]


COMMAND = "python -m pathfinding realtext --seed {seed}"

CASES = {"cased": lambda q: q, "lower": str.lower}
"""How each question is typed: as in the dataset, and lower-cased."""

V1 = {"extractor": "capitalised", "facts": 0, "passage_weight": 0.0, "guess_weight": 1.0}
"""HippoRetriever settings that give HippoRAG v1's shape."""
V1_NAME = "v1[capitalised]"


@functools.lru_cache(maxsize=1)
def load_realtext():
    """Load the released questions, corpus and OpenIE (cached).

    Returns
    -------
    dict
        ``questions``, ``corpus``, ``openie`` and ``reports`` (one LoadReport per file; the OpenIE
        report includes the corpus alignment check).
    """
    questions, q_rep = load_questions(fetch("musique_questions"))
    corpus, c_rep = load_corpus(fetch("musique_corpus"))
    openie, o_rep = load_openie(fetch("musique_openie"), corpus=corpus)
    return {"questions": questions, "corpus": corpus, "openie": openie, "reports": [q_rep, c_rep, o_rep]}


@functools.lru_cache(maxsize=2)
def musique_index(tau: float = 0.8) -> HippoIndex:
    """The MuSiQue index for one synonymy threshold, built once per process.

    Indexes are never modified in place (add and delete return new ones), so sharing one is safe.
    Phrases are normalised with HippoRAG v1's ASCII rule, so the index has v1's node set from v1's
    triples (the Unicode rule keeps the letters of the non-ASCII phrases and so changes some nodes
    and synonymy edges).
    """
    return index_from_openie(load_realtext()["openie"], tau=tau, normalization="ascii")


@dataclass
class RealTextResult:
    """Per-question R@k and AR@k of every (method, case), with the bootstrap summaries.

    Attributes
    ----------
    methods : list of str
        Row names ``"<method> (<case>)"`` in display order; the two BM25 rows first.
    descriptions : dict of str to str
    recall, all_recall : dict of str to numpy.ndarray, shape (n_questions, 4)
        Per-question R@k and AR@k at k = 1, 2, 5, 10.
    summary, all_summary : dict of str to numpy.ndarray, shape (4, 3)
        ``[mean, low, high]`` per k.
    vs_bm25, all_vs_bm25 : dict of str to numpy.ndarray, shape (4, 3)
        Paired difference to BM25 on the same questions, per k.
    fallbacks : dict of str to int
        Questions that fell back to BM25 (no seed).
    n_questions, n_boot, seed : int
    index_summary, reports : used by the printout.
    """

    methods: list[str]
    descriptions: dict[str, str]
    recall: dict[str, np.ndarray]
    all_recall: dict[str, np.ndarray]
    summary: dict[str, np.ndarray]
    all_summary: dict[str, np.ndarray]
    vs_bm25: dict[str, np.ndarray]
    all_vs_bm25: dict[str, np.ndarray]
    fallbacks: dict[str, int]
    n_questions: int
    n_boot: int
    seed: int
    index_summary: str
    reports: list = field(default_factory=list)
    _idx: np.ndarray | None = None

    def paired(self, a: str, b: str, *, all_recall: bool = False) -> np.ndarray:
        """Paired bootstrap ``[mean, low, high]`` of (A)R@k(a) - (A)R@k(b) per k."""
        table = self.all_recall if all_recall else self.recall
        return paired_difference_ci(table[a], table[b], self._idx)

    def to_json(self) -> dict:
        """Plain-dict form (what ``--json`` writes)."""
        return {
            "dataset": "MuSiQue tuning set (HippoRAG musique_train.json)",
            "n_questions": self.n_questions,
            "seed": self.seed,
            "n_boot": self.n_boot,
            "ks": list(KS),
            "index": self.index_summary,
            "load_reports": [r.to_dict() for r in self.reports],
            "methods": {
                m: {
                    "description": self.descriptions[m],
                    "fallbacks_to_bm25": self.fallbacks[m],
                    "recall": {f"R@{k}": _triple(self.summary[m][c]) for c, k in enumerate(KS)},
                    "all_recall": {f"AR@{k}": _triple(self.all_summary[m][c]) for c, k in enumerate(KS)},
                    "minus_bm25": {f"R@{k}": _triple(self.vs_bm25[m][c]) for c, k in enumerate(KS)},
                    "all_minus_bm25": {f"AR@{k}": _triple(self.all_vs_bm25[m][c]) for c, k in enumerate(KS)},
                }
                for m in self.methods
            },
            "versions": library_versions(),
        }


def _triple(row) -> dict:
    return {"mean": round(float(row[0]), 6), "low": round(float(row[1]), 6), "high": round(float(row[2]), 6)}


def library_versions_line() -> str:
    """The FINDINGS line naming the libraries behind a real-text section's numbers."""
    v = library_versions()
    return (
        f"Library versions: numpy {v['numpy']}, scipy {v['scipy']}, scikit-learn {v['scikit-learn']}, "
        f"bm25s {v['bm25s']}."
    )


def library_versions() -> dict[str, str]:
    """Versions of Python and of the libraries behind the real-text numbers (FINDINGS, ``--json``)."""
    import bm25s
    import numba
    import scipy
    import sklearn

    return {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "scikit-learn": sklearn.__version__,
        "bm25s": bm25s.__version__,
        "numba": numba.__version__,
    }


def _methods(tau: float, alt_tau: float) -> list[tuple[str, str, dict, float]]:
    """(name, description, HippoRetriever keywords, tau of the index) for every HippoRAG row."""
    v1 = V1_NAME
    rows = {
        "default": (
            "defaults: the question read through the casing model, capitalised entities (multi-word node "
            "phrases without a name) + 5 BM25 facts at weight 0.1, passage weight 0.2; walk fused with "
            "BM25 at 0.85 (names read from the corpus) or 0.65 (no name)",
            {},
        ),
        v1: ("v1 shape: capitalised entities, PPR over the phrases, pi . P", {}),
        "v1[node_ngrams]": ("v1 shape, node phrases found in the question", {"extractor": "node_ngrams"}),
        "v1[union]": ("v1 shape, capitalised spans + node phrases", {"extractor": "union"}),
        "v1[facts]": ("v1 shape, seeds from the 5 best BM25 facts only", {"extractor": None, "facts": 5}),
        "hybrid[capitalised]": (
            "v1[capitalised] + passage nodes, passage weight 0.2",
            {"passage_weight": 0.2},
        ),
        f"{v1}: no specificity": ("uniform restart over the seeds", {"specificity": False}),
        f"{v1}: no synonymy": ("PPR over relation edges only", {"synonymy": False}),
        f"{v1}: R_q nodes only": ("Table 5: restart vector, no walk", {"scorer": "rq_nodes"}),
        f"{v1}: R_q nodes & neighbours (v1 neighbor_2)": (
            "Table 5 as v1 computes it: + half the smallest seed weight within two hops",
            {"scorer": "rq_neighbours_v1"},
        ),
        f"{v1}: R_q nodes + one weighted hop": ("our variant: r + W^T r", {"scorer": "rq_neighbours"}),
    }
    out = [(name, text, kw if name == "default" else {**V1, **kw}, tau) for name, (text, kw) in rows.items()]
    return [*out, (f"{v1}: tau={alt_tau}", f"synonymy threshold {alt_tau} instead of {tau}", {**V1}, alt_tau)]


def _rank_all(retriever, questions, k):
    rankings, fell = [], 0
    for q in questions:
        r = retriever.retrieve(q, k=k)
        rankings.append(r.passages)
        fell += int(r.fell_back)
    return rankings, fell


def run_realtext(
    *, seed: int = 0, n_boot: int = DEFAULT_BOOT, n_questions: int | None = None, tau: float = 0.8
) -> RealTextResult:
    """Run every method on the MuSiQue tuning set, cased and lower-cased; bootstrap R@k and AR@k.

    Parameters
    ----------
    seed : int, default 0
        Seeds the bootstrap generator (the retrieval itself has no randomness).
    n_boot : int, default 2000
        Bootstrap resamples.
    n_questions : int, optional
        Use only the first ``n_questions`` questions (the index still covers all 1,890 passages).
    tau : float, default 0.8
        Synonymy threshold of the main index.

    Returns
    -------
    RealTextResult
    """
    seed = check_int("seed", seed, low=0)
    n_boot = check_int("n_boot", n_boot, low=1)
    data = load_realtext()
    questions = data["questions"]
    if n_questions is not None:
        n_questions = check_int("n_questions", n_questions, low=1, high=len(questions))
        questions = questions[:n_questions]
    index = musique_index(float(tau))
    bm25 = BM25Ranker(index.passages)
    alt_tau = 0.9 if tau != 0.9 else 0.8
    retrievers = [
        (name, text, HippoRetriever(musique_index(t), bm25=bm25, **kw))
        for name, text, kw, t in _methods(float(tau), alt_tau)
    ]
    return compare_methods(
        questions, data["corpus"], index, retrievers, bm25=bm25, seed=seed, n_boot=n_boot,
        reports=data["reports"], bm25_text="BM25 (bm25s, English stop words) on title + text",
    )  # fmt: skip


def compare_methods(
    questions, corpus, index, retrievers, *, bm25, seed: int, n_boot: int, reports, bm25_text: str
) -> RealTextResult:
    """BM25 and each retriever on every question, cased and lower-cased; R@k and AR@k bootstrapped.

    The one evaluation behind the MuSiQue rows and the held-out rows
    (:func:`pathfinding.experiments.heldout.run_heldout`): rows ``"<method> (<case>)"``, one
    bootstrap of question indices shared by every row, each method paired with BM25 on the same case.

    Parameters
    ----------
    questions : list of Question
    corpus : list of Passage
        The passages the supporting titles are matched against (:func:`supporting_ids`).
    index : HippoIndex
        Summarised in the result (its passages are what every ranking indexes into).
    retrievers : list of (str, str, HippoRetriever)
        Name, description, retriever; in row order after the two BM25 rows.
    bm25 : BM25Ranker
    seed, n_boot : int
    reports : list of LoadReport
    bm25_text : str
        The BM25 rows' description.
    """
    gold = supporting_ids(questions, corpus)
    kmax = max(KS)
    typed = {case: [f(q.question) for q in questions] for case, f in CASES.items()}

    recall: dict[str, np.ndarray] = {}
    all_recall: dict[str, np.ndarray] = {}
    desc: dict[str, str] = {}
    fallbacks: dict[str, int] = {}

    def record(name: str, text: str, rankings, fell: int) -> None:
        recall[name] = recall_at_k(rankings, gold)
        all_recall[name] = all_recall_at_k(rankings, gold)
        desc[name] = text
        fallbacks[name] = fell

    for case in CASES:
        record(f"bm25 ({case})", bm25_text, [bm25.rank(q, kmax) for q in typed[case]], 0)
    for name, text, ret in retrievers:
        for case in CASES:
            record(f"{name} ({case})", text, *_rank_all(ret, typed[case], kmax))

    idx = bootstrap_indices(len(questions), n_boot=n_boot, rng=seed)
    methods = list(recall)
    base = {m: f"bm25 ({m.rsplit('(', 1)[1]}" for m in methods}
    return RealTextResult(
        methods=methods,
        descriptions=desc,
        recall=recall,
        all_recall=all_recall,
        summary={m: bootstrap_mean_ci(recall[m], idx) for m in methods},
        all_summary={m: bootstrap_mean_ci(all_recall[m], idx) for m in methods},
        vs_bm25={m: paired_difference_ci(recall[m], recall[base[m]], idx) for m in methods},
        all_vs_bm25={m: paired_difference_ci(all_recall[m], all_recall[base[m]], idx) for m in methods},
        fallbacks=fallbacks,
        n_questions=len(questions),
        n_boot=n_boot,
        seed=seed,
        index_summary=index.stats.summary(),
        reports=reports,
        _idx=idx,
    )


def _compact(text: str) -> str:
    return " ".join(text.replace("[ ", "[").replace(",  ", ", ").split()).replace("[ ", "[")


def _pct(row) -> str:
    return f"{100 * row[0]:5.1f} [{100 * row[1]:5.1f}, {100 * row[2]:5.1f}]"


def _signed(row) -> str:
    return f"{100 * row[0]:+5.1f} [{100 * row[1]:+5.1f}, {100 * row[2]:+5.1f}]"


def _targets(res: RealTextResult) -> list[tuple[str, np.ndarray, bool]]:
    """(claim, measured paired difference in points, verdict) for the issue's targets."""
    r5 = KS.index(5)
    out = []
    for name, case, margin in (
        ("default", "cased", 0.15),
        ("default", "lower", 0.13),
        (V1_NAME, "cased", 0.10),
    ):
        d = res.vs_bm25[f"{name} ({case})"][r5]
        text = f"{name}, {case} questions: R@5 at least BM25 + {100 * margin:.0f} points, paired CI above 0"
        out.append((text, d, bool(d[0] >= margin - 1e-12 and d[1] > 0)))
    d = res.vs_bm25[f"{V1_NAME} (lower)"][r5]
    out.append((f"{V1_NAME}, lower questions: R@5 above BM25, paired CI above 0", d, bool(d[1] > 0)))
    return out


def format_report(result: RealTextResult) -> str:
    """The R@k and AR@k tables and the paired differences to BM25, as plain text (percent)."""
    w = max(len(m) for m in result.methods)
    lines = [
        f"MuSiQue tuning set: {result.n_questions} questions, as written and lower-cased; mean [95% "
        f"bootstrap CI] in %, {result.n_boot} resamples of questions, seed {result.seed}",
        "Index: " + result.index_summary,
        "Load reports:",
    ]
    for rep in result.reports:
        lines.extend("  " + line for line in rep.summary().splitlines())
    for label, summary, diffs in (
        ("R", result.summary, result.vs_bm25),
        ("AR", result.all_summary, result.all_vs_bm25),
    ):
        head = f"{'method':<{w}}  " + "  ".join(f"{label + '@' + str(k):^20}" for k in KS)
        lines += ["", head + ("  fallbacks" if label == "R" else ""), "-" * (len(head) + 11)]
        for m in result.methods:
            cells = "  ".join(f"{_pct(summary[m][c]):^20}" for c in range(len(KS)))
            lines.append(f"{m:<{w}}  {cells}" + (f"  {result.fallbacks[m]:>9}" if label == "R" else ""))
        lines += ["", f"{label}@k minus BM25 on the same questions, points, paired bootstrap 95% CI", head]
        lines.append("-" * len(head))
        for m in result.methods:
            if not m.startswith("bm25"):
                cells = "  ".join(f"{_signed(diffs[m][c]):^20}" for c in range(len(KS)))
                lines.append(f"{m:<{w}}  {cells}")
    lines.append("")
    for text, d, ok in _targets(result):
        lines.append(f"Target: {text}: {_signed(d).strip()} -> {'HOLDS' if ok else 'DOES NOT HOLD'}")
    return "\n".join(lines)


def findings_section(*, seed: int = 0, n_boot: int = DEFAULT_BOOT) -> str:
    """The FINDINGS.md section for the real-text experiment (deterministic for a given seed).

    Returns
    -------
    str
        Markdown starting with ``## Real text: MuSiQue tuning set (100 questions)``; each row gives
        the method and case, the measured values with their 95% CIs, the reproducing command, the
        seed and the number of bootstrap resamples, followed by a line of library versions.
    """
    res = run_realtext(seed=seed, n_boot=n_boot)
    r5 = KS.index(5)
    cmd = f"`{COMMAND.format(seed=seed)}`"
    common = f"{cmd} | {seed} | {n_boot}"

    def holds(ok: bool) -> str:
        return "holds" if ok else "does not hold"

    def table(label: str, summary, diffs, fb: bool) -> list[str]:
        cols = " | ".join(f"{label}@{k}" for k in KS)
        rows = [
            f"| # | method (questions) | {cols} | {label}@5 minus BM25 (paired) |"
            + (" BM25 fallbacks |" if fb else "")
            + " command | seed | resamples |",
            "|" + "---|" * (len(KS) + 6 + fb),
        ]
        for i, m in enumerate(res.methods, start=1):
            cells = " | ".join(_pct(summary[m][c]).strip() for c in range(len(KS)))
            diff = "—" if m.startswith("bm25") else _signed(diffs[m][r5]).strip()
            fall = (
                ("—" if m.startswith("bm25") else f"{res.fallbacks[m]} of {res.n_questions}") if fb else None
            )
            extra = f" {fall} |" if fb else ""
            rows.append(f"| {label}{i} | {m} | {_compact(cells)} | {_compact(diff)} |{extra} {common} |")
        return rows

    claims = [
        "| # | claim | measured (points, paired 95% CI) | verdict | command | seed | resamples |",
        "|---|---|---|---|---|---|---|",
    ]

    def claim(text: str, d, ok: bool) -> None:
        claims.append(
            f"| C{len(claims) - 1} | {text} | {_compact(_signed(d).strip())} | {holds(ok)} | {common} |"
        )

    for text, d, ok in _targets(res):
        claim(text, d, ok)
    for name in ("hybrid[capitalised]", "default"):
        for case in CASES:
            m = f"{name} ({case})"
            worst = min(range(len(KS)), key=lambda c: res.vs_bm25[m][c][0])
            d = res.vs_bm25[m][worst]
            claim(
                f"{m} is never below BM25: R@k minus BM25 >= 0 at every k (smallest: R@{KS[worst]})",
                d,
                bool(all(res.vs_bm25[m][c][0] >= 0 for c in range(len(KS)))),
            )
    v1_gain = res.vs_bm25["v1[capitalised] (cased)"][r5][0]
    d = res.vs_bm25["hybrid[capitalised] (cased)"][r5]
    claim(
        f"hybrid[capitalised] keeps at least half of v1's cased R@5 gain over BM25 ({100 * v1_gain:+.1f})",
        d,
        bool(d[0] >= 0.5 * v1_gain),
    )
    for case in CASES:
        d = res.all_vs_bm25[f"default ({case})"][r5]
        claim(
            f"Default retriever, {case} questions, beats BM25 on AR@5 (all supporting passages in the "
            "top 5), paired CI above 0",
            d,
            bool(d[1] > 0),
        )
    full = "v1[capitalised] (cased)"
    for m in res.methods:
        if m.startswith("v1[capitalised]:") and m.endswith("(cased)"):
            d = res.paired(full, m)[r5]
            variant = m.split(": ", 1)[1].rsplit(" (", 1)[0]
            claim(f"v1[capitalised] beats its variant '{variant}' on R@5 (cased)", d, bool(d[1] > 0))
    d = res.vs_bm25["default (cased)"][r5]
    claim(
        f"default keeps at least half of v1's cased R@5 gain over BM25 ({100 * v1_gain:+.1f})",
        d,
        bool(d[0] >= 0.5 * v1_gain),
    )
    fb_default = res.fallbacks["default (lower)"]
    numbers_only = res.n_questions - res.fallbacks["hybrid[capitalised] (lower)"]
    lines = [
        "## Real text: MuSiQue tuning set (100 questions)",
        "",
        "HippoRAG v1's released GPT-3.5 OpenIE triples for the 1,890-passage corpus, indexed offline "
        "(character-trigram TF-IDF encoder for synonymy and entity linking, no LLM, no network); every "
        "question is asked as written (cased) and lower-cased. R@k: share of the supporting passages in "
        "the top k; AR@k: share of questions with all of them in the top k (Table 6); in %, mean [95% "
        "bootstrap CI]; differences to BM25 are paired bootstrap intervals on the same questions. These "
        "100 questions are the authors' tuning set and the defaults (the question read through the "
        "casing model; capitalised spans, multi-word node phrases for a question with no name; 5 facts "
        "at weight 0.1; passage weight 0.2; the walk fused with BM25 by reciprocal rank, offset 10, at "
        "weight 0.85 when its names were read from the corpus and 0.65 when it has none) were chosen "
        "on them: the tuning set is the evaluation set, so the "
        f"default's rows are optimistic by that choice. {fb_default} of {res.n_questions} lower-cased "
        "questions fell back to BM25 with the default retriever. The 'R_q nodes & neighbours (v1 "
        "neighbor_2)' row is Table 5 as HippoRAG v1 computes it; 'one weighted hop' is ours. The fact "
        "linker drops the question's interrogatives and auxiliaries (`lexical.QUESTION_WORDS`, written "
        "from grammar and measured once on these questions): with them, 'when did ... where' matched "
        "song titles ahead of the question's own rare entity, and the default fell below BM25 at R@1 "
        "and R@2 on lower-cased questions. The hybrid that answers the never-below-BM25 target is the "
        "default (fact seeds + passage nodes). hybrid[capitalised] has passage nodes but no fact seeds: "
        f"lower-cased, its capitalised spans are numbers alone on the {numbers_only} questions that do "
        "not fall back, and a year alone is a poor seed; its rows show why the default adds facts.",
        "",
        "Index: " + res.index_summary + ".",
        "",
        *table("R", res.summary, res.vs_bm25, True),
        "",
        *table("AR", res.all_summary, res.all_vs_bm25, False),
        "",
        *claims,
        "",
        library_versions_line(),
        "",
    ]
    return "\n".join(lines)
