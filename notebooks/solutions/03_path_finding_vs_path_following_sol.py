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
# # Solutions to the exercises of notebook 3

# %%
from pathfinding.course import exercises

# %% [markdown]
# **3.1** $2 \cdot 5 + 1 = 11$ candidates tie, so the expected rank is the mean of $1, \dots, 11$:
# $(11 + 1)/2 = 6$.

# %%
exercises.check_chance_rank(5, (2 * 5 + 1 + 1) / 2)

# %% [markdown]
# **3.2** Every passage nearer a seed than the answer's passage outranks it. At four hops the
# answer's passages lie at depth 3 (they name the third bridge node and the answer); above them are
# the passages at depths 0, 1 and 2 of all 18 chains (9 per seed), 54 passages. The answer's two
# passages then tie first among the rest: rank 55. (At three hops the same count gives 37, the
# number the notebook's table shows.)

# %%
exercises.check_passage_rank(4, 2 * 9 * 3 + 1)
