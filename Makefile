# Trusting the Support Vector Machine: build, test and benchmark.
# A newcomer needs only `make book` and `make test`; both create .venv when it is missing.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
CHAPTER ?= svm
JB     := $(BIN)/jupyter-book build . -W -n --keep-going

export MPLBACKEND := Agg
export PYDEVD_DISABLE_FILE_VALIDATION := 1
# Progress bars (tqdm, on stderr) show in JupyterLab and on the command line; the book build and
# nbval run with SVMTRUST_PROGRESS=0 so that no bar lands in a rendered or stored output.

.PHONY: help venv book test lint unit nbval book-clean html-check bench reproduce lab strip clean

help:
	@echo "make book       build the HTML book into _build/html (executes every chapter)"
	@echo "make test       style (ruff), unit tests, nbval over the chapters, a from-scratch -W build"
	@echo "make bench      timing comparisons (tests/benchmarks)"
	@echo "make reproduce CHAPTER=NAME   run a chapter's protocol at paper scale"
	@echo "make lab        open the chapters in JupyterLab"
	@echo "make strip      keep in the chapters only the outputs nbval checks"
	@echo "make clean      remove _build"

venv: $(STAMP)

$(STAMP): requirements.txt lib/pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	touch $@

book: $(STAMP)
	SVMTRUST_PROGRESS=0 $(JB)

# The chapters run twice (nbval, then the build); the two runs are independent, so they share
# the two cores of a laptop-sized machine.
test: $(STAMP)
	$(MAKE) lint
	$(MAKE) unit
	$(MAKE) -j2 --output-sync=target nbval book-clean
	$(MAKE) html-check

# Style: ruff's linter and formatter (configuration in ruff.toml), over the library, the tests,
# the tools and the chapters.
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

unit: $(STAMP)
	$(BIN)/python -m pytest tests -q -p no:cacheprovider --ignore=tests/benchmarks \
		--ignore=tests/html

nbval: $(STAMP)
	SVMTRUST_PROGRESS=0 $(BIN)/python -m pytest --nbval-lax --nbval-cell-timeout=900 -q -p no:cacheprovider book

# A build from scratch: an incremental build that finds nothing changed exits 0 even when a
# cell is broken, so the gate removes _build first.
book-clean: $(STAMP)
	rm -rf _build
	SVMTRUST_PROGRESS=0 $(JB)

html-check: $(STAMP)
	REQUIRE_HTML=1 $(BIN)/python -m pytest tests/html -q -p no:cacheprovider

bench: $(STAMP)
	$(BIN)/python -m pytest tests/benchmarks -q -s -p no:cacheprovider

reproduce: $(STAMP)
	mkdir -p results
	$(BIN)/python -m svmtrust.experiments $(CHAPTER) --scale paper --seed 0 --n-jobs -1 \
		--output results/$(CHAPTER)-paper.csv

lab: $(STAMP)
	$(BIN)/jupyter lab book

# After a chapter is executed in place: keep only the outputs nbval compares (readable diffs).
strip: $(STAMP)
	$(BIN)/python tools/strip_outputs.py

clean:
	rm -rf _build
