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
# # 1. The meet-node arithmetic
#
# HippoRAG (Gutiérrez et al., NeurIPS 2024; the method in §2.3, path-finding in §1 and Figure 1)
# answers a *path-finding* question by
# starting a Personalized PageRank (PPR) walk at every entity the question names, and reading off
# where the walk's mass piles up. The claim this notebook makes runnable is small and exact:
#
# > a node that **two** seeds both reach receives mass from **both**, so it holds twice what a node
# > reached by one seed holds.
#
# We check it on the smallest graph that shows it: two stars, $u$ and $w$, each with nine
# neighbours. One neighbour, $a$, is shared (the answer); the other eight of each are private dead
# ends ($d_1, \dots, d_8$ for $u$, $e_1, \dots, e_8$ for $w$). Where this sits in HippoRAG: Step 6,
# the walk itself, on a graph small enough to compute by hand.

# %%
import matplotlib.pyplot as plt
import numpy as np

from pathfinding.core.ppr import personalized_pagerank, ppr_solve
from pathfinding.course.diagrams import draw_pipeline_position
from pathfinding.course.draw import show
from pathfinding.course.quotes import finding
from pathfinding.course.teaching import check, expect
from pathfinding.synthetic.toy import star_pair

show(draw_pipeline_position("PPR").figure, "01_pipeline_position")

# %%
toy = star_pair(9)
u, w, a, d1 = 0, 1, 2, 3
degree = toy.graph.sum(axis=1)
print(f"{toy.n_nodes} nodes, {toy.n_passages} passages (one per edge)")
print("degrees: u =", degree[u], " w =", degree[w], " a =", degree[a], " d1 =", degree[d1])
print("a few passages:", toy.passages[:3])
check(
    (toy.n_nodes, degree[u], degree[w], degree[a], degree[d1]) == (19, 9, 9, 2, 1),
    idea="star_pair(9) is the chapter's two stars: 19 nodes, seeds of degree 9, answer 2, dead end 1",
)

# %% [markdown]
# ## The two stars, drawn
#
# The seeds (squares) sit outside, the answer (star) in the middle where their edges meet, and
# each seed's dead ends (triangles) fan out from it. Below, `star_pair(3)` with each passage
# written on its edge: every passage is one fact and mentions exactly two nodes.

# %%
from pathfinding.course.draw import draw_instance, draw_mass_spreading  # noqa: E402

fig, ax = plt.subplots(figsize=(9, 4.6), layout="constrained")
draw_instance(toy, ax=ax, title="star_pair(9): the chapter's two stars")
show(fig, "01_two_stars")
fig, ax = plt.subplots(figsize=(8, 4.4), layout="constrained")
draw_instance(star_pair(3), ax=ax, passages=True, legend=False, title="star_pair(3), passages on edges")
show(fig, "01_two_stars_passages")

# %% [markdown]
# ## One step of the walk, by hand
#
# The walk starts on the restart vector $r$: half its mass on $u$, half on $w$. One PPR step
# keeps the restart probability $\alpha = 0.5$ (`restart_prob` in the package) of the mass at the
# seeds and moves the other $1 - \alpha$ along the edges, each node splitting what it sends evenly
# among its neighbours.
#
# * $u$ holds half the restart mass, $\tfrac12$. It keeps $\alpha$ of it and sends the rest,
#   $(1 - \alpha) \cdot \tfrac12$, split over its $d = 9$ neighbours, so each in-flow is
#   $\frac{(1 - \alpha) \cdot \frac12}{d} = \frac{0.5 \cdot 0.5}{9} \approx 0.0278$.
# * A dead end $d_1$ has one in-flow (from $u$): $\pi^{(1)}_{d_1} \approx 0.0278$.
# * The answer $a$ has two in-flows (from $u$ and from $w$): $\pi^{(1)}_a \approx 0.0556$.
#
# The ratio $\pi^{(1)}_a / \pi^{(1)}_{d_1}$ is exactly 2: the answer is the only node where both
# seeds' flows meet.

# %% [markdown]
# The cell below is the course's first call to the package's PPR. It compiles the numba kernels:
# several seconds the first time on a machine; the compiled code is cached on disk, so later runs
# (and later notebooks) start in about a second.

# %%
restart_prob = 0.5
seed_mass = 0.5  # the restart vector splits its mass equally over the two seeds
per_inflow = (1 - restart_prob) * seed_mass / 9  # what u sends along each of its 9 edges
by_hand = {"answer a": 2 * per_inflow, "dead end d1": per_inflow}
print({k: round(v, 4) for k, v in by_hand.items()})

