# One entry point for people, the README and CI.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
export PATH := $(shell scripts/toolpath)

.PHONY: setup lint test test-only test-random bench soak clean

setup:
	@scripts/setup-dev

lint: setup
	$(PY) -m ruff check server tests bench examples editors/tools editors/vscode/tools
	$(PY) -m ruff format --check server tests bench examples editors/tools editors/vscode/tools
	$(PY) -m mypy

test-only:
	$(PY) -m pytest $(PYTEST_ARGS)

test: lint
	$(PY) -m pytest $(PYTEST_ARGS)

# The suite in a random order (pytest-randomly prints its seed; SEED=N repeats that order).
test-random: setup
	$(PY) -m pytest -p randomly $(if $(SEED),--randomly-seed=$(SEED)) $(PYTEST_ARGS)

# bench/setup installs the peers bench/peers.py measures lintel against (into the tools cache).
bench: setup
	@bench/setup
	$(PY) bench/peers.py
	$(PY) bench/start.py
	$(PY) bench/ruff_worker.py
	$(PY) bench/lint_on_save.py
	$(PY) bench/navigation.py

# Ten minutes of mixed load on one server: RSS, fds and processes watched, what is left checked (MINUTES=1: quick).
soak: setup
	$(PY) bench/soak.py --minutes $(or $(MINUTES),10)

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
