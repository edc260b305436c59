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
# # 0. HippoRAG as a whole: from passages to ranked passages
#
# HippoRAG (Gutiérrez et al., NeurIPS 2024, §2) is a retriever for questions that need facts from
# several passages. Offline it reads every passage once with an LLM, turns the facts into a
# knowledge graph of short phrases, and remembers which passages each phrase came from. Online it
# finds the phrases a question names, starts a Personalized PageRank (PPR) walk at them, and ranks
# the passages by the mass the walk leaves on the phrases they contain.
#
# This notebook shows the whole system before the course takes it apart: the brain map the paper
# borrows its names from, the two pipelines, and **one small corpus carried through every step** —
# passages, triples, nodes, synonymy edges, the count matrix $P$, query entities, seeds, node
# specificity, PPR and the passage scores $\pi P$. Every later notebook opens with the same
# pipeline and marks the steps it studies.

# %% [markdown]
# ## Step 1: the brain map
#
# The paper borrows its vocabulary from hippocampal indexing theory (§2.1–2.2, Figure 2): an LLM
# plays the **neocortex** (it reads passages and questions), retrieval encoders play the
# **parahippocampal regions** (they decide which phrases mean the same thing), and the knowledge
# graph with Personalized PageRank plays the **hippocampal index** (it completes a pattern from
# partial cues). Each box names the module of this package that does the job.

# %%
import warnings

import matplotlib.pyplot as plt
import numpy as np

from pathfinding.core.ppr import personalized_pagerank
from pathfinding.core.scoring import passage_scores
from pathfinding.core.specificity import passage_counts, restart_vector
from pathfinding.course.diagrams import draw_brain_map, draw_explanation, draw_matrix_p, draw_pipelines
from pathfinding.course.draw import draw_graph, show
from pathfinding.course.tables import show_explanation, show_table
from pathfinding.course.teaching import check, expect
from pathfinding.hipporag import BM25Ranker, HippoRetriever, build_index, capitalised_spans, link_entities
from pathfinding.synthetic.toy import tiny_corpus

# BM25's library asks for Jupyter widgets to draw a progress bar; the bar is not needed here.
warnings.filterwarnings("ignore", message="IProgress not found")

fig, ax = plt.subplots(figsize=(10.5, 4.2), layout="constrained")
draw_brain_map(ax=ax)
show(fig, "00_brain_map")

# %% [markdown]
# The load-bearing claim is in the bottom row: **the hippocampal index stores no content.** Its
# nodes are short phrases ("halvorsen institute", "coral bleaching"), and its only link to the text
# is the count matrix $P$, which says which passages each phrase came from. The passages themselves
# live in a store (here `HippoIndex.passages`), as memories live in the neocortex in the theory,
# and retrieval reaches them only through $P$. So the index cannot answer a question by itself: it
# can only point at passages, and a reader LLM answers from those.
#
# ## The two pipelines
#
# Offline, every passage is read once, by **two** LLM calls (the expensive part): the first asks
# for the passage's named entities, the second for its triples, with those entities pasted into
# the prompt (§2.3). The paper's reason for the order: it gives "an appropriate balance between
# generality and bias towards named entities" — the triples may still name concepts (noun
# phrases) beyond the entities, but the entities are sure to be there. Online, a question costs
# one LLM call for its entities and then only graph arithmetic.

# %%
fig, ax = plt.subplots(figsize=(10.5, 5.6), layout="constrained")
draw_pipelines(ax=ax)
show(fig, "00_pipelines")

# %% [markdown]
# ## One small corpus, every step
#
# The paper's motivating question asks which researcher at one university works on one disease:
# no passage names both, but one person links them. Our own version: *Which Halvorsen Institute
# researcher studies coral bleaching?* One passage places Mirela Okonkwo at the institute, another
# says she studies coral bleaching; the rest are distractors that mention one query entity each.
#
# ### Step 2 (offline): OpenIE triples
#
# HippoRAG asks an LLM for (subject, relation, object) triples per passage. Here they are written by
# hand (`pathfinding.synthetic.toy.tiny_corpus`), the way an extractor would: passage 0 says
# "Dr. Mirela Okonkwo" and passage 1 "Mirela Okonkwo", so the two mentions become two different
# phrases.

# %%
corpus = tiny_corpus()
passages, triples, question, gold_tiny = corpus.passages, corpus.triples, corpus.question, corpus.gold
show_table(
    [[f"p{j}", passages[j], " · ".join(" | ".join(t) for t in ts)] for j, ts in enumerate(triples)],
    header=["passage", "text", "triple (subject | relation | object)"],
)

