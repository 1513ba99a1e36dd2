# synthguard: `make demo` installs into .venv and runs the main job on bundled data;
# `make test` installs and runs the test suite.
PYTHON ?= $(shell command -v python3.11 || command -v python3.12 || command -v python3.13 || command -v python3)
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: install demo test test-fast bench bench-full lint clean docs

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test,dask]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/synthguard demo --out demo_output

test: $(STAMP)
	$(PY) -m pytest -n 2 -q tests

# every benchmark in a quick setting, within 14 minutes in all (benchmarks/run_all.py)
bench: $(STAMP)
	$(PY) benchmarks/run_all.py

# every benchmark with its own defaults (long)
bench-full: $(STAMP)
	for f in benchmarks/*.py; do case $$f in */run_all.py) continue;; esac; echo "== $$f"; $(PY) $$f || exit 1; done

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests benchmarks examples
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

# The documentation site: a strict build (a broken link, a missing name or a failing code block
# stops it) into site/, with offline search; open site/index.html in a browser.
DOCS_STAMP := $(VENV)/.installed-docs
$(DOCS_STAMP): $(STAMP)
	$(PY) -m pip install --quiet -e '.[docs]'
	touch $(DOCS_STAMP)

docs: $(DOCS_STAMP)
	$(VENV)/bin/mkdocs build --strict --clean

clean:
	rm -rf $(VENV) demo_output site .pytest_cache .mypy_cache .ruff_cache

# Render the HTML report in headless Chromium (Debian: apt-get install -y chromium); the test
# skips with a message when Chromium is absent.
.PHONY: browser-check
browser-check: $(STAMP)
	@command -v chromium >/dev/null 2>&1 || echo "chromium not found: apt-get install -y chromium (the check will be skipped)"
	$(PY) -m pytest -q -m browser -rs tests/report/test_browser.py
