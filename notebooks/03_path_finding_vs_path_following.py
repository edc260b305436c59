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
# # 3. Path-finding versus path-following
#
# HippoRAG separates two kinds of multi-hop question (§1 and Figure 1; its case study is §5.3 and
# Table 7):
#
# * **path-following**: start at one entity and follow relations one hop at a time ("the
#   birthplace of the director of X"). An iterative retriever can chain: each hop's passage names
#   the next entity.
# * **path-finding**: several entities are given and the answer is whatever connects them ("Who is it
#   that Vera Udall recruited someone who painted, and that Wanda Varga visited someone who befriended?"
#   — trial 0 at two hops, its question written by `pathfinding.synthetic.following.question_text` and
#   checked in the last section). No passage names the seeds together: nothing to chain from.
#
# The synthetic generator builds exactly the second kind. Each of two seeds has 8 dead-end chains
# and one *bridge* chain of $h$ facts (`hops`); the two bridges meet at the answer. Candidates are
# the answer and the 16 dead ends. We ask where each ranker puts the answer as $h$ grows. Where this
# sits in HippoRAG: Steps 6 and 7, the walk and the passage scores $\pi P$ that rank what it found.

# %% [markdown]
# ## One instance, drawn
#
# One 2-hop instance, laid out by breadth-first distance from the two seeds (squares, outside):
# each seed's 8 dead-end chains fan out, its bridge chain runs straight to the answer (star) in the
# middle. Node area and colour are each ranker's score. *Predict* before looking: which ranker
# can tell the star from the triangles?

# %%
import matplotlib.pyplot as plt

from pathfinding.course.diagrams import draw_pipeline_position
from pathfinding.course.draw import draw_instance, draw_mass_spreading, draw_scores_side_by_side, show
from pathfinding.synthetic.instances import make_instance
from pathfinding.synthetic.rankers import RANKERS

show(draw_pipeline_position(["PPR", "scores"]).figure, "03_pipeline_position")
drawn = make_instance(2, rng=0)
scores = {"PPR with specificity": RANKERS["ppr"](drawn), "mention count": RANKERS["mention_count"](drawn)}
fig, axes = plt.subplots(1, 2, figsize=(10.5, 4.6), layout="constrained")
draw_scores_side_by_side(drawn, scores, axes=axes)
show(fig, "03_ppr_vs_mention_count")

# %% [markdown]
# Mention counting gives the star nothing: no passage mentions a seed and the answer together, so
# the answer ties with every dead end at 0 (the chain nodes next to the seeds score 1). PPR's mass
# reaches the star from both sides. How the mass gets there, step by step:

# %%
fig, axes = plt.subplots(3, 2, figsize=(10.5, 12), layout="constrained")
draw_mass_spreading(drawn, ks=(0, 1, 2, 3, 5), axes=axes.ravel())
show(fig, "03_mass_spreading")

# %% [markdown]
# After one step only the seeds' neighbours hold mass; the star and the dead ends are two steps
# away and receive their first mass at $k = 2$, the star from both seeds at once. At $k = 3$ the
# star holds *half* of what it held at $k = 2$, and then it swings back up: the graph is
# bipartite (every fact joins a node at an even depth to one at an odd depth), so at each step the
# star passes its mass on and is refilled by the bridge nodes, whose mass came from the seeds one
# step before — and after step 1 the seeds held only their restart share, half of their starting
# mass. Each swing is half the one before (the restart damps it), as on notebook 1's two stars,
# and from $k = 2$ on the star holds twice the best dead end's mass at every step.
#
# ## The experiment

# %%
import matplotlib.pyplot as plt
import numpy as np

from pathfinding.core.scoring import mention_count_scores, rank_of
from pathfinding.course.draw import show
from pathfinding.course.quotes import finding
from pathfinding.course.teaching import check, expect
from pathfinding.experiments.hop_depth import regenerate, run_experiment
from pathfinding.experiments.stats import chance_interval
from pathfinding.synthetic.rankers import RANKERS

