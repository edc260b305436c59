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
# **2.1** `s_i = 1/|P_i|`, where `|P_i|` is the number of passages with a nonzero entry in row `i`.
# Weights 1/20 and 1/5 renormalised: 0.2 and 0.8.

# %%
for counts in [(20, 5), (2, 4, 8)]:
    P = passage_count_matrix(counts)
    n_passages = np.diff(P.tocsr().indptr)  # passages per node (nonzero entries of its row)
    weights = 1 / n_passages
    my_restart = weights / weights.sum()
    feedback = exercises.check_restart(P, list(range(len(counts))), my_restart)
    print(counts, my_restart.round(4), feedback)
    assert feedback

# %% [markdown]
# **2.2** The hub's share is `(1/n) / (1/n + 1/5) = 5 / (5 + n)`; it drops below 0.15 once
# `n > 5/0.15 - 5 = 28.3`, so at 29 passages.

# %%
n = next(n for n in range(1, 1000) if 5 / (5 + n) < 0.15)
feedback = exercises.check_hub_threshold(n)
print(n, feedback)
assert feedback
