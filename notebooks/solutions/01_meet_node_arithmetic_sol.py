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
# # Solutions to the exercises of notebook 1
#
# Each solution is checked by the same function the exercise cell calls.

# %%
import numpy as np

from pathfinding.core.ppr import personalized_pagerank
from pathfinding.course import exercises
from pathfinding.synthetic.instances import make_instance

# %% [markdown]
# **1.1** A seed holds half the restart mass. After one step it keeps `alpha` of it; the rest,
# `(1 - alpha) · 0.5`, leaves along its `d` edges, `(1 - alpha) · 0.5 / d` per edge. The answer has
# one edge to each seed, a dead end one edge to one seed.


# %%
def one_step(d, alpha):
    per_inflow = (1 - alpha) * 0.5 / d
    return 2 * per_inflow, per_inflow


feedback = exercises.check_one_step(one_step)
print(feedback)
assert feedback

# %% [markdown]
# **1.2** Call the masses `x` (seed), `y` (answer), `z` (dead end). Neither the answer nor a dead end
# restarts, so `z = (1 - alpha) x / d` and `y = 2 (1 - alpha) x / d`. A seed gets its restart share
# `alpha / 2` plus what comes back: a dead end has one edge and sends everything back, the answer
# sends half to each seed: `x = alpha/2 + (1 - alpha) ((d - 1) z + y / 2) = alpha/2 + (1 - alpha)² x`.
# So `x = 1 / (2 (2 - alpha))`: 1/3 at `alpha = 0.5`, whatever `d`; then `y = 1/(3d)`, `z = 1/(6d)`.


# %%
def stationary(d, alpha):
    seed = 1 / (2 * (2 - alpha))
    return seed, 2 * (1 - alpha) * seed / d, (1 - alpha) * seed / d


feedback = exercises.check_stationary(stationary)
print(feedback)
assert feedback
assert np.allclose(stationary(9, 0.5), (1 / 3, 1 / 27, 1 / 54))

# %% [markdown]
# **1.3** The answer gets `(1 - alpha)(r1 + r2)/d`, the heavier seed's dead end `(1 - alpha) r1 / d`:
# the margin is `(r1 + r2) / r1 = 1 + r2/r1`. With seeds in 20 and 5 passages specificity moves the
# restart to 0.20/0.80, so the margin is `1 + 0.2/0.8 = 1.25`: specificity narrows it.


# %%
def margin(r1, r2):
    return 1 + r2 / r1


feedback = exercises.check_margin(margin)
print(feedback)
assert feedback
feedback = exercises.check_specificity_margin(margin(0.8, 0.2))
print(feedback)
assert feedback

# %% [markdown]
# **1.4** Three inflows against one.

# %%
inst = make_instance(1, seeds=3, rng=0)
pi = personalized_pagerank(inst.graph, inst.seeds, tol=0, max_iter=1)
dead = np.setdiff1d(inst.candidates, [inst.answer])
feedback = exercises.check_three_seeds(pi[inst.answer] / pi[dead].max())
print(feedback)
assert feedback
