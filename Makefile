# Two commands matter: `make test` (the whole suite) and `make findings` (the main job); `make course`
# builds the notebooks into a book in build/course/. Each creates .venv on first use and installs this
# checkout into it.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-test
COURSE_STAMP := $(VENV)/.installed-course
MATHJAX := $(VENV)/npm/node_modules/mathjax/es5/tex-chtml.js

# The data files from elsewhere (HippoRAG's release, about 12 MB) are never in the repository: a copy
# beside the checkout is read when there is one (this machine, CI), else `pathfinding data fetch`
# downloads them into the cache on first use. Set PATHFINDING_DATA yourself to point at another copy.
export PATHFINDING_DATA ?= $(if $(wildcard ../shared/data/hipporag),$(abspath ../shared/data/hipporag))

.PHONY: test findings data bench lint course course-serve course-test mutation clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

test: $(STAMP)
	$(BIN)/python -m pytest

findings: $(STAMP)
	$(BIN)/python -m pathfinding findings

# Every data file, verified, into the cache (or found in $PATHFINDING_DATA).
data: $(STAMP)
	$(BIN)/python -m pathfinding data fetch

# The peers (igraph, scikit-network) come with the `bench` extra, installed on first use.
bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[bench]'
	$(BIN)/python -m pathfinding bench --scaling --large --index-scale --explain --findings FINDINGS.md

# The notebooks' kernel is registered inside .venv (name "pathfinding"), so Jupyter started from
# .venv runs them with this checkout's package, never another interpreter's.
$(COURSE_STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[notebooks,course]'
	$(BIN)/python -m ipykernel install --prefix $(VENV) --name pathfinding --display-name "Python (pathfinding)"
	touch $@

# MathJax 3 ships inside the book (no page may depend on a CDN): npm fetches it once, into .venv.
$(MATHJAX):
	npm install --prefix $(VENV)/npm --no-audit --no-fund --silent mathjax@3
	test -f $@

# The course as a book: every notebook executed once (cached in build/course-cache), then Sphinx
# with warnings as errors into build/course/ (open build/course/index.html).
course: $(COURSE_STAMP) $(MATHJAX)
	$(BIN)/python tools/build_course.py --mathjax $(dir $(MATHJAX))

# The book over HTTP on this machine only (127.0.0.1), where its search shows a snippet under each
# hit: from file:// a browser does not let the search read the pages the snippets come from.
PORT ?= 8000
course-serve: course
	@echo "the course: http://127.0.0.1:$(PORT)/ (Ctrl-C stops the server)"
	$(BIN)/python -m http.server --bind 127.0.0.1 --directory build/course $(PORT)

# The built book in headless Chromium (Debian's chromium and chromium-driver): links, images,
# console, search (and its snippets, served as course-serve serves it), a solution toggle, overflow at
# 1280 px, typeset maths, an in-page explorer and its one BokehJS, the book's weight. pytest
# comes with the `test` extra, so that is installed too.
course-test: course $(STAMP)
	$(BIN)/python -m pytest -m browser tests/test_book.py

# A seeded, sampled mutation run over pathfinding/hipporag/ with cosmic-ray (the `mutation` extra): each
# module's sampled mutants against that module's own test file, one at a time, in a copy of the
# checkout under build/mutation/; the score, and every survivor to kill or accept in
# tools/mutation-accepted.md. About 17 minutes on one core; SEED and PER_MODULE choose the sample.
SEED ?= 42
PER_MODULE ?= 6
mutation: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[mutation]'
	$(BIN)/python tools/mutation.py --seed $(SEED) --per-module $(PER_MODULE) --json build/mutation/result.json

lint: $(STAMP)
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) build .pytest_cache .hypothesis .ruff_cache
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
