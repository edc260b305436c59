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
# `C(32, 4) / C(36, 4) = 0.61`. (Treating each fact as surviving independently with probability
# 0.9 gives `0.9^4 = 0.656`, which is not what the sweep does: it deletes exactly 4.) Compare with
# the connected rate the notebook's table shows at 10% deletion.

# %%
p = Fraction(math.comb(32, 4), math.comb(36, 4))
for answer in (p, float(p), round(float(p), 2)):
    feedback = exercises.check_connected_probability(36, 4, 4, answer)
    print(answer, feedback)
    assert feedback

# %% [markdown]
# **6.2** First the two monitors that do not alarm. The mass on the seeds moves with the damage,
# but by less than it varies between queries of different shapes. The largest meet mass is graded
# and falls when a bridge is cut, but its level depends on the query's depth, so a batch of deep
# questions on an intact index looks like a damaged batch.
#
# What alarms is a share, not a level: on the node where the walks agree best, how much of the mass
# the combined walk puts there does *every* seed's own walk put there too (the meet mass over `pi`,
# at its best node). On an intact index the seeds meet at the answer and the share is about 1,
# whatever the depth; when a bridge is cut the seeds' walks share nothing (share 0), and a damaged
# dead end or bridge lowers it in between.


# %%
def seed_mass(query, pi):
    return float(pi[query.seeds].sum())


def best_meet_mass(query, pi):
    others = np.setdiff1d(np.arange(query.n_nodes), query.seeds)
    return float(meet_mass(query)[others].max())


for weak in (seed_mass, best_meet_mass):
    feedback = exercises.check_monitor(weak)
    print(weak.__name__, feedback)
    assert not feedback


def monitor(query, pi):
    others = np.setdiff1d(np.arange(query.n_nodes), query.seeds)
    others = others[pi[others] > 0]
    return float((meet_mass(query)[others] / pi[others]).max())


feedback = exercises.check_monitor(monitor)
print(feedback)
assert feedback
