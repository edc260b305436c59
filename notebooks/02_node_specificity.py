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
# # 2. Node specificity
#
# Before the walk starts, HippoRAG multiplies each query node's restart probability by its
# *node specificity*
#
# $$
# s_i = \frac{1}{|P_i|}, \qquad r_i = \frac{s_i}{\sum_{j \in R_q} s_j} \quad (i \in R_q),
# $$
#
# where $|P_i|$ is the number of passages node $i$ was extracted from and $R_q$ the query's seeds
# (paper §2.3, "node specificity"; its effect is in the Table 5 ablation). A seed
# such as "United States" that sits in thousands of passages is a hub: it says little about which
# passages the question wants, and a walk restarting there floods the graph around it.
#
# This notebook does three things:
# 1. the worked example (20 and 5 passages → restart 0.20 / 0.80);
# 2. a seed that is a hub, ranked with and without specificity — at the **node** level and at the
#    **passage** level, which is what HippoRAG actually returns;
# 3. why $s_i$ can be maintained one passage at a time, while a corpus-level IDF cannot.
#
# Where this sits in HippoRAG: Step 5, between the seeds and the walk, reading the counts of $P$.

# %%
import matplotlib.pyplot as plt
import numpy as np

from pathfinding.core.incremental import replay_additions
from pathfinding.core.scoring import passage_scores, rank_of
from pathfinding.core.specificity import node_specificity, passage_counts, restart_vector
from pathfinding.course.diagrams import draw_pipeline_position
from pathfinding.course.draw import show
from pathfinding.course.teaching import check
from pathfinding.synthetic.instances import make_instance
from pathfinding.synthetic.rankers import RANKERS

show(draw_pipeline_position(["P", "specificity"]).figure, "02_pipeline_position")

# %% [markdown]
# ## The worked example
#
# Two seeds: one found in 20 passages, one in 5. Without specificity each gets half the restart
# mass. With it, the weights are $s_1 = \tfrac{1}{20}$ and $s_2 = \tfrac15$, renormalised:
#
# $$
# r_1 = \frac{0.05}{0.05 + 0.20} = 0.20, \qquad r_2 = \frac{0.20}{0.05 + 0.20} = 0.80.
# $$
#
# The rarer entity now steers the walk four times as hard.

# %%
s = np.array([1 / 20, 1 / 5])
plain = restart_vector(2, [0, 1])
weighted = restart_vector(2, [0, 1], specificity=s)
print("without specificity:", plain, "  with:", weighted)
check(np.allclose(plain, [0.5, 0.5]), idea="without specificity every seed gets the same restart mass")
check(
    np.allclose(weighted, [0.2, 0.8], atol=1e-15),
    idea="seeds found in 20 and 5 passages get restart 1/20 and 1/5 renormalised: 0.20 and 0.80",
)

# %%
from pathfinding.course.diagrams import draw_matrix_p, draw_restart_bars  # noqa: E402

fig, ax = plt.subplots(figsize=(5.4, 3.4), layout="constrained")
draw_restart_bars((20, 5), names=("seed in 20 passages", "seed in 5 passages"), ax=ax)
show(fig, "02_restart_bars")

# %% [markdown]
# Where $|P_i|$ comes from: the count matrix $P$ (one row per node, one column per passage) of a
# small instance whose first seed is a hub (one hop, two dead ends per seed, three hub passages).
# The number of nonzero entries of row $i$ is $|P_i|$. Beside it, the passage scores $\pi P$ after
# PPR with specificity; the answer's passages are orange.

# %%
small = make_instance(1, distractors=2, hub_passages=3, rng=0)
pi_small = RANKERS["ppr"](small)
answer_passages = np.flatnonzero((small.facts == small.answer).any(axis=1))
fig, axes = plt.subplots(1, 2, figsize=(10, 4.8), width_ratios=[1, 1.3], layout="constrained")
row_names = [name + (" (seed)" if i in small.seeds else "") for i, name in enumerate(small.node_names)]
draw_matrix_p(
    small.mentions, pi_small, node_names=row_names, passage_labels=small.passages,
    highlight=answer_passages, axes=axes,
)  # fmt: skip
show(fig, "02_matrix_p")
seed_counts = passage_counts(small.mentions)[small.seeds]
print("|P_i| of the two seeds (their rows' counts):", seed_counts)
check(seed_counts.tolist() == [6, 3], idea="the hub seed is in 2 + 1 + 3 = 6 passages, the other in 3")