TRIALS = 200
result = run_experiment(hops=(1, 2, 3), trials=TRIALS, seed=0, progress=False)
summary = {(row.ranker, row.hops): row for row in result.summary()}
print(f"{'ranker':<20}{'hops':>5}{'mean rank':>11}{'95% CI':>17}{'random-tie mean':>17}{'hit@1':>7}")
for row in result.summary():
    print(
        f"{row.ranker:<20}{row.hops:>5}{row.mean:>11.2f}   [{row.ci_low:5.2f}, {row.ci_high:5.2f}]"
        f"{row.mean_random:>17.2f}{row.hit_at_1:>7.2f}"
    )

# %% [markdown]
# ## What the table says
#
# * **One hop.** Every ranker that looks past the seeds wins: at $h = 1$ the answer is in a
#   passage with each seed, so mention counting gives it 2 and each dead end 1. Only `rq_nodes`
#   (the restart vector alone, no walk) is at chance — it scores nothing but the seeds.
# * **Two and three hops.** Mention counting and the paper's Table 5 alternatives to PPR
#   (`rq_nodes`, `rq_neighbours`) fall to exactly 9.0: the answer scores 0 like every dead end.
#   PPR keeps the answer first in every trial, with or without node specificity.
#
# The CI of a rank that is 1.0 in every trial has zero width: the generator's randomness only
# renames and permutes nodes, so PPR's rank is a function of the graph's shape (notebook 4 varies
# the shape).

# %%
for name, h in [(name, h) for name in ("ppr", "ppr_no_specificity") for h in (1, 2, 3)]:
    check(summary[name, h].mean == 1.0 == summary[name, h].hit_at_1,
          idea="PPR ranks the answer first at every depth, in every trial")  # fmt: skip
for name in ("mention_count", "rq_neighbours"):
    check(summary[name, 1].mean == 1.0,
          idea="at one hop the answer shares a passage with each seed: counting finds it")  # fmt: skip
    check(all(summary[name, h].mean == 9.0 and summary[name, h].hit_at_1 == 0.0 for h in (2, 3)),
          idea="beyond one hop the answer ties with every dead end at 0: expected rank 9 of 17")  # fmt: skip
check(all(summary["rq_nodes", h].mean == 9.0 for h in (1, 2, 3)),
      idea="the restart vector alone scores only the seeds: chance (9) at every depth")  # fmt: skip

# %%
fig, ax = plt.subplots(figsize=(7, 4))
offsets = dict(zip(result.rankers, np.linspace(-0.12, 0.12, len(result.rankers)), strict=True))
for name in result.rankers:
    ys = np.array([summary[name, h].mean_random for h in (1, 2, 3)])
    lo = ys - np.array([summary[name, h].ci_random_low for h in (1, 2, 3)])
    hi = np.array([summary[name, h].ci_random_high for h in (1, 2, 3)]) - ys
    ax.errorbar(np.array([1, 2, 3]) + offsets[name], ys, yerr=[lo, hi], marker="o", capsize=3, label=name)
ax.axhline(9, color="grey", ls=":", label="chance (17 + 1) / 2")
ax.set(xticks=[1, 2, 3], xlabel="hops from each seed to the answer", ylabel="answer's rank (random ties)")
ax.set_title(f"Path-finding: PPR stays at 1, per-passage scoring falls to chance ({TRIALS} trials)")
ax.invert_yaxis()
ax.legend(fontsize=8, loc="center right")
fig.tight_layout()
show(fig, "03_figure_1")

# %% [markdown]
# ## Why chance is 9
#
# At two hops mention counting gives all 17 candidates the same score, 0. A ranker that breaks
# ties uniformly at random puts the answer at each of ranks $1, \dots, 17$ with probability
# $\tfrac{1}{17}$, so its expected rank is $\frac{17 + 1}{2} = 9$. The "mean rank" column above uses
# exactly that expectation
# per trial (`rank_of(..., ties="expected")`), which is why it reads 9.00 with no noise; the
# "random-tie mean" column breaks each tie once, at random, and so wobbles around 9.
#
# How much should it wobble? One uniform rank on $1, \dots, 17$ has variance
# $\frac{17^2 - 1}{12} = 24$, so the mean of $N$ of them has standard error $\sqrt{24 / N}$, and 95%
# of runs land within $1.96 \sqrt{24 / N}$ of 9 (`pathfinding.experiments.stats.chance_interval`,
# which FINDINGS.md uses too).

