# `make demo` and `make test` do all set-up: they create .venv on first use and
# reinstall only when pyproject.toml changes.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Pinned CPU build: a loose `torch` would pull a multi-GB CUDA wheel.
TORCH := torch==2.13.0

.PHONY: demo test lit pytest clean bench-llm-venv

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

# OpenVINO's row of bench/llm.py: optimum-intel pins transformers<5.6, older
# than the project's, so it gets a venv of its own (never made in CI).
OV_VENV := .venv-ov
OV_PYTHON ?= python3.11

bench-llm-venv: $(OV_VENV)/.installed

$(OV_VENV)/.installed:
	$(OV_PYTHON) -m venv $(OV_VENV)
	$(OV_VENV)/bin/python -m pip install -q --upgrade pip
	$(OV_VENV)/bin/python -m pip install -q $(TORCH) optimum-intel openvino 'transformers<5.6'
	# The torchvision it pulls is not built for the CPU torch: its ops fail to
	# load, and transformers then fails to import. Nothing here needs it.
	$(OV_VENV)/bin/python -m pip uninstall -y -q torchvision
	touch $@

clean:
	rm -rf $(VENV) $(OV_VENV) build *.egg-info
