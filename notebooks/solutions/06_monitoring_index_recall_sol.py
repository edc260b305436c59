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
# # Solutions to the exercises of notebook 6

# %%
import math
from fractions import Fraction

import numpy as np

from pathfinding.course import exercises
from pathfinding.experiments.passages import meet_mass

# %% [markdown]
# **6.1** The 4 deleted facts must all come from the 32 that are not on a bridge:
#
# $$\Pr[\text{all 4 bridge facts survive}] = \binom{32}{4} \Big/ \binom{36}{4} = 0.6105\ldots,$$
#
# so $0.61$ to 2 significant digits. Treating the facts as surviving independently gives
# $(8/9)^4 = 0.624$ (or $0.9^4 = 0.656$ at the rounded rate), which is not what the sweep does: it
# deletes exactly 4, without replacement, and the check says so. Compare with the connected rate
# the notebook's table shows at 10% deletion.

# %%
p = Fraction(math.comb(32, 4), math.comb(36, 4))
print(p, "=", float(p))
exercises.check_connected_probability(36, 4, 4, p)

# %% [markdown]
# **6.2** First the monitors that do not alarm. Anything that counts the index (edges, passages,
# mentions, components) gives the same value before and after the damage: wrong facts keep its size.
# The mass on the seeds moves with the damage, but by less than it varies between queries of
# different shapes, and so does the largest meet mass, whose level depends on the query's depth.
#
# What alarms is a share, not a level: on the node where the walks agree best, how much of the mass
# the combined walk puts there does *every* seed's own walk put there too (the meet mass over
# $\pi$, at its best node). On an intact index the seeds meet at the answer and the share is about
# 1, whatever the depth; a wrong fact on a bridge sends one seed's walk elsewhere, and the share
# falls.


# %%
def index_size(query, pi):
    return float(query.graph.nnz + query.mentions.nnz + len(query.passages))


def seed_mass(query, pi):
    return float(pi[query.seeds].sum())


def best_meet_mass(query, pi):
    others = np.setdiff1d(np.arange(query.n_nodes), query.seeds)
    return float(meet_mass(query)[others].max())


for weak in (index_size, seed_mass, best_meet_mass):
    print(f"{weak.__name__}: {exercises.check_monitor(weak)}")


# %%
def monitor(query, pi):
    others = np.setdiff1d(np.arange(query.n_nodes), query.seeds)
    others = others[pi[others] > 0]
    return float((meet_mass(query)[others] / pi[others]).max())


exercises.check_monitor(monitor)
