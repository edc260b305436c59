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
# seeds, but each seed also has a *dead end reached by two of its own chains* (a diamond). The
# diamond's end collects two inflows, like the answer, and both come from one seed, which sends two
# thirds of its outflow into the diamond and one third into its bridge. Nodes 0 and 1 are the
# seeds, 2 the answer, 3 and 4 the bridge nodes; 5-7 and 8-10 the diamonds of seed 0 and seed 1.

# %%
facts = [
    (0, 3), (3, 2), (1, 4), (4, 2),  # the two bridges meet at the answer
    (0, 5), (0, 6), (5, 7), (6, 7),  # seed 0's diamond: two chains into dead end 7
    (1, 8), (1, 9), (8, 10), (9, 10),  # seed 1's diamond: two chains into dead end 10
]  # fmt: skip
names = [f"n{i}" for i in range(11)]
my_instance = instance_from_facts(
    np.array(facts),
    names,
    [f"{names[a]} met {names[b]}." for a, b in facts],
    seeds=[0, 1],
    answer=2,
    candidates=[2, 7, 10],
    hops=2,
)
feedback = exercises.check_defeating_shape(my_instance)
print(feedback)
assert feedback

# %% [markdown]
# **4.2** An interior bridge node of degree `2 + b` forwards `1/(2 + b)` of what it receives instead
# of `1/2`; the answer's inflows are each cut by `2/(2 + b)`, against one uncut inflow for a dead
# end. Three seeds give the answer three inflows, so the factor 2 becomes 3: the estimate
# `3 · 2/(2 + b) < 1` says `b > 4`. Leaves also send mass back, so measure: the first slip is at 5
# (with two seeds the same estimate says `b > 2`, and the notebook measured 3).

# %%
from pathfinding.core.scoring import rank_of
from pathfinding.synthetic.instances import make_instance
from pathfinding.synthetic.rankers import RANKERS

for b in range(1, 7):
    inst = make_instance(2, seeds=3, bridge_branching=b, rng=0)
    print(b, rank_of(RANKERS["ppr"](inst), inst.answer, inst.candidates))
feedback = exercises.check_slip_branching(5, seeds=3)
print(feedback)
assert feedback