# %%
ranks = np.arange(1, 18)
print("one uniform rank on 1..17: mean", ranks.mean(), " variance", ranks.var())
check(ranks.mean() == 9.0 and ranks.var() == 24.0,
      idea="a uniformly random rank among 17 has mean 9 and variance 24")  # fmt: skip
intervals = {n: chance_interval(17, n) for n in (TRIALS, 1000)}
for n, (lo, hi) in intervals.items():
    print(f"N = {n:4d}: 95% of chance-level means fall in [{lo:.2f}, {hi:.2f}]")
half_200 = intervals[TRIALS][1] - 9
half_1000 = intervals[1000][1] - 9
check(abs(half_1000 - 1.959963984540054 * np.sqrt(24 / 1000)) < 1e-12,
      idea="the 95% half-width of a chance-level mean is 1.96 * sqrt(24 / N)")  # fmt: skip
check(abs(half_1000 - 0.3036) < 1e-4, idea="at N = 1000 trials the half-width is 0.3036")

# check the formula by simulating 20,000 runs of N = 1000 random ranks
sim = np.random.default_rng(0).integers(1, 18, size=(20_000, 1000)).mean(axis=1)
lo_sim, hi_sim = np.percentile(sim, [2.5, 97.5])
print(f"simulated 95% range for N = 1000: [{lo_sim:.2f}, {hi_sim:.2f}]")
check(abs(lo_sim - (9 - half_1000)) < 0.02 and abs(hi_sim - (9 + half_1000)) < 0.02,
      idea="the simulated 95% interval of chance-level means matches the formula")  # fmt: skip

# %% [markdown]
# A reference run of the chapter (1000 trials) reported mention counting at
# **9.21<!--F2/reference-->** with random tie-breaking. That is inside the band of pure chance for
# $N = 1000$, $[8.70, 9.30]$: there is no evidence that mention counting does anything but guess.
# Our own run of the same size with seed 0 (FINDINGS row F2) lands elsewhere in the same band.

# %%
reference_mean = 9.21  # the chapter's reference run, quoted; not recomputed here
check(9 - half_1000 < reference_mean < 9 + half_1000,
      idea="9.21 lies inside the chance interval at N = 1000: it is chance, not a signal")  # fmt: skip
big = run_experiment(hops=(2,), trials=1000, seed=0, rankers=["mention_count"], progress=False)
row = big.summary()[0]
print(f"this package, seed 0, 1000 trials: mention_count random-tie mean {row.mean_random:.3f}")
expect(
    row.mean_random, finding("F2", "mean rank, random"), atol=0.005,
    idea="this run is FINDINGS row F2: mention counting at two hops, 1,000 trials, seed 0",
)  # fmt: skip
check(9 - half_1000 < row.mean_random < 9 + half_1000,
      idea="this package's 1000-trial mention-count mean is inside the chance interval")  # fmt: skip
check(abs(summary["mention_count", 2].mean_random - 9) < half_200,
      idea="the 200-trial mention-count mean is inside its chance interval")  # fmt: skip

# %%
fig, ax = plt.subplots(figsize=(7, 3.6))
ax.hist(big.random_ranks["mention_count", 2], bins=np.arange(0.5, 18.5), rwidth=0.85, color="C0")
ax.axhline(1000 / 17, color="k", ls=":", label="uniform: 1000/17 per rank")
ax.set(xlabel="answer's rank among 17 candidates (random tie-breaking)", ylabel="trials",
       title="Mention counting at two hops: a uniform draw", xticks=range(1, 18))  # fmt: skip
ax.legend()
fig.tight_layout()
show(fig, "03_figure_2")

# %% [markdown]
# ## One instance, read as passages
#
# Here is trial 0 at two hops, printed as the passages a retriever would see. `[S]` marks a
# passage that names a seed, `[A]` one that names the answer. Read them as a per-passage retriever
# would: the seed passages lead to eight dead ends and one bridge node each, and nothing in a seed
# passage distinguishes the bridge from the dead ends. The answer appears only in passages next
# to a bridge node.

