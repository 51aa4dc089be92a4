# The room's two commands: `make run` and `make test`. Everything else is optional.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test lint format bench install browsers clean manage superuser

$(STAMP): requirements.txt requirements-dev.txt
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	@touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(PY) -m pokerroom.supervisor run

# The tests run on TEST_WORKERS processes (pytest-xdist, a test file to a worker; 0: in this process alone),
# each with its own test database, Redis database and channel prefix (tests/xdist_isolation.py). Most of the
# suite's time is real daphnes and workers playing hands, which waits more than it computes.
TEST_WORKERS ?= 2

test: $(STAMP)
	$(PY) -m ruff check .
	$(VENV)/bin/lint-imports --no-cache
	@mkdir -p var/test
	$(PY) -m pokerroom.supervisor exec -- $(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile $(PYTEST_ARGS)

# manage.py against the room's own data (a running `make run`'s servers, or the embedded ones):
#   make manage ARGS="ledger_check"
manage: $(STAMP)
	$(PY) -m pokerroom.supervisor manage $(ARGS)

superuser: $(STAMP)
	$(PY) -m pokerroom.supervisor manage createsuperuser

# ruff, the import contracts (pyproject.toml's [tool.importlinter]; docs/architecture.md) and mypy (strict) on the
# engine, the bots' poker and the ledger.
lint: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(VENV)/bin/lint-imports --no-cache
	$(PY) -m mypy tables/engine tables/botplay cashier/ledger.py

format: $(STAMP)
	$(PY) -m ruff format .
	$(PY) -m ruff check --fix .

# The engine against bare pokerkit, then a short load run (the full 900-player runs: docs/performance.md).
bench: $(STAMP)
	$(PY) bench/engine.py
	$(PY) bench/load.py --players 120 --tables 20 --seconds 30

browsers:
	./scripts/install-browser.sh

clean:
	rm -rf var/test .pytest_cache .ruff_cache
