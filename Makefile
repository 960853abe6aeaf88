# make demo  - create .venv, install the package, stream an R-MAT graph with four standing queries
# make test  - create .venv, install the package with its test extras, run the test suite
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test bench clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test,bench]'
	touch $@

demo: $(BIN)/.installed
	$(BIN)/cugraph-stream demo

test: $(BIN)/.installed
	$(BIN)/python -m pytest -q

bench: $(BIN)/.installed
	$(BIN)/python -m benchmarks.cpu_vs_scipy

clean:
	rm -rf $(VENV) demo-out