# %%
inst = regenerate(0, 0, 2)
names = inst.node_names
seed_set, answer = set(inst.seeds.tolist()), inst.answer
print("seeds:", [names[s] for s in inst.seeds], "  answer:", names[answer])
for j, (x, y) in enumerate(inst.facts):
    tag = ("S" if {x, y} & seed_set else " ") + ("A" if answer in (x, y) else " ")
    print(f"[{tag}] {inst.passages[j]}")

# %%
has_seed = np.isin(inst.facts, inst.seeds).any(axis=1)
has_answer = (inst.facts == answer).any(axis=1)
both_seeds = np.isin(inst.facts, inst.seeds).all(axis=1)
print(f"passages with a seed: {has_seed.sum()}, with the answer: {has_answer.sum()},")
print(f"with a seed and the answer: {(has_seed & has_answer).sum()}, with both seeds: {both_seeds.sum()}")
check(
    (has_seed & has_answer).sum() == 0 and both_seeds.sum() == 0,
    idea="no passage mentions a seed together with the answer, and none mentions both seeds",
)

mc = mention_count_scores(inst.mentions, inst.seeds)
pi = RANKERS["ppr"](inst)
dead = inst.candidates[inst.candidates != answer]
print("mention count: answer", mc[answer], " dead ends", np.unique(mc[dead]))
print(
    f"PPR: answer {pi[answer]:.5f}  best dead end {pi[dead].max():.5f}  "
    f"ratio {pi[answer] / pi[dead].max():.4f}"
)
print(
    "ranks: mention count", rank_of(mc, answer, inst.candidates), " PPR", rank_of(pi, answer, inst.candidates)
)
check(mc[answer] == 0 and np.all(mc[dead] == 0),
      idea="mention counting scores the answer 0, like every dead end")  # fmt: skip
check(rank_of(pi, answer, inst.candidates) == 1.0, idea="PPR ranks the answer first on this instance")
check(
    abs(pi[answer] / pi[dead].max() - 2.0) < 1e-6,
    idea="the answer holds twice the best dead end's PPR mass on the 2-hop instance",
)

# %% [markdown]
# Mention counting scores the answer 0, like every dead end: it never sees a passage that holds a
# seed and the answer. PPR walks two hops from each seed and the two walks arrive at the same node;
# as on the two stars of notebook 1, the answer holds twice the mass of any dead end.

# %% [markdown]
# ## From nodes to passages: where does the answer's passage land?
#
# HippoRAG does not return nodes, it returns passages, scored by $\pi P$: each passage collects
# the mass of the nodes it names. The chapter's Step 7 says the answer's passage "rises to the
# top". **Predict** before running: the answer holds twice the mass of a dead end, but how does its
# mass compare with a seed's, or with a node one hop from a seed?

# %%
from pathfinding.core.scoring import passage_scores
from pathfinding.experiments.passages import meet_mass, passage_ranks

scores = passage_scores(pi, inst.mentions)
order = np.argsort(-scores, kind="stable")
for pos, j in enumerate(order[:4], start=1):
    tag = ("S" if has_seed[j] else " ") + ("A" if has_answer[j] else " ")
    print(f"{pos:3d}. {scores[j]:.4f}  [{tag}] {inst.passages[j]}")
print("  ...")
for pos, j in enumerate(order, start=1):
    if has_answer[j]:
        print(f"{pos:3d}. {scores[j]:.4f}  [ A] {inst.passages[j]}")
        break
ranks = passage_ranks(inst)
print("rank of the answer's best passage under pi . P:", ranks["pi_P"][0], "of", inst.n_passages)
check(ranks["pi_P"][0] == has_seed.sum() + 1,
      idea="every passage that names a seed outranks the answer's: mass decays with depth")  # fmt: skip

# %% [markdown]
# Why, passage by passage: each score is a sum of one part per seed (the walk is linear in its
# restart vector, $\pi P$ in $\pi$), and `HippoRetriever.explain` splits it. Index this
# instance's facts as triples with the real-text engine, ask v1's walk from the two seeds, and set
# the answer's best passage beside a dead end's at the same depth.

# %%
from pathfinding.hipporag import HippoRetriever
from pathfinding.hipporag.index.build import build_index
from pathfinding.synthetic.following import passage_relations

