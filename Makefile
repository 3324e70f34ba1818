# The two commands of the README. Both set up everything themselves on a fresh machine:
# a venv with the pack and esrally; Elasticsearch comes from Maven Central on first use.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test unit install clean

demo: install
	$(BIN)/ingestlab demo posts

test: install
	$(BIN)/pytest -v tests

unit: install
	$(BIN)/pytest -v tests/unit

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	@$(PYTHON) -c 'import sys; v = sys.version_info; sys.exit(0 if v >= (3, 11, 4) else "Python >= 3.11.4 is needed (esrally unpacks distributions with it); found %d.%d.%d" % v[:3])'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	touch $@

clean:
	rm -rf $(VENV) results
