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
# the passages at depths 0, 1 and 2 of all 18 chains (9 per seed), 54 passages, so the answer's best
# passage is 55th. How far behind: score every passage with $\pi P$ and divide. Mass decays with
# every hop from the seeds (the restart keeps half of it at the seeds, and an interior chain node
# splits what it forwards two ways), so four hops leave the answer's passage under a hundredth of
# the top score.

# %%
from pathfinding.core.scoring import passage_scores
from pathfinding.synthetic.instances import make_instance
from pathfinding.synthetic.rankers import RANKERS

inst = make_instance(4, rng=0)
scores = passage_scores(RANKERS["ppr"](inst), inst.mentions)
answer_passages = inst.mentions.tocsr()[[inst.answer]].indices
share = scores[answer_passages].max() / scores.max()
rank = 1 + int((scores > scores[answer_passages].max()).sum())
print(f"the answer's best passage: rank {rank} of {inst.n_passages}, share {share:.5f} of the top score")
exercises.check_passage_share(share)