one_step = personalized_pagerank(toy.graph, toy.seeds, restart_prob=restart_prob, tol=0, max_iter=1)
print("package, one iteration: a =", round(one_step[a], 4), " d1 =", round(one_step[d1], 4))
check(
    round(per_inflow, 4) == 0.0278,
    idea="one inflow is (1 - restart_prob) * 0.5 / 9 = 0.0278 at restart_prob = 0.5",
)
check(
    abs(one_step[a] - 2 * per_inflow) < 1e-15,
    idea="after one step the answer holds exactly two inflows, one from each seed",
)
check(
    abs(one_step[d1] - per_inflow) < 1e-15,
    idea="after one step a dead end holds exactly one inflow, from its own seed",
)
check(
    abs(one_step[a] / one_step[d1] - 2.0) < 1e-12,
    idea="after one step the answer holds twice a dead end's mass",
)

# %% [markdown]
# ## The mass spreading, drawn
#
# *Predict* before running: after 0, 1, 2, 3 and 5 steps, where is the mass? The panels share one
# scale, read off the colour bar: a node's colour and its inked area are its mass, so a node with
# twice the mass covers twice the area (the star is drawn larger than a triangle of the same area
# would be, because a star inks less of its box). The seeds hold far more and are drawn at the cap,
# which the bar's arrow marks; an empty outline holds nothing yet. Watch the answer: twice a dead
# end's area in every panel from k = 1 on (each title gives the ratio), while all of them swing.

# %%
fig, axes = plt.subplots(3, 2, figsize=(9.5, 10.5), layout="constrained")
draw_mass_spreading(toy, ks=(0, 1, 2, 3, 5), axes=axes.ravel())
show(fig, "01_mass_spreading")

# %% [markdown]
# ## Iterate to the stationary distribution
#
# One step is not the walk HippoRAG uses: it runs PPR to convergence, to the stationary $\pi$ with
# $\pi = \alpha\, r + (1 - \alpha)\, \pi W$ ($W$ the row-normalised adjacency matrix). We let the
# package run exactly $k$ power iterations for $k = 1, 2, \dots$ and watch the answer's and a dead
# end's mass.
# The two stars form a *bipartite* graph (seeds on one side, their neighbours on the other), so
# mass sloshes: after an odd number of steps the neighbours hold more, after an even number the
# seeds do. Each swing is half the previous one (the restart damps it), and the walk settles at the
# stationary distribution. Through all of this the **ratio** stays at 2 from the first step on,
# because at every step the answer receives $u$'s share plus $w$'s share and the dead end only $u$'s.
#
# **The chapter is wrong about the level.** Its Step 6 says the full stationary values are *larger*
# than one step's. They are smaller: at the stationary distribution the answer holds
# $\pi_a = 1/27$, 0.0370<!--F17/measured/1-->, against $\pi^{(1)}_a$ = 0.0556<!--F16/measured/1-->
# after one step (FINDINGS F16 and F17), because after the first step the seeds keep getting mass
# back from their neighbours.
# Only the ratio 2 carries over.

# %%
iters = np.arange(1, 41)
trajectory = np.array([personalized_pagerank(toy.graph, toy.seeds, tol=0, max_iter=int(k)) for k in iters])
stationary = ppr_solve(toy.graph, toy.seeds, tol=1e-12)
pi = stationary.pi
ratios = trajectory[:, a] / trajectory[:, d1]
print(
    f"converged after {stationary.iterations} iterations (certified L1 error <= {stationary.error_bound:.1e})"
)
print(f"stationary: a = {pi[a]:.4f}, d1 = {pi[d1]:.4f}, u = {pi[u]:.4f}, ratio a/d1 = {pi[a] / pi[d1]:.12f}")
check(
    stationary.converged, idea="the walk converges to its stationary distribution within the iteration budget"
)
check(
    np.allclose(ratios, 2.0, atol=1e-12),
    idea="the answer/dead-end ratio is 2 at every step, because the answer always gets both seeds' shares",
)
check(
    trajectory[0, a] > pi[a] > trajectory[1, a],
    idea="the first swing overshoots the stationary value and the second undershoots it",
)
check(abs(pi[a] / pi[d1] - 2.0) < 1e-9, idea="at convergence the answer still holds twice a dead end's mass")
check(
    abs(pi[a] - 1 / 27) < 1e-9 and pi[a] < one_step[a],
    idea="the stationary answer mass is 1/27, smaller than after one step (the chapter says larger)",
)
check(abs(pi.sum() - 1.0) < 1e-12, idea="PPR mass is a probability distribution: it sums to 1")
expect(
    (one_step[a], one_step[d1], pi[a], pi[d1]),
    (finding("F16", "measured", 1), finding("F16", "measured", 2), finding("F17", "measured", 1),
     finding("F17", "measured", 2)),
    atol=5e-5, idea="one step and the stationary masses are FINDINGS rows F16 and F17, to 4 decimals",
)  # fmt: skip

