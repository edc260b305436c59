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
# # Solutions to the exercises of notebook 5

# %%
from pathfinding.course import exercises
from pathfinding.course.costs import CostModel, break_even_queries, offline_share

# %% [markdown]
# **5.1** `2N + Q = ratio · Q`, so `Q = 2N / (ratio - 1)`: 2,222 queries at 10×, 690 at 30×. The
# package's cost model agrees (an iterative query of 2 steps of `ratio/2`).

# %%
for ratio in (10, 30):
    q = 2 * 10_000 / (ratio - 1)
    assert abs(q - float(break_even_queries(10_000, CostModel(step_cost=ratio / 2)))) < 1e-9
    feedback = exercises.check_break_even(10_000, ratio, q)
    print(ratio, round(q), feedback)
    assert feedback

# %% [markdown]
# **5.2** Offline `2N` equals online `Q · 1` at `Q = 2N` = 20,000 queries, whatever the ratio: the
# iterative retriever does not enter HippoRAG's own bill.

# %%
assert float(offline_share(10_000, 20_000)) == 0.5
feedback = exercises.check_half_share(10_000, 20_000)
print(feedback)
assert feedback
