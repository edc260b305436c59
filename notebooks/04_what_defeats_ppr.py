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
# # 4. What defeats PPR?
#
# Notebook 1's argument was: the answer collects in-flows from both seeds, a dead end from one,
# so the answer holds twice the mass. That argument quietly assumed the in-flows are **equal** —
# the bridge chain to the answer looks exactly like a chain to a dead end. This notebook bends the
# graph away from that assumption, one knob of the generator at a time, and measures the answer's
# rank among the candidates with `run_experiment` (mean rank with a 95% CI):
#
# | shape | knob | question |
# |---|---|---|
# | branching bridges | `bridge_branching` | leaves on interior bridge nodes dilute the flow to the answer |
# | a decoy meet node | `decoy_hops` | both seeds also reach a decoy, by shorter chains |
# | unequal depths | `hops=(1, 3)`, ... | one seed is close to the answer, the other far |
# | hub seed | `hub_passages` | one seed sits in many passages (with and without specificity) |
#
# Beside each rank we print the **margin**: the answer's PPR mass divided by that of its strongest
# competitor. Rank 1 needs a margin above 1; the margin shows *how close* a shape comes.
#
# One fact makes these experiments cheap: the generator's randomness only names and permutes nodes.
# For a given knob setting every trial is the same graph up to relabelling, so PPR's rank is the
# same in every trial and the CI has zero width. We run 40 trials per cell to *show* that, not to
# average noise away. Where this sits in HippoRAG: Step 6, the walk, on graphs (Step 3's nodes
# and edges) bent out of the chapter's shape.

# %%
import matplotlib.pyplot as plt
import numpy as np

from pathfinding.course.diagrams import draw_pipeline_position
from pathfinding.course.draw import show
from pathfinding.course.tables import show_table
from pathfinding.course.teaching import check
from pathfinding.experiments.hop_depth import run_experiment
from pathfinding.synthetic.instances import make_instance
from pathfinding.synthetic.rankers import RANKERS

show(draw_pipeline_position(["nodes", "PPR"]).figure, "04_pipeline_position")
TRIALS = 40


def margin(inst, ranker="ppr"):
    """Answer mass over the strongest other candidate's (a dead end, or the decoy if there is one)."""
    pi = RANKERS[ranker](inst)
    others = inst.candidates[inst.candidates != inst.answer]
    return pi[inst.answer] / pi[others].max()


def cell(row):
    return f"{row.mean:.1f} [{row.ci_low:.1f}, {row.ci_high:.1f}]"


# %% [markdown]
# ## The shapes, drawn
#
# Before the numbers, one instance of each shape, laid out by breadth-first distance from the
# seeds (squares, outside) with the answer (star) where the bridges meet; node area and colour are
# the PPR mass, each panel on its own scale (its colour bar; the seeds and the nodes next to them
# hold more and are drawn at the cap, which the bar's arrow marks), and the answer's rank among the
# candidates is written on each panel. The decoy is a candidate like the dead ends, so its label
# says which triangle it is. *Predict*, before reading the sections below: in which panels does the
# star lose?

# %%
from pathfinding.course.draw import draw_instance  # noqa: E402

shapes = {
    "the default: 2 hops": (make_instance(2, rng=0), "ppr"),
    "branching bridges: 3 hops, b = 1": (make_instance(3, bridge_branching=1, rng=0), "ppr"),
    "a decoy: 3 hops, decoy_hops = 1": (make_instance(3, decoy_hops=1, rng=0), "ppr"),
    "unequal depths: hops = (1, 3)": (make_instance((1, 3), rng=0), "ppr"),
    "hub seed (64 passages), with specificity": (make_instance(2, hub_passages=64, rng=0), "ppr"),
    "the same hub, without specificity": (make_instance(2, hub_passages=64, rng=0), "ppr_no_specificity"),
}
from scipy.sparse.csgraph import shortest_path  # noqa: E402