relations = passage_relations(inst)  # one triple per passage: (subject, relation, object)
triples = [[(names[u], rel, names[v])] for (u, v), rel in zip(inst.facts, relations, strict=True)]
walk = HippoRetriever(build_index(triples, passages=inst.passages), extractor=None, facts=0, passage_weight=0)
why = walk.explain("", k=inst.n_passages, entities=[names[s] for s in inst.seeds])
expect(why.scores, scores[why.ids], rtol=1e-9, idea="the explained scores are this instance's π P")
answer_pe = next(pe for pe in why.passages if has_answer[pe.passage])
dead_pe = next(pe for pe in why.passages if np.isin(inst.facts[pe.passage], dead).any())
for pe in (answer_pe, dead_pe):
    parts = " + ".join(f"{p.score:.5f} from {p.source}" for p in pe.parts)
    print(f"rank {list(why.ids).index(pe.passage) + 1}: {inst.passages[pe.passage]} {pe.score:.5f} = {parts}")
meet = next(v for v in answer_pe.via if v.node == walk.index.normalize(names[answer]))
print(f"the answer node {meet.node}:", {seed: f"{x:.5f}" for seed, x in meet.parts.items()})
check(min(p.share for p in answer_pe.parts) > 0.2, idea="the answer's passage holds both seeds' mass")
check(min(p.share for p in dead_pe.parts) < 0.01, idea="a dead end's passage holds one seed's mass")
expect(2 * min(meet.parts.values()), meet_mass(inst)[answer], rtol=1e-6,
       idea="meet mass (below) is the smaller part, doubled: each seed's restart weight is 1/2")  # fmt: skip

# %% [markdown]
# The answer node's mass is two equal inflows, one per seed; a dead end's passage is one seed's
# mass and nothing else. That is the meet node of notebook 1, read off real passages. It is not
# enough here: the seed passages above it are one seed's mass too, but at depth 0 and 1, where
# there is more of it.

# %% [markdown]
# Where the chapter holds: at **one hop**, its own star shape (each seed's neighbours are the
# answer and dead ends), every passage names a seed, and the answer's passage — a seed *and* the
# answer — collects twice a dead end's share on top of the seed's, so $\pi P$ ranks it first (FINDINGS
# A1; the first row of the table below). Where it fails: from two hops on, and the reason is the
# meet-node argument's own fine print. The factor 2 compares the answer with nodes at the **same**
# depth. Mass decays with depth: a seed keeps its
# restart mass, a node one hop out receives half of what its seed passes on, and every further hop
# halves it again. Every one of the 18 seed passages names a seed, so every one outranks the
# answer's passages, which name only a bridge node and the answer. At three hops the answer's
# passage falls behind every passage nearer a seed too (FINDINGS rows A1–A11).
#
# Two scorings that teach the fix:
#
# * rank only the passages that name **no** query entity: the user already knows the seeds. This
#   fixes two hops but not three (FINDINGS A4 and A7);
# * score a node by the mass that **every** seed's own walk puts on it (`meet_mass`: the minimum
#   $\min_{s \in R_q} \pi^{(s)}_i$ of the seeds' separate PPR vectors, one walk per seed). PPR's
#   single walk is an "or" of the seeds
#   with a bonus of 2 at the meet; the minimum is an "and", and a dead end of one seed gets almost
#   nothing from the other seed's walk.

# %%
per_depth = {h: passage_ranks(regenerate(0, 0, h)) for h in (1, 2, 3)}
print(f"{'hops':>4}  {'pi . P':>8}  {'no query passages':>18}  {'meet mass':>10}")
for h, r in per_depth.items():
    no_query = r["pi_P_no_query_passages"][0]  # nan: no passage of the answer is left to rank
    shown_no_query = "none left" if np.isnan(no_query) else f"{no_query:g}"
    print(f"{h:>4}  {r['pi_P'][0]:>8g}  {shown_no_query:>18}  {r['meet_mass'][0]:>10g}")
