# `make demo` and `make test` do all set-up: they create .venv on first use and
# reinstall only when pyproject.toml changes.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Pinned CPU build: a loose `torch` would pull a multi-GB CUDA wheel.
TORCH := torch==2.13.0

.PHONY: demo test lit pytest clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip setuptools wheel
	$(BIN)/python -m pip install -q $(TORCH)
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/python examples/demo.py

lit: $(STAMP)
	$(BIN)/lit -q test/filecheck

# pytest runs on every core (pytest-xdist), a test file per worker; the
# workers use one torch thread each (test/python/conftest.py).
PYTEST := $(BIN)/pytest -q -n auto --dist loadfile test/python

pytest: $(STAMP)
	$(PYTEST)

test: $(STAMP)
	$(BIN)/lit -s test/filecheck
	$(PYTEST)

clean:
	rm -rf $(VENV) build *.egg-info