# %% [markdown]
# ### Step 3 (offline): nodes, relation edges and synonymy edges
#
# Every distinct normalised phrase (lower case, punctuation dropped) becomes a node; every triple
# adds a relation edge between its subject and object. Then the retrieval encoder embeds every
# phrase, and any two phrases whose cosine is at least $\tau = 0.8$ get a **synonymy edge** weighted
# by that cosine. Here the encoder is the package's character-trigram TF-IDF (no model download).
# *Predict:* which pair will get one?

# %%
index = build_index(triples, passages=passages, tau=0.8)
names = index.phrases
print(index.stats.summary())
E = index.node_embeddings
cos = (E @ E.T).toarray()
pairs = sorted(
    ((cos[i, j], names[i], names[j]) for i in range(len(names)) for j in range(i + 1, len(names))),
    reverse=True,
)
show_table(
    [[a, b, c, "synonymy edge" if c >= 0.8 else ""] for c, a, b in pairs[:5]],
    header=["phrase", "phrase", "cosine", "cosine ≥ 0.8?"],
    formats=[None, None, ".3f", None],
    caption="the five most similar phrase pairs",
)
syn = index.synonymy_graph
dr, mirela = index.phrase_ids["dr  mirela okonkwo"], index.phrase_ids["mirela okonkwo"]
check(
    index.stats.n_synonymy_edges == 1 and syn[dr, mirela] >= 0.8,
    idea="only the two spellings of Mirela Okonkwo are similar enough (cosine >= tau) to be joined",
)

# %% [markdown]
# ### Step 3 (offline): the count matrix $P$
#
# $P$ has one row per node and one column per passage: $P_{ij}$ counts the triples of passage $j$
# that mention node $i$ (distinct triples, each node counted once per triple). A node's row is the
# only pointer from the index back to the text.

# %%
P = index.mentions
show_table(
    [[name, *P.toarray()[i].astype(int)] for i, name in enumerate(names)],
    header=["node", *(f"p{j}" for j in range(len(passages)))],
)

# %% [markdown]
# **Which $P$?** The chapter, after the paper (§2.3), defines $P_{ij}$ as how many times phrase $i$
# *appears in* passage $j$. This package counts, by default, the *triples* of passage $j$ that name
# phrase $i$, as HippoRAG v1's released code does: $P$ then says which passages a phrase was
# extracted from, and our measurements compare with the released code. The paper's definition is
# one keyword away, `build_index(..., mentions="text")`; notebook 8 measures what it changes.
#
# **Which encoder?** The synonymy edge above joins two *spellings*. The paper's encoders
# (Contriever, ColBERTv2) are dense retrieval models that also join *aliases*: the chapter's "JFK"
# and "John F. Kennedy" share no character trigram, so our encoder gives them cosine 0. Notebook 8
# shows that computed.
#
# ### Step 4 (online): query entities and seeds
#
# HippoRAG's LLM reads the question and names its entities. Suppose it returns "the Halvorsen
# Institute" and "bleaching of corals" — not the exact node phrases. Each is linked to the node
# with the highest encoder cosine; those nodes are the query nodes, the **seeds** $R_q$. (The
# package's offline extractor, `capitalised_spans`, finds only the capitalised one; common nouns
# need a real NER.)

# %%
ner_output = ["the Halvorsen Institute", "bleaching of corals"]
print("offline extractor finds:", capitalised_spans(question))
link = link_entities(index, ner_output)
show_table(
    [[ent, names[node], c] for ent, node, c in zip(link.entities, link.nodes, link.scores, strict=True)],
    header=["query entity", "linked node", "cosine"],
    formats=[None, None, ".3f"],
)
R_q = np.unique(link.nodes)
halvorsen, coral = index.phrase_ids["halvorsen institute"], index.phrase_ids["coral bleaching"]
expect(sorted(R_q), sorted([halvorsen, coral]), idea="both entities link to the node that means them")

# %% [markdown]
# ### Step 5 (online): node specificity and the restart vector
#
# A seed found in many passages says little about which passage the question wants. HippoRAG
# weights each seed by its **node specificity**, one over the number of passages $|P_i|$ its node
# was extracted from, and renormalises over the seeds:
#
# $$
# s_i = \frac{1}{|P_i|}, \qquad r_i = \frac{s_i}{\sum_{j \in R_q} s_j} \quad (i \in R_q),
# \qquad r_i = 0 \text{ elsewhere.}
# $$
#
# Both seeds here are in three passages, so specificity leaves the restart at $\tfrac12, \tfrac12$
# (notebook 2 shows a case where it does not). By hand, then with the package:

# %%
counts = passage_counts(P)[R_q]
s = 1.0 / counts
by_hand = s / s.sum()
r = restart_vector(index.n_nodes, R_q, specificity=index.specificity)
print("|P_i| of the seeds:", counts, " s_i:", s.round(3), " restart by hand:", by_hand.round(3))
expect(r[R_q], by_hand, atol=1e-15, idea="the restart vector is s_i renormalised over the query nodes")

# %% [markdown]
# ### Step 6 (online): Personalized PageRank over relation and synonymy edges
#
# The walk restarts at the seeds with probability $\alpha = 0.5$ and otherwise follows an edge, a
# node splitting what it sends over its edges in proportion to their weights. Its stationary
# distribution $\pi$ solves
#
# $$
# \pi = \alpha\, r + (1 - \alpha)\, \pi W,
# $$
#
# with $W$ the row-normalised weighted adjacency matrix. The first call compiles the package's
# numba kernels (a few seconds the first time on a machine; cached on disk afterwards).
# *Predict:* which two nodes that are not seeds end up with the most mass?

# %%
pi = personalized_pagerank(index.graph(), r)
show_table(
    [[names[i], pi[i]] for i in np.argsort(-pi)[:5]],
    header=["node", "PPR mass"],
    formats=[None, ".4f"],
    caption="the five nodes with the most mass",
)
non_seed = np.setdiff1d(np.arange(index.n_nodes), R_q)
best_two = non_seed[np.argsort(-pi[non_seed])[:2]]
check(
    set(best_two) == {dr, mirela},
    idea="the two Okonkwo nodes, reached from both query nodes via the synonymy edge, collect the most mass",
)

# %%
fig, ax = plt.subplots(figsize=(8, 5.6), layout="constrained")
# The answer entity has two nodes (two spellings); we rank one of them against the other phrases.
draw_graph(
    index.graph(synonymy=False), R_q, pi, answer=mirela, candidates=np.setdiff1d(non_seed, [dr]),
    names=names, ax=ax,
    dashed=index.synonymy_graph, labels="all",
    title="The tiny index: relation edges (grey), the synonymy edge (dashed), PPR mass",
)  # fmt: skip
show(fig, "00_tiny_graph")

# %% [markdown]
# ### Step 7 (online): passage scores $\pi P$ and the ranking
#
# Each passage collects the mass of the nodes it mentions:
#
# $$
# \operatorname{score}(p_j) = (\pi P)_j = \sum_i \pi_i \, P_{ij}.
# $$
#
# Passage 0 by hand: it mentions "halvorsen institute" and "dr mirela okonkwo", so its score is
# $\pi_{\text{halvorsen institute}} + \pi_{\text{dr mirela okonkwo}}$.

# %%
scores = passage_scores(pi, P)
print(f"p0 by hand: {pi[halvorsen] + pi[dr]:.4f}   package: {scores[0]:.4f}")
expect(scores[0], pi[halvorsen] + pi[dr], atol=1e-12, idea="a passage's score is the sum of its nodes' mass")
hippo_order = np.argsort(-scores, kind="stable")
bm25_order = BM25Ranker(passages).rank(question, k=len(passages))
star = ["★ " if j in gold_tiny else "" for j in range(len(passages))]
show_table(
    [
        [rank, f"{star[j]}p{j}", scores[j], f"{star[b]}p{b}: {passages[b]}"]
        for rank, (j, b) in enumerate(zip(hippo_order, bm25_order, strict=True), start=1)
    ],
    header=["rank", "HippoRAG (π P)", "score", "BM25 on the same question"],
    formats=[None, None, ".4f", None],
    caption="★ = a passage the answer needs",
)
check(
    set(hippo_order[:2]) == set(gold_tiny),
    idea="PPR puts both passages about Mirela Okonkwo on top, though neither names both query entities",
)
lead = scores[list(gold_tiny)].min() / np.delete(scores, list(gold_tiny)).max() - 1
print(f"the weaker gold passage beats the best distractor by {lead:.2%}")
check(0 < lead < 0.01, idea="the gold passages win by less than one percent: the walk has little to separate")