check(
    all(r["meet_mass"][0] == 1.0 for r in per_depth.values()),
    idea="the minimum of the seeds' separate walks puts the answer's passage first at every depth",
)
expect(
    [per_depth[h]["pi_P"][0] for h in (1, 2, 3)], [finding(row, "rank") for row in ("A1", "A3", "A6")],
    idea="the answer's best passage ranks as FINDINGS rows A1, A3 and A6 say, at one, two and three hops",
)
mm = meet_mass(inst)
print(f"meet mass: answer {mm[answer]:.5f}, best dead end {mm[dead].max():.6f}")
print(f"ratio {mm[answer] / mm[dead].max():.0f}; PPR's single walk: {pi[answer] / pi[dead].max():.0f}")
check(
    np.isnan(per_depth[1]["pi_P_no_query_passages"][0]),
    idea="at one hop every answer passage names a seed: dropping the query's passages drops them all",
)

# %% [markdown]
# At one hop the middle column has nothing to rank ("none left"): each of the answer's passages
# names a seed too (the answer is one fact from each seed), so removing the passages that name a
# query entity removes every passage of the answer.
#
# ## Path-following against path-finding, measured
#
# So far the contrast was an argument. Now both shapes are generated and every retriever runs on
# both. A **path-following** instance (`make_following_instance`) has one seed, the same eight
# dead-end chains, and one answer chain whose relations the question names; at every hop the
# answer chain's relation differs from every other fact leaving the same entity, so the relations,
# and only they, single out the chain. The questions below are generated from the instances, so
# they name only relations the passages contain.
#
# Below, the two instances drawn side by side with PPR's mass on them, then their passages along
# the answer path, which is what a retriever reads.

# %%
from pathfinding.experiments.contrast import VARIATION, run_budget_sweep, run_contrast, settle_ties
from pathfinding.experiments.hop_depth import trial_streams
from pathfinding.experiments.plotting import plot_budget_sweep, plot_frontier_rounds
from pathfinding.synthetic.chaining import iterative_retrieve
from pathfinding.synthetic.following import make_following_instance, path_passages, question_text

following = make_following_instance(2, rng=trial_streams(0, 0)[0])
finding = regenerate(0, 0, 2)
check(
    question_text(finding)
    == "Who is it that Vera Udall recruited someone who painted, and that Wanda Varga visited "
    "someone who befriended?",
    idea="the introduction quotes this instance's generated question",
)

fig, (ax_follow, ax_find) = plt.subplots(1, 2, figsize=(10.5, 5.4), layout="constrained")
for ax, shown, title in (
    (ax_follow, following, "path-following: one seed, relations name the chain"),
    (ax_find, finding, "path-finding: two seeds meet at the answer"),
):
    pi_shown = RANKERS["ppr"](shown)
    # masses equal up to the solver's tolerance count as ties (the candidates of path-following are)
    rank = rank_of(settle_ties(pi_shown), shown.answer, shown.candidates)
    # the colour scale spans every node but the seeds, so the chain nodes are not all at the cap
    draw_instance(
        shown, pi_shown, ax=ax, rank=rank, labels="key", title=title,
        vmax=float(np.delete(pi_shown, shown.seeds).max()),
    )  # fmt: skip
show(fig, "03_following_vs_finding")

from pathfinding.course.tables import show_table  # noqa: E402

left = [question_text(following)]
left += [f"hop {k}: {following.passages[j]}" for k, j in enumerate(path_passages(following)[0], 1)]
right = [question_text(finding)]
for s_name, path in zip([finding.node_names[s] for s in finding.seeds], path_passages(finding), strict=True):
    right += [f"from {s_name}, hop {k}: {finding.passages[j]}" for k, j in enumerate(path, 1)]
rows = max(len(left), len(right))
show_table(
    list(zip(left + [""] * (rows - len(left)), right + [""] * (rows - len(right)), strict=True)),
    header=["path-following", "path-finding"],
)

# %% [markdown]
# Read the left column as a chaining retriever would: the question's first relation picks one of
# the seed's nine passages, and that passage names the next entity to look up. In the right
# column each seed's first passage looks like the other eight seed passages; the relations in the
# question do name it here, which is a qualification we measure below.
#
# ## The contrast rows
#
# Every retriever on both shapes at 1–4 hops (50 trials per cell here; FINDINGS.md rows P1–P72
# use 100). `iterative` is IRCoT-shaped: each round it retrieves the passages of its current
# entity and chooses the next one — the one the question's next relation names on path-following,
# the best-scoring new one (most retrieved passages) on path-finding. `beam` keeps 4;
# `chain_relations` always reads the relations; `intersection` returns the nodes exactly $h$ from
# every seed.
#
# **Predict first:** which retrievers find the path-following answer? Which find the path-finding
# answer at 3 hops?