fig, axes = plt.subplots(3, 2, figsize=(10.5, 13), layout="constrained")
decoys = {}
for ax, (title, (inst, ranker)) in zip(axes.ravel(), shapes.items(), strict=True):
    # a decoy is another candidate that every seed reaches, and sooner than the answer
    hops_to = shortest_path(inst.graph, indices=inst.seeds, unweighted=True)
    decoys[title] = [
        int(c)
        for c in inst.candidates
        if c != inst.answer and np.ptp(hops_to[:, c]) == 0 and hops_to[0, c] < hops_to[0, inst.answer]
    ]
    draw_instance(
        inst, RANKERS[ranker](inst), ax=ax, title=title, legend=ax is axes[0, 0],
        marks=dict.fromkeys(decoys[title], "decoy"),
    )  # fmt: skip
show(fig, "04_shapes")
check(
    {t: len(d) for t, d in decoys.items() if d} == {"a decoy: 3 hops, decoy_hops = 1": 1},
    idea="the decoy panel has one decoy, the other panels none",
)

# %%
# Explore: turn one knob at a time and watch the answer's rank (decoy_hops 0: no decoy).
# Sliders in Jupyter (ipywidgets); in the book the same sliders run in the page, with no kernel.
from pathfinding.course.explorers import interactive_defeat  # noqa: E402

interactive_defeat()

# %% [markdown]
# ## 1. Branching along the bridge chains
#
# With `bridge_branching` $= b$, every interior node of both bridge chains gets $b$ extra leaf
# neighbours (not candidates). Each such node has degree $2 + b$ instead of 2, so it forwards only
# $\frac{1}{2 + b}$ of what it holds toward the answer instead of $\frac12$. Over the $h - 1$
# interior nodes of a bridge of $h$ hops the in-flow to the answer shrinks by roughly
# $\left(\frac{2}{2 + b}\right)^{h - 1}$ relative to the flow a dead end gets through its plain
# chain. The meet gives a factor 2; the answer loses once the dilution eats it:
#
# $$
# 2 \left(\frac{2}{2 + b}\right)^{h - 1} < 1.
# $$
#
# (Roughly: leaves also send mass back, which is why the measured margin sits a little above the
# estimate.) At $h = 1$ there is no interior node and nothing to dilute.

# %%
branchings = list(range(0, 7))
depths = [2, 3, 4]
branch_rank = {}
for b in branchings:
    res = run_experiment(
        hops=depths + [(2, 3)], trials=TRIALS, seed=0, rankers=["ppr"], progress=False, bridge_branching=b
    )
    for row in res.summary():
        branch_rank[b, row.hops] = row
branch_margin = {
    (b, h): margin(make_instance(h, bridge_branching=b, rng=0)) for b in branchings for h in depths
}
estimate = {(b, h): 2 * (2 / (2 + b)) ** (h - 1) for b in branchings for h in depths}

show_table(
    [[b, *(v for h in depths for v in (cell(branch_rank[b, h]), branch_margin[b, h], estimate[b, h]))]
     for b in branchings],
    header=["b", *(f"{h} hops: {c}" for h in depths for c in ("rank [CI]", "margin", "estimate"))],
    formats=[None, *[None, ".3f", ".2f"] * len(depths)],
)  # fmt: skip

# %%
slip = {h: next(b for b in branchings if branch_rank[b, h].mean > 1) for h in depths}
print("first branching at which the answer loses rank 1:", slip)
check(
    slip == {2: 3, 3: 1, 4: 1},
    idea="branching first defeats PPR at 2 hops with b = 3, and at 3 and 4 hops with b = 1",
)
for (b, h), row in branch_rank.items():
    check(row.ci_low == row.ci_high, idea="every trial is the same shape, so the interval has no width")
    if h in depths:
        check(
            row.mean == (1.0 if branch_margin[b, h] > 1 else 17.0),
            idea="the answer is first when its margin is above 1 and last (17) when below",
        )
check(
    abs(branch_margin[0, 2] - 2.0) < 1e-6 and abs(branch_margin[2, 2] - 1.077) < 1e-3,
    idea="margin 2 without branching at 2 hops, 1.077 with b = 2",
)
check(
    abs(branch_margin[3, 2] - 0.875) < 1e-3,
    idea="at 2 hops three leaves per bridge node drop the margin below 1 (0.875)",
)
check(
    abs(branch_margin[1, 3] - 0.981) < 1e-3,
    idea="at 3 hops one leaf per bridge node already drops the margin below 1 (0.981)",
)

