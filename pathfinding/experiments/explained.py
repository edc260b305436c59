"""What the explanations say about the MuSiQue tuning set: where the walk's passage scores come from.

On real text the chapter's meet-node argument becomes a question only an explanation answers: of
the passages the walk ranks first, how many owe their score to two seeds at once (mass that two
inflows summed), and how many to one seed alone? :func:`run_explained` explains every question of
the tuning set with v1's walk (capitalised spans, the walk over phrases, pi . P), with and without
node specificity, and the default retriever's top passages by source; :func:`findings_section`
writes the FINDINGS rows, with bootstrap intervals over the questions.

A passage counts as **drawn from two or more seeds** when at least two seed entities each bring at
least :data:`SHARE` of its score: a rule stated here, not a tuned one.
"""

from __future__ import annotations

import numpy as np

from pathfinding._validation import check_int
from pathfinding.experiments import DEFAULT_BOOT
from pathfinding.experiments.realtext import V1, load_realtext, musique_index
from pathfinding.experiments.stats import format_ci
from pathfinding.hipporag.evaluation.metrics import bootstrap_indices, bootstrap_mean_ci, supporting_ids
from pathfinding.hipporag.retrieval.retrieve import HippoRetriever

__all__ = ["SHARE", "findings_section", "run_explained"]

SHARE = 0.10
"""A seed takes part in a passage's score when it brings at least this share of it."""
K = 5
COMMAND = "python -m pathfinding findings"


def _meet_shares(ret, questions, gold) -> dict[str, list[float]]:
    """Per question with two or more linked seeds: the share of its top-K passages drawn from two or
    more seeds, overall, among the supporting ones and among the others (NaN where there are none)."""
    out = {"all": [], "supporting": [], "other": []}
    for q, g in zip(questions, gold, strict=True):
        why = ret.explain(q, k=K)
        if why.route != "v1" or why.retrieval.seeds.size < 2:
            continue
        multi = np.array(
            [sum(p.share >= SHARE for p in pe.parts if p.kind == "seed") >= 2 for pe in why.passages]
        )
        supporting = np.isin(why.ids, g)
        out["all"].append(multi.mean())
        out["supporting"].append(multi[supporting].mean() if supporting.any() else np.nan)
        out["other"].append(multi[~supporting].mean() if (~supporting).any() else np.nan)
    return out


def _sources(ret, questions) -> dict[str, list[float]]:
    """Per question: the mean share of its top-K passages' scores from entity seeds, from the seeds
    of the best facts, from the passage nodes' BM25 restart, and from the fusion's BM25 term."""
    out = {"entity seeds": [], "fact seeds": [], "passage restart": [], "BM25 in the fusion": []}
    for q in questions:
        why = ret.explain(q, k=K)
        if why.route == "bm25" or not why.passages:
            continue
        shares = dict.fromkeys(out, 0.0)
        for pe in why.passages:
            for p in pe.parts:
                key = {"passage": "passage restart", "bm25": "BM25 in the fusion"}.get(p.kind)
                key = key or ("fact seeds" if p.source.startswith("fact seeds") else "entity seeds")
                shares[key] += p.share / len(why.passages)
        for key, value in shares.items():
            out[key].append(value)
    return out


def run_explained(*, seed: int = 0, n_boot: int = DEFAULT_BOOT) -> dict:
    """Every question of the MuSiQue tuning set explained (as written): the shares above, each with
    its mean and 95% bootstrap interval over the questions it is defined on."""
    seed = check_int("seed", seed, low=0)
    data = load_realtext()
    index = musique_index()
    questions = [q.question for q in data["questions"]]
    gold = supporting_ids(data["questions"], data["corpus"])
    rows = {}
    for spec in (True, False):
        shares = _meet_shares(HippoRetriever(index, **V1, specificity=spec), questions, gold)
        for part, values in shares.items():
            rows[("meet", spec, part)] = np.asarray(values, dtype=np.float64)
    for part, values in _sources(HippoRetriever(index), questions).items():
        rows[("source", part)] = np.asarray(values, dtype=np.float64)
    out = {}
    for key, values in rows.items():
        v = values[~np.isnan(values)]
        idx = bootstrap_indices(v.size, n_boot=n_boot, rng=seed)
        out[key] = (v.size, *(100 * bootstrap_mean_ci(v, idx)))
    return out


def findings_section(*, seed: int = 0, n_boot: int = DEFAULT_BOOT) -> str:
    """The FINDINGS section: rows E1-E10 (deterministic for a given seed)."""
    res = run_explained(seed=seed, n_boot=n_boot)
    common = f"`{COMMAND}` | {seed} | {n_boot}"
    lines = [
        "## Why the walk ranks what it ranks: explanations on the MuSiQue tuning set",
        "",
        f"Every question asked as written and explained (`HippoRetriever.explain`, `query --explain`): "
        f"each top-{K} passage's score split exactly by the seed its mass last restarted from. A passage "
        f"is *drawn from two or more seeds* when at least two seed entities each bring at least "
        f"{100 * SHARE:.0f}% of its score. v1's walk (capitalised spans, the walk over phrases, pi . P) "
        f"on the questions where two or more entities link; in %, mean over questions [95% bootstrap CI].",
        "",
        "| # | what | questions | share, % [95% CI] | command | seed | resamples |",
        "|---|---|---|---|---|---|---|",
    ]
    labels = {"all": f"top-{K} passages", "supporting": f"supporting passages in the top {K}",
              "other": f"other passages in the top {K}"}  # fmt: skip
    n = 0
    for spec in (True, False):
        for part in ("all", "supporting", "other"):
            n += 1
            size, mean, lo, hi = res[("meet", spec, part)]
            how = "with" if spec else "without"
            what = f"{labels[part]} drawn from two or more seeds, {how} specificity"
            lines.append(f"| E{n} | {what} | {size} | {format_ci(mean, lo, hi, '.1f')} | {common} |")
    for part in ("entity seeds", "fact seeds", "passage restart", "BM25 in the fusion"):
        n += 1
        size, mean, lo, hi = res[("source", part)]
        what = f"the default retriever's top-{K} scores from {part} (mean share)"
        lines.append(f"| E{n} | {what} | {size} | {format_ci(mean, lo, hi, '.1f')} | {common} |")
    return "\n".join(lines) + "\n"