# %%
contrast = run_contrast(hops=(1, 2, 3, 4), trials=50, seed=0, progress=False)
cells = {(r.shape, r.hops, r.retriever): r for r in contrast.summary()}
shown = ("iterative", "beam", "chain_relations", "intersection", "mention_count", "ppr")
for shape in ("following", "finding"):
    show_table(
        [[h, *(f"{cells[shape, h, n].mean:.2f} ({cells[shape, h, n].hit_at_1:.0%})" for n in shown)]
         for h in contrast.hops],
        header=["hops", *shown],
        caption=f"path-{shape}: mean rank (hit@1), chance {cells[shape, 1, 'ppr'].chance:g}",
    )  # fmt: skip

# %% [markdown]
# * Path-following belongs to the chaining retriever: the relations lead it to the answer at every
#   depth. PPR, mention counting and intersection sit at chance (5 of 9): with one seed there is no
#   meet node, and the answer's chain has exactly the shape of a dead end's.
# * Path-finding belongs to PPR (and to intersection, which is *told* the depth): at 2 hops and more
#   the best-score chaining retriever is near chance. At 1 hop it wins too — the answer is named by a
#   passage of each seed, so it scores 2 against 1.
# * `chain_relations` solves most path-finding questions as well: here the question names each
#   seed's relations, and a dead-end chain rarely repeats them all. Path-finding is hard for a
#   chaining retriever only when the relations do not single out the chain.

# %%
for h in contrast.hops:
    check(cells["following", h, "iterative"].hit_at_1 == 1.0, idea="relations lead a chainer to the answer")
    check(cells["finding", h, "ppr"].hit_at_1 == 1.0, idea="PPR finds the meet node at every depth")
    check(cells["finding", h, "intersection"].hit_at_1 == 1.0, idea="intersection, told h, finds the meet")
    check(abs(cells["following", h, "ppr"].mean - 5) < 1.5, idea="PPR cannot read relations: chance is 5")
for h in (2, 3, 4):
    check(cells["finding", h, "iterative"].hit_at_1 < 0.5, idea="best-score chaining fails at h >= 2")
check(cells["finding", 1, "iterative"].hit_at_1 == 1.0, idea="at one hop a chainer's first step is the meet")

# %% [markdown]
# ## The iterative retriever, round by round
#
# Watch one trace on each shape: the frontier each round, how many passages it retrieved, how many
# entities it reached for the first time, what it chose, and where the answer stands after the
# round. On path-finding we give it 8 rounds, twice the 4 the question's relations would need.

# %%
traces = {
    "following": (following, iterative_retrieve(following, rng=1)),
    "finding": (finding, iterative_retrieve(finding, budget=8, rng=1)),
}
for shape, (inst, trace) in traces.items():
    print(f"path-{shape}: answer {inst.node_names[inst.answer]}")
    print(f"{'round':>5}  {'frontier':<34}{'passages':>9}{'new':>5}  {'chose':<18}{'answer?':>8}{'rank':>6}")
    for row in trace.round_table(inst):
        answer = "yes" if row["answer_reached"] else "no"
        print(
            f"{row['round']:>5}  {', '.join(row['frontier']):<34}{row['passages']:>9}"
            f"{row['newly_reached']:>5}  {', '.join(row['chosen']):<18}{answer:>8}{row['answer_rank']:>6g}"
        )
    print()

# %%
fig, axes = plt.subplots(1, 2, figsize=(11, 3.8))
for ax, (shape, (inst, trace)) in zip(axes, traces.items(), strict=True):
    plot_frontier_rounds(trace, inst, ax=ax)
    ax.set_title(f"path-{shape}")
fig.tight_layout()
show(fig, "03_frontier_rounds")

# %% [markdown]
# On path-following the answer is reached in the last round and ranked first. On path-finding the
# first round reaches all eighteen first-hop entities at once, every one named by exactly one
# passage: the retriever has nothing to choose the bridge with, so it picks at random and walks
# down dead ends.
#
# ## Can looping harder fix it? The round budget
#
# The same retriever (and the beam) on path-finding questions at two hops, budgets 1 to 8 rounds
# (100 trials; FINDINGS.md B1–B16 use 200). A larger budget lets it reach more of the graph. Does it
# rank the answer first?