# %%
fig, (ax_mass, ax_ratio) = plt.subplots(1, 2, figsize=(10, 3.6))
ax_mass.plot(iters, trajectory[:, a], "o-", ms=3, label="answer a (reached by u and w)")
ax_mass.plot(iters, trajectory[:, d1], "s-", ms=3, label="dead end d1 (reached by u only)")
ax_mass.axhline(pi[a], color="C0", lw=0.8, ls=":")
ax_mass.axhline(pi[d1], color="C1", lw=0.8, ls=":")
ax_mass.set(
    xlabel="power iterations", ylabel="PPR mass", title="Mass swings and settles (dotted: stationary)"
)
ax_mass.legend(fontsize=8)
ax_ratio.plot(iters, ratios, "k.-")
ax_ratio.set(
    xlabel="power iterations", ylabel="mass(a) / mass(d1)", ylim=(0, 3), title="The ratio is 2 at every step"
)
fig.tight_layout()
show(fig, "01_figure_1")

# %% [markdown]
# ## The ratio does not depend on the seeds' degree
#
# A seed of degree $d$ holding mass $m$ sends $(1 - \alpha)\, m / d$ along each edge, so a larger
# star dilutes the answer's in-flows and the dead ends' in-flows by the same factor. The *level* of
# mass falls with $d$; the answer-to-dead-end ratio does not move.

# %%
degrees = np.array([2, 3, 5, 9, 17, 33, 65, 129])
levels = []
for deg in degrees:
    star = star_pair(int(deg))
    p = personalized_pagerank(star.graph, star.seeds, tol=1e-12)
    levels.append((p[2], p[3]))
levels = np.array(levels)
for deg, (pa, pd) in zip(degrees, levels, strict=True):
    print(f"degree {deg:4d}: answer {pa:.5f}  dead end {pd:.5f}  ratio {pa / pd:.9f}")
check(
    np.allclose(levels[:, 0] / levels[:, 1], 2.0, atol=1e-8),
    idea="the ratio 2 does not depend on the seeds' degree",
)
check(np.all(np.diff(levels[:, 0]) < 0), idea="the level of mass falls as the stars grow")

# %%
fig, ax = plt.subplots(figsize=(6, 3.6))
ax.loglog(degrees, levels[:, 0], "o-", label="answer a")
ax.loglog(degrees, levels[:, 1], "s-", label="dead end")
ax.set(
    xlabel="seed degree d",
    ylabel="stationary PPR mass",
    title="Both fall with d; the gap is always a factor 2",
)
ax.legend()
fig.tight_layout()
show(fig, "01_figure_2")

# %%
# Explore: move the restart probability and the seeds' degree: the levels move, the ratio stays 2.
# Sliders in Jupyter (ipywidgets); in the book the same sliders run in the page, with no kernel.
from pathfinding.course.explorers import interactive_meet_node  # noqa: E402

interactive_meet_node()

# %% [markdown]
# ## One word, two meanings: "damping factor"
#
# The paper (§3.4) tunes "the PPR damping factor at 0.5, which determines the probability that
# PPR will restart a random walk from the query nodes". In networkx (`pagerank(G, alpha=0.85)`)
# and igraph (`personalized_pagerank(damping=0.85)`) the damping factor is the opposite: the
# probability to **continue** the walk. This package calls its parameter `restart_prob`, so the
# word cannot mislead: networkx's `alpha` is our $1 - \alpha$. At 0.5 the two readings give the
# same walk, which is why the paper's number is safe; anywhere else they do not, and a reader who
# keeps networkx's familiar 0.85 walks a different walk. networkx is not a dependency here, so the
# cell plays networkx with the package's own call, `restart_prob = 1 - alpha`.

# %%
ours = personalized_pagerank(toy.graph, toy.seeds, restart_prob=0.5, tol=1e-12)
as_networkx = {alpha: personalized_pagerank(toy.graph, toy.seeds, restart_prob=1 - alpha, tol=1e-12)
               for alpha in (0.5, 0.85)}  # fmt: skip
