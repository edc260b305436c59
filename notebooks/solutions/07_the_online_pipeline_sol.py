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
# # Solutions to the exercises of notebook 7

# %%
import numpy as np

from pathfinding.course import exercises
from pathfinding.course.teaching import check
from pathfinding.experiments.realtext import load_realtext
from pathfinding.hipporag import (
    HippoRetriever,
    capitalised_spans,
    index_from_openie,
    link_entities,
    recall_at_k,
    supporting_ids,
)

data = load_realtext()
real = index_from_openie(data["openie"], tau=0.8)
questions, corpus = data["questions"], data["corpus"]
q = next(x for x in questions if x.question.startswith("When did the country where the vil"))
seeds = np.unique(link_entities(real, capitalised_spans(q.question)).nodes)

# %% [markdown]
# **7.1** $|P_i|$ is the number of nonzero entries in node $i$'s row of $P$ (not the row's sum: a
# phrase named twice in a passage is still in one passage); the restart puts $1/|P_i|$ on each seed
# and renormalises.

# %%
n_passages = np.diff(real.mentions.tocsr().indptr)[seeds]
my_real_restart = np.zeros(real.n_nodes)
my_real_restart[seeds] = (1 / n_passages) / (1 / n_passages).sum()
print({real.phrases[s]: round(float(my_real_restart[s]), 3) for s in seeds})
exercises.check_restart(real.mentions, seeds, my_real_restart)

# %% [markdown]
# **7.2** Take the first question whose gold passages v1 misses in its top 5, and read what the
# extractor did with it.

# %%
retriever = HippoRetriever(real, extractor="capitalised", facts=0, passage_weight=0, guess_weight=1.0)
gold = supporting_ids(questions, corpus)
top5 = [retriever.retrieve(x.question, k=5).passages for x in questions]
recall5 = recall_at_k(top5, gold, ks=(5,))[:, 0]
first = int(np.argmax(recall5 < 1))
missed_question = questions[first]
print(missed_question.question)
print("capitalised spans:", capitalised_spans(missed_question.question))
exercises.check_missed_question(retriever, missed_question, corpus)

# %% [markdown]
# Why: the question names nothing with a capital letter ("church courts", "secular society"), so
# the offline extractor finds no entity, nothing is linked, and v1 falls back to BM25, which misses
# the Canon law passage. A real NER step (or the default retriever's fact linking) would give the
# walk something to start from.

# %%
check(
    capitalised_spans(missed_question.question) == [],
    idea="the first question v1 misses names nothing with a capital letter",
)