# %%
# Explore: move the seeds' passage counts (a third seed joins above 0): the rarer seed steers the walk.
# Sliders in Jupyter (ipywidgets); in the book the same sliders run in the page, with no kernel.
from pathfinding.course.explorers import interactive_restart  # noqa: E402

interactive_restart()

# %% [markdown]
# ## A hub seed
#
# `make_instance(hub_passages=h)` adds `h` passages that mention the first seed together with a
# fresh leaf each, so the first seed has $|P_1| = 9 + h$ while the second keeps 9. The generator's
# randomness only renames and permutes nodes, so every number below is a function of the graph's
# shape alone; we check that by building the same shape from two different random seeds.

# %%
inst = make_instance(2, hub_passages=64, rng=0)
counts = passage_counts(inst.mentions)[inst.seeds]
r_spec = restart_vector(inst.n_nodes, inst.seeds, specificity=node_specificity(inst.mentions))
print("|P| of the two seeds:", counts, "  restart with specificity:", r_spec[inst.seeds].round(4))
check(counts.tolist() == [73, 9], idea="the hub seed is in 9 + 64 = 73 passages, the other seed in 9")
check(
    np.allclose(r_spec[inst.seeds], np.array([1 / 73, 1 / 9]) / (1 / 73 + 1 / 9)),
    idea="the restart is each seed's 1/|P_i| renormalised over the seeds",
)

# %% [markdown]
# For each hub size we record, with and without specificity:
#
# * the answer's **node rank** among the 17 candidates and its **margin**: answer mass divided by
#   the best dead end's mass (rank 1 needs a margin above 1);
# * the **passage rank** of the answer's best passage among all passages, scoring passages as
#   $\pi P$ (each passage collects the mass of the nodes it mentions). At two hops no passage
#   contains both a seed and the answer, so the answer's passages are `(bridge node, answer)`.

# %%
hub_sizes = [0, 4, 16, 64, 256, 1024]


def hub_row(h, rng):
    inst = make_instance(2, hub_passages=h, rng=rng)
    answer_passages = np.flatnonzero((inst.facts == inst.answer).any(axis=1))
    dead = inst.candidates[inst.candidates != inst.answer]
    row = {"passages": inst.n_passages}
    for name in ("ppr", "ppr_no_specificity"):
        pi = RANKERS[name](inst)
        ps = passage_scores(pi, inst.mentions)
        row[name] = (
            rank_of(pi, inst.answer, inst.candidates),
            pi[inst.answer] / pi[dead].max(),
            min(rank_of(ps, p, np.arange(inst.n_passages)) for p in answer_passages),
        )
    return row


rows = [hub_row(h, rng=0) for h in hub_sizes]
again = [hub_row(h, rng=1) for h in hub_sizes]
print(
    f"{'hub':>5} {'passages':>8} | {'node rank':>9} {'margin':>7} {'psg rank':>8} | "
    f"{'node rank':>9} {'margin':>7} {'psg rank':>8}"
)
print(" " * 15 + "|        with specificity       |      without specificity")
for h, row in zip(hub_sizes, rows, strict=True):
    (nr, m, pr), (nr0, m0, pr0) = row["ppr"], row["ppr_no_specificity"]
    print(f"{h:5d} {row['passages']:8d} | {nr:9.1f} {m:7.4f} {pr:8.1f} | {nr0:9.1f} {m0:7.4f} {pr0:8.1f}")
for r1, r2 in zip(rows, again, strict=True):
    for name in ("ppr", "ppr_no_specificity"):
        check(
            r1[name][0] == r2[name][0] and r1[name][2] == r2[name][2],
            idea="ranks are a function of the graph's shape, not of the random names (two rng seeds agree)",
        )
        check(
            abs(r1[name][1] - r2[name][1]) < 1e-9,
            idea="margins are a function of the graph's shape, not of the random names (two rng seeds agree)",
        )

# %% [markdown]
# Three things are measured here, and the honest reading is not "specificity always helps":
#
# * **Node rank: the hub never costs the answer its first place**, with or without specificity
#   (rank 1.0 at every size). The hub dilutes the first seed's flow to the answer, but it dilutes
#   that seed's flow to its own dead ends by the same factor, and the second seed's dead ends get
#   nothing from the first seed at all. The answer keeps "everything a dead end gets, plus more".
# * **Specificity narrows the node margin.** It moves restart mass from the hub to the other seed,
#   and the answer's advantage *is* the first seed's contribution: as $h$ grows the walk becomes a
#   single-seed walk from the second seed and the margin falls towards 1 (a tie). Without
#   specificity the margin also falls, but more slowly.
# * **Passages are where hubs hurt.** Every hub passage mentions the hub seed, so each collects
#   the hub's large mass. Without specificity the answer's best passage sinks below essentially all
#   of them (rank 1051 of 1060 at $h = 1024$). With specificity the hub's restart mass shrinks as
#   $1/|P_1|$ and at large $h$ the answer's passage climbs back to rank 18 (the cell below lists the
#   17 passages ahead of it: none mentions the hub). In the middle
#   ($h = 16$) specificity is *worse* for the passage (43 vs 35): the mass it takes from the hub
#   goes to the other seed, which lifts that seed's own dead-end passages past the answer's.

