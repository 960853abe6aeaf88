# make demo  - create .venv, install the package (its dependencies only), stream an R-MAT graph with four standing queries
# make test  - create .venv, install the package with its test and bench extras, run the test suite
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test bench clean

# one stamp per install, so that `make demo` on a fresh checkout installs no test tools
$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(BIN)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e .
	touch $@

$(BIN)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[test,bench]'
	touch $@

demo: $(BIN)/.installed
	$(BIN)/cugraph-stream demo

test: $(BIN)/.installed-dev
	$(BIN)/python -m pytest -q -n auto

bench: $(BIN)/.installed-dev
	$(BIN)/python -m benchmarks.cpu_vs_scipy

clean:
	rm -rf $(VENV) demo-out
