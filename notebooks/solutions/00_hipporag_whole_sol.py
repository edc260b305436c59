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
# # Solutions to the exercises of notebook 0
#
# Each solution ends with the check the exercise cell calls, and shows its verdict.

# %%
import numpy as np

from pathfinding.course import exercises
from pathfinding.hipporag import build_index
from pathfinding.synthetic.toy import tiny_corpus

corpus = tiny_corpus()
index = build_index(corpus.triples, passages=corpus.passages, tau=0.8)
P = index.mentions
porto_seeds = [index.phrase_ids["coral bleaching"], index.phrase_ids["porto"]]

# %% [markdown]
# **0.1** $|P_i|$ is the number of nonzero entries in node $i$'s row of $P$: "coral bleaching" is in
# three passages, "porto" in one. Specificity gives them $\tfrac13$ and $1$; renormalised, the
# restart is $\tfrac14$ on "coral bleaching" and $\tfrac34$ on "porto", and 0 on every other node.
# The rarer entity steers the walk three times as hard.

# %%
n_passages = np.diff(P.tocsr().indptr)[porto_seeds]
my_porto_restart = np.zeros(index.n_nodes)
my_porto_restart[porto_seeds] = (1 / n_passages) / (1 / n_passages).sum()
print("restart:", [round(float(v), 3) for v in my_porto_restart[porto_seeds]], "on coral bleaching, porto")
exercises.check_restart(P, porto_seeds, my_porto_restart)
