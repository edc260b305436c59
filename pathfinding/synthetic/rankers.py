"""The rankers that compete on a path-finding instance: one node-scoring function per name.

``RANKERS`` maps a name to ``instance -> node scores``; the walk and the Table 5 ablations go through
:data:`pathfinding.core.scoring.NODE_SCORERS`, the dispatch the real-text retriever shares, and
mention counting is vector-RAG's shape (every passage scored against the query on its own).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from pathfinding.core.scoring import NODE_SCORERS, mention_count_scores
from pathfinding.core.specificity import restart_vector
from pathfinding.synthetic.instances import PathFindingInstance

__all__ = ["RANKERS"]


def _restart(inst: PathFindingInstance, specificity: bool) -> np.ndarray:
    spec = inst.specificity if specificity else None
    return restart_vector(inst.n_nodes, inst.seeds, specificity=spec)


def _graph(inst: PathFindingInstance):
    # Three rankers walk the same instance graph; the instance lays it out once for all of them.
    return inst.prepared



RANKERS: dict[str, Callable[[PathFindingInstance], np.ndarray]] = {
    "mention_count": lambda inst: mention_count_scores(inst.mentions, inst.seeds),
    "ppr": lambda inst: NODE_SCORERS["ppr"](_graph(inst), _restart(inst, True)),
    "ppr_no_specificity": lambda inst: NODE_SCORERS["ppr"](_graph(inst), _restart(inst, False)),
    "rq_nodes": lambda inst: NODE_SCORERS["rq_nodes"](_graph(inst), _restart(inst, True)),
    "rq_neighbours": lambda inst: NODE_SCORERS["rq_neighbours"](_graph(inst), _restart(inst, True)),
}
"""Node-scoring function per ranker name, as used by the experiment and the CLI."""
