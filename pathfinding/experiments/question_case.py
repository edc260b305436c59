"""Questions typed without the writer's capitals: FINDINGS rows K (the casing step), KV (the ways of
reading names that were tried), KW (the restored names' weight) and KT (the targets).

Every question of the MuSiQue tuning set (released triples, :func:`~pathfinding.experiments.realtext.
musique_index`) and of the held-out HotpotQA set (no-model index, :func:`~pathfinding.experiments.
heldout.heldout_index`) is asked in four forms (:func:`typed_forms`): as written, lower case, upper
case, and *mixed* (each word kept or lower-cased by a fair coin, the first letter a capital: names
typed with and without their capitals, "who is Thomas südhof"). The default retriever reads every
question through the index's casing model (:mod:`pathfinding.hipporag.language.casing`).

Ways of reading a question's names (:func:`reading_models`), each a
:class:`~pathfinding.hipporag.language.casing.CasingModel` the same reader uses:

* ``off`` -- no reading: the question as typed (the retriever before the casing step);
* ``words`` -- a token-level truecaser: each word gets its most frequent form in the corpus, from
  every capitalised occurrence of the word (inside longer names too) against its lower-case ones;
* ``node phrases`` -- the corpus's names, only those that are node phrases of the index;
* ``names`` -- every name of the corpus, longest first (the default);
* ``names + words`` -- names for runs of words, the token-level counts for single words.
"""

from __future__ import annotations

import inspect
from collections import Counter, defaultdict

import numpy as np

from pathfinding._validation import check_int
from pathfinding.errors import InvalidValueError
from pathfinding.experiments import DEFAULT_BOOT
from pathfinding.experiments.stats import format_ci
from pathfinding.hipporag.evaluation.metrics import (
    bootstrap_indices,
    bootstrap_mean_ci,
    paired_difference_ci,
    recall_at_k,
    supporting_ids,
)
from pathfinding.hipporag.index.model import HippoIndex
from pathfinding.hipporag.language.casing import STRAY_MIN, CasingModel, casing_model, word_tokens
from pathfinding.hipporag.language.text import index_normalization, normalize_phrase
from pathfinding.hipporag.retrieval.lexical import BM25Ranker
from pathfinding.hipporag.retrieval.retrieve import HippoRetriever

__all__ = [
    "FORMS",
    "KEEP_SHARE",
    "RESTORED_WEIGHTS",
    "chosen_restored_weight",
    "casing_findings_section",
    "reading_models",
    "run_casing",
    "typed_forms",
    "word_model",
]

FORMS = ("as written", "lower", "upper", "mixed")
"""How each question is typed."""
KS = (2, 5, 10)
RESTORED_WEIGHTS = (0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0)
"""The grid of ``restored_weight`` the default was chosen on (:func:`chosen_restored_weight`)."""
RESTORED_TARGET = 0.15
"""Lower-cased MuSiQue R@5 gain the chosen restored weight must reach: what cased questions must."""
KEEP_SHARE = 2 / 3
"""Share of the as-written R@5 gain over BM25 that lower-cased questions must keep (held-out target)."""
TOLERANCE = 0.01
"""How far below BM25 (one point of recall) any form may fall at R@2, R@5 and R@10 (held-out target)."""
COMMAND = "python -m pathfinding findings"


def typed_forms(questions, *, seed: int = 0) -> dict[str, list[str]]:
    """Each question in every form of :data:`FORMS`.

    ``mixed`` lower-cases each space-separated word with probability 1/2 and capitalises the first
    letter; question ``i`` draws from child ``i`` of ``SeedSequence(seed)``.

    Examples
    --------
    >>> typed_forms(["Who is Thomas Südhof?"], seed=0)["upper"]
    ['WHO IS THOMAS SÜDHOF?']
    """
    seed = check_int("seed", seed, low=0)
    texts = [q if isinstance(q, str) else q.question for q in questions]
    mixed = []
    for text, child in zip(texts, np.random.SeedSequence(seed).spawn(len(texts)), strict=True):
        rng = np.random.default_rng(child)
        words = [w if rng.random() < 0.5 else w.lower() for w in text.split(" ")]
        out = " ".join(words)
        first = next((i for i, ch in enumerate(out) if ch.isalpha()), None)
        mixed.append(out if first is None else out[:first] + out[first].upper() + out[first + 1 :])
    return {"as written": texts, "lower": [t.lower() for t in texts], "upper": [t.upper() for t in texts],
            "mixed": mixed}  # fmt: skip