# %% [markdown]
# The rank jumps straight from 1 to 17 — from first to **last** — with nothing in between: all 16
# dead ends are the same shape, so the answer either beats all of them or none. At two hops the
# answer survives two leaves per bridge node (margin 1.077) and falls at three (0.875). At three and
# four hops a single leaf per interior node is enough (margin 0.981 at three hops): the dilution
# compounds once per interior node.
#
# With unequal depths, `hops=(2, 3)`, the dead ends are no longer all alike (the first seed's are
# two hops out, the second's three), and the answer lands in the middle: rank 9, below the eight
# nearer dead ends and above the eight farther ones.

# %%
print("hops=(2, 3):", {b: branch_rank[b, (2, 3)].mean for b in branchings})
check(
    branch_rank[0, (2, 3)].mean == 1.0 and all(branch_rank[b, (2, 3)].mean == 9.0 for b in branchings[1:]),
    idea="branching at mixed depths: the answer is 9th, after the near seed's 8 dead ends, before the far's",
)

# %%
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10.5, 3.8))
for h in depths:
    ax1.plot(branchings, [branch_margin[b, h] for b in branchings], "o-", label=f"hops = {h} (measured)")
    ax1.plot(branchings, [estimate[b, h] for b in branchings], ":", color=ax1.lines[-1].get_color())
ax1.axhline(1, color="k", lw=0.8)
ax1.set(
    yscale="log",
    xlabel="bridge_branching b (leaves per interior bridge node)",
    ylabel="answer / best dead end",
    title="Margin; dotted: 2·(2/(2+b))^(hops-1)",
)
ax1.legend(fontsize=8)
for h in depths + [(2, 3)]:
    ax2.plot(branchings, [branch_rank[b, h].mean for b in branchings], "o-", label=f"hops = {h}")
ax2.set(
    xlabel="bridge_branching b",
    ylabel="answer's mean rank (17 candidates)",
    ylim=(18, 0),
    title=f"Rank slips where the margin crosses 1 ({TRIALS} trials/point)",
)
ax2.legend(fontsize=8)
fig.tight_layout()
show(fig, "04_figure_1")

# %% [markdown]
# ## 2. A decoy meet node reached by shorter paths
#
# `decoy_hops` $= d$ adds a node that **every** seed also reaches, by its own chain of $d < h$
# facts. The decoy is a meet node too — it gets the factor 2 — and it is closer: every extra hop
# costs the flow at least a factor $1 - \alpha = 0.5$ for the restart and a split at each node. The
# decoy wins every time. But it only defeats the answer by one place: the answer is still a meet
# node and beats every dead end, so its rank is exactly 2.

# %%
decoy_rows = {}
for h in (2, 3, 4):
    for d in range(1, h):
        res = run_experiment(
            hops=(h,),
            trials=TRIALS,
            seed=0,
            rankers=["ppr", "ppr_no_specificity"],
            progress=False,
            decoy_hops=d,
        )
        decoy_rows[h, d] = {row.ranker: row for row in res.summary()}
decoy_margin = {k: margin(make_instance(k[0], decoy_hops=k[1], rng=0)) for k in decoy_rows}
show_table(
    [[h, d, cell(rows["ppr"]), cell(rows["ppr_no_specificity"]), decoy_margin[h, d]]
     for (h, d), rows in decoy_rows.items()],
    header=["hops", "decoy_hops", "PPR rank [CI]", "without specificity", "answer / decoy"],
    formats=[None, None, None, None, ".3f"],
)  # fmt: skip
check(
    all(r["ppr"].mean == 2.0 and r["ppr_no_specificity"].mean == 2.0 for r in decoy_rows.values()),
    idea="a decoy reached by shorter chains takes first place: the answer is second",
)
check(
    all(m < 1 for m in decoy_margin.values()), idea="the answer/decoy margin is below 1 for every decoy depth"
)

