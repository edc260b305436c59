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
# Each solution ends with the check the exercise cell calls, and shows its verdict.

# %%
import numpy as np

from pathfinding.core.ppr import personalized_pagerank
from pathfinding.core.specificity import node_specificity, restart_vector
from pathfinding.course import exercises
from pathfinding.course.teaching import check
from pathfinding.synthetic.instances import make_instance
from pathfinding.synthetic.toy import passage_count_matrix

# %% [markdown]
# **1.1** A seed holds half the restart mass. After one step it keeps $\alpha$ of it; the rest,
# $(1 - \alpha) \cdot 0.5$, leaves along its $d$ edges, $(1 - \alpha) \cdot 0.5 / d$ per edge. The
# answer has one edge to each seed, a dead end one edge to one seed.


# %%
def one_step(d, alpha):
    per_inflow = (1 - alpha) * 0.5 / d
    return 2 * per_inflow, per_inflow


exercises.check_one_step(one_step)

# %% [markdown]
# **1.2** Call the masses $x$ (seed), $y$ (answer), $z$ (dead end). Neither the answer nor a dead
# end restarts, so $z = (1 - \alpha)\, x / d$ and $y = 2 (1 - \alpha)\, x / d$. A seed gets its
# restart share $\alpha / 2$ plus what comes back: a dead end has one edge and sends everything
# back, the answer sends half to each seed:
#
# $$x = \frac{\alpha}{2} + (1 - \alpha)\left((d - 1)\, z + \frac{y}{2}\right)
#     = \frac{\alpha}{2} + (1 - \alpha)^2 x .$$
#
# So $x = 1 / (2 (2 - \alpha))$: $1/3$ at $\alpha = 0.5$, whatever $d$; then $y = 1/(3d)$ and
# $z = 1/(6d)$.


# %%
def stationary(d, alpha):
    seed = 1 / (2 * (2 - alpha))
    return seed, 2 * (1 - alpha) * seed / d, (1 - alpha) * seed / d


check(
    np.allclose(stationary(9, 0.5), (1 / 3, 1 / 27, 1 / 54)),
    idea="at d = 9 and restart 0.5 the stationary masses are 1/3, 1/27 and 1/54",
)
exercises.check_stationary(stationary)

# %% [markdown]
# **1.3** The answer gets $(1 - \alpha)(r_1 + r_2)/d$, the heavier seed's dead end
# $(1 - \alpha)\, r_1 / d$: the margin is $(r_1 + r_2)/r_1 = 1 + r_2/r_1$, between 1 and 2.


# %%
def margin(r1, r2):
    return 1 + r2 / r1


exercises.check_margin(margin)

# %% [markdown]
# **1.3b** With three seeds the same argument gives $(r_1 + r_2 + r_3)/r_1 = 1/r_1$, where $r_1$ is
# the largest restart weight. Specificity weights the seeds by $1/|P_i|$: $1/20$, $1/10$ and $1/2$,
# which normalise to $1/13$, $2/13$ and $10/13$. The margin is $13/10 = 1.3$, down from 3 without
# specificity: the rare seed's dead end nearly catches the answer. (Weighting by $|P_i|$ instead
# gives $32/20 = 1.6$, and with the chapter's two seeds both weightings give the same $1.25$.)

# %%
weights = restart_vector(3, [0, 1, 2], specificity=node_specificity(passage_count_matrix((20, 10, 2))))
print("restart weights:", weights.round(4))
exercises.check_specificity_margin(1 / weights.max())

# %% [markdown]
# **1.4** Three inflows against one: the ratio is 3 (and it stays 3 at the stationary distribution).

# %%
inst = make_instance(1, seeds=3, rng=0)
pi = personalized_pagerank(inst.graph, inst.seeds, tol=0, max_iter=1)
dead = np.setdiff1d(inst.candidates, [inst.answer])
exercises.check_three_seeds(pi[inst.answer] / pi[dead].max())