def word_model(passages, *, normalization: str = "unicode") -> CasingModel:
    """The token-level truecaser's counts: per word, capitalised anywhere (inside names too), at a
    sentence's opening, and in lower case; its form is its most frequent capitalised spelling."""
    forms: dict[str, Counter] = defaultdict(Counter)
    inner, first, lower = Counter(), Counter(), Counter()
    for text in passages:
        for t in word_tokens(text):
            key = normalize_phrase(t.text, rule=normalization)
            if not key:
                continue
            if t.capital:
                forms[key][t.text] += 1
                (first if t.initial else inner)[key] += 1
            elif not t.digit:
                lower[key] += 1
    keys = sorted(set(forms) | {k for k, c in lower.items() if c >= STRAY_MIN})
    best = [min(forms[k].items(), key=lambda fc: (-fc[1], fc[0]))[0] if k in forms else "" for k in keys]
    return CasingModel(
        keys, best, [inner[k] for k in keys], [first[k] for k in keys], [lower[k] for k in keys],
        normalization=normalization,
    )  # fmt: skip


def _subset(model: CasingModel, keep) -> CasingModel:
    rows = [i for i, k in enumerate(model.keys) if keep(k, model.forms[i])]
    return CasingModel(
        [model.keys[i] for i in rows], [model.forms[i] for i in rows], model.capitalised[rows],
        model.initial[rows], model.lower[rows], normalization=model.normalization,
    )  # fmt: skip


def _merge(names: CasingModel, words: CasingModel) -> CasingModel:
    """Runs of words from ``names``, single words from ``words``."""
    rows = [(k, names, i) for i, k in enumerate(names.keys) if " " in k]
    rows += [(k, words, i) for i, k in enumerate(words.keys) if " " not in k]
    rows.sort(key=lambda r: r[0])
    counts = {a: [getattr(m, a)[i] for _, m, i in rows] for a in ("capitalised", "initial", "lower")}
    return CasingModel(
        [k for k, _, _ in rows], [m.forms[i] for _, m, i in rows], **counts, normalization=names.normalization
    )


def reading_models(index: HippoIndex) -> dict[str, CasingModel | bool]:
    """The ``casing=`` argument of :class:`HippoRetriever` for each way of reading names tried."""
    names = casing_model(index)
    words = word_model(index.passages, normalization=index_normalization(index.settings))
    nodes = index.phrase_ids
    return {
        "off": False,
        "words": words,
        "node phrases": _subset(names, lambda k, f: k in nodes or not f),
        "names": names,
        "names + words": _merge(names, words),
    }


def _datasets():
    from pathfinding.experiments.heldout import heldout_index, load_heldout
    from pathfinding.experiments.realtext import load_realtext, musique_index

    return {
        "MuSiQue": (load_realtext, musique_index),
        "held-out HotpotQA": (load_heldout, heldout_index),
    }


def run_casing(*, seed: int = 0, n_boot: int = DEFAULT_BOOT) -> dict:
    """Every form, reading and restored weight on both sets; per-question R@k and bootstrap summaries.

    Returns
    -------
    dict
        Per dataset name: ``recall`` (``(reading or weight, form) -> (n_questions, 3)`` R@2, R@5,
        R@10; BM25 under ``("bm25", form)``, the weight grid under ``(float, "lower")``), ``idx`` (the
        bootstrap resamples, shared by every row of the set) and ``n_questions``.
    """
    seed = check_int("seed", seed, low=0)
    n_boot = check_int("n_boot", n_boot, low=1)
    out = {}
    for name, (load, make_index) in _datasets().items():
        data, index = load(), make_index()
        gold = supporting_ids(data["questions"], data["corpus"])
        typed = typed_forms(data["questions"], seed=seed)
        bm25 = BM25Ranker(index.passages)
        recall = {
            ("bm25", f): recall_at_k([bm25.rank(q, max(KS)) for q in typed[f]], gold, ks=KS) for f in FORMS
        }
        for label, model in reading_models(index).items():
            recall |= _measure(label, HippoRetriever(index, bm25=bm25, casing=model), typed, gold, FORMS)
        default = inspect.signature(HippoRetriever).parameters["restored_weight"].default
        for lam in RESTORED_WEIGHTS:
            if lam == default:  # the default retriever's rows, measured above
                recall[(lam, "lower")] = recall[("names", "lower")]
                continue
            ret = HippoRetriever(index, bm25=bm25, restored_weight=lam)
            recall |= _measure(lam, ret, typed, gold, ("lower",))
        idx = bootstrap_indices(len(gold), n_boot=n_boot, rng=seed)
        out[name] = {"recall": recall, "idx": idx, "n_questions": len(gold)}
    return out


