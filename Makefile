# The two commands of the README. Both set up everything themselves on a fresh machine:
# a venv with the pack and esrally; Elasticsearch comes from Maven Central on first use.
# The first interpreter >= 3.11.4 (esrally needs it to unpack distributions for from-distribution),
# else any that esrally accepts (>= 3.10); PYTHON=/path/to/python overrides.
CANDIDATES := python3 python3.13 python3.12 python3.11 $(HOME)/.pyenv/shims/python3 /usr/local/bin/python3
fits = for p in $(CANDIDATES); do command -v $$p >/dev/null 2>&1 && $$p -c 'import sys; sys.exit(0 if $(1) <= sys.version_info[:3] < (3, 14) else 1)' 2>/dev/null && { command -v $$p; break; }; done
ifeq ($(origin PYTHON),undefined)
PYTHON := $(or $(shell $(call fits,(3, 11, 4))),$(shell $(call fits,(3, 10))))
endif
VENV ?= .venv
STUDY ?= posts
BIN := $(VENV)/bin

.PHONY: demo check test unit docs install clean lint format

demo: install
	$(BIN)/ingestlab demo $(STUDY)

# Tests run on $(WORKERS) pytest-xdist workers (a test file's tests on one; tests/conftest.py says how they share): most of a race is Rally
# waiting between its steps (one test at a time leaves most of this machine's 2 cores idle), so three at once share them
# without changing what a test asserts.
# WORKERS=0 runs them in this process, one after another.
WORKERS ?= 3
XDIST := $(if $(filter 0,$(WORKERS)),,-n $(WORKERS) --dist loadfile)

# the fast tier: the unit tests and the integration tests on the one shared 7.17.29 node, in test mode (or none); long
# computations (marked slow: simulations of the pack's rules, corpora built at size) wait for the rest
check: install lint
	$(BIN)/pytest -v $(XDIST) --durations=20 -m "(not integration and not slow) or check" tests

# everything: the fast tier first, then the rest (the other versions and engines, faults, scale-out), and last, one at a
# time, the tests that measure this machine or hold processes to a CPU quota (marked alone), their nodes on the JVM's
# defaults (the others' compile with its first tier only: tests/conftest.py decides by the mark expression)
test: check
	$(BIN)/pytest -v $(XDIST) --durations=40 -m "(integration or slow) and not check and not alone" tests
	$(BIN)/pytest -v --durations=20 -m "integration and alone" tests

# the formatter and the linter (ruff; settings in pyproject.toml): `make format` rewrites, `make lint` only checks
lint: install
	$(BIN)/ruff format --check ingestlab runners devtools tests
	$(BIN)/ruff check ingestlab runners devtools tests

format: install
	$(BIN)/ruff format ingestlab runners devtools tests
	$(BIN)/ruff check --fix ingestlab runners devtools tests

unit: install
	$(BIN)/pytest -v -m "not integration" tests/unit

# every measured figure and CI table of the docs, rendered from its data (tests/matrix.json)
docs: install
	$(BIN)/python -m devtools.docs.render

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	@test -n "$(PYTHON)" || { echo "no Python 3.10-3.13 found; install one or pass PYTHON=/path/to/python3" >&2; exit 1; }
	@$(PYTHON) -c 'import sys; v = sys.version_info; v >= (3, 11, 4) or print("warning: Python %d.%d.%d: benchmark-only races work; from-distribution needs >= 3.11.4" % v[:3])'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -qq -e '.[test]'
	touch $@

clean:
	rm -rf $(VENV) results