# %%
with_spec = {h: row["ppr"] for h, row in zip(hub_sizes, rows, strict=True)}
without = {h: row["ppr_no_specificity"] for h, row in zip(hub_sizes, rows, strict=True)}
check(
    all(v[0] == 1.0 for v in with_spec.values()) and all(v[0] == 1.0 for v in without.values()),
    idea="a hub seed never costs the answer its first place among the nodes",
)
check(
    all(with_spec[h][1] <= without[h][1] + 1e-12 for h in hub_sizes),
    idea="specificity narrows the node margin (it moves restart mass away from the hub)",
)
check(
    with_spec[0][1] == without[0][1] and abs(with_spec[0][1] - 2.0) < 1e-9,
    idea="without a hub specificity changes nothing and the margin is the meet-node 2",
)
check(
    (with_spec[1024][2], without[1024][2]) == (18.0, 1051.0),
    idea="at 1024 hub passages the answer's best passage is rank 18 with specificity, 1051 without",
)
check(
    (with_spec[16][2], without[16][2]) == (43.0, 35.0),
    idea="at 16 hub passages specificity puts the answer's passage lower than without (43 vs 35)",
)

# %%
big = make_instance(2, hub_passages=1024, rng=0)
ps = passage_scores(RANKERS["ppr"](big), big.mentions)
best_answer = ps[np.flatnonzero((big.facts == big.answer).any(axis=1))].max()
ahead = np.flatnonzero(ps > best_answer)
hub_seed, other_seed = big.seeds
print(f"hub_passages=1024, with specificity: {ahead.size} passages score above the answer's best")
print(
    "  mentioning the hub seed:",
    int(np.isin(big.facts[ahead], [hub_seed]).any(axis=1).sum()),
    " mentioning the other seed:",
    int(np.isin(big.facts[ahead], [other_seed]).any(axis=1).sum()),
)
for j in ahead[:4]:
    print("  e.g.", big.passages[j])
check(
    ahead.size == 17 and not np.isin(big.facts[ahead], [hub_seed]).any(),
    idea="the 17 passages ahead of the answer's best one never mention the hub seed",
)
check(
    np.isin(big.facts[ahead], [other_seed]).any(axis=1).sum() == 9,
    idea="9 of the passages ahead of the answer's mention the other (non-hub) seed",
)

# %%
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.8))
xs = np.array(hub_sizes) + 1
ax1.semilogx(xs, [with_spec[h][1] for h in hub_sizes], "o-", label="with specificity")
ax1.semilogx(xs, [without[h][1] for h in hub_sizes], "s--", label="without")
ax1.axhline(1.0, color="grey", lw=0.8)
ax1.set(
    xlabel="hub passages + 1", ylabel="answer mass / best dead end", title="Node level: margin above a tie"
)
ax1.legend()
n_pass = np.array([row["passages"] for row in rows])
ax2.loglog(xs, [with_spec[h][2] for h in hub_sizes], "o-", label="with specificity")
ax2.loglog(xs, [without[h][2] for h in hub_sizes], "s--", label="without")
ax2.loglog(xs, n_pass, ":", color="grey", label="number of passages (last place)")
ax2.set(
    xlabel="hub passages + 1", ylabel="rank of answer's best passage", title="Passage level: where hubs hurt"
)
ax2.legend(fontsize=8)
fig.tight_layout()
show(fig, "02_figure_1")

# %% [markdown]
# ## Why specificity can be kept up to date one passage at a time
#
# $s_i = 1/|P_i|$ is **local**: it reads only node $i$'s own passage count. When a new passage
# arrives, only the nodes it mentions change their counts, so an index can update two integers
# (here every passage mentions two nodes) and is done. A corpus-level IDF,
# $\operatorname{idf}_i = \log(N / \mathrm{df}_i)$, is not expensive to *store* either: it needs the
# same counts $\mathrm{df}_i$ plus one counter $N$. The real difference is that IDF depends on $N$.
# One new passage about something else changes $N$, and with it the *value* of every weight already
# in the index — so any weight that was stored, cached or baked into a restart vector is stale.
# $s_i$ does not read $N$: a passage that does not mention node $i$ leaves $s_i$ exactly as it was.
#
# `pathfinding.core.incremental.replay_additions` adds the passages of an instance one by one to a
# `SpecificityIndex` and counts, after each addition, how many nodes' weights changed under each
# scheme. We use an instance with a hub and many distractors so the corpus is not tiny.

