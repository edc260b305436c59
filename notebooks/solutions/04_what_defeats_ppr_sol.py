# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python (pathfinding)
#     language: python
#     name: pathfinding
# ---

# %% [markdown]
# # Solutions to the exercises of notebook 4

# %%
import numpy as np

from pathfinding.course import exercises
from pathfinding.synthetic.instances import instance_from_facts

# %% [markdown]
# **4.1** One shape of our own that is not a generator knob: the answer sits at two hops from both
# seeds, but each seed also has a *dead end reached by three of its own chains*. A seed of degree 4
# sends a quarter of its outflow down each edge, and each chain's middle node forwards half of what
# it gets: the answer collects $2 \times \frac14 \times \frac12 = \frac14$ of one seed's outflow
# (one inflow from each seed), the three-chain dead end $3 \times \frac14 \times \frac12 = \frac38$,
# all from its own seed. A wrong candidate has strictly more mass than the answer; with two chains
# per dead end the two would tie exactly, and a tie is not a defeat. Nodes 0 and 1 are the seeds, 2
# the answer, 3 and 4 the bridge nodes; 5-8 and 9-12 the three-chain dead ends of seed 0 and seed 1.

# %%
facts = [
    (0, 3), (3, 2), (1, 4), (4, 2),  # the two bridges meet at the answer
    (0, 5), (0, 6), (0, 7), (5, 8), (6, 8), (7, 8),  # seed 0: three chains into dead end 8
    (1, 9), (1, 10), (1, 11), (9, 12), (10, 12), (11, 12),  # seed 1: three chains into dead end 12
]  # fmt: skip
names = [f"n{i}" for i in range(13)]
my_instance = instance_from_facts(
    np.array(facts),
    names,
    [f"{names[a]} met {names[b]}." for a, b in facts],
    seeds=[0, 1],
    answer=2,
    candidates=[2, 8, 12],
    hops=2,
)
exercises.check_defeating_shape(my_instance)

# %% [markdown]
# **4.2** An interior bridge node of degree $2 + b$ forwards $1/(2 + b)$ of what it receives instead
# of $1/2$; the answer's inflows are each cut by $2/(2 + b)$, against one uncut inflow for a dead
# end. Three seeds give the answer three inflows, so the factor 2 becomes 3: the estimate
# $3 \cdot 2/(2 + b) < 1$ says $b > 4$. Leaves also send mass back, so measure: the first slip is
# at 5 (with two seeds the same estimate says $b > 2$, and the notebook measured 3).

# %%
from pathfinding.core.scoring import rank_of
from pathfinding.synthetic.instances import make_instance
from pathfinding.synthetic.rankers import RANKERS

ranks = {}
for b in range(1, 7):
    inst = make_instance(2, seeds=3, bridge_branching=b, rng=0)
    ranks[b] = rank_of(RANKERS["ppr"](inst), inst.answer, inst.candidates)
print("answer's rank by leaves per bridge node:", ranks)
exercises.check_slip_branching(min(b for b, r in ranks.items() if r > 1), seeds=3)
