# Every target sets up .venv on first use (and again when requirements change).
# `make book` and `make test` are the whole set-up on a fresh machine.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
export PATH := $(abspath $(BIN)):$(PATH)
# The book and its validation draw figures off-screen; `make lab` does not:
# Jupyter's own figure display.
STATIC := MPLBACKEND=Agg
export PYDEVD_DISABLE_FILE_VALIDATION := 1
# The tooling (tools/booktools): the chapters' list (read from _toc.yml) and
# the timer of each stage.
BOOKTOOLS := $(BIN)/python -m booktools
NOTEBOOKS = $(shell $(BOOKTOOLS) notebooks)
export CHROMIUM ?= /usr/bin/chromium
HOST      ?= 127.0.0.1
PORT      ?= 8000
# Options passed on to JupyterLab: make lab LAB_OPTIONS="--port=9999 --no-browser"
LAB_OPTIONS ?=

.PHONY: help book test stages tested-site bytecode lint unit nbval browser screenshots execute lab serve bench lock weights clean setup-cell

help:
	@echo "make book    build the site into _build/html from the chapters' stored outputs (strict)"
	@echo "make test    everything CI checks: lint, unit tests, notebooks, build, browser"
	@echo "make execute re-run every chapter in place, storing its outputs (after changing src/)"
	@echo "make lab     JupyterLab on the chapters"
	@echo "make serve   serve _build/html on http://$(HOST):$(PORT)/"
	@echo "make bench   run the benchmarks, write benchmarks/RESULTS.md"
	@echo "make screenshots  every page at 390/1280 px, light and dark, into _build/screenshots/all"
	@echo "make lock    re-pin every transitive dependency into constraints.txt"
	@echo "make setup-cell  write the set-up cell into every chapter (after changing its template)"

# PyPI's Linux torch wheel is the multi-gigabyte CUDA build, whatever the pin. On
# Linux the set-up adds PyTorch's CPU-only index, where torch==2.13.0 resolves to
# 2.13.0+cpu; if that index does not answer within a few seconds, pip uses only
# its usual indexes (and says so). `make TORCH_INDEX=` switches the index off.
# Its address is written once, in src/mha_setup.py (the chapters' set-up uses it).
TORCH_INDEX ?= $(shell sed -n 's/^CPU_INDEX = "\(.*\)"$$/\1/p' src/mha_setup.py)