def _measure(label, retriever, typed: dict, gold, forms) -> dict:
    out = {}
    for form in forms:
        ranked = [retriever.retrieve(q, k=max(KS)).passages for q in typed[form]]
        out[(label, form)] = recall_at_k(ranked, gold, ks=KS)
    return out


def _gain(res: dict, label, form: str) -> np.ndarray:
    """Paired ``[mean, low, high]`` of R@k(label) - R@k(BM25) per k of :data:`KS`."""
    return paired_difference_ci(res["recall"][(label, form)], res["recall"][("bm25", form)], res["idx"])


def chosen_restored_weight(result: dict, *, target: float = RESTORED_TARGET) -> float:
    """The rule that chose ``restored_weight``, applied to :func:`run_casing`'s MuSiQue rows: the
    smallest weight of :data:`RESTORED_WEIGHTS` (the fusion closest to BM25) whose lower-cased R@5
    gain over BM25 is at least ``target``, the cased questions' target.

    Raises
    ------
    ValueError
        If no weight of the grid reaches it.
    """
    res, r5 = result["MuSiQue"], KS.index(5)
    for lam in RESTORED_WEIGHTS:
        gain = res["recall"][(lam, "lower")][:, r5] - res["recall"][("bm25", "lower")][:, r5]
        if gain.mean() >= target - 1e-12:
            return lam
    raise InvalidValueError(
        f"no restored weight of {RESTORED_WEIGHTS} keeps a lower-cased R@5 gain of {target}"
    )


def _pct(row, fmt: str = ".1f") -> str:
    """``[mean, low, high]`` in points; ``fmt="+.1f"`` for a difference."""
    return format_ci(*(100 * np.asarray(row, dtype=np.float64)), fmt)


def _signed(row) -> str:
    return _pct(row, "+.1f")


def _targets(result: dict) -> list[tuple[str, np.ndarray, bool]]:
    """(claim, measured paired difference, verdict) for the issue's targets."""
    r5 = KS.index(5)
    mu, ho = result["MuSiQue"], result["held-out HotpotQA"]
    out = []
    for form, margin in (("as written", 0.15), ("lower", 0.13)):
        d = _gain(mu, "names", form)[r5]
        text = f"MuSiQue, {form}: R@5 at least BM25 + {100 * margin:.0f} points"
        out.append((text, d, bool(d[0] >= margin - 1e-12)))
    cased = _gain(ho, "names", "as written")[r5][0]
    d = _gain(ho, "names", "lower")[r5]
    out.append((
        f"held-out, lower: keeps at least 2/3 of the as-written R@5 gain ({100 * cased:+.1f})", d,
        bool(d[0] >= KEEP_SHARE * cased - 1e-12),
    ))  # fmt: skip
    for form in ("as written", "lower", "upper"):
        g = _gain(ho, "names", form)
        worst = int(np.argmin(g[:, 0]))
        out.append((
            f"held-out, {form}: at most {100 * TOLERANCE:.0f} point below BM25 at R@2, R@5 and R@10 "
            f"(smallest: R@{KS[worst]})", g[worst], bool(g[:, 0].min() >= -TOLERANCE - 1e-12),
        ))  # fmt: skip
    return out