# %% [markdown]
# The decoy's lead grows with the length difference $h - d$ (smaller answer/decoy ratio).
# This is the shape PPR cannot tell apart *in principle*: from the graph alone, a shorter meet
# node is the better meet node. Only the question's text (the relations it names) could tell the
# two apart, and PPR does not read relations.

# %% [markdown]
# ## 3. Unequal hop lengths from the two seeds
#
# With `hops=(1, 3)` the answer is one hop from the first seed and three from the second; each
# seed's dead-end chains have that seed's depth. Does the far seed's weak in-flow let the answer
# slip? No: the answer still receives every in-flow that a dead end of the *near* seed receives
# (it is one hop from that seed, like those dead ends), plus the far seed's contribution on top.
# The far seed's contribution shrinks with its distance, so the margin shrinks towards 1 — but
# it never crosses it.

# %%
unequal = [(1, 2), (1, 3), (1, 4), (1, 6), (2, 3), (2, 4), (2, 5), (3, 4), (3, 6)]
res = run_experiment(
    hops=unequal, trials=TRIALS, seed=0, rankers=["ppr", "ppr_no_specificity"], progress=False
)
unequal_rows = {(row.ranker, row.hops): row for row in res.summary()}
unequal_margin = {h: margin(make_instance(h, rng=0)) for h in unequal}
for h in unequal:
    print(f"hops={h}: ppr rank {cell(unequal_rows['ppr', h])}  margin {unequal_margin[h]:.3f}")
check(
    all(
        unequal_rows["ppr", h].mean == 1.0 and unequal_rows["ppr_no_specificity", h].mean == 1.0
        for h in unequal
    ),
    idea="unequal hop depths do not cost the answer its first place",
)
check(
    all(m > 1 for m in unequal_margin.values()),
    idea="with unequal depths the answer still beats the best dead end",
)
check(
    unequal_margin[1, 6] < unequal_margin[1, 3] < unequal_margin[1, 2],
    idea="the margin shrinks as the depths grow more unequal",
)

# %% [markdown]
# ## 4. A hub seed, with and without specificity
#
# `hub_passages` $= k$ hangs $k$ extra leaves on the first seed. Without specificity the hub keeps
# half the restart mass but sprays it over $9 + k$ neighbours, so its flow to the answer thins.
# Again the answer is not defeated: the hub's flow to *its own* dead ends thins by the same factor,
# and the second seed's dead ends never received anything from the hub. The answer keeps the
# second seed's full in-flow — exactly what that seed's dead ends get — plus whatever the hub
# still sends. With specificity the hub's restart weight drops to $s_1 = \frac{1}{9 + k}$, which
# removes the hub's contribution faster: the margin falls towards 1 quicker (notebook 2 shows the
# passage-level side of this trade).

# %%
hubs = [0, 4, 16, 64, 256, 1024]
hub_rows, hub_margin = {}, {}
for k in hubs:
    res = run_experiment(
        hops=(2,),
        trials=TRIALS,
        seed=0,
        rankers=["ppr", "ppr_no_specificity"],
        progress=False,
        hub_passages=k,
    )
    hub_rows[k] = {row.ranker: row for row in res.summary()}
    inst = make_instance(2, hub_passages=k, rng=0)
    hub_margin[k] = (margin(inst, "ppr"), margin(inst, "ppr_no_specificity"))
show_table(
    [[k, cell(r["ppr"]), hub_margin[k][0], cell(r["ppr_no_specificity"]), hub_margin[k][1]]
     for k, r in hub_rows.items()],
    header=["hub_passages", "rank, with specificity", "margin", "rank, without", "margin"],
    formats=[None, None, ".4f", None, ".4f"],
)  # fmt: skip
check(
    all(r["ppr"].mean == 1.0 and r["ppr_no_specificity"].mean == 1.0 for r in hub_rows.values()),
    idea="a hub seed never costs the answer its first place",
)
check(
    all(1 < hub_margin[k][0] <= hub_margin[k][1] for k in hubs[1:]),
    idea="the margin stays above 1, and specificity never widens it",
)