print(f"{'walk':<34}{'seed u':>8}{'answer a':>10}{'dead end':>10}{'a / d1':>8}")
for label, vec in (
    ("ours, restart_prob = 0.5", ours),
    *((f"networkx-style alpha = {k}", v) for k, v in as_networkx.items()),
):
    print(f"{label:<34}{vec[u]:8.4f}{vec[a]:10.4f}{vec[d1]:10.4f}{vec[a] / vec[d1]:8.3f}")
check(
    np.allclose(ours, as_networkx[0.5], atol=1e-12),
    idea="the paper's damping 0.5 (restart) and networkx's alpha 0.5 (continue) are the same walk",
)
check(
    not np.allclose(ours, as_networkx[0.85], atol=1e-3) and as_networkx[0.85][u] < ours[u],
    idea="networkx's default alpha 0.85 is restart 0.15: the seeds keep less and the mass wanders further",
)

# %% [markdown]
# **What to take away.** Mass sums where walks meet. Nothing in this argument needs a passage that
# names $u$ and $w$ together — and on a path-finding question, no such passage exists. Notebook 3
# shows what a per-passage retriever makes of the same question; notebook 4 looks for graph shapes
# where the factor of 2 is eaten by something else.

# %% [markdown]
# ## Exercises
#
# Answer each before you open `solutions/01_meet_node_arithmetic_sol.py`. Replace each `...` with
# your answer and run the cell: the check says whether it holds and, if not, which idea to revisit.
# Each exercise states its precision. An answer passes when it is the exact value rounded to that
# precision, or the exact value with more digits, written as an int, a float, a NumPy number or a
# `fractions.Fraction` (a tuple, list or array where several numbers are asked). The exact value
# rounded to fewer digits gets "close — keep more digits"; an answer that a common confusion
# produces (restart against damping, one step against the stationary mass, ...) gets a hint that
# names the confusion.
#
# **1.1 The one-step 2×, for any star and any restart probability.** Write `one_step(d, alpha)`
# returning the mass of the answer and of one dead end after one PPR step on `star_pair(d)` with
# `restart_prob` $= \alpha$ (the walk starts at the restart vector, half on each seed), each to 4
# decimal places. The check tries several $d$ and several $\alpha$, not only $\alpha = 0.5$, where
# restarting and walking happen to share the mass equally. This is the derivation the chapter calls
# "README exercise 2".

# %%
from pathfinding.course import exercises


def one_step(d, alpha):
    return ...  # (answer mass, dead-end mass)


exercises.check_one_step(one_step)

# %% [markdown]
# **1.2 The stationary distribution in closed form.** At convergence a seed, the answer and a dead
# end of `star_pair(d)` hold fixed masses. Write one balance equation per kind of node and solve:
# `stationary(d, alpha)` returns (seed, answer, dead end), each to 4 decimal places. At $d = 9$,
# $\alpha = 0.5$ you should find $1/3$, $1/27$ and $1/54$.


# %%
def stationary(d, alpha):
    return ...  # (seed mass, answer mass, dead-end mass)


exercises.check_stationary(stationary)

# %% [markdown]
# **1.3 Unequal restart weights.** Give the two seeds restart weights $r_1 \ge r_2$ (summing to 1).
# Show that after one step the answer's margin over the *best* dead end is $1 + r_2/r_1$, and write
# it as `margin(r1, r2)`, to 3 significant digits.
#
# **1.3b With specificity.** Now three seeds share the answer at one hop
# (`make_instance(1, seeds=3)`), and they sit in 20, 10 and 2 passages; specificity is on
# (notebook 2: $s_i = 1/|P_i|$, normalised over the seeds). What is the answer's one-step margin
# over the best dead end now, to 3 significant digits? (Three seeds, because with two the weights
# $1/|P_i|$ and $|P_i|$ are the same pair swapped, and a wrong weighting would give the right margin.)


# %%
def margin(r1, r2):
    return ...


exercises.check_margin(margin)

# %%
margin_with_specificity = ...
exercises.check_specificity_margin(margin_with_specificity)

# %% [markdown]
# **1.4 Three seeds.** Build an instance where three seeds share the answer at one hop
# (`make_instance(1, seeds=3)`), run one PPR step, and compute the answer's mass over the best dead
# end's, to 3 significant digits.

# %%
three_seed_ratio = ...
exercises.check_three_seeds(three_seed_ratio)
