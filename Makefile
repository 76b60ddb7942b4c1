# Every target sets up .venv on first use (and again when requirements change).
# `make book` and `make test` are the whole set-up on a fresh machine.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
export PATH := $(abspath $(BIN)):$(PATH)
export MPLBACKEND := Agg
# The book and its validation show the static explorers (precomputed frames
# that work without a kernel); `make lab` leaves this unset: live explorers.
STATIC := MHA_EXPLORER=static
export PYDEVD_DISABLE_FILE_VALIDATION := 1

# The chapters, in the order of _toc.yml.
NOTEBOOKS := $(foreach f,$(shell sed -n 's/^ *- file: //p' _toc.yml),$(wildcard $(f).ipynb))
CHROMIUM  ?= /usr/bin/chromium
HOST      ?= 127.0.0.1
PORT      ?= 8000

.PHONY: help book test lint unit nbval browser lab serve bench lock weights clean

help:
	@echo "make book    build the site into _build/html (strict)"
	@echo "make test    everything CI checks: lint, unit tests, notebooks, build, browser"
	@echo "make lab     JupyterLab on the chapters"
	@echo "make serve   serve _build/html on http://$(HOST):$(PORT)/"
	@echo "make bench   run the benchmarks, write benchmarks/RESULTS.md"
	@echo "make lock    re-pin every transitive dependency into constraints.txt"

$(STAMP): requirements.txt constraints.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	touch $@

# jupyter-cache keys executed notebooks on their own code only; drop the cache
# when the package they import changes, so the site never shows stale outputs.
CACHE_KEY := _build/.jupyter_cache.key
cache-check:
	@mkdir -p _build
	@key=$$(cat src/mha/*.py requirements.txt | sha256sum | cut -c1-16); \
	if [ "$$(cat $(CACHE_KEY) 2>/dev/null)" != "$$key" ]; then \
	  rm -rf _build/.jupyter_cache; echo "$$key" > $(CACHE_KEY); fi

book: $(STAMP) cache-check
	$(STATIC) $(BIN)/jupyter-book build . -W -n --keep-going

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks book

unit: $(STAMP)
	$(BIN)/python -m pytest -q -p no:nbval -m "not browser"

nbval: $(STAMP)
	$(STATIC) $(BIN)/python -m pytest -q --nbval --nbval-current-env $(NOTEBOOKS)

browser: $(STAMP)
	@test -x $(CHROMIUM) || { echo "$(CHROMIUM) not found: install Debian's chromium (apt-get install chromium), or set CHROMIUM=/path/to/chromium"; exit 1; }
	CHROMIUM=$(CHROMIUM) $(BIN)/python -m pytest -q -m browser

# Cheapest first, so a mistake fails fast.
test: lint unit nbval book browser

lab: $(STAMP)
	$(BIN)/jupyter lab book/

serve:
	@test -f _build/html/index.html || $(MAKE) book
	@echo "Serving the book at http://$(HOST):$(PORT)/  (Ctrl-C to stop)"
	$(BIN)/python -m http.server --bind $(HOST) --directory _build/html $(PORT)

lock: $(STAMP)
	{ echo "# Every package of the set-up, pinned; made by 'make lock' from the current .venv."; \
	  $(BIN)/python -m pip freeze --exclude-editable | sed 's/^torch==\(.*\)+cpu$$/torch==\1/'; } > constraints.txt

# Retrain the previous-word models the explorer shows and save their weights
# (src/mha/data/previous_word.pt); tests/test_training.py checks they match.
weights: $(STAMP)
	$(BIN)/python -c "from mha.training import save_trained; save_trained()"

clean:
	rm -rf _build
