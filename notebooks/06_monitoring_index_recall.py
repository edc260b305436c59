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
# # 6. Monitoring index recall without gold triples
#
# HippoRAG's graph is only as good as its OpenIE: a fact the LLM did not extract is an edge that
# is not there. The paper's ablation that swaps GPT-3.5 for the smaller REBEL extractor measures
# what extraction quality costs: average R@5 falls from 72.9 to 58.4, with GPT-3.5 producing about
# twice as many triples (as the chapter quotes it). In production nobody hands you gold triples to
# measure extraction recall against. What *can* you watch?
#
# We simulate recall loss with the synthetic generator: build a two-hop instance, delete a random
# fraction of its facts (each fact is an edge and its passage), and measure two things side by side:
#
# * **labelled quality** (needs the gold answer, so unavailable in production): hit@1 and the
#   answer's mean rank under PPR;
# * **label-free monitors** (computable from the index and the query alone), from
#   `pathfinding.course.monitoring.index_health`:
#   * the share of queries with an entity that links to **no** node (the entity's passages were all lost),
#   * the seeds' mean **degree**,
#   * whether the seeds still share a **connected component** (otherwise no meet node exists),
#   * the PPR **mass that leaves the seeds**.
#
# A deleted fact is deleted at every higher rate too (common random numbers), so the curves are
# smooth in the deletion rate. Where this sits in HippoRAG: Steps 2 and 3, the triples and the
# graph built from them, watched from the online side.

# %%
import matplotlib.pyplot as plt
import numpy as np

from pathfinding.course.diagrams import draw_pipeline_position
from pathfinding.course.draw import show
from pathfinding.course.monitoring import recall_sweep
from pathfinding.course.tables import show_table
from pathfinding.course.teaching import check

show(draw_pipeline_position(["triples", "nodes"]).figure, "06_pipeline_position")

# %%
fractions = [0.0, 0.03, 0.06, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5]
TRIALS = 200
rows = recall_sweep(fractions, hops=2, trials=TRIALS, seed=0)
show_table(
    [[r.fraction, r.hit_at_1, r.mean_rank, r.unlinked_query_rate, r.connected_rate, r.mean_seed_degree,
      r.mass_off_seeds] for r in rows],
    header=["deleted", "hit@1", "mean rank", "unlinked queries", "connected", "seed degree", "mass off"],
    formats=[".2f", ".3f", ".2f", ".3f", ".3f", ".2f", ".4f"],
    caption="labelled quality (hit@1, mean rank), then the label-free monitors",
)  # fmt: skip

# %%
hit = np.array([r.hit_at_1 for r in rows])
connected = np.array([r.connected_rate for r in rows])
degree = np.array([r.mean_seed_degree for r in rows])
unlinked = np.array([r.unlinked_query_rate for r in rows])
mass = np.array([r.mass_off_seeds for r in rows])
corr_connected = np.corrcoef(connected, hit)[0, 1]
corr_degree = np.corrcoef(degree, hit)[0, 1]
print(
    f"correlation with hit@1 across deletion rates: connected {corr_connected:.3f}, "
    f"seed degree {corr_degree:.3f}"
)
print("relative seed degree (degree / intact degree) vs share of facts kept:")
for f, d in zip(fractions, degree / degree[0], strict=True):
    print(f"  kept {1 - f:.2f}  relative degree {d:.3f}")
check(
    hit[0] == 1.0 and connected[0] == 1.0 and unlinked[0] == 0.0,
    idea="with no fact dropped the answer is always reached and no entity is unlinked",
)
check(
    np.all(np.diff(connected) <= 0) and np.all(np.diff(degree) < 0),
    idea="dropping facts only disconnects more, and the mean degree falls",
)
check(
    hit[-1] < 0.3 and connected[-1] < 0.1,
    idea="at the largest loss the answer is rarely first and rarely connected",
)
check(corr_connected > 0.95, idea="the label-free 'connected' monitor tracks hit@1 (correlation above 0.95)")
check(
    np.all(np.abs(degree / degree[0] - (1 - np.array(fractions))) < 0.05),
    idea="the mean degree falls in proportion to the facts dropped",
)
check(unlinked.max() < 0.05, idea="the 'unlinked entity' alarm barely fires even at 50% loss")

# %%
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10.5, 4))
x = np.array(fractions)
ax1.plot(x, hit, "o-", color="k", lw=2, label="hit@1 (needs labels)")
ax1.plot(x, connected, "s--", label="seeds connected (label-free)")
ax1.plot(x, degree / degree[0], "^--", label="seed degree / intact (label-free)")
ax1.plot(x, unlinked, "v--", label="queries with an unlinked entity (label-free)")
ax1.set(
    xlabel="fraction of facts deleted",
    ylabel="rate",
    ylim=(-0.03, 1.05),
    title=f"Fact loss: quality and monitors ({TRIALS} queries/point)",
)
ax1.legend(fontsize=8)
ax2.plot(connected, hit, "o-")
for f, c, h in zip(fractions, connected, hit, strict=True):
    ax2.annotate(f"{f:.2f}", (c, h), xytext=(4, -10), textcoords="offset points", fontsize=8)
