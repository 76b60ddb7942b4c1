# Every target sets up .venv on first use (and again when requirements change).
# `make book` and `make test` are the whole set-up on a fresh machine.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
export PATH := $(abspath $(BIN)):$(PATH)
# The book and its validation show the static explorers (precomputed frames
# that work without a kernel) and draw off-screen; `make lab` sets neither:
# live explorers and Jupyter's own figure display.
STATIC := MHA_EXPLORER=static MPLBACKEND=Agg
export PYDEVD_DISABLE_FILE_VALIDATION := 1

# The chapters, in the order of _toc.yml.
NOTEBOOKS := $(foreach f,$(shell sed -n 's/^ *- file: //p' _toc.yml),$(wildcard $(f).ipynb))
CHROMIUM  ?= /usr/bin/chromium
HOST      ?= 127.0.0.1
PORT      ?= 8000

.PHONY: help book site test lint unit nbval browser screenshots execute lab serve bench lock weights clean

help:
	@echo "make book    execute the chapters and build the site into _build/html (strict)"
	@echo "make test    everything CI checks: lint, unit tests, notebooks, build, browser"
	@echo "make execute re-run every chapter in place, storing its outputs (after changing src/)"
	@echo "make lab     JupyterLab on the chapters"
	@echo "make serve   serve _build/html on http://$(HOST):$(PORT)/"
	@echo "make bench   run the benchmarks, write benchmarks/RESULTS.md"
	@echo "make screenshots  every page at 390/1280 px, light and dark, into _build/screenshots/all"
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

# Sphinx rewrites only the pages whose own source changed, so a change to the
# book's CSS, the vendored assets, the configuration or the package's
# docstrings (the API page) would never reach an existing site: rebuild every
# page when one of them is newer than the site.
REBUILD_ALL = $(if $(shell find assets vendor/static _ext _config.yml _toc.yml src/mha \
  -newer _build/html/searchindex.js 2>/dev/null | head -n 1),--all)

book: $(STAMP) cache-check
	$(BIN)/python scripts/book_config.py _build/_config.book.yml
	$(STATIC) $(BIN)/jupyter-book build . --config _build/_config.book.yml -W -n --keep-going $(REBUILD_ALL)

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks book scripts _ext

unit: $(STAMP)
	$(BIN)/python -m pytest -q -p no:nbval -p no:cacheprovider -n 2 -m "not browser"

# Every chapter re-executed, each output compared with the stored one; two
# workers (one per core), each chapter's cells in order on one of them.
nbval: $(STAMP)
	$(STATIC) $(BIN)/python -m pytest -q -p no:cacheprovider -n 2 --dist loadfile \
	  --nbval --nbval-current-env $(NOTEBOOKS)

# The site rendered from the stored outputs, without executing anything. In
# `make test` it runs right after nbval has executed every chapter and found
# its stored outputs (text, figure digests, explorer digests) exactly
# reproduced, so executing them all a second time would check nothing new.
site: $(STAMP)
	$(BIN)/python scripts/book_config.py _build/_config.site.yml --stored-outputs
	$(STATIC) $(BIN)/jupyter-book build . --config _build/_config.site.yml -W -n --keep-going $(REBUILD_ALL)

# Re-execute every chapter in place and store its outputs and widget state
# (do this after changing src/mha, then commit the notebooks).
execute: $(STAMP)
	$(STATIC) $(BIN)/jupyter nbconvert --to notebook --execute --inplace \
	  --ExecutePreprocessor.record_timing=False --ExecutePreprocessor.timeout=600 $(NOTEBOOKS)

browser: $(STAMP)
	@test -x $(CHROMIUM) || { echo "$(CHROMIUM) not found: install Debian's chromium (apt-get install chromium), or set CHROMIUM=/path/to/chromium"; exit 1; }
	CHROMIUM=$(CHROMIUM) $(BIN)/python -m pytest -q -p no:cacheprovider -n 2 -m browser

# Every page at phone and desktop width, light and dark, into
# _build/screenshots/all/ for a person to look at (not part of `make test`).
screenshots: $(STAMP)
	CHROMIUM=$(CHROMIUM) $(BIN)/python benchmarks/screenshots.py

# Cheapest first, so a mistake fails fast.
test: lint unit nbval site browser

lab: $(STAMP)
	$(BIN)/jupyter lab book/

serve:
	@test -f _build/html/index.html || $(MAKE) book
	@echo "Serving the book at http://$(HOST):$(PORT)/  (Ctrl-C to stop)"
	$(BIN)/python -m http.server --bind $(HOST) --directory _build/html $(PORT)

# Performance measurements (several minutes; runs `make test` too): prints a
# markdown report and writes benchmarks/RESULTS.md.
bench: $(STAMP)
	$(STATIC) $(BIN)/python benchmarks/run.py

lock: $(STAMP)
	{ echo "# Every package of the set-up, pinned; made by 'make lock' from the current .venv."; \
	  $(BIN)/python -m pip freeze --exclude-editable | sed 's/^torch==\(.*\)+cpu$$/torch==\1/'; } > constraints.txt

# Retrain the previous-word models the explorer shows and save their weights
# (src/mha/data/previous_word.pt); tests/test_training.py checks they match.
weights: $(STAMP)
	$(BIN)/python -c "from mha.training import save_trained; save_trained()"

clean:
	rm -rf _build
