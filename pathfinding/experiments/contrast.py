"""Path-following against path-finding, measured: the sweeps behind FINDINGS' P, B and V rows.

* :func:`run_contrast`: shape (path-following, path-finding) x hop depth x retriever, where the
  retrievers are the chaining ones of :mod:`pathfinding.synthetic.chaining` and the single-step rankers of
  :data:`pathfinding.synthetic.rankers.RANKERS`, all on the same instances.
* :func:`run_budget_sweep`: a chaining retriever on path-finding questions at round budgets 1..8.
  A run with budget ``k`` makes exactly the choices of the first ``k`` rounds of a longer run (the
  budget only stops the loop), so one trace per trial is read after every round.

Trial ``t`` builds its instance from ``trial_streams(seed, t)[0]``, the same child at every depth and
for both shapes (common random numbers); retriever ``name`` breaks its ties with its own child of
``trial_streams(seed, t)[1]``, so adding a retriever changes no other retriever's numbers. Scores
equal up to the PPR solver's tolerance count as ties (:func:`settle_ties`), so every rank is the same
on every machine.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from tqdm.auto import tqdm

from pathfinding._validation import check_int
from pathfinding.core.scoring import rank_of
from pathfinding.errors import InvalidValueError
from pathfinding.experiments.hop_depth import trial_streams
from pathfinding.experiments.stats import mean_ci, wilson
from pathfinding.synthetic.chaining import beam_retrieve, intersection_scores, iterative_retrieve
from pathfinding.synthetic.following import make_following_instance
from pathfinding.synthetic.rankers import RANKERS
from pathfinding.synthetic.variation import make_varied_instance

__all__ = [
    "BEAM_WIDTH",
    "RETRIEVERS",
    "SHAPES",
    "VARIATION",
    "BudgetResult",
    "ContrastResult",
    "make_shape",
    "run_budget_sweep",
    "run_contrast",
    "settle_ties",
]

BEAM_WIDTH = 4
VARIATION = {"length_jitter": 1, "noise_facts": 4, "shared_nodes": 2, "extra_passages": 8}
"""The structural variation of the V rows: every knob of :func:`make_varied_instance` switched on."""

SHAPES = ("following", "finding")
_CHAINING = ("iterative", "beam", "chain_relations")

RETRIEVERS: dict[str, Callable] = {
    "iterative": lambda inst, rng: iterative_retrieve(inst, rng=rng),
    "beam": lambda inst, rng: beam_retrieve(inst, width=BEAM_WIDTH, rng=rng),
    "chain_relations": lambda inst, rng: iterative_retrieve(inst, rule="relations", rng=rng),
    "intersection": lambda inst, rng: intersection_scores(inst),
    **{name: (lambda inst, rng, f=f: f(inst)) for name, f in RANKERS.items()},
}
"""Name -> ``(instance, rng) -> ChainTrace or node scores``; the chaining ones return a trace."""

DESCRIPTIONS = {
    "iterative": "IRCoT-shaped: one entity per round (relations on path-following, best score otherwise)",
    "beam": f"the same, {BEAM_WIDTH} entities per round",
    "chain_relations": "one entity per round, always choosing by the question's relations",
    "intersection": "nodes at exactly h facts from every seed (told h)",
    "mention_count": "per-passage scoring (vector-RAG's shape)",
    "ppr": "PPR with specificity",
    "ppr_no_specificity": "PPR without specificity",
    "rq_nodes": "Table 5: R_q nodes only",
    "rq_neighbours": "Table 5: R_q nodes & neighbours",
}


def make_shape(shape: str, hops, *, rng=None, **variation):
    """A path-following (``"following"``) or path-finding (``"finding"``) instance."""
    if shape == "following":
        return make_following_instance(hops, rng=rng, **variation)
    if shape == "finding":
        return make_varied_instance(hops, rng=rng, **variation)
    raise InvalidValueError(f"shape must be one of {SHAPES}, got {shape!r}")


def _retriever_rngs(ties_ss: np.random.SeedSequence) -> dict[str, np.random.Generator]:
    """One independent stream per chaining retriever: jumps of the trial's tie-breaking stream.

    Keyed by the retriever's place in :data:`RETRIEVERS`, so running a subset changes no stream.
    """
    base = np.random.PCG64(ties_ss)
    return {n: np.random.Generator(base.jumped(list(RETRIEVERS).index(n) + 1)) for n in _CHAINING}


def settle_ties(scores, *, rtol: float = 1e-9) -> np.ndarray:
    """Scores with every run of values closer than ``rtol * max|score|`` set to the run's maximum.

    PPR's solver stops at a tolerance of 1e-10, so two nodes whose masses are equal in exact arithmetic
    (a path-following answer and a dead end; a merged node that mirrors the answer) come out differing
    in the last digits, and which one wins would depend on the machine's floating point. Settling
    them makes those ties exact, so ``rank_of`` counts them as ties on every machine. Real differences
    between these rankers' scores are many orders of magnitude larger than ``rtol``.

    Examples
    --------
    >>> settle_ties([0.25, 0.25 + 1e-13, 0.5, 0.0])
    array([0.25, 0.25, 0.5 , 0.  ])
    """
    s = np.asarray(scores, dtype=np.float64)
    if s.size < 2:
        return s.copy()
    order = np.argsort(s, kind="stable")
    v = s[order]
    gap = np.diff(v) > rtol * float(np.max(np.abs(v)))
    run = np.concatenate([[0], np.cumsum(gap)])  # run id per sorted value
    top = np.maximum.reduceat(v, np.flatnonzero(np.concatenate([[True], gap])))
    out = np.empty_like(s)
    out[order] = top[run]
    return out


@dataclass(frozen=True)
class ContrastRow:
    """One (shape, hops, retriever) cell: mean rank and hit@1 with 95% intervals, and reach rate."""

    shape: str
    hops: int
    retriever: str
    trials: int
    mean: float
    ci_low: float
    ci_high: float
    hit_at_1: float
    hit_low: float
    hit_high: float
    reached: float | None
    chance: float


@dataclass
class ContrastResult:
    """Answer ranks (expected ties) per (shape, hops, retriever), and per-trial facts about them."""

    seed: int
    trials: int
    shapes: tuple
    hops: tuple
    retrievers: tuple
    variation: dict = field(default_factory=dict)
    ranks: dict = field(default_factory=dict)
    reached: dict = field(default_factory=dict)
    n_candidates: dict = field(default_factory=dict)

    def summary(self) -> list[ContrastRow]:
        """One :class:`ContrastRow` per cell, shapes outermost, then hops, then retrievers."""
        rows = []
        for shape in self.shapes:
            for h in self.hops:
                for name in self.retrievers:
                    r = self.ranks[shape, h, name]
                    mean, lo, hi = mean_ci(r)
                    hit, hlo, hhi = wilson(int(np.sum(r == 1.0)), r.size)
                    reach = self.reached.get((shape, h, name))
                    rows.append(
                        ContrastRow(
                            shape, h, name, r.size, mean, lo, hi, hit, hlo, hhi,
                            None if reach is None else float(reach.mean()),
                            (float(self.n_candidates[shape, h].mean()) + 1) / 2,
                        )
                    )  # fmt: skip
        return rows


def run_contrast(
    *,
    shapes=SHAPES,
    hops=(1, 2, 3, 4),
    trials: int = 200,
    seed: int = 0,
    retrievers=None,
    variation: dict | None = None,
    progress: bool | None = None,
) -> ContrastResult:
    """Rank the answer with every retriever on path-following and path-finding instances.

    Parameters
    ----------
    shapes : sequence of {"following", "finding"}
    hops : sequence of int, default (1, 2, 3, 4)
    trials : int, default 200
        Instances per (shape, hops).
    seed : int, default 0
    retrievers : sequence of str, optional
        Names from :data:`RETRIEVERS` (default: all of them).
    variation : dict, optional
        Structural variation knobs (e.g. :data:`VARIATION`); default none, the chapter's shape.
    progress : bool or None
        tqdm bar on stderr; ``None`` shows it only on a terminal.

    Returns
    -------
    ContrastResult

    Examples
    --------
    >>> res = run_contrast(hops=(2,), trials=20, retrievers=["iterative", "ppr"], progress=False)
    >>> {(r.shape, r.retriever): r.hit_at_1 for r in res.summary()}[("following", "iterative")]
    1.0
    """
    trials = check_int("trials", trials, low=2, high=10**7)
    seed = check_int("seed", seed, low=0)
    names = tuple(RETRIEVERS if retrievers is None else retrievers)
    unknown = [n for n in names if n not in RETRIEVERS]
    if unknown:
        raise InvalidValueError(f"unknown retriever(s) {unknown}; choose from {list(RETRIEVERS)}")
    for s in shapes:
        make_shape(s, 1, rng=0)  # validates the shape name before the long loop
    hops = tuple(check_int("hops", h, low=1, high=64) for h in hops)
    variation = dict(variation or {})
    res = ContrastResult(seed, trials, tuple(shapes), hops, names, variation)
    bar = tqdm(
        total=len(shapes) * len(hops) * trials,
        disable=None if progress is None else not progress,
        file=sys.stderr,
        desc="contrast",
        unit="trial",
    )
    with bar:
        for shape in shapes:
            for h in hops:
                ranks = {n: np.empty(trials) for n in names}
                reached = {n: np.zeros(trials, dtype=bool) for n in names if n in _CHAINING}
                n_cand = np.empty(trials)
                for t in range(trials):
                    inst_ss, ties_ss = trial_streams(seed, t)
                    inst = make_shape(shape, h, rng=inst_ss, **variation)
                    n_cand[t] = len(inst.candidates)
                    rngs = _retriever_rngs(ties_ss)
                    for n in names:
                        out = RETRIEVERS[n](inst, rngs.get(n))
                        if n in _CHAINING:
                            reached[n][t] = out.reached(inst.answer)
                            out = out.scores()
                        ranks[n][t] = rank_of(settle_ties(out), inst.answer, inst.candidates)
                    bar.update()
                for n in names:
                    res.ranks[shape, h, n] = ranks[n]
                    if n in reached:
                        res.reached[shape, h, n] = reached[n]
                res.n_candidates[shape, h] = n_cand
    return res


@dataclass
class BudgetResult:
    """Answer rank and whether it was reached, per (retriever, budget); PPR's rank for reference."""

    seed: int
    trials: int
    hops: int
    budgets: tuple
    retrievers: tuple
    variation: dict = field(default_factory=dict)
    ranks: dict = field(default_factory=dict)
    reached: dict = field(default_factory=dict)
    ppr_ranks: np.ndarray | None = None
    n_candidates: np.ndarray | None = None

    def summary(self) -> list[dict]:
        """One dict per (retriever, budget): mean rank [CI], hit@1 [CI], reached [CI], chance."""
        rows = []
        chance = (float(self.n_candidates.mean()) + 1) / 2
        for name in self.retrievers:
            for b in self.budgets:
                r, hit = self.ranks[name, b], self.reached[name, b]
                rows.append(
                    {
                        "retriever": name,
                        "budget": b,
                        "trials": r.size,
                        "mean": mean_ci(r),
                        "hit_at_1": wilson(int(np.sum(r == 1.0)), r.size),
                        "reached": wilson(int(hit.sum()), hit.size),
                        "chance": chance,
                    }
                )
        return rows


