"""Sphinx configuration of the course book.

``tools/build_course.py`` copies this folder into ``build/course-src/`` beside the executed notebooks
and runs Sphinx there, so every path below is relative to that staging folder. Nothing is executed
here (``nb_execution_mode = "off"``): the build script has run every notebook already.
"""

project = "pathfinding: the course"
author = "the pathfinding authors"
copyright = "the pathfinding authors (see LICENSE)"

extensions = ["myst_nb", "sphinx_togglebutton"]
exclude_patterns = ["_build", "_mathjax", "_bokeh", "_static", "**.ipynb_checkpoints"]
root_doc = "index"

# Markdown: $...$ maths, ::: fences, anchors on headings down to ### so pages can link to sections.
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist", "substitution"]
myst_heading_anchors = 3


# The landing page's numbers are computed here, by the package, like every number in the notebooks.
def _meet_node_numbers() -> dict[str, str]:
    from pathfinding import personalized_pagerank, star_pair
    from pathfinding.experiments.passages import passage_ranks
    from pathfinding.synthetic.instances import make_instance

    toy = star_pair(9)
    dead = int(toy.candidates[toy.candidates != toy.answer][0])
    one = personalized_pagerank(toy.graph, toy.seeds, restart_prob=0.5, tol=0, max_iter=1)
    pi = personalized_pagerank(toy.graph, toy.seeds, restart_prob=0.5, tol=1e-12)
    # The caveat: the meet NODE ranks first, but the answer's best PASSAGE under pi . P does not.
    passage_rank, n_passages, _ = passage_ranks(make_instance(2, rng=0))["pi_P"]
    return {
        "two_hop_passage_rank": f"{passage_rank:g}",
        "two_hop_passages": f"{n_passages}",
        "one_step_answer": f"{one[toy.answer]:.4f}",
        "one_step_dead_end": f"{one[dead]:.4f}",
        "stationary_answer": f"{pi[toy.answer]:.4f}",
        "stationary_dead_end": f"{pi[dead]:.4f}",
    }


# The FINDINGS row and column each landing-page number is (the test suite and this build check it).
LANDING_ROWS = {
    "one_step_answer": ("F16", "measured", 1),
    "one_step_dead_end": ("F16", "measured", 2),
    "stationary_answer": ("F17", "measured", 1),
    "stationary_dead_end": ("F17", "measured", 2),
    "two_hop_passage_rank": ("A3", "rank", 1),
    "two_hop_passages": ("A3", "passages ranked", 1),
}


def _disagreeing(numbers: dict[str, str]) -> list[str]:
    """The landing-page numbers that are not their FINDINGS row rounded as printed."""
    from pathfinding.course.quotes import Quote, finding

    return [
        f"{name} = {numbers[name]}: FINDINGS {row} {column!r} says {finding(row, column, n):g}"
        for name, (row, column, n) in LANDING_ROWS.items()
        if not Quote(numbers[name], row, column, n, 0).agrees(finding(row, column, n))
    ]


myst_substitutions = _meet_node_numbers()
if _disagreeing(myst_substitutions):
    raise SystemExit(f"the landing page disagrees with FINDINGS: {_disagreeing(myst_substitutions)}")

# Notebooks arrive executed; a stderr output would be a warning a student takes for a problem, and
# -W makes it fail the build instead.
nb_execution_mode = "off"
nb_output_stderr = "warn"
nb_merge_streams = True
# No ipywidget reaches a page (an explorer there is a Bokeh layout), so no widget JavaScript from a
# CDN either. BokehJS is one copy in _static/ (the build stages it in _bokeh/, from the installed
# Bokeh), loaded only by the pages that show an explorer (setup below).
nb_ipywidgets_js = {}
BOKEHJS = ["bokeh.min.js", "bokeh-widgets.min.js"]

# MathJax 3 from the npm package, shipped inside the book: no machine here reaches a CDN. The
# book's own stylesheet widens the content column and wraps what would otherwise scroll sideways.
html_static_path = ["_mathjax", "_bokeh", "_static"]
html_css_files = ["course.css"]
mathjax_path = "mathjax/tex-chtml.js"

html_theme = "sphinx_book_theme"
html_title = "pathfinding: the course"
html_copy_source = True
html_last_updated_fmt = None
# The theme's colour mode, stated: left empty, its script logs a console error on a first visit.
html_context = {"default_mode": "light"}
html_theme_options = {
    "home_page_in_toc": True,
    "show_toc_level": 2,
    "use_download_button": True,
    "use_fullscreen_button": False,
    "use_repository_button": False,
    "show_navbar_depth": 1,
}


def _load_bokehjs(app, pagename, templatename, context, doctree):
    """Load BokehJS on a page that shows an explorer (before its scripts run), on no other page."""
    if 'class="pathfinding-explorer"' in context.get("body", ""):
        for name in BOKEHJS:
            app.add_js_file(name, priority=100)


def setup(app):
    app.connect("html-page-context", _load_bokehjs)
