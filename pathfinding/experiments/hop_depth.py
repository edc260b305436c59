"""The hop-depth experiment: where does each ranker put the answer as the path gets longer?

For every hop depth and trial we generate one instance, score its nodes with every ranker, and record
the answer's rank among the candidates, both as the expected rank under random tie-breaking and as
one random tie-break. Trial ``t`` of a run with seed ``s`` draws from ``SeedSequence(s).spawn(...)[t]``,
the same child at every hop depth (common random numbers), so any single trial can be regenerated
with :func:`regenerate`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
from tqdm.auto import tqdm

from pathfinding._validation import check_int, check_vector
from pathfinding.core.scoring import tie_ranks
from pathfinding.errors import InvalidValueError
from pathfinding.experiments.stats import mean_ci
from pathfinding.synthetic.instances import PathFindingInstance, make_instance
from pathfinding.synthetic.rankers import RANKERS

__all__ = ["ExperimentResult", "SummaryRow", "regenerate", "run_experiment", "trial_streams"]

DEFAULT_RANKERS = ("mention_count", "ppr", "ppr_no_specificity", "rq_nodes", "rq_neighbours")


def trial_streams(seed: int, trial: int) -> tuple[np.random.SeedSequence, np.random.SeedSequence]:
    """The two independent streams of one trial: (instance generation, tie-breaking).

    ``SeedSequence(seed).spawn(n)[trial]`` does not depend on ``n``, so neither does this.
    """
    child = np.random.SeedSequence(seed, spawn_key=(trial,))
    instance_ss, ties_ss = child.spawn(2)
    return instance_ss, ties_ss


def regenerate(seed: int, trial: int, hops, **instance_kwargs) -> PathFindingInstance:
    """Rebuild the instance that trial ``trial`` of a run with ``seed`` used at depth ``hops``.

    Examples
    --------
    >>> from pathfinding.core.scoring import rank_of
    >>> res = run_experiment(hops=(2,), trials=3, seed=5, rankers=["ppr"], progress=False)
    >>> inst = regenerate(5, 2, 2)
    >>> rank_of(RANKERS["ppr"](inst), inst.answer, inst.candidates) == float(res.ranks["ppr", 2][2])
    True
    """
    return make_instance(hops, rng=trial_streams(seed, trial)[0], **instance_kwargs)


@dataclass(frozen=True)
class SummaryRow:
    """Summary of one (ranker, hops) cell of the experiment; means come with 95% intervals."""

    ranker: str
    hops: object
    trials: int
    mean: float
    ci_low: float
    ci_high: float
    mean_random: float
    ci_random_low: float
    ci_random_high: float
    hit_at_1: float
    median: float
    chance: float


@dataclass
class ExperimentResult:
    """Ranks of the answer per (ranker, hops): ``ranks`` uses expected tie-breaking,
    ``random_ranks`` one random tie-break per trial."""

    seed: int
    trials: int
    hops: tuple
    rankers: tuple[str, ...]
    instance_kwargs: dict = field(default_factory=dict)
    ranks: dict = field(default_factory=dict)
    random_ranks: dict = field(default_factory=dict)
    n_candidates: dict = field(default_factory=dict)

    def summary(self) -> list[SummaryRow]:
        """One :class:`SummaryRow` per (ranker, hops), rankers in the run's order."""
        rows = []
        for name in self.rankers:
            for h in self.hops:
                exp = self.ranks[name, h]
                rnd = self.random_ranks[name, h]
                mean, lo, hi = mean_ci(exp)
                rmean, rlo, rhi = mean_ci(rnd)
                rows.append(
                    SummaryRow(
                        ranker=name,
                        hops=h,
                        trials=exp.size,
                        mean=mean,
                        ci_low=lo,
                        ci_high=hi,
                        mean_random=rmean,
                        ci_random_low=rlo,
                        ci_random_high=rhi,
                        hit_at_1=float(np.mean(exp == 1.0)),
                        median=float(np.median(exp)),
                        chance=(self.n_candidates[h] + 1) / 2,
                    )
                )
        return rows


def run_experiment(
    *,
    hops: Iterable = (1, 2, 3),
    trials: int = 1000,
    seed: int = 0,
    rankers: Sequence[str] | None = None,
    scorers: dict[str, Callable[[PathFindingInstance], np.ndarray]] | None = None,
    progress: bool | None = None,
    **instance_kwargs,
) -> ExperimentResult:
    """Run the hop-depth sweep: hops x trials x rankers.

    Parameters
    ----------
    hops : iterable of int (or of per-seed tuples), default (1, 2, 3)
        Hop depths to sweep.
    trials : int, default 1000
        Instances per depth.
    seed : int, default 0
        Root seed; trial ``t`` uses :func:`trial_streams` ``(seed, t)``.
    rankers : sequence of str, optional
        Names from :data:`pathfinding.synthetic.rankers.RANKERS` (default: all five of the chapter).
    scorers : dict, optional
        Extra ``name -> (instance -> node scores)`` functions to run beside ``rankers``.
    progress : bool or None
        Show a tqdm bar on stderr; ``None`` shows it only on a terminal.
    **instance_kwargs
        Passed to :func:`~pathfinding.synthetic.instances.make_instance` (``distractors``, ``seeds``,
        ``bridge_branching``, ``decoy_hops``, ``hub_passages``).

    Returns
    -------
    ExperimentResult

    Examples
    --------
    >>> res = run_experiment(hops=(1, 2), trials=50, seed=0, progress=False)
    >>> for row in res.summary()[:4]:
    ...     print(row.ranker, row.hops, round(row.mean, 2), row.chance)
    mention_count 1 1.0 9.0
    mention_count 2 9.0 9.0
    ppr 1 1.0 9.0
    ppr 2 1.0 9.0
    """
    trials = check_int("trials", trials, low=1, high=10**8)
    seed = check_int("seed", seed, low=0)
    hops = tuple(tuple(h) if isinstance(h, list | tuple) else h for h in hops)
    if not hops:
        raise InvalidValueError("hops must name at least one hop depth")
    table = dict(scorers or {})
    names = list(DEFAULT_RANKERS if rankers is None and not table else (rankers or ()))
    unknown = [n for n in names if n not in RANKERS]
    if unknown:
        raise InvalidValueError(f"unknown ranker(s) {unknown}; choose from {sorted(RANKERS)}")
    for n in names:
        table.setdefault(n, RANKERS[n])
    order = tuple(names) + tuple(n for n in table if n not in names)
    result = ExperimentResult(
        seed=seed,
        trials=trials,
        hops=hops,
        rankers=order,
        instance_kwargs=dict(instance_kwargs),
    )
    for name in order:
        for h in hops:
            result.ranks[name, h] = np.empty(trials)
            result.random_ranks[name, h] = np.empty(trials)
    bar = tqdm(
        total=len(hops) * trials,
        disable=None if progress is None else not progress,
        file=sys.stderr,
        desc="trials",
        unit="trial",
    )
    with bar:
        for h in hops:
            for t in range(trials):
                inst_ss, ties_ss = trial_streams(seed, t)
                inst = make_instance(h, rng=inst_ss, **instance_kwargs)
                ties_rng = np.random.default_rng(ties_ss)
                result.n_candidates[h] = len(inst.candidates)
                for name in order:
                    scores = check_vector(f"scores of ranker {name!r}", table[name](inst), inst.n_nodes)
                    expected, random = tie_ranks(scores, inst.answer, inst.candidates, ties_rng)
                    result.ranks[name, h][t] = expected
                    result.random_ranks[name, h][t] = random
                bar.update()
    return result