# %%
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 3.8))
dd = sorted(decoy_margin)
ax1.bar(range(len(dd)), [decoy_margin[k] for k in dd], color="C3")
ax1.axhline(1, color="k", lw=0.8)
ax1.set(
    xticks=range(len(dd)),
    xticklabels=[f"h={h}\nd={d}" for h, d in dd],
    ylabel="answer / decoy",
    title="Decoy meet node: always ahead (answer rank 2)",
)
ax2.plot([str(h) for h in unequal], [unequal_margin[h] for h in unequal], "o-", label="unequal hops")
ax2.axhline(1, color="k", lw=0.8)
ax2.set(
    xlabel="hops per seed",
    ylabel="answer / best dead end",
    title="Unequal depths: margin shrinks, stays > 1",
    ylim=(0.9, 1.4),
)
ax2.tick_params(axis="x", rotation=45)
fig.tight_layout()
show(fig, "04_figure_2")

# %%
fig, ax = plt.subplots(figsize=(6.5, 3.8))
ax.semilogx(np.array(hubs) + 1, [hub_margin[k][0] for k in hubs], "o-", label="with specificity")
ax.semilogx(np.array(hubs) + 1, [hub_margin[k][1] for k in hubs], "s--", label="without specificity")
ax.axhline(1, color="k", lw=0.8)
ax.set(
    xlabel="hub passages + 1", ylabel="answer / best dead end", title="Hub seed: margin thins, rank stays 1"
)
ax.legend()
fig.tight_layout()
show(fig, "04_figure_3")

# %% [markdown]
# ## The verdict
#
# * **Defeats PPR:** dilution *on the bridge itself*. Branching along the bridge chains turns the
#   answer from first to last once
#   $2 \cdot (\text{in-flow through a bridge}) < (\text{in-flow through a plain chain})$ — at three
#   leaves per interior node for two hops (two still leave a margin of 1.077),
#   at one for three or more.
# * **Beats the answer, by one place:** a shorter meet node (the decoy). PPR prefers short meets,
#   and nothing in the graph says the longer one is right.
# * **Does not defeat PPR here:** unequal depths and hub seeds. In both, the answer receives every
#   in-flow some dead end receives, plus more, so it cannot fall below that dead end — the margin
#   shrinks towards a tie but does not cross it. Specificity makes the hub case *tighter* at the node
#   level, not looser.
#
# The general lesson: PPR ranks by "how much flow arrives", so it fails exactly where the answer's
# paths are **leakier** than the competitors' paths, not where they are merely longer or where a
# seed is popular.

# %% [markdown]
# ## Exercises
#
# Answer each before you open `solutions/04_what_defeats_ppr_sol.py`.
#
# **4.1 Defeat PPR with a shape of your own.** Build a path-finding instance on which PPR ranks some
# wrong candidate strictly above the answer. It must stay a path-finding question: two or more
# seeds, no passage naming two seeds, at least two seeds that each reach the answer by a path of
# their own (through no other seed), and no node standing between every seed and the answer (that
# node, where the walks meet first, would be the question's real meet node). Cutting the answer off
# from a seed does not count, and neither does a tie: an exact twin of the answer (rank 1.5) is
# not a defeat. The candidates are the exercise's too: the answer and the dead ends at its depth
# (and a decoy meet node, if you build one); a bridge node, or a node nearer the seeds than the
# answer, listed as a candidate outranks the answer by distance, whatever the shape.
# `make_instance` has knobs; `pathfinding.synthetic.instances.instance_from_facts` builds any graph
# you can write as a list of facts.

# %%
from pathfinding.course import exercises

my_instance = ...
exercises.check_defeating_shape(my_instance)

# %% [markdown]
# **4.2 Where does branching start to hurt, with three seeds?** Section 1 measured two seeds. Now
# three seeds meet at the answer at two hops (`make_instance(2, seeds=3, bridge_branching=b)`): how
# many leaves per interior bridge node does it take before the answer loses its first place? Predict
# with the mass arithmetic of section 1 (what replaces the factor 2?), then measure; answer exactly,
# with a whole number.

# %%
slip_at_three_seeds = ...
exercises.check_slip_branching(slip_at_three_seeds, seeds=3)