def casing_findings_section(*, seed: int = 0, n_boot: int = DEFAULT_BOOT, command: str = COMMAND) -> str:
    """The FINDINGS.md section for the casing step (deterministic for a given seed).

    Returns
    -------
    str
        Markdown starting with ``## Questions typed without the writer's capitals``: per set and
        form, BM25, the default and the default without the casing step (rows K) and what the step is
        worth; each way of reading names (KV); the restored weight's grid (KW); the targets (KT).
        Every row names the command, seed and resamples.
    """
    result = run_casing(seed=seed, n_boot=n_boot)
    common = f"`{command}` | {seed} | {n_boot}"
    cols = " | ".join(f"R@{k}" for k in KS)
    dcols = " | ".join(f"R@{k} minus BM25" for k in KS)
    n = 0

    def rid(prefix: str) -> str:
        nonlocal n
        n += 1
        return f"{prefix}{n}"

    rows = [f"| # | set | typed | method | {cols} | {dcols} | command | seed | resamples |"]
    rows.append("|" + "---|" * 13)
    for name, res in result.items():
        for form in FORMS:
            for label, method in (("bm25", "BM25"), ("names", "default"), ("off", "default, no casing step")):
                summary = bootstrap_mean_ci(res["recall"][(label, form)], res["idx"])
                cells = " | ".join(_pct(summary[c]) for c in range(len(KS)))
                diffs = ["—"] * len(KS) if label == "bm25" else map(_signed, _gain(res, label, form))
                diffs = " | ".join(diffs)
                rows.append(f"| {rid('K')} | {name} | {form} | {method} | {cells} | {diffs} | {common} |")
    worth = [
        "| # | set | typed | " + " | ".join(f"R@{k}: default minus no casing step" for k in KS)
        + " | command | seed | resamples |",
        "|" + "---|" * 9,
    ]
    for name, res in result.items():
        for form in FORMS:
            d = paired_difference_ci(res["recall"][("names", form)], res["recall"][("off", form)], res["idx"])
            worth.append(f"| {rid('K')} | {name} | {form} | {' | '.join(map(_signed, d))} | {common} |")
    n = 0
    variants = [f"| # | set | reading | typed | {dcols} | command | seed | resamples |", "|" + "---|" * 10]
    for name, res in result.items():
        for label in ("off", "words", "node phrases", "names", "names + words"):
            for form in FORMS:
                cells = " | ".join(map(_signed, _gain(res, label, form)))
                variants.append(f"| {rid('KV')} | {name} | {label} | {form} | {cells} | {common} |")
    chosen = chosen_restored_weight(result)
    default = inspect.signature(HippoRetriever).parameters["restored_weight"].default
    n = 0
    weights = [f"| # | set | restored weight | lower: {dcols} | command | seed | resamples |"]
    weights.append("|" + "---|" * 9)
    for name, res in result.items():
        for lam in RESTORED_WEIGHTS:
            mark = " (chosen)" if lam == chosen and name == "MuSiQue" else ""
            cells = " | ".join(map(_signed, _gain(res, lam, "lower")))
            weights.append(f"| {rid('KW')} | {name} | {lam:g}{mark} | {cells} | {common} |")
    n = 0
    claims = ["| # | claim | measured (points, paired 95% CI) | verdict | command | seed | resamples |",
              "|---|---|---|---|---|---|---|"]  # fmt: skip
    for text, d, ok in _targets(result):
        verdict = "holds" if ok else "does not hold"
        claims.append(f"| {rid('KT')} | {text} | {_signed(d)} | {verdict} | {common} |")
    claims.append(
        f"| {rid('KT')} | the rule (smallest weight with a lower-cased MuSiQue R@5 gain of at least "
        f"{100 * RESTORED_TARGET:.0f}) chooses the default restored weight {default:g} | {chosen:g} | "
        f"{'holds' if chosen == default else 'does not hold'} | {common} |"
    )
    lines = [
        "## Questions typed without the writer's capitals",
        "",
        "The default retriever trusts a walk seeded by a name its writer capitalised; a lower-cased "
        "question has no such name. Before the extractor, every question is now read through the "
        "index's casing model (`pathfinding.hipporag.language.casing`): how the passages themselves write "
        "each name (capitalised runs of words, counted apart where a sentence opens, against the "
        "same words in lower case). Runs of the question's words that the corpus writes as a name "
        "at least half the time get the corpus's form; the writer's capitals count only when the "
        "question has a capital after its first word and a lower-case word after it too. A name "
        "read from the corpus is weighed against BM25 (walk weight `restored_weight`, rows KW); a "
        "name the writer capitalised is walked alone, as before. Questions are asked as written, "
        "lower case, upper case and mixed (each word lower-cased by a fair coin, first letter "
        f"capitalised; question *i* draws from child *i* of `SeedSequence({seed})`). MuSiQue: the "
        "released triples (the tuning set, on which the reading's shares and the restored weight "
        "were chosen); held out: HotpotQA with the no-model index (looked at while the choice was "
        "made, not blind). Recall in %, mean [95% bootstrap CI]; differences are paired bootstrap "
        "intervals on the same questions.",
        "",
        *rows,
        "",
        "What the casing step is worth: the default minus the same retriever reading questions as typed.",
        "",
        *worth,
        "",
        "Ways of reading names (`pathfinding.experiments.question_case.reading_models`): `off` (as typed), "
        "`words` (token-level truecaser: each word's most frequent form, counted wherever it is "
        "capitalised), `node phrases` (the corpus's names that are node phrases of the index), `names` "
        "(every name of the corpus, longest first: the default), `names + words` (names for runs of "
        "words, the truecaser's counts for single words).",
        "",
        *variants,
        "",
        "The weight of a walk seeded by a name read from the corpus (`restored_weight`), chosen on "
        "MuSiQue by the rule in row KT" + str(len(claims) - 2) + "; the held-out rows show how it "
        "moves there.",
        "",
        *weights,
        "",
        *claims,
        "",
    ]
    return "\n".join(lines)