# %%
budget = run_budget_sweep(hops=2, trials=100, seed=0)
rows = {(r["retriever"], r["budget"]): r for r in budget.summary()}
print(f"{'budget':>6}  {'iterative: reached / first':>28}  {'beam: reached / first':>24}")
for b in budget.budgets:
    it, bm = rows["iterative", b], rows["beam", b]
    print(
        f"{b:>6}  {it['reached'][0]:>17.0%} / {it['hit_at_1'][0]:<8.0%}  "
        f"{bm['reached'][0]:>13.0%} / {bm['hit_at_1'][0]:.0%}"
    )
print(f"PPR ranks the answer first in {np.mean(budget.ppr_ranks == 1):.0%} of the same instances")
fig, ax = plt.subplots(figsize=(8, 5.2), layout="constrained")
plot_budget_sweep(budget, ax=ax)
show(fig, "03_budget_sweep")

# %%
reach = [rows["iterative", b]["reached"][0] for b in budget.budgets]
check(reach == sorted(reach) and reach[-1] > reach[0], idea="more rounds reach the answer more often")
check(rows["iterative", 8]["hit_at_1"][0] < 0.5 and rows["beam", 8]["hit_at_1"][0] < 0.5,
      idea="reaching the answer is not ranking it first: hit@1 stays low at 8 rounds")  # fmt: skip
check(np.all(budget.ppr_ranks == 1), idea="PPR ranks the answer first on every one of these instances")

# %% [markdown]
# Looping harder reaches the answer more often, but the retriever cannot *rank* it first: the dead
# ends it chose and reached in earlier rounds stay ahead, because from the seeds' passages the
# bridge looks exactly like a dead-end chain. PPR needs one pass.
#
# ## When the structure varies
#
# All of the above used graphs that differ only by names. With structural variation switched on
# (dead-end chains of random length h±1, noise facts between chains, merged chain nodes, extra leaf
# passages), trials sample different graphs. Predict: does PPR still put the path-finding answer
# first?

# %%
varied = run_contrast(shapes=("finding",), hops=(2,), trials=50, seed=0, variation=VARIATION, progress=False,
                      retrievers=["iterative", "intersection", "ppr"])  # fmt: skip
for r in varied.summary():
    print(
        f"{r.retriever:<14} mean rank {r.mean:5.2f} [{r.ci_low:.2f}, {r.ci_high:.2f}]  hit@1 {r.hit_at_1:.0%}"
    )
vcells = {r.retriever: r for r in varied.summary()}
check(vcells["ppr"].hit_at_1 < 0.5, idea="a dead end one hop closer to a seed beats the meet")

# %% [markdown]
# It does not. A dead-end chain one hop shorter than the bridge ends closer to a seed, and one hop
# closer is worth more mass than the meet node's factor of 2; a merged node can be a second meet.
# Intersection, told the depth, still does well. FINDINGS.md rows V and VK give the full grid and
# each knob on its own; `notes.md` Q1 cites them.

# %% [markdown]
# ## Exercises
#
# Answer each before you open `solutions/03_path_finding_vs_path_following_sol.py`.
#
# **3.1 Chance, in general.** With `distractors` dead-end chains per seed, what is the answer's expected
# rank under a ranker that ties every candidate? Answer for 5 distractors, exactly (a whole number).

# %%
from pathfinding.course import exercises

chance_with_5 = ...
exercises.check_chance_rank(5, chance_with_5)

# %% [markdown]
# **3.2 How far behind is the answer's passage at four hops?** The table above stops at three hops.
# Predict first, without running anything, where the answer's best passage lands under $\pi \cdot P$
# on a default four-hop instance (`make_instance(4, rng=0)`). Then measure how far behind it is: the
# answer's best passage score as a share of the top passage's score, $(\pi P)_{\text{answer}} /
# \max_j (\pi P)_j$, to 3 significant digits (HippoRAG's walk: restart 0.5, run to convergence).

# %%
passage_share_at_4 = ...
exercises.check_passage_share(passage_share_at_4)