def run_budget_sweep(
    *,
    hops: int = 2,
    budgets=range(1, 9),
    trials: int = 200,
    seed: int = 0,
    retrievers=("iterative", "beam"),
    variation: dict | None = None,
) -> BudgetResult:
    """A chaining retriever on path-finding questions at every round budget.

    Parameters
    ----------
    hops : int, default 2
    budgets : iterable of int, default 1..8
    trials : int, default 200
    seed : int, default 0
    retrievers : sequence of {"iterative", "beam"}
    variation : dict, optional

    Returns
    -------
    BudgetResult

    Examples
    --------
    >>> res = run_budget_sweep(budgets=(1, 8), trials=50)
    >>> rows = {(r["retriever"], r["budget"]): r for r in res.summary()}
    >>> rows["iterative", 1]["reached"][0], rows["iterative", 8]["reached"][0] > 0
    (0.0, True)
    """
    trials = check_int("trials", trials, low=2, high=10**7)
    seed = check_int("seed", seed, low=0)
    hops = check_int("hops", hops, low=1, high=64)
    budgets = tuple(check_int("budget", b, low=1, high=100) for b in budgets)
    if not budgets:
        raise InvalidValueError("budgets must name at least one budget")
    widths = {"iterative": 1, "beam": BEAM_WIDTH}
    bad = [n for n in retrievers if n not in widths]
    if bad:
        raise InvalidValueError(f"budget sweep retrievers must be among {list(widths)}, got {bad}")
    variation = dict(variation or {})
    res = BudgetResult(seed, trials, hops, budgets, tuple(retrievers), variation)
    for n in retrievers:
        for b in budgets:
            res.ranks[n, b] = np.empty(trials)
            res.reached[n, b] = np.zeros(trials, dtype=bool)
    res.ppr_ranks = np.empty(trials)
    res.n_candidates = np.empty(trials)
    for t in range(trials):
        inst_ss, ties_ss = trial_streams(seed, t)
        inst = make_shape("finding", hops, rng=inst_ss, **variation)
        res.n_candidates[t] = len(inst.candidates)
        res.ppr_ranks[t] = rank_of(settle_ties(RANKERS["ppr"](inst)), inst.answer, inst.candidates)
        rngs = _retriever_rngs(ties_ss)
        for n in retrievers:
            trace = beam_retrieve(inst, width=widths[n], budget=max(budgets), rule="score", rng=rngs[n])
            for b in budgets:
                k = min(b, trace.rounds)
                res.ranks[n, b][t] = rank_of(trace.scores(after=k), inst.answer, inst.candidates)
                res.reached[n, b][t] = trace.reached(inst.answer, after=k)
    return res
