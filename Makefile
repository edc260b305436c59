# Two commands matter: `make test` (the whole suite) and `make findings` (the main job).
# Each creates .venv on first use and installs the package from this checkout into it.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-test

.PHONY: test findings bench lint clean

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
	$(BIN)/python -m pathfinding bench --scaling --findings FINDINGS.md

lint: $(STAMP)
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .ruff_cache
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