# The oldest Python the set-up runs on: the tooling's requires-python.
SETUP_PYTHON := $(shell sed -n 's/^requires-python = ">=\([0-9.]*\)".*/\1/p' tools/pyproject.toml)
$(STAMP): requirements.txt constraints.txt pyproject.toml tools/pyproject.toml
	@$(PYTHON) -c "import sys; sys.exit(sys.version_info < tuple(map(int, '$(SETUP_PYTHON)'.split('.'))))" || { \
	  echo "The set-up needs Python $(SETUP_PYTHON) or newer; $(PYTHON) is $$($(PYTHON) -V 2>&1)." \
	       "Name another: make PYTHON=python3.12 ..."; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	@index=; if [ "$$(uname -s)" = Linux ] && [ -n "$(TORCH_INDEX)" ]; then \
	  if timeout 5 $(BIN)/python -c "import sys, urllib.request; \
	    urllib.request.urlopen(sys.argv[1] + '/torch/', timeout=4)" "$(TORCH_INDEX)" 2>/dev/null; \
	  then index="--extra-index-url $(TORCH_INDEX)"; \
	  else echo "$(TORCH_INDEX) cannot be reached: torch comes from pip's usual indexes" \
	            "(on PyPI that is the CUDA build)"; fi; fi; \
	echo "Installing into $(VENV) (a few minutes; about 1.5 GB): $$(sed -n 's/^\([A-Za-z][A-Za-z0-9_.-]*\)==.*/\1/p' requirements.txt | tr '\n' ' ')" \
	     "with every package they need (constraints.txt), mha from src/ and the tooling from tools/"; \
	echo "$(BIN)/python -m pip install $$index -r requirements.txt"; \
	{ $(BIN)/python -m pip install --progress-bar off $$index -r requirements.txt; \
	  echo $$? > $(VENV)/.pip-status; } | grep --line-buffered -E '^(Collecting|Successfully installed)'; \
	exit $$(cat $(VENV)/.pip-status)
	touch $@

# The site, from the outputs stored in the chapters (it executes nothing: they
# are refreshed by `make execute` and proven current by nbval). Every page is
# rebuilt each time, so a change to the CSS, the assets, the
# configuration or the package's docstrings always reaches the site.
# The stages of `make test`, each on its own: lint (ruff), the unit tests,
# nbval (every chapter re-executed, each output compared with the stored one),
# the site (strict, every page rebuilt, no page of an earlier build left
# behind), the browser tests. `make unit OTHER_MACHINE=1` runs one as `make
# test` does. Each command runs through booktools.timed, which records its wall
# time and the CPU time of every process it starts (the browsers' included)
# in $$BOOK_TIMES when that is set (make test sets it).
TIMED  = $(BIN)/python -m booktools.timed $@
# pytest rewrites the asserts of every test module (and conftest) it imports
# and keeps the result in __pycache__, beside Python's own bytecode; where
# PYTHONDONTWRITEBYTECODE is set it keeps nothing, and each of its processes
# (every worker of every stage, every run) rewrites every module again. So
# pytest runs without it: the rewritten modules are written once and read
# from then on (until the module changes).
PYTEST := env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest -q -p no:cacheprovider
# Under make test the unit tests and nbval run beside the site's build and
# the browser tests, the longest chain of stages, at a lower priority: they
# take what that chain leaves of the cores (a browser waiting on a late file)
# instead of slowing it down (a browser test also waits longer on a busy
# machine, and its page spends CPU time meanwhile).
BESIDE ?=
# "Another machine": PyTorch's baseline CPU kernels and MKL's compatible mode
# instead of this processor's own (AVX-512, AVX2, ...). make test runs the unit
# tests and the notebooks so; `make execute` stores outputs with the native ones.
ON_OTHER_MACHINE = $(if $(OTHER_MACHINE),ATEN_CPU_CAPABILITY=default MKL_CBWR=COMPATIBLE)
# Two pytest workers, one per core, and each worker's PyTorch (and the kernels
# nbval starts) on one thread: two workers of two threads each on two cores
# wait on each other at every small operation.
TWO_WORKERS := -n 2
ONE_THREAD  := OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
# The unit tests handed out as workers free up, the longest first
# (`slow`, tests/conftest.py): no worker waits alone at the end.
SHARED_OUT := --dist worksteal
# Hypothesis's pytest plugin, only where there are property tests (the unit
# tests): loading it costs every pytest process CPU time.
NO_PROPERTY_TESTS := -p no:hypothesispytest
LINTED := src tools tests benchmarks book scripts _ext
# The unit tests: every test outside tests/browser (tests/conftest.py stops a
# collection that finds a browser test elsewhere). scripts/mutations.py runs
# this target too, with UNIT_OPTIONS of its own.
UNIT_OPTIONS ?=
# nbval's chapters: every chapter of _toc.yml, those that train or time first
# (two workers start on the longest), or CHAPTERS="book/07_trained_heads.ipynb".
CHAPTERS ?=

lint: $(STAMP)
	$(TIMED) $(BIN)/ruff check $(LINTED)
	$(TIMED) $(BIN)/ruff format --check $(LINTED)

unit: $(STAMP) bytecode
	$(ONE_THREAD) $(ON_OTHER_MACHINE) $(BESIDE) $(TIMED) $(PYTEST) -p no:nbval $(TWO_WORKERS) \
	  $(SHARED_OUT) $(UNIT_OPTIONS) -m "not browser" --ignore tests/browser tests

# Each chapter's cells in order on one worker (--dist loadfile); BOOK_NBVAL=1
# lets a chapter time its layers on a smaller grid in a cell nbval does not compare.
nbval: $(STAMP) bytecode
	$(ONE_THREAD) $(ON_OTHER_MACHINE) $(STATIC) BOOK_NBVAL=1 $(BESIDE) $(TIMED) $(PYTEST) \
	  $(NO_PROPERTY_TESTS) $(TWO_WORKERS) --dist loadfile --nbval --nbval-current-env \
	  --nbval-sanitize-with tests/nbval_sanitize.cfg \
	  $(or $(CHAPTERS),$$($(BOOKTOOLS) notebooks --longest-first))

# Every page rebuilt, so a change to the CSS, the assets, the configuration or
# the package's docstrings always reaches the site.
book: $(STAMP) bytecode
	rm -rf _build/html
	$(STATIC) $(TIMED) $(BIN)/jupyter-book build . -W -n --keep-going --all

# Three workers: a page test spends much of its time waiting (a slow
# network's late files, a page settling after a resize), which a third
# worker fills. The tests of a module that opens one page for all its cases
# go to one worker together, so the page is opened and computed once; the
# others are handed out one by one as workers free up, in the order
# collected (the longest first): tests/browser/conftest.py, ONE_WORKER.
ONE_PAGE_ONE_WORKER := --dist loadscope --no-loadscope-reorder
browser: $(STAMP) bytecode
	@$(BIN)/python -m booktools.chromium
	$(TIMED) $(PYTEST) -p no:nbval $(NO_PROPERTY_TESTS) -n 3 $(ONE_PAGE_ONE_WORKER) \
	  -m browser tests/browser

# The book's own modules compiled to bytecode where it is missing or stale:
# Python then reads it on every import, also where PYTHONDONTWRITEBYTECODE is
# set (as on some CI machines), instead of compiling them again in each of
# the dozens of processes a stage starts.
bytecode: $(STAMP)
	@$(BIN)/python -m compileall -q -j 1 src tools tests _ext scripts benchmarks

# Write the set-up cell (scripts/setup_cell_template.py, with the repository's
# address from _config.yml) into the first code cell of every chapter: after
# changing either, or adding a chapter. It executes nothing.
setup-cell: $(STAMP)
	$(BIN)/python -m booktools.setup_cell

# Re-execute every chapter in place and store its outputs (do this after
# changing src/mha, then commit the notebooks). The book's pages show no
# ipywidgets, so no widget state is kept (not even one an older run stored):
# of the notebook's metadata only the kernel and the language stay.
KEEP_METADATA := '[("kernelspec",), ("language_info",)]'
# What a cell prints, stored in one piece per stream: the kernel sends it in
# chunks that may end anywhere, even just before a line break, and myst-nb
# ends each chunk with a line break of its own (a blank line on the site that
# the code never printed). nbconvert's own preprocessor joins them exactly,
# as nbval does; listed here, it runs after the execution.
JOIN_STREAMS := '["nbconvert.preprocessors.CoalesceStreamsPreprocessor"]'
execute: $(STAMP)
	$(STATIC) $(BIN)/jupyter nbconvert --to notebook --execute --inplace \
	  --ExecutePreprocessor.record_timing=False --ExecutePreprocessor.timeout=600 \
	  --ExecutePreprocessor.store_widget_state=False \
	  --ClearMetadataPreprocessor.enabled=True --ClearMetadataPreprocessor.clear_cell_metadata=False \
	  --ClearMetadataPreprocessor.preserve_nb_metadata_mask=$(KEEP_METADATA) \
	  --NotebookExporter.preprocessors=$(JOIN_STREAMS) $(NOTEBOOKS)

# Every page at phone and desktop width, light and dark, into
# _build/screenshots/all/ for a person to look at (not part of `make test`).
screenshots: $(STAMP)
	$(BIN)/python benchmarks/screenshots.py

# The linter first, so a mistake of form fails fast; then the unit tests, the
# notebooks and the site (built, then tested in the browser: the one order
# among the stages) side by side (make -j3), so that what one stage leaves of
# the two cores (a worker waiting on a slow test, a browser on a late file)
# another takes (the unit tests and nbval at a lower priority: BESIDE,
# above), each one's output shown whole when it ends; the unit tests and the
# notebooks on "another machine" (above). The table of each stage's times
# ends the output, also after a failure.
TIMES := _build/times.jsonl
test: $(STAMP)
	@mkdir -p _build && rm -f $(TIMES)
	@BOOK_TIMES=$(abspath $(TIMES)) $(MAKE) --no-print-directory OTHER_MACHINE=1 stages; \
	  status=$$?; $(BIN)/python -m booktools.timed --table $(TIMES); exit $$status

stages:
	$(MAKE) --no-print-directory lint
	$(MAKE) --no-print-directory -j3 --output-sync=target BESIDE="nice -n 10" \
	  unit nbval tested-site

tested-site: book
	@$(MAKE) --no-print-directory browser

# As root (a container), JupyterLab wants --allow-root.
lab: $(STAMP)
	$(BIN)/jupyter lab $(if $(filter 0,$(shell id -u)),--allow-root) $(LAB_OPTIONS) book/

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

# Retrain every task's models (every head count, every shipped seed) and save
# their weights into src/mha/data/; prints what each learned.
# `python scripts/weights.py agreement` retrains one task.
weights: $(STAMP)
	$(BIN)/python scripts/weights.py

clean:
	rm -rf _build