ax2.plot([0, 1], [0, 1], ":", color="grey")
ax2.set(
    xlabel="seeds-connected rate (label-free)",
    ylabel="hit@1 (labelled)",
    title=f"The connectivity monitor tracks hit@1 (r = {corr_connected:.3f})",
)
fig.tight_layout()
show(fig, "06_figure_1")

# %% [markdown]
# ## Reading the monitors
#
# * **"Entity links to no node" is nearly blind.** A seed here sits in 9 passages; all 9 must be
#   lost before its entity fails to link. Even at half the facts deleted it fires for almost no
#   query, while hit@1 has collapsed. It catches catastrophic loss (an entity never extracted),
#   not gradual loss.
# * **Seed degree measures the loss itself**, almost exactly: $\deg_f / \deg_0 \approx 1 - f$ at a
#   deleted share $f$ of the facts. It is an extraction-recall estimator — but a *relative* one: it
#   needs a baseline (an earlier index snapshot, or a re-extraction of a small sample with a stronger
#   model).
# * **Seed connectivity tracks the answer quality.** A path-finding question presupposes that its
#   entities are related; when the seeds fall into different components there is no meet node and
#   PPR cannot find the answer. Logged per query, the share of connected queries follows hit@1
#   closely (correlation across deletion rates printed above). hit@1 sits *above* it, more so at heavy
#   loss: with one bridge cut the answer still competes with one seed's dead ends (often as a tie a
#   random tie-break may win), and deletions also cut dead-end chains, removing competitors.
# * **Mass leaving the seeds** moves, but only in the third decimal: too weak to alarm on.
#
# The honest caveat: in this generator the seeds are connected *only* through the answer, which
# makes connectivity a sharp signal. In a real knowledge graph, hubs connect almost everything, so
# a component test would rarely fire. A graded version is how much PPR mass the seeds' separate
# walks put on common nodes, the meet-node mass itself: `pathfinding.experiments.passages.meet_mass`
# computes it,
# and exercise 6.2 below measures it as a monitor.

# %% [markdown]
# ## Exercises
#
# Answer each before you open `solutions/06_monitoring_index_recall_sol.py`.
#
# **6.1 How often does a two-hop bridge survive?** A two-hop instance has 36 facts, 4 of them on the
# two bridge chains. Deleting 10% removes exactly 4 facts at random. What is the probability that
# the seeds stay connected (all 4 bridge facts survive)? Give it to 2 significant digits (the exact
# value rounded to 2 significant digits; more digits, or a `Fraction`, pass too), and compare with
# the connected rate measured above. Careful: exactly 4 facts go, so the survivals are not
# independent.

# %%
from pathfinding.course import exercises

p_connected = ...
exercises.check_connected_probability(36, 4, 4, p_connected)

# %% [markdown]
# **6.2 (open) A graded monitor that alarms on wrong facts.** A weak extractor does not only miss
# facts; it also writes wrong ones. Write `monitor(query, pi)` that returns a number per query. It
# gets what a production system has and nothing more: `query` is a
# `pathfinding.course.monitoring.LabelFreeQuery` (`graph`, `mentions`, `passages`, `node_names`,
# `seeds`; no answer, no candidates) and `pi` is the query's PPR vector.
#
# The check judges it as an on-call engineer would, with `pathfinding.course.monitoring.alarm_rates`:
# 300 queries of mixed shapes (1 to 3 hops, 4 to 12 dead-end chains), each on the intact index and
# on one where 20% of the facts were **replaced by wrong ones** (`monitoring.replace_facts`: each
# keeps one entity of the fact it replaces and links it to a wrong node, the graph stays connected).
# A system logs the mean over batches of 10 queries; the alarm range is set on the intact index so
# that 5% of its batches alarm (false alarms), and the monitor passes when at least 80% of the
# damaged index's batches leave that range. First it asks a few queries again, shuffled and twice in
# a row: a monitor must give a query the same number every time, since one that counts its own
# calls (or draws at random) could tell the intact index from the damaged one by the order of the
# calls alone.
#
# The damaged index has exactly as many facts, passages, nodes, mentions and components as the
# intact one, so a monitor that counts the index (its edges, its passages, its components) never
# alarms: wrong facts are invisible to size. Production monitors still watch index size, because
# the commonest failures do change it (an extractor that returned nothing for a batch, a shard
# that did not load, a re-index that dropped a source), and a count catches those for free; what
# it cannot catch is an index of the right size that says the wrong things, and that takes a
# signal computed from the queries. A signal that moves with the damage but less than it varies
# between queries does not alarm either: the mass on the seeds, which the table above moves only
# in the third decimal, is one (try it). One idea to start from:
# `pathfinding.experiments.passages.meet_mass(query)`, the mass that every seed's own walk puts on
# a node.


# %%
def monitor(query, pi):
    return ...


exercises.check_monitor(monitor)