# %%
corpus = make_instance(2, distractors=100, hub_passages=200, rng=0)
log = replay_additions(corpus.mentions)
rebuilt_counts = passage_counts(corpus.mentions)
print(f"{corpus.n_passages} passages over {corpus.n_nodes} nodes")
print("counts after the replay equal a rebuild:", np.array_equal(log.index.counts, rebuilt_counts))
print("nodes whose count changed per addition: max", log.touched.max())
print("nodes whose s_i value changed, total over all additions:", log.changed_specificity.sum())
print("nodes whose IDF value changed, total over all additions:", log.changed_idf.sum())
print(
    "at the last addition: s_i changed for",
    log.changed_specificity[-1],
    "node(s); IDF for",
    log.changed_idf[-1],
    "of",
    log.seen[-2],
    "nodes already indexed",
)
check(
    np.array_equal(log.index.counts, rebuilt_counts),
    idea="counts kept one passage at a time equal a rebuild from scratch",
)
check(
    np.array_equal(log.index.specificity(), node_specificity(corpus.mentions)),
    idea="s_i kept one passage at a time equals s_i from a rebuild",
)
check(
    log.touched.max() == 2 and log.changed_specificity.max() <= 2,
    idea="one passage touches the counts of only the two nodes it mentions",
)
check(
    log.changed_idf[-1] >= log.seen[-2] - 2,
    idea="one new passage changes the IDF of (nearly) every node already indexed",
)

# %% [markdown]
# Note the difference between *touched* and *changed*: a brand-new node goes from 0 to 1
# passage and keeps $s_i = 1$ (a node in no passage is treated as if found in one), so some
# additions change no $s_i$ at all. The IDF curve, by contrast, grows with the corpus: the
# $n$-th passage changes the value of about $n$ weights, although it touched only two counts and
# the counter $N$.

# %%
steps = np.arange(1, corpus.n_passages + 1)
fig, ax = plt.subplots(figsize=(7, 3.8))
ax.plot(steps, np.cumsum(log.changed_idf), label="corpus IDF log(N/df): values rewritten")
ax.plot(steps, np.cumsum(log.changed_specificity), label="s_i = 1/|P_i|: values rewritten")
ax.plot(steps, np.cumsum(log.touched), ":", label="s_i: counts touched (2 per passage)")
ax.set(
    xlabel="passages added",
    ylabel="cumulative weight updates",
    yscale="log",
    title="IDF values move with N; s_i values move only where a count moved",
)
ax.legend(fontsize=8)
fig.tight_layout()
show(fig, "02_figure_2")
check(
    np.cumsum(log.changed_idf)[-1] > 100 * np.cumsum(log.touched)[-1],
    idea="over the whole replay IDF rewrites far more weights (100x) than s_i touches",
)

# %% [markdown]
# ## Exercises
#
# Answer each before you open `solutions/02_node_specificity_sol.py`; each check states what did
# not hold, and a wrong answer that a common confusion produces ($|P_i|$ for $1/|P_i|$, weights not
# renormalised, ...) gets a hint that names it.
#
# **2.1 A restart vector by hand.** `P` below is a count matrix: node 0 is in 15 passages, node 1
# in 6 (the chapter's example, 20 and 5, is worked above). Compute the specificity-weighted restart
# vector for seeds 0 and 1 without calling `restart_vector`: one entry per node, each to 3 decimal
# places (the exact value rounded to 3 decimals, or more digits; a list, a tuple, an array or
# fractions all pass). Then make a count matrix of your own (three seeds in 2, 4 and 8 passages,
# say, with `passage_count_matrix`) and check that one too.

# %%
from pathfinding.course import exercises
from pathfinding.synthetic.toy import passage_count_matrix

P = passage_count_matrix((15, 6))
my_restart = ...  # one number per node
exercises.check_restart(P, [0, 1], my_restart)

# %% [markdown]
# **2.2 When is a seed a hub?** A query names two entities; one sits in 5 passages. How many
# passages must the other sit in before specificity gives it less than 15% of the restart mass?
# Answer exactly, with a whole number of passages.

# %%
hub_passages = ...
exercises.check_hub_threshold(hub_passages)
