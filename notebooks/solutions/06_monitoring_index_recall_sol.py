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

import numpy as np

from pathfinding.course import exercises
from pathfinding.experiments.passages import meet_mass

# %% [markdown]
# **6.1** The 4 deleted facts must all come from the 32 that are not on a bridge:
# `C(32, 4) / C(36, 4) = 0.61`. (Treating each fact as surviving independently with probability
# 0.9 gives `0.9^4 = 0.656`, which is not what the sweep does: it deletes exactly 4.) Compare with
# the connected rate the notebook's table shows at 10% deletion.

# %%
p = math.comb(32, 4) / math.comb(36, 4)
feedback = exercises.check_connected_probability(36, 4, 4, p)
print(round(p, 4), feedback)
assert feedback

# %% [markdown]
# **6.2** The largest meet mass on a node that is not a seed: when a bridge is cut, the two walks
# stop sharing the answer and the meet mass collapses.


# %%
def monitor(instance, pi):
    others = np.setdiff1d(np.arange(instance.n_nodes), instance.seeds)
    return float(meet_mass(instance)[others].max())


feedback = exercises.check_monitor(monitor)
print(feedback)
assert feedback
