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
# # Solutions to the exercises of notebook 2

# %%
import numpy as np

from pathfinding.course import exercises
from pathfinding.synthetic.toy import passage_count_matrix

# %% [markdown]
# **2.1** $s_i = 1/|P_i|$, where $|P_i|$ is the number of passages with a nonzero entry in row $i$
# of $P$. Weights $1/15$ and $1/6$, renormalised to sum 1: $2/7 \approx 0.286$ and
# $5/7 \approx 0.714$ (the chapter's 20 and 5 give $0.2$ and $0.8$).


# %%
def specificity_restart(P, seeds):
    n_passages = np.diff(P.tocsr().indptr)[seeds]  # passages per seed (nonzero entries of its row)
    restart = np.zeros(P.shape[0])
    restart[seeds] = (1 / n_passages) / (1 / n_passages).sum()
    return restart


P = passage_count_matrix((15, 6))
print(specificity_restart(P, [0, 1]).round(4))
exercises.check_restart(P, [0, 1], specificity_restart(P, [0, 1]))

# %%
P = passage_count_matrix((2, 4, 8))
print(specificity_restart(P, [0, 1, 2]).round(4))
exercises.check_restart(P, [0, 1, 2], specificity_restart(P, [0, 1, 2]))

# %% [markdown]
# **2.2** The hub's share is $\frac{1/n}{1/n + 1/5} = \frac{5}{5 + n}$; it drops below $0.15$ once
# $n > 5/0.15 - 5 = 28.3$, so at 29 passages.

# %%
n = next(n for n in range(1, 1000) if 5 / (5 + n) < 0.15)
print(n, "passages:", f"share {5 / (5 + n):.3f}")
exercises.check_hub_threshold(n)