# %%
fig, axes = plt.subplots(1, 2, figsize=(11, 5), width_ratios=[1, 1.3], layout="constrained")
draw_matrix_p(P, pi, node_names=names, passage_labels=passages, highlight=gold_tiny, axes=axes)
show(fig, "00_tiny_matrix_p")

# %% [markdown]
# ### Why each passage ranked: its score split by seed
#
# Every number in that ranking is a sum, so it splits exactly. The walk is linear in its restart
# vector: $\pi$ is the sum, over the seeds $s$, of the mass of the walks whose last restart was at
# $s$; and $\pi P$ is linear in $\pi$. So each passage's score is one part per seed, and the parts
# add up to it. `HippoRetriever.explain` computes them (`pathfinding hipporag query --explain` on
# the command line) with the walk of this notebook: v1's, the two entities given.
# *Predict:* each gold passage names one query entity only; where does its small lead come from?

# %%
v1 = HippoRetriever(index, extractor=None, facts=0, passage_weight=0, guess_weight=1)
why = v1.explain(question, k=len(passages), entities=ner_output)
expect(why.scores, scores[why.ids], rtol=1e-9, idea="the explained scores are the π P of Step 7")
show_explanation(why, passages=4, caption="the top four passages, each score split by seed")
other = {pe.passage: min(p.share for p in pe.parts) for pe in why.passages}  # the other seed's share
print("share of each passage's score from the seed it does not name:",
      {f"p{j}": f"{x:.1%}" for j, x in sorted(other.items())})
check(
    min(other[j] for j in gold_tiny) > max(x for j, x in other.items() if j not in gold_tiny),
    idea="the gold passages lead because the other seed's mass reaches them (via Okonkwo's synonymy edge)",
)

# %%
fig, axes = plt.subplots(1, 2, figsize=(10, 4.2), layout="constrained")
draw_explanation(why, passages=6, nodes=2, axes=axes)
show(fig, "00_tiny_explained")

# %% [markdown]
# Each gold passage is almost all one seed's mass, like every other passage; what sets it apart is
# the few percent that come from the seed it does *not* name, through the nodes of Mirela Okonkwo
# that the synonymy edge joins. That is the meet node of the chapter, seen from the passages: two
# inflows where a distractor gets one.

# %% [markdown]
# Two things to read off. BM25 puts Ana Ferreira's passage first: it shares "studies coral
# bleaching" with the question word for word, and nothing else links the question's two entities.
# And HippoRAG's margin is thin: the weaker gold passage beats the best distractor by a fraction of a
# percent (printed under the table). Every passage here mentions two nodes and every query node is
# in three passages, so the walk has little to separate. Passages that mention more nodes collect
# more mass, which is why the passages naming a query entity tend to win on the synthetic instances
# too (notebook 3).
#
# ## Where the course goes from here
#
# Each notebook takes one part of this route and tests it:
#
# * **1. The meet-node arithmetic** (Step 6): why a node two seeds reach holds twice what a dead end
#   holds, by hand and at convergence.
# * **2. Node specificity** (Step 5): $s_i = 1/|P_i|$, when a hub seed hurts, and why it can be kept
#   up to date.
# * **3. Path-finding versus path-following** (Steps 6–7): the meet node ranks first, but the
#   answer's *passage* does not.
# * **4. What defeats PPR** (Step 6): graph shapes that eat the factor of 2.
# * **5. The cost** (the two pipelines): index once, query cheap, and the break-even.
# * **6. Monitoring** (Steps 2–3): recall when facts go missing from the index.
# * **7. The pipeline on real text** (every step): one MuSiQue question with the authors' triples.
# * **8. What the numbers say** (Step 9): the paper's tables beside the package's own rows.

# %% [markdown]
# ## Exercises
#
# Answer each before you open `solutions/00_hipporag_whole_sol.py`.
#
# **0.1 Specificity that moves the restart.** A second question, *Which coral bleaching researcher
# was born in Porto?*, links to the nodes "coral bleaching" and "porto". Compute its
# specificity-weighted restart vector over every node of `index` from the count matrix `P`, without
# calling `restart_vector`; each entry to 3 decimal places.

# %%
from pathfinding.course import exercises

porto_seeds = [index.phrase_ids["coral bleaching"], index.phrase_ids["porto"]]
my_porto_restart = ...  # a vector of length index.n_nodes
exercises.check_restart(P, porto_seeds, my_porto_restart)
