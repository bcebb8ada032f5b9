# The single build interface. Every target sets up .venv on first use (CPU torch pinned) and is idempotent.
VENV    := .venv
PY      := $(VENV)/bin/python
STAMP   := $(VENV)/.installed-stamp
PYTHON  ?= python3

.PHONY: setup book test lab lint bench chromium clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q torch==2.13.0   # the CPU build; an unpinned torch pulls a multi-GB CUDA build
	$(PY) -m pip install -q -e '.[book,lab,dev,dist]'
	touch $(STAMP)

book: setup
	$(VENV)/bin/lengthgen book --profile quick

chromium:
	@command -v chromium >/dev/null 2>&1 || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null)

test: setup chromium
	$(PY) -m pytest

lab: setup
	$(VENV)/bin/lengthgen lab

lint: setup   # ruff on the package, the tests and the chapters' code cells (tests/test_lint.py converts them)
	$(PY) -m pytest -q tests/test_lint.py

bench: setup
	$(VENV)/bin/lengthgen bench

clean:
	rm -rf _build book/chapters
