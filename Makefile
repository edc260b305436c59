# Two commands matter: `make test` (the whole suite) and `make findings` (the main job); `make course`
# executes the notebooks to HTML. Each creates .venv on first use and installs this checkout into it.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-test
COURSE_STAMP := $(VENV)/.installed-course

.PHONY: test findings bench lint course clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

test: $(STAMP)
	$(BIN)/python -m pytest

findings: $(STAMP)
	$(BIN)/python -m pathfinding findings

# The peers (igraph, scikit-network) come with the `bench` extra, installed on first use.
bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[bench]'
	$(BIN)/python -m pathfinding bench --scaling --large --index-scale --findings FINDINGS.md

# The notebooks' kernel is registered inside .venv (name "pathfinding"), so Jupyter started from
# .venv runs them with this checkout's package, never another interpreter's.
$(COURSE_STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[notebooks]'
	$(BIN)/python -m ipykernel install --prefix $(VENV) --name pathfinding --display-name "Python (pathfinding)"
	touch $@

# One HTML page per notebook, figures embedded, in build/course/ (and the executed .ipynb beside it).
course: $(COURSE_STAMP)
	$(BIN)/python tools/build_course.py --kernel pathfinding --out build/course

lint: $(STAMP)
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) build .pytest_cache .hypothesis .ruff_cache
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
