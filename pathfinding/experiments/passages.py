"""Step 7 at the passage level: where does the answer's passage land when passages are scored by pi . P?

The chapter says the answer's passage "rises to the top". On the synthetic instances it does not, and
the reason teaches something: PPR mass decays with distance from the seeds (each hop keeps at most
half of it at restart probability 0.5, and an interior chain node splits it two ways), so a passage
that names a seed, or a node one hop from one, outweighs a passage deep in the graph. The meet node's
factor 2 wins only against nodes at the *same* distance, which is why the answer is first among the
candidates (the dead ends at depth ``hops``) but not among all passages.

This module measures the answer's best passage under three passage scorings:

``pi_P``
    HippoRAG's score pi . P over every passage.
``pi_P_no_query_passages``
    The same score, ranking only passages that name no query entity (the seeds' own passages are
    what the user already knows about).
``meet_mass``
    pi_min . P, where pi_min is the element-wise minimum of the seeds' *separate* PPR vectors: a node
    scores high only if every seed's walk reaches it. This is the "and" of the walks where PPR's single
    walk from all seeds is an "or" with a bonus of 2 at the meet.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pathfinding._validation import check_vector
from pathfinding.core.ppr import personalized_pagerank
from pathfinding.core.scoring import passage_scores
from pathfinding.errors import InvalidValueError
from pathfinding.experiments.hop_depth import trial_streams
from pathfinding.experiments.stats import mean_ci
from pathfinding.synthetic.instances import PathFindingInstance, make_instance
from pathfinding.synthetic.rankers import RANKERS

__all__ = [
    "PASSAGE_SCORINGS",
    "PassageRow",
    "best_passage_rank",
    "meet_mass",
    "passage_level_experiment",
    "passage_ranks",
]


def best_passage_rank(scores, targets, pool=None) -> float:
    """Expected rank of the first target passage when ``pool`` is sorted by ``scores``, ties at random.

    Parameters
    ----------
    scores : array_like of float, shape (n_passages,)
    targets : array_like of bool, shape (n_passages,)
        The passages that count as a hit (those naming the answer).
    pool : array_like of int, optional
        The passages that are ranked (default: all). Must contain at least one target.

    Returns
    -------
    float
        ``1 + b + (m - a) / (a + 1)``, where ``b`` passages score above the best target, and the
        ``m`` passages tied with it hold ``a`` targets: the expected position of the first of ``a``
        targets in a random order of ``m`` tied items is ``(m + 1) / (a + 1)``.

    Examples
    --------
    Two target passages tied with one other passage, one passage above them all:

    >>> round(best_passage_rank([0.9, 0.5, 0.5, 0.5, 0.1], [False, True, True, False, False]), 4)
    2.3333
    """
    scores = check_vector("scores", scores)
    targets = np.asarray(targets, dtype=bool)
    if targets.shape != scores.shape:
        raise InvalidValueError(f"targets must have shape {scores.shape}, got {targets.shape}")
    pool = np.arange(scores.size) if pool is None else np.asarray(pool, dtype=np.int64)
    s, t = scores[pool], targets[pool]
    if not t.any():
        raise InvalidValueError("the pool holds no target passage, so its rank is undefined")
    best = s[t].max()
    above = int(np.count_nonzero(s > best))
    tied = int(np.count_nonzero(s == best))
    tied_targets = int(np.count_nonzero(t & (s == best)))
    return float(above + (tied + 1) / (tied_targets + 1))


def meet_mass(instance: PathFindingInstance, *, restart_prob: float = 0.5) -> np.ndarray:
    """Element-wise minimum of each seed's own PPR vector: mass that *every* seed's walk puts on a node.

    Examples
    --------
    On the meet-node toy (u, w, a, b, c) both walks reach the shared node a strongly, 14 times what
    they both put on a dead end; PPR's single walk from both seeds gives a only twice a dead end:

    >>> from pathfinding.synthetic.toy import meet_node_toy
    >>> toy = meet_node_toy()
    >>> meet_mass(toy).round(4)
    array([0.0476, 0.0476, 0.1667, 0.0119, 0.0119])
    """
    seeds = np.asarray(instance.seeds)
    block = np.zeros((instance.n_nodes, seeds.size))
    block[seeds, np.arange(seeds.size)] = 1.0
    walks = personalized_pagerank(instance.prepared, block, restart_prob=restart_prob)
    return walks.min(axis=1)


def _query_passages(instance: PathFindingInstance) -> np.ndarray:
    P = instance.mentions.tocsr()
    return np.asarray(P[instance.seeds].sum(axis=0)).ravel() > 0


def _answer_passages(instance: PathFindingInstance) -> np.ndarray:
    P = instance.mentions.tocsr()
    return np.asarray(P[[instance.answer]].sum(axis=0)).ravel() > 0


PASSAGE_SCORINGS = ("pi_P", "pi_P_no_query_passages", "meet_mass")
"""The passage scorings :func:`passage_ranks` measures, in the order FINDINGS reports them."""


def passage_ranks(instance: PathFindingInstance) -> dict[str, tuple[float, int, int]]:
    """Rank of the answer's best passage, passages ranked and answer passages among them, per scoring.

    A scoring whose pool holds no passage naming the answer (at one hop every answer passage names a
    seed, so ``pi_P_no_query_passages`` has none) reports ``nan``.

    Examples
    --------
    >>> inst = make_instance(2, rng=7)
    >>> {k: (float(r), n, a) for k, (r, n, a) in passage_ranks(inst).items()}
    {'pi_P': (19.0, 36, 2), 'pi_P_no_query_passages': (1.0, 18, 2), 'meet_mass': (1.0, 36, 2)}
    """
    P = instance.mentions
    answer = _answer_passages(instance)
    everything = np.arange(instance.n_passages)
    no_query = everything[~_query_passages(instance)]
    pi_p = passage_scores(RANKERS["ppr"](instance), P)
    meet = passage_scores(meet_mass(instance), P)

    def ranked(scores, pool):
        hits = int(np.count_nonzero(answer[pool]))
        rank = best_passage_rank(scores, answer, pool) if hits else float("nan")
        return rank, int(pool.size), hits

    return {
        "pi_P": ranked(pi_p, everything),
        "pi_P_no_query_passages": ranked(pi_p, no_query),
        "meet_mass": ranked(meet, everything),
    }


@dataclass(frozen=True)
class PassageRow:
    """The answer's best passage under one scoring at one hop depth, over ``trials`` instances."""

    scoring: str
    hops: int
    trials: int
    n_passages: int
    n_answer_passages: int
    mean: float
    ci_low: float
    ci_high: float
    hit_at_5: float

    @property
    def chance(self) -> float:
        """Expected rank of the first answer passage in a random order of the pool."""
        return (self.n_passages + 1) / (self.n_answer_passages + 1)


def passage_level_experiment(
    *, hops: Sequence[int] = (1, 2, 3), trials: int = 200, seed: int = 0
) -> list[PassageRow]:
    """The answer's best-passage rank by hop depth, trial ``t`` built as in the hop-depth experiment.

    Trial ``t`` at depth ``h`` is :func:`pathfinding.experiments.hop_depth.regenerate` ``(seed, t, h)``, so
    these
    rows describe the same instances as the node-level rows. A scoring with no eligible passage at a
    depth is left out of that depth.
    """
    rows = []
    for h in hops:
        ranks = {name: [] for name in PASSAGE_SCORINGS}
        sizes = {}
        for t in range(trials):
            inst = make_instance(h, rng=trial_streams(seed, t)[0])
            for name, (rank, n, a) in passage_ranks(inst).items():
                ranks[name].append(rank)
                sizes[name] = (n, a)
        for name in PASSAGE_SCORINGS:
            values = np.asarray(ranks[name])
            if np.isnan(values).any():
                continue
            mean, lo, hi = mean_ci(values)
            rows.append(
                PassageRow(name, h, trials, *sizes[name], mean, lo, hi, float(np.mean(values <= 5)))
            )
    return rows
